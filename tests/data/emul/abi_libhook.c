/* A library that calls MPI and a function its program defines (NEURON's libnrniv calls nrniv's
 * modl_reg): in a process started normally the executable, first in the global scope, defines
 * it. Built by mpicc; abi_hookmain.c (plain cc) calls MPI only through it. */
#include <mpi.h>

int hook_of_program(int rank);   /* defined by the program */

void lh_init(int *argc, char ***argv) { MPI_Init(argc, argv); }

/* The sum over the ranks of what the program's hook makes of each rank. */
int lh_sum(void) {
  int me, v, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  v = hook_of_program(me);
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

void lh_end(void) { MPI_Finalize(); }
