/* ScaLAPACK's pdgemm timed, for bench/validate_mpich.sh's row against psim forecast pdgemm:
 * C = A B, N x N doubles, blocks NB x NB on a P x Q BLACS grid (P Q = the ranks), built with
 * the real mpicc against Debian's libscalapack-mpich. One untimed call first (library set-up,
 * first touch of the pages), then the best of REPS calls, timed with MPI_Wtime between
 * barriers; rank 0 prints "pdgemm_s SECONDS".
 *   usage: validate_pdgemm N NB P Q [REPS]   (default REPS 3) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5) {
    if (rank == 0) fprintf(stderr, "usage: validate_pdgemm N NB P Q [REPS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int n = atoi(argv[1]), nb = atoi(argv[2]), p = atoi(argv[3]), q = atoi(argv[4]);
  int reps = argc > 5 ? atoi(argv[5]) : 3;
  if (n < 1 || nb < 1 || p * q != size || reps < 1) {
    if (rank == 0) fprintf(stderr, "validate_pdgemm: N, NB >= 1, P x Q = %d ranks, REPS >= 1\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int ctxt, myr, myc, zero = 0, one = 1, info;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);
  Cblacs_gridinfo(ctxt, &p, &q, &myr, &myc);
  int mloc = numroc_(&n, &nb, &myr, &zero, &p), nloc = numroc_(&n, &nb, &myc, &zero, &q);
  int lld = mloc > 1 ? mloc : 1, desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  size_t cnt = (size_t)lld * (size_t)(nloc > 0 ? nloc : 1);
  double *a = malloc(cnt * sizeof *a), *b = malloc(cnt * sizeof *b), *c = malloc(cnt * sizeof *c);
  if (!a || !b || !c) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < cnt; i++) a[i] = (double)(i % 7) - 3, b[i] = (double)(i % 5) / 2, c[i] = 0;
  double alpha = 1, beta = 0, best = 1e30;
  for (int r = -1; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one, desc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (r >= 0 && t < best) best = t;
  }
  if (rank == 0) printf("pdgemm_s %.6f\n", best);
  free(a);
  free(b);
  free(c);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return 0;
}
