/* The group repair (src/kernel/lmm_group.c, lmmg_repair; network/solver:groups): a saturated
 * link C's bottleneck group re-solved as one variable, against hand-derived max-min shares.
 * Four members also share a link Q that none of the changes touches: the repair must see,
 * without visiting each member, that a rise of the group's level would saturate Q (step 2),
 * and that a fall below the level of flows held by Q brings them back onto C (step 4); both
 * are left to the usual repair. Run with groups off (the same values, no group repair), on,
 * and on under PSIM_LMM_CHECK, which compares every repair with a full solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "psim/kernel.h"
#include "kernel/lmm_internal.h"

#define EPS 1e-12
#define NM 48             /* members: more than lmm_group.c's LMMG_GROUP_MIN (32) */
#define NQ 4              /* members 0..3 also use Q */

static int tag[NM + 8];   /* distinct owners */

/* A flow over a private link of capacity `own` and the shared link c. */
static int flow(lmm_system *s, int c, double own, int t) {
  int v = lmm_var_new(s, 1, -1, &tag[t]);
  lmm_expand(s, lmm_cnst_new(s, own, 0), v, 1);
  lmm_expand(s, c, v, 1);
  return v;
}

static void assert_value(const lmm_system *s, int v, double want) {
  double got = lmm_var_value(s, v);
  if (!(fabs(got - want) < EPS)) fail_msg("variable %d: %.17g, want %.17g", v, got, want);
}

/* The repair count after a solve: one more when `group` (and groups on), else the same. */
static void solved(lmm_system *s, int on, uint64_t *n, int group) {
  lmm_solve(s, NULL, NULL);
  uint64_t now = lmm_group_repairs(s);
  assert_int_equal(now - *n, (uint64_t)(on && group));
  *n = now;
}

static void scenario(int on, int check) {
  if (check) setenv("PSIM_LMM_CHECK", "1", 1);
  lmm_system *s = lmm_new();
  lmm_set_groups(s, on);
  uint64_t n = 0;
  /* 48 members at 144/48 = 3 (private links of 10); Q (13) carries 4 x 3 = 12. */
  int c = lmm_cnst_new(s, 144, 0), q = lmm_cnst_new(s, 13, 0), m[NM];
  for (int i = 0; i < NM; i++) m[i] = flow(s, c, 10, i);
  for (int i = 0; i < NQ; i++) lmm_expand(s, q, m[i], 1);
  lmm_solve(s, NULL, NULL);
  n = lmm_group_repairs(s);
  for (int i = 0; i < NM; i++) assert_value(s, m[i], 3);

  /* 1. A flow f starts on C: 49 at 144/49, as one variable (Q: 11.76). */
  int f = flow(s, c, 100, NM);
  uint64_t last = s->last_read;
  solved(s, on, &n, 1);
  /* Its last round (C saturates, f and the group free) reads S0 = {f}, not C's 49 entries
   * (PSIM_LMM_CHECK's full solve reads them). */
  if (on && !check) assert_int_equal(s->last_read - last, 1);
  for (int i = 0; i < NM; i++) assert_value(s, m[i], 144.0 / 49);
  assert_value(s, f, 144.0 / 49);

  /* 2. Eight members not on Q end: 41 would get 144/41 = 3.512, 14.05 on Q: Q saturates, its
   * four at 13/4, the 37 others share 144 - 13. Left to the usual repair. */
  for (int i = 10; i < 18; i++) lmm_var_free(s, m[i]);
  solved(s, on, &n, 0);
  for (int i = 0; i < NQ; i++) assert_value(s, m[i], 3.25);
  for (int i = NQ; i < NM; i++) if (i < 10 || i >= 18) assert_value(s, m[i], 131.0 / 37);
  assert_value(s, f, 131.0 / 37);

  /* 3. g starts on C: the 37 on C and g share 131 (3.447 > 3.25: Q's four stay), as one
   * variable (the four are not members: Q holds them). */
  int g = flow(s, c, 100, NM + 1);
  uint64_t read = s->g_read;
  solved(s, on, &n, 1);
  /* The commit reads the scan's 37 members, not C's list of 42 (Q's four and g besides). */
  assert_int_equal(s->g_read - read, on ? 37 : 0);
  assert_int_equal(s->g_odd, 0);
  for (int i = 0; i < NQ; i++) assert_value(s, m[i], 3.25);
  for (int i = NQ; i < NM; i++) if (i < 10 || i >= 18) assert_value(s, m[i], 131.0 / 38);
  assert_value(s, g, 131.0 / 38);

  /* 4. Four flows start, held at 2.5 by their own links: the 38 on C would share 131 - 10 at
   * 3.184 < 3.25, below Q's four, which must come down: the 42 share 144 - 10 (3.190; Q carries
   * 12.76). The changed flows have their bottleneck: only C's top level tells. Left to the
   * usual repair. */
  int h[4];
  for (int i = 0; i < 4; i++) h[i] = flow(s, c, 2.5, NM + 2 + i);
  solved(s, on, &n, 0);
  for (int i = 0; i < NM; i++) if (i < 10 || i >= 18) assert_value(s, m[i], 134.0 / 42);
  for (int i = 0; i < 4; i++) assert_value(s, h[i], 2.5);
  assert_value(s, f, 134.0 / 42);

  /* 5. f ends: 41 share 134 (3.268; Q 13.07 > 13): Q's four at 3.25 again, the 37 others at
   * (134 - 13) / 37. A rise over Q's limit, Q untouched: left to the usual repair. */
  lmm_var_free(s, f);
  solved(s, on, &n, 0);
  for (int i = 0; i < NQ; i++) assert_value(s, m[i], 3.25);
  assert_value(s, g, 121.0 / 37);
  lmm_free(s);
  if (check) unsetenv("PSIM_LMM_CHECK");
}

