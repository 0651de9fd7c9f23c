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
 * In psim's default order of ties, its exact solver (lmm.c) is used whenever it gives the same
 * values as SimGrid's rule (under SimGrid's order, lmmo_solve fills every M, lmm_sgorder.c):
 * when M is closed (every variable using a constraint of M has all its constraints in M,
 * which makes M a union of connected components whose max-min solution SimGrid computes), no
 * variable in M holds a stale value (one computed from a non-closed M: SimGrid recomputes it
 * from scratch, the local repair would keep it), and every change lies in M; and also when M
 * is open but nothing else is special, with the late variables' elements outside M hidden
 * (see "Open sets solved exactly" below). Otherwise M is re-solved as SimGrid does.
 *
 * The walks cost a pass over the touched components at every event. They can only find
 * something when an epoch switches on two flows or more (the first switch-on of an epoch
 * meets no walk before it: M can only be open after a second one) or when stale values exist;
 * the engine says at the start of each epoch how many flows it switches on (lmm_walks), and
 * other epochs skip the walks and take the exact path directly. Within an epoch, once its
 * flows are switched on (they come first) with none behind a wall, the walks stop too
 * (lmm_enables_done). network/optim:Full (selective off) gives the exact max-min
 * solution at every event, as SimGrid's Full mode does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lmm_internal.h"

void lmms_init(lmm_system *s) {
  s->selective = 1;
  s->walks = 1;
  s->order = 0;   /* SimGrid's order of M (lmm_sgorder.c): lmm_set_sg_order */
  s->epoch = 1;
  /* Visits of an earlier selective period would count as this epoch's. */
  for (size_t i = 0; i < s->vars.len; i++) s->vvisit[i] = 0;
  for (size_t i = 0; i < s->cwalk.len; i++) s->cwalk.data[i].m = 0;
  s->sg_always = getenv("PSIM_LMM_SG") != NULL;
  s->no_hide = getenv("PSIM_LMM_NOHIDE") != NULL;
}

void lmm_set_selective(lmm_system *s, int on) {
  if (on) lmms_init(s);
  else s->selective = s->order = 0;
}

int lmm_selective(const lmm_system *s) { return s->selective; }

uint64_t lmm_hidden_solves(const lmm_system *s) { return s->sel_hidden; }

void lmms_free(lmm_system *s) {
  if (s->selective && getenv("PSIM_LMM_STATS"))
    fprintf(stderr, "lmm selective: %llu exact solves (%llu of an open set), %llu restricted (%llu with an open set)\n",
            (unsigned long long)s->sel_fast, (unsigned long long)s->sel_hidden,
            (unsigned long long)s->sel_restricted, (unsigned long long)s->sel_open);
  VEC_FREE(s->m_list);
  VEC_FREE(s->late);
  VEC_FREE(s->walk);
  VEC_FREE(s->hidden);
  lmmo_free(s);
  VEC_FREE(s->o_owners);
}

static int in_m(const lmm_system *s, int c) { return s->cwalk.data[c].m == s->epoch; }

void lmm_walks(lmm_system *s, int enables) {
  /* The order needs M at every solve; hidden elements must be found when their variable is
   * reached (unhide_visited). */
  s->walks = enables >= 2 || s->nstale > 0 || s->hidden.len > 0 || s->order;
}

void lmm_enables_done(lmm_system *s) {
  /* No flow switched on behind a wall and no stale value: the walks of the frees and the new
   * messages that follow could only confirm a closed M. */
  if (s->walks && !s->late.len && !s->nstale && !s->hidden.len && !s->order) s->walks = 0;
}

int lmm_touching(const lmm_system *s) { return s->selective && s->walks; }

/* The walk from c (not in M). noskip, a constant where it is inlined (the tests' reference
 * walk, lmm_system.walk_noskip): every list read, from the constraint's own record, and each
 * variable's own penalty and elements. */
