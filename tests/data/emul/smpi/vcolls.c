/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc; work.h), for
 * tests/cli/diff_smpi_run.sh: the collectives with per-rank counts (gatherv, scatterv,
 * allgatherv, alltoallv, reduce_scatter), exscan, and point to point with MPI_ANY_SOURCE,
 * MPI_Testany or MPI_Testsome loops, MPI_Issend and MPI_Testall; unequal counts and
 * computations.
 * Computation is declared (psim_compute / smpi_execute_flops), so both simulate the same work;
 * each rank prints MPI_Wtime once, at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "work.h"
/* argv[1], when given, keeps some parts: a comma-separated list of gatherv, scatterv,
 * allgatherv, alltoallv, reduce_scatter, exscan, anysource, testany, testsome, issend (by
 * default all of them but testsome: testany takes its place). */
static const char *only;
static int on(const char *what) {
  if (!only) return strcmp(what, "testsome") != 0;
  size_t n = strlen(what);
  for (const char *p = only; (p = strstr(p, what)); p += n)
    if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n])) return 1;
  return 0;
}
int main(int argc, char **argv) {
  only = argc > 1 ? argv[1] : NULL;
  int r, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int *cnt = malloc((size_t)n * sizeof *cnt), *dsp = malloc((size_t)n * sizeof *dsp);
  int *cnt2 = malloc((size_t)n * sizeof *cnt2), *dsp2 = malloc((size_t)n * sizeof *dsp2);
  int total = 0, total2 = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = 100 + 700 * ((i * 5 + 3) % 7);          /* what rank i gives (or gets) */
    dsp[i] = total; total += cnt[i];
    cnt2[i] = 50 + 900 * ((r + 2 * i) % 4);          /* what this rank sends to rank i */
    dsp2[i] = total2; total2 += cnt2[i];
  }
  int *rc2 = malloc((size_t)n * sizeof *rc2), *rd2 = malloc((size_t)n * sizeof *rd2), rtot2 = 0;
  for (int i = 0; i < n; i++) { rc2[i] = 50 + 900 * ((i + 2 * r) % 4); rd2[i] = rtot2; rtot2 += rc2[i]; }
  double *a = calloc((size_t)(total + total2 + rtot2 + 8), sizeof *a);
  double *b = calloc((size_t)(total + total2 + rtot2 + 8), sizeof *b);
  for (int it = 0; it < 3; it++) {
    WORK(1e6 * ((r * 3 + it) % 4));
    int root = it % n;
    if (on("gatherv")) MPI_Gatherv(a, cnt[r], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, root, MPI_COMM_WORLD);
    if (on("scatterv")) MPI_Scatterv(a, cnt, dsp, MPI_DOUBLE, b, cnt[r], MPI_DOUBLE, (root + 1) % n, MPI_COMM_WORLD);
    if (on("allgatherv")) MPI_Allgatherv(a, cnt[r], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    if (on("alltoallv")) MPI_Alltoallv(a, cnt2, dsp2, MPI_DOUBLE, b, rc2, rd2, MPI_DOUBLE, MPI_COMM_WORLD);
    if (on("reduce_scatter")) MPI_Reduce_scatter(a, b, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (on("exscan")) MPI_Exscan(a, b, 40, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    WORK(5e5 * (r % 3));
    /* Everyone sends to rank 0, which takes them in arrival order. */
    if (!on("anysource")) {
    } else if (r == 0) {
      for (int i = 1; i < n; i++) MPI_Recv(b, 2000, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(a, 100 * r, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    }
    /* Rank 0 takes one message from each rank with a loop of MPI_Testany or MPI_Testsome. */
    if (on("testany") || on("testsome")) {
      if (r == 0) {
        MPI_Request *q = malloc((size_t)n * sizeof *q);
        q[0] = MPI_REQUEST_NULL;
        for (int i = 1; i < n; i++) MPI_Irecv(b + (50 + 50 * n) * i, 50 + 50 * n, MPI_DOUBLE, i, 9, MPI_COMM_WORLD, &q[i]);
        int left = n - 1, idx, cnt, ids[64];
        while (left > 0) {
          if (on("testany")) {
            int flag;
            MPI_Testany(n, q, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED) left--;
          } else {
            MPI_Testsome(n, q, &cnt, ids, MPI_STATUSES_IGNORE);
            if (cnt != MPI_UNDEFINED) left -= cnt;
          }
        }
        free(q);
      } else {
        WORK(3e5 * r);
        MPI_Send(a, 100 + 50 * r, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
      }
    }
    /* A synchronous send to the right, completed by a test loop. */
    if (!on("issend")) continue;
    MPI_Request q[2];
    MPI_Irecv(b, 500, MPI_DOUBLE, (r + n - 1) % n, 8, MPI_COMM_WORLD, &q[0]);
    MPI_Issend(a, 500, MPI_DOUBLE, (r + 1) % n, 8, MPI_COMM_WORLD, &q[1]);
    int done = 0;
    while (!done) MPI_Testall(2, q, &done, MPI_STATUSES_IGNORE);
  }
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  free(a); free(b); free(cnt); free(dsp); free(cnt2); free(dsp2); free(rc2); free(rd2);
  MPI_Finalize();
  return 0;
}
