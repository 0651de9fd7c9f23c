/* Empty flushes are not a wait (tests/cli/run_rma.sh). Rank 0 sweeps MPI_Win_flush_all over 32
 * windows with nothing pending, 100 times, with 1 ms of declared work after each sweep, as
 * NWChem's Global Arrays flush every window they have; rank 1 computes 1 s meanwhile. Rank 0's
 * work ends at 0.1 s. When each empty flush after the first waited for the next event (rank 1's
 * computation's end), the first sweep alone took it to 1 s. Prints rank 0's time. */
#include <mpi.h>
#include <stdio.h>

enum { NWIN = 32 };

int main(int argc, char **argv) {
  int rank, buf[NWIN];
  MPI_Win w[NWIN];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < NWIN; i++) {
    MPI_Win_create(&buf[i], sizeof buf[i], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]);
    MPI_Win_lock_all(0, w[i]);
  }
  double t0 = MPI_Wtime();
  if (rank == 1) {
    psim_compute(1e9);
  } else {
    for (int it = 0; it < 100; it++) {
      for (int i = 0; i < NWIN; i++) MPI_Win_flush_all(w[i]);
      psim_compute(1e6);
    }
    printf("rank 0 swept in %.6f s\n", MPI_Wtime() - t0);
  }
  for (int i = 0; i < NWIN; i++) {
    MPI_Win_unlock_all(w[i]);
    MPI_Win_free(&w[i]);
  }
  MPI_Finalize();
  return 0;
}
