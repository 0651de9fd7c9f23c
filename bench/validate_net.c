/* Network figures for bench/validate_mpich.sh, built twice (real mpicc and psimcc) and run at
 * the same np: ping-pong latency and bandwidth between ranks 0 and 1, ring latency and
 * bandwidth over all ranks. Times come from MPI_Wtime, which under psim run is simulated time,
 * so the same program prints the measurement under MPICH and the prediction under psim.
 *
 *   ping-pong: rank 0 sends S bytes to rank 1, which sends them back; one-way time = half the
 *              round trip, bandwidth = S / one-way time (HPCC's b_eff definitions);
 *   ring:      every rank sends S bytes to its right neighbour while receiving from its left
 *              (MPI_Sendrecv, as HPCC's ring does); latency = time of one step, bandwidth =
 *              S / time of one step (what one rank sends per second).
 *
 * Sizes are HPCC's: 8 bytes for latencies, 2,000,000 bytes for bandwidths. Each figure is the
 * mean over ITERS steps after ITERS/10 steps of warm-up.
 * Usage: validate_net [LAT_ITERS [BW_ITERS]]   (defaults 20000 and 200) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { LAT_BYTES = 8, BW_BYTES = 2000000 };

/* Mean one-way time of a ping-pong of `bytes` between ranks 0 and 1 (the others wait). */
static double pingpong(char *buf, int bytes, long iters, int rank) {
  double t0 = 0;
  for (long i = -iters / 10; i < iters; i++) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  double t = (MPI_Wtime() - t0) / (2.0 * (double)iters);
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

/* Mean time of one ring step: every rank sends `bytes` right and receives from the left. */
static double ring(char *sbuf, char *rbuf, int bytes, long iters, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double t0 = 0;
  for (long i = -iters / 10; i < iters; i++) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    MPI_Sendrecv(sbuf, bytes, MPI_BYTE, right, 2, rbuf, bytes, MPI_BYTE, left, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double t = (MPI_Wtime() - t0) / (double)iters, tmax;
  /* the slowest rank's view, as a ring is as fast as its slowest member */
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long lat_iters = argc > 1 ? atol(argv[1]) : 20000;
  long bw_iters = argc > 2 ? atol(argv[2]) : 200;
  if (size < 2 || lat_iters < 10 || bw_iters < 10) {
    if (rank == 0) fprintf(stderr, "validate_net: needs 2+ ranks and 10+ iterations\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *a = calloc(1, BW_BYTES), *b = calloc(1, BW_BYTES);
  if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
  double ppl = pingpong(a, LAT_BYTES, lat_iters, rank);
  double ppb = pingpong(a, BW_BYTES, bw_iters, rank);
  double rl = ring(a, b, LAT_BYTES, lat_iters, rank, size);
  double rb = ring(a, b, BW_BYTES, bw_iters, rank, size);
  if (rank == 0) {
    printf("pingpong_latency_us %.4f\n", ppl * 1e6);
    printf("pingpong_bandwidth_GBs %.4f\n", BW_BYTES / ppb / 1e9);
    printf("ring_latency_us %.4f\n", rl * 1e6);
    printf("ring_bandwidth_GBs %.4f\n", BW_BYTES / rb / 1e9);
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
