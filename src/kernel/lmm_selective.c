/* SimGrid's selective update: which part of the sharing problem is re-solved, and how.
 *
 * SimGrid 3.32 (network/optim:Lazy, its default) does not re-solve every component a change
 * touches by looking at the change itself. It keeps a set M of "modified" constraints, grown
 * by a walk at each event, and at the next solve recomputes by progressive filling exactly
 * the variables that use a constraint of M, over the constraints of M only. This file
 * reproduces that rule; the results are SimGrid's, including where they are not the max-min
 * solution of the whole system.
 *
 * The walk ("touching" a constraint c): if c is already in M, nothing happens. Otherwise c
 * joins M, and so does, recursively, every constraint of every switched-on variable using a
 * constraint that joins. Variables are visited once per epoch (an epoch ends at each solve).
 * The events that touch, and the constraint they touch (SimGrid's lmm::System):
 *   - a new variable gets an element on c (System::expand): c itself; a message in its
 *     latency phase has a switched-off variable already, so its route's and reverse route's
 *     links are touched when the message starts;
 *   - a variable is switched on (a message's latency is paid) or freed: its FIRST constraint.
 * Because a walk stops at constraints already in M, a variable switched on after its first
 * constraint joined M in the same epoch (two messages from one host whose latencies end at
 * the same date, typically) does not bring its other constraints in: they may stay out of
 * M, and that variable is then solved against the constraints of M only. The result can
 * exceed a link's capacity or leave some unused, until a later walk covers the link.
 *
 * psim's exact solver (lmm.c) is used whenever it gives the same values as SimGrid's rule:
 * when M is closed (every variable using a constraint of M has all its constraints in M,
 * which makes M a union of connected components whose max-min solution SimGrid computes), no
 * variable in M holds a stale value (one computed from a non-closed M: SimGrid recomputes it
 * from scratch, the local repair would keep it), and every change lies in M. Otherwise M is
 * re-solved as SimGrid does. network/optim:Full (selective off) gives the exact max-min
 * solution at every event, as SimGrid's Full mode does. */
#include <stdio.h>
#include <stdlib.h>

#include "lmm_internal.h"

void lmms_init(lmm_system *s) {
  s->selective = 1;
  s->epoch = 1;
}

void lmm_set_selective(lmm_system *s, int on) {
  if (on) lmms_init(s);
  else s->selective = 0;
}

int lmm_selective(const lmm_system *s) { return s->selective; }

void lmms_free(lmm_system *s) {
  if (s->selective && getenv("PSIM_LMM_STATS"))
    fprintf(stderr, "lmm selective: %llu exact solves, %llu restricted (%llu with an open set)\n",
            (unsigned long long)s->sel_fast, (unsigned long long)s->sel_restricted,
            (unsigned long long)s->sel_open);
  VEC_FREE(s->m_list);
  VEC_FREE(s->late);
  VEC_FREE(s->walk);
}

static int in_m(const lmm_system *s, int c) { return s->cnsts.data[c].mstamp == s->epoch; }

static void join(lmm_system *s, int c) {
  s->cnsts.data[c].mstamp = s->epoch;
  VEC_PUSH(s->m_list, c);
  VEC_PUSH(s->walk, c);
}

void lmm_touch_cnst(lmm_system *s, int c) {
  if (!s->selective || in_m(s, c)) return;
  join(s, c);
  while (s->walk.len) {
    const lmm_cnst *k = &s->cnsts.data[s->walk.data[--s->walk.len]];
    for (int i = 0; i < k->n; i++) {
      int v = k->refs[i].var;
      const lmm_var *x = &s->vars.data[v];
      lmm_var_cold *xc = &s->vcold[v];
      if (x->penalty <= 0 || xc->visit == s->epoch) continue;
      xc->visit = s->epoch;
      if (xc->stale) s->stale_in_m = 1;
      for (int j = 0; j < x->nel; j++)
        if (!in_m(s, x->el[j].cnst)) join(s, x->el[j].cnst);
    }
  }
}

void lmm_touch_var(lmm_system *s, int v) {
  const lmm_var *x = &s->vars.data[v];
  if (!s->selective || x->nel == 0 || x->penalty <= 0) return;
  int c0 = x->el[0].cnst;
  if (in_m(s, c0)) VEC_PUSH(s->late, v);   /* the walk stops here: M may stay open */
  else lmm_touch_cnst(s, c0);
}

