/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc; work.h), for
 * tests/cli/diff_smpi_run.sh: alltoall, gather, scatter, reduce, allgather, scan, reduce_scatter_block, sendrecv, ssend; unequal computations.
 * Computation is declared (psim_compute / smpi_execute_flops), so both simulate the same work;
 * each rank prints MPI_Wtime once, at the end (SMPI adds smpi/wtime, 10 ns, after each read). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "work.h"
int main(int argc, char **argv) {
  int r, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int m = 4096;
  double *a = calloc((size_t)m * n, sizeof *a), *b = calloc((size_t)m * n, sizeof *b);
  for (int it = 0; it < 3; it++) {
    WORK(2e6 * ((r * 7 + it) % 5));
    MPI_Alltoall(a, m / 8, MPI_DOUBLE, b, m / 8, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gather(a, m, MPI_DOUBLE, b, m, MPI_DOUBLE, it % n, MPI_COMM_WORLD);
    MPI_Scatter(a, m / 2, MPI_DOUBLE, b, m / 2, MPI_DOUBLE, (it + 1) % n, MPI_COMM_WORLD);
    MPI_Reduce(a, b, m, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allgather(a, 64, MPI_DOUBLE, b, 64, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Scan(a, b, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 32, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(a, 300, MPI_DOUBLE, (r + 1) % n, 5, b, 300, MPI_DOUBLE, (r + n - 1) % n, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (r % 2 == 0 && r + 1 < n) MPI_Ssend(a, 10, MPI_DOUBLE, r + 1, 6, MPI_COMM_WORLD);
    if (r % 2 == 1) MPI_Recv(b, 10, MPI_DOUBLE, r - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  MPI_Finalize();
  return 0;
}
