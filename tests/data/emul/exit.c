/* exit() called by a rank: rank 1 calls exit(argv[1]) from leave(), after MPI_Init; the
 * others wait in a barrier. With status 0 every rank exits after MPI_Finalize instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void leave(int rank, int code);
void leave(int rank, int code) {
  if (rank == 1) {
    printf("rank 1 calls exit(%d)\n", code);
    exit(code);
  }
}

int main(int argc, char **argv) {
  int rank, code = argc > 1 ? atoi(argv[1]) : 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (code) leave(rank, code);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  printf("rank %d exits 0 after MPI_Finalize\n", rank);
  exit(0);
}