static void groups_off(void **st) { (void)st; scenario(0, 0); }
static void group_repair(void **st) { (void)st; scenario(1, 0); }
static void group_repair_checked(void **st) { (void)st; scenario(1, 1); }


/* ---- A constraint without a group is not scanned at every change (lmm_group.c) ----
 * 40 flows of penalties 1 and 2 in turn share link C (100), each over a private link of 1000:
 * all bottlenecked on C, at two values, so a scan of C finds no group (a fat tree's links
 * carry flows of several penalties). 64 more such flows start one by one: C is a candidate 64
 * times, and scanned after 1, 3, 7, 15 and then every 16 candidacies (7 scans; 64 without
 * the backoff). Then every flow gets penalty 1: within 16 more starts C is scanned again and
 * its group, now of one penalty, re-solved as one variable: 100 / n each. */
static int pflow(lmm_system *s, int c, double penalty) {
  int v = lmm_var_new(s, penalty, -1, &tag[0]);
  lmm_expand(s, lmm_cnst_new(s, 1000, 0), v, 1);
  lmm_expand(s, c, v, 1);
  return v;
}

static void no_group_backs_off(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  lmm_set_groups(s, 1);
  int c = lmm_cnst_new(s, 100, 0), vs[200], n = 0;
  for (int i = 0; i < 40; i++, n++) vs[n] = pflow(s, c, 1 + n % 2);
  lmm_solve(s, NULL, NULL);
  uint64_t scans0 = lmm_group_scans(s);
  for (int i = 0; i < 64; i++, n++) {
    vs[n] = pflow(s, c, 1 + n % 2);
    lmm_solve(s, NULL, NULL);
  }
  uint64_t scans = lmm_group_scans(s) - scans0;
  if (scans < 4 || scans > 10) fail_msg("%llu scans of a constraint without a group in 64 changes", (unsigned long long)scans);
  assert_int_equal(lmm_group_repairs(s), 0);
  for (int i = 0; i < n; i++) lmm_var_set_penalty(s, vs[i], 1);
  lmm_solve(s, NULL, NULL);
  for (int i = 0; i < 17 && !lmm_group_repairs(s); i++, n++) {
    vs[n] = pflow(s, c, 1);
    lmm_solve(s, NULL, NULL);
  }
  assert_true(lmm_group_repairs(s) >= 1);
  for (int i = 0; i < n; i++) assert_value(s, vs[i], 100.0 / n);
  lmm_free(s);
}

