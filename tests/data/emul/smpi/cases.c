/* One MPI operation per case (argv[1]) under SMPI (smpicc) and psim run (psimcc), for
 * tests/cli/diff_smpi_run.sh: blocking and non-blocking point to point, late receivers,
 * synchronous sends small and large, and each collective alone; MPI_Wtime at the end. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "work.h"
int main(int argc, char **argv) {
  int r, n;
  static double buf[4096];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *c = argv[1];
  if (!strcmp(c, "recv")) { if (r == 0) MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); else if (r == 1) { WORK(1e8); MPI_Recv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);} }
  if (!strcmp(c, "recv0")) { if (r == 0) MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); else if (r == 1) { MPI_Recv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);} }
  if (!strcmp(c, "irecv")) { if (r == 0) { MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); MPI_Send(buf, 10, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);} else if (r == 1) { MPI_Request q[2]; MPI_Irecv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &q[0]); MPI_Irecv(buf+200, 10, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &q[1]); WORK(1e8); MPI_Waitall(2, q, MPI_STATUSES_IGNORE);} }
  if (!strcmp(c, "allreduce")) MPI_Allreduce(MPI_IN_PLACE, buf, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "bcast")) MPI_Bcast(buf, 100, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
  static double b2[8192];
  if (!strcmp(c, "gather")) MPI_Gather(buf, 100, MPI_DOUBLE, b2, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  if (!strcmp(c, "scatter")) MPI_Scatter(b2, 100, MPI_DOUBLE, buf, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  if (!strcmp(c, "alltoall")) MPI_Alltoall(b2, 100, MPI_DOUBLE, b2 + 4000, 100, MPI_DOUBLE, MPI_COMM_WORLD);
  if (!strcmp(c, "allgather")) MPI_Allgather(buf, 64, MPI_DOUBLE, b2, 64, MPI_DOUBLE, MPI_COMM_WORLD);
  if (!strcmp(c, "scan")) MPI_Scan(buf, b2, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "redscat")) MPI_Reduce_scatter_block(b2, buf, 32, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "sendrecv")) MPI_Sendrecv(buf, 300, MPI_DOUBLE, (r + 1) % n, 5, b2, 300, MPI_DOUBLE, (r + n - 1) % n, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!strcmp(c, "reduce")) MPI_Reduce(buf, b2, 1000, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "ssend")) { if (r % 2 == 0 && r + 1 < n) MPI_Ssend(buf, 10, MPI_DOUBLE, r + 1, 6, MPI_COMM_WORLD); if (r % 2 == 1) MPI_Recv(buf, 10, MPI_DOUBLE, r - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  if (!strcmp(c, "ssendlate")) { if (r == 0) MPI_Ssend(buf, 10, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); if (r == 1) { WORK(1e7); MPI_Recv(buf, 10, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } }
  if (!strcmp(c, "sendlate")) { if (r == 0) MPI_Send(buf, 10, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); if (r == 1) { WORK(1e7); MPI_Recv(buf, 10, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } }
  static double big[100000];
  if (!strcmp(c, "bigssend")) { if (r == 0) MPI_Ssend(big, 100000, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD); if (r == 1) MPI_Recv(big, 100000, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  printf("rank %d wtime %.9f\n", r, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
