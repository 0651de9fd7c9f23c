/* Ring: a token goes around the ranks N times; each rank adds its rank number to it.
 * Usage: ring [ROUNDS] [BYTES]. Rank 0 checks the token's final value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  int bytes = argc > 2 ? atoi(argv[2]) : (int)sizeof(long);
  if (bytes < (int)sizeof(long)) bytes = (int)sizeof(long);
  char *buf = calloc(1, (size_t)bytes);
  long token = 0;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int r = 0; r < rounds; r++) {
    if (rank == 0) {
      memcpy(buf, &token, sizeof token);
      MPI_Send(buf, bytes, MPI_BYTE, next, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(&token, buf, sizeof token);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(&token, buf, sizeof token);
      token += rank;
      memcpy(buf, &token, sizeof token);
      MPI_Send(buf, bytes, MPI_BYTE, next, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    long want = (long)rounds * size * (size - 1) / 2;
    printf("ring: %d ranks, %d rounds of %d bytes: token %ld (%s) at %.6f s\n", size, rounds, bytes,
           token, token == want ? "ok" : "WRONG", MPI_Wtime());
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
