/* Exit handlers, each process's own: main registers MPI_Finalize with atexit (as Debian's
 * IQ-TREE does) and a handler that communicates, then returns without calling MPI_Finalize.
 * In a real run each process runs its handlers at its exit, in reverse order: every rank
 * prints its line with the sum of all ranks, then finalizes. With the argument "_exit" rank 1
 * ends with _exit(0) instead, which runs no handler (its line is missing, and the others'
 * handler does not communicate then). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, quick;

static void finalize(void) { MPI_Finalize(); }

static void report(void) {
  int sum = me;
  if (!quick) MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d: handler, sum %d\n", me, sum);
  fflush(stdout);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  quick = argc > 1 && !strcmp(argv[1], "_exit");
  atexit(finalize);
  atexit(report);
  if (quick && me == 1) _exit(0);
  return 0;
}
