/* psim calibrate --machine's fit: message times piecewise linear in the size (the form of
 * SMPI's smpi/lat-factor and smpi/bw-factor, SimGrid's own calibration procedure), and the
 * model they make with the node's shared memory bandwidth (include/psim/calib.h). */
#include <math.h>
#include <string.h>

#include "psim/calib.h"

/* Least squares on relative errors of t ~ a + b s over points [i, j), with a, b >= 0: weights
 * 1 / t^2. Returns the weighted sum of squared residuals. */
static double fit_line(const double *s, const double *t, int i, int j, double env, double *a, double *b) {
  double sw = 0, sws = 0, swss = 0, swt = 0, swst = 0;
  for (int k = i; k < j; k++) {
    double w = 1 / (t[k] * t[k]);
    sw += w, sws += w * s[k], swss += w * s[k] * s[k], swt += w * t[k], swst += w * s[k] * t[k];
  }
  double det = sw * swss - sws * sws;
  double A = 0, B = 0;
  if (det > 0) {
    A = (swss * swt - sws * swst) / det;
    B = (sw * swst - sws * swt) / det;
  }
  if (j - i == 1) { B = t[i] / (s[i] + env); A = B * env; }  /* one size: through it and -env */
  else if (!(det > 0) || B < 0) { B = 0; A = swt / sw; }       /* flat: the weighted mean */
  else if (A < 0) { A = 0; B = swst / swss; }                  /* through the origin */
  double r = 0;
  for (int k = i; k < j; k++) {
    double e = (A + B * s[k] - t[k]) / t[k];
    r += e * e;
  }
  *a = A, *b = B;
  return r;
}

double calib_segments_eval(const calib_seg *seg, int k, double size) {
  int i = 0;
  while (i + 1 < k && size >= seg[i + 1].from) i++;
  return seg[i].a + seg[i].b * size;
}

/* A segment is one size, or MINPTS sizes or more: a protocol's range is several sizes, and a
 * line through two would follow their noise. One size alone is where the times bend faster
 * than any line of a >= 0 and b >= 0 can: on this machine the ping-pong took 27 us at 768 KiB,
 * 47 at 1 MiB and 118 at 1.5 MiB (the data leave the 2 MiB cache), and the line through 8 KiB
 * to 1 MiB gave 1 MiB 35 us, 25 % short, in every calibration. Not the first segment: its
 * line is what the sizes under the smallest measured one take, and a line through one size
 * and -env has no latency: the written data's fit of 2026-12-02 17:29 began with 64 B alone
 * and gave 8 B of written data 0.12 us where the ping-pong takes 0.35, which psim calibrate
 * then charged to every collective call as its own cost (0.37 us instead of 0.12). */
enum { MINPTS = 3 };

/* The best split of [0, n) into k segments (dynamic programming over the cost of every
 * segment); writes the segments and returns the total cost. */
static double best_split(const double *s, const double *t, int n, int k, double env, calib_seg *out) {
  static double cost[CALIB_MAXSEG + 1][CALIB_MAXPTS + 1];
  static int from[CALIB_MAXSEG + 1][CALIB_MAXPTS + 1];
  for (int q = 0; q <= k; q++)
    for (int j = 0; j <= n; j++) cost[q][j] = INFINITY, from[q][j] = -1;
  cost[0][0] = 0;
  for (int q = 1; q <= k; q++)
    for (int j = q; j <= n; j++)
      for (int i = q - 1; i < j; i++) {
        if (!isfinite(cost[q - 1][i]) || (j - i < MINPTS && (j - i != 1 || i == 0))) continue;
        double a, b, c = cost[q - 1][i] + fit_line(s, t, i, j, env, &a, &b);
        if (c < cost[q][j]) cost[q][j] = c, from[q][j] = i;
      }
  if (!isfinite(cost[k][n])) return INFINITY;
  for (int q = k, j = n; q > 0; q--) {
    int i = from[q][j];
    calib_seg *g = &out[q - 1];
    fit_line(s, t, i, j, env, &g->a, &g->b);
    g->from = s[i];
    g->to = s[j - 1];
    j = i;
  }
  return cost[k][n];
}

/* A size the MPI is slow at alone: more than SPIKE times both its neighbours' times. MPICH 4.0.2
 * (ch4:ucx) took 1.05-1.36 us for 96 B where 64 B and 128 B took 0.30-0.42 and 0.51-0.53, in
 * every calibration here; a protocol's threshold is a step that the next sizes keep, not one
 * point. Such a point is left out of the fit: a segment of its own (the fewest segments within
 * 10 % of the best fit) once drew a line through 48, 64 and 96 B that made 64 B 0.65 us. */
