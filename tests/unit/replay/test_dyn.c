/* Nodes leaving and joining (replay_dyn.c): the event spec parser, the placement rule, and
 * the dynamic efficiency tracker on hand-computed step functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/replay.h"

static const char *NAMES[] = {"a", "b-1", "c", "d"};
static const char *name_of(void *ctx, int u) { (void)ctx; return NAMES[u]; }

static void parse_ok(void **state) {
  (void)state;
  dyn_events e;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(dyn_events_parse("--host-events", "iter=2:remove=3,1-2,b-1;t=2.5:add=a", 4, name_of,
                                    NULL, &e, &err), 0);
  assert_int_equal(e.n, 2);
  assert_int_equal(e.ev[0].iteration, 2);
  assert_int_equal(e.ev[0].action, DYN_REMOVE);
  /* 3, 1, 2 and b-1 (= 1): sorted, without the duplicate */
  assert_int_equal(e.ev[0].nunits, 3);
  assert_int_equal(e.ev[0].units[0], 1);
  assert_int_equal(e.ev[0].units[2], 3);
  assert_int_equal(e.ev[1].iteration, 0);
  assert_true(e.ev[1].date == 2.5);
  assert_int_equal(e.ev[1].action, DYN_ADD);
  assert_int_equal(e.ev[1].units[0], 0);
  dyn_events_free(&e);
}

static void parse_errors(void **state) {
  (void)state;
  struct { const char *spec, *want; } cases[] = {
      {"iter=0:remove=1", "at character 6: expected an iteration number >= 1"},
      {"iter=1remove=1", "at character 7: expected ':'"},
      {"t=abc:add=1", "at character 3: expected a date"},
      {"iter=1:remove=", "at character 15: expected a name or an index (0..3)"},
      {"iter=1:remove=2-", "at character 17: expected the last index"},
      {"iter=1:remove=1x", "at character 16: expected ',', ';' or the end"},
      {"iter=1:remove=4", "at character 15: expected indices in 0..3"},
      {"", "at character 1: expected iter=N or t=DATE"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dyn_events e;
    psim_err err;
    psim_err_clear(&err);
    assert_int_equal(dyn_events_parse("--host-events", cases[i].spec, 4, name_of, NULL, &e, &err), -1);
    assert_int_equal(err.code, 2);
    if (!strstr(err.msg, cases[i].want)) fail_msg("'%s': got '%s', want '%s'", cases[i].spec, err.msg, cases[i].want);
  }
}

/* 6 ranks on 3 hosts (0 1 2 0 1 2). remove 2: ranks 2, 5 displaced; rr: 2 -> 0, 5 -> 1.
 * add 3 (no rank's home): counts 3 3 - 0, the most crowded first (host 0, lowest): its
 * highest rank (3) moves; then 2 3 - 1: host 1's highest (5); then 2 2 - 2: stop.
 * add 2: ranks 2 and 5 have homes 2: back home (5 leaves host 3, 2 leaves host 0). */
static void maps(void **state) {
  (void)state;
  dyn_events e;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(dyn_events_parse("--host-events", "iter=1:remove=2;iter=2:add=3;iter=3:add=2", 4, NULL,
                                    NULL, &e, &err), 0);
  int home[6] = {0, 1, 2, 0, 1, 2};
  int *m = dyn_events_maps(&e, 6, home, 4, DYN_POLICY_ROUND_ROBIN, "--host-events", &err);
  assert_non_null(m);
  int want[3][6] = {{0, 1, 0, 0, 1, 1}, {0, 1, 0, 3, 1, 3}, {0, 1, 2, 3, 1, 2}};
  for (int i = 0; i < 3; i++)
    for (int r = 0; r < 6; r++)
      if (m[i * 6 + r] != want[i][r]) fail_msg("event %d rank %d: unit %d, want %d", i + 1, r, m[i * 6 + r], want[i][r]);
  free(m);
  dyn_events_free(&e);
}

/* Two ranks on units 0 and 1. Rank 0 computes 1 s of work over [0, 1] (a NULL activity:
 * credited at once), marks at 1; rank 1 marks at 2 (nothing computed): iteration 1 = [0, 2],
 * useful 1, 2 hosts: 4 p-s, efficiency 0.25. Unit 1 leaves the pool at 2 and rank 1 moves to
 * unit 0 at 3; the run ends at 5: iteration 2 = [2, 5]: 2 x 1 + 1 x 2 = 4 p-s. */
static void tracker(void **state) {
  (void)state;
  int init[2] = {0, 1};
  dyn_track *d = dyn_new(2, 2, init);
  dyn_compute_start(d, 0, NULL, 1);
  dyn_marker(d, 0, 1);
  dyn_marker(d, 1, 2);
  dyn_pool(d, 1, 0, 2);
  dyn_place(d, 1, 0, 3);
  dyn_result r;
  dyn_finish(d, 5, NULL, NULL, &r);
  assert_int_equal(r.niters, 2);
  assert_true(fabs(r.iters[0].end - 2) < 1e-12);
  assert_true(fabs(r.iters[0].useful - 1) < 1e-12);
  assert_int_equal(r.iters[0].hosts, 2);
  assert_true(fabs(r.iters[0].efficiency - 0.25) < 1e-12);
  assert_true(fabs(r.iters[1].processor_seconds - 4) < 1e-12);
  assert_int_equal(r.iters[1].hosts, 2);
  assert_true(fabs(r.processor_seconds - 8) < 1e-12);
  dyn_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_ok), cmocka_unit_test(parse_errors), cmocka_unit_test(maps),
      cmocka_unit_test(tracker),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
