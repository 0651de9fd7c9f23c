/* The sharing solver against hand-derived max-min solutions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "psim/kernel.h"

typedef struct { int calls; void *last; } cb_log;
static void changed(void *ctx, void *owner, double value) {
  (void)value;
  cb_log *l = ctx;
  l->calls++;
  l->last = owner;
}

static int tag[8];   /* distinct owners */
#define EPS 1e-12

static void one_var_takes_all(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10, 0);
  int v = lmm_var_new(s, 1, -1, &tag[0]);
  lmm_expand(s, c, v, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, v) - 10) < EPS);
  lmm_free(s);
}

static void equal_share(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10, 0);
  int a = lmm_var_new(s, 1, -1, &tag[0]), b = lmm_var_new(s, 1, -1, &tag[1]);
  lmm_expand(s, c, a, 1);
  lmm_expand(s, c, b, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 5) < EPS);
  assert_true(fabs(lmm_var_value(s, b) - 5) < EPS);
  lmm_free(s);
}

/* Penalties 1 and 3 on capacity 12: usage = 1/1 + 1/3, level 9: x = 9/1 and 9/3. */
static void weighted_share(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 12, 0);
  int a = lmm_var_new(s, 1, -1, &tag[0]), b = lmm_var_new(s, 3, -1, &tag[1]);
  lmm_expand(s, c, a, 1);
  lmm_expand(s, c, b, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 9) < 1e-9);
  assert_true(fabs(lmm_var_value(s, b) - 3) < 1e-9);
  lmm_free(s);
}

static void bound_first(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10, 0);
  int a = lmm_var_new(s, 1, 2, &tag[0]), b = lmm_var_new(s, 1, -1, &tag[1]);
  lmm_expand(s, c, a, 1);
  lmm_expand(s, c, b, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 2) < EPS);
  assert_true(fabs(lmm_var_value(s, b) - 8) < EPS);
  lmm_free(s);
}

static void fatpipe_no_sharing(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10, 1);
  int a = lmm_var_new(s, 1, -1, &tag[0]), b = lmm_var_new(s, 1, -1, &tag[1]);
  lmm_expand(s, c, a, 1);
  lmm_expand(s, c, b, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 10) < EPS);
  assert_true(fabs(lmm_var_value(s, b) - 10) < EPS);
  lmm_free(s);
}

/* A on l1 (10); B on l1 and l2 (4); C on l2. l2 saturates first at 2 each; A gets 10-2. */
static void chain_bottleneck(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int l1 = lmm_cnst_new(s, 10, 0), l2 = lmm_cnst_new(s, 4, 0);
  int a = lmm_var_new(s, 1, -1, &tag[0]), b = lmm_var_new(s, 1, -1, &tag[1]), c = lmm_var_new(s, 1, -1, &tag[2]);
  lmm_expand(s, l1, a, 1);
  lmm_expand(s, l1, b, 1);
  lmm_expand(s, l2, b, 1);
  lmm_expand(s, l2, c, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 8) < EPS);
  assert_true(fabs(lmm_var_value(s, b) - 2) < EPS);
  assert_true(fabs(lmm_var_value(s, c) - 2) < EPS);
  lmm_free(s);
}

/* Cross-traffic: coefficient 1 forward + 0.05 back on the same link adds up to 1.05. */
static void expand_accumulates(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10.5, 0);
  int v = lmm_var_new(s, 1, -1, &tag[0]);
  lmm_expand(s, c, v, 1);
  lmm_expand(s, c, v, 0.05);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, v) - 10) < 1e-12);
  lmm_free(s);
}

/* A disabled variable (penalty 0, a message in its latency phase) takes nothing. */
static void penalty_zero_is_off(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 10, 0);
  int a = lmm_var_new(s, 0, -1, &tag[0]), b = lmm_var_new(s, 1, -1, &tag[1]);
  lmm_expand(s, c, a, 1);
  lmm_expand(s, c, b, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(lmm_var_value(s, a) == 0);
  assert_true(fabs(lmm_var_value(s, b) - 10) < EPS);
  lmm_var_set_penalty(s, a, 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, a) - 5) < EPS);
  assert_true(fabs(lmm_var_value(s, b) - 5) < EPS);
  lmm_free(s);
}

