/* Trace utilities of the load-balancing workflow: lb-period, stats, aggregate
 * (see include/psim/tools.h). All stream the trace rank by rank through the trace reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/tools.h"
#include "psim/trace.h"

int trace_lb_period(const char *const *in, int nin, int k, const char *out, psim_err *err) {
  if (k < 1) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "lb-period: K must be at least 1");
  tit_source *src = tit_open(in, nin, 0, err);
  if (!src) return -1;
  int rc = 0;
  if (tools_mkdir_p(out, err) < 0) { tit_close(src); return -1; }
  char path[4096];
  snprintf(path, sizeof path, "%s/list", out);
  FILE *list = fopen(path, "w");
  if (!list) { tit_close(src); return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno)); }
  for (int r = 0; r < tit_nranks(src) && !rc; r++) {
    snprintf(path, sizeof path, "%s/rank-%d.txt", out, r);
    FILE *f = fopen(path, "w");
    if (!f) { rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno)); break; }
    fprintf(list, "rank-%d.txt\n", r);
    tit_action a;
    long migrates = 0;
    int x;
    while ((x = tit_next(src, r, &a, err)) > 0) {
      if (a.kind == TIT_MIGRATE && ++migrates % k) continue;   /* keep every k-th */
      fprintf(f, "%d %.*s\n", r, a.text_len, a.text);
    }
    if (x < 0) rc = -1;
    if (fclose(f) != 0 && !rc) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "error while writing (disk full?)");
  }
  if (fclose(list) != 0 && !rc) rc = psim_errf(err, PSIM_EXIT_INPUT, out, 0, "cannot write the list file");
  tit_close(src);
  return rc ? -1 : 0;
}

static int is_p2p_send(tit_kind k) { return k == TIT_SEND || k == TIT_ISEND || k == TIT_SENDRECV; }

int trace_stats(const char *const *in, int nin, FILE *f, psim_err *err) {
  tit_source *src = tit_open(in, nin, 0, err);
  if (!src) return -1;
  int n = tit_nranks(src);
  uint64_t count[TIT_NKINDS] = {0}, total = 0;
  double flops = 0, red_flops = 0, p2p_bytes = 0, coll_bytes = 0, mig_bytes = 0;
  long mig_min = -1, mig_max = 0, mig_nosize = 0;
  int rc = 0;
  for (int r = 0; r < n && !rc; r++) {
    tit_action a;
    long m = 0;
    int x;
    while ((x = tit_next(src, r, &a, err)) > 0) {
      count[a.kind]++;
      total++;
      if (a.kind == TIT_COMPUTE) flops += a.amount;
      else if (a.kind == TIT_MIGRATE) {
        m++;
        if (a.bytes >= 0) mig_bytes += a.bytes; else mig_nosize++;
      } else if (is_p2p_send(a.kind)) p2p_bytes += a.bytes;
      else if (a.kind >= TIT_BARRIER && a.kind <= TIT_EXSCAN) {
        if (a.counts) for (int i = 0; i < a.ncounts; i++) coll_bytes += a.counts[i];
        else coll_bytes += a.bytes > 0 ? a.bytes : 0;
        if (a.amount > 0) red_flops += a.amount;
      }
    }
    if (x < 0) rc = -1;
    if (mig_min < 0 || m < mig_min) mig_min = m;
    if (m > mig_max) mig_max = m;
  }
  tit_close(src);
  if (rc) return -1;
  fprintf(f, "ranks            %d\n", n);
  fprintf(f, "actions          %llu\n", (unsigned long long)total);
  for (int k = 0; k < TIT_NKINDS; k++)
    if (count[k]) fprintf(f, "  %-14s %llu\n", tit_kind_name((tit_kind)k), (unsigned long long)count[k]);
  fprintf(f, "compute flops    %.6g\n", flops);
  fprintf(f, "reduction flops  %.6g\n", red_flops);
  fprintf(f, "p2p bytes sent   %.6g\n", p2p_bytes);
  fprintf(f, "collective bytes %.6g (declared send sizes)\n", coll_bytes);
  fprintf(f, "migrate points   %llu (per rank: min %ld, max %ld%s)\n", (unsigned long long)count[TIT_MIGRATE],
          mig_min < 0 ? 0 : mig_min, mig_max, mig_min != mig_max ? "; UNEVEN: psim lb will refuse it" : "");
  fprintf(f, "migrate bytes    %.6g (%ld without size)\n", mig_bytes, mig_nosize);
  return 0;
}

