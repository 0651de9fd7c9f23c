/* Benchmark program for psim run: ranks pair up (0-1, 2-3, ...) and ping-pong N small
 * messages, so np/2 messages are in flight at once; with "sleep" instead, each rank does N
 * psim_sleep calls (one block and resume, i.e. two context switches, per call).
 * Usage: emul_pingpong N [BYTES] | emul_pingpong N sleep */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 100000;
  if (argc > 2 && !strcmp(argv[2], "sleep")) {
    for (long i = 0; i < n; i++) psim_sleep(1e-9);
  } else {
    int bytes = argc > 2 ? atoi(argv[2]) : 8;
    char *buf = calloc(1, (size_t)bytes + 1);
    int peer = rank ^ 1;
    if (peer < size)
      for (long i = 0; i < n; i++) {
        if (rank % 2 == 0) {
          MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
      }
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
