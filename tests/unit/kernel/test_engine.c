/* The engine: event order, lazy progress of shared work, two-phase activities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "psim/kernel.h"

typedef struct { double when[8]; int who[8]; int n; } record;
static record rec;

static void note(sim *s, activity *a) {
  rec.when[rec.n] = sim_now(s);
  rec.who[rec.n] = a->tag;
  rec.n++;
}
static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

static void timers_in_date_then_seq_order(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_start_timer(s, 3, note, NULL, 0);
  sim_start_timer(s, 1, note, NULL, 1);
  sim_start_timer(s, 3, note, NULL, 2);   /* same date as 0: scheduled later, runs later */
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 3);
  assert_int_equal(rec.who[0], 1);
  assert_int_equal(rec.who[1], 0);
  assert_int_equal(rec.who[2], 2);
  assert_true(rec.when[2] == 3);
  sim_free(s);
}

/* Two computations on one core of 2 flop/s: 2 and 6 flops. Shared at 1 flop/s each, the
 * first ends at t=2; the second then has 4 flops left at 2 flop/s: ends at t=4. */
static void processor_sharing(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  lmm_system *l = sim_lmm(s);
  int host = lmm_cnst_new(l, 2, 0);
  activity *a = sim_start_work(s, 2, -1, 1, note, NULL, 0);
  a->var = lmm_var_new(l, 1, 2, a);
  lmm_expand(l, host, a->var, 1);
  activity *b = sim_start_work(s, 6, -1, 1, note, NULL, 1);
  b->var = lmm_var_new(l, 1, 2, b);
  lmm_expand(l, host, b->var, 1);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_true(fabs(rec.when[0] - 2) < 1e-12);
  assert_true(fabs(rec.when[1] - 4) < 1e-12);
  sim_free(s);
}

/* A message: latency 0.5 s (no bandwidth used), then 10 bytes at 5 B/s x scale 0.5 = 4 s. */
static void latency_then_transfer(sim *s, activity *a) {
  lmm_var_set_penalty(sim_lmm(s), a->next_var, 1);
  a->done = note;
  sim_continue_work(s, a, a->next_work, a->next_var, 0.5);
}

static void two_phase(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  lmm_system *l = sim_lmm(s);
  int link = lmm_cnst_new(l, 5, 0);
  activity *a = sim_start_timer(s, 0.5, latency_then_transfer, NULL, 7);
  a->next_work = 10;
  a->next_var = lmm_var_new(l, 0, -1, a);
  lmm_expand(l, link, a->next_var, 1);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 1);
  assert_int_equal(rec.who[0], 7);
  assert_true(fabs(rec.when[0] - 4.5) < 1e-12);
  sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timers_in_date_then_seq_order),
      cmocka_unit_test(processor_sharing),
      cmocka_unit_test(two_phase),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
