/* The sharing solver: weighted max-min fairness ("LMM" in SimGrid's vocabulary).
 *
 * Every running flow or computation is a variable x_v with a penalty w_v (its weight, larger =
 * smaller share) and an optional bound. Every resource is a constraint with capacity C:
 *   SHARED:  sum_v a_cv * x_v <= C_c        FATPIPE:  a_cv * x_v <= C_c for each v
 * The solution is the weighted max-min fair one, computed by progressive filling: the most
 * constrained resource (smallest remaining capacity per unit of weight, remaining/usage with
 * usage = sum a_cv / w_v) saturates first; its variables get remaining/usage / w_v; they are
 * removed and the others' remaining capacities updated; repeat. A variable whose bound is
 * lower than the share it would get is fixed at its bound first. This is the algorithm SimGrid
 * documents for its default solver, so results match it.
 *
 * Re-solving is incremental, in two tiers:
 *  1. lmm_solve first tries a local repair (solve_incremental below): only the variables that
 *     were added or changed, plus those the change provably affects, are recomputed against the
 *     capacity the others leave; the result is then checked against the optimality conditions
 *     of max-min fairness and accepted only if they hold for every variable that could be
 *     affected. A flow starting or ending in a large cluster typically changes a handful of
 *     other flows' rates, not the whole connected component.
 *  2. Otherwise (the repair grows too large, or meets a FATPIPE constraint), the connected
 *     components (through shared constraints) touched since the last solve are recomputed
 *     from scratch: adding a flow on one side of a cluster does not recompute the other side.
 * Either way the solution is the exact max-min one (up to floating-point rounding). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmm_internal.h"

lmm_system *lmm_new(void) {
  lmm_system *s = xcalloc(1, sizeof *s);
  s->free_var = -1;
  const char *chk = getenv("PSIM_LMM_CHECK");
  s->check = chk && *chk && *chk != '0';
  return s;
}

void lmm_free(lmm_system *s) {
  if (!s) return;
  if (getenv("PSIM_LMM_STATS"))
    fprintf(stderr, "lmm: %llu solves, %llu rounds, %llu var-solves; local repairs: %llu kept (%llu vars), %llu given up\n",
            (unsigned long long)s->solves, (unsigned long long)s->rounds, (unsigned long long)s->work,
            (unsigned long long)s->inc_ok, (unsigned long long)s->inc_vars, (unsigned long long)s->inc_fail);
  if (s->groups && getenv("PSIM_LMM_STATS"))
    fprintf(stderr, "lmm groups: %llu group repairs, %llu tried and left to the usual repair, %llu bounds computed over every member, %llu commits over the list\n",
            (unsigned long long)s->g_fast, (unsigned long long)s->g_fallback, (unsigned long long)s->g_recompute,
            (unsigned long long)s->g_odd);
  for (size_t i = 0; i < s->cnsts.len; i++) { free(s->cnsts.data[i].refs); free(s->cnsts.data[i].wit); }
  for (size_t i = 0; i < s->vars.len; i++) free(s->vars.data[i].el);
  VEC_FREE(s->cnsts); VEC_FREE(s->cmark); VEC_FREE(s->cwalk); VEC_FREE(s->gc);
  free(s->vars.data);
  free(s->vcold);
  free(s->vwalk);
  free(s->vord);
  free(s->vvisit);
  free(s->vgtag);
  VEC_FREE(s->dirty_cnsts); VEC_FREE(s->dirty_vars);
  VEC_FREE(s->comp_c); VEC_FREE(s->comp_v); VEC_FREE(s->stack);
  VEC_FREE(s->inc_v); VEC_FREE(s->inc_c); VEC_FREE(s->inc_add); VEC_FREE(s->inc_chk);
  VEC_FREE(s->g_cand); VEC_FREE(s->g_mem); VEC_FREE(s->g_s0); VEC_FREE(s->g_bounds);
  VEC_FREE(s->fill_c); VEC_FREE(s->fill_r); VEC_FREE(s->fill_b);
  lmms_free(s);
  free(s);
}

int lmm_cnst_new(lmm_system *s, double capacity, int fatpipe) {
  lmm_cnst c = {0};
  c.capacity = capacity;
  c.fatpipe = fatpipe;
  c.clean = 1;          /* no variable yet, so none records it as its bottleneck */
  lmmb_refresh(&c);
  VEC_PUSH(s->cnsts, c);
  VEC_PUSH(s->cmark, 0u);
  VEC_PUSH(s->cwalk, ((lmm_cnst_walk){0}));
  VEC_PUSH(s->gc, ((lmmg_cnst){0}));
  return (int)s->cnsts.len - 1;
}

void lmm_set_groups(lmm_system *s, int on) { s->groups = on; }
uint64_t lmm_group_repairs(const lmm_system *s) { return s->g_fast; }
uint64_t lmm_group_scans(const lmm_system *s) { return s->g_scans; }

