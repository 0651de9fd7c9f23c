/* An MPICH binary calling a function psim does not implement (MPI_Comm_spawn): psim run must
 * stop with a message naming the call and exit status 4 (tests/cli/run_abi.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Comm child;
  int errs[1];
  MPI_Init(&argc, &argv);
  printf("before spawn\n");
  MPI_Comm_spawn("./worker", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child, errs);
  printf("after spawn\n");
  MPI_Finalize();
  return 0;
}
