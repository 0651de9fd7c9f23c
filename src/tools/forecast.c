/* FAST's forecasts of pdgemm and pdtrsm (paper 003, formulas (4.1)-(4.8)) and the cost of a
 * block-cyclic redistribution (section 5). docs/forecast.md states every term. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/forecast.h"
#include "psim/models.h"

long fc_ceil_log2(long x) {
  long l = 0;
  while ((1L << l) < x) l++;
  return l;
}

static long cdiv(long a, long b) { return (a + b - 1) / b; }

double fc_msg_time(const fc_net *net, double elements) {
  if (!net->smpi) return net->lambda + elements * net->tau;
  double s = 8.0 * elements + net->smpi->envelope;
  return step_fn_eval(&net->smpi->lat_factor, s) * net->lambda +
         s / 8.0 * net->tau / step_fn_eval(&net->smpi->bw_factor, s);
}

long fc_numroc(long n, long nb, int iproc, int np) {
  long nblocks = n / nb, mine = (nblocks / np) * nb, extra = nblocks % np;
  if (iproc < extra) mine += nb;
  else if (iproc == extra) mine += n % nb;
  return mine;
}

int fc_trsm_case(char side, char uplo, char trans) {
  /* Figure 4.3: X on the left (op(A) X = B) with upper A not transposed, or on the right
   * transposed, is case 1; and so on. */
  int left = side == 'L', upper = uplo == 'U', notrans = trans == 'N';
  int solve_left = left == notrans;   /* the operation is A \ B (else B / A) */
  if (upper) return solve_left ? 1 : 2;
  return solve_left ? 3 : 4;
}

int fc_problem_check(const fc_problem *pb, psim_err *err) {
  if (pb->m <= 0 || pb->n <= 0 || pb->nb <= 0 || (pb->routine == FC_PDGEMM && pb->k <= 0))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "sizes must be positive integers (--m, --n%s, --nb)",
                     pb->routine == FC_PDGEMM ? ", --k" : "");
  if (pb->routine == FC_PDTRSM &&
      (!strchr("LR", pb->side) || !strchr("UL", pb->uplo) || !strchr("NT", pb->trans) ||
       !pb->side || !pb->uplo || !pb->trans))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--side expects L or R, --uplo U or L, --trans N or T");
  return 0;
}

/* (4.3) with the tree broadcasts of (4.4), in steps of S = pb->step columns of A (R, the
 * block size, unless given: the paper's pdgemm and examples/pdgemm.c step by blocks). The
 * PBLAS of ScaLAPACK 2 does not: PB_CpgemmAB, its algorithm when K's panels are the smaller
 * volume to move (M, N >= K on a grid row or column), multiplies in steps of PILAENV's
 * logical block, 32 columns, whatever R. */
long fc_step(const fc_problem *pb) { return pb->step > 0 ? pb->step : pb->nb; }

static void pdgemm(const fc_problem *pb, const fc_kernels *km, const fc_net *net, int p, int q,
                   fc_grid *g) {
  long S = fc_step(pb);
  double steps = (double)cdiv(pb->k, S);
  double lp = (double)fc_ceil_log2(p), lq = (double)fc_ceil_log2(q);
  double mp = (double)cdiv(pb->m, p), nq = (double)cdiv(pb->n, q);
  g->compute = steps * fc_kernel_time(km, FC_DGEMM, mp, nq, (double)S);
  double tau_pq = lq / p * net->tau, tau_qp = lp / q * net->tau;   /* tau_p^q, tau_q^p */
  double lam_pq = lq * net->lambda, lam_qp = lp * net->lambda;     /* lambda_p^q, lambda_q^p */
  g->comm = (double)pb->m * (double)pb->k * tau_pq + (double)pb->k * (double)pb->n * tau_qp +
            (lam_pq + lam_qp) * steps;
  if (net->smpi) {   /* the same tree broadcasts, message by message, with SMPI's factors */
    double last = (double)(pb->k - (long)(steps - 1) * S), r = (double)S;
    g->comm = (steps - 1) * (lq * fc_msg_time(net, mp * r) + lp * fc_msg_time(net, r * nq)) +
              lq * fc_msg_time(net, mp * last) + lp * fc_msg_time(net, last * nq);
  }
  g->idle = 0;
  g->time = g->compute + g->comm;
  double lm = (double)fc_numroc(pb->m, pb->nb, 0, p), ln = (double)fc_numroc(pb->n, pb->nb, 0, q);
  double lka = (double)fc_numroc(pb->k, pb->nb, 0, q), lkb = (double)fc_numroc(pb->k, pb->nb, 0, p);
  g->mem = 8.0 * (lm * lka + lkb * ln + lm * ln + (lm + ln) * (double)S);
}

