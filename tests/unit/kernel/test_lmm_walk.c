/* SimGrid's modified-set walk (lmm_selective.c, lmm_touch_cnst) skips a constraint's list
 * when its counts (lmm_cnst_walk: entries of switched-on variables, and of those visited
 * since it joined M) say every entry is skippable: the modified set and the solver's values
 * must be those of the walk that reads every list, with fewer entries read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/kernel.h"
#include "kernel/lmm_internal.h"

static int tag[16];

static int in_m(const lmm_system *s, int c) { return s->cwalk.data[c].m == s->epoch; }

static int flow(lmm_system *s, double penalty, int a, int b, int t) {
  int v = lmm_var_new(s, penalty, -1, &tag[t]);
  lmm_expand(s, a, v, 1);
  lmm_expand(s, b, v, 1);
  return v;
}

/* A backbone B (capacity 10) and host links L0..L3 (capacity 4). v0, v1, v2 on Li and B,
 * switched on; w on L1 and B, switched off (a message in its latency phase).
 * Epoch 1, touch L0: L0's list (v0) is read, v0 brings B in; B's list (v0 v1 v2 w: 4
 * entries, 1 off, 1 visited) is read, v1 and v2 bring L1 and L2; then L2 (v2, visited) and
 * L1 (v1 visited, w off) are all skippable: 1 + 4 = 5 entries read, 8 without the skip.
 * Then v2 ends and w is switched on in the same epoch, and z (L3, B) starts: the walk from
 * L3 reads L3's list (1); B is in M already.
 * Epoch 2, touch B: B's list (v0 v1 w z: 4) is read; L3 (z), L1 (v1 w) and L0 (v0) are
 * then covered: 4 entries, 8 without the skip. The values (SimGrid's restricted solve or
 * the exact one) are the same: epoch 2 solves the closed M {B, L0, L1, L3} exactly: v0, v1,
 * w and z share B's 10 but L1 holds v1 and w at 2 each, so v0 and z get (10 - 4) / 2 = 3,
 * below L0's and L3's 4. */
static void skips_covered_lists(void **st) {
  (void)st;
  for (int noskip = 0; noskip <= 1; noskip++) {
    lmm_system *s = lmm_new();
    lmm_set_selective(s, 1);
    s->walk_noskip = noskip;
    int B = lmm_cnst_new(s, 10, 0), L[4];
    for (int i = 0; i < 4; i++) L[i] = lmm_cnst_new(s, 4, 0);
    int v0 = flow(s, 1, L[0], B, 0), v1 = flow(s, 1, L[1], B, 1), v2 = flow(s, 1, L[2], B, 2);
    int w = flow(s, 0, L[1], B, 3);
    lmm_solve(s, NULL, NULL);
    lmm_walks(s, 2);
    s->walk_read = 0;
    lmm_touch_cnst(s, L[0]);
    assert_int_equal(s->walk_read, noskip ? 8 : 5);
    assert_int_equal(s->m_list.len, 4);
    for (int i = 0; i < 3; i++) assert_true(in_m(s, L[i]));
    assert_false(in_m(s, L[3]));
    lmm_var_free(s, v2);            /* touches L2: in M already */
    lmm_var_set_penalty(s, w, 1);
    lmm_touch_var(s, w);            /* L1 in M: late, but every link of w is in M */
    int z = flow(s, 1, L[3], B, 4);
    s->walk_read = 0;
    lmm_touch_cnst(s, L[3]);
    assert_int_equal(s->walk_read, 1);
    assert_int_equal(s->m_list.len, 5);
    lmm_solve(s, NULL, NULL);
    lmm_walks(s, 2);
    s->walk_read = 0;
    lmm_touch_cnst(s, B);
    assert_int_equal(s->walk_read, noskip ? 8 : 4);
    assert_int_equal(s->m_list.len, 4);
    assert_false(in_m(s, L[2]));
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, v1) - 2) < 1e-12);
    assert_true(fabs(lmm_var_value(s, w) - 2) < 1e-12);
    assert_true(fabs(lmm_var_value(s, v0) - 3) < 1e-12);
    assert_true(fabs(lmm_var_value(s, z) - 3) < 1e-12);
    lmm_free(s);
  }
}

static unsigned long long rs = 88172645463325252ull;
static unsigned rnd(unsigned n) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (unsigned)(rs % n); }

/* Constraint c's list now: entries of switched-on variables, and of those visited in this
 * epoch (the walk skips the others). */
