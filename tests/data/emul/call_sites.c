/* A ping-pong built by a real MPI's mpicc (tests/cli/run_sites.sh): the critical path runs
 * through the two MPI_Recv calls, whose lines the test finds here by their text. */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 20; i++) {
    if (rank == 0) {
      MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* rank 0 waits */
    } else {
      MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* rank 1 waits */
      x++;
      MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return x == 20 ? 0 : 1;
}