double lmm_cnst_capacity(const lmm_system *s, int c) { return s->cnsts.data[c].capacity; }

void lmmi_mark_cnst(lmm_system *s, int c) {
  lmm_cnst *k = &s->cnsts.data[c];
  if (!k->dirty) { k->dirty = 1; VEC_PUSH(s->dirty_cnsts, c); }
}

void lmmi_mark_var(lmm_system *s, int v) {
  lmm_var_cold *x = &s->vcold[v];
  if (!x->dirty) { x->dirty = 1; VEC_PUSH(s->dirty_vars, v); }
}

/* The local repair keeps variables whose bottleneck is not obviously broken; after a capacity
 * change a kept variable could exceed the new capacity (or stay below a larger one), so all
 * of the constraint's variables are marked for re-solving. */
void lmm_cnst_set_capacity(lmm_system *s, int c, double capacity) {
  lmm_cnst *k = &s->cnsts.data[c];
  if (k->capacity == capacity) return;
  k->capacity = capacity;
  lmmb_refresh(k);   /* may become binding (a host is never another constraint's witness) */
  lmmi_mark_cnst(s, c);
  for (int i = 0; i < k->n; i++) lmmi_mark_var(s, k->refs[i].var);
  lmm_touch_cnst(s, c);
}

int lmm_cnst_nvars(const lmm_system *s, int c) { return s->cnsts.data[c].n; }

int lmm_var_new(lmm_system *s, double penalty, double bound, void *owner) {
  int v;
  if (s->free_var >= 0) {
    v = s->free_var;
    s->free_var = s->vcold[v].next_free;
  } else {
    if (s->vars.len == s->vars.cap) {
      size_t ncap = s->vars.cap ? 2 * s->vars.cap : 64;
      lmm_var *n = aligned_alloc(64, ncap * sizeof *n);
      lmm_var_walk *w = aligned_alloc(64, ncap * sizeof *w);
      if (!n || !w) { fprintf(stderr, "psim: out of memory\n"); abort(); }
      if (s->vars.len) memcpy(n, s->vars.data, s->vars.len * sizeof *n);
      if (s->vars.len) memcpy(w, s->vwalk, s->vars.len * sizeof *w);
      free(s->vars.data);
      free(s->vwalk);
      s->vars.data = n;
      s->vwalk = w;
      s->vars.cap = ncap;
      s->vcold = xrealloc(s->vcold, ncap * sizeof *s->vcold);
      s->vord = xrealloc(s->vord, ncap * sizeof *s->vord);
      s->vvisit = xrealloc(s->vvisit, ncap * sizeof *s->vvisit);
      s->vgtag = xrealloc(s->vgtag, ncap * sizeof *s->vgtag);
    }
    v = (int)s->vars.len++;
    memset(&s->vars.data[v], 0, sizeof s->vars.data[v]);
    memset(&s->vcold[v], 0, sizeof s->vcold[v]);
  }
  lmm_var_walk *w = &s->vwalk[v];   /* c[] is read only below nel */
  w->stale = w->hidden = w->nel = 0;
  w->on = !(penalty <= 0);
  s->vord[v] = (lmm_var_ord){0};
  s->vvisit[v] = 0;
  lmm_var *x = &s->vars.data[v];
  lmm_var_cold *xc = &s->vcold[v];
  lmm_elem *el = x->el;
  int cap = xc->cap;
  memset(x, 0, sizeof *x);
  memset(xc, 0, sizeof *xc);
  x->el = el; xc->cap = cap;       /* keep the element array of the recycled slot */
  x->penalty = penalty;
  x->bound = bound;
  xc->owner = owner;
  x->bneck = BNECK_NONE;
  xc->alive = 1;
  xc->next_free = -1;
  s->vgtag[v] = -1;
  if (s->order && penalty > 0) lmmo_switched_on(s, v);   /* SimGrid's order (lmm_sgorder.c) */
  lmmi_mark_var(s, v);
  return v;
}

