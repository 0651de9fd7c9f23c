/* Rank 0 recurses without end: its stack overflows into the guard page. */
#include <mpi.h>
static int deep(volatile char *p, int n) {
  volatile char frame[4096];
  frame[0] = (char)n;
  frame[4095] = p ? p[0] : 0;
  return deep(frame, n + 1) + frame[1];
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) deep(0, 0);
  MPI_Finalize();
  return 0;
}
