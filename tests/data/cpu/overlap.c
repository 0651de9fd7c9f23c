/* psim run's check of the CPU model (tests/cli/cpu_model.sh): rank 0 sends 1e6 bytes to
 * rank 1, which computes 1e9 flops while the message arrives. */
#include <mpi.h>

static char buf[1000000];

int main(int argc, char **argv) {
  int rank;
  MPI_Request rq;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Send(buf, (int)sizeof buf, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Irecv(buf, (int)sizeof buf, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &rq);
    psim_compute(1e9);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
