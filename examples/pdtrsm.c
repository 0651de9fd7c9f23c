/* pdtrsm, the paper's case 2 (paper 003, section 4.4): X A = B, A upper triangular N x N, B and
 * X M x N, on a P x Q grid with R x R blocks; A(i,j) lives on process (i mod P, j mod Q).
 * B is solved one block row (R rows) at a time, as ceil(M/R) calls of pbdtrsm, each of which
 * walks the ceil(N/R) diagonal blocks:
 *   - process (i mod P, i mod Q) solves block i: x_i = acc_i A(i,i)^-1 (dtrsm, R x R);
 *   - x_i travels its process row as a ring (each receiver forwards it to its right);
 *   - every process of that row updates its remaining blocks j > i, acc_j -= x_i A(i,j): with
 *     P > 1, the first min(c, P-1) of its c remaining blocks first (dgemm_1), sends them to the
 *     process below (same column, next row), which adds them to its own (accumulation), then
 *     the others (dgemm_2). With P = 1, all c at once.
 * Block j's right-hand side starts on process (j mod P, j mod Q), where it is solved; the
 * partial sums of the P process rows reach it through the pipeline down the column.
 *
 * Usage: pdtrsm M N R P Q [--check]
 * Without --check the kernels are declared with psim_compute (trsm m n^2, dgemm 2 m n k, add
 * m n flops; run with psim run --no-measure, hosts' speed = the kernel rate). With --check they
 * are computed, and X is compared with the X that made B (small sizes). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long M, N, R, nblk;
static int P, Q, myr, myc, check;

static long bw(long j) { return j == nblk - 1 ? N - j * R : R; }   /* width of block j */
static double aval(long i, long j) { return i == j ? 4.0 + (double)(i % 3) : i < j ? 1.0 / (double)(1 + (i + 2 * j) % 7) : 0; }
static double xval(long i, long j) { return (double)((3 * i + j) % 5) - 2.0; }

/* the blocks j > i of column c (j mod Q == c), in order; returns how many */
static long remaining(long i, int c, long *list) {
  long n = 0;
  for (long j = i + 1; j < nblk; j++)
    if (j % Q == c) list[n++] = j;
  return n;
}

