/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc), for
 * tests/cli/diff_smpi_run.sh: C library calls that SMPI simulates (smpi_helpers.h).
 * argv[1], when given, keeps one part:
 *   sleep: the last rank sleeps (sleep, usleep, nanosleep) before receiving the messages rank
 *          0 sends it, as MPICH's pt2pt/eagerdt (MTestSleep(2)) does; under SMPI the sleeps are
 *          simulated time (smpi_sleep, smpi_usleep, smpi_nanosleep), whatever
 *          smpi/simulate-computation says.
 * Each rank prints MPI_Wtime once, at the end. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep (smpicc defines it already) */
#endif
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static const char *only;
static int on(const char *what) { return !only || !strcmp(only, what); }
int main(int argc, char **argv) {
  int r, n;
  MPI_Init(&argc, &argv);
  only = argc > 1 ? argv[1] : NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  static char a[4000], b[4000];
  if (on("sleep") && n > 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == n - 1) {
      sleep(1);
      usleep(250000);
      struct timespec ts = {0, 125000000};
      nanosleep(&ts, NULL);
      for (int i = 0; i < 10; i++) MPI_Recv(b, 4000, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (r == 0) {
      MPI_Request q[10];
      for (int i = 0; i < 10; i++) MPI_Isend(a, 4000, MPI_BYTE, n - 1, i, MPI_COMM_WORLD, &q[i]);
      MPI_Waitall(10, q, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  MPI_Finalize();
  return 0;
}
