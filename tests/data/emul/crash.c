/* Rank 1 dereferences a null pointer after a barrier. */
#include <mpi.h>
#include <stdio.h>
int *volatile nowhere;
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) *nowhere = 42;
  MPI_Finalize();
  return 0;
}