/* Only the touched component is recomputed: a flow elsewhere is not reported again. */
static void incremental_components(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int c1 = lmm_cnst_new(s, 10, 0), c2 = lmm_cnst_new(s, 6, 0);
  int a = lmm_var_new(s, 1, -1, &tag[0]);
  lmm_expand(s, c1, a, 1);
  cb_log log = {0};
  lmm_solve(s, changed, &log);
  assert_int_equal(log.calls, 1);
  int b = lmm_var_new(s, 1, -1, &tag[1]);
  lmm_expand(s, c2, b, 1);
  log.calls = 0;
  lmm_solve(s, changed, &log);
  assert_int_equal(log.calls, 1);
  assert_ptr_equal(log.last, &tag[1]);
  assert_true(fabs(lmm_var_value(s, b) - 6) < EPS);
  /* removing b frees nothing for a (other component): no callback for a */
  lmm_var_free(s, b);
  log.calls = 0;
  lmm_solve(s, changed, &log);
  assert_int_equal(log.calls, 0);
  lmm_free(s);
}

/* The local repair against solving from scratch: random flows (coefficient 1 on a route of
 * 1-3 links, 0.05 on others: cross-traffic; varied penalties and bounds, some switched off)
 * start and end on a small platform with a FATPIPE link; after every solve each value must
 * equal that of a fresh system holding the same variables (solved in one go). */
static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n) { rnd_state = rnd_state * 1103515245u + 12345u; return (rnd_state >> 8) % n; }

enum { NC = 12, NV = 40, NE = 5 };
typedef struct { int alive, var, ne, c[NE]; double a[NE], pen, bound; } flow_def;

static void build(lmm_system *s, flow_def *f, void *owner) {
  f->var = lmm_var_new(s, f->pen, f->bound, owner);
  for (int e = 0; e < f->ne; e++) lmm_expand(s, f->c[e], f->var, f->a[e]);
}

static void repair_matches_full_solve(void **st) {
  (void)st;
  static const double cap[NC] = {10, 10, 10, 10, 8, 8, 12, 12, 5, 20, 7, 30};
  lmm_system *s = lmm_new();
  for (int c = 0; c < NC; c++) lmm_cnst_new(s, cap[c], c == NC - 1);
  flow_def f[NV] = {{0}};
  for (int step = 0; step < 3000; step++) {
    int nops = 1 + (int)rnd(4);
    for (int op = 0; op < nops; op++) {
      flow_def *x = &f[rnd(NV)];
      if (x->alive && rnd(4) == 0) {          /* switch on or off */
        x->pen = x->pen > 0 ? 0 : (double)(1 + rnd(3));
        lmm_var_set_penalty(s, x->var, x->pen);
      } else if (x->alive) {
        lmm_var_free(s, x->var);
        x->alive = 0;
      } else {
        x->alive = 1;
        x->ne = 1 + (int)rnd(NE);
        for (int e = 0; e < x->ne; e++) {
          x->c[e] = (int)rnd(step % 500 < 250 ? NC - 1 : NC);   /* FATPIPE half of the time */
          x->a[e] = e < 2 ? 1.0 : 0.05;
        }
        x->pen = rnd(10) == 0 ? 0 : (double)(1 + rnd(3));
        x->bound = rnd(3) == 0 ? (double)(1 + rnd(6)) : -1;
        build(s, x, x);
      }
    }
    lmm_solve(s, NULL, NULL);
    lmm_system *ref = lmm_new();
    for (int c = 0; c < NC; c++) lmm_cnst_new(ref, cap[c], c == NC - 1);
    int rv[NV];
    for (int i = 0; i < NV; i++) {
      if (!f[i].alive) continue;
      flow_def g = f[i];
      build(ref, &g, &f[i]);
      rv[i] = g.var;
    }
    lmm_solve(ref, NULL, NULL);
    for (int i = 0; i < NV; i++) {
      if (!f[i].alive) continue;
      double a = lmm_var_value(s, f[i].var), b = lmm_var_value(ref, rv[i]);
      assert_true(fabs(a - b) <= 1e-9 * fabs(b) || a == b);
    }
    lmm_free(ref);
  }
  lmm_free(s);
}

