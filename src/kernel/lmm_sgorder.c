/* SimGrid's ORDER of its selective update: in which order constraints join the modified set M,
 * in which order the actions of M are handed back to their model after a solve, and M's
 * progressive filling in SimGrid's order of operations (lmmo_solve, below).
 *
 * Which constraints join M is lmm_selective.c's business; the order matters because SimGrid
 * re-inserts every action of M into its model's action heap after each solve, and that heap
 * (a boost pairing heap, stable) pops actions of equal dates in the order of their last
 * insertion. The order of one date's events, and so which rank runs first, follows from it.
 * From SimGrid 3.32's lmm::System (src/kernel/lmm/System.cpp), facts only:
 *   - a constraint's enabled elements form a list; an element goes to its FRONT when its
 *     variable is created switched on (expand) or switched on later (enable_var): the list is
 *     newest first. psim's constraints keep their variables in no particular order, so each variable
 *     carries the stamp of its switching on (lmm_var_walk.ord) and each constraint a list of
 *     (variable, stamp) appended at each switching on: stamps only grow, so the list is
 *     sorted and read from its end is SimGrid's list; an entry whose variable went off or
 *     away (its stamp no longer matches) is skipped, and dropped once they are many;
 *   - touching a constraint c not in M appends c to M, then recursively, for each enabled
 *     variable of c in list order not yet visited in this epoch, for each of its constraints
 *     in the order they were added: a constraint not in M is appended and walked at once
 *     (depth first); the variable is marked visited once its constraints are done (the walk
 *     below emulates the recursion with an explicit stack);
 *   - after a solve, the actions of M are listed constraint by constraint in M's order, each
 *     constraint's enabled elements with a positive consumption in list order, each action
 *     once (System::solve appending to the model's modified action set). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lmm_internal.h"

static lmmo_list *list_of(lmm_system *s, int c) {
  if ((size_t)c >= s->o_nlists) {
    size_t n = s->o_nlists ? s->o_nlists : 64;
    while (n <= (size_t)c) n *= 2;
    s->o_lists = xrealloc(s->o_lists, n * sizeof *s->o_lists);
    for (size_t i = s->o_nlists; i < n; i++) s->o_lists[i] = (lmmo_list){NULL, 0, 0, 0};
    s->o_nlists = n;
  }
  return &s->o_lists[c];
}

/* For reading: a constraint that never had a list has an empty one. */
static const lmmo_list *list_at(const lmm_system *s, int c) {
  static const lmmo_list empty = {NULL, 0, 0, 0};
  return (size_t)c < s->o_nlists ? &s->o_lists[c] : &empty;
}

/* An entry dies in place when its variable goes off or away (lmmo_off): the lists are read at
 * every solve, and testing the entry itself spares a read of the variable per entry. */
static int live(const lmmo_ent *e) { return e->var >= 0; }

static void append(lmm_system *s, int c, int v, int el) {
  lmmo_list *l = list_of(s, c);
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->e = xrealloc(l->e, l->cap * sizeof *l->e);
  }
  const lmm_var *x = &s->vars.data[v];
  l->e[l->n++] = (lmmo_ent){v, el, s->vord[v].ord, x->el[el].coeff / x->penalty};
}

void lmmo_switched_on(lmm_system *s, int v) {
  s->vord[v].ord = ++s->ord_next;
  const lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) append(s, x->el[i].cnst, v, i);
}

/* (A later lmm_expand of the same element changes its weight: lmmo_reweigh.) */
void lmmo_elem_added(lmm_system *s, int v, int el) { append(s, s->vars.data[v].el[el].cnst, v, el); }

/* v's entry in constraint c's list: the entries of a switching-on are appended together, so
 * the list is sorted by stamp but for elements added later (lmmo_elem_added), looked for from
 * the end when the binary search misses. */
static lmmo_ent *find(lmm_system *s, int c, int v) {
  lmmo_list *l = list_of(s, c);
  uint64_t ord = s->vord[v].ord;
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->e[mid].ord < ord) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < l->n && l->e[lo].ord == ord; lo++)
    if (l->e[lo].var == v) return &l->e[lo];
  for (size_t j = l->n; j-- > 0;)
    if (l->e[j].var == v && l->e[j].ord == ord) return &l->e[j];
  return NULL;
}

void lmmo_reweigh(lmm_system *s, int v) {
  const lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) {
    lmmo_ent *e = find(s, x->el[i].cnst, v);
    if (e) e->w = x->el[i].coeff / x->penalty;
  }
}

/* v goes off or away: its entries die in place (var = -1; its stamp is reset too); a list
 * more than half dead is compacted. */