/* The update of one process column at one step: its c remaining blocks (cols columns), the
 * first w = min(c, p-1) of them (wcols columns) first when p > 1. */
typedef struct upd { double d1, ts, add, d2; int blocking, w, ok; } upd;

static void upd_cost(upd *u, long c, int narrow, long n, long nb, long nblk, double mr, double wi,
                     const fc_kernels *km, const fc_net *net, int p) {
  double cols = (double)c * (double)nb - (narrow ? (double)(nblk * nb - n) : 0);
  long w = p == 1 ? c : c < p - 1 ? c : p - 1;
  double wcols = w == c ? cols : (double)w * (double)nb;
  u->w = (int)(p > 1 ? w : 0);
  u->d1 = fc_kernel_time(km, FC_DGEMM, mr, wcols, wi);
  u->d2 = fc_kernel_time(km, FC_DGEMM, mr, cols - wcols, wi);
  u->ts = u->w ? fc_msg_time(net, mr * wcols) : 0;
  u->add = u->w ? fc_kernel_time(km, FC_ADD, mr, wcols, 0) : 0;
  u->blocking = 8.0 * mr * wcols >= net->eager_bytes;
  u->ok = 1;
}

/* One pbdtrsm call (case 2: X A = B, A upper n x n, B rows x n) on a p x q grid, by the
 * critical-path model of (4.5)-(4.8): per-process clocks t (p x q, row-major) that the idle
 * corrections C_b and C_u synchronise. Adds the terms on the critical path to *comp, *comm. */
static double pbdtrsm(long rows, long n, long nb, const fc_kernels *km, const fc_net *net, int p,
                      int q, double *t, double *comp, double *comm) {
  long nblk = cdiv(n, nb);
  double mr = (double)rows;
  int lastc = (int)((nblk - 1) % q);
  memset(t, 0, sizeof(double) * (size_t)p * (size_t)q);
  for (long i = 0; i < nblk; i++) {
    int ri = (int)(i % p), o = (int)(i % q), rn = (int)((i + 1) % p), on = (int)((i + 1) % q);
    double wi = (double)(i == nblk - 1 ? n - i * nb : nb);
    double *row = t + (size_t)ri * (size_t)q, *nrow = t + (size_t)rn * (size_t)q;
    /* the sequential solve of the diagonal block */
    double trsm = fc_kernel_time(km, FC_DTRSM, mr, wi, 0);
    row[o] += trsm;
    *comp += trsm;
    /* (4.5): the solved block travels the process row as a ring, receivers forward it. A
     * receiver waits for it (C_b); a sender waits only for a rendez-vous message. */
    if (q > 1) {
      double tb = fc_msg_time(net, mr * wi), arrive = row[o];
      int blocking = 8.0 * mr * wi >= net->eager_bytes;
      for (int h = 1, s = o, r = o + 1 == q ? 0 : o + 1; h < q; h++) {
        double start = arrive > row[r] ? arrive : row[r];
        arrive = start + tb;
        if (blocking) row[s] = arrive;
        row[r] = arrive;
        s = r;
        r = r + 1 == q ? 0 : r + 1;
      }
      *comm += tb;
    }
    /* the update: column c's remaining blocks (base or base + 1 of them, the extra ones from
     * column (i+1) mod q on); with p > 1 the first p-1 first, sent to the next process row
     * (4.7), which accumulates them, then the others. Four possible costs, computed once. */
    long total = nblk - 1 - i, base = total / q, extra = total % q;
    upd u[2][2];
    u[0][0].ok = u[0][1].ok = u[1][0].ok = u[1][1].ok = 0;
    for (int c = 0, off = q - on == q ? 0 : q - on; c < q; c++, off = off + 1 == q ? 0 : off + 1) {
      int more = off < extra, narrow = c == lastc && total > 0;
      upd *x = &u[more][narrow];
      if (!x->ok) upd_cost(x, base + more, narrow, n, nb, nblk, mr, wi, km, net, p);
      row[c] += x->d1;
      if (x->w > 0) {
        double start = row[c] > nrow[c] ? row[c] : nrow[c], end = start + x->ts;
        nrow[c] = end + x->add;
        if (x->blocking) row[c] = end;
        if (c == on) { *comm += x->ts; *comp += x->add; }
      }
      if (c == on) *comp += x->d1;
      row[c] += x->d2;
    }
  }
  double end = 0;
  for (size_t x = 0; x < (size_t)p * (size_t)q; x++)
    if (t[x] > end) end = t[x];
  return end;
}

