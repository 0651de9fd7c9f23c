/* 100 allreduces of 8 bytes, timed by MPI_Wtime after a barrier: rank 0 prints the loop's
 * time and the sum (10 at np=4). tests/cli/run_coll_selector.sh and run_psimcc_selector.sh
 * compare collective selections with it. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  double x, y = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  x = r + 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < 100; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (r == 0) printf("allreduce %.9f sum %g\n", t, y);
  MPI_Finalize();
  return 0;
}
