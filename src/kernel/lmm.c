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
 * Only the connected components (through shared constraints) touched since the last solve are
 * recomputed: adding a flow on one side of a cluster does not recompute the other side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/kernel.h"

typedef struct { int cnst; int cpos; double coeff; } lmm_elem;   /* a variable's use of a constraint */
typedef struct { int var; int epos; } lmm_ref;                    /* a constraint's list entry */

typedef struct {
  double capacity;
  int fatpipe;
  lmm_ref *refs;
  int n, cap;
  int dirty;          /* in the dirty list */
  unsigned mark;      /* component stamp */
  /* scratch for the solve */
  double remaining, usage;
  int nfree;
} lmm_cnst;

typedef struct {
  double penalty, bound, value, newval;
  void *owner;
  lmm_elem *el;
  int nel, cap;
  int alive, dirty, fixed;
  unsigned mark;
  int next_free;
} lmm_var;

struct lmm_system {
  VEC(lmm_cnst) cnsts;
  VEC(lmm_var) vars;
  int free_var;             /* head of the free list of variable slots, -1 when empty */
  VEC(int) dirty_cnsts;
  VEC(int) dirty_vars;
  unsigned stamp;
  VEC(int) comp_c, comp_v, stack;  /* scratch: one component's constraints and variables */
  uint64_t work;
  uint64_t solves, rounds;
};

lmm_system *lmm_new(void) {
  lmm_system *s = xcalloc(1, sizeof *s);
  s->free_var = -1;
  return s;
}

#include <stdio.h>
void lmm_free(lmm_system *s) {
  if (!s) return;
  if (getenv("PSIM_LMM_STATS")) fprintf(stderr, "lmm: %llu solves, %llu rounds, %llu var-solves\n", (unsigned long long)s->solves, (unsigned long long)s->rounds, (unsigned long long)s->work);
  for (size_t i = 0; i < s->cnsts.len; i++) free(s->cnsts.data[i].refs);
  for (size_t i = 0; i < s->vars.len; i++) free(s->vars.data[i].el);
  VEC_FREE(s->cnsts); VEC_FREE(s->vars);
  VEC_FREE(s->dirty_cnsts); VEC_FREE(s->dirty_vars);
  VEC_FREE(s->comp_c); VEC_FREE(s->comp_v); VEC_FREE(s->stack);
  free(s);
}

int lmm_cnst_new(lmm_system *s, double capacity, int fatpipe) {
  lmm_cnst c = {0};
  c.capacity = capacity;
  c.fatpipe = fatpipe;
  VEC_PUSH(s->cnsts, c);
  return (int)s->cnsts.len - 1;
}

double lmm_cnst_capacity(const lmm_system *s, int c) { return s->cnsts.data[c].capacity; }

static void mark_cnst(lmm_system *s, int c) {
  lmm_cnst *k = &s->cnsts.data[c];
  if (!k->dirty) { k->dirty = 1; VEC_PUSH(s->dirty_cnsts, c); }
}

static void mark_var(lmm_system *s, int v) {
  lmm_var *x = &s->vars.data[v];
  if (!x->dirty) { x->dirty = 1; VEC_PUSH(s->dirty_vars, v); }
}

int lmm_var_new(lmm_system *s, double penalty, double bound, void *owner) {
  int v;
  if (s->free_var >= 0) {
    v = s->free_var;
    s->free_var = s->vars.data[v].next_free;
  } else {
    lmm_var z = {0};
    VEC_PUSH(s->vars, z);
    v = (int)s->vars.len - 1;
  }
  lmm_var *x = &s->vars.data[v];
  lmm_elem *el = x->el;
  int cap = x->cap;
  memset(x, 0, sizeof *x);
  x->el = el; x->cap = cap;        /* keep the element array of the recycled slot */
  x->penalty = penalty;
  x->bound = bound;
  x->owner = owner;
  x->alive = 1;
  x->next_free = -1;
  mark_var(s, v);
  return v;
}

