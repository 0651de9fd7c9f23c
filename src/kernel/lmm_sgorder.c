/* SimGrid's ORDER of its selective update: in which order constraints join the modified set M,
 * and in which order the actions of M are handed back to their model after a solve.
 *
 * Which constraints join M is lmm_selective.c's business; the order matters because SimGrid
 * re-inserts every action of M into its model's action heap after each solve, and that heap
 * (a boost pairing heap, stable) pops actions of equal dates in the order of their last
 * insertion. The order of one date's events, and so which rank runs first, follows from it.
 * From SimGrid 3.32's lmm::System (src/kernel/lmm/System.cpp), facts only:
 *   - a constraint's enabled elements form a list; an element goes to its FRONT when its
 *     variable is created switched on (expand) or switched on later (enable_var): the list is
 *     newest first. psim keeps constraints' variables in no particular order, so each variable
 *     carries the stamp of its switching on (lmm_var_cold.ord) and the list is the variables
 *     sorted by decreasing stamp;
 *   - touching a constraint c not in M appends c to M, then recursively, for each enabled
 *     variable of c in list order not yet visited in this epoch, for each of its constraints
 *     in the order they were added: a constraint not in M is appended and walked at once
 *     (depth first); the variable is marked visited once its constraints are done (the walk
 *     below emulates the recursion with an explicit stack);
 *   - after a solve, the actions of M are listed constraint by constraint in M's order, each
 *     constraint's enabled elements with a positive consumption in list order, each action
 *     once (System::solve appending to the model's modified action set). */
#include <stdlib.h>

#include "lmm_internal.h"

static int by_ord_desc(const void *a, const void *b) {
  uint64_t x = ((const lmmo_ord *)a)->ord, y = ((const lmmo_ord *)b)->ord;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Appends constraint c's enabled variables (positive consumption only if `weighted`) to
 * s->o_vars, newest first; returns how many. */
static size_t enabled_newest_first(lmm_system *s, int c, int weighted) {
  const lmm_cnst *k = &s->cnsts.data[c];
  s->o_sort.len = 0;
  for (int i = 0; i < k->n; i++) {
    int v = k->refs[i].var;
    if (s->vars.data[v].penalty <= 0 || (weighted && !(k->refs[i].coeff > 0))) continue;
    lmmo_ord e = {s->vcold[v].ord, v};
    VEC_PUSH(s->o_sort, e);
  }
  if (s->o_sort.len > 1) qsort(s->o_sort.data, s->o_sort.len, sizeof *s->o_sort.data, by_ord_desc);
  for (size_t i = 0; i < s->o_sort.len; i++) VEC_PUSH(s->o_vars, s->o_sort.data[i].var);
  return s->o_sort.len;
}

static void enter(lmm_system *s, int c) {
  s->cnsts.data[c].mstamp = s->epoch;
  VEC_PUSH(s->m_list, c);
  size_t start = s->o_vars.len;
  size_t n = enabled_newest_first(s, c, 0);
  lmmo_frame f = {c, start, n, 0, 0};
  VEC_PUSH(s->o_frames, f);
}

void lmmo_walk(lmm_system *s, int c) {
  s->o_vars.len = 0;
  s->o_frames.len = 0;
  enter(s, c);
  while (s->o_frames.len) {
    lmmo_frame *f = &s->o_frames.data[s->o_frames.len - 1];
    if (f->i == f->n) {
      s->o_vars.len = f->start;
      s->o_frames.len--;
      continue;
    }
    int v = s->o_vars.data[f->start + f->i];
    const lmm_var *x = &s->vars.data[v];
    lmm_var_cold *xc = &s->vcold[v];
    if (f->j < x->nel && xc->visit != s->epoch) {
      int c2 = x->el[f->j++].cnst;
      if (c2 != f->c && s->cnsts.data[c2].mstamp != s->epoch) enter(s, c2);   /* f may move */
      continue;
    }
    xc->visit = s->epoch;
    if (xc->stale) s->stale_in_m = 1;
    f->i++;
    f->j = 0;
  }
}

void lmmo_collect(lmm_system *s) {
  s->o_owners.len = 0;
  s->o_stamp++;
  for (size_t i = 0; i < s->m_list.len; i++) {
    s->o_vars.len = 0;
    size_t n = enabled_newest_first(s, s->m_list.data[i], 1);
    for (size_t j = 0; j < n; j++) {
      lmm_var_cold *xc = &s->vcold[s->o_vars.data[j]];
      if (xc->ostamp == s->o_stamp || !xc->owner) continue;
      xc->ostamp = s->o_stamp;
      VEC_PUSH(s->o_owners, xc->owner);
    }
  }
}

size_t lmm_modified(const lmm_system *s, void *const **owners) {
  *owners = s->o_owners.data;
  return s->o_owners.len;
}

int lmm_ordered(const lmm_system *s) { return s->selective && s->order; }
