/* Where a message's data sit, and what it costs (docs/VALIDATION.md, issue 34): at np=2, B
 * bytes (argument, default 1 MiB) exchanged with MPI_Sendrecv from a buffer left as the last
 * transfer left it, after a memcpy into it (the sender wrote it), after a memcpy elsewhere, after
 * writing one byte per cache line of it, after reading it; and MPI_Alltoall and MPI_Allreduce
 * of B. Each figure is the best of 7 batches of 50, timed with MPI_Wtime; rank 0 prints them.
 *   mpicc.mpich -O2 -o written_parts bench/written_parts.c && mpiexec.mpich -n 2 ./written_parts 1048576 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int rank;
static double t_us(int kind, char *s, char *r, char *u, long b) {
  double best = 1e30;
  for (int rep = 0; rep < 7; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 50; i++) {
      if (kind == 1 || kind == 2) memcpy(s, u, b);
      if (kind == 5) { memcpy(u + b, u, b); MPI_Sendrecv(s, b, MPI_BYTE, 1 - rank, 0, r, b, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
      if (kind == 6) { for (long j = 0; j < b; j += 64) s[j]++; MPI_Sendrecv(s, b, MPI_BYTE, 1 - rank, 0, r, b, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
      if (kind == 7) { volatile long z = 0; for (long j = 0; j < b; j += 64) z += s[j]; MPI_Sendrecv(s, b, MPI_BYTE, 1 - rank, 0, r, b, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }           /* the send buffer freshly written */
      if (kind == 0 || kind == 2) MPI_Sendrecv(s, b, MPI_BYTE, 1 - rank, 0, r, b, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (kind == 3) MPI_Alltoall(s, b, MPI_BYTE, r, b, MPI_BYTE, MPI_COMM_WORLD);
      if (kind == 4) MPI_Allreduce(s, r, b / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t = (MPI_Wtime() - t0) / 50 * 1e6;
    if (t < best) best = t;
  }
  return best;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long b = argc > 1 ? atol(argv[1]) : 1 << 20;
  char *s = malloc(2 * b), *r = malloc(2 * b), *u = malloc(2 * b);
  memset(s, 1, 2 * b); memset(r, 2, 2 * b); memset(u, 3, 2 * b);
  const char *nm[] = {"sendrecv", "memcpy alone", "memcpy then sendrecv", "alltoall b/pair", "allreduce b", "other memcpy, sendrecv", "1B/line write, sendrecv", "read s, sendrecv"};
  for (int k = 0; k < 8; k++) { double t = t_us(k, s, r, u, b); if (!rank) printf("%-22s %8.1f us\n", nm[k], t); }
  MPI_Finalize();
}
