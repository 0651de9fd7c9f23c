/* A shared library that calls MPI and keeps its state in globals, as ScaLAPACK's BLACS does
 * (its grids): each rank needs its own copy. abi_libmain.c calls MPI only through it, and
 * overrides two of its symbols, as ScaLAPACK's testers do (pjlaenv_): the program's
 * definitions are the ones the library must use, as in a process started normally. */
#include <mpi.h>

static int me = -1, np = 0;

int lu_block = 1;                      /* the program writes it (a copy relocation there) */
int lu_tune(void) { return 1; }        /* the program defines its own */

void lu_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
}

/* The rank of the left neighbour, as it sends it. */
int lu_ring(void) {
  int got = -1;
  MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % np, 0, &got, 1, MPI_INT, (me + np - 1) % np, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return got;
}

int lu_rank(void) { return me; }

/* What the library sees of the program's overrides. */
int lu_seen(void) { return 100 * lu_tune() + lu_block; }

void lu_end(void) { MPI_Finalize(); }