void lmm_expand(lmm_system *s, int c, int v, double coeff) {
  lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++)
    if (x->el[i].cnst == c) {
      /* A route crossing a shared link twice uses it twice; on a FATPIPE link a flow only
       * ever takes its own share, so the larger consumption counts (as SimGrid does). */
      if (s->cnsts.data[c].fatpipe) { if (coeff > x->el[i].coeff) x->el[i].coeff = coeff; }
      else x->el[i].coeff += coeff;
      mark_cnst(s, c);
      return;
    }
  if (x->nel == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 4;
    x->el = xrealloc(x->el, (size_t)x->cap * sizeof *x->el);
  }
  lmm_cnst *k = &s->cnsts.data[c];
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 4;
    k->refs = xrealloc(k->refs, (size_t)k->cap * sizeof *k->refs);
  }
  x->el[x->nel] = (lmm_elem){c, k->n, coeff};
  k->refs[k->n] = (lmm_ref){v, x->nel};
  x->nel++; k->n++;
  mark_cnst(s, c);
}

void lmm_var_set_penalty(lmm_system *s, int v, double penalty) {
  lmm_var *x = &s->vars.data[v];
  x->penalty = penalty;
  mark_var(s, v);
  for (int i = 0; i < x->nel; i++) mark_cnst(s, x->el[i].cnst);
}

void lmm_var_free(lmm_system *s, int v) {
  lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) {
    lmm_cnst *k = &s->cnsts.data[x->el[i].cnst];
    int pos = x->el[i].cpos, last = k->n - 1;
    if (pos != last) {
      k->refs[pos] = k->refs[last];
      s->vars.data[k->refs[pos].var].el[k->refs[pos].epos].cpos = pos;
    }
    k->n--;
    mark_cnst(s, x->el[i].cnst);
  }
  x->nel = 0;
  x->alive = 0;
  x->owner = NULL;
  x->next_free = s->free_var;
  s->free_var = v;
}

double lmm_var_value(const lmm_system *s, int v) { return s->vars.data[v].value; }
uint64_t lmm_work(const lmm_system *s) { return s->work; }

/* Collects the component of constraint/variable `start` (through enabled variables). */
static void collect(lmm_system *s, int start_is_var, int start) {
  s->stack.len = 0;
  if (start_is_var) {
    lmm_var *x = &s->vars.data[start];
    if (!x->alive || x->mark == s->stamp) return;
    x->mark = s->stamp;
    VEC_PUSH(s->comp_v, start);
    if (x->penalty <= 0) return;              /* switched off: touches nothing */
    for (int i = 0; i < x->nel; i++) {
      int c = x->el[i].cnst;
      if (s->cnsts.data[c].mark != s->stamp) {
        s->cnsts.data[c].mark = s->stamp;
        VEC_PUSH(s->stack, c);
      }
    }
  } else {
    if (s->cnsts.data[start].mark == s->stamp) return;
    s->cnsts.data[start].mark = s->stamp;
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
        if (s->cnsts.data[c2].mark != s->stamp) {
          s->cnsts.data[c2].mark = s->stamp;
          VEC_PUSH(s->stack, c2);
        }
      }
    }
  }
}

static void fix_var(lmm_system *s, lmm_var *x, double value, int *nfree) {
  x->fixed = 1;
  x->newval = value;
  (*nfree)--;
  for (int i = 0; i < x->nel; i++) {
    lmm_elem *e = &x->el[i];
    if (e->coeff <= 0) continue;
    lmm_cnst *k = &s->cnsts.data[e->cnst];
    k->nfree--;
    if (k->fatpipe) continue;             /* usage recomputed below */
    k->remaining -= e->coeff * value;
    if (k->remaining < 0) k->remaining = 0;
    k->usage -= e->coeff / x->penalty;
    if (k->nfree == 0 || k->usage < 0) k->usage = 0;
  }
}

static void fatpipe_usage(lmm_system *s, lmm_cnst *k) {
  k->usage = 0;
  for (int i = 0; i < k->n; i++) {
    lmm_var *x = &s->vars.data[k->refs[i].var];
    double a = x->el[k->refs[i].epos].coeff;
    if (x->fixed || x->penalty <= 0 || a <= 0) continue;
    if (a / x->penalty > k->usage) k->usage = a / x->penalty;
  }
}