static const double SPIKE = 1.5;

int calib_is_spike(const double *t, int n, int i) {
  return i > 0 && i + 1 < n && t[i] > SPIKE * t[i - 1] && t[i] > SPIKE * t[i + 1];
}

int calib_fit_segments(const double *size0, const double *t0, int n0, int kmax, double tol, double env,
                       calib_seg *seg, psim_err *err) {
  if (n0 > CALIB_MAXPTS) n0 = CALIB_MAXPTS;
  double size[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = 0;
  for (int i = 0; i < n0; i++) {
    if (!calib_is_spike(t0, n0, i)) size[n] = size0[i], t[n++] = t0[i];
  }
  if (n < MINPTS) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "a fit needs %d points or more, got %d", MINPTS, n);
  if (kmax > CALIB_MAXSEG) kmax = CALIB_MAXSEG;
  if (kmax > n / MINPTS) kmax = n / MINPTS;
  /* Judged by the root mean square of the relative errors (what the split minimises) and by
   * the worst one: the fewest segments within tol and whose worst point is within 2 tol, or,
   * when none is, the fewest within 10 % of the best reachable on both. A size the MPI is slow
   * at alone is a spike, out of the fit (above); the RMS rule alone left the 1 MiB bend 25 %
   * off, because one point weighs little in a mean over 50. */
  calib_seg cand[CALIB_MAXSEG][CALIB_MAXSEG];
  double rms[CALIB_MAXSEG], worst[CALIB_MAXSEG], least = INFINITY, least_worst = INFINITY;
  for (int q = 1; q <= kmax; q++) {
    rms[q - 1] = sqrt(best_split(size, t, n, q, env, cand[q - 1]) / n);
    worst[q - 1] = 0;
    for (int i = 0; i < n; i++) {
      double e = fabs(calib_segments_eval(cand[q - 1], q, size[i]) / t[i] - 1);
      if (e > worst[q - 1]) worst[q - 1] = e;
    }
    if (rms[q - 1] < least) least = rms[q - 1];
    if (worst[q - 1] < least_worst) least_worst = worst[q - 1];
  }
  int k = kmax;
  for (int q = kmax; q >= 1; q--)   /* the fewest within 10 % of the best on both */
    if (rms[q - 1] <= 1.1 * least && worst[q - 1] <= 1.1 * least_worst) k = q;
  for (int q = 1; q <= kmax; q++)
    if (rms[q - 1] <= tol && worst[q - 1] <= 2 * tol) { k = q; break; }
  memcpy(seg, cand[k - 1], (size_t)k * sizeof *seg);
  return k;
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) { double x = v[j]; v[j] = v[j - 1]; v[j - 1] = x; }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Exchange time over ping-pong time at the sizes both measured, over the largest third of
 * them: where transfers are limited by memory, not by latency or caches. 1 when unknown. */
static double exchange_ratio(const calib_probe *p) {
  double r[CALIB_MAXPTS];
  int n = 0;
  for (int i = 0; i < p->nex; i++)
    for (int j = 0; j < p->npp; j++)
      if (p->pp_size[j] == p->ex_size[i] && p->pp_time[j] > 0) r[n++] = p->ex_time[i] / p->pp_time[j];
  if (!n) return 1;
  int first = n - (n + 2) / 3;
  return median(r + first, n - first);
}

/* Segment i of k as SMPI's factors of m's latency and bandwidth (SimGrid's sections: sizes P
 * above thr use the section, P <= thr the one before; the bound is between the last size of
 * the previous segment and the first of this one). */
static void seg_factors(const calib_model *m, const calib_seg *seg, int i, double *thr, double *latf, double *bwf) {
  double b = seg[i].b > 0 ? seg[i].b : 1 / m->bw;   /* no slope: the fastest bandwidth */
  double l = seg[i].a - b * m->envelope;
  *thr = i ? sqrt(seg[i - 1].to * seg[i].from) + m->envelope : 0;
  *latf = l > 0 ? l / m->lat : 0;
  *bwf = (1 / b) / m->bw;
}

