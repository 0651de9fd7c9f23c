/* psim run --repeat (tests/cli/run_repeat.sh): 20 rounds of a measured loop then a barrier, and
 * a declared computation of 1e9 flops per round on rank 1. With argv[1] = "path", rank 0 makes
 * one more MPI call in the first run only (the run that creates the file "mark" in the working
 * directory): another path from its first burst on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (argc > 1 && !strcmp(argv[1], "path") && r == 0 && access("mark", F_OK) != 0) {
    FILE *f = fopen("mark", "w");
    if (f) fclose(f);
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &n, MPI_STATUS_IGNORE);
  }
  volatile double x = 0;
  for (int it = 0; it < 20; it++) {
    for (long i = 0; i < 200000; i++) x += (double)i * 1e-9;
    if (r == 1) psim_compute(1e9);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (r == 0) printf("rank 0 done (%d)\n", x > 0);
  MPI_Finalize();
  return 0;
}
