/* A loop that waits for the clock (tests/cli/run_wtime_loop.sh), as MPICH's bsendpending does:
 * under --no-measure only the rule of MPI_Wtime (rt_init.c) lets it end. Prints the start,
 * the number of calls and the time the loop ended; then two timing calls around a barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime(), t;
  long n = 1;
  while ((t = MPI_Wtime()) - t0 < 2.0) n++;
  if (rank == 0) printf("start %.9g calls %ld end %.9g\n", t0, n + 1, t);
  MPI_Barrier(MPI_COMM_WORLD);
  double a = MPI_Wtime(), b = MPI_Wtime();
  if (rank == 0) printf("pair %.9g\n", b - a);
  MPI_Finalize();
  return 0;
}