/* SimGrid's selective update (lmm_selective.c). Constraints A and B of capacity 10, C of 2;
 * u uses A alone and is solved first (u = 10). Then, in one epoch, v1 (A, B) and v2 (A, C) are
 * switched on, in that order. v1's walk starts at A and reaches B (through v1); v2's first
 * constraint A is then already in M, so the walk stops and C stays out: M = {A, B} is open.
 * SimGrid solves the variables using A or B over A and B only: A has 3 users, level 10/3,
 * B one: 10, so u = v1 = v2 = 10/3 -- v2 exceeds C's capacity 2. The exact max-min solution
 * is v2 = 2 (C saturates first), then u = v1 = (10 - 2) / 2 = 4. A later event that walks
 * from C reaches every variable (all stale) and SimGrid solves them again: 4, 4, 2. */
static int enable(lmm_system *s, void *owner, int c1, int c2) {
  int v = lmm_var_new(s, 1, -1, owner);
  lmm_expand(s, c1, v, 1);
  lmm_expand(s, c2, v, 1);
  lmm_touch_var(s, v);
  return v;
}

static void selective_open_set(void **st) {
  (void)st;
  for (int sel = 0; sel <= 1; sel++) {
    lmm_system *s = lmm_new();
    lmm_set_selective(s, sel);
    int A = lmm_cnst_new(s, 10, 0), B = lmm_cnst_new(s, 10, 0), C = lmm_cnst_new(s, 2, 0);
    int u = lmm_var_new(s, 1, -1, &tag[0]);
    lmm_expand(s, A, u, 1);
    lmm_touch_cnst(s, A);
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, u) - 10) < EPS);
    int v1 = enable(s, &tag[1], A, B), v2 = enable(s, &tag[2], A, C);
    lmm_solve(s, NULL, NULL);
    double want_v2 = sel ? 10.0 / 3 : 2, want_u = sel ? 10.0 / 3 : 4;
    assert_true(fabs(lmm_var_value(s, v2) - want_v2) < EPS);
    assert_true(fabs(lmm_var_value(s, u) - want_u) < EPS);
    assert_true(fabs(lmm_var_value(s, v1) - want_u) < EPS);
    lmm_touch_cnst(s, C);   /* e.g. a message starting over C */
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, v2) - 2) < EPS);
    assert_true(fabs(lmm_var_value(s, u) - 4) < EPS);
    assert_true(fabs(lmm_var_value(s, v1) - 4) < EPS);
    lmm_free(s);
  }
}

/* The same two variables switched on in the other order: v2's walk covers A and C, v1 stops
 * at A and B stays out, but B never binds (v1's share is set by A): the result is the exact
 * one, 4, 4, 2, and no variable needs solving again. */
static void selective_order_matters(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  lmm_set_selective(s, 1);
  int A = lmm_cnst_new(s, 10, 0), B = lmm_cnst_new(s, 10, 0), C = lmm_cnst_new(s, 2, 0);
  int u = lmm_var_new(s, 1, -1, &tag[0]);
  lmm_expand(s, A, u, 1);
  lmm_touch_cnst(s, A);
  lmm_solve(s, NULL, NULL);
  int v2 = enable(s, &tag[2], A, C), v1 = enable(s, &tag[1], A, B);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, v2) - 2) < EPS);
  assert_true(fabs(lmm_var_value(s, u) - 4) < EPS);
  assert_true(fabs(lmm_var_value(s, v1) - 4) < EPS);
  lmm_free(s);
}

/* An open M solved by the exact solver with the late variable's elements outside M hidden
 * (lmm_selective.c, "Open sets solved exactly"): the same values as SimGrid's progressive
 * filling of M (PSIM_LMM_NOHIDE), and the hidden element comes back when a walk reaches its
 * variable. The A, B, C case above, then:
 *   - w starts alone on D (capacity 5): M = {D}; u, v1, v2 keep SimGrid's 10/3;
 *   - v1 ends: the walk from A reaches v2, so C joins M and v2's element on C is back:
 *     v2 = 2 (C), u = 10 - 2 = 8. */
