/* The same C program under SMPI and psim run (tests/cli/diff_smpi_run.sh): reading the clock.
 * SMPI injects smpi/wtime (10 ns by default) of simulated time into every MPI_Wtime, after the
 * read, so a loop that waits for the clock to move ends. This is STREAM's checktick (HPCC's
 * StarSTREAM calls it with MPI_Wtime as its timer): 20 waits for the clock to move by 1 us,
 * each about 100 reads; then a timing pair around a barrier. psim run used to inject nothing,
 * then, after 1000 reads in a row, sleeps that doubled without end: HPCC's simulated time was
 * 2^41 us (25 days). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double t1, t2, found[20];
  for (int i = 0; i < 20; i++) {
    t1 = MPI_Wtime();
    while ((t2 = MPI_Wtime()) - t1 < 1.0e-6) continue;
    found[i] = t1 = t2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double a = MPI_Wtime(), b = MPI_Wtime();
  double t = MPI_Wtime();
  MPI_Finalize();
  /* After MPI_Finalize reading the clock costs nothing (SMPI injects only between MPI_Init
   * and MPI_Finalize): a cost here would show 1000 times over in the date printed. */
  double z1 = MPI_Wtime(), z2 = MPI_Wtime();
  /* the date at the end holds the 20 waits and the pair (stderr: what they measured) */
  printf("rank %d wtime %.9f\n", r, t + 1000 * (z2 - z1));
  fprintf(stderr, "rank %d tick %.9f pair %.9f\n", r, found[19] - found[0], b - a);
  return 0;
}
