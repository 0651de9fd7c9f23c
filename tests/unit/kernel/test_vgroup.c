/* Group clocks (engine.c, network/solver:groups): flows of one share on one bottleneck on one
 * virtual time. Dates derived by hand, and the same run under the per-flow path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "psim/kernel.h"

typedef struct { double when[8]; int who[8]; int n; double left_a; } record;
static record rec;
static activity *flow_a;
static int link_l, link_m;

static void note(sim *s, activity *a) {
  rec.when[rec.n] = sim_now(s);
  rec.who[rec.n] = a->tag;
  rec.n++;
}
static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

static activity *flow(sim *s, double bytes, int tag, int on_m) {
  lmm_system *l = sim_lmm(s);
  activity *a = sim_start_work(s, bytes, -1, 1, note, NULL, tag);
  a->var = lmm_var_new(l, 1, 0, a);
  lmm_expand(l, link_l, a->var, 1);
  if (on_m) lmm_expand(l, link_m, a->var, 1);
  sim_groupable(s, a);
  return a;
}

/* ---- 3, 2 and 1 MB joining a 1 GB/s link at 0, 1 and 2 ms ----
 * By hand, in V (bytes done by each member): V = 1e6 at 1 ms (alone at 1 GB/s), A's key 3e6;
 * B joins with key 1e6 + 2e6 = 3e6; at 0.5 GB/s each, V = 1.5e6 at 2 ms; C joins with key
 * 2.5e6; at 1/3 GB/s, V reaches 2.5e6 at 2 + 1e6 / (1e9 / 3) s = 5 ms: C ends; at 0.5 GB/s V
 * reaches 3e6 at 5 + 0.5e6 / 0.5e9 s = 6 ms: A and B end (A first: scheduled first). At 3 ms A
 * has 3e6 - (1.5e6 + 1e6 / 3) = 1166666.67 bytes left. */
static void start_b(sim *s, activity *t) { (void)t; flow(s, 2e6, 1, 0); }
static void start_c(sim *s, activity *t) { (void)t; flow(s, 1e6, 2, 0); }
static void probe(sim *s, activity *t) { (void)t; rec.left_a = sim_work_left(s, flow_a); }

static sim *three_flows(int groups) {
  rec.n = 0;
  sim *s = sim_new();
  sim_set_groups(s, groups);
  link_l = lmm_cnst_new(sim_lmm(s), 1e9, 0);
  flow_a = flow(s, 3e6, 0, 0);
  sim_start_timer(s, 1e-3, start_b, NULL, 10);
  sim_start_timer(s, 2e-3, start_c, NULL, 11);
  sim_start_timer(s, 3e-3, probe, NULL, 12);
  sim_run(s, no_run, NULL);
  return s;
}

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

static void virtual_time_by_hand(void **st) {
  (void)st;
  sim *s = three_flows(1);
  assert_int_equal(sim_group_joins(s), 3);   /* all three were group members */
  assert_int_equal(rec.n, 3);
  assert_int_equal(rec.who[0], 2);
  assert_int_equal(rec.who[1], 0);
  assert_int_equal(rec.who[2], 1);
  assert_true(close_rel(rec.when[0], 5e-3, 1e-12));
  assert_true(close_rel(rec.when[1], 6e-3, 1e-12));
  assert_true(close_rel(rec.when[2], 6e-3, 1e-12));
  assert_true(close_rel(rec.left_a, 3e6 - (1.5e6 + 1e6 / 3), 1e-12));
  sim_free(s);
}

static void same_as_per_flow(void **st) {
  (void)st;
  sim *s = three_flows(0);
  assert_int_equal(sim_group_joins(s), 0);
  record ref = rec;
  sim_free(s);
  s = three_flows(1);
  assert_int_equal(rec.n, ref.n);
  for (int i = 0; i < rec.n; i++) {
    assert_int_equal(rec.who[i], ref.who[i]);
    assert_true(close_rel(rec.when[i], ref.when[i], 1e-12));
  }
  assert_true(close_rel(rec.left_a, ref.left_a, 1e-12));
  sim_free(s);
}

