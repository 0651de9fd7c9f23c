/* Built by MPICH's mpicc against abi_copyvar_lib.c's library: it reads the library's variables
 * (copy relocations in the program, filled from the library as the program is loaded). psim
 * run loads the library with each rank's copy of the program, out of the global scope: it
 * said "its variable cv_table (a copy relocation) is defined by no loaded library" and stopped
 * (NWChem's nwchem.mpich, with libpython3.11's PyExc_MemoryError). The library then read its
 * own cv_table, not the program's copy that each rank writes (mpgrafic and GSL): the library
 * is each rank's own now. */
#include <mpi.h>
#include <stdio.h>

extern int cv_table[3];
extern const char *cv_name;
int cv_sum(void);

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cv_table[0] += rank;   /* the program's own copy: private per rank, and the library's */
  printf("rank %d: %s %d %d %d sum %d\n", rank, cv_name, cv_table[0], cv_table[1], cv_table[2], cv_sum());
  MPI_Finalize();
  return 0;
}
