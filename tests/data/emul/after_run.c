/* MPI called after the simulation: from an exit handler, as libraries do at exit (HDF5's library
 * close frees its communicators there). The program registers as it is loaded (a constructor;
 * a handler registered by a rank's main is the rank's own and runs when the rank ends, inside
 * the simulation: atexit_ranks.c) a handler that asks MPI_Finalized
 * (allowed at any time: 1 after the run), then frees a communicator (erroneous after
 * MPI_Finalize: psim must stop the process there with a clear message and the run's status,
 * never crash). With the argument "fail", rank 1 stops the run with an error first (a send to
 * a rank that does not exist): the handler runs all the same, at psim's exit, and finds MPI
 * finalized. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm dup;

static void at_exit(void) {
  int fin = -1, init = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  printf("exit handler: initialized %d, finalized %d\n", init, fin);
  fflush(stdout);
  MPI_Comm_free(&dup);
  printf("exit handler: MPI_Comm_free returned\n");   /* never printed */
}

/* Each rank's copy of the program registers it: the first to run stops the process. */
__attribute__((constructor)) static void reg(void) { atexit(at_exit); }

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (argc > 1 && !strcmp(argv[1], "fail") && rank == 1) {
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("main done\n");
  MPI_Finalize();
  return 0;
}