static void solve_component(lmm_system *s) {
  int nfree = 0;
  for (size_t i = 0; i < s->comp_c.len; i++) {
    lmm_cnst *k = &s->cnsts.data[s->comp_c.data[i]];
    k->remaining = k->capacity;
    k->usage = 0;
    k->nfree = 0;
  }
  for (size_t i = 0; i < s->comp_v.len; i++) {
    lmm_var *x = &s->vars.data[s->comp_v.data[i]];
    x->newval = 0;
    x->fixed = 1;
    if (x->penalty <= 0) continue;
    x->fixed = 0;
    nfree++;
    int constrained = 0;
    for (int j = 0; j < x->nel; j++) {
      lmm_elem *e = &x->el[j];
      if (e->coeff <= 0) continue;
      lmm_cnst *k = &s->cnsts.data[e->cnst];
      constrained = 1;
      k->nfree++;
      if (k->fatpipe) { if (e->coeff / x->penalty > k->usage) k->usage = e->coeff / x->penalty; }
      else k->usage += e->coeff / x->penalty;
    }
    if (!constrained) fix_var(s, x, x->bound > 0 ? x->bound : INFINITY, &nfree);
  }
  s->work += s->comp_v.len;
  const double eps = 1e-12;
  while (nfree > 0) {
    s->rounds++;
    double min_usage = INFINITY, min_bound = INFINITY;
    for (size_t i = 0; i < s->comp_c.len; i++) {
      lmm_cnst *k = &s->cnsts.data[s->comp_c.data[i]];
      if (k->nfree > 0 && k->usage > 0) {
        double r = k->remaining / k->usage;
        if (r < min_usage) min_usage = r;
      }
    }
    for (size_t i = 0; i < s->comp_v.len; i++) {
      lmm_var *x = &s->vars.data[s->comp_v.data[i]];
      if (!x->fixed && x->bound > 0 && x->bound * x->penalty < min_bound) min_bound = x->bound * x->penalty;
    }
    if (min_bound == INFINITY && min_usage == INFINITY) break;
    if (min_bound < min_usage * (1 - eps)) {
      for (size_t i = 0; i < s->comp_v.len; i++) {
        lmm_var *x = &s->vars.data[s->comp_v.data[i]];
        if (!x->fixed && x->bound > 0 && x->bound * x->penalty <= min_bound * (1 + eps))
          fix_var(s, x, x->bound, &nfree);
      }
    } else {
      /* Saturate every constraint at the minimum level; fixing the variables of one leaves
       * the level of the others unchanged, so their order does not matter. */
      s->stack.len = 0;
      for (size_t i = 0; i < s->comp_c.len; i++) {
        lmm_cnst *k = &s->cnsts.data[s->comp_c.data[i]];
        if (k->nfree > 0 && k->usage > 0 && k->remaining / k->usage <= min_usage * (1 + eps))
          VEC_PUSH(s->stack, s->comp_c.data[i]);
      }
      for (size_t i = 0; i < s->stack.len; i++) {
        lmm_cnst *k = &s->cnsts.data[s->stack.data[i]];
        for (int j = 0; j < k->n; j++) {
          lmm_var *x = &s->vars.data[k->refs[j].var];
          if (x->fixed || x->el[k->refs[j].epos].coeff <= 0) continue;
          double v = min_usage / x->penalty;
          if (x->bound > 0 && v > x->bound) v = x->bound;
          fix_var(s, x, v, &nfree);
        }
      }
    }
    for (size_t i = 0; i < s->comp_c.len; i++) {
      lmm_cnst *k = &s->cnsts.data[s->comp_c.data[i]];
      if (k->fatpipe && k->nfree > 0) fatpipe_usage(s, k);
    }
  }
}

void lmm_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (!s->dirty_vars.len && !s->dirty_cnsts.len) return;
  s->stamp++;
  /* Walk the dirty sets; each unvisited seed yields one component. */
  size_t nv = s->dirty_vars.len, nc = s->dirty_cnsts.len;
  for (size_t pass = 0; pass < nv + nc; pass++) {
    int is_var = pass < nv;
    int id = is_var ? s->dirty_vars.data[pass] : s->dirty_cnsts.data[pass - nv];
    s->comp_c.len = s->comp_v.len = 0;
    collect(s, is_var, id);
    if (!s->comp_v.len) continue;
    solve_component(s);
    s->solves++;
    for (size_t i = 0; i < s->comp_v.len; i++) {
      lmm_var *x = &s->vars.data[s->comp_v.data[i]];
      if (x->newval != x->value) {
        x->value = x->newval;
        if (changed && x->owner) changed(ctx, x->owner, x->value);
      }
    }
  }
  for (size_t i = 0; i < nv; i++) s->vars.data[s->dirty_vars.data[i]].dirty = 0;
  for (size_t i = 0; i < nc; i++) s->cnsts.data[s->dirty_cnsts.data[i]].dirty = 0;
  s->dirty_vars.len = s->dirty_cnsts.len = 0;
}