static void pdtrsm(const fc_problem *pb, const fc_kernels *km, const fc_net *net, int p, int q,
                   fc_grid *g) {
  /* n: the order of A (N for side R, M for side L), the dimension the solve walks; m: B's
   * other one. Cases 2 and 4 are modelled as case 2 (case 4 walks the blocks in the reverse
   * order, the same pattern mirrored); cases 1 and 3 (A \ B) are its transpose: the same model
   * on the transposed grid (Figure 4.3's grouping). */
  int c = fc_trsm_case(pb->side, pb->uplo, pb->trans);
  long m = pb->side == 'R' ? pb->m : pb->n, n = pb->side == 'R' ? pb->n : pb->m;
  int pp = p, qq = q;
  if (c == 1 || c == 3) { pp = q; qq = p; }
  double *t = xmalloc(sizeof(double) * (size_t)pp * (size_t)qq);
  long calls = cdiv(m, pb->nb), lastrows = m - (calls - 1) * pb->nb;
  /* the calls of full blocks of rows are alike: one is computed; then the last, if narrower */
  double comp = 0, comm = 0;
  double one = pbdtrsm(pb->nb, n, pb->nb, km, net, pp, qq, t, &comp, &comm);
  g->time = (double)(calls - 1) * one;
  g->compute = (double)(calls - 1) * comp;
  g->comm = (double)(calls - 1) * comm;
  if (lastrows != pb->nb) {
    comp = comm = 0;
    one = pbdtrsm(lastrows, n, pb->nb, km, net, pp, qq, t, &comp, &comm);
  }
  g->time += one;
  g->compute += comp;
  g->comm += comm;
  free(t);
  double time = g->time;
  g->idle = time - g->compute - g->comm;
  if (fabs(g->idle) <= 1e-9 * time) g->idle = 0;   /* rounding of the sums */
  double la = (double)fc_numroc(n, pb->nb, 0, pp) * (double)fc_numroc(n, pb->nb, 0, qq);
  double lb = (double)fc_numroc(m, pb->nb, 0, pp) * (double)fc_numroc(n, pb->nb, 0, qq);
  g->mem = 8.0 * (la + lb + 2.0 * (double)pb->nb * (double)fc_numroc(n, pb->nb, 0, qq));
}

void fc_forecast(const fc_problem *pb, const fc_kernels *km, const fc_net *net, int p, int q,
                 fc_grid *out) {
  memset(out, 0, sizeof *out);
  out->p = p;
  out->q = q;
  out->fits = 1;
  if (pb->routine == FC_PDGEMM) pdgemm(pb, km, net, p, q, out);
  else pdtrsm(pb, km, net, p, q, out);
}

/* Rows (or columns) that block class (a of na, b of nb) share: how many of the n items, in
 * blocks of bs, fall on process row a of grid A and process row b of grid B. */
static void shared_counts(long n, long bs, int na, int nbp, double *out) {
  memset(out, 0, sizeof(double) * (size_t)na * (size_t)nbp);
  long nblk = cdiv(n, bs);
  for (long i = 0; i < nblk; i++) {
    long len = i == nblk - 1 ? n - i * bs : bs;
    out[(size_t)(i % na) * (size_t)nbp + (size_t)(i % nbp)] += (double)len;
  }
}

void fc_redistribute(long m, long n, long nb, int pa, int qa, int firsta, int pb, int qb,
                     int firstb, const fc_net *net, fc_redist *out) {
  memset(out, 0, sizeof *out);
  int np = firsta + pa * qa > firstb + pb * qb ? firsta + pa * qa : firstb + pb * qb;
  double *rows = xmalloc(sizeof(double) * (size_t)pa * (size_t)pb);
  double *cols = xmalloc(sizeof(double) * (size_t)qa * (size_t)qb);
  double *snd = xcalloc((size_t)np, sizeof(double)), *rcv = xcalloc((size_t)np, sizeof(double));
  shared_counts(m, nb, pa, pb, rows);
  shared_counts(n, nb, qa, qb, cols);
  for (int ra = 0; ra < pa; ra++)
    for (int ca = 0; ca < qa; ca++)
      for (int rb = 0; rb < pb; rb++)
        for (int cb = 0; cb < qb; cb++) {
          double v = rows[(size_t)ra * (size_t)pb + (size_t)rb] * cols[(size_t)ca * (size_t)qb + (size_t)cb];
          int s = firsta + ra * qa + ca, d = firstb + rb * qb + cb;
          if (v <= 0 || s == d) continue;
          double c = fc_msg_time(net, v);
          snd[s] += c;
          rcv[d] += c;
          out->messages++;
          out->elements += v;
        }
  for (int i = 0; i < np; i++) {
    if (snd[i] > out->time) out->time = snd[i];
    if (rcv[i] > out->time) out->time = rcv[i];
  }
  free(rows);
  free(cols);
  free(snd);
  free(rcv);
}
