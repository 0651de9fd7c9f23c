/* A C program calling a Fortran library (abi_inplace_lib.f90) that reduces in place: each rank
 * prints the sums of (rank, 10 x rank, 1) over the ranks. */
#include <mpi.h>
#include <stdio.h>

void lib_sum_in_place_(int *x, int *n, MPI_Fint *comm);

int main(int argc, char **argv) {
  int rank, n = 3;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int x[3] = {rank, 10 * rank, 1};
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD);
  lib_sum_in_place_(x, &n, &comm);
  printf("rank %d: %d %d %d\n", rank, x[0], x[1], x[2]);
  MPI_Finalize();
  return 0;
}
