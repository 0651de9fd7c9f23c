/* Measured computation: rank 0 spins for argv[1] seconds of its thread's CPU time between two
 * barriers (a long burst, measured with the CPU clock, so time the OS gives to other processes
 * is not counted); then every rank makes argv[2] MPI calls with nothing between them. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int rank, size;
  double secs = argc > 1 ? atof(argv[1]) : 0.02;
  long calls = argc > 2 ? atol(argv[2]) : 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    volatile double x = 0;
    double t0 = cpu();
    while (cpu() - t0 < secs) x += 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char b = 0;
  int peer = rank ^ 1;
  if (peer < size)
    for (long i = 0; i < calls; i++) {
      if (rank % 2 == 0) {
        MPI_Send(&b, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&b, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&b, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&b, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    }
  MPI_Finalize();
  return 0;
}