static void selective_hidden_elements(void **st) {
  (void)st;
  for (int nohide = 0; nohide <= 1; nohide++) {
    if (nohide) setenv("PSIM_LMM_NOHIDE", "1", 1);
    lmm_system *s = lmm_new();
    lmm_set_selective(s, 1);
    unsetenv("PSIM_LMM_NOHIDE");
    int A = lmm_cnst_new(s, 10, 0), B = lmm_cnst_new(s, 10, 0), C = lmm_cnst_new(s, 2, 0);
    int D = lmm_cnst_new(s, 5, 0);
    int u = lmm_var_new(s, 1, -1, &tag[0]);
    lmm_expand(s, A, u, 1);
    lmm_touch_cnst(s, A);
    lmm_solve(s, NULL, NULL);
    int v1 = enable(s, &tag[1], A, B), v2 = enable(s, &tag[2], A, C);
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, v2) - 10.0 / 3) < EPS);
    int w = lmm_var_new(s, 1, -1, &tag[3]);
    lmm_expand(s, D, w, 1);
    lmm_touch_cnst(s, D);
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, w) - 5) < EPS);
    assert_true(fabs(lmm_var_value(s, u) - 10.0 / 3) < EPS);
    assert_true(fabs(lmm_var_value(s, v1) - 10.0 / 3) < EPS);
    assert_true(fabs(lmm_var_value(s, v2) - 10.0 / 3) < EPS);
    lmm_var_free(s, v1);
    lmm_solve(s, NULL, NULL);
    assert_true(fabs(lmm_var_value(s, v2) - 2) < EPS);
    assert_true(fabs(lmm_var_value(s, u) - 8) < EPS);
    assert_true(fabs(lmm_var_value(s, w) - 5) < EPS);
    lmm_free(s);
  }
}

/* Under SimGrid's order of ties every modified set is filled as SimGrid 3.32 fills it,
 * operation for operation (lmm_sgorder.c, lmmo_solve): a constraint's usage is summed over its
 * variables newest first, and the level is capacity / usage to the bit. Weights 1, 1e-16,
 * 1e-16 (penalties 1, 1e16, 1e16) created in that order sum to (1e-16 + 1e-16) + 1, which
 * rounds to 1 + 2^-52; created in the other order, to (1 + 1e-16) + 1e-16 = 1. So the first
 * variable gets 10 / (1 + 2^-52) in one order and exactly 10 in the other (a max-min solver
 * free to sum in any order gets 10 in both). */
static void sg_order_fill_sums_newest_first(void **st) {
  (void)st;
  for (int rev = 0; rev <= 1; rev++) {
    lmm_system *s = lmm_new();
    lmm_set_selective(s, 1);
    lmm_set_sg_order(s, 1);
    int c = lmm_cnst_new(s, 10, 0);
    const double pen[3] = {1, 1e16, 1e16};
    int v[3];
    for (int i = 0; i < 3; i++) {
      int k = rev ? 2 - i : i;
      v[k] = lmm_var_new(s, pen[k], -1, &tag[k]);
      lmm_expand(s, c, v[k], 1);
      lmm_touch_cnst(s, c);
    }
    lmm_solve(s, NULL, NULL);
    volatile double w = 1 / pen[1];   /* volatile: summed at run time, in this order */
    double usage = rev ? (1 + w) + w : (w + w) + 1;
    assert_true(rev ? usage == 1 : usage == 1 + 0x1p-52);
    assert_true(lmm_var_value(s, v[0]) == 10 / usage / pen[0]);
    assert_true(lmm_var_value(s, v[1]) == 10 / usage / pen[1]);
    assert_true(lmm_var_value(s, v[2]) == 10 / usage / pen[2]);
    lmm_free(s);
  }
}

/* The same rule on random events: two systems given the same epochs (flows announced with a
 * switched-off variable over 1-3 links, switched on in groups, freed), one solving open sets
 * by hiding, the other by SimGrid's progressive filling; their values must agree to rounding
 * after every solve. Many epochs switch on several flows from one link, so open sets are
 * frequent (counted: the test fails if none occurred). Uses rnd() above. */
