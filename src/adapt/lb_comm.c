/* Communication-aware balancers: GreedyCommLB and RefineCommLB (specs/load-balancers.md §3).
 * A communication record costs alpha x msgs + beta x bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/adapt_internal.h"

typedef struct nbr { int u; double cost; } nbr;
typedef struct adj { VEC(nbr) *l; int n; } adj;

static void adj_add(adj *g, int a, int b, double cost) {
  for (size_t i = 0; i < g->l[a].len; i++)
    if (g->l[a].data[i].u == b) { g->l[a].data[i].cost += cost; return; }
  VEC_PUSH(g->l[a], ((nbr){b, cost}));
}

/* undirected: both ends list each other (GreedyComm); directed: senders list receivers. */
static void adj_build(adj *g, const lb_situation *s, int undirected) {
  g->n = s->nvp;
  g->l = xcalloc((size_t)(s->nvp ? s->nvp : 1), sizeof *g->l);
  for (int i = 0; i < s->nedges; i++) {
    const lb_edge *e = &s->edges[i];
    if (e->a == e->b || e->a < 0 || e->b < 0 || e->a >= s->nvp || e->b >= s->nvp) continue;
    double c = s->alpha * e->msgs + s->beta * e->bytes;
    adj_add(g, e->a, e->b, c);
    if (undirected) adj_add(g, e->b, e->a, c);
  }
}

static void adj_free(adj *g) {
  for (int i = 0; i < g->n; i++) VEC_FREE(g->l[i]);
  free(g->l);
}

/* Cost of v's edges to placed neighbours on PE p. */
static double placed_on(const adj *g, const char *placed, const int *map, int v, int p) {
  double x = 0;
  for (size_t j = 0; j < g->l[v].len; j++) {
    const nbr *e = &g->l[v].data[j];
    if (placed[e->u] && map[e->u] == p) x += e->cost;
  }
  return x;
}

/* GreedyComm: VPs by descending load; each goes to the least loaded PE or to a PE hosting one
 * of its already placed neighbours, whichever has the lowest load + the cost of its edges to
 * placed neighbours elsewhere (strict comparison: the least loaded PE wins ties). Both ends of
 * a cut edge pay its cost. */
int lb_greedy_comm(const lb_situation *s, int *out) {
  adj g;
  adj_build(&g, s, 1);
  double *L = xmalloc((size_t)s->npe * sizeof *L);
  char *placed = xcalloc((size_t)(s->nvp ? s->nvp : 1), 1);
  int *cand = xmalloc((size_t)s->npe * sizeof *cand);
  char *seen = xcalloc((size_t)s->npe, 1);
  for (int p = 0; p < s->npe; p++) L[p] = lb_bg(s, p);
  int *order = lb_order_desc(s);
  for (int i = 0; i < s->nvp; i++) {
    int v = order[i];
    int q = 0;
    for (int p = 1; p < s->npe; p++) if (L[p] < L[q]) q = p;
    double all = 0;
    int nc = 0;
    for (size_t j = 0; j < g.l[v].len; j++) {
      const nbr *e = &g.l[v].data[j];
      if (!placed[e->u]) continue;
      all += e->cost;
      int p = out[e->u];
      if (!seen[p]) { seen[p] = 1; cand[nc++] = p; }
    }
    /* C(v,p) = cost of edges to placed neighbours not on p */
    int best = q;
    double cost = L[q] + (all - placed_on(&g, placed, out, v, q));
    for (int k = 0; k < nc; k++) {
      int p = cand[k];
      seen[p] = 0;
      double c = L[p] + (all - placed_on(&g, placed, out, v, p));
      if (cost > c) { best = p; cost = c; }
    }
    double cut = 0;
    for (size_t j = 0; j < g.l[v].len; j++) {
      const nbr *e = &g.l[v].data[j];
      if (!placed[e->u] || out[e->u] == best) continue;
      cut += e->cost;
      L[out[e->u]] += e->cost;
    }
    L[best] += lb_cost_on(s, v, best) + cut;
    out[v] = best;
    placed[v] = 1;
  }
  free(order);
  free(seen);
  free(cand);
  free(placed);
  free(L);
  adj_free(&g);
  return 0;
}