void calib_model_from_fit(calib_model *m, const calib_seg *seg, int k, const calib_probe *p) {
  double env = m->envelope;
  /* A segment a + b s with P = s + env: latf lat = a - b env, bwf bw = 1 / b. The first
   * segment gives the latency (factor 1), the fastest one the bandwidth (factors <= 1). */
  double bmin = INFINITY;
  for (int i = 0; i < k; i++)
    if (seg[i].b > 0 && seg[i].b < bmin) bmin = seg[i].b;
  if (!isfinite(bmin)) bmin = 1e-12;   /* no slope measured at all: 1 TB/s */
  m->bw = 1 / bmin;
  double lat0 = seg[0].a - (seg[0].b > 0 ? seg[0].b : bmin) * env;
  m->lat = lat0 > 0 ? lat0 : seg[0].a > 0 ? seg[0].a : 1e-9;
  m->nseg = k;
  m->nwseg = 0;
  for (int i = 0; i < k; i++) seg_factors(m, seg, i, &m->thr[i], &m->latf[i], &m->bwf[i]);
  /* Two transfers at once (one each way) share the bus: each gets min(bw, bus / 2), so the
   * ratio of their times to a transfer alone is bw / min(bw, bus / 2). A ratio at or under 1
   * is no sharing (bus = 2 bw); above 2 is worse than one after the other, which sharing
   * cannot give (bus = bw, the most it can take). */
  double r = exchange_ratio(p);
  m->exch_ratio = r;
  m->bus = r <= 1 ? 2 * m->bw : r >= 2 ? m->bw : 2 * m->bw / r;
  m->iprobe = p->iprobe, m->test = p->test, m->wtime = p->wtime;
  m->mpi = p->mpi[0] ? p->mpi : NULL;
  calib_model_coll(m, p);
}

/* MPICH's and Open MPI's allreduce of 8 bytes at 2 ranks is one exchange (recursive doubling):
 * what it takes beyond the model's exchange is the call's own work (argument checks, the
 * algorithm's choice, its progress loop, the copy and the operator), which every collective call
 * pays once. Part of it psim run charges already, measured (the program's loop between calls,
 * its runtime's copy and combine: 0.064 us of a 0.498 us allreduce at 18:43 on 2026-12-02): the
 * cost is what is left, else psim run would count that part twice (+14 % on the 8-byte
 * allreduce at 18:02). Written data's exchange when there is a fit of it: a collective's
 * messages take those factors. */
void calib_model_coll(calib_model *m, const calib_probe *p) {
  double own = p->run_charges > 0 ? p->run_charges : 0;
  m->coll = p->allreduce > 0 ? p->allreduce - calib_model_time_written(m, 8, 2) - own : -1;
}

void calib_model_written(calib_model *m, const calib_seg *seg, int k, const calib_probe *p) {
  m->nwseg = k;
  for (int i = 0; i < k; i++) seg_factors(m, seg, i, &m->wthr[i], &m->wlatf[i], &m->wbwf[i]);
  /* Under the smallest size measured, the ping-pong's factors, not the first segment's line
   * drawn below its data: a message of one cache line or less moves the same whether it was
   * written or not, and the probe's written data begin at 64 B. The line of 17:38 gave 8 B of
   * written data 0.279 us where the ping-pong's gives 0.357, so an alltoall of 8 B at rest
   * (the ping-pong's factors) took the collective's own cost measured against the former
   * (+17 % against real MPICH). Sizes are whole bytes: P = from + env - 1 and under. */
  if (k) m->wthr[0] = seg[0].from + m->envelope - 1;
  calib_model_coll(m, p);
}

static double step(const double *thr, const double *v, int n, double P) {
  double cur = 1;   /* below the first section: factor 1, as SMPI */
  for (int i = 0; i < n; i++) {
    if (P <= thr[i]) return cur;
    cur = v[i];
  }
  return cur;
}

static double model_time(const calib_model *m, const double *thr, const double *latf, const double *bwf, int n,
                         double size, int streams) {
  double P = size + m->envelope;
  double x = m->bus / (streams > 0 ? streams : 1);
  if (m->bw < x) x = m->bw;
  return step(thr, latf, n, P) * m->lat + P / (step(thr, bwf, n, P) * x);
}

double calib_model_time(const calib_model *m, double size, int streams) {
  return model_time(m, m->thr, m->latf, m->bwf, m->nseg, size, streams);
}

double calib_model_time_written(const calib_model *m, double size, int streams) {
  if (!m->nwseg || size + m->envelope <= m->wthr[0]) return calib_model_time(m, size, streams);
  return model_time(m, m->wthr, m->wlatf, m->wbwf, m->nwseg, size, streams);
}

int calib_full_duplex(const calib_model *net) { return net->exch_ratio < 1.5; }

void calib_model_nodes(calib_model *in, calib_model *net) {
  in->bus = 2 * in->bw;   /* a FATPIPE loopback: transfers inside a node do not share it */
  net->bus = calib_full_duplex(net) ? 2 * net->bw : net->bw;
}