void lmm_expand(lmm_system *s, int c, int v, double coeff) {
  lmmi_mark_var(s, v);   /* a new consumption: its value must be recomputed */
  lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++)
    if (x->el[i].cnst == c) {
      /* A route crossing a shared link twice uses it twice; on a FATPIPE link a flow only
       * ever takes its own share, so the larger consumption counts (as SimGrid does). */
      double old = x->el[i].coeff;
      if (s->cnsts.data[c].fatpipe) { if (coeff > x->el[i].coeff) x->el[i].coeff = coeff; }
      else x->el[i].coeff += coeff;
      s->cnsts.data[c].refs[x->el[i].cpos].coeff = x->el[i].coeff;
      lmmb_elem_changed(s, v, i, old);
      if (s->order && x->penalty > 0) lmmo_reweigh(s, v);   /* SimGrid's order */
      lmmi_mark_cnst(s, c);
      return;
    }
  lmm_var_cold *xc = &s->vcold[v];
  if (x->nel == xc->cap) {
    xc->cap = xc->cap ? 2 * xc->cap : 4;
    x->el = xrealloc(x->el, (size_t)xc->cap * sizeof *x->el);
  }
  lmm_cnst *k = &s->cnsts.data[c];
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 4;
    k->refs = xrealloc(k->refs, (size_t)k->cap * sizeof *k->refs);
    s->cwalk.data[c].refs = k->refs;
  }
  x->el[x->nel] = (lmm_elem){c, k->n, coeff};
  k->refs[k->n] = (lmm_ref){v, x->nel, coeff};
  lmm_var_walk *w = &s->vwalk[v];
  if (x->nel < LMM_HOPS) w->c[x->nel] = c;
  w->nel = ++x->nel; s->cwalk.data[c].n = ++k->n;
  lmms_count(s, v, c, x->penalty > 0, 1);
  lmmb_elem_changed(s, v, x->nel - 1, 0);
  if (s->order && x->penalty > 0) lmmo_elem_added(s, v, x->nel - 1);   /* SimGrid's order */
  lmmi_mark_cnst(s, c);
}

void lmm_var_set_penalty(lmm_system *s, int v, double penalty) {
  if (s->selective && s->vwalk[v].hidden) lmms_unhide_var(s, v);
  lmm_var *x = &s->vars.data[v];
  if (s->order && x->penalty > 0 && penalty <= 0) lmmo_off(s, v);   /* SimGrid's order */
  int on = x->penalty <= 0 && penalty > 0;
  int reweigh = !on && x->penalty > 0 && penalty > 0 && penalty != x->penalty;
  if (on || (x->penalty > 0 && penalty <= 0))   /* its entries join or leave the walk's counts */
    for (int i = 0; i < x->nel; i++) lmms_count(s, v, x->el[i].cnst, 1, on ? 1 : -1);
  x->penalty = penalty;
  s->vwalk[v].on = !(penalty <= 0);
  if (s->order && on) lmmo_switched_on(s, v);
  else if (s->order && reweigh) lmmo_reweigh(s, v);
  lmmi_mark_var(s, v);
  for (int i = 0; i < x->nel; i++) lmmi_mark_cnst(s, x->el[i].cnst);
}

void lmm_var_free(lmm_system *s, int v) {
  if (s->selective) lmms_var_gone(s, v);
  lmmb_var_gone(s, v);
  lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) {
    lmm_cnst *k = &s->cnsts.data[x->el[i].cnst];
    int pos = x->el[i].cpos, last = k->n - 1;
    if (pos != last) {
      k->refs[pos] = k->refs[last];
      s->vars.data[k->refs[pos].var].el[k->refs[pos].epos].cpos = pos;
    }
    s->cwalk.data[x->el[i].cnst].n = --k->n;
    lmms_count(s, v, x->el[i].cnst, x->penalty > 0, -1);
    lmmi_mark_cnst(s, x->el[i].cnst);
  }
  x->nel = 0;
  lmm_var_cold *xc = &s->vcold[v];
  xc->alive = 0;
  xc->owner = NULL;
  s->vgtag[v] = -1;
  xc->next_free = s->free_var;
  s->free_var = v;
}

double lmm_var_value(const lmm_system *s, int v) { return s->vars.data[v].value; }
int lmm_var_bneck(const lmm_system *s, int v) { int b = s->vars.data[v].bneck; return b >= 0 ? b : -1; }
uint64_t lmm_work(const lmm_system *s) { return s->work; }

/* Collects the component of constraint/variable `start` (through enabled variables). */
static void collect(lmm_system *s, int start_is_var, int start) {
  s->stack.len = 0;
  if (start_is_var) {
    lmm_var *x = &s->vars.data[start];
    if (!s->vcold[start].alive || x->mark == s->stamp) return;
    x->mark = s->stamp;
    VEC_PUSH(s->comp_v, start);
    if (x->penalty <= 0) return;              /* switched off: touches nothing */
    for (int i = 0; i < x->nel; i++) {
      int c = x->el[i].cnst;
      if (lmmi_skip(s, &s->cnsts.data[c])) continue;
      if (s->cmark.data[c] != s->stamp) {
        s->cmark.data[c] = s->stamp;
        VEC_PUSH(s->stack, c);
      }
    }
  } else {
    if (s->cmark.data[start] == s->stamp || lmmi_skip(s, &s->cnsts.data[start])) return;
    s->cmark.data[start] = s->stamp;
    VEC_PUSH(s->stack, start);
  }
  while (s->stack.len) {
    int c = s->stack.data[--s->stack.len];
    VEC_PUSH(s->comp_c, c);
    lmm_cnst *k = &s->cnsts.data[c];
    for (int i = 0; i < k->n; i++) {
      int v = k->refs[i].var;
      lmm_var *x = &s->vars.data[v];
      if (x->mark == s->stamp) continue;
      x->mark = s->stamp;
      VEC_PUSH(s->comp_v, v);
      if (x->penalty <= 0) continue;
      for (int j = 0; j < x->nel; j++) {
        int c2 = x->el[j].cnst;
        if (lmmi_skip(s, &s->cnsts.data[c2])) continue;
        if (s->cmark.data[c2] != s->stamp) {
          s->cmark.data[c2] = s->stamp;
          VEC_PUSH(s->stack, c2);
        }
      }
    }
  }
}