/* A variable is freed: SimGrid touches its first constraint while it is still there. */
void lmms_var_gone(lmm_system *s, int v) {
  lmm_var_cold *xc = &s->vcold[v];
  lmm_touch_var(s, v);
  if (xc->stale) { xc->stale = 0; s->nstale--; }
  /* A freed variable left in `late` is skipped by lmms_solve (not alive). */
}

static void set_stale(lmm_system *s, int v, int stale) {
  lmm_var_cold *xc = &s->vcold[v];
  if (xc->stale == stale) return;
  xc->stale = stale;
  if (stale) s->nstale++;
  else s->nstale--;
}

/* Is M open: does a variable switched on this epoch use a constraint outside M? (Variables
 * reached by a walk have all their constraints in M by construction.) */
static int m_is_open(lmm_system *s) {
  for (size_t i = 0; i < s->late.len; i++) {
    int v = s->late.data[i];
    const lmm_var *x = &s->vars.data[v];
    if (!s->vcold[v].alive || x->penalty <= 0) continue;
    for (int j = 0; j < x->nel; j++)
      if (!in_m(s, x->el[j].cnst)) return 1;
  }
  return 0;
}

/* Progressive filling of the variables using M, over M's constraints only (as SimGrid's
 * maxmin_solve on its modified constraint set). */
static void solve_restricted(lmm_system *s, int open, void (*changed)(void *ctx, void *owner, double value),
                             void *ctx) {
  /* Changes outside M are not propagated: the variables there keep values that no longer
   * are the max-min ones. */
  for (size_t i = 0; i < s->dirty_cnsts.len; i++) {
    int c = s->dirty_cnsts.data[i];
    if (in_m(s, c)) continue;
    const lmm_cnst *k = &s->cnsts.data[c];
    for (int j = 0; j < k->n; j++)
      if (s->vars.data[k->refs[j].var].penalty > 0) set_stale(s, k->refs[j].var, 1);
  }
  s->stamp++;
  s->comp_v.len = 0;
  for (size_t i = 0; i < s->m_list.len; i++) {
    lmm_cnst *k = &s->cnsts.data[s->m_list.data[i]];
    k->remaining = k->capacity;
    for (int j = 0; j < k->n; j++) {
      int v = k->refs[j].var;
      lmm_var *x = &s->vars.data[v];
      if (x->mark == s->stamp) continue;
      x->mark = s->stamp;
      VEC_PUSH(s->comp_v, v);
    }
  }
  lmmi_fill(s, s->comp_v.data, s->comp_v.len, s->m_list.data, s->m_list.len);
  s->solves++;
  for (size_t i = 0; i < s->comp_v.len; i++) {
    int v = s->comp_v.data[i];
    lmm_var *x = &s->vars.data[v];
    set_stale(s, v, open && x->penalty > 0);
    if (x->newval != x->value) {
      x->value = x->newval;
      void *owner = s->vcold[v].owner;
      if (changed && owner) changed(ctx, owner, x->value);
    }
  }
  lmmi_clear_dirty(s);
}

void lmms_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (!s->m_list.len && !s->dirty_vars.len && !s->dirty_cnsts.len) return;
  int open = m_is_open(s);
  int outside = 0;
  for (size_t i = 0; i < s->dirty_cnsts.len && !outside; i++) outside = !in_m(s, s->dirty_cnsts.data[i]);
  if (!open && !s->stale_in_m && !outside) {
    s->sel_fast++;
    lmmi_solve_exact(s, changed, ctx);
  } else {
    s->sel_restricted++;
    s->sel_open += (uint64_t)open;
    solve_restricted(s, open, changed, ctx);
  }
  if (++s->epoch == 0) {   /* wrapped: forget every stamp */
    for (size_t i = 0; i < s->cnsts.len; i++) s->cnsts.data[i].mstamp = 0;
    for (size_t i = 0; i < s->vars.len; i++) s->vcold[i].visit = 0;
    s->epoch = 1;
  }
  s->m_list.len = 0;
  s->late.len = 0;
  s->stale_in_m = 0;
}
