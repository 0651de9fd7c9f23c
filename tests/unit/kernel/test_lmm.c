/* The sharing solver against hand-derived max-min solutions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_var_takes_all),  cmocka_unit_test(equal_share),
      cmocka_unit_test(weighted_share),     cmocka_unit_test(bound_first),
      cmocka_unit_test(fatpipe_no_sharing), cmocka_unit_test(chain_bottleneck),
      cmocka_unit_test(expand_accumulates), cmocka_unit_test(penalty_zero_is_off),
      cmocka_unit_test(incremental_components),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
