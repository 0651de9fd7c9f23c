/* MPI called from a constructor, as the program is loaded (before the simulation starts), as
 * OpenCoarrays' runtime does: MPI_Init_thread there succeeds and is made at the rank's start
 * (main sees MPI initialized, at the level the constructor got); with PSIM_TEST_CTOR_DUP set,
 * the constructor also communicates (MPI_Comm_dup), which psim cannot do outside the
 * simulation: it must stop with a clear message, not crash. */
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
  printf("rank %d: initialized %d, provided %d, query %d, sum %d\n", rank, flag, ctor_provided, level, sum);
  MPI_Finalize();
  return 0;
}
