/* Polling (issue 9): rank 1 computes 1 s (declared: 1e9 flops) then sends to rank 0, which
 * polls for the message with MPI_Test (mode "test"), MPI_Iprobe ("iprobe"),
 * MPI_Request_get_status then MPI_Wait ("getstatus"), MPI_Test between chunks of its own work
 * of 1 ms ("work"), or a message nobody sends ("never", a deadlock).
 * Rank 0 prints how many times it polled. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, x = 0, flag = 0;
  long polls = 0;
  const char *mode = argc > 1 ? argv[1] : "test";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    psim_compute(1e9);
    x = 42;
    if (strcmp(mode, "never")) MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  } else if (rank == 0) {
    if (!strcmp(mode, "iprobe")) {
      while (!flag) { MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); polls++; }
      MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request rq;
      MPI_Irecv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq);
      while (!flag) {
        if (!strcmp(mode, "work")) psim_compute(1e6);
        if (!strcmp(mode, "getstatus")) MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE);
        else MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        polls++;
      }
      if (!strcmp(mode, "getstatus")) MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    printf("rank 0 got %d after %ld polls at %.6f\n", x, polls, MPI_Wtime());
  }
  MPI_Finalize();
  return 0;
}