static void selective_hidden_random(void **st) {
  (void)st;
  enum { NUP = 8, NC = 40, NV = 400 };   /* constraints 0-7: the flows' first links */
  lmm_system *sys[2];
  for (int k = 0; k < 2; k++) {
    if (k) setenv("PSIM_LMM_NOHIDE", "1", 1);
    sys[k] = lmm_new();
    lmm_set_selective(sys[k], 1);
    unsetenv("PSIM_LMM_NOHIDE");
    for (int c = 0; c < NC; c++) lmm_cnst_new(sys[k], 1 + c % 4 * 3, 0);
  }
  int var[NV], state[NV], first[NV];   /* state: 0 none, 1 announced (off), 2 on */
  for (int i = 0; i < NV; i++) state[i] = 0;
  int checked = 0;
  for (int epoch = 0; epoch < 1500; epoch++) {
    int up = (int)rnd(NUP), on = 0, list[3];
    for (int i = 0; i < NV && on < 3; i++)   /* switch on up to 3 announced flows from one link */
      if (state[i] == 1 && first[i] == up) list[on++] = i;
    for (int k = 0; k < 2; k++) {            /* as the engine reports an epoch */
      lmm_walks(sys[k], on);
      for (int j = 0; j < on; j++) {
        lmm_var_set_penalty(sys[k], var[list[j]], 1);
        lmm_touch_var(sys[k], var[list[j]]);
      }
      lmm_enables_done(sys[k]);
    }
    for (int j = 0; j < on; j++) state[list[j]] = 2;
    for (int i = 0; i < NV; i++)             /* end some flows */
      if (state[i] == 2 && rnd(6) == 0) {
        for (int k = 0; k < 2; k++) lmm_var_free(sys[k], var[i]);
        state[i] = 0;
      }
    for (int n = (int)rnd(5), i = 0; i < NV && n > 0; i++)   /* announce new ones */
      if (state[i] == 0) {
        int links = 1 + (int)rnd(3), other = NUP + (int)rnd(NC - NUP);
        first[i] = (int)rnd(NUP);
        for (int k = 0; k < 2; k++) {
          int v = lmm_var_new(sys[k], 0, -1, &tag[i % 8]);
          if (k) assert_int_equal(v, var[i]);   /* the same slots in both */
          var[i] = v;
          for (int l = 0; l < links; l++) {
            int c = l == 0 ? first[i] : NUP + (other - NUP + 7 * l) % (NC - NUP);
            lmm_expand(sys[k], c, var[i], 1);
            lmm_touch_cnst(sys[k], c);
          }
        }
        state[i] = 1;
        n--;
      }
    for (int k = 0; k < 2; k++) lmm_solve(sys[k], NULL, NULL);
    for (int i = 0; i < NV; i++)
      if (state[i] == 2) {
        double a = lmm_var_value(sys[0], var[i]), b = lmm_var_value(sys[1], var[i]);
        assert_true(fabs(a - b) <= 1e-9 * fabs(b) || a == b);
        checked++;
      }
  }
  assert_true(checked > 5000);
  assert_true(lmm_hidden_solves(sys[0]) > 100);   /* the rule was exercised */
  assert_true(lmm_hidden_solves(sys[1]) == 0);
  for (int k = 0; k < 2; k++) lmm_free(sys[k]);
}

/* A backbone that cannot bind is left out of the solve (lmm_bound.c); the values must stay
 * the max-min ones as it becomes binding and non-binding again. Hosts' up links have capacity
 * 10, the backbone 25; each flow uses its host's up link (first: its witness) then the backbone.
 *   - flows from hosts 0 and 1: backbone load at most 2 x 10 = 20 < 25, never binding: 10 each;
 *   - a flow from host 2 too: bound 30 > 25, the backbone binds: 25/3 each;
 *   - host 1's flow ends: bound 20 again: the two others must go back to 10 (they recorded
 *     the backbone as their bottleneck: it must be checked before it is left out);
 *   - a second flow from host 0: up link 0 shared, 5 and 5; host 2's flow 10. */
/* A saturated shared link (a backbone) limiting most flows, re-solved by local repairs as
 * flows end and start: every flow it limits is re-rated at each change, several re-solved
 * flows fail on it at once (the repair scans it once per round), and a bound takes effect in
 * the filling. Backbone B: capacity 12. Flows f1..f5 each have a private link of capacity 100
 * (f5: 1) and use B; penalty 1, no bound. */
