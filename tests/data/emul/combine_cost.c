/* 10 MPI_Allreduce of 4096 doubles with a commutative operator of the program's own whose
 * every call does a fixed amount of work (about 2 ms here, whatever the count), timed by
 * MPI_Wtime after a barrier: rank 0 prints the loop's time and a check of the result.
 * tests/cli/run_combine_cost.sh compares the time each algorithm charges for combining. */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  double a = 1.0;
  for (long i = 0; i < 4000000; i++) a = a * 1.0000001 + 1e-9;   /* dependent: not vectorised */
  sink = a;
  double *x = in, *y = inout;
  for (int i = 0; i < *len; i++) y[i] += x[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Op op;
  MPI_Op_create(slow_sum, 1, &op);
  static double x[4096], y[4096];
  for (int i = 0; i < 4096; i++) x[i] = r + 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < 10; i++) MPI_Allreduce(x, y, 4096, MPI_DOUBLE, op, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (r == 0) printf("allreduce %.9f sum %g\n", t, y[4095]);
  MPI_Op_free(&op);
  MPI_Finalize();
  return 0;
}