static void count(const lmm_system *s, int c, int *on, int *vis) {
  const lmm_cnst *k = &s->cnsts.data[c];
  *on = *vis = 0;
  for (int i = 0; i < k->n; i++) {
    int v = k->refs[i].var;
    if (s->vars.data[v].penalty <= 0) continue;
    (*on)++;
    *vis += s->vvisit[v] == s->epoch;
  }
}

/* Both systems' modified sets are the same, in the same order; then operation `kind` on flow
 * i moves its state (0 none, 1 off, 2 on) as the random tests below do. */
static void same_m_next(lmm_system *const *sys, int *state, int i, int kind) {
  assert_int_equal(sys[0]->m_list.len, sys[1]->m_list.len);
  for (size_t j = 0; j < sys[0]->m_list.len; j++)
    assert_int_equal(sys[0]->m_list.data[j], sys[1]->m_list.data[j]);
  if (state[i] == 0) state[i] = kind < 2 ? 2 : 1;
  else if (kind == 0) state[i] = 0;
  else if (kind == 1 || state[i] == 1) state[i] = state[i] == 1 ? 2 : 1;
}

/* Solves both systems: every flow gets the same value, to the last bit. */
static void solve_same(lmm_system *const *sys, const int *var, const int *state, int nv) {
  for (int k = 0; k < 2; k++) lmm_solve(sys[k], NULL, NULL);
  for (int i = 0; i < nv; i++)
    if (state[i]) assert_true(lmm_var_value(sys[0], var[i]) == lmm_var_value(sys[1], var[i]));
}

/* Random epochs of switch-ons, switch-offs, ends, new flows (enabled at once or announced)
 * and re-expansions on two systems, one walking every list: the same modified sets in the
 * same order, the same values to the last bit, and counts that never claim more than what is
 * skippable (on exact everywhere, vis at most the visited entries in M, after every
 * operation). */
static void same_walk_as_reading_every_list(void **st) {
  (void)st;
  enum { NC = 24, NV = 160 };
  lmm_system *sys[2];
  for (int k = 0; k < 2; k++) {
    sys[k] = lmm_new();
    lmm_set_selective(sys[k], 1);
    sys[k]->walk_noskip = k;
    lmm_cnst_new(sys[k], 20, 0);   /* 0: a backbone most flows cross */
    for (int c = 1; c < NC; c++) lmm_cnst_new(sys[k], 1 + c % 5 * 2, 0);
  }
  int var[NV], state[NV];   /* 0 none, 1 off, 2 on */
  memset(state, 0, sizeof state);
  uint64_t read[2] = {0, 0};
  for (int epoch = 0; epoch < 3000; epoch++) {
    int ops = 1 + (int)rnd(8);
    for (int k = 0; k < 2; k++) lmm_walks(sys[k], 2);
    for (int o = 0; o < ops; o++) {
      int i = (int)rnd(NV), kind = (int)rnd(5);   /* drawn once for both systems */
      int links = 1 + (int)rnd(3), cs[3], touch = 1 + (int)rnd(NC - 1);
      for (int l = 0; l < 3; l++) cs[l] = l == 1 && rnd(3) ? 0 : 1 + (int)rnd(NC - 1);
      for (int k = 0; k < 2; k++) {
        lmm_system *s = sys[k];
        uint64_t r0 = s->walk_read;
        if (state[i] == 0) {           /* a new flow over 1-3 links, often the backbone */
          int on = kind < 2;
          int v = lmm_var_new(s, on ? 1 : 0, -1, &tag[i % 16]);
          if (k) assert_int_equal(v, var[i]);   /* the same slots in both */
          var[i] = v;
          for (int l = 0; l < links; l++) {
            lmm_expand(s, cs[l], v, 1);
            if (on) lmm_touch_cnst(s, cs[l]);   /* SimGrid's expand touches each link */
          }
        } else if (kind == 0) {
          lmm_var_free(s, var[i]);
        } else if (kind == 1 || state[i] == 1) {
          lmm_var_set_penalty(s, var[i], state[i] == 1 ? 1 : 0);
          if (state[i] == 1) lmm_touch_var(s, var[i]);
        } else if (kind == 2) {         /* a new element, or more of one (a route crossing a link twice) */
          lmm_expand(s, cs[0], var[i], 0.5);
          lmm_touch_cnst(s, cs[0]);
        } else {
          lmm_touch_cnst(s, touch);
        }
        read[k] += s->walk_read - r0;
        for (int c = 0; c < NC; c++) {   /* on exact; in M, vis never more than visited */
          int on, vis;
          count(s, c, &on, &vis);
          assert_int_equal(s->cwalk.data[c].on, on);
          if (in_m(s, c)) assert_true(s->cwalk.data[c].vis <= vis);
        }
      }
      same_m_next(sys, state, i, kind);
    }
    solve_same(sys, var, state, NV);
  }
  assert_true(read[0] < read[1]);
  for (int k = 0; k < 2; k++) lmm_free(sys[k]);
}