/* ---- The scan compares the members by their bits (lmm_group.c, scan_group) ----
 * After the first member, a member like it is recognised by its penalty's and value's bits.
 * 48 flows share C (144) at 3, then 49 at 144/49 after one more starts, re-solved as one
 * variable. One member's value is then moved by one ulp, as a last-bit difference of another
 * solve would leave it: it is no member like the others, so C has no group, and the next
 * start is left to the usual repair, which gives every flow 144/50. */
static void one_ulp_apart_is_no_group(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  lmm_set_groups(s, 1);
  int c = lmm_cnst_new(s, 144, 0), m[NM];
  for (int i = 0; i < NM; i++) m[i] = flow(s, c, 10, i);
  lmm_solve(s, NULL, NULL);
  uint64_t n = lmm_group_repairs(s);
  int f = flow(s, c, 100, NM);
  solved(s, 1, &n, 1);
  for (int i = 0; i < NM; i++) assert_value(s, m[i], 144.0 / 49);
  lmm_var *x = &s->vars.data[m[7]];   /* after the first member in C's list */
  assert_int_equal(x->bneck, c);
  x->value = nextafter(x->value, INFINITY);
  int g = flow(s, c, 100, NM + 1);
  solved(s, 1, &n, 0);
  for (int i = 0; i < NM; i++) assert_value(s, m[i], 144.0 / 50);
  assert_value(s, f, 144.0 / 50);
  assert_value(s, g, 144.0 / 50);
  lmm_free(s);
}

/* ---- Two groups whose members share a link (lmm_group.c, forget_other_bounds) ----
 * C1 and C2 (144 each) have 48 flows each at 3 (private links of 10); four flows of each also
 * use Q (27: 24 used). A start on each makes both groups' bounds known (Q's limit for C1's
 * four, with C2's at 2.94: 3.81). Eight of C2's flows off Q end: C2's 41 rise to 144/41 =
 * 3.512 as one variable (Q: 25.8). Eight of C1's end: its 41 would rise to 3.512 too, 28.1 on
 * Q, which none of the changes touches: only C1's bound tells, and it must have been
 * forgotten by C2's group repair. Q saturates: its eight at 27/8, the others at (144 - 13.5)
 * / 37 on each link. */
static void two_groups_share_a_link(void **st) {
  (void)st;
  lmm_system *s = lmm_new();
  lmm_set_groups(s, 1);
  int c1 = lmm_cnst_new(s, 144, 0), c2 = lmm_cnst_new(s, 144, 0), q = lmm_cnst_new(s, 27, 0);
  int a[NM], b[NM];
  for (int i = 0; i < NM; i++) a[i] = flow(s, c1, 10, i);
  for (int i = 0; i < NM; i++) b[i] = flow(s, c2, 10, i);
  for (int i = 0; i < NQ; i++) {
    lmm_expand(s, q, a[i], 1);
    lmm_expand(s, q, b[i], 1);
  }
  lmm_solve(s, NULL, NULL);
  uint64_t n = lmm_group_repairs(s);
  flow(s, c1, 100, NM);
  solved(s, 1, &n, 1);
  flow(s, c2, 100, NM + 1);
  solved(s, 1, &n, 1);
  for (int i = 10; i < 18; i++) lmm_var_free(s, b[i]);
  solved(s, 1, &n, 1);
  assert_value(s, b[0], 144.0 / 41);
  for (int i = 10; i < 18; i++) lmm_var_free(s, a[i]);
  lmm_solve(s, NULL, NULL);
  for (int i = 0; i < NQ; i++) {
    assert_value(s, a[i], 27.0 / 8);
    assert_value(s, b[i], 27.0 / 8);
  }
  for (int i = NQ; i < NM; i++)
    if (i < 10 || i >= 18) {
      assert_value(s, a[i], 130.5 / 37);
      assert_value(s, b[i], 130.5 / 37);
    }
  lmm_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(groups_off), cmocka_unit_test(group_repair),
                                     cmocka_unit_test(group_repair_checked),
                                     cmocka_unit_test(no_group_backs_off),
                                     cmocka_unit_test(one_ulp_apart_is_no_group),
                                     cmocka_unit_test(two_groups_share_a_link)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
