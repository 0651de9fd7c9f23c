/* A program that asks MPI_Init_thread for a thread level (argv[1]: 0 SINGLE .. 3 MULTIPLE)
 * and, as cp2k does, aborts when given less; otherwise prints what it was given and passes a
 * message, from its main thread only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  static const char *const names[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
  int rank, provided, queried, x = 7;
  int asked = argc > 1 ? atoi(argv[1]) : MPI_THREAD_SERIALIZED;
  MPI_Init_thread(&argc, &argv, asked, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < asked) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Query_thread(&queried);
  if (rank == 0) {
    printf("provided %s, queried %s\n", names[provided], names[queried]);
    MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