/* The walk reads a variable's switch and constraints from its walk record (lmm_var_walk: on,
 * nel, the first LMM_HOPS constraints), kept by lmm_var_new, lmm_expand and
 * lmm_var_set_penalty, past LMM_HOPS elements the variable's own elements, and a constraint's
 * list (n, refs) from its walk record (lmm_cnst_walk), kept by lmm_expand and lmm_var_free.
 * Random routes of 1 to LMM_HOPS + 4 links (some crossing a link twice), switch-ons,
 * switch-offs, frees and reused slots on two systems, the second walking as before (every list
 * from the constraint, the variable's own penalty and elements): after every operation each
 * live variable's record and each constraint's match it, and the modified sets are the same,
 * in the same order. */
static void walk_record_follows_variables(void **st) {
  (void)st;
  enum { NC = 40, NV = 120 };
  lmm_system *sys[2];
  for (int k = 0; k < 2; k++) {
    sys[k] = lmm_new();
    lmm_set_selective(sys[k], 1);
    sys[k]->walk_noskip = k;
    for (int c = 0; c < NC; c++) lmm_cnst_new(sys[k], 1 + c % 7, 0);
  }
  int var[NV], state[NV];   /* 0 none, 1 off, 2 on */
  memset(state, 0, sizeof state);
  int longer = 0;           /* variables built with more than LMM_HOPS elements */
  for (int epoch = 0; epoch < 2000; epoch++) {
    int ops = 1 + (int)rnd(6);
    for (int k = 0; k < 2; k++) lmm_walks(sys[k], 2);
    for (int o = 0; o < ops; o++) {
      int i = (int)rnd(NV), kind = (int)rnd(4), links = 1 + (int)rnd(LMM_HOPS + 4);
      int cs[LMM_HOPS + 4];
      for (int l = 0; l < links; l++) cs[l] = l && !rnd(8) ? cs[l - 1] : (int)rnd(NC);   /* twice */
      for (int k = 0; k < 2; k++) {
        lmm_system *s = sys[k];
        if (state[i] == 0) {
          int on = kind < 2;
          int v = lmm_var_new(s, on ? 1 + kind : 0, -1, &tag[i % 16]);
          if (k) assert_int_equal(v, var[i]);
          var[i] = v;
          for (int l = 0; l < links; l++) {
            lmm_expand(s, cs[l], v, 1);
            if (on) lmm_touch_cnst(s, cs[l]);
          }
          if (!k && s->vars.data[v].nel > LMM_HOPS) longer++;
        } else if (kind == 0) {
          lmm_var_free(s, var[i]);
        } else if (kind == 1 || state[i] == 1) {
          lmm_var_set_penalty(s, var[i], state[i] == 1 ? 0.5 : 0);
          if (state[i] == 1) lmm_touch_var(s, var[i]);
        } else {
          lmm_touch_cnst(s, cs[0]);
        }
        for (int j = 0; j < NV; j++) {
          if (!state[j] || (j == i && state[i] && kind == 0)) continue;
          const lmm_var *x = &s->vars.data[var[j]];
          const lmm_var_walk *w = &s->vwalk[var[j]];
          assert_int_equal(w->on, !(x->penalty <= 0));
          assert_int_equal(w->nel, x->nel);
          for (int e = 0; e < x->nel && e < LMM_HOPS; e++) assert_int_equal(w->c[e], x->el[e].cnst);
        }
        for (int c = 0; c < NC; c++) {   /* the constraints' walk records: their lists */
          assert_int_equal(s->cwalk.data[c].n, s->cnsts.data[c].n);
          assert_true(s->cwalk.data[c].refs == s->cnsts.data[c].refs);
        }
      }
      same_m_next(sys, state, i, kind);
    }
    solve_same(sys, var, state, NV);
  }
  assert_true(longer > 50);
  for (int k = 0; k < 2; k++) lmm_free(sys[k]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(skips_covered_lists),
      cmocka_unit_test(same_walk_as_reading_every_list),
      cmocka_unit_test(walk_record_follows_variables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