void lmmo_off(lmm_system *s, int v) {
  const lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) {
    lmmo_ent *e = find(s, x->el[i].cnst, v);
    if (e) e->var = -1;
  }
  s->vord[v].ord = 0;
  for (int i = 0; i < x->nel; i++) {
    lmmo_list *l = list_of(s, x->el[i].cnst);
    if (++l->dead * 2 <= l->n) continue;
    size_t k = 0;
    for (size_t j = 0; j < l->n; j++)
      if (live(&l->e[j])) l->e[k++] = l->e[j];
    l->n = k;
    l->dead = 0;
  }
}

void lmmo_free(lmm_system *s) {
  for (size_t i = 0; i < s->o_nlists; i++) free(s->o_lists[i].e);
  free(s->o_lists);
  s->o_lists = NULL;
  s->o_nlists = 0;
  VEC_FREE(s->o_frames);
  VEC_FREE(s->o_light);
  VEC_FREE(s->o_act);
  VEC_FREE(s->o_sat);
  VEC_FREE(s->o_vlist);
}

/* ---- SimGrid's progressive filling, in SimGrid's order ----
 * Under SimGrid's order of ties, dates that SimGrid computes equal must come out equal here
 * too, bit for bit: the rates must be SimGrid's own roundings, not merely the max-min values.
 * lmmo_solve therefore repeats SimGrid 3.32's MaxMin::maxmin_solve (src/kernel/lmm/maxmin.cpp)
 * over M, operation for operation (facts from its source):
 *   - each constraint of M, in M's order, sums its usage (consumption / penalty) over its
 *     enabled elements in list order (newest first), setting their variables' values to 0,
 *     and makes each consuming element active: pushed to the FRONT of the constraint's
 *     active list, which so ends up oldest first; a constraint with remaining capacity and
 *     usage joins the "light" table, in that order;
 *   - a round takes the smallest remaining / usage (ties by exact equality, in light-table
 *     order), lists the not yet listed variables of those constraints' active lists in
 *     order, and fixes them (or, when some of them have a bound under the level, only those
 *     whose bound is within 1e-5 of the smallest, the others waiting for a later round);
 *   - fixing a variable subtracts its consumption from the remaining capacity and its weight
 *     from the usage of each of its constraints in the order they were added, with
 *     SimGrid's precision rule (a remainder under 1e-5, of the bound for capacities, is 0);
 *     a constraint left without usage or capacity leaves the light table, the last entry
 *     taking its place; its elements become inactive;
 *   - the next round's level is found by a new scan of the light table.
 * The variables' values are what SimGrid's rates are, to the bit, provided M, the lists'
 * order and the arithmetic before (remaining work, dates) are SimGrid's too. */

static void sat_update(lmm_system *s, double r, int pos, double *min_usage) {
  if (*min_usage < 0 || *min_usage > r) {
    *min_usage = r;
    s->o_sat.len = 0;
    VEC_PUSH(s->o_sat, pos);
  } else if (*min_usage == r) {
    VEC_PUSH(s->o_sat, pos);
  }
}

/* The variables of this round's saturated constraints, in SimGrid's order, each once. */
static void sat_vars(lmm_system *s) {
  s->istamp++;
  for (size_t i = 0; i < s->o_sat.len; i++) {
    const lmmo_light *L = &s->o_light.data[s->o_sat.data[i]];
    for (int j = 0; j < L->an; j++) {
      int v = s->o_act.data[L->a0 + (size_t)j];
      lmm_var *x = &s->vars.data[v];
      if (x->fixed || x->qmark == s->istamp) continue;   /* inactive, or listed */
      x->qmark = s->istamp;
      VEC_PUSH(s->o_vlist, v);
    }
  }
}

/* Constraint k's usage or capacity is spent: it leaves the light table. */
static void leave_light(lmm_system *s, lmm_cnst *k) {
  int i = k->nfree - 1;
  size_t last = s->o_light.len - 1;
  s->o_light.data[i] = s->o_light.data[last];
  s->cnsts.data[s->o_light.data[i].c].nfree = i + 1;
  s->o_light.len = last;
  k->nfree = 0;
}

/* The value SimGrid's variable holds during the solve: 0 once reset by it, else the last. */
static double sgo_value(const lmm_system *s, const lmm_var *x) {
  return x->mark == s->stamp ? x->newval : x->value;
}

