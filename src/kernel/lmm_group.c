/* Saturated shared constraints: the local repair takes a bottleneck group as a whole.
 *
 * Why: 512 cluster hosts can send 640 GB/s into a 125 GB/s backbone. The backbone saturates
 * and ~900 flows have it as their bottleneck, all at one level. Every flow that starts or ends
 * on it changes that level, so the local repair (lmm.c, solve_incremental) must re-solve the
 * whole group. It found the group one flow at a time: a first round re-solved only the
 * changed flows, then checked every group member against the backbone (each check failing,
 * after looking for another bottleneck on each of the flow's links, whose loads it had to
 * compute), and only the second round re-solved the group. The first round was pure overhead:
 * 16 % of the instructions of the 512-rank backbone benchmark.
 *
 * Here, before the first round, each modified constraint c that is shared, saturated before
 * the change, and the recorded bottleneck of at least LMMG_MIN variables, puts that group
 * into the re-solved set S at once when the change moves c's level:
 *   - a switched-on variable of S uses c (a new flow, or one whose weight changed): it needs a
 *     share of c, the others must come down (round 1 would give it what is left, ~0, find it
 *     without a bottleneck, and queue every member above it);
 *   - or the variables kept on c no longer fill it (a flow left c): the members are no longer
 *     bottlenecked and would all fail their check.
 * Otherwise (a switched-off message expanded on c, say) nothing moves and the members would
 * pass: they are not added.
 *
 * This only chooses S: the repair solves and checks S exactly as before, so the result is
 * the max-min solution whatever this guesses (a member that did not need re-solving gets the
 * same value, to rounding). What changes is the order in which variables join S, hence in
 * which order some sums are formed: last-bit differences are possible (measured in
 * docs/performance.md, "Saturated shared links"). */
#include "lmm_internal.h"

/* A group smaller than this is left to the check (round 1 is cheap for it). 8 and LMMG_LAZY's
 * 16 below were chosen by instruction counts (docs/performance.md, "Saturated shared links"). */
#define LMMG_MIN 8
/* As lmm.c's INC_EPS: the tolerance of "saturated" in the bottleneck check. */
#define LMMG_EPS 1e-9

void lmmg_seed(lmm_system *s) {
  size_t nmod = s->inc_c.len;     /* T holds the modified constraints only, at this point */
  for (size_t i = 0; i < nmod; i++) {
    int c = s->inc_c.data[i];
    const lmm_cnst *k = &s->cnsts.data[c];
    if (k->n < LMMG_MIN || k->fatpipe) continue;
    /* One pass: the members (in inc_add, unused before the repair's first check), what the
     * variables kept on c use of it, and whether a switched-on variable of S uses it. */
    double kept = 0;
    int newcomer = 0;
    s->inc_add.len = 0;
    for (int j = 0; j < k->n; j++) {
      int v = k->refs[j].var;
      const lmm_var *x = &s->vars.data[v];
      double a = k->refs[j].coeff;
      if (a <= 0 || x->penalty <= 0) continue;
      if (x->mark == s->stamp) { newcomer = 1; continue; }
      kept += a * x->value;
      if (x->bneck == c) VEC_PUSH(s->inc_add, v);
    }
    if (s->inc_add.len < LMMG_MIN) continue;
    if (!newcomer && kept >= k->capacity * (1 - LMMG_EPS)) continue;   /* its level holds */
    for (size_t j = 0; j < s->inc_add.len; j++) {
      int v = s->inc_add.data[j];
      s->vars.data[v].mark = s->stamp;
      VEC_PUSH(s->inc_v, v);
    }
  }
  s->inc_add.len = 0;
}

/* What fix_var adds for a variable of S while a repair's check needs T's loads (add_loads). */
static void lmmg_add_load(lmm_system *s, const lmm_var *x) {
  double lvl = x->newval * x->penalty;
  for (int i = 0; i < x->nel; i++) {
    const lmm_elem *e = &x->el[i];
    if (e->coeff <= 0) continue;
    lmm_cnst *k = &s->cnsts.data[e->cnst];
    if (lmmi_skip(s, k)) continue;
    k->load += e->coeff * x->newval;
    if (lvl > k->maxl) k->maxl = lvl;
  }
}

/* fill's last round, when one constraint saturates and every free variable uses it (the
 * saturated backbone: the whole set S is its group): the variables are fixed at its level as
 * fill would, but without updating the remaining capacity and usage of each of their
 * constraints, which no later round reads. The values and bottlenecks are fill's, bit for bit.
 * Returns 0 (fill goes on as usual) unless that is the case. */
int lmmg_last_round(lmm_system *s, double level, int nfree, const int *cs, size_t ncs) {
  if (s->stack.len != 1) return 0;
  int c = s->stack.data[0];
  const lmm_cnst *k = &s->cnsts.data[c];
  if (k->nfree != nfree) return 0;
  for (int j = 0; j < k->n; j++) {
    lmm_var *x = &s->vars.data[k->refs[j].var];
    if (x->mark != s->stamp || x->fixed || k->refs[j].coeff <= 0) continue;
    double v = level / x->penalty;
    int capped = x->bound > 0 && v > x->bound;
    x->fixed = 1;
    x->newval = capped ? x->bound : v;
    x->bneck = capped ? BNECK_BOUND : c;
    if (s->add_loads) lmmg_add_load(s, x);
  }
  /* As after a complete fill: no constraint has free variables (lmm_selective.c's sg_fill
   * relies on it for the constraints it does not solve). */
  for (size_t i = 0; i < ncs; i++) s->cnsts.data[cs[i]].nfree = 0;
  return 1;
}

/* The repair's check reads the load and top level of a few constraints: for a group, the
 * saturated constraint (one sum over its variables) and the bottlenecks of the kept variables
 * checked. Adding S's share to every constraint of T as fill fixes S (fix_var, add_loads)
 * costs a pass over every element of S (~5 per flow, for ~900 flows on the backbone). From
 * LMMG_LAZY variables in S on, solve_incremental skips it and drops the cached loads instead
 * (a new istamp: the pass over T cached the kept variables' part under the old one), and
 * cnst_info computes a constraint's load over all its variables when it is first read. The
 * sum is formed in another order (one pass instead of the kept part plus S's shares): its
 * last bits may differ, which only the check's tolerance (1e-9) ever sees. */
#define LMMG_LAZY 16

int lmmg_lazy(const lmm_system *s) { return s->inc_v.len >= LMMG_LAZY; }
