/* Calls an MPI function psim does not provide: psimcc must refuse it. */
#include <mpi.h>
int MPI_Win_fence(int assert, int win);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Win_fence(0, 0);
  MPI_Finalize();
  return 0;
}
