/* MPI called from a constructor, as the program is loaded, as OpenCoarrays' runtime does:
 * MPI_Init_thread there succeeds (main sees MPI initialized, at the level the constructor got);
 * with PSIM_TEST_CTOR_DUP set, the constructor also communicates (MPI_Comm_dup): an MPICH-built
 * program then loads each rank's copy inside its rank, where that works (main prints the
 * duplicate's size); a psimcc build is loaded before the simulation, where it cannot: psim
 * must stop with a clear message, not crash. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int ctor_provided = -1;
static MPI_Comm dup = MPI_COMM_NULL;

static void __attribute__((constructor)) init(void) {
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &ctor_provided);
  if (getenv("PSIM_TEST_CTOR_DUP")) MPI_Comm_dup(MPI_COMM_WORLD, &dup);
}

int main(void) {
  int flag = 0, rank, level = -1, sum = 0, one = 1;
  MPI_Initialized(&flag);
  MPI_Query_thread(&level);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int dsize = 0;
  if (dup != MPI_COMM_NULL) MPI_Comm_size(dup, &dsize);
  printf("rank %d: initialized %d, provided %d, query %d, sum %d, dup %d\n", rank, flag, ctor_provided, level, sum, dsize);
  MPI_Finalize();
  return 0;
}