/* Fixes x at value and takes its share off its constraints. Also adds the share to the load
 * and top level of the constraints (the local repair's check reads them; a full solve does
 * not): one pass over the elements instead of a second one after the fill. */
static void fix_var(lmm_system *s, lmm_var *x, double value, int *nfree) {
  x->fixed = 1;
  x->newval = value;
  (*nfree)--;
  double lvl = value * x->penalty;
  /* In locals: the int stores below (nfree) could alias the system's flags for the compiler,
   * which then reloaded them at every element. */
  const int add_loads = s->add_loads, skip_on = s->skip_on, nel = x->nel;
  lmm_cnst *cn = s->cnsts.data;
  const lmm_elem *el = x->el;
  for (int i = 0; i < nel; i++) {
    const lmm_elem *e = &el[i];
    if (e->coeff <= 0) continue;
    lmm_cnst *k = &cn[e->cnst];
    if (k->skip && skip_on) continue;   /* lmmi_skip */
    if (add_loads) {
      k->load += e->coeff * value;
      if (lvl > k->maxl) k->maxl = lvl;
    }
    k->nfree--;
    if (k->fatpipe) continue;             /* usage recomputed below */
    k->remaining -= e->coeff * value;
    if (k->remaining < 0) k->remaining = 0;
    k->usage -= e->coeff / x->penalty;
    if (k->nfree == 0 || k->usage < 0) k->usage = 0;
  }
}

/* A variable taking part in the current fill (component or repair set) and not fixed yet. */
static int is_free(const lmm_system *s, const lmm_var *x) { return x->mark == s->stamp && !x->fixed; }

static void fatpipe_usage(lmm_system *s, lmm_cnst *k) {
  k->usage = 0;
  for (int i = 0; i < k->n; i++) {
    lmm_var *x = &s->vars.data[k->refs[i].var];
    double a = k->refs[i].coeff;
    if (!is_free(s, x) || x->penalty <= 0 || a <= 0) continue;
    if (a / x->penalty > k->usage) k->usage = a / x->penalty;
  }
}

/* Progressive filling of the variables vs (all marked with the current stamp) over the
 * constraints cs, whose `remaining` capacity the caller has set: the full capacity when vs is
 * a whole component, what the other (kept) variables leave when it is a repair set. Sets each
 * variable's newval and bneck (what stopped it: the constraint that saturated, or its bound).
 *
 * Each round scans only the constraints that can still saturate (unfixed users, positive
 * usage: once a constraint fails this it fails it for good, since nfree and a SHARED usage only
 * decrease) and the free variables that have a bound, both kept in cs's and vs's order so that
 * the constraints saturate, and the remaining capacities are reduced, in the same order as a
 * scan of everything: the values are the same to the last bit. A repair's T holds many
 * constraints used by kept variables only: they drop out before the first round
 * (docs/performance.md, "Leaner solver rounds"). */
