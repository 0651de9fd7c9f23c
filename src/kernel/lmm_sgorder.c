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

/* A variable off or away has stamp 0 (lmmo_off; a new slot starts at 0): stamps are unique. */
static int live(const lmm_system *s, const lmmo_ent *e) { return s->vwalk[e->var].ord == e->ord; }

static void append(lmm_system *s, int c, int v, double coeff) {
  lmmo_list *l = list_of(s, c);
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->e = xrealloc(l->e, l->cap * sizeof *l->e);
  }
  l->e[l->n++] = (lmmo_ent){v, coeff > 0, s->vwalk[v].ord};
}

void lmmo_switched_on(lmm_system *s, int v) {
  s->vwalk[v].ord = ++s->ord_next;
  const lmm_var *x = &s->vars.data[v];
  for (int i = 0; i < x->nel; i++) append(s, x->el[i].cnst, v, x->el[i].coeff);
}

/* (A later lmm_expand of the same element only adds to its consumption: it stays positive.) */
void lmmo_elem_added(lmm_system *s, int v, int c, double coeff) { append(s, c, v, coeff); }

/* v goes off or away: its entries die (its stamp becomes 0); a list more than half dead is
 * compacted. */
void lmmo_off(lmm_system *s, int v) {
  const lmm_var *x = &s->vars.data[v];
  s->vwalk[v].ord = 0;
  for (int i = 0; i < x->nel; i++) {
    lmmo_list *l = list_of(s, x->el[i].cnst);
    if (++l->dead * 2 <= l->n) continue;
    size_t k = 0;
    for (size_t j = 0; j < l->n; j++)
      if (live(s, &l->e[j])) l->e[k++] = l->e[j];
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
}

/* The next live variable of frame f's list, newest first; -1 at the end. */
static int next_var(lmm_system *s, lmmo_frame *f) {
  const lmmo_list *l = f->l;
  while (f->pos > 0) {
    const lmmo_ent *e = &l->e[--f->pos];
    if (live(s, e)) return e->var;
  }
  return -1;
}

static void enter(lmm_system *s, int c) {
  s->mstamp.data[c] = s->epoch;
  VEC_PUSH(s->m_list, c);
  const lmmo_list *l = list_at(s, c);   /* no list grows during a walk */
  lmmo_frame f = {c, l->n, -1, 0, l};
  f.v = next_var(s, &f);
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
    if (xw->visit != s->epoch) {
      int j = f->j, c0 = f->c, entered = 0;
      while (j < x->nel) {
        int c2 = x->el[j++].cnst;
        if (c2 != c0 && s->mstamp.data[c2] != s->epoch) {
          f->j = j;
          enter(s, c2);   /* f may move */
          entered = 1;
          break;
        }
      }
      if (entered) continue;
      xw->visit = s->epoch;
      if (xw->stale) s->stale_in_m = 1;
    }
    f->j = 0;
    f->v = next_var(s, f);
  }
}

void lmmo_collect(lmm_system *s) {
  s->o_owners.len = 0;
  s->o_stamp++;
  for (size_t i = 0; i < s->m_list.len; i++) {
    const lmmo_list *l = list_at(s, s->m_list.data[i]);
    for (size_t j = l->n; j-- > 0;) {
      const lmmo_ent *e = &l->e[j];
      if (!live(s, e)) continue;
      lmm_var_walk *xw = &s->vwalk[e->var];
      if (xw->ostamp == s->o_stamp || !e->w) continue;
      void *owner = s->vcold[e->var].owner;
      if (!owner) continue;
      xw->ostamp = s->o_stamp;
      VEC_PUSH(s->o_owners, owner);
    }
  }
}

size_t lmm_modified(const lmm_system *s, void *const **owners) {
  *owners = s->o_owners.data;
  return s->o_owners.len;
}

int lmm_ordered(const lmm_system *s) { return s->selective && s->order; }

void lmm_set_sg_order(lmm_system *s, int on) { s->order = on && s->selective; }