static void saturated_backbone_repairs(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int b = lmm_cnst_new(s, 12, 0), f[8];
  for (int i = 1; i <= 5; i++) {
    f[i] = lmm_var_new(s, 1, -1, &tag[i]);
    lmm_expand(s, lmm_cnst_new(s, i == 5 ? 1 : 100, 0), f[i], 1);
    lmm_expand(s, b, f[i], 1);
  }
  lmm_solve(s, NULL, NULL);
  /* f5 is held at 1 by its own link; f1..f4 share the other 11 of B: 11/4 each. */
  assert_true(fabs(lmm_var_value(s, f[5]) - 1) < EPS);
  for (int i = 1; i <= 4; i++) assert_true(fabs(lmm_var_value(s, f[i]) - 2.75) < EPS);
  /* f1 ends: B is no longer saturated and f2..f4 lose their bottleneck: 11/3 each. */
  lmm_var_free(s, f[1]);
  lmm_solve(s, NULL, NULL);
  for (int i = 2; i <= 4; i++) assert_true(fabs(lmm_var_value(s, f[i]) - 11.0 / 3) < EPS);
  assert_true(fabs(lmm_var_value(s, f[5]) - 1) < EPS);
  /* Two flows start on B at once: f6 with penalty 2, f7 with a bound of 2 (private links of
   * 100). Both are first filled on what B has left (nothing) and fail there. f7 stops at its
   * bound 2; f2..f4 at level l and f6 at l/2 share what remains of B after f5 and f7:
   * 3l + l/2 = 12 - 1 - 2, l = 18/7, f6 = 9/7. */
  f[6] = lmm_var_new(s, 2, -1, &tag[6]);
  lmm_expand(s, lmm_cnst_new(s, 100, 0), f[6], 1);
  lmm_expand(s, b, f[6], 1);
  f[7] = lmm_var_new(s, 1, 2, &tag[7]);
  lmm_expand(s, lmm_cnst_new(s, 100, 0), f[7], 1);
  lmm_expand(s, b, f[7], 1);
  lmm_solve(s, NULL, NULL);
  for (int i = 2; i <= 4; i++) assert_true(fabs(lmm_var_value(s, f[i]) - 18.0 / 7) < EPS);
  assert_true(fabs(lmm_var_value(s, f[6]) - 9.0 / 7) < EPS);
  assert_true(fabs(lmm_var_value(s, f[7]) - 2) < EPS);
  assert_true(fabs(lmm_var_value(s, f[5]) - 1) < EPS);
  lmm_free(s);
}

static void backbone_bound(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  int up[3], bb;
  for (int i = 0; i < 3; i++) up[i] = lmm_cnst_new(s, 10, 0);
  bb = lmm_cnst_new(s, 25, 0);
  int f[4];
  for (int i = 0; i < 2; i++) {
    f[i] = lmm_var_new(s, 1, -1, &tag[i]);
    lmm_expand(s, up[i], f[i], 1);
    lmm_expand(s, bb, f[i], 1);
  }
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, f[0]) - 10) < EPS);
  assert_true(fabs(lmm_var_value(s, f[1]) - 10) < EPS);
  f[2] = lmm_var_new(s, 1, -1, &tag[2]);
  lmm_expand(s, up[2], f[2], 1);
  lmm_expand(s, bb, f[2], 1);
  lmm_solve(s, NULL, NULL);
  for (int i = 0; i < 3; i++) assert_true(fabs(lmm_var_value(s, f[i]) - 25.0 / 3) < 1e-9);
  lmm_var_free(s, f[1]);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, f[0]) - 10) < EPS);
  assert_true(fabs(lmm_var_value(s, f[2]) - 10) < EPS);
  f[3] = lmm_var_new(s, 1, -1, &tag[3]);
  lmm_expand(s, up[0], f[3], 1);
  lmm_expand(s, bb, f[3], 1);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, f[0]) - 5) < EPS);
  assert_true(fabs(lmm_var_value(s, f[3]) - 5) < EPS);
  assert_true(fabs(lmm_var_value(s, f[2]) - 10) < EPS);
  lmm_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_var_takes_all),  cmocka_unit_test(equal_share),
      cmocka_unit_test(weighted_share),     cmocka_unit_test(bound_first),
      cmocka_unit_test(fatpipe_no_sharing), cmocka_unit_test(chain_bottleneck),
      cmocka_unit_test(expand_accumulates), cmocka_unit_test(penalty_zero_is_off),
      cmocka_unit_test(incremental_components), cmocka_unit_test(repair_matches_full_solve),
      cmocka_unit_test(selective_open_set),     cmocka_unit_test(selective_order_matters),
      cmocka_unit_test(selective_hidden_elements), cmocka_unit_test(selective_hidden_random),
      cmocka_unit_test(backbone_bound),     cmocka_unit_test(saturated_backbone_repairs),
      cmocka_unit_test(sg_order_fill_sums_newest_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