void lmmi_fill(lmm_system *s, const int *vs, size_t nvs, const int *cs, size_t ncs) {
  int nfree = 0;
  for (size_t i = 0; i < ncs; i++) {
    lmm_cnst *k = &s->cnsts.data[cs[i]];
    k->usage = 0;
    k->nfree = 0;
  }
  s->fill_b.len = 0;
  for (size_t i = 0; i < nvs; i++) {
    lmm_var *x = &s->vars.data[vs[i]];
    x->newval = 0;
    x->fixed = 1;
    x->bneck = BNECK_NONE;
    if (x->penalty <= 0) continue;
    x->fixed = 0;
    nfree++;
    int constrained = 0;
    for (int j = 0; j < x->nel; j++) {
      lmm_elem *e = &x->el[j];
      if (e->coeff <= 0) continue;
      lmm_cnst *k = &s->cnsts.data[e->cnst];
      if (lmmi_skip(s, k)) continue;
      constrained = 1;
      k->nfree++;
      if (k->fatpipe) { if (e->coeff / x->penalty > k->usage) k->usage = e->coeff / x->penalty; }
      else k->usage += e->coeff / x->penalty;
    }
    if (!constrained) {
      fix_var(s, x, x->bound > 0 ? x->bound : INFINITY, &nfree);
      x->bneck = BNECK_BOUND;
    } else if (x->bound > 0) {
      VEC_PUSH(s->fill_b, vs[i]);
    }
  }
  if (s->g_on) {   /* a group repair's group: one more variable, on its constraint only */
    lmm_cnst *k = &s->cnsts.data[s->g_c];
    k->nfree++;
    k->usage += s->g_use;
    nfree++;
    s->g_free = 1;
  }
  s->work += nvs;
  /* The active constraints, and their remaining / usage of this round. */
  s->fill_c.len = 0;
  for (size_t i = 0; i < ncs; i++) {
    const lmm_cnst *k = &s->cnsts.data[cs[i]];
    if (k->nfree > 0 && k->usage > 0) VEC_PUSH(s->fill_c, cs[i]);
  }
  VEC_RESERVE(s->fill_r, s->fill_c.len);
  const double eps = 1e-12;
  for (int first = 1; nfree > 0; first = 0) {
    s->rounds++;
    int *act = s->fill_c.data;
    double *ratio = s->fill_r.data;
    double min_usage = INFINITY, min_bound = INFINITY;
    /* Drops the constraints that cannot saturate any more (after the first round: the last
     * round fixed variables) and computes the others' ratio, in one pass. */
    size_t nact = 0;
    for (size_t i = 0; i < s->fill_c.len; i++) {
      lmm_cnst *k = &s->cnsts.data[act[i]];
      if (!first) {
        if (k->fatpipe && k->nfree > 0) fatpipe_usage(s, k);
        if (!(k->nfree > 0 && k->usage > 0)) continue;
      }
      act[nact] = act[i];
      double r = k->remaining / k->usage;
      ratio[nact++] = r;
      if (r < min_usage) min_usage = r;
    }
    s->fill_c.len = nact;
    size_t nb = 0;     /* drop the fixed variables from the bounded list */
    for (size_t i = 0; i < s->fill_b.len; i++) {
      int v = s->fill_b.data[i];
      const lmm_var *x = &s->vars.data[v];
      if (x->fixed) continue;
      s->fill_b.data[nb++] = v;
      if (x->bound * x->penalty < min_bound) min_bound = x->bound * x->penalty;
    }
    s->fill_b.len = nb;
    if (min_bound == INFINITY && min_usage == INFINITY) break;
    if (min_bound < min_usage * (1 - eps)) {
      for (size_t i = 0; i < nb; i++) {
        lmm_var *x = &s->vars.data[s->fill_b.data[i]];
        if (!x->fixed && x->bound * x->penalty <= min_bound * (1 + eps)) {
          fix_var(s, x, x->bound, &nfree);
          x->bneck = BNECK_BOUND;
        }
      }
    } else {
      /* Saturate every constraint at the minimum level; fixing the variables of one leaves
       * the level of the others unchanged, so their order does not matter. */
      s->stack.len = 0;
      for (size_t i = 0; i < nact; i++)
        if (ratio[i] <= min_usage * (1 + eps)) VEC_PUSH(s->stack, act[i]);
      if (lmmg_last_round(s, min_usage, nfree, cs, ncs)) break;
      for (size_t i = 0; i < s->stack.len; i++) {
        lmm_cnst *k = &s->cnsts.data[s->stack.data[i]];
        if (s->g_on && s->g_free && s->stack.data[i] == s->g_c) { lmmg_fix_group(s, k, min_usage); nfree--; }
        for (int j = 0; j < k->n; j++) {
          lmm_var *x = &s->vars.data[k->refs[j].var];
          if (!is_free(s, x) || k->refs[j].coeff <= 0) continue;
          double v = min_usage / x->penalty;
          int capped = x->bound > 0 && v > x->bound;
          if (capped) v = x->bound;
          fix_var(s, x, v, &nfree);
          x->bneck = capped ? BNECK_BOUND : s->stack.data[i];
        }
      }
    }
  }
}

/* Full solve of the component just collected into comp_v / comp_c. */
static void solve_component(lmm_system *s) {
  for (size_t i = 0; i < s->comp_c.len; i++) {
    lmm_cnst *k = &s->cnsts.data[s->comp_c.data[i]];
    k->remaining = k->capacity;
  }
  lmmi_fill(s, s->comp_v.data, s->comp_v.len, s->comp_c.data, s->comp_c.len);
}

/* ---- Local repair ----
 * The weighted max-min fair allocation (levels l_v = x_v w_v) is the unique feasible one in
 * which every variable has a bottleneck: it is at its bound, or it uses a saturated constraint
 * (load >= capacity) on which no other variable has a higher level. (Raising it would need
 * lowering a variable at the same or a lower level: that is the fairness of progressive
 * filling, whose result satisfies the condition by construction, each variable being fixed by
 * the constraint that saturated or its bound: recorded in var.bneck.)
 *
 * After a change (variables added or switched, variables removed from constraints), the old
 * values of the untouched variables are kept and a set S of variables is re-solved by
 * progressive filling over the capacity the others leave. The result is feasible by
 * construction; it is the max-min one iff every variable still has a bottleneck. Only the
 * variables of S, and those using a constraint of T (the constraints of S and the modified
 * ones, whose load or top level may have moved) and whose recorded bottleneck is in T, can
 * have lost theirs: a variable bottlenecked elsewhere sees the same constraint, with the same
 * loads and levels, as before. Those are checked; the failures join S (for a variable of S,
 * the kept variables that out-level it on its constraints, which must come down), and S is
 * solved again. It gives up (the caller then solves the full components) when S grows past a
 * bound or a FATPIPE constraint is involved (its sharing does not follow the condition above).
 *
 * The tolerance INC_EPS only absorbs rounding: loads are sums of a few products and levels
 * quotients, exact to ~1e-15 relative. */