/* ---- A member whose share changes apart from the others leaves the group ----
 * A and B (1 MB each) share link L (1 GB/s): 0.5 GB/s each, one group; B also crosses link M
 * (0.6 GB/s, not binding). At 1 ms C (1 MB) starts on M: B and C get 0.3 GB/s (M), A 0.7 GB/s
 * (L). The values differ, so one of them leaves the group with its work left (0.5 MB each).
 * A ends at 1 ms + 0.5e6 / 0.7e9 s = 1.714286 ms; B at 1 ms + 0.5e6 / 0.3e9 s = 2.666667 ms; C
 * has 1e6 - 0.5e6 = 0.5 MB left then, alone on M at 0.6 GB/s: 2.666667 + 0.833333 = 3.5 ms. */
static void start_c_on_m(sim *s, activity *t) {
  (void)t;
  lmm_system *l = sim_lmm(s);
  activity *a = sim_start_work(s, 1e6, -1, 1, note, NULL, 2);
  a->var = lmm_var_new(l, 1, 0, a);
  lmm_expand(l, link_m, a->var, 1);
  sim_groupable(s, a);
}

static void member_leaves(void **st) {
  (void)st;
  rec.n = 0;
  sim *s = sim_new();
  sim_set_groups(s, 1);
  link_l = lmm_cnst_new(sim_lmm(s), 1e9, 0);
  link_m = lmm_cnst_new(sim_lmm(s), 0.6e9, 0);
  flow(s, 1e6, 0, 0);
  flow(s, 1e6, 1, 1);
  sim_start_timer(s, 1e-3, start_c_on_m, NULL, 10);
  sim_run(s, no_run, NULL);
  assert_true(sim_group_joins(s) >= 2);
  assert_int_equal(rec.n, 3);
  assert_int_equal(rec.who[0], 0);
  assert_int_equal(rec.who[1], 1);
  assert_int_equal(rec.who[2], 2);
  assert_true(close_rel(rec.when[0], 1e-3 + 0.5e6 / 0.7e9, 1e-12));
  assert_true(close_rel(rec.when[1], 1e-3 + 0.5e6 / 0.3e9, 1e-12));
  assert_true(close_rel(rec.when[2], 3.5e-3, 1e-12));
  sim_free(s);
}

/* Groups below the minimum size are not formed: 3 flows, minimum 8. */
static void small_constraints_stay_per_flow(void **st) {
  (void)st;
  sim *s = three_flows(8);
  assert_int_equal(sim_group_joins(s), 0);
  assert_true(close_rel(rec.when[0], 5e-3, 1e-12));
  sim_free(s);
}


/* ---- The solver's report of a group's members at once (SIM_GROUPS_MIN, lmm_group.c) ----
 * 40 flows of 1 MB share link L (1 GB/s) from 0: 25 MB/s each. L has no group yet: the solver
 * has not re-solved its bottleneck group as one variable (the first solve has no kept
 * member), so no flow joins at 0 (probe at 0.5 ms). Flows 40, 41 and 42 start at 1, 2 and 3
 * ms: the solver's group repair of L (at 1 or 2 ms; a scan that found no group is not
 * repeated at once) makes L eligible, the flows join, and at 3 ms the group's members get
 * 1e9/43 in one report. By hand: at 3 ms flows 0-39 have x = 1e6 - 25e3 - 1e6/41 - 1e6/42
 * left and end at 3 ms + 43 x / 1e9 (t1); flows 40, 41 and 42 then have d = 25e3, d + 1e6/41
 * and d + 1e6/41 + 1e6/42 left: flow 40 ends at t1 + 3 d / 1e9, flow 42 at 43 ms (43 MB
 * through 1 GB/s, never idle).
 * With `expand_0`, at 3 ms flow 0 also starts using link M (10 MB/s): it is re-solved apart
 * (10 MB/s) and reported first; the 41 other members and flow 42 share 0.99 GB/s. The
 * members did not all get flow 0's value: the group is dissolved (exactly), and flows 1-39
 * end at 3 ms + 42 x / 0.99e9. */