static inline __attribute__((always_inline)) void walk_from(lmm_system *s, int c, const int noskip) {
  /* A constraint joins M once an epoch, so M's list and the walk's stack never hold more than
   * every constraint: reserved once here, a join is two stores (it was a call with two
   * capacity checks, a third of the walk on the 512-host fat tree). In locals: the stores of
   * the loop (visit, m, vis: unsigned and int) could alias the epoch and the lengths for the
   * compiler, which then reloaded them at every element. No constraint or variable is created
   * during a walk, so the arrays stay where they are. */
  VEC_RESERVE(s->m_list, s->m_list.len + s->cnsts.len);
  VEC_RESERVE(s->walk, s->cnsts.len);
  int *mlist = s->m_list.data, *stack = s->walk.data;
  size_t nm = s->m_list.len, ns = 0;
  const unsigned ep = s->epoch;
  lmm_cnst_walk *cw = s->cwalk.data;
  lmm_var_walk *vw = s->vwalk;
  unsigned *visit = s->vvisit;
  const lmm_var *vars = s->vars.data;
#define WALK_JOIN(c_) do { cw[c_].m = ep; cw[c_].vis = 0; mlist[nm++] = (c_); stack[ns++] = (c_); } while (0)
  WALK_JOIN(c);
  while (ns) {
    int kc = stack[--ns];
    if (cw[kc].vis == cw[kc].on && !noskip) continue;   /* every entry skippable */
    /* The list from the walk's record (lmm_cnst_walk), the reference from the constraint. */
    const int n = noskip ? s->cnsts.data[kc].n : cw[kc].n;
    s->walk_read += (uint64_t)n;
    const lmm_ref *refs = noskip ? s->cnsts.data[kc].refs : cw[kc].refs;
    for (int i = 0; i < n; i++) {
      int v = refs[i].var;
      if (visit[v] == ep) continue;
      lmm_var_walk *xc = &vw[v];
      /* The variable's walk record holds what the walk needs (lmm_var_walk); the tests'
       * reference walk (noskip) reads the variable itself. */
      if (noskip ? vars[v].penalty <= 0 : !xc->on) continue;
      visit[v] = ep;
      if (xc->stale) s->stale_in_m = 1;
      const int nel = xc->nel;
      if (nel <= LMM_HOPS && !noskip) {
        const int *cs = xc->c;
        for (int j = 0; j < nel; j++) {
          int c2 = cs[j];
          if (cw[c2].m != ep) WALK_JOIN(c2);   /* vis from 0 */
          cw[c2].vis++;
        }
      } else {
        const lmm_var *x = &vars[v];
        const lmm_elem *el = x->el;
        for (int j = 0; j < x->nel; j++) {
          int c2 = el[j].cnst;
          if (cw[c2].m != ep) WALK_JOIN(c2);
          cw[c2].vis++;
        }
      }
    }
  }
#undef WALK_JOIN
  s->m_list.len = nm;
  s->walk.len = 0;
}

void lmm_touch_cnst(lmm_system *s, int c) {
  if (!s->selective || !s->walks || in_m(s, c)) return;
  if (s->order) lmmo_walk(s, c);
  else if (s->walk_noskip) walk_from(s, c, 1);
  else walk_from(s, c, 0);
}

void lmm_touch_var(lmm_system *s, int v) {
  const lmm_var *x = &s->vars.data[v];
  if (!s->selective || !s->walks || x->nel == 0 || x->penalty <= 0) return;
  int c0 = x->el[0].cnst;
  if (in_m(s, c0)) VEC_PUSH(s->late, v);   /* the walk stops here: M may stay open */
  else lmm_touch_cnst(s, c0);
}

/* A variable is freed: SimGrid touches its first constraint while it is still there. */
void lmms_var_gone(lmm_system *s, int v) {
  lmm_var_walk *xc = &s->vwalk[v];
  /* Only the walk: a freed variable is no candidate for an open M (and its slot may be
   * reused by a new variable before the solve). */
  const lmm_var *x = &s->vars.data[v];
  if (x->nel > 0 && x->penalty > 0) lmm_touch_cnst(s, x->el[0].cnst);
  if (s->order && x->penalty > 0) lmmo_off(s, v);   /* after the walk, which still sees v */
  if (xc->stale) { xc->stale = 0; s->nstale--; }
  if (xc->hidden) lmms_unhide_var(s, v);   /* its slot may be reused */
}

