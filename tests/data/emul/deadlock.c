/* Both ranks receive first: a deadlock psim must report (ranks, calls, source lines). */
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