/* The first pass, over M's lists newest first, constraint by constraint in M's order (the
 * order of SimGrid's sums and of its list of actions), finds three things at once:
 *   - each constraint's usage and active list, and the light table (SimGrid's first loop);
 *   - M's variables, each once (comp_v). Under SimGrid's order the walks run at every event,
 *     so a switched-on variable using a constraint of M has its first constraint in M (a walk
 *     that reaches it brings all its constraints; one switched on behind a wall has its first
 *     constraint in M; a new one touches each of its links): the entries of first elements
 *     list each of them once, without a visit of every variable from each of its
 *     constraints. PSIM_LMM_CHECK verifies it. (Variables switched off are in no list: psim's
 *     models create flows after their latency, switched on, and none is switched off.)
 *   - the actions of M in SimGrid's order (o_owners; see the top of this file): the values
 *     play no part in it, so it is done before the rounds.
 * Returns the first round's level. */
static double first_pass(lmm_system *s) {
  s->stamp++;
  s->comp_v.len = 0;
  s->o_owners.len = 0;
  s->o_stamp++;
  s->o_light.len = s->o_act.len = s->o_sat.len = s->o_vlist.len = 0;
  double min_usage = -1;
  for (size_t i = 0; i < s->m_list.len; i++) {
    int c = s->m_list.data[i];
    lmm_cnst *k = &s->cnsts.data[c];
    k->nfree = 0;
    k->remaining = k->capacity;
    k->usage = 0;
    /* SimGrid leaves out a constraint without capacity (psim's platforms have none) */
    int fills = k->remaining > k->capacity * LMM_SG_PRECISION;
    size_t a0 = s->o_act.len;
    const lmmo_list *l = list_at(s, c);
    for (size_t j = l->n; j-- > 0;) {
      const lmmo_ent *e = &l->e[j];
      if (!live(e)) continue;
      if (e->el == 0) {
        s->vars.data[e->var].mark = s->stamp;
        VEC_PUSH(s->comp_v, e->var);
      }
      if (!(e->w > 0)) continue;
      if (fills) {
        if (!k->fatpipe) k->usage += e->w;
        else if (k->usage < e->w) k->usage = e->w;
        VEC_PUSH(s->o_act, e->var);
      }
      lmm_var_ord *xw = &s->vord[e->var];
      if (xw->ostamp == s->o_stamp) continue;
      void *owner = s->vcold[e->var].owner;
      if (!owner) continue;
      xw->ostamp = s->o_stamp;
      VEC_PUSH(s->o_owners, owner);
    }
    /* pushed to the front one after the other: the active list is the reverse */
    for (size_t lo = a0, hi = s->o_act.len; lo + 1 < hi; lo++, hi--) {
      int tmp = s->o_act.data[lo];
      s->o_act.data[lo] = s->o_act.data[hi - 1];
      s->o_act.data[hi - 1] = tmp;
    }
    if (k->usage > 0) {
      lmmo_light L = {c, (int)(s->o_act.len - a0), a0, k->remaining / k->usage};
      VEC_PUSH(s->o_light, L);
      k->nfree = (int)s->o_light.len;
      sat_update(s, L.r, (int)s->o_light.len - 1, &min_usage);
    }
  }
  return min_usage;
}

static void check_first_pass(const lmm_system *s) {
  for (size_t i = 0; i < s->m_list.len; i++) {
    const lmm_cnst *k = &s->cnsts.data[s->m_list.data[i]];
    for (int j = 0; j < k->n; j++) {
      const lmm_var *x = &s->vars.data[k->refs[j].var];
      if (x->penalty > 0 && x->mark != s->stamp) {
        fprintf(stderr, "psim: internal error: variable %d of modified constraint %d missed by first_pass\n",
                k->refs[j].var, s->m_list.data[i]);
        abort();
      }
    }
  }
}

