/* The star network's sharing in psim run (tests/cli/models_star.sh): rank 1 sends 1 MB to
 * ranks 0 and 2 while ranks 3 and 4 also send 1 MB to rank 2 (DPS's example, issue 10), after
 * argv[1] flops of declared computation on every rank (0: none). Ranks 5 and up only compute.
 * Buffers are malloc'ed: 1 MB each, the data really moves. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  const int n = 1000000;
  double flops = argc > 1 ? atof(argv[1]) : 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *a = calloc(n, 1), *b = calloc(n, 1), *c = calloc(n, 1);
  if (flops > 0) psim_compute(flops);
  MPI_Request r[3];
  if (rank == 1) {
    MPI_Isend(a, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(b, n, MPI_BYTE, 2, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  } else if (rank == 3 || rank == 4) {
    MPI_Send(a, n, MPI_BYTE, 2, 0, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Recv(a, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 2) {
    MPI_Irecv(a, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b, n, MPI_BYTE, 3, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(c, n, MPI_BYTE, 4, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
  }
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return 0;
}