/* acc_j -= x A(i,j) for blocks list[0..n), rows mr (x: mr x bw(i), column-major) */
static void update(double **acc, const double *x, long mr, long i, const long *list, long n) {
  double cols = 0;
  for (long t = 0; t < n; t++) cols += (double)bw(list[t]);
  if (!check) { psim_compute(2.0 * (double)mr * cols * (double)bw(i)); return; }
  for (long t = 0; t < n; t++) {
    long j = list[t];
    for (long b = 0; b < bw(j); b++)
      for (long l = 0; l < bw(i); l++) {
        double a = aval(i * R + l, j * R + b);
        for (long r = 0; r < mr; r++) acc[j][b * mr + r] -= x[l * mr + r] * a;
      }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 6) {
    if (!rank) fprintf(stderr, "usage: pdtrsm M N R P Q [--check]\n");
    MPI_Finalize();
    return 2;
  }
  M = atol(argv[1]);
  N = atol(argv[2]);
  R = atol(argv[3]);
  P = atoi(argv[4]);
  Q = atoi(argv[5]);
  check = argc > 6 && !strcmp(argv[6], "--check");
  if (P * Q != size || M < 1 || N < 1 || R < 1) {
    if (!rank) fprintf(stderr, "pdtrsm: need P x Q = %d processes and positive sizes\n", size);
    MPI_Finalize();
    return 2;
  }
  nblk = (N + R - 1) / R;
  myr = rank / Q;
  myc = rank % Q;
  MPI_Comm rowc, colc;
  MPI_Comm_split(MPI_COMM_WORLD, myr, myc, &rowc);
  MPI_Comm_split(MPI_COMM_WORLD, myc, myr, &colc);
  double **acc = calloc((size_t)nblk, sizeof(double *));   /* my column's blocks, R x bw */
  for (long j = myc; j < nblk; j += Q) acc[j] = calloc((size_t)(R * R), sizeof(double));
  double *x = calloc((size_t)(R * R), sizeof(double)), *buf = calloc((size_t)(R * N + 1), sizeof(double));
  long *list = malloc(sizeof(long) * (size_t)(nblk + 1)), wrong = 0;
  long calls = (M + R - 1) / R;
  for (long call = 0; call < calls; call++) {
    long mr = call == calls - 1 ? M - call * R : R, row0 = call * R;
    for (long j = myc; j < nblk; j += Q) {   /* right-hand sides: B = X A on block j's solver */
      memset(acc[j], 0, sizeof(double) * (size_t)(R * R));
      if (!check || j % P != myr) continue;
      for (long b = 0; b < bw(j); b++)
        for (long r = 0; r < mr; r++) {
          double s = 0;
          for (long l = 0; l <= j * R + b; l++) s += xval(row0 + r, l) * aval(l, j * R + b);
          acc[j][b * mr + r] = s;
        }
    }
    for (long i = 0; i < nblk; i++) {
      int ri = (int)(i % P), o = (int)(i % Q), rn = (int)((i + 1) % P);
      long wi = bw(i), cnt = remaining(i, myc, list), win = P > 1 && cnt > P - 1 ? P - 1 : cnt;
      double wcols = 0;
      for (long t = 0; t < win; t++) wcols += (double)bw(list[t]);
      if (myr == ri) {
        if (myc == o) {   /* solve: x = acc_i A(i,i)^-1, A upper: forward over the columns */
          if (!check) {
            psim_compute((double)mr * (double)wi * (double)wi);
            memcpy(x, acc[i], sizeof(double) * (size_t)(mr * wi));
          } else {
            for (long b = 0; b < wi; b++)
              for (long r = 0; r < mr; r++) {
                double s = acc[i][b * mr + r];
                for (long l = 0; l < b; l++) s -= x[l * mr + r] * aval(i * R + l, i * R + b);
                x[b * mr + r] = s / aval(i * R + b, i * R + b);
                wrong += fabs(x[b * mr + r] - xval(row0 + r, i * R + b)) > 1e-9;
              }
          }
        }
        if (Q > 1) {   /* the ring along the row, from o */
          if (myc != o) MPI_Recv(x, (int)(mr * wi), MPI_DOUBLE, (myc + Q - 1) % Q, (int)i, rowc, MPI_STATUS_IGNORE);
          if ((myc + 1) % Q != o) MPI_Send(x, (int)(mr * wi), MPI_DOUBLE, (myc + 1) % Q, (int)i, rowc);
        }
        update(acc, x, mr, i, list, win);
        if (P > 1 && win > 0) {   /* the first P-1 blocks go down the column, to be accumulated */
          long off = 0;
          for (long t = 0; t < win; t++) {
            memcpy(buf + off, acc[list[t]], sizeof(double) * (size_t)(mr * bw(list[t])));
            memset(acc[list[t]], 0, sizeof(double) * (size_t)(mr * bw(list[t])));
            off += mr * bw(list[t]);
          }
          MPI_Send(buf, (int)off, MPI_DOUBLE, rn, (int)i, colc);
        }
        update(acc, x, mr, i, list + win, cnt - win);
      }
      if (P > 1 && myr == rn && win > 0) {   /* accumulate what the row above sent */
        long off = 0;
        MPI_Recv(buf, (int)((double)mr * wcols), MPI_DOUBLE, ri, (int)i, colc, MPI_STATUS_IGNORE);
        if (!check) psim_compute((double)mr * wcols);
        for (long t = 0; check && t < win; t++)
          for (long e = 0; e < mr * bw(list[t]); e++) acc[list[t]][e] += buf[off++];
      }
    }
  }
  if (check) {
    long all = 0;
    MPI_Reduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank) printf("pdtrsm check: %ld wrong entries of %ld (%s)\n", all, M * N, all ? "WRONG" : "ok");
  }
  for (long j = myc; j < nblk; j += Q) free(acc[j]);
  free(acc);
  free(x);
  free(buf);
  free(list);
  MPI_Comm_free(&rowc);
  MPI_Comm_free(&colc);
  MPI_Finalize();
  return 0;
}
