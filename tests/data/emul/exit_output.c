/* Output written after main returns, as libraries do at exit (libgfortran flushes its units in
 * its destructor: a ScaLAPACK tester's last lines): psim run must leave stdout open for it.
 * Rank 0 registers an atexit handler; every rank's copy has a destructor. Both print through
 * stdio, buffered when stdout is a file. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank = -1;

static void at_exit(void) { printf("atexit of rank %d\n", rank); }

__attribute__((destructor)) static void fini(void) { printf("destructor of rank %d\n", rank); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) atexit(at_exit);
  printf("main of rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