/* ---- RefineComm ---- */
typedef struct rcomm {
  const lb_situation *s;
  adj out;            /* directed: what each VP sends */
  int *map;
  double *L, avg;
} rcomm;

/* L(p) = bg + placed work + the cost of messages its VPs send to other PEs; avg includes it. */
static void rc_loads(rcomm *R) {
  const lb_situation *s = R->s;
  lb_pe_loads(s, R->map, R->L);
  for (int v = 0; v < s->nvp; v++)
    for (size_t j = 0; j < R->out.l[v].len; j++)
      if (R->map[R->out.l[v].data[j].u] != R->map[v]) R->L[R->map[v]] += R->out.l[v].data[j].cost;
  R->avg = 0;
  for (int p = 0; p < s->npe; p++) R->avg += R->L[p];
  R->avg /= s->npe;
}

/* cost of what c sends to VPs on PE p */
static double rc_to(const rcomm *R, int c, int p) {
  double x = 0;
  for (size_t j = 0; j < R->out.l[c].len; j++)
    if (R->map[R->out.l[c].data[j].u] == p) x += R->out.l[c].data[j].cost;
  return x;
}

static double rc_total(const rcomm *R, int c) {
  double x = 0;
  for (size_t j = 0; j < R->out.l[c].len; j++) x += R->out.l[c].data[j].cost;
  return x;
}

static int rc_refine(rcomm *R, double tol) {
  const lb_situation *s = R->s;
  /* Moves change other PEs' comm terms, so loads could in principle cycle: bound the moves. */
  for (long guard = 0; guard < 4L * s->nvp + 16; guard++) {
    rc_loads(R);
    double limit = tol * R->avg;
    int d = -1;
    for (int p = 0; p < s->npe; p++)
      if (R->L[p] > limit && (d < 0 || R->L[p] > R->L[d])) d = p;
    if (d < 0) return 1;
    int bc = -1, bp = -1;
    double bg = -INFINITY;
    for (int p = 0; p < s->npe; p++) {
      if (!(R->L[p] < R->avg)) continue;
      for (int c = 0; c < s->nvp; c++) {
        if (R->map[c] != d) continue;
        double cut = rc_total(R, c) - rc_to(R, c, d);
        double gain = lb_cost_on(s, c, p) + cut - rc_to(R, c, p);
        if (R->L[p] + gain < limit && gain > bg) { bg = gain; bc = c; bp = p; }
      }
    }
    if (bc < 0) return 0;
    R->map[bc] = bp;
  }
  return 0;
}

/* multirefine as RefineLB's, from tolerance 1.003 (what the code uses; its comment says
 * 1.05). Charm++'s reset forgets the communication term; psim resets it too (the intent). */
int lb_refine_comm(const lb_situation *s, int *out) {
  rcomm R = {0};
  R.s = s;
  adj_build(&R.out, s, 0);
  R.map = out;
  R.L = xmalloc((size_t)s->npe * sizeof *R.L);
  memcpy(out, s->vp_pe, (size_t)s->nvp * sizeof *out);
  rc_loads(&R);
  const double start = 1.003, step = 0.01;
  double max = lb_max(R.L, s->npe), avg = R.avg;
  if (!rc_refine(&R, start) && avg > 0) {
    int hi = (int)((max / avg - start) / step + 1), lo = 0;
    if (rc_refine(&R, start + step * hi)) {
      while (hi - lo > 1) {
        int k = (hi + lo) / 2;
        memcpy(out, s->vp_pe, (size_t)s->nvp * sizeof *out);
        if (rc_refine(&R, start + step * k)) hi = k;
        else lo = k;
      }
    }
  }
  free(R.L);
  adj_free(&R.out);
  return 0;
}
