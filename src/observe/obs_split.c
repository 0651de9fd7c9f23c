/* A rank's recorded time cut into the report's states, by the same rule as the time
 * accounting (replay_rank.c, docs/observe.md), so a colour means one thing in every chart:
 *   - compute and sleep actions, and a reduction's computation inside an MPI call: compute;
 *   - a VP ready but waiting for its PE (psim lb): waiting for its PE;
 *   - a migrate (psim lb's balancing step): balancing;
 *   - inside any other MPI call: sending while one of its outgoing messages is in flight,
 *     else receiving while an incoming one is (or while it pays an MPI overhead), else
 *     nothing of its own moves: collective inside a collective call, waiting otherwise.
 * So the summary's "sending / receiving" is the timeline's blue, and its "waiting" is the
 * timeline's red plus the orange of collectives. Each rank's message intervals and phases are
 * merged into sorted unions once; an action is then cut at the ends of the intervals inside
 * it (binary search), O(k log n) per action with k pieces. */
#include <stdlib.h>
#include <string.h>

#include "obs_split.h"

typedef struct ivs { double *a; size_t n, cap; } ivs;   /* [start, end] pairs, sorted, disjoint */

static void ivs_push(ivs *v, double s, double e) {
  if (!(e > s)) return;
  if (v->n + 2 > v->cap) { v->cap = v->cap ? 2 * v->cap : 16; v->a = xrealloc(v->a, v->cap * sizeof *v->a); }
  v->a[v->n++] = s;
  v->a[v->n++] = e;
}

static int cmp_pair(const void *x, const void *y) {
  const double *a = x, *b = y;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

static void ivs_union(ivs *v) {
  if (v->n < 4) return;
  qsort(v->a, v->n / 2, 2 * sizeof *v->a, cmp_pair);
  size_t m = 2;
  for (size_t i = 2; i < v->n; i += 2) {
    if (v->a[i] <= v->a[m - 1]) { if (v->a[i + 1] > v->a[m - 1]) v->a[m - 1] = v->a[i + 1]; }
    else { v->a[m++] = v->a[i]; v->a[m++] = v->a[i + 1]; }
  }
  v->n = m;
}

/* Index of the first pair ending after t. */
static size_t ivs_first(const ivs *v, double t) {
  size_t lo = 0, hi = v->n / 2;
  while (lo < hi) { size_t m = (lo + hi) / 2; if (v->a[2 * m + 1] <= t) lo = m + 1; else hi = m; }
  return lo;
}

static int ivs_has(const ivs *v, double t) {
  size_t i = ivs_first(v, t);
  return 2 * i < v->n && v->a[2 * i] <= t;
}

enum { L_PE, L_COMP, L_OUT, L_IN, L_OVER, NLISTS };

struct obs_split {
  const obs_record *rec;
  ivs *lists;   /* np x NLISTS */
  VEC(double) pts;
};

obs_split *obs_split_new(const obs_record *rec) {
  obs_split *s = xcalloc(1, sizeof *s);
  s->rec = rec;
  size_t np = (size_t)(rec->np > 0 ? rec->np : 1);
  s->lists = xcalloc(np * NLISTS, sizeof *s->lists);
  for (size_t i = 0; i < rec->msgs.len; i++) {
    const obs_msg *m = &rec->msgs.data[i];
    if (!(m->xfer_end > m->xfer_start)) continue;
    ivs_push(&s->lists[(size_t)m->src * NLISTS + L_OUT], m->xfer_start, m->xfer_end);
    ivs_push(&s->lists[(size_t)m->dst * NLISTS + L_IN], m->xfer_start, m->xfer_end);
  }
  for (int r = 0; r < rec->np; r++)
    for (size_t i = 0; i < rec->phases[r].len; i++) {
      const obs_phase *p = &rec->phases[r].data[i];
      int l = p->what == REPLAY_PHASE_PE ? L_PE : p->what == REPLAY_PHASE_COMPUTE ? L_COMP : L_OVER;
      ivs_push(&s->lists[(size_t)r * NLISTS + l], p->start, p->end);
    }
  for (size_t i = 0; i < np * NLISTS; i++) ivs_union(&s->lists[i]);
  return s;
}

void obs_split_free(obs_split *s) {
  if (!s) return;
  size_t np = (size_t)(s->rec->np > 0 ? s->rec->np : 1);
  for (size_t i = 0; i < np * NLISTS; i++) free(s->lists[i].a);
  free(s->lists);
  VEC_FREE(s->pts);
  free(s);
}

static int state_at(const ivs *L, double t, int coll) {
  if (ivs_has(&L[L_PE], t)) return OBS_ST_PE;
  if (ivs_has(&L[L_COMP], t)) return OBS_ST_COMPUTE;
  if (ivs_has(&L[L_OUT], t)) return OBS_ST_SEND;
  if (ivs_has(&L[L_IN], t) || ivs_has(&L[L_OVER], t)) return OBS_ST_RECV;
  return coll ? OBS_ST_COLL : OBS_ST_WAIT;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

size_t obs_split_action(obs_split *s, int rank, size_t i, obs_piece_fn fn, void *ctx) {
  const obs_act *a = &s->rec->acts[rank].data[i];
  if (!(a->end > a->start)) return 0;
  int base = obs_state_of((tit_kind)a->kind);
  if (base == OBS_ST_IDLE) return 0;
  const ivs *L = &s->lists[(size_t)rank * NLISTS];
  if (base == OBS_ST_COMPUTE || base == OBS_ST_LB) {
    /* a VP waiting for its PE before it can run the computation (psim lb) */
    int pe = 0;
    for (size_t k = ivs_first(&L[L_PE], a->start); 2 * k < L[L_PE].n && L[L_PE].a[2 * k] < a->end; k++) pe = 1;
    if (!pe) { fn(ctx, a, a->start, a->end, base); return 1; }
  }
  int coll = base == OBS_ST_COLL;
  s->pts.len = 0;
  VEC_PUSH(s->pts, a->start);
  VEC_PUSH(s->pts, a->end);
  for (int l = 0; l < NLISTS; l++)
    for (size_t k = ivs_first(&L[l], a->start); 2 * k < L[l].n && L[l].a[2 * k] < a->end; k++) {
      if (L[l].a[2 * k] > a->start) VEC_PUSH(s->pts, L[l].a[2 * k]);
      if (L[l].a[2 * k + 1] < a->end) VEC_PUSH(s->pts, L[l].a[2 * k + 1]);
    }
  qsort(s->pts.data, s->pts.len, sizeof *s->pts.data, cmp_double);
  size_t out = 0;
  double cs = a->start;
  int cst = -1;
  for (size_t k = 0; k + 1 < s->pts.len; k++) {
    double p0 = s->pts.data[k], p1 = s->pts.data[k + 1];
    if (!(p1 > p0)) continue;
    int st = (base == OBS_ST_COMPUTE || base == OBS_ST_LB) && !ivs_has(&L[L_PE], (p0 + p1) / 2) ? base
                                                                                                 : state_at(L, (p0 + p1) / 2, coll);
    if (st != cst) {
      if (cst >= 0) { fn(ctx, a, cs, p0, cst); out++; }
      cs = p0;
      cst = st;
    }
  }
  if (cst >= 0) { fn(ctx, a, cs, a->end, cst); out++; }
  return out;
}
