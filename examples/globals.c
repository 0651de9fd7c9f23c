/* A program with global and static variables, as real MPI programs have: each rank must see
 * its own copy (psim run loads one copy of the program per rank). Each rank stores its rank
 * in globals, lets the others run (a barrier), then checks that its values are still its own. */
#include <mpi.h>
#include <stdio.h>

int my_rank = -1;                 /* a global */
static double table[4];           /* a static array */
static int counter(void) { static int calls; return ++calls; }   /* a static local */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 4; i++) table[i] = my_rank * 10 + i;
  for (int i = 0; i < my_rank; i++) counter();
  MPI_Barrier(MPI_COMM_WORLD);    /* every other rank ran and wrote its globals meanwhile */
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int ok = my_rank == rank && table[3] == rank * 10 + 3 && counter() == rank + 1;
  int all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("globals: %d ranks, private globals %s\n", size, all_ok ? "ok" : "SHARED");
  MPI_Finalize();
  return 0;
}
