/* Activities whose rate the model sets directly (sim_start_rated, sim_set_rate,
 * sim_scale_work): progress between rate changes, pauses, rescaled work, timer-then-rated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "psim/kernel.h"

typedef struct { double when[8]; int who[8]; int n; } record;
static record rec;
static activity *other;          /* the activity a callback re-rates */
static double other_rate;

static void note(sim *s, activity *a) {
  rec.when[rec.n] = sim_now(s);
  rec.who[rec.n] = a->tag;
  rec.n++;
}
static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

/* 10 units at 2/s alone: done at t=5. */
static void alone(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_start_rated(s, 10, 2, note, NULL, 1);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 1);
  assert_true(fabs(rec.when[0] - 5) < 1e-12);
  sim_free(s);
}

/* A timer at t=1 halves the rate of a 10-unit activity started at 2/s: 2 units done by t=1,
 * 8 left at 1/s, done at t=9. */
static void rerate(sim *s, activity *a) {
  note(s, a);
  sim_set_rate(s, other, other_rate);
}
static void rate_change_midway(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  other = sim_start_rated(s, 10, 2, note, NULL, 1);
  other_rate = 1;
  sim_start_timer(s, 1, rerate, NULL, 0);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_int_equal(rec.who[1], 1);
  assert_true(fabs(rec.when[1] - 9) < 1e-12);
  sim_free(s);
}

/* Paused (rate 0) at t=1 with 8 units left, resumed at 4/s at t=3: done at 3 + 8/4 = 5. */
static void pause_resume(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  other = sim_start_rated(s, 10, 2, note, NULL, 1);
  other_rate = 0;
  sim_start_timer(s, 1, rerate, NULL, 0);
  sim_run(s, no_run, NULL);   /* the timer pauses it: it never ends on its own */
  assert_int_equal(rec.n, 1);
  other_rate = 4;
  sim_start_timer(s, 2, rerate, NULL, 2);   /* at t = 1 + 2 = 3 */
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 3);
  assert_int_equal(rec.who[2], 1);
  assert_true(fabs(rec.when[2] - 5) < 1e-12);
  sim_free(s);
}

/* Work left scaled by 3 at t=2: 10 units at 1/s, 8 left at t=2 become 24: done at 26. */
static void rescale(sim *s, activity *a) {
  note(s, a);
  sim_scale_work(s, other, 3);
}
static void scaled_work(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  other = sim_start_rated(s, 10, 1, note, NULL, 1);
  sim_start_timer(s, 2, rescale, NULL, 0);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_true(fabs(rec.when[1] - 26) < 1e-12);
  sim_free(s);
}

/* The same for a solver-driven computation: 6 flops on a 2 flop/s host, 2 done by t=1, the 4
 * left tripled to 12 at 2 flop/s: done at 1 + 6 = 7. */
static void scaled_solver_work(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  lmm_system *l = sim_lmm(s);
  int host = lmm_cnst_new(l, 2, 0);
  other = sim_start_work(s, 6, -1, 1, note, NULL, 1);
  other->var = lmm_var_new(l, 1, 2, other);
  lmm_expand(l, host, other->var, 1);
  sim_start_timer(s, 1, rescale, NULL, 0);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_true(fabs(rec.when[1] - 7) < 1e-12);
  sim_free(s);
}

/* A latency phase (timer of 0.5 s) continued as a rated phase of 10 units at 5/s: 2.5. */
static void then_rated(sim *s, activity *a) {
  a->done = note;
  sim_continue_work(s, a, 10, -1, 1);
  sim_set_rate(s, a, 5);
}
static void timer_then_rated(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_start_timer(s, 0.5, then_rated, NULL, 7);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 1);
  assert_int_equal(rec.who[0], 7);
  assert_true(fabs(rec.when[0] - 2.5) < 1e-12);
  sim_free(s);
}

/* Zero work ends at once; a rate set when it is already due keeps it due now. */
static void zero_work(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  activity *a = sim_start_rated(s, 0, 3, note, NULL, 4);
  sim_set_rate(s, a, 1);
  assert_true(sim_work_left(s, a) == 0);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 1);
  assert_true(rec.when[0] == 0);
  sim_free(s);
}

/* A daemon timer at t=5 runs while an activity ends at t=10, but one at t=20 does not keep
 * the run going: sim_run returns at t=10 without calling it. */
static void daemons(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_start_rated(s, 10, 1, note, NULL, 1);
  sim_start_daemon(s, 5, note, NULL, 2);
  sim_start_daemon(s, 20, note, NULL, 3);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_int_equal(rec.who[0], 2);
  assert_true(rec.when[0] == 5);
  assert_int_equal(rec.who[1], 1);
  assert_true(sim_now(s) == 10);
  sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(alone),
      cmocka_unit_test(rate_change_midway),
      cmocka_unit_test(pause_resume),
      cmocka_unit_test(scaled_work),
      cmocka_unit_test(scaled_solver_work),
      cmocka_unit_test(timer_then_rated),
      cmocka_unit_test(zero_work),
      cmocka_unit_test(daemons),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