#define INC_MAX_VARS 4096

/* A variable's value in the solution being checked: its new value in S, in a group repair
 * the group's new value for its members (lmm_group.c), its value otherwise. */
static double tentative(const lmm_system *s, const lmm_var *x) {
  if (x->mark == s->stamp) return x->newval;
  if (s->g_on && lmmg_member(s, x)) return s->g_nv;
  return x->value;
}

/* Load and top level of constraint k in the tentative solution (cached per checking round:
 * cnst_info below). */
static __attribute__((noinline)) void cnst_info_compute(lmm_system *s, lmm_cnst *k) {
  k->info_stamp = s->istamp;
  double load = 0, maxl = 0;
  for (int i = 0; i < k->n; i++) {
    const lmm_var *x = &s->vars.data[k->refs[i].var];
    double a = k->refs[i].coeff;
    if (a <= 0 || x->penalty <= 0) continue;
    double v = tentative(s, x);
    load += a * v;
    if (v * x->penalty > maxl) maxl = v * x->penalty;
  }
  k->load = load;
  k->maxl = maxl;
}

/* Inlined: most calls find the values of this round (T's constraints, or one seen before). */
static inline const lmm_cnst *cnst_info(lmm_system *s, int c) {
  lmm_cnst *k = &s->cnsts.data[c];
  if (k->info_stamp != s->istamp) cnst_info_compute(s, k);
  return k;
}

/* Is c a bottleneck for a variable at level lvl: saturated, nobody above lvl? */
static inline int is_bottleneck(lmm_system *s, int c, double lvl) {
  if (s->cnsts.data[c].fatpipe) return 0;   /* conservative: the variable gets re-solved */
  const lmm_cnst *k = cnst_info(s, c);
  return k->load >= k->capacity * (1 - INC_EPS) && lvl >= k->maxl * (1 - INC_EPS);
}

/* Does variable v have a bottleneck in the tentative solution? Records the one found. */
int lmmi_has_bottleneck(lmm_system *s, int v) {
  lmm_var *x = &s->vars.data[v];
  if (x->penalty <= 0) return 1;                       /* off: 0, nothing to check */
  double val = tentative(s, x);
  if (x->bound > 0 && val >= x->bound * (1 - INC_EPS)) { x->bneck = BNECK_BOUND; return 1; }
  double lvl = val * x->penalty;
  if (x->bneck >= 0 && is_bottleneck(s, x->bneck, lvl)) return 1;
  int constrained = 0;
  for (int i = 0; i < x->nel; i++) {
    if (x->el[i].coeff <= 0 || lmmi_skip(s, &s->cnsts.data[x->el[i].cnst])) continue;
    constrained = 1;
    if (is_bottleneck(s, x->el[i].cnst, lvl)) { x->bneck = x->el[i].cnst; return 1; }
  }
  return !constrained && val == (x->bound > 0 ? x->bound : INFINITY);
}

/* Puts constraint c in T; 0 if that is beyond the repair (FATPIPE). */
static inline int add_touched(lmm_system *s, int c) {
  lmm_cnst *k = &s->cnsts.data[c];
  if (s->cmark.data[c] == s->stamp || lmmi_skip(s, k)) return 1;
  if (k->fatpipe) return 0;
  s->cmark.data[c] = s->stamp;
  VEC_PUSH(s->inc_c, c);
  return 1;
}

int lmmi_add_touched(lmm_system *s, int c) { return add_touched(s, c); }

/* Queues kept variable v for S (once per round). */
static inline void queue_var(lmm_system *s, int v) {
  lmm_var *x = &s->vars.data[v];
  if (x->mark == s->stamp || x->qmark == s->istamp) return;
  x->qmark = s->istamp;
  VEC_PUSH(s->inc_add, v);
}

/* Tries the local repair of the pending changes; 1 when done (values reported), 0 when the
 * caller must solve the full components (nothing was changed then). */
