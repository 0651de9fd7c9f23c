/* Pi by integration of 4/(1+x^2) over [0,1]: each rank sums every size-th interval, then an
 * MPI_Reduce adds the partial sums. Usage: pi [INTERVALS] [--declare]
 * With --declare the loop still runs, but its cost is declared with psim_compute (5 flops per
 * interval) and measurement should be off (psim run --no-measure): the simulated time is then
 * exact. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int declare = argc > 2 && !strcmp(argv[2], "--declare");
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  double h = 1.0 / (double)n, sum = 0;
  long mine = 0;
  for (long i = rank; i < n; i += size) {
    double x = h * ((double)i + 0.5);
    sum += 4.0 / (1.0 + x * x);
    mine++;
  }
  if (declare) psim_compute(5.0 * (double)mine);
  double part = h * sum, pi = 0;
  MPI_Reduce(&part, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pi: %ld intervals on %d ranks: %.12f, error %.3e (%s)\n", n, size, pi,
           fabs(pi - M_PI), fabs(pi - M_PI) < 1e-6 ? "ok" : "WRONG");
  MPI_Finalize();
  return 0;
}
