/* pdgemm as ScaLAPACK does it (SUMMA): C = A B on a P x Q grid, A M x K, B K x N, C M x N,
 * every matrix block-cyclic with R x R blocks. At each of the ceil(K/R) steps the grid column
 * owning A's block column broadcasts its piece along each grid row, the grid row owning B's
 * block row broadcasts along each grid column (MPI_Bcast: a binomial tree), then every process
 * multiplies the two panels into its part of C.
 *
 * Usage: pdgemm M N K R P Q [--check]
 * Without --check the block products are declared, not computed: psim_compute(2 m n k) flops
 * (run with psim run --no-measure on hosts whose speed is the kernel rate; psim forecast
 * --kernel-rate with the same rate forecasts it). With --check the products are computed and
 * C is compared with A B (small sizes). Used by bench/forecast_vs_sim.sh (docs/forecast.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* how many of n items, in blocks of nb dealt cyclically over np processes, process ip holds */
static long numroc(long n, long nb, int ip, int np) {
  long nblocks = n / nb, mine = (nblocks / np) * nb, extra = nblocks % np;
  if (ip < extra) mine += nb;
  else if (ip == extra) mine += n % nb;
  return mine;
}
/* the global index of local index l of process ip */
static long global_of(long l, long nb, int ip, int np) { return (l / nb * np + ip) * nb + l % nb; }
static double aval(long i, long j) { return (double)((i * 7 + j * 3) % 11) - 5.0; }
static double bval(long i, long j) { return (double)((i * 5 + j * 2) % 13) - 6.0; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 7) {
    if (!rank) fprintf(stderr, "usage: pdgemm M N K R P Q [--check]\n");
    MPI_Finalize();
    return 2;
  }
  long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]), R = atol(argv[4]);
  int P = atoi(argv[5]), Q = atoi(argv[6]), check = argc > 7 && !strcmp(argv[7], "--check");
  if (P * Q != size || M < 1 || N < 1 || K < 1 || R < 1) {
    if (!rank) fprintf(stderr, "pdgemm: need P x Q = %d processes and positive sizes\n", size);
    MPI_Finalize();
    return 2;
  }
  int myr = rank / Q, myc = rank % Q;
  MPI_Comm rowc, colc;   /* my grid row (ranked by column), my grid column (ranked by row) */
  MPI_Comm_split(MPI_COMM_WORLD, myr, myc, &rowc);
  MPI_Comm_split(MPI_COMM_WORLD, myc, myr, &colc);
  long ml = numroc(M, R, myr, P), nl = numroc(N, R, myc, Q);
  long kla = numroc(K, R, myc, Q), klb = numroc(K, R, myr, P);
  double *apan = calloc((size_t)(ml * R + 1), sizeof(double));
  double *bpan = calloc((size_t)(R * nl + 1), sizeof(double));
  double *a = NULL, *b = NULL, *c = NULL;
  if (check) {   /* local parts, column-major: A ml x kla, B klb x nl, C ml x nl */
    a = malloc(sizeof(double) * (size_t)(ml * kla + 1));
    b = malloc(sizeof(double) * (size_t)(klb * nl + 1));
    c = calloc((size_t)(ml * nl + 1), sizeof(double));
    for (long j = 0; j < kla; j++)
      for (long i = 0; i < ml; i++) a[j * ml + i] = aval(global_of(i, R, myr, P), global_of(j, R, myc, Q));
    for (long j = 0; j < nl; j++)
      for (long i = 0; i < klb; i++) b[j * klb + i] = bval(global_of(i, R, myr, P), global_of(j, R, myc, Q));
  }
  long steps = (K + R - 1) / R;
  for (long s = 0; s < steps; s++) {
    long w = s == steps - 1 ? K - s * R : R;
    int ownc = (int)(s % Q), ownr = (int)(s % P);
    if (check && myc == ownc)   /* my local columns of A's block column s */
      memcpy(apan, a + (s / Q) * R * ml, sizeof(double) * (size_t)(ml * w));
    if (check && myr == ownr)   /* my local rows of B's block row s, packed w x nl */
      for (long j = 0; j < nl; j++)
        for (long i = 0; i < w; i++) bpan[j * w + i] = b[j * klb + (s / P) * R + i];
    MPI_Bcast(apan, (int)(ml * w), MPI_DOUBLE, ownc, rowc);
    MPI_Bcast(bpan, (int)(w * nl), MPI_DOUBLE, ownr, colc);
    if (check) {
      for (long j = 0; j < nl; j++)
        for (long l = 0; l < w; l++)
          for (long i = 0; i < ml; i++) c[j * ml + i] += apan[l * ml + i] * bpan[j * w + l];
    } else {
      psim_compute(2.0 * (double)ml * (double)nl * (double)w);
    }
  }
  if (check) {
    long wrong = 0, all = 0;
    for (long j = 0; j < nl; j++)
      for (long i = 0; i < ml; i++) {
        long gi = global_of(i, R, myr, P), gj = global_of(j, R, myc, Q);
        double want = 0;
        for (long l = 0; l < K; l++) want += aval(gi, l) * bval(l, gj);
        wrong += c[j * ml + i] != want;
      }
    MPI_Reduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank) printf("pdgemm check: %ld wrong entries of %ld (%s)\n", all, M * N, all ? "WRONG" : "ok");
  }
  free(a);
  free(b);
  free(c);
  free(apan);
  free(bpan);
  MPI_Comm_free(&rowc);
  MPI_Comm_free(&colc);
  MPI_Finalize();
  return 0;
}