static void set_stale(lmm_system *s, int v, int stale) {
  lmm_var_walk *xc = &s->vwalk[v];
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


/* ---- SimGrid's progressive filling, with its precision rules ----
 * As exact max-min filling, plus (SimGrid's precision/work-amount, 1e-5): a constraint whose
 * remaining capacity falls below 1e-5 of its capacity, or whose remaining usage falls below
 * 1e-5, counts as saturated and drops out (its unfixed variables are then set by their other
 * constraints, or stay at 0); ties between constraints are exact; a variable's bound is taken
 * when within 1e-5 of the smallest one. */

static void sg_fill(lmm_system *s, const int *vs, size_t nvs, const int *cs, size_t ncs) {
  s->inc_c.len = 0;
  for (size_t i = 0; i < nvs; i++) {
    lmm_var *x = &s->vars.data[vs[i]];
    x->newval = 0;
    x->fixed = x->penalty <= 0;
    x->bneck = BNECK_NONE;
  }
  for (size_t i = 0; i < ncs; i++) {
    lmm_cnst *k = &s->cnsts.data[cs[i]];
    k->remaining = k->capacity;
    k->usage = 0;
    k->nfree = 0;
    if (!(k->capacity > k->capacity * LMM_SG_PRECISION)) continue;
    for (int j = 0; j < k->n; j++) {
      const lmm_var *x = &s->vars.data[k->refs[j].var];
      double a = k->refs[j].coeff;
      if (x->penalty <= 0 || a <= 0) continue;
      if (!k->fatpipe) k->usage += a / x->penalty;
      else if (a / x->penalty > k->usage) k->usage = a / x->penalty;
    }
    if (k->usage > 0) { k->nfree = 1; VEC_PUSH(s->inc_c, cs[i]); }   /* nfree: in the light list */
  }
  VEC_RESERVE(s->fill_r, s->inc_c.len);
  for (;;) {
    /* Drops the constraints the last round saturated (nfree 0) and computes the others'
     * ratio once for the two scans below, in one pass (the same divisions as before). */
    double *ratio = s->fill_r.data, min_usage = -1;
    size_t n = 0;
    for (size_t i = 0; i < s->inc_c.len; i++) {
      const lmm_cnst *k = &s->cnsts.data[s->inc_c.data[i]];
      if (!k->nfree) continue;
      s->inc_c.data[n] = s->inc_c.data[i];
      double r = k->remaining / k->usage;
      ratio[n++] = r;
      if (min_usage < 0 || r < min_usage) min_usage = r;
    }
    s->inc_c.len = n;
    if (!n) break;
    s->rounds++;
    /* the variables of the saturated constraints, once each */
    s->istamp++;
    s->inc_add.len = 0;
    double min_bound = -1;
    for (size_t i = 0; i < s->inc_c.len; i++) {
      if (ratio[i] != min_usage) continue;
      const lmm_cnst *k = &s->cnsts.data[s->inc_c.data[i]];
      for (int j = 0; j < k->n; j++) {
        int v = k->refs[j].var;
        lmm_var *x = &s->vars.data[v];
        if (x->fixed || k->refs[j].coeff <= 0 || x->qmark == s->istamp) continue;
        x->qmark = s->istamp;
        VEC_PUSH(s->inc_add, v);
        if (x->bound > 0 && x->bound * x->penalty < min_usage &&
            (min_bound < 0 || x->bound * x->penalty < min_bound))
          min_bound = x->bound * x->penalty;
      }
    }
    if (!s->inc_add.len) break;   /* cannot happen: a light constraint has unfixed users */
    for (size_t i = 0; i < s->inc_add.len; i++) {
      lmm_var *x = &s->vars.data[s->inc_add.data[i]];
      double value;
      if (min_bound < 0) {
        value = min_usage / x->penalty;
        x->bneck = BNECK_NONE;
      } else if (fabs(min_bound - x->bound * x->penalty) < LMM_SG_PRECISION) {
        value = x->bound;
        x->bneck = BNECK_BOUND;
      } else {
        continue;   /* its turn comes in a later round */
      }
      x->newval = value;
      x->fixed = 1;
      for (int j = 0; j < x->nel; j++) {
        const lmm_elem *e = &x->el[j];
        lmm_cnst *k = &s->cnsts.data[e->cnst];
        if (!k->nfree) continue;   /* not in the light list (or outside M) */
        if (!k->fatpipe) {
          k->remaining = lmmi_sg_update(k->remaining, e->coeff * value, k->capacity * LMM_SG_PRECISION);
          k->usage = lmmi_sg_update(k->usage, e->coeff / x->penalty, LMM_SG_PRECISION);
        } else {
          k->usage = 0;
          for (int r = 0; r < k->n; r++) {
            const lmm_var *u = &s->vars.data[k->refs[r].var];
            double a = k->refs[r].coeff;
            if (u->fixed || u->penalty <= 0 || a <= 0) continue;
            if (a / u->penalty > k->usage) k->usage = a / u->penalty;
          }
        }
        if (!(k->usage > LMM_SG_PRECISION) || !(k->remaining > k->capacity * LMM_SG_PRECISION)) k->nfree = 0;
      }
    }
  }
  for (size_t i = 0; i < ncs; i++) s->cnsts.data[cs[i]].nfree = 0;
  s->work += nvs;
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
    const lmm_cnst *k = &s->cnsts.data[s->m_list.data[i]];
    for (int j = 0; j < k->n; j++) {
      int v = k->refs[j].var;
      lmm_var *x = &s->vars.data[v];
      if (x->mark == s->stamp) continue;
      x->mark = s->stamp;
      VEC_PUSH(s->comp_v, v);
    }
  }
  sg_fill(s, s->comp_v.data, s->comp_v.len, s->m_list.data, s->m_list.len);
  s->solves++;
  for (size_t i = 0; i < s->comp_v.len; i++) {
    int v = s->comp_v.data[i];
    lmm_var *x = &s->vars.data[v];
    set_stale(s, v, open && x->penalty > 0);
    lmmi_commit(s, v, changed, ctx);
  }
  lmmi_clear_dirty(s);
}

