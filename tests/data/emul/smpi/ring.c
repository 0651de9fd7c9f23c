/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc; work.h), for
 * tests/cli/diff_smpi_run.sh: a ring of non-blocking messages, allreduce, bcast, a large send, barriers; unequal computations.
 * Computation is declared (psim_compute / smpi_execute_flops), so both simulate the same work;
 * each rank prints MPI_Wtime once, at the end (SMPI adds smpi/wtime, 10 ns, after each read). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "work.h"
int main(int argc, char **argv) {
  int r, n;
  static double buf[1 << 17], out[1 << 17];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int it = 0; it < 5; it++) {
    WORK(1e6 * (r + 1));
    MPI_Request q[2];
    MPI_Irecv(buf, 1000 * (it + 1), MPI_DOUBLE, (r + n - 1) % n, it, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(out, 1000 * (it + 1), MPI_DOUBLE, (r + 1) % n, it, MPI_COMM_WORLD, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, out, 100 << it, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(buf, 5000, MPI_DOUBLE, it % n, MPI_COMM_WORLD);
    if (r == 0) MPI_Send(buf, 20000, MPI_DOUBLE, n - 1, 99, MPI_COMM_WORLD);
    if (r == n - 1) MPI_Recv(buf, 20000, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  MPI_Finalize();
  return 0;
}
