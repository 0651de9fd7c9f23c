/* A local MPI call after MPI_Finalize (erroneous: MPICH and Open MPI abort the job): rank 0
 * frees a communicator after it, from main or (with the argument "handler") from an exit
 * handler main registered, which runs in the rank as it ends. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm dup;

static void release(void) {
  MPI_Comm_free(&dup);
  printf("MPI_Comm_free returned\n");   /* never printed */
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int handler = argc > 1 && !strcmp(argv[1], "handler");
  if (rank == 0 && handler) atexit(release);
  MPI_Finalize();
  if (rank == 0 && !handler) release();
  return 0;
}