/* Length of [a0,a1) n [b0,b1) (integers). */
static long overlap(long a0, long a1, long b0, long b1) {
  long lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
  return hi > lo ? hi - lo : 0;
}

int trace_aggregate(const char *const *in, int nin, int fx, int fy, int tx, int ty, FILE *f,
                    psim_err *err) {
  if (fx < 1 || fy < 1 || tx < 1 || ty < 1)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "aggregate: grids must be at least 1x1");
  tit_source *src = tit_open(in, nin, 0, err);
  if (!src) return -1;
  int n = tit_nranks(src);
  if (n != fx * fy) {
    tit_close(src);
    return psim_errf(err, PSIM_EXIT_INPUT, in[0], 0, "aggregate: the trace has %d ranks, --from %dx%d needs %d", n, fx, fy, fx * fy);
  }
  /* comp[it * n + r]: compute of fine rank r in iteration it */
  VEC(double) comp = {0};
  int iters = 0, rc = 0;
  for (int r = 0; r < n && !rc; r++) {
    tit_action a;
    int it = 0, x;
    double acc = 0;
    while ((x = tit_next(src, r, &a, err)) > 0) {
      if (a.kind == TIT_COMPUTE) acc += a.amount;
      if (a.kind != TIT_MIGRATE) continue;
      while (comp.len < (size_t)(it + 1) * (size_t)n) VEC_PUSH(comp, 0.0);
      comp.data[(size_t)it * (size_t)n + (size_t)r] = acc;
      acc = 0;
      it++;
    }
    if (x < 0) rc = -1;
    if (acc > 0) {   /* compute after the last migrate: one more iteration */
      while (comp.len < (size_t)(it + 1) * (size_t)n) VEC_PUSH(comp, 0.0);
      comp.data[(size_t)it * (size_t)n + (size_t)r] = acc;
      it++;
    }
    if (it > iters) iters = it;
  }
  tit_close(src);
  if (rc) { VEC_FREE(comp); return -1; }
  /* Fine rank x spans [x*tx, (x+1)*tx) and coarse X spans [X*fx, (X+1)*fx) in units of
   * 1/(fx*tx) of the unit square's side: the weights are exact rationals. */
  fputs("iteration,rank,flops\n", f);
  double area = (double)tx * (double)ty;
  for (int it = 0; it < iters; it++) {
    const double *c = comp.data + (size_t)it * (size_t)n;
    for (int Y = 0; Y < ty; Y++)
      for (int X = 0; X < tx; X++) {
        double sum = 0;
        int xa = (int)((long)X * fx / tx), xb = (int)(((long)(X + 1) * fx + tx - 1) / tx);
        int ya = (int)((long)Y * fy / ty), yb = (int)(((long)(Y + 1) * fy + ty - 1) / ty);
        for (int y = ya; y < yb && y < fy; y++) {
          long oy = overlap((long)y * ty, (long)(y + 1) * ty, (long)Y * fy, (long)(Y + 1) * fy);
          if (!oy) continue;
          for (int x = xa; x < xb && x < fx; x++) {
            long ox = overlap((long)x * tx, (long)(x + 1) * tx, (long)X * fx, (long)(X + 1) * fx);
            if (ox) sum += c[y * fx + x] * ((double)ox * (double)oy / area);
          }
        }
        fprintf(f, "%d,%d,%.17g\n", it + 1, Y * tx + X, sum);
      }
  }
  VEC_FREE(comp);
  return 0;
}
