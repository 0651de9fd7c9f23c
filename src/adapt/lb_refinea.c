/* refine: Charm++ 7's RefineLB, the RefineA algorithm of TreeLB (specs/load-balancers.md §3).
 *
 * G = Greedy's makespan gives a target range [G, 1.5 G] for the maximum load M, bisected until
 * hi / lo <= 1.01. Each probe starts from the current mapping: while some PE exceeds M, the
 * most loaded one gives its largest VP that fits (<= M) on the least loaded PE; the VP goes to
 * the first PE of the light list (L < average, in id order) where it fits (the least loaded
 * one when none does). A probe succeeds when no PE exceeds M. The probe with the lowest
 * maximum wins (then the fewest migrations, then the earliest). */
#include <stdlib.h>
#include <string.h>

#include "adapt/adapt_internal.h"

/* One probe at target M into map; returns 1 on success. */
static int probe(const lb_situation *s, double M, int *map, double *L) {
  memcpy(map, s->vp_pe, (size_t)s->nvp * sizeof *map);
  lb_pe_loads(s, map, L);
  double avg = 0;
  for (int p = 0; p < s->npe; p++) avg += L[p];
  avg /= s->npe;
  for (;;) {
    int d = -1, q = 0;
    for (int p = 0; p < s->npe; p++) {
      if (L[p] > M && (d < 0 || L[p] > L[d])) d = p;
      if (L[p] < L[q]) q = p;
    }
    if (d < 0) return 1;
    int c = -1;
    for (int v = 0; v < s->nvp; v++) {
      if (map[v] != d || L[q] + lb_cost_on(s, v, q) > M) continue;
      if (c < 0 || s->vp_load[v] > s->vp_load[c]) c = v;   /* ids ascend: first wins ties */
    }
    if (c < 0) return 0;
    int dst = q;
    for (int p = 0; p < s->npe; p++)
      if (L[p] < avg && L[p] + lb_cost_on(s, c, p) <= M) { dst = p; break; }
    L[d] -= lb_cost_on(s, c, d);
    L[dst] += lb_cost_on(s, c, dst);
    map[c] = dst;
  }
}

static int moves(const lb_situation *s, const int *map) {
  int n = 0;
  for (int v = 0; v < s->nvp; v++) n += map[v] != s->vp_pe[v];
  return n;
}

int lb_refine_a(const lb_situation *s, int *out) {
  size_t nv = (size_t)(s->nvp ? s->nvp : 1);
  int *map = xmalloc(nv * sizeof *map);
  double *L = xmalloc((size_t)s->npe * sizeof *L);
  lb_greedy(s, map);
  lb_pe_loads(s, map, L);
  double G = lb_max(L, s->npe);
  memcpy(out, s->vp_pe, (size_t)s->nvp * sizeof *out);
  if (G > 0) {
    double lo = G, hi = 1.5 * G, best_max = 0;
    int have = 0, best_moves = 0, any_ok = 0;
    for (int last = 0; !last;) {
      double M;
      if (hi / lo > 1.01) M = 0.5 * (lo + hi);
      else if (!any_ok) { M = hi; last = 1; }   /* make sure a feasible target was tried */
      else break;
      int ok = probe(s, M, map, L);
      double mx = lb_max(L, s->npe);
      int mv = moves(s, map);
      if (!have || mx < best_max || (mx == best_max && mv < best_moves)) {
        memcpy(out, map, (size_t)s->nvp * sizeof *out);
        best_max = mx; best_moves = mv; have = 1;
      }
      if (ok) { hi = M; any_ok = 1; }
      else lo = M;
    }
  }
  free(map);
  free(L);
  return 0;
}
