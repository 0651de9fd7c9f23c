/* HPC Challenge's MPIRandomAccess pattern: every rank updates its table and polls with
 * MPI_Iprobe after every update (a burst of well under a microsecond between two MPI calls),
 * sends a message to the next rank every 100 updates and receives what the poll finds; then
 * the ranks drain what is left. argv[1]: updates per rank. Prints each rank's count of
 * messages received and rank 0's MPI_Wtime at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long n = argc > 1 ? atol(argv[1]) : 10000, sent = 0, got = 0, all = 0, gotall = 0;
  enum { T = 1 << 12 };
  static unsigned long tab[T];
  unsigned long x = 12345 + (unsigned long)r, buf[8] = {0};
  MPI_Status st;
  int flag;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    tab[(x >> 20) & (T - 1)] ^= x;
    MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      MPI_Recv(buf, 8, MPI_UNSIGNED_LONG, st.MPI_SOURCE, 1, MPI_COMM_WORLD, &st);
      got++;
    }
    if (i % 100 == 99) {
      MPI_Send(buf, 8, MPI_UNSIGNED_LONG, (r + 1) % np, 1, MPI_COMM_WORLD);
      sent++;
    }
  }
  MPI_Allreduce(&sent, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&got, &gotall, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  while (gotall < all) {
    MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      MPI_Recv(buf, 8, MPI_UNSIGNED_LONG, st.MPI_SOURCE, 1, MPI_COMM_WORLD, &st);
      got++;
    }
    MPI_Allreduce(&got, &gotall, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  printf("rank %d received %ld of %ld\n", r, got, all);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) printf("end at %.9f\n", MPI_Wtime());
  MPI_Finalize();
  return 0;
}
