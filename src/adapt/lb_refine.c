/* refine-classic: Charm++ 6's RefineLB (the Refiner class with multirefine), the balancer of
 * the SAMPI thesis, reproduced with its data-structure orders and its quirk
 * (specs/load-balancers.md §3, "RefineLB (legacy Refiner, tolerance 1.05)").
 *
 * From the current mapping, the most loaded heavy PE (L > tol x avg) gives one VP to a light
 * PE (L < avg): over light PEs in the order of a head-inserted linked list (so initially the
 * highest id first) and over the donor's VPs most recently assigned first, the largest VP that
 * keeps the receiver under tol x avg wins; the first found wins ties. One failed donor ends
 * the attempt. multirefine retries with larger tolerances and bisects on them; the mapping it
 * returns is whatever the *last* probe left, even a failed and partial one (the quirk). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/adapt_internal.h"

/* A sequence where "push" adds at the end and iteration runs from the end, i.e. a linked list
 * with head insertion: most recently inserted first. */
typedef struct lifo { int *v; int n, cap; } lifo;

static void lifo_push(lifo *l, int x) {
  if (l->n == l->cap) { l->cap = l->cap ? 2 * l->cap : 8; l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v); }
  l->v[l->n++] = x;
}
static void lifo_remove(lifo *l, int x) {
  for (int i = l->n - 1; i >= 0; i--)
    if (l->v[i] == x) { memmove(l->v + i, l->v + i + 1, (size_t)(l->n - i - 1) * sizeof *l->v); l->n--; return; }
}

typedef struct refiner {
  const lb_situation *s;
  int *map;
  double *L, avg;
  lifo *objs;          /* per PE: its VPs, most recently assigned last */
  char *heavy;         /* per PE: in the heavy heap */
  lifo light;
} refiner;

static void reset(refiner *R) {
  const lb_situation *s = R->s;
  memcpy(R->map, s->vp_pe, (size_t)s->nvp * sizeof *R->map);
  lb_pe_loads(s, R->map, R->L);
  for (int p = 0; p < s->npe; p++) R->objs[p].n = 0;
  /* VPs are assigned in id order, as the LB database lists them */
  for (int v = 0; v < s->nvp; v++) lifo_push(&R->objs[R->map[v]], v);
}

/* One refine pass at tolerance tol; returns 1 when no PE is left heavy. */
static int refine(refiner *R, double tol) {
  const lb_situation *s = R->s;
  const double limit = tol * R->avg;
  R->light.n = 0;
  for (int p = 0; p < s->npe; p++) {
    R->heavy[p] = R->L[p] > limit;
    if (R->L[p] < R->avg) lifo_push(&R->light, p);
  }
  for (;;) {
    /* pop-max of the heavy heap: loads of PEs in it do not change while they are in it */
    int d = -1;
    for (int p = 0; p < s->npe; p++)
      if (R->heavy[p] && (d < 0 || R->L[p] > R->L[d])) d = p;
    if (d < 0) return 1;
    R->heavy[d] = 0;
    int bc = -1, bp = -1;
    double bw = -1;
    for (int i = R->light.n - 1; i >= 0; i--) {
      int p = R->light.v[i];
      const lifo *o = &R->objs[d];
      for (int j = o->n - 1; j >= 0; j--) {
        int c = o->v[j];
        if (lb_cost_on(s, c, p) + R->L[p] < limit && s->vp_load[c] > bw) {
          bc = c; bp = p; bw = s->vp_load[c];
        }
      }
    }
    if (bc < 0) return 0;
    lifo_remove(&R->objs[d], bc);
    lifo_push(&R->objs[bp], bc);
    R->map[bc] = bp;
    R->L[d] -= lb_cost_on(s, bc, d);
    R->L[bp] += lb_cost_on(s, bc, bp);
    if (R->L[bp] > R->avg) lifo_remove(&R->light, bp);
    if (R->L[d] > limit) R->heavy[d] = 1;
    else if (R->L[d] < R->avg) lifo_push(&R->light, d);
  }
}

int lb_refine_classic(const lb_situation *s, int *out) {
  refiner R = {0};
  R.s = s;
  R.map = out;
  R.L = xmalloc((size_t)s->npe * sizeof *R.L);
  R.objs = xcalloc((size_t)s->npe, sizeof *R.objs);
  R.heavy = xcalloc((size_t)s->npe, 1);
  double total = 0;
  for (int v = 0; v < s->nvp; v++) total += s->vp_load[v];   /* raw loads, as Charm++ */
  for (int p = 0; p < s->npe; p++) total += lb_bg(s, p);
  R.avg = total / s->npe;
  reset(&R);
  const double start = 1.05, step = 0.01;
  double max = lb_max(R.L, s->npe);
  if (!refine(&R, start) && R.avg > 0) {
    int hi = (int)((max / R.avg - start) / step + 1), lo = 0;
    /* on the partial state the first attempt left */
    if (refine(&R, start + step * hi)) {
      while (hi - lo > 1) {
        int k = (hi + lo) / 2;
        reset(&R);
        if (refine(&R, start + step * k)) hi = k;
        else lo = k;
      }
    }
  }
  for (int p = 0; p < s->npe; p++) free(R.objs[p].v);
  free(R.objs);
  free(R.light.v);
  free(R.heavy);
  free(R.L);
  return 0;
}
