/* C = A x B with ScaLAPACK's pdgemm on a 2 x (np/2) BLACS grid (block-cyclic, blocks of NB),
 * built by MPICH's mpicc against Debian's precompiled libscalapack-mpich (tests/cli/run_abi.sh, psim run --help).
 * Every rank checks its local entries of C against a serial dgemm of the whole matrices
 * (generated from the same formula), and rank 0 prints the largest relative error over all
 * ranks and the sum of C.
 *   usage: abi_pdgemm N [NB] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

static double fa(int i, int j) { return (double)((i * 7 + j * 3) % 11) - 5.0; }
static double fb(int i, int j) { return (double)((i * 5 + j * 2) % 13) / 4.0 - 1.5; }

/* global index of local index l on process p, blocks of nb over np processes (source 0) */
static int g_of(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200, nb = argc > 2 ? atoi(argv[2]) : 32;
  int me, np, ctxt, nprow, npcol, myrow, mycol, izero = 0, ione = 1, info;
  MPI_Init(&argc, &argv);
  Cblacs_pinfo(&me, &np);
  Cblacs_get(-1, 0, &ctxt);
  nprow = np >= 2 ? 2 : 1;
  npcol = np / nprow;
  Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int mloc = numroc_(&n, &nb, &myrow, &izero, &nprow);
  int nloc = numroc_(&n, &nb, &mycol, &izero, &npcol);
  int lld = mloc > 1 ? mloc : 1;
  int desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
  double *a = malloc(sizeof(double) * (size_t)lld * (size_t)(nloc ? nloc : 1));
  double *b = malloc(sizeof(double) * (size_t)lld * (size_t)(nloc ? nloc : 1));
  double *c = calloc((size_t)lld * (size_t)(nloc ? nloc : 1), sizeof(double));
  for (int j = 0; j < nloc; j++)
    for (int i = 0; i < mloc; i++) {
      int gi = g_of(i, nb, myrow, nprow), gj = g_of(j, nb, mycol, npcol);
      a[i + (size_t)j * lld] = fa(gi, gj);
      b[i + (size_t)j * lld] = fb(gi, gj);
    }
  double one = 1.0, zero = 0.0;
  pdgemm_("N", "N", &n, &n, &n, &one, a, &ione, &ione, desc, b, &ione, &ione, desc, &zero, c,
          &ione, &ione, desc);
  /* the serial product, column-major */
  double *A = malloc(sizeof(double) * (size_t)n * (size_t)n), *B = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double *C = malloc(sizeof(double) * (size_t)n * (size_t)n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      A[i + (size_t)j * n] = fa(i, j);
      B[i + (size_t)j * n] = fb(i, j);
    }
  dgemm_("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n);
  double err = 0, cmax = 0, sum = 0;
  for (int j = 0; j < nloc; j++)
    for (int i = 0; i < mloc; i++) {
      int gi = g_of(i, nb, myrow, nprow), gj = g_of(j, nb, mycol, npcol);
      double want = C[gi + (size_t)gj * n], got = c[i + (size_t)j * lld];
      if (fabs(got - want) > err) err = fabs(got - want);
      if (fabs(want) > cmax) cmax = fabs(want);
      sum += got;
    }
  double in[2] = {err, cmax}, out[2], total;
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("pdgemm n=%d nb=%d grid %dx%d: relative error %s 1e-14, sum of C %.1f\n", n, nb, nprow,
           npcol, out[0] <= 1e-14 * out[1] ? "<=" : ">", total);
  free(a); free(b); free(c); free(A); free(B); free(C);
  Cblacs_gridexit(ctxt);
  Cblacs_exit(1);
  MPI_Finalize();
  return 0;
}
