/* 2-D Jacobi stencil on an N x N grid split in horizontal strips, one per rank: exchange halo
 * rows with the neighbours (MPI_Sendrecv), update, and every 10 iterations check convergence
 * with an MPI_Allreduce of the largest change. The boundary is held at 1 on top, 0 elsewhere.
 * Usage: jacobi [N] [MAX_ITERS] [TOLERANCE] [--declare]
 * With --declare each sweep declares 6 flops per point (psim_compute); run with --no-measure
 * for an exact, repeatable simulated time. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int maxit = argc > 2 ? atoi(argv[2]) : 1000;
  double tol = argc > 3 ? atof(argv[3]) : 1e-4;
  int declare = argc > 4 && !strcmp(argv[4], "--declare");
  int rows = n / size + (rank < n % size);   /* interior rows of this rank */
  int w = n + 2;
  double *u = calloc((size_t)(rows + 2) * (size_t)w, sizeof *u);
  double *v = calloc((size_t)(rows + 2) * (size_t)w, sizeof *v);
  if (rank == 0) for (int j = 0; j < w; j++) u[j] = v[j] = 1.0;   /* top boundary */
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  int it;
  double diff = 0;
  for (it = 1; it <= maxit; it++) {
    MPI_Sendrecv(&u[1 * w], w, MPI_DOUBLE, up, 0, &u[(rows + 1) * w], w, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[rows * w], w, MPI_DOUBLE, down, 1, &u[0], w, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = 0;
    for (int i = 1; i <= rows; i++)
      for (int j = 1; j <= n; j++) {
        double x = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        double d = fabs(x - u[i * w + j]);
        if (d > local) local = d;
        v[i * w + j] = x;
      }
    if (declare) psim_compute(6.0 * rows * n);
    double *t = u; u = v; v = t;
    if (it % 10 == 0) {
      MPI_Allreduce(&local, &diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (diff < tol) break;
    }
  }
  /* a checksum of the interior, to compare runs */
  double s = 0, total = 0;
  for (int i = 1; i <= rows; i++) for (int j = 1; j <= n; j++) s += u[i * w + j];
  MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  /* MAX_ITERS reached is what was asked for (a run of fixed length, as in the README), not a
   * failure: say so, with the change left, rather than "not converged" */
  if (rank == 0 && it <= maxit)
    printf("jacobi: %dx%d on %d ranks: converged after %d iterations (max change %.3e), sum %.6f\n", n, n,
           size, it, diff, total);
  else if (rank == 0)
    printf("jacobi: %dx%d on %d ranks: ran the %d iterations asked (max change %.3e, tolerance %.0e), sum %.6f\n",
           n, n, size, maxit, diff, tol, total);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
