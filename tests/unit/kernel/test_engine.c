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

/* Marks (sim_start_mark): a caller's object in the event heap, no activity. */
typedef struct { _Alignas(8) int id; } mark_obj;
static void mark_note(sim *s, void *obj) {
  rec.when[rec.n] = sim_now(s);
  rec.who[rec.n] = ((const mark_obj *)obj)->id;
  rec.n++;
}
static void mark_other(sim *s, void *obj) { mark_note(s, obj); }
static mark_obj mk[3] = {{10}, {11}, {12}};

/* Marks, timers and events, mixed: one order by (date, sequence of scheduling), whatever
 * holds each entry; with the selective update (one date's events as a batch) too. Hand order:
 * mk2 (t=0), mk0 (t=1, scheduled before timer 3), timer 3 (t=1), timer 0, event 2, mk1 (t=3
 * in that order of scheduling). */
static void marks_in_date_then_seq_order(void **st) {
  (void)st;
  for (int sel = 0; sel < 2; sel++) {
    rec.n = 0;
    sim *s = sim_new();
    if (sel) lmm_set_selective(sim_lmm(s), 1);
    int k = sim_mark_kind(s, mark_note);
    assert_int_equal(k, 1);
    sim_start_timer(s, 3, note, NULL, 0);
    sim_start_mark(s, 1, &mk[0], k);
    sim_start_event(s, 3, note, NULL, 2);
    sim_start_mark(s, 3, &mk[1], k);
    sim_start_timer(s, 1, note, NULL, 3);
    sim_start_mark(s, 0, &mk[2], k);
    assert_int_equal(sim_pending(s), 6);
    assert_true(sim_next_date(s) == 0);
    sim_run(s, no_run, NULL);
    const int who[] = {12, 10, 3, 0, 2, 11};
    const double when[] = {0, 1, 1, 3, 3, 3};
    assert_int_equal(rec.n, 6);
    for (int i = 0; i < 6; i++) {
      assert_int_equal(rec.who[i], who[i]);
      assert_true(rec.when[i] == when[i]);
    }
    assert_int_equal(sim_pending(s), 0);
    sim_free(s);
  }
}

/* Kinds: the same function keeps its kind, each new one takes the next, none is left past
 * SIM_MARK_KINDS (7) functions; each kind calls its own function. */
#define MARK_FN(i) static void mark_f##i(sim *s, void *obj) { mark_note(s, obj); rec.who[rec.n - 1] += 100 * i; }
MARK_FN(3)
MARK_FN(4)
MARK_FN(5)
MARK_FN(6)
MARK_FN(7)
MARK_FN(8)
static void mark_kinds(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  assert_int_equal(sim_mark_kind(s, mark_note), 1);
  assert_int_equal(sim_mark_kind(s, mark_other), 2);
  assert_int_equal(sim_mark_kind(s, mark_note), 1);
  sim_mark_fn f[] = {mark_f3, mark_f4, mark_f5, mark_f6, mark_f7};
  for (int i = 0; i < 5; i++) assert_int_equal(sim_mark_kind(s, f[i]), 3 + i);
  assert_int_equal(sim_mark_kind(s, mark_f8), 0);       /* no kind left */
  assert_int_equal(sim_mark_kind(s, mark_f7), 7);
  sim_start_mark(s, 2, &mk[0], 7);   /* mark_f7: 10 + 700 */
  sim_start_mark(s, 1, &mk[1], 3);   /* mark_f3: 11 + 300 */
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 2);
  assert_int_equal(rec.who[0], 311);
  assert_int_equal(rec.who[1], 710);
  sim_free(s);
}

/* Under SimGrid's order (selective update, sg order), one date's CPU sleeps end before the
 * other events of that date: a mark is not the CPU's, so the sleep scheduled after it ends
 * first; a plain timer (not a sleep) keeps its place after the mark. */
static void mark_after_cpu_sleep(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  lmm_system *l = sim_lmm(s);
  lmm_set_selective(l, 1);
  lmm_set_sg_order(l, 1);
  int host = lmm_cnst_new(l, 1, 0);
  int k = sim_mark_kind(s, mark_note);
  sim_start_mark(s, 1, &mk[0], k);
  sim_start_timer(s, 1, note, NULL, 5);
  sim_start_sleep(s, 1, host, note, NULL, 6);
  sim_run(s, no_run, NULL);
  assert_int_equal(rec.n, 3);
  assert_int_equal(rec.who[0], 6);
  assert_int_equal(rec.who[1], 10);
  assert_int_equal(rec.who[2], 5);
  sim_free(s);
}

/* A mark whose date overflows is not queued and stops the run, as an event's. */
static void restart_far(sim *s, activity *a) {
  (void)a;
  sim_start_mark(s, 1.5e308, &mk[1], sim_mark_kind(s, mark_note));
}
static void mark_overflow(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_start_timer(s, 1e308, restart_far, NULL, 0);
  sim_run(s, no_run, NULL);
  assert_int_equal(sim_overflowed(s), 1);
  assert_int_equal(rec.n, 0);
  assert_int_equal(sim_pending(s), 0);
  sim_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timers_in_date_then_seq_order),
      cmocka_unit_test(processor_sharing),
      cmocka_unit_test(two_phase),
      cmocka_unit_test(marks_in_date_then_seq_order),
      cmocka_unit_test(mark_kinds),
      cmocka_unit_test(mark_after_cpu_sleep),
      cmocka_unit_test(mark_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
