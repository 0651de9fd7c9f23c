/* GreedyLB and GreedyRefine (specs/load-balancers.md §3).
 *
 * Greedy ignores the current mapping: the heaviest remaining VP goes to the least loaded PE.
 * Charm++ uses std::sort and std heaps, whose tie order is unspecified; psim fixes it (VPs by
 * load then id, PEs by load then id) so that the same situation always gives the same map. */
#include <stdlib.h>

#include "adapt/adapt_internal.h"

/* Min-heap of PE ids ordered by (load, id). */
typedef struct pe_heap { int *h; int n; const double *load; } pe_heap;

static int less(const pe_heap *H, int a, int b) {
  return H->load[a] < H->load[b] || (H->load[a] == H->load[b] && a < b);
}

static void heap_down(pe_heap *H, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < H->n && less(H, H->h[l], H->h[m])) m = l;
    if (l + 1 < H->n && less(H, H->h[l + 1], H->h[m])) m = l + 1;
    if (m == i) return;
    int t = H->h[i]; H->h[i] = H->h[m]; H->h[m] = t;
    i = m;
  }
}

static void heap_build(pe_heap *H) {
  for (int i = H->n / 2 - 1; i >= 0; i--) heap_down(H, i);
}

int lb_greedy(const lb_situation *s, int *out) {
  double *L = xmalloc((size_t)s->npe * sizeof *L);
  pe_heap H = {xmalloc((size_t)s->npe * sizeof(int)), s->npe, L};
  for (int p = 0; p < s->npe; p++) { L[p] = lb_bg(s, p); H.h[p] = p; }
  heap_build(&H);
  int *order = lb_order_desc(s);
  for (int i = 0; i < s->nvp; i++) {
    int v = order[i], p = H.h[0];
    out[v] = p;
    L[p] += lb_cost_on(s, v, p);
    heap_down(&H, 0);   /* the top only grew: sift it down */
  }
  free(order);
  free(H.h);
  free(L);
  return 0;
}

/* TreeLB's GreedyRefine with tolerance 1: M = Greedy's makespan; in descending load, a VP
 * stays where it is if that keeps its PE within M, else it goes to the least loaded PE, and M
 * grows to that PE's load when it had to exceed it. */
int lb_greedy_refine(const lb_situation *s, int *out) {
  int *g = xmalloc((size_t)(s->nvp ? s->nvp : 1) * sizeof *g);
  double *L = xmalloc((size_t)s->npe * sizeof *L);
  lb_greedy(s, g);
  lb_pe_loads(s, g, L);
  double M = lb_max(L, s->npe);
  free(g);
  for (int p = 0; p < s->npe; p++) L[p] = lb_bg(s, p);
  int *order = lb_order_desc(s);
  for (int i = 0; i < s->nvp; i++) {
    int v = order[i], old = s->vp_pe[v], dst = old;
    if (L[old] + lb_cost_on(s, v, old) > M) {
      dst = 0;
      for (int p = 1; p < s->npe; p++) if (L[p] < L[dst]) dst = p;
    }
    out[v] = dst;
    L[dst] += lb_cost_on(s, v, dst);
    if (L[dst] > M) M = L[dst];
  }
  free(order);
  free(L);
  return 0;
}
