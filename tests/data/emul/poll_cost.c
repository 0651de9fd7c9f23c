/* 1000 MPI_Iprobe that find a message (the probe leaves it queued) and 1000 MPI_Testall of a
 * null request on rank 0: every one of them a poll that succeeds at once. tests/cli/run_poll_cost.sh
 * charges each its run/iprobe-cost or run/test-cost. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, x = 42, y = 0, flag, found = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Request r, nul = MPI_REQUEST_NULL;
    MPI_Isend(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
    for (int i = 0; i < 1000; i++) {
      MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      found += flag;
    }
    for (int i = 0; i < 1000; i++) MPI_Testall(1, &nul, &flag, MPI_STATUSES_IGNORE);
    MPI_Recv(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("found %d got %d\n", found, y);
  }
  MPI_Finalize();
  return 0;
}
