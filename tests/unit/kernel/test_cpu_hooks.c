/* The kernel's hooks for the CPU model: a constraint's capacity changing between solves (a
 * host's CPU taken by communication) and daemon activities (background load, samplers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "psim/kernel.h"

/* Two variables bounded by 2 share a constraint of capacity 2 (1 each); a third variable
 * alone on capacity 10 is at its bound 2. Capacities 1 and 1.5 then: 0.5 each, and 1.5 for
 * the bounded one (its bound no longer binds). The local repair must not keep the old values
 * (they satisfied the old capacity), in the exact solver and in the selective update. */
static void capacity_change(void **st) {
  (void)st;
  for (int selective = 0; selective < 2; selective++) {
    lmm_system *l = lmm_new();
    lmm_set_selective(l, selective);
    int c = lmm_cnst_new(l, 2, 0), d = lmm_cnst_new(l, 10, 0);
    int x = lmm_var_new(l, 1, 2, NULL), y = lmm_var_new(l, 1, 2, NULL), z = lmm_var_new(l, 1, 2, NULL);
    lmm_expand(l, c, x, 1);
    lmm_touch_cnst(l, c);
    lmm_expand(l, c, y, 1);
    lmm_touch_cnst(l, c);
    lmm_expand(l, d, z, 1);
    lmm_touch_cnst(l, d);
    lmm_solve(l, NULL, NULL);
    assert_true(lmm_var_value(l, x) == 1 && lmm_var_value(l, y) == 1 && lmm_var_value(l, z) == 2);
    assert_int_equal(lmm_cnst_nvars(l, c), 2);
    lmm_cnst_set_capacity(l, c, 1);
    lmm_cnst_set_capacity(l, d, 1.5);
    assert_true(lmm_cnst_capacity(l, c) == 1);
    lmm_solve(l, NULL, NULL);
    assert_true(fabs(lmm_var_value(l, x) - 0.5) < 1e-15);
    assert_true(fabs(lmm_var_value(l, y) - 0.5) < 1e-15);
    assert_true(fabs(lmm_var_value(l, z) - 1.5) < 1e-15);
    /* back up: 1 each again; capacity 0: nothing */
    lmm_cnst_set_capacity(l, c, 2);
    lmm_solve(l, NULL, NULL);
    assert_true(lmm_var_value(l, x) == 1 && lmm_var_value(l, y) == 1);
    lmm_cnst_set_capacity(l, c, 0);
    lmm_solve(l, NULL, NULL);
    assert_true(lmm_var_value(l, x) == 0 && lmm_var_value(l, y) == 0);
    lmm_free(l);
  }
}

static double fired[4];
static int nfired;
static void note(sim *s, activity *a) { (void)a; fired[nfired++] = sim_now(s); }
static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

/* A daemon timer at 1 fires (the run still goes on until 2); one at 5 does not: the run ends
 * at 2, when only daemons remain. */
static void daemons_do_not_keep_running(void **st) {
  (void)st;
  nfired = 0;
  sim *s = sim_new();
  sim_daemon(s, sim_start_timer(s, 1, note, NULL, 0));
  sim_daemon(s, sim_start_timer(s, 5, note, NULL, 1));
  sim_start_timer(s, 2, note, NULL, 2);
  sim_run(s, no_run, NULL);
  assert_int_equal(nfired, 2);
  assert_true(fired[0] == 1 && fired[1] == 2);
  assert_true(sim_now(s) == 2);
  sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(capacity_change),
      cmocka_unit_test(daemons_do_not_keep_running),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