void lmmo_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  double min_usage = first_pass(s);
  if (s->check) check_first_pass(s);
  /* SimGrid set every variable of M's constraints to 0 as it summed their usage; they carry
   * s->stamp, which tells sgo_value them from the others. */
  for (size_t i = 0; i < s->comp_v.len; i++) {
    lmm_var *x = &s->vars.data[s->comp_v.data[i]];
    x->fixed = x->penalty <= 0;
    x->newval = 0;
    x->bneck = BNECK_NONE;
  }
  /* the rounds */
  sat_vars(s);
  while (s->o_vlist.len) {
    double min_bound = -1;
    for (size_t i = 0; i < s->o_vlist.len; i++) {
      const lmm_var *x = &s->vars.data[s->o_vlist.data[i]];
      double b = x->bound * x->penalty;
      if (x->bound > 0 && b < min_usage && (min_bound < 0 || b < min_bound)) min_bound = b;
    }
    for (size_t i = 0; i < s->o_vlist.len; i++) {
      lmm_var *x = &s->vars.data[s->o_vlist.data[i]];
      double value;
      if (min_bound < 0) value = min_usage / x->penalty;
      else if (fabs(min_bound - x->bound * x->penalty) < LMM_SG_PRECISION) value = x->bound;
      else continue;   /* its turn comes in a later round */
      x->newval = value;
      x->fixed = 1;
      for (int j = 0; j < x->nel; j++) {
        const lmm_elem *el = &x->el[j];
        lmm_cnst *k = &s->cnsts.data[el->cnst];
        if (!k->fatpipe) {
          k->remaining = lmmi_sg_update(k->remaining, el->coeff * value, k->capacity * LMM_SG_PRECISION);
          k->usage = lmmi_sg_update(k->usage, el->coeff / x->penalty, LMM_SG_PRECISION);
        } else {
          k->usage = 0;
          const lmmo_list *l = list_at(s, el->cnst);
          for (size_t r = l->n; r-- > 0;) {
            const lmmo_ent *e = &l->e[r];
            if (!live(e)) continue;
            const lmm_var *u = &s->vars.data[e->var];
            if (sgo_value(s, u) > 0) continue;
            if (e->w > k->usage) k->usage = e->w;   /* usage >= 0: consumers only */
          }
        }
        if (!k->nfree) continue;   /* outside the light table */
        if (!(k->usage > LMM_SG_PRECISION) || !(k->remaining > k->capacity * LMM_SG_PRECISION)) leave_light(s, k);
        else s->o_light.data[k->nfree - 1].r = k->remaining / k->usage;
      }
    }
    s->o_vlist.len = 0;
    min_usage = -1;
    s->o_sat.len = 0;
    for (size_t i = 0; i < s->o_light.len; i++) sat_update(s, s->o_light.data[i].r, (int)i, &min_usage);
    s->rounds++;
    sat_vars(s);
  }
  for (size_t i = 0; i < s->o_light.len; i++) s->cnsts.data[s->o_light.data[i].c].nfree = 0;
  s->work += s->comp_v.len;
  s->solves++;
  for (size_t i = 0; i < s->comp_v.len; i++) lmmi_commit(s, s->comp_v.data[i], changed, ctx);
}

/* The next live variable of frame f's list, newest first; -1 at the end. */
static int next_var(lmmo_frame *f) {
  const lmmo_list *l = f->l;
  while (f->pos > 0) {
    const lmmo_ent *e = &l->e[--f->pos];
    if (live(e)) return e->var;
  }
  return -1;
}

static void enter(lmm_system *s, int c) {
  s->cwalk.data[c].m = s->epoch;
  s->cwalk.data[c].vis = 0;
  VEC_PUSH(s->m_list, c);
  const lmmo_list *l = list_at(s, c);   /* no list grows during a walk */
  lmmo_frame f = {c, l->n, -1, 0, l};
  f.v = next_var(&f);
  VEC_PUSH(s->o_frames, f);
}

void lmmo_walk(lmm_system *s, int c) {
  s->o_frames.len = 0;
  enter(s, c);
  while (s->o_frames.len) {
    lmmo_frame *f = &s->o_frames.data[s->o_frames.len - 1];
    if (f->v < 0) {
      s->o_frames.len--;
      continue;
    }
    const lmm_var *x = &s->vars.data[f->v];
    lmm_var_walk *xw = &s->vwalk[f->v];
    /* The variable's constraints from element j on, until one joins M (its frame goes on
     * top: the walk resumes here afterwards, where the variable may have been visited by
     * then, which ends its loop as in SimGrid's). */
    if (s->vvisit[f->v] != s->epoch) {
      int j = f->j, c0 = f->c, entered = 0;
      while (j < x->nel) {
        int c2 = x->el[j++].cnst;
        if (c2 != c0 && s->cwalk.data[c2].m != s->epoch) {
          f->j = j;
          enter(s, c2);   /* f may move */
          entered = 1;
          break;
        }
      }
      if (entered) continue;
      s->vvisit[f->v] = s->epoch;
      if (xw->stale) s->stale_in_m = 1;
    }
    f->j = 0;
    f->v = next_var(f);
  }
}

size_t lmm_modified(const lmm_system *s, void *const **owners) {
  *owners = s->o_owners.data;
  return s->o_owners.len;
}

int lmm_ordered(const lmm_system *s) { return s->selective && s->order; }

void lmm_set_sg_order(lmm_system *s, int on) { s->order = on && s->selective; }

