/* Do two ranks' copies at once share the node's memory? (issue 34, "co-located ranks share
 * memory bandwidth"; docs/VALIDATION.md). For each size from 64 KiB to 16 MiB: the median of
 * 41 memcpys on rank 0 alone (rank 1 waits at the barrier), then of 41 on both ranks at once,
 * each after a barrier; rank 0 prints both and their ratio (1: no sharing; 2: the copies take
 * turns). It asserts nothing.
 *   mpicc.mpich -O2 -o copy_share bench/copy_share.c && mpiexec.mpich -n 2 ./copy_share */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 41 };

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median time of one memcpy of n bytes on the ranks that are `active`. */
static double median_copy(char *d, const char *s, size_t n, int active) {
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (active) memcpy(d, s, n);
    t[r] = MPI_Wtime() - t0;
  }
  qsort(t, REPS, sizeof *t, cmp);
  return t[REPS / 2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (size_t n = 65536; n <= 16777216; n *= 4) {
    char *s = malloc(n), *d = malloc(n);
    if (!s || !d) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(s, 1, n);
    memset(d, 2, n);
    double alone = median_copy(d, s, n, rank == 0), both = median_copy(d, s, n, 1);
    if (rank == 0) printf("copy %8zu B: alone %9.2f us, both ranks at once %9.2f us, ratio %.3f\n", n, alone * 1e6, both * 1e6, both / alone);
    free(s);
    free(d);
  }
  MPI_Finalize();
  return 0;
}
