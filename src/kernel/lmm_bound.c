/* Constraints that cannot bind: an upper bound on each constraint's load, kept up to date as
 * variables come and go, so that the exact solver can leave out constraints that no feasible
 * solution saturates.
 *
 * Why: a cluster's backbone is used by every flow between two hosts, so it ties the whole
 * cluster into one component, although it is usually far from saturated (its flows are limited
 * by the hosts' own links). Every local repair then walks all the backbone's flows. A constraint
 * that provably never saturates is never any variable's bottleneck and never limits progressive
 * filling (its remaining capacity per unit of weight stays above every free variable's bound, or
 * above the level where another constraint saturates), so leaving it out gives bit for bit the
 * same values.
 *
 * The bound: each variable v on constraint c is charged to a "witness", its first constraint d
 * (for a flow, the first link of its route). The variables on c with witness d together load c
 * by at most r_cd x C_d, where r_cd is the largest ratio a_cv / a_dv among them, because their
 * load on d is at most C_d (SHARED d; on a FATPIPE d each of them alone is limited by C_d, so
 * the group counts once per variable). A variable whose witness is c itself contributes
 * a_cv x its bound, or makes the bound infinite when it has none. Switched-off variables count
 * too (conservative). r_cd only grows while the group exists (a decrease would need a rescan).
 *
 * Skipping: a constraint is non-binding when its bound is below its capacity by a margin far
 * above rounding. The solver skips it only when it is also "clean": non-binding continuously
 * since the last exact solve in which it was modified and taken into account, so that no
 * variable still records it as its bottleneck from a time it was binding (lmm.c relies on
 * recorded bottlenecks). Witness capacities are read when a group is created; constraints whose
 * capacity changes later must call lmmb_refresh through their setter and must not be
 * witnesses of others (links are never changed; only hosts may be). */
#include <math.h>
#include <stdlib.h>

#include "lmm_internal.h"

#define NB_MARGIN 1e-6

void lmmb_refresh(lmm_cnst *k) {
  int nb = !k->fatpipe && k->nunb == 0 && k->bsum <= k->capacity * (1 - NB_MARGIN);
  if (!nb) k->clean = 0;
  k->skip = k->clean && nb;
}

static unsigned slot_of(int key, int cap) { return ((unsigned)key * 2654435761u) & (unsigned)(cap - 1); }

static lmm_witness *find(lmm_cnst *k, int d) {
  if (!k->wcap) return NULL;
  for (unsigned i = slot_of(d, k->wcap);; i = (i + 1) & (unsigned)(k->wcap - 1)) {
    if (k->wit[i].cnst == d) return &k->wit[i];
    if (k->wit[i].cnst < 0) return NULL;
  }
}

static lmm_witness *insert(lmm_cnst *k, int d) {
  if (2 * (k->wn + 1) > k->wcap) {   /* grow: load factor at most 1/2 */
    int ocap = k->wcap, ncap = ocap ? 2 * ocap : 8;
    lmm_witness *old = k->wit;
    k->wit = xmalloc((size_t)ncap * sizeof *k->wit);
    for (int i = 0; i < ncap; i++) k->wit[i].cnst = -1;
    k->wcap = ncap;
    for (int i = 0; i < ocap; i++)
      if (old[i].cnst >= 0) {
        unsigned j = slot_of(old[i].cnst, ncap);
        while (k->wit[j].cnst >= 0) j = (j + 1) & (unsigned)(ncap - 1);
        k->wit[j] = old[i];
      }
    free(old);
  }
  unsigned j = slot_of(d, k->wcap);
  while (k->wit[j].cnst >= 0) j = (j + 1) & (unsigned)(k->wcap - 1);
  k->wit[j] = (lmm_witness){d, 0, 0, 0};
  k->wn++;
  return &k->wit[j];
}

/* Linear probing deletion: shift back the entries of the cluster that follows. */
static void erase(lmm_cnst *k, lmm_witness *w) {
  unsigned mask = (unsigned)(k->wcap - 1), i = (unsigned)(w - k->wit);
  k->wit[i].cnst = -1;
  k->wn--;
  for (unsigned j = (i + 1) & mask; k->wit[j].cnst >= 0; j = (j + 1) & mask) {
    unsigned home = slot_of(k->wit[j].cnst, k->wcap);
    /* entry j may move to the hole i when its home slot is not in (i, j] cyclically */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      k->wit[i] = k->wit[j];
      k->wit[j].cnst = -1;
      i = j;
    }
  }
}

/* The load bound one group contributes. */
static double group_bound(const lmm_system *s, const lmm_witness *w) {
  const lmm_cnst *d = &s->cnsts.data[w->cnst];
  return w->ratio * w->cap * (d->fatpipe ? w->count : 1);
}

void lmmb_elem_changed(lmm_system *s, int v, int i, double old_coeff) {
  lmm_var *x = &s->vars.data[v];
  lmm_cnst *k = &s->cnsts.data[x->el[i].cnst];
  double a = x->el[i].coeff;
  if (i == 0) {                      /* its own witness: coeff x bound */
    if (x->bound > 0) k->bsum += (a - old_coeff) * x->bound;
    else if (old_coeff == 0) k->nunb++;
  } else {
    int d = x->el[0].cnst;
    double r = x->el[0].coeff > 0 ? a / x->el[0].coeff : INFINITY;
    lmm_witness *w = find(k, d);
    if (!w) {
      w = insert(k, d);
      w->cap = s->cnsts.data[d].capacity;
    }
    double before = w->count > 0 ? group_bound(s, w) : 0;
    if (old_coeff == 0) w->count++;
    if (r > w->ratio) w->ratio = r;
    k->bsum += group_bound(s, w) - before;
  }
  lmmb_refresh(k);
}

/* Variable v is about to leave its constraints (called before its elements are removed). */
void lmmb_var_gone(lmm_system *s, int v) {
  lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) {
    lmm_cnst *k = &s->cnsts.data[x->el[i].cnst];
    if (i == 0) {
      if (x->bound > 0) k->bsum -= x->el[0].coeff * x->bound;
      else k->nunb--;
    } else {
      lmm_witness *w = find(k, x->el[0].cnst);
      double before = group_bound(s, w);
      if (--w->count == 0) {
        k->bsum -= before;
        erase(k, w);
      } else {
        k->bsum += group_bound(s, w) - before;
      }
    }
    if (k->n == 1) k->bsum = 0;   /* the last one leaves: no rounding residue */
    lmmb_refresh(k);
  }
}
