/* Communication figures for bench/validate_mpich.sh, built twice (real mpicc and psimcc) and
 * run at the same np: the same program prints the measurement under MPICH and the prediction
 * under psim run, as its times come from MPI_Wtime (simulated time under psim run).
 *
 *   pp_SIZE_us      ping-pong between ranks 0 and 1: half the round trip, every power of 2
 *                   from 8 B to 16 MiB, separate send and receive buffers (osu_latency's way);
 *   ring_SIZE_us    a ring step: every rank sends SIZE bytes right and receives from the left
 *                   (MPI_Sendrecv, as HPCC's ring; at np=2 an exchange), 8 B and 2 MB;
 *   allreduce_SIZE_us, alltoall_SIZE_us   one MPI_Allreduce (doubles, sum) of SIZE bytes,
 *                   one MPI_Alltoall of SIZE bytes per pair of ranks; 8 B and 1 MiB.
 * Each figure is the mean over a run of iterations (at least 10, about 20 ms of them)
 * after a tenth as many of warm-up; the script takes the best of several runs.
 * Usage: validate_net */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXB = 16777216 };
static int rank, size;
static char *sbuf, *rbuf;

/* Iterations of an operation of about `bytes`: ~20 ms at 5 GB/s, at least 10. */
static long iters_for(long bytes) {
  long n = 20000000L / (bytes + 4000) * 5;
  return n < 10 ? 10 : n > 20000 ? 20000 : n;
}

static void op(int kind, long bytes) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  switch (kind) {
  case 0:
    if (rank == 0) {
      MPI_Send(sbuf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    break;
  case 1:
    MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, right, 2, rbuf, (int)bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    break;
  case 2:
    MPI_Allreduce(sbuf, rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    break;
  default:
    MPI_Alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
  }
}

/* Mean time of one operation (the slowest rank's view), in seconds. */
static double timed(int kind, long bytes) {
  long n = iters_for(kind == 3 ? bytes * size : bytes);
  double t0 = 0;
  for (long i = -n / 10 - 1; i < n; i++) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    op(kind, bytes);
  }
  double t = (MPI_Wtime() - t0) / (double)n, tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return kind == 0 ? tmax / 2 : tmax;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "validate_net: needs 2 ranks or more\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t big = (size_t)MAXB > (size_t)1048576 * size ? (size_t)MAXB : (size_t)1048576 * size;
  sbuf = malloc(big), rbuf = malloc(big);
  if (!sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(sbuf, 1, big);
  memset(rbuf, 0, big);
  for (long b = 8; b <= MAXB; b *= 2) {
    double t = timed(0, b);
    if (rank == 0) printf("pp_%ld_us %.4f\n", b, t * 1e6);
  }
  static const long ring[] = {8, 2000000}, coll[] = {8, 1048576};
  for (int i = 0; i < 2; i++) {
    double t = timed(1, ring[i]);
    if (rank == 0) printf("ring_%ld_us %.4f\n", ring[i], t * 1e6);
  }
  for (int i = 0; i < 2; i++) {
    double a = timed(2, coll[i]), b = timed(3, coll[i]);
    if (rank == 0) printf("allreduce_%ld_us %.4f\nalltoall_%ld_us %.4f\n", coll[i], a * 1e6, coll[i], b * 1e6);
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
