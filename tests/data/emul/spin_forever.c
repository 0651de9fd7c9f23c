/* A rank that never calls MPI again (ScaLAPACK's BLACS tester tests BLACS_ABORT so): after a
 * barrier rank 2 aborts while the others spin, waiting to be killed. Under psim run rank 0
 * leaves the barrier first and spins; rank 2 never runs: psim must stop, not hang. With "work",
 * rank 0 computes about 1.5 s (wall) without calling MPI, then finishes normally. */
#include <mpi.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  int r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1 && !strcmp(argv[1], "work")) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (r == 0)
      do clock_gettime(CLOCK_MONOTONIC, &t);
      while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < 1.5);
    MPI_Finalize();
    return 0;
  }
  if (r == 2) MPI_Abort(MPI_COMM_WORLD, 3);
  volatile unsigned long i = 1;
  while (i) i = i + 3 - 2 - 1;
  MPI_Finalize();
  return 0;
}
