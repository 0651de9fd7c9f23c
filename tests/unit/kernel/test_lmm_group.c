/* The local repair of a saturated shared constraint (src/kernel/lmm_group.c): a group of 17
 * flows bottlenecked on one link C, re-solved as a whole when flows start or end on C, against
 * hand-derived max-min shares; run again under PSIM_LMM_CHECK, which compares every repair with
 * a full solve.
 *
 * lmm_work counts the variables progressive filling has solved: it tells whether the group was
 * taken at once (one fill of the changed flows and the group) or found by a failing first round
 * (a fill of the changed flows alone, then of all of them), and that an unchanged group is left
 * alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "psim/kernel.h"

#define EPS 1e-12
#define NM 17             /* members of C's group: more than lmm_group.c's LMMG_MIN (8) */

static int tag[NM + 8];

/* A flow over a private link of capacity `own` and the shared link c. */
static int flow(lmm_system *s, int c, double penalty, double bound, double own, int t) {
  int v = lmm_var_new(s, penalty, bound, &tag[t]);
  lmm_expand(s, lmm_cnst_new(s, own, 0), v, 1);
  lmm_expand(s, c, v, 1);
  return v;
}

static void assert_members(const lmm_system *s, const int *m, int from, double want) {
  for (int i = from; i < NM; i++) assert_true(fabs(lmm_var_value(s, m[i]) - want) < EPS);
}

/* The work counts hold without the check (whose full solves count too). */
#define WORK(n) do { if (!check) assert_int_equal(lmm_work(s) - w, (n)); } while (0)

static void scenario(int check) {
  if (check) setenv("PSIM_LMM_CHECK", "1", 1);
  lmm_system *s = lmm_new();
  int c = lmm_cnst_new(s, 100, 0), m[NM];
  /* 17 members with private links of 5.9 and one slow flow held at 2 by its own link: the
   * members share what C has left, 98/17 = 5.7647 < 5.9, and all record C as bottleneck. */
  for (int i = 0; i < NM; i++) m[i] = flow(s, c, 1, -1, 5.9, i);
  int slow = flow(s, c, 1, -1, 2, NM);
  lmm_solve(s, NULL, NULL);
  assert_true(fabs(lmm_var_value(s, slow) - 2) < EPS);
  assert_members(s, m, 0, 98.0 / 17);

  /* Two flows start on C: g1 (penalty 2) and g2 (bound 1), on private links of 100. The group
   * joins them in one fill (19 variables; a first round would have filled g1 and g2 alone
   * first: 21). g2 stops at its bound; the members at level l and g1 at l/2 share
   * 100 - 2 - 1 = 97: 17 l + l/2 = 97, l = 194/35 = 5.543, g1 = 97/35. */
  uint64_t w = lmm_work(s);
  int g1 = flow(s, c, 2, -1, 100, NM + 1);
  int g2 = flow(s, c, 1, 1, 100, NM + 2);
  lmm_solve(s, NULL, NULL);
  WORK(19);
  assert_members(s, m, 0, 194.0 / 35);
  assert_true(fabs(lmm_var_value(s, g1) - 97.0 / 35) < EPS);
  assert_true(fabs(lmm_var_value(s, g2) - 1) < EPS);
  assert_true(fabs(lmm_var_value(s, slow) - 2) < EPS);

  /* g1 ends: C is no longer full; the members take 97/17 = 5.706 (< 5.9). */
  w = lmm_work(s);
  lmm_var_free(s, g1);
  lmm_solve(s, NULL, NULL);
  WORK(NM);
  assert_members(s, m, 0, 97.0 / 17);
  assert_true(fabs(lmm_var_value(s, g2) - 1) < EPS);

  /* A switched-off flow h (a message paying its latency) is put on C: nothing moves, and only
   * h is filled (the group would be 17 more). */
  w = lmm_work(s);
  int h = flow(s, c, 0, -1, 100, NM + 3);
  lmm_solve(s, NULL, NULL);
  WORK(1);
  assert_members(s, m, 0, 97.0 / 17);
  assert_true(lmm_var_value(s, h) == 0);

  /* h is switched on: 18 flows at 97/18 = 5.389, filled once (18, not 1 + 18). */
  w = lmm_work(s);
  lmm_var_set_penalty(s, h, 1);
  lmm_solve(s, NULL, NULL);
  WORK(NM + 1);
  assert_members(s, m, 0, 97.0 / 18);
  assert_true(fabs(lmm_var_value(s, h) - 97.0 / 18) < EPS);

  /* g2, h and m0 end at once: 16 members would get 98/16 = 6.125 of C, more than their own
   * links allow: they stop at 5.9 (C carries 16 x 5.9 + 2 = 96.4 < 100). */
  lmm_var_free(s, g2);
  lmm_var_free(s, h);
  lmm_var_free(s, m[0]);
  lmm_solve(s, NULL, NULL);
  assert_members(s, m, 1, 5.9);
  assert_true(fabs(lmm_var_value(s, slow) - 2) < EPS);
  lmm_free(s);
  if (check) unsetenv("PSIM_LMM_CHECK");
}

static void saturated_group(void **st) { (void)st; scenario(0); }
static void saturated_group_checked(void **st) { (void)st; scenario(1); }

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(saturated_group),
                                     cmocka_unit_test(saturated_group_checked)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