/* ---- Open sets solved exactly ----
 * An open M (a variable switched on behind a wall uses constraints outside M) is solved by
 * SimGrid from scratch over M's constraints: the late variable competes on its constraints
 * in M only, and the variables outside M keep their values. When nothing else is special
 * (no stale value in M, no other change outside M), that is the max-min solution of the
 * system in which the late variable's elements outside M are left out, "hidden": M is then a
 * union of components (only the hidden elements tied it to the rest), its variables held the
 * max-min values of the same system before the change, and the variables outside M keep
 * theirs. So the exact solver (a local repair) computes it, with those elements' coefficients
 * set to 0, instead of a progressive filling of all M. The elements stay hidden, and the
 * values stay the max-min ones of the system without them, until SimGrid re-solves them: when
 * a walk reaches their variable (all its constraints join M, and SimGrid's solve of M
 * restores the variable's full consumption). Walks go on at every event while elements are
 * hidden. A variable switched again, or freed, gets its elements back at once (its
 * constraints are modified anyway). The load bounds of lmm_bound.c keep counting hidden
 * elements: a bound that is too high is still a bound. */
static void restore(lmm_system *s, const lmm_hidden *h) {
  lmm_var *x = &s->vars.data[h->var];
  lmm_elem *e = &x->el[h->el];
  e->coeff = h->coeff;
  s->cnsts.data[e->cnst].refs[e->cpos].coeff = h->coeff;
  s->vwalk[h->var].hidden--;
  lmmg_forget(s);   /* a load the group repair's bounds did not count (lmm_group.c) */
}

void lmms_unhide_var(lmm_system *s, int v) {
  size_t n = 0;
  for (size_t i = 0; i < s->hidden.len; i++) {
    const lmm_hidden *h = &s->hidden.data[i];
    if (h->var == v) restore(s, h);
    else s->hidden.data[n++] = *h;
  }
  s->hidden.len = n;
}

/* The elements of the variables a walk reached in this epoch come back, as changes. */
static void unhide_visited(lmm_system *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->hidden.len; i++) {
    const lmm_hidden *h = &s->hidden.data[i];
    if (s->vvisit[h->var] != s->epoch) { s->hidden.data[n++] = *h; continue; }
    restore(s, h);
    lmmi_mark_var(s, h->var);
    lmmi_mark_cnst(s, s->vars.data[h->var].el[h->el].cnst);
  }
  s->hidden.len = n;
}

