/* main rearranges its argv as Yorick's mpy does (it drops the options it took by moving the
 * pointers down, leaving one string referenced twice), and points an entry at its own string.
 * psim freed the strings from the program's argv at the end of the run: "double free or
 * corruption", SIGABRT, exit 134, after a run that had gone well. Prints what each rank saw. */
#include <mpi.h>
#include <stdio.h>

static char mine[] = "own";

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc >= 3) {
    argv[1] = argv[2];    /* the second option moves down: argv[2]'s string twice */
    argv[0] = mine;       /* not psim's */
  }
  if (rank == 0) printf("%d args: %s %s %s\n", argc, argv[0], argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-");
  MPI_Finalize();
  return 0;
}
