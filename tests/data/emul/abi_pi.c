/* pi by the midpoint rule on [0,1] of 4/(1+x^2), n intervals dealt round-robin to the ranks:
 * n is broadcast from rank 0, the partial sums reduced to rank 0 (tests/cli/run_abi.sh builds it
 * with MPICH's mpicc and with psimcc: same output, same simulated time).
 *   usage: abi_pi [N] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, n = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) n = argc > 1 ? atoi(argv[1]) : 10000;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double h = 1.0 / n, part = 0, pi = 0;
  for (int i = rank; i < n; i += size) {
    double x = h * (i + 0.5);
    part += 4.0 / (1.0 + x * x);
  }
  part *= h;
  MPI_Reduce(&part, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("pi %.16f error %.3e (n=%d, %d ranks)\n", pi, fabs(pi - 3.141592653589793), n, size);
  MPI_Finalize();
  return 0;
}
