/* 100 rounds of two polls (MPI_Iprobe for a message that never comes) then an allreduce of 8
 * bytes; rank 0 polls twice more before the first round, so that its carry under
 * smpi/cpu-threshold (run/iprobe-cost) is half a threshold ahead of the others'. Rank 0
 * prints the rounds' time. tests/cli/run_coll_cost.sh: each rank charges its carry at the
 * collective, all ranks at the same round. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, flag;
  double x = 1, y = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (r == 0)
    for (int p = 0; p < 2; p++) MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  for (int i = 0; i < 100; i++) {
    for (int p = 0; p < 2; p++) MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double t = MPI_Wtime() - t0;
  if (r == 0) printf("rounds %.9f sum %g\n", t, y);
  MPI_Finalize();
  return 0;
}
