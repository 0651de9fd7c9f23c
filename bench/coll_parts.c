/* MPICH's large collectives against their parts, in one program (docs/VALIDATION.md): at np=2
 * MPI_Alltoall of 1 MiB per pair is, in the pairwise algorithm MPICH selects, one exchange of
 * 1 MiB and the rank's copy of its own block; MPI_Allreduce of 1 MiB (Rabenseifner) a copy of
 * the send buffer, two exchanges of 512 KiB and the reduction of 512 KiB. Each figure is the
 * best of 5 batches of 50 calls, timed with MPI_Wtime; rank 0 prints them.
 *   mpicc.mpich -O2 -o coll_parts bench/coll_parts.c && mpiexec.mpich -n 2 ./coll_parts */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static void op(int kind, char *s, char *r, long b) {
  switch (kind) {
  case 0: MPI_Alltoall(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, MPI_COMM_WORLD); break;
  case 1: MPI_Sendrecv(s, (int)b, MPI_BYTE, 1 - rank, 0, r, (int)b, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
  case 2: memcpy(r + b, s + b, (size_t)b); break;
  case 3: MPI_Allreduce(s, r, (int)(b / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
  case 4: MPI_Sendrecv(s, (int)b / 2, MPI_BYTE, 1 - rank, 0, r, (int)b / 2, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
  default: {   /* the reduction of half the buffer, as the algorithm's step does */
    double *x = (double *)s, *y = (double *)r;
    for (long i = 0; i < b / 16; i++) y[i] += x[i];
  }
  }
}

static double best_us(int kind, char *s, char *r, long b) {
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 50; i++) op(kind, s, r, b);
    double t = (MPI_Wtime() - t0) / 50;
    if (t < best) best = t;
  }
  return best * 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "coll_parts: runs at np=2\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long b = 1048576;
  char *s = malloc(16 << 20), *r = malloc(16 << 20);
  if (!s || !r) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(s, 1, 16 << 20);
  memset(r, 0, 16 << 20);
  static const char *const name[] = {"alltoall 1MiB", "sendrecv 1MiB", "memcpy 1MiB", "allreduce 1MiB",
                                     "sendrecv 512KiB", "sum 512KiB"};
  double t[6];
  for (int k = 0; k < 6; k++) t[k] = best_us(k, s, r, b);
  if (rank == 0) {
    for (int k = 0; k < 6; k++) printf("%s: %.1f us\n", name[k], t[k]);
    printf("alltoall against its parts: %.1f us for %.1f\n", t[0], t[1] + t[2]);
    printf("allreduce against its parts: %.1f us for %.1f\n", t[3], t[2] + 2 * t[4] + t[5]);
  }
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