static int solve_incremental(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  s->stamp++;
  s->inc_v.len = s->inc_c.len = 0;
  for (size_t i = 0; i < s->dirty_vars.len; i++) {
    int v = s->dirty_vars.data[i];
    lmm_var *x = &s->vars.data[v];
    if (!s->vcold[v].alive || x->mark == s->stamp) continue;
    x->mark = s->stamp;
    VEC_PUSH(s->inc_v, v);
  }
  /* T's modified constraints, and with groups those that could hold one: lmmg_repair's
   * candidates, LMMG_GROUP_MIN variables or more, unless they are skipping candidacies after
   * scans that found no group, or a group whose repair failed where none ever succeeded
   * (lmm_group.c's backoff, counted down here). */
  s->g_cand.len = 0;
  for (size_t i = 0; i < s->dirty_cnsts.len; i++) {
    int c = s->dirty_cnsts.data[i];
    size_t in_t = s->inc_c.len;
    if (!add_touched(s, c)) return 0;
    if (!s->groups || s->inc_c.len == in_t || s->cnsts.data[c].n < LMMG_GROUP_MIN) continue;   /* not added now */
    lmmg_cnst *g = &s->gc.data[c];
    if (g->wait) g->wait--;
    else VEC_PUSH(s->g_cand, c);
  }
  if (s->g_cand.len && lmmg_repair(s, changed, ctx)) return 1;   /* the group as one variable */
  lmmg_seed(s);     /* whole bottleneck groups of saturated constraints (lmm_group.c) */
  size_t expanded = 0;   /* S's first `expanded` variables have their constraints in T */
  for (;;) {
    if (s->inc_v.len > INC_MAX_VARS) return 0;
    for (; expanded < s->inc_v.len; expanded++) {
      const lmm_var *x = &s->vars.data[s->inc_v.data[expanded]];
      if (x->penalty <= 0) continue;
      for (int j = 0; j < x->nel; j++)
        if (x->el[j].coeff > 0 && !add_touched(s, x->el[j].cnst)) return 0;
    }
    /* One pass over T: what the kept variables use of each constraint (the rest is for S)
     * and their top level, neither of which moves in this round; and the kept variables whose
     * recorded bottleneck is in T, to be checked. */
    s->istamp++;
    s->inc_chk.len = 0;
    /* In locals: the loop's unsigned stores (cmark) could alias the stamps for the compiler,
     * which then reloaded them at every entry; no variable is created here. */
    const unsigned stamp = s->stamp, istamp = s->istamp;
    const unsigned *tmark = s->cmark.data;
    lmm_var *vars = s->vars.data;
    for (size_t i = 0; i < s->inc_c.len; i++) {
      lmm_cnst *k = &s->cnsts.data[s->inc_c.data[i]];
      double used = 0, maxl = 0;
      const lmm_ref *refs = k->refs;
      const int n = k->n;
      for (int j = 0; j < n; j++) {
        lmm_var *u = &vars[refs[j].var];
        double a = refs[j].coeff;
        if (u->mark == stamp || a <= 0 || u->penalty <= 0) continue;
        used += a * u->value;
        if (u->value * u->penalty > maxl) maxl = u->value * u->penalty;
        if (u->cmark == istamp || u->bneck == BNECK_BOUND) continue;   /* bound: unchanged */
        if (u->bneck >= 0 && tmark[u->bneck] != stamp) continue;       /* untouched */
        u->cmark = istamp;
        VEC_PUSH(s->inc_chk, refs[j].var);
      }
      k->remaining = k->capacity - used;
      if (k->remaining < 0) k->remaining = 0;
      k->load = used;
      k->maxl = maxl;
      k->info_stamp = s->istamp;
    }
    /* fill adds S's share to T's load and level as it fixes S's variables (fix_var,
     * lmmg_last_round); those it leaves unfixed are at 0, which adds nothing. Large repairs
     * leave the loads to cnst_info instead (lmm_group.c). */
    int lazy = lmmg_lazy(s);
    s->add_loads = !lazy;
    lmmi_fill(s, s->inc_v.data, s->inc_v.len, s->inc_c.data, s->inc_c.len);
    s->add_loads = 0;
    if (lazy) s->istamp++;   /* the cached loads (the kept part only) are dropped */

    /* Check the bottleneck condition where it may have been broken. */
    s->inc_add.len = 0;
    int bad = 0;
    for (size_t i = 0; i < s->inc_v.len; i++) {
      int v = s->inc_v.data[i];
      if (lmmi_has_bottleneck(s, v)) continue;
      bad = 1;
      /* Kept variables above it on its constraints must come down. A constraint already
       * scanned in this round for a level at or below lvl has queued all of them (in the same
       * order as a new scan would: the others are queued already). */
      const lmm_var *x = &s->vars.data[v];
      double lvl = x->newval * x->penalty;
      for (int j = 0; j < x->nel; j++) {
        if (x->el[j].coeff <= 0) continue;
        lmm_cnst *k = &s->cnsts.data[x->el[j].cnst];
        if (lmmi_skip(s, k)) continue;
        if (k->qstamp == s->istamp && lvl >= k->qlvl) continue;
        k->qstamp = s->istamp;
        k->qlvl = lvl;
        for (int r = 0; r < k->n; r++) {
          const lmm_var *u = &s->vars.data[k->refs[r].var];
          if (u->mark != s->stamp && u->penalty > 0 && k->refs[r].coeff > 0 &&
              !(lvl >= u->value * u->penalty * (1 - INC_EPS)))
            queue_var(s, k->refs[r].var);
        }
      }
    }
    for (size_t i = 0; i < s->inc_chk.len; i++) {
      int v = s->inc_chk.data[i];
      /* Already queued (so bad is set): its check could not change S, and the bottleneck
       * it would record is reset when S is filled. */
      if (s->vars.data[v].qmark == s->istamp) continue;
      if (!lmmi_has_bottleneck(s, v)) { bad = 1; queue_var(s, v); }
    }
    if (!bad) break;
    if (!s->inc_add.len) return 0;     /* no way forward: let the full solve decide */
    for (size_t i = 0; i < s->inc_add.len; i++) {
      int v = s->inc_add.data[i];
      s->vars.data[v].mark = s->stamp;
      VEC_PUSH(s->inc_v, v);
    }
  }
  s->inc_ok++;
  s->inc_vars += s->inc_v.len;
  for (size_t i = 0; i < s->inc_v.len; i++) lmmi_commit(s, s->inc_v.data[i], changed, ctx);
  return 1;
}

