/* PSIM_TASK: a "relax" task of 200 iterations per step on every rank, then an allreduce.
 * Under --measure-tasks it runs (and its cost per iteration is written), under --task-costs
 * it is skipped and cost x 200 is injected. Also calls MPI_Migrate with a live heap of
 * 4096 + 1000 x rank bytes (what --trace-tit records). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static void *volatile keep[2];   /* the blocks escape: the compiler cannot elide them */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *u = malloc(4096);
  char *extra = malloc(1000 * (size_t)rank + 1);
  keep[0] = u;
  keep[1] = extra;
  volatile double x = 0;
  int ran = 0;
  for (int step = 0; step < 5; step++) {
    PSIM_TASK("relax", 200) {
      ran++;
      for (int it = 0; it < 200; it++)
        for (int i = 0; i < 20000; i++) x += i * 0.5;
    }
    double s = 1, t;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (step == 2) MPI_Migrate();
  }
  if (rank == 0) printf("tasks: block ran %d times of 5 at %.9f\n", ran, MPI_Wtime());
  free(extra);
  free(u);
  MPI_Finalize();
  return 0;
}
