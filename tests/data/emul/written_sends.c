/* Which sends carry data written since they last moved (psim run, src/emul/emu_written.c).
 * Rank 0 sends 1 MB to rank 1 six times, each after a barrier; rank 1 times each receive
 * (under --no-measure, the message's time alone) and prints "send I SECONDS":
 *   0: a buffer never sent (its bytes were just written)     written
 *   1: the same bytes again                                   at rest
 *   2: one byte changed                                       written
 *   3: the same again                                         at rest
 *   4: after a receive into it of the same bytes              written (a receive wrote it)
 *   5: a strided vector of the same buffer (packed)           written
 * The receive of 4 is rank 1 sending the buffer's bytes back first. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  char *buf = malloc(2 * N), *in = malloc(2 * N);
  memset(buf, 7, 2 * N);
  MPI_Datatype vec;
  MPI_Type_vector(N / 8, 8, 16, MPI_BYTE, &vec);
  MPI_Type_commit(&vec);
  for (int i = 0; i < 6; i++) {
    if (i == 2 && r == 0) buf[N / 2]++;
    if (i == 4) {   /* rank 1 sends rank 0's bytes back into buf */
      if (r == 1) MPI_Send(in, N, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
      if (r == 0) MPI_Recv(buf, N, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0) {
      if (i < 5) MPI_Send(buf, N, MPI_BYTE, 1, i, MPI_COMM_WORLD);
      else MPI_Send(buf, 1, vec, 1, i, MPI_COMM_WORLD);
    } else if (r == 1) {
      double t0 = MPI_Wtime();
      MPI_Recv(in, N, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("send %d %.9e\n", i, MPI_Wtime() - t0);
    }
  }
  MPI_Type_free(&vec);
  free(buf);
  free(in);
  MPI_Finalize();
  return 0;
}