/* PSIM_LMM_CHECK: re-solves from scratch the components of the last repair and aborts when a
 * value differs (a debugging aid; the values stay those of the repair). */
static void check_repair(lmm_system *s) {
  size_t nv = s->inc_v.len, nc = s->inc_c.len;
  int *seeds = xmalloc((nv + nc + 1) * sizeof *seeds);
  memcpy(seeds, s->inc_v.data, nv * sizeof *seeds);
  memcpy(seeds + nv, s->inc_c.data, nc * sizeof *seeds);
  s->stamp++;
  for (size_t i = 0; i < nv + nc; i++) {
    s->comp_c.len = s->comp_v.len = 0;
    collect(s, i < nv, seeds[i]);
    if (!s->comp_v.len) continue;
    solve_component(s);
    for (size_t j = 0; j < s->comp_v.len; j++) {
      const lmm_var *x = &s->vars.data[s->comp_v.data[j]];
      if (!(fabs(x->newval - x->value) <= 1e-9 * fabs(x->newval)) && x->newval != x->value) {
        fprintf(stderr, "lmm check: variable %d is %.17g after the local repair, %.17g solved in full\n",
                s->comp_v.data[j], x->value, x->newval);
        abort();
      }
    }
  }
  free(seeds);
}

/* The exact max-min solution of every component touched since the last solve. */
void lmmi_solve_exact(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (!s->dirty_vars.len && !s->dirty_cnsts.len) return;
  s->skip_on = s->nstale == 0;
  size_t nv = s->dirty_vars.len, nc = s->dirty_cnsts.len;
  uint64_t group_repairs = s->g_fast;
  if (s->groups) {   /* the clock of the engine's groups (lmmg_cnst.until) */
    s->g_solve++;
    s->g_join = s->g_always || s->g_until > s->g_solve;
  }
  if (solve_incremental(s, changed, ctx)) {
    if (s->check) check_repair(s);
    if (s->g_fast == group_repairs) lmmg_forget_touched(s, s->inc_c.data, s->inc_c.len);
  } else {
    s->inc_fail++;
    s->stamp++;
    /* Walk the dirty sets; each unvisited seed yields one component. */
    for (size_t pass = 0; pass < nv + nc; pass++) {
      int is_var = pass < nv;
      int id = is_var ? s->dirty_vars.data[pass] : s->dirty_cnsts.data[pass - nv];
      s->comp_c.len = s->comp_v.len = 0;
      collect(s, is_var, id);
      if (!s->comp_v.len) continue;
      solve_component(s);
      s->solves++;
      for (size_t i = 0; i < s->comp_v.len; i++) lmmi_commit(s, s->comp_v.data[i], changed, ctx);
      lmmg_forget_touched(s, s->comp_c.data, s->comp_c.len);
    }
  }
  /* Every variable of a modified constraint has been checked or re-solved against it: a
   * non-binding one is clean from now on (lmm_bound.c). */
  for (size_t i = 0; i < s->dirty_cnsts.len; i++) {
    lmm_cnst *k = &s->cnsts.data[s->dirty_cnsts.data[i]];
    k->clean = 1;
    lmmb_refresh(k);
  }
  lmmi_clear_dirty(s);
}

void lmmi_clear_dirty(lmm_system *s) {
  for (size_t i = 0; i < s->dirty_vars.len; i++) s->vcold[s->dirty_vars.data[i]].dirty = 0;
  for (size_t i = 0; i < s->dirty_cnsts.len; i++) s->cnsts.data[s->dirty_cnsts.data[i]].dirty = 0;
  s->dirty_vars.len = s->dirty_cnsts.len = 0;
}

void lmm_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (s->selective) lmms_solve(s, changed, ctx);
  else lmmi_solve_exact(s, changed, ctx);
}