static double ends[64];
static uint64_t joins_early;
static int expand_0;
static activity *first_flow;

static void note_end(sim *s, activity *a) { ends[a->tag] = sim_now(s); }

static activity *flow_on_l(sim *s, int tag) {
  lmm_system *l = sim_lmm(s);
  activity *a = sim_start_work(s, 1e6, -1, 1, note_end, NULL, tag);
  a->var = lmm_var_new(l, 1, 0, a);
  lmm_expand(l, link_l, a->var, 1);
  sim_groupable(s, a);
  return a;
}
static void start_flow(sim *s, activity *t) { flow_on_l(s, t->tag - 100); }
static void start_last(sim *s, activity *t) {
  if (expand_0) lmm_expand(sim_lmm(s), link_m, first_flow->var, 1);
  start_flow(s, t);
}
static void count_joins(sim *s, activity *t) { (void)t; joins_early = sim_group_joins(s); }

static sim *forty_flows(int groups, int expand) {
  expand_0 = expand;
  for (int i = 0; i < 64; i++) ends[i] = -1;
  sim *s = sim_new();
  sim_set_groups(s, groups);
  link_l = lmm_cnst_new(sim_lmm(s), 1e9, 0);
  link_m = lmm_cnst_new(sim_lmm(s), 1e7, 0);
  for (int i = 0; i < 40; i++) {
    activity *a = flow_on_l(s, i);
    if (!i) first_flow = a;
  }
  sim_start_timer(s, 0.5e-3, count_joins, NULL, 99);
  sim_start_timer(s, 1e-3, start_flow, NULL, 140);
  sim_start_timer(s, 2e-3, start_flow, NULL, 141);
  sim_start_timer(s, 3e-3, start_last, NULL, 142);
  sim_run(s, no_run, NULL);
  return s;
}

/* The end dates of the last forty_flows run under groups, the same without groups. */
static void same_ends_per_flow(int expand) {
  double ref[64];
  for (int i = 0; i < 43; i++) ref[i] = ends[i];
  sim *s = forty_flows(0, expand);
  for (int i = 0; i < 43; i++) assert_true(close_rel(ends[i], ref[i], 1e-12));
  sim_free(s);
}

static void members_reported_at_once(void **st) {
  (void)st;
  sim *s = forty_flows(SIM_GROUPS_MIN, 0);
  assert_int_equal(joins_early, 0);            /* no group before the solver's group repair */
  assert_true(sim_group_joins(s) >= 41);
  assert_true(sim_group_batches(s) >= 1);
  assert_int_equal(sim_group_dissolves(s), 0);
  double x = 1e6 - 25e3 - 1e6 / 41 - 1e6 / 42, t1 = 3e-3 + 43 * x / 1e9;
  for (int i = 0; i < 40; i++) assert_true(close_rel(ends[i], t1, 1e-12));
  assert_true(close_rel(ends[40], t1 + 3 * 25e3 / 1e9, 1e-12));
  assert_true(close_rel(ends[42], 43e-3, 1e-12));
  sim_free(s);
  same_ends_per_flow(0);
}

static void member_apart_dissolves(void **st) {
  (void)st;
  sim *s = forty_flows(SIM_GROUPS_MIN, 1);
  assert_true(sim_group_batches(s) >= 1);
  assert_true(sim_group_dissolves(s) >= 1);
  double x = 1e6 - 25e3 - 1e6 / 41 - 1e6 / 42, t1 = 3e-3 + 42 * x / 0.99e9;
  for (int i = 1; i < 40; i++) assert_true(close_rel(ends[i], t1, 1e-12));
  sim_free(s);
  same_ends_per_flow(1);
}

