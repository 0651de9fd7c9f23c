/* PTRANS's exchange, alone (docs/VALIDATION.md): ranks 0 and 1 swap a 2000 x 2000 block of a
 * column-major matrix with leading dimension 4000 (32 MB each way, at once), once as an
 * MPI_Type_vector (2000 columns of 2000 doubles, stride 4000: what HPCC's PTRANS/cblacslt.c
 * sends) and once as contiguous doubles. Built with the real mpicc and with psimcc, run at
 * np=2 on validate_mpich.sh's platform, it separates the cost of packing a strided type and
 * of two large copies at once from the rest of PTRANS. Times come from MPI_Wtime. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int m = 2000, n = 2000, lda = 4000, it = 10;
  double *a = malloc((size_t)lda * n * sizeof *a), *b = malloc((size_t)lda * n * sizeof *b);
  /* written first: a calloc'ed buffer never written reads as the kernel's one zero page, which
   * stays in cache (real MPICH then sent 32 MB in 2.4 ms, 2.5x its measured memory speed) */
  if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < (size_t)lda * n; i++) a[i] = (double)(i % 1000), b[i] = 0;
  MPI_Datatype v; MPI_Type_vector(n, m, lda, MPI_DOUBLE, &v); MPI_Type_commit(&v);
  for (int pass = 0; pass < 2; pass++) {
    double t0 = 0;
    for (int i = -1; i < it; i++) {
      if (i == 0) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
      if (pass == 0) MPI_Sendrecv(a, 1, v, 1 - r, 0, b, 1, v, 1 - r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else MPI_Sendrecv(a, m * n, MPI_DOUBLE, 1 - r, 0, b, m * n, MPI_DOUBLE, 1 - r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t = (MPI_Wtime() - t0) / it;
    if (r == 0) printf("%s: %.2f ms per exchange of %.0f MB, %.2f GB/s\n", pass ? "contiguous" : "vector", t * 1e3, m * n * 8 / 1e6, m * n * 8 / t / 1e9);
  }
  MPI_Finalize();
}
