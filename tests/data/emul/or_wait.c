/* smpi/or under psim run: rank 0 sends three detached 100-byte messages; rank 1 posts their
 * receives, sleeps 1 s (they arrive meanwhile), then waits for all three. SMPI charges or in
 * the receiver's wait, one message after the other: rank 1 ends at 1 + 3 x or(100). */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, buf[3][25] = {{0}};
  MPI_Request r[3];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (int i = 0; i < 3; i++) MPI_Send(buf[i], 25, MPI_INT, 1, i, MPI_COMM_WORLD);
  } else if (rank == 1) {
    for (int i = 0; i < 3; i++) MPI_Irecv(buf[i], 25, MPI_INT, 0, i, MPI_COMM_WORLD, &r[i]);
    psim_sleep(1.0);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