/* ---- Flows join a group only while the solver's group repairs succeed there ----
 * (lmm_group.c, lmmg_cnst.until: LMMG_KEEP solves after the last one). 40 flows of 1 MB share
 * link L (1 GB/s) from 0; flows 40 and 41 start on L at 1 and 2 ms: group repairs of L, the 42
 * join. Flow F (1 MB) crosses L and its own link P (1 MB/s): bottlenecked on P, per flow. Then
 * `fillers` short flows on links of their own start one after the other (two solves each,
 * none touching L), and at 10 ms P grows to 1 TB/s: F is re-solved with L as its bottleneck,
 * at the members' value 1e9/43. F joins L's group when that comes soon after L's last group
 * repair (no filler), not 40 fillers later: by then L's group repairs have stopped, and on a
 * dragonfly or a torus, where one link's group repairs stop once the allreduce that loaded it
 * is over, every re-rated flow's check for a group cost more than the groups saved. The end
 * dates are the per-flow path's either way. */
static int link_p;
static uint64_t joins_before;
static double f_end;

static void note_f(sim *s, activity *a) { (void)a; f_end = sim_now(s); }
static void start_filler(sim *s, activity *t) {
  lmm_system *l = sim_lmm(s);
  activity *a = sim_start_work(s, 1e3, -1, 1, note_end, NULL, 63);
  a->var = lmm_var_new(l, 1, 0, a);
  lmm_expand(l, lmm_cnst_new(l, 1e9, 0), a->var, 1);
  (void)t;
}
static void grow_p(sim *s, activity *t) {
  (void)t;
  joins_before = sim_group_joins(s);
  lmm_cnst_set_capacity(sim_lmm(s), link_p, 1e12);
}

static sim *late_flow(int groups, int fillers) {
  for (int i = 0; i < 64; i++) ends[i] = -1;
  expand_0 = 0;
  sim *s = sim_new();
  lmm_system *l = sim_lmm(s);
  sim_set_groups(s, groups);
  link_l = lmm_cnst_new(l, 1e9, 0);
  link_p = lmm_cnst_new(l, 1e6, 0);
  for (int i = 0; i < 40; i++) flow_on_l(s, i);
  activity *f = sim_start_work(s, 1e6, -1, 1, note_f, NULL, 50);
  f->var = lmm_var_new(l, 1, 0, f);
  lmm_expand(l, link_l, f->var, 1);
  lmm_expand(l, link_p, f->var, 1);
  sim_groupable(s, f);
  sim_start_timer(s, 1e-3, start_flow, NULL, 140);
  sim_start_timer(s, 2e-3, start_flow, NULL, 141);
  for (int i = 0; i < fillers; i++) sim_start_timer(s, 3e-3 + i * 1e-4, start_filler, NULL, 200 + i);
  sim_start_timer(s, 10e-3, grow_p, NULL, 99);
  sim_run(s, no_run, NULL);
  return s;
}

static void joins_only_while_group_repairs_succeed(void **st) {
  (void)st;
  for (int fillers = 0; fillers <= 40; fillers += 40) {
    sim *s = late_flow(0, fillers);
    double ref[64], ref_f = f_end;
    for (int i = 0; i < 42; i++) ref[i] = ends[i];
    sim_free(s);
    s = late_flow(SIM_GROUPS_MIN, fillers);
    assert_true(joins_before >= 42);   /* the 42 flows of L joined after its group repairs */
    if (fillers) assert_int_equal(sim_group_joins(s), joins_before);   /* F stays per flow */
    else assert_int_equal(sim_group_joins(s), joins_before + 1);       /* F joins */
    for (int i = 0; i < 42; i++) assert_true(close_rel(ends[i], ref[i], 1e-12));
    assert_true(close_rel(f_end, ref_f, 1e-12));
    sim_free(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(virtual_time_by_hand),
      cmocka_unit_test(same_as_per_flow),
      cmocka_unit_test(member_leaves),
      cmocka_unit_test(small_constraints_stay_per_flow),
      cmocka_unit_test(members_reported_at_once),
      cmocka_unit_test(member_apart_dissolves),
      cmocka_unit_test(joins_only_while_group_repairs_succeed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
