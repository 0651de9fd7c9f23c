/* PSIM_SAMPLE(3): the block runs 3 times of 20, the other 17 cost the measured mean. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  volatile double x = 0;
  int ran = 0;
  for (int it = 0; it < 20; it++) {
    PSIM_SAMPLE(3) { ran++; for (int i = 0; i < 2000000; i++) x += i * 0.5; }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("sample: block ran %d times of 20 at %.6f\n", ran, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