/* Hides the late variables' elements outside M, if every modified constraint outside M is
 * one of theirs (and M holds no stale value); 0, changing nothing, otherwise. The candidates
 * are listed at the end of `hidden` first, and dropped again when the set does not qualify. */
static int hide_open(lmm_system *s) {
  if (s->stale_in_m || s->sg_always) return 0;
  size_t base = s->hidden.len;
  for (size_t i = 0; i < s->late.len; i++) {
    int v = s->late.data[i];
    const lmm_var *x = &s->vars.data[v];
    if (!s->vcold[v].alive || x->penalty <= 0) continue;
    for (int j = 0; j < x->nel; j++)
      if (!in_m(s, x->el[j].cnst) && x->el[j].coeff > 0) VEC_PUSH(s->hidden, ((lmm_hidden){v, j, x->el[j].coeff}));
  }
  for (size_t i = 0; i < s->dirty_cnsts.len; i++) {
    int c = s->dirty_cnsts.data[i];
    if (in_m(s, c)) continue;
    size_t j = base;
    while (j < s->hidden.len && s->vars.data[s->hidden.data[j].var].el[s->hidden.data[j].el].cnst != c) j++;
    if (j == s->hidden.len) { s->hidden.len = base; return 0; }
  }
  for (size_t i = base; i < s->hidden.len; i++) {
    const lmm_hidden *h = &s->hidden.data[i];
    lmm_elem *e = &s->vars.data[h->var].el[h->el];
    s->vwalk[h->var].hidden++;
    lmmg_forget(s);
    e->coeff = 0;
    s->cnsts.data[e->cnst].refs[e->cpos].coeff = 0;
  }
  return 1;
}

/* Forgets M: every stamp of this epoch. */
static void next_epoch(lmm_system *s) {
  if (++s->epoch == 0) {   /* wrapped: forget every stamp */
    for (size_t i = 0; i < s->cwalk.len; i++) s->cwalk.data[i].m = 0;
    for (size_t i = 0; i < s->vars.len; i++) s->vvisit[i] = 0;
    s->epoch = 1;
  }
  s->m_list.len = 0;
  s->late.len = 0;
  s->stale_in_m = 0;
}

void lmms_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (!s->walks) {   /* nothing to find: see lmm_walks */
    s->sel_fast++;
    lmmi_solve_exact(s, changed, ctx);
    if (s->m_list.len || s->late.len) next_epoch(s);   /* walks stopped in this epoch */
    return;
  }
  s->o_owners.len = 0;
  if (!s->m_list.len && !s->dirty_vars.len && !s->dirty_cnsts.len) return;
  if (s->hidden.len) unhide_visited(s);
  int open = m_is_open(s);
  int outside = 0;
  for (size_t i = 0; i < s->dirty_cnsts.len && !outside; i++) outside = !in_m(s, s->dirty_cnsts.data[i]);
  if (s->order) {
    /* Under SimGrid's order of ties, every M is filled as SimGrid fills it, operation for
     * operation (lmmo_solve), closed ones too: the exact solver's values are the same max-min
     * solution but rounded otherwise, and a last-bit difference splits dates that SimGrid
     * sees as ties, whose order this mode exists to follow (docs/performance.md, "Open sets
     * under SimGrid's order of ties" and "Every modified set filled in SimGrid's order"). */
    s->sel_restricted++;
    s->sel_open += (uint64_t)open;
    lmmg_forget(s);
    lmmo_solve(s, changed, ctx);
    lmmi_clear_dirty(s);
  } else if (!open && !s->stale_in_m && !outside && !s->sg_always) {
    s->sel_fast++;
    lmmi_solve_exact(s, changed, ctx);
  } else if (open && !s->no_hide && hide_open(s)) {
    s->sel_fast++;
    s->sel_hidden++;
    lmmi_solve_exact(s, changed, ctx);
  } else {
    s->sel_restricted++;
    s->sel_open += (uint64_t)open;
    lmmg_forget(s);   /* values a group repair does not know of (lmm_group.c) */
    solve_restricted(s, open, changed, ctx);
  }
  next_epoch(s);
}
