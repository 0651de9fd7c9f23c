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
#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* A free variable of the last round below, fixed at c's level. */
static void fix_last(lmm_system *s, lmm_var *x, double level, int c) {
  double v = level / x->penalty;
  int capped = x->bound > 0 && v > x->bound;
  x->fixed = 1;
  x->newval = capped ? x->bound : v;
  x->bneck = capped ? BNECK_BOUND : c;
  if (s->add_loads) lmmg_add_load(s, x);
}

/* fill's last round, when one constraint saturates and every free variable uses it (the
 * saturated backbone: the whole set S is its group): the variables are fixed at its level as
 * fill would, but without updating the remaining capacity and usage of each of their
 * constraints, which no later round reads. The values and bottlenecks are fill's, bit for bit.
 * Returns 0 (fill goes on as usual) unless that is the case. */
int lmmg_last_round(lmm_system *s, double level, int nfree, const int *cs, size_t ncs) {
  if (s->stack.len != 1) return 0;
  int c = s->stack.data[0];
  lmm_cnst *k = &s->cnsts.data[c];
  if (k->nfree != nfree) return 0;
  if (s->g_on && s->g_free && c == s->g_c) lmmg_fix_group(s, k, level);
  if (s->g_on && (size_t)k->n > 2 * s->inc_v.len) {
    /* A group repair: the free variables are S0's few on c, not the ~800 members of c's list
     * (a third pass over it at every event). They are taken from S0, in c's list order (the
     * order of the loads' sums below), by their place in the list. */
    s->g_s0.len = 0;
    s->last_read += s->inc_v.len;
    for (size_t i = 0; i < s->inc_v.len; i++) {
      int v = s->inc_v.data[i];
      const lmm_var *x = &s->vars.data[v];
      if (x->fixed) continue;   /* every variable of S0 has the stamp */
      for (int e = 0; e < x->nel; e++)
        if (x->el[e].cnst == c) {
          if (x->el[e].coeff > 0) VEC_PUSH(s->g_s0, ((lmm_ref){v, x->el[e].cpos, 0}));
          break;
        }
    }
    lmm_ref *f = s->g_s0.data;
    for (size_t i = 1; i < s->g_s0.len; i++)   /* insertion sort: a few */
      for (size_t j = i; j > 0 && f[j - 1].epos > f[j].epos; j--) {
        lmm_ref t = f[j]; f[j] = f[j - 1]; f[j - 1] = t;
      }
    for (size_t i = 0; i < s->g_s0.len; i++) fix_last(s, &s->vars.data[f[i].var], level, c);
  } else {
    s->last_read += (uint64_t)k->n;
    for (int j = 0; j < k->n; j++) {
      lmm_var *x = &s->vars.data[k->refs[j].var];
      if (x->mark != s->stamp || x->fixed || k->refs[j].coeff <= 0) continue;
      fix_last(s, x, level, c);
    }
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

/* ---- The group as one variable (network/solver:groups) ----
 *
 * Why: on the saturated backbone every flow that starts or ends moves the level of the ~800
 * flows bottlenecked there. lmmg_seed puts them all into S, and the repair then re-solves each
 * one: T grows by each member's other links, the fill and the check visit every member's
 * elements, and every member's other links are summed: ~65 % of the 512-host backbone
 * benchmark. Yet the members move together: one penalty, one value, one bottleneck.
 *
 * The group repair below re-solves the group G of constraint c as ONE variable of the fill,
 * using c only, with usage sum(a_c) / w (the members' coefficients on c over their common
 * penalty); the changed variables S0 are filled with it as usual. What makes this exact is
 * that the members' other constraints do not bind, checked without visiting each member:
 *   - other constraints of T (those of S0 and the modified ones): summed as usual, the
 *     members' part apart (their coefficients, lmmg_cnst.a); such a constraint must stay unsaturated
 *     both at the members' old value (the fill saw them there) and at the new one;
 *   - the others: their load moved only through the members (any other change of a value or
 *     capacity puts the constraint in T), so it suffices that the new value stays below hi,
 *     a value below which none of them saturates: computed once over every member (O(members
 *     x links)) and kept as a lower bound from one group repair to the next (its own T's
 *     constraints recomputed); any other solve that changes values on a constraint the
 *     members use invalidates it (lmmg_cnst's epoch, watched), and so does a group repair on
 *     another constraint (forget_other_bounds).
 * The members then all have c as their bottleneck (c saturated, no variable above their
 * level, below their bounds); the variables of S0 and the kept ones that might have lost
 * their bottleneck are checked as in the usual repair. Anything unusual (a member changed,
 * members of several penalties or values, a bound reached, a check failed) leaves the solve to
 * the usual repair, unchanged. Per event this costs one pass over c's list (the scan, which
 * lists the members) and one over the members (the commit, which writes their value and
 * reports them: the engine's group takes those in its clock in one report), not one visit of
 * every element of every member. */

void lmmg_fix_group(lmm_system *s, lmm_cnst *k, double level) {
  double val = level / s->g_w;     /* a member's value, as fill computes it for a variable */
  s->g_free = 0;
  s->g_lvl = level;
  k->nfree--;
  k->remaining -= s->g_ac * val;
  if (k->remaining < 0) k->remaining = 0;
  k->usage -= s->g_use;
  if (k->nfree == 0 || k->usage < 0) k->usage = 0;
  if (s->add_loads) {
    k->load += s->g_ac * val;
    if (val * s->g_w > k->maxl) k->maxl = val * s->g_w;
  }
}

/* The load of constraint q besides the members of the group (committed values), and the
 * members' coefficients on it. */
static void split_load(const lmm_system *s, const lmm_cnst *q, double *other, double *a) {
  double o = 0, m = 0;
  for (int r = 0; r < q->n; r++) {
    const lmm_var *u = &s->vars.data[q->refs[r].var];
    double b = q->refs[r].coeff;
    if (b <= 0 || u->penalty <= 0) continue;
    if (lmmg_member(s, u)) m += b;
    else o += b * u->value;
  }
  *other = o;
  *a = m;
}

/* The value up to which the members can rise before constraint q saturates. */
static double rise_limit(const lmm_cnst *q, double other, double a) {
  return (q->capacity * (1 - INC_EPS) - other) / a;
}

/* hi over every member's other constraints (-INFINITY on a FATPIPE one: not handled). */
static double group_bound(lmm_system *s, const lmm_cnst *k) {
  s->g_recompute++;
  s->gc.data[s->g_c].watched = 1;
  if (++s->g_visit == 0) {
    for (size_t i = 0; i < s->gc.len; i++) s->gc.data[i].stamp = 0;
    s->g_visit = 1;
  }
  double hi = INFINITY;
  for (int j = 0; j < k->n; j++) {
    const lmm_var *x = &s->vars.data[k->refs[j].var];
    if (k->refs[j].coeff <= 0 || x->penalty <= 0 || !lmmg_member(s, x)) continue;
    for (int e = 0; e < x->nel; e++) {
      const lmm_cnst *q = &s->cnsts.data[x->el[e].cnst];
      lmmg_cnst *gq = &s->gc.data[x->el[e].cnst];
      if (x->el[e].cnst == s->g_c || x->el[e].coeff <= 0 || lmmi_skip(s, q)) continue;
      if (q->fatpipe) return -INFINITY;
      if (gq->stamp == s->g_visit) continue;
      gq->stamp = s->g_visit;
      gq->watched = 1;
      double other, a;
      split_load(s, q, &other, &a);
      double h = rise_limit(q, other, a);
      if (h < hi) hi = h;
    }
  }
  return hi;
}

/* Queues kept variable u of constraint row for the check, as the usual repair's pass over T
 * does: unless at its bound or bottlenecked outside T. */
static void queue_check(lmm_system *s, int v) {
  lmm_var *u = &s->vars.data[v];
  if (u->cmark == s->istamp || u->bneck == BNECK_BOUND) return;
  if (u->bneck >= 0 && s->cmark.data[u->bneck] != s->stamp) return;
  u->cmark = s->istamp;
  VEC_PUSH(s->inc_chk, v);
}

/* A double's representation, for comparisons of equal values by their bits. */
static inline uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* The scan of c: the members (all of c's variables recorded as bottlenecked on it: one
 * penalty, one value, none changed), what the others kept use of c and their top level.
 * Sets the group's predicate (g_c, g_w, g_v) and coefficients (g_ac); 0 if c has no group,
 * -1 if every one of its variables changed (new flows: their group may be there next time).
 * The others are listed in inc_add, to be queued for the check once T is complete
 * (queue_check reads T): a scan that fails, usually at its second member of another penalty
 * (a fat tree's links), then costs no more than the entries it read. */
static int scan_group(lmm_system *s, int c, double *bmin) {
  lmm_cnst *k = &s->cnsts.data[c];
  int n = 0;
  double w = 0, v = 0, used = 0, maxl = 0, ac = 0, bm = INFINITY;
  /* In locals, the list of the others reserved once: the int stores of the push could alias
   * the list's length and the stamp for the compiler, and *bmin the system's doubles, which it
   * then reloaded at every entry (as in lmm.c's pass over T). */
  const int nr = k->n;
  const lmm_ref *refs = k->refs;
  const lmm_var *vars = s->vars.data;
  const unsigned stamp = s->stamp;
  VEC_RESERVE(s->inc_add, (size_t)nr);
  VEC_RESERVE(s->g_mem, (size_t)nr);
  int *others = s->inc_add.data, *mem = s->g_mem.data;
  size_t no = 0;
  /* The first member's penalty and value as bits (like: set once it is found, if neither is
   * a NaN): a member after it is recognised by two integer comparisons (a double's != is a
   * comparison and two branches, for NaNs). Equal bits of a number that is not a NaN are
   * equal doubles; equal doubles of other bits (+0 and -0) take the general path below,
   * which decides as before. */
  uint64_t wb = 0, vb = 0;
  int like = 0;
  for (int j = 0; j < nr; j++) {
    int vi = refs[j].var;
    const lmm_var *x = &vars[vi];
    double a = refs[j].coeff;
    if (a <= 0) continue;
    if (like && x->bneck == c && x->mark != stamp && bits(x->penalty) == wb && bits(x->value) == vb) {
      mem[n++] = vi;    /* a member like the first (so its penalty is positive) */
      ac += a;
      if (x->bound > 0 && x->bound < bm) bm = x->bound;
      continue;
    }
    if (x->penalty <= 0) continue;
    if (x->bneck == c) {
      if (x->mark == stamp) continue;              /* changed: in S0, filled */
      if (!n) {
        w = x->penalty;
        v = x->value;
        wb = bits(w);
        vb = bits(v);
        like = w == w && v == v;
      }
      else if (x->penalty != w || x->value != v) { s->inc_add.len = 0; *bmin = bm; return 0; }
      mem[n++] = vi;
      ac += a;
      if (x->bound > 0 && x->bound < bm) bm = x->bound;
      continue;
    }
    if (x->mark == stamp) continue;               /* in S0: filled */
    used += a * x->value;
    if (x->value * x->penalty > maxl) maxl = x->value * x->penalty;
    others[no++] = vi;
  }
  s->inc_add.len = no;
  s->g_mem.len = (size_t)n;
  *bmin = bm;
  if (!n && !s->inc_add.len) return -1;   /* every variable changed (c's first solve): no miss */
  if (n < LMMG_GROUP_MIN || !(v > 0)) return 0;
  s->g_c = c;
  s->g_w = w;
  s->g_v = v;
  s->g_ac = ac;
  s->g_use = ac / w;
  k->remaining = k->capacity - used;
  if (k->remaining < 0) k->remaining = 0;
  k->load = used;
  k->maxl = maxl;
  s->gc.data[c].a = 0;
  k->info_stamp = s->istamp;
  return 1;
}

/* T's other constraints, as the usual repair's pass over T, the members' part apart: the
 * fill sees them at their old value (g_v), the check at the new one (added after the fill). */
static void scan_others(lmm_system *s) {
  for (size_t i = 0; i < s->inc_c.len; i++) {
    int c = s->inc_c.data[i];
    if (c == s->g_c) continue;
    lmm_cnst *q = &s->cnsts.data[c];
    double used = 0, maxl = 0, am = 0;
    for (int j = 0; j < q->n; j++) {
      int vi = q->refs[j].var;
      const lmm_var *u = &s->vars.data[vi];
      double b = q->refs[j].coeff;
      if (u->mark == s->stamp || b <= 0 || u->penalty <= 0) continue;
      if (lmmg_member(s, u)) { am += b; continue; }
      used += b * u->value;
      if (u->value * u->penalty > maxl) maxl = u->value * u->penalty;
      queue_check(s, vi);
    }
    s->gc.data[c].a = am;
    q->remaining = q->capacity - used - am * s->g_v;
    if (q->remaining < 0) q->remaining = 0;
    q->load = used;
    q->maxl = maxl;
    q->info_stamp = s->istamp;
  }
}

/* After the fill: do the members keep c as their bottleneck, their other constraints of T
 * unsaturated (their load for the check completed)? */
static int group_holds(lmm_system *s, double bmin) {
  double v = s->g_v, nv = s->g_nv, top = nv > v ? nv : v;
  if (!(nv < bmin)) return 0;
  for (size_t i = 0; i < s->inc_c.len; i++) {
    lmm_cnst *q = &s->cnsts.data[s->inc_c.data[i]];
    double a = s->gc.data[s->inc_c.data[i]].a;
    if (s->inc_c.data[i] == s->g_c || a <= 0) continue;
    if (!(q->load + a * top < q->capacity * (1 - INC_EPS))) return 0;
    q->load += a * nv;
    if (nv * s->g_w > q->maxl) q->maxl = nv * s->g_w;
  }
  const lmm_cnst *k = &s->cnsts.data[s->g_c];
  return k->load >= k->capacity * (1 - INC_EPS) && nv * s->g_w >= k->maxl * (1 - INC_EPS);
}

/* Lists c among the groups with a bound of this g_epoch (forget_other_bounds; a few). */
static void note_bound(lmm_system *s, int c) {
  for (size_t i = 0; i < s->g_bounds.len; i++)
    if (s->g_bounds.data[i] == c) return;
  VEC_PUSH(s->g_bounds, c);
}

/* The members' other constraints outside T: below hi (computed again when it is unknown,
 * or when it may only be too low). */
static int bound_holds(lmm_system *s) {
  lmmg_cnst *g = &s->gc.data[s->g_c];
  double top = s->g_nv > s->g_v ? s->g_nv : s->g_v;
  int known = g->epoch == s->g_epoch && g->v == s->g_v;
  if (!known || (!(top < g->hi) && !g->exact)) {
    note_bound(s, s->g_c);
    double hi = group_bound(s, &s->cnsts.data[s->g_c]);
    g = &s->gc.data[s->g_c];
    g->hi = hi;
    g->exact = 1;
    g->epoch = s->g_epoch;
    g->v = s->g_v;
    s->g_live = 1;
  }
  return top < g->hi;
}

/* After the commit: the members' new value and the constraints of T in hi (the members now
 * include S0's variables that joined c's level). */
static void keep_bound(lmm_system *s) {
  lmmg_cnst *g = &s->gc.data[s->g_c];
  s->g_v = s->g_nv;
  s->stamp++;        /* S0's variables are kept ones now (lmmg_member) */
  for (size_t i = 0; i < s->inc_c.len; i++) {
    if (s->inc_c.data[i] == s->g_c) continue;
    const lmm_cnst *q = &s->cnsts.data[s->inc_c.data[i]];
    double other, a;
    split_load(s, q, &other, &a);
    if (a <= 0) continue;
    s->gc.data[s->inc_c.data[i]].watched = 1;
    double h = q->fatpipe ? -INFINITY : rise_limit(q, other, a);
    if (h < g->hi) g->hi = h;
  }
  g->v = s->g_v;
  g->exact = 0;
}

/* After a group repair on c: the other groups' bounds are unknown. Its commit changed the
 * values of S0's variables and of c's members, so the loads of their constraints, which
 * another group's members may use too: that group's hi, a lower bound of the value at which
 * one of its members' constraints saturates, may then be too high (two saturated links whose
 * members share a host's link: test_lmm_grepair.c, `two_groups_share_a_link`). lmmg_forget
 * would forget c's own bound too, which keep_bound has just kept: where c is the only group
 * with a bound (the backbone), nothing changes. */
static void forget_other_bounds(lmm_system *s, int c) {
  size_t n = 0;
  for (size_t i = 0; i < s->g_bounds.len; i++) {
    int c2 = s->g_bounds.data[i];
    if (c2 == c) s->g_bounds.data[n++] = c2;
    else s->gc.data[c2].epoch = s->g_epoch - 1;   /* unknown: computed again at its next repair */
  }
  s->g_bounds.len = n;
}

/* log2 of the longest run of candidacies skipped after scans that found no group. */
#define LMMG_BACKOFF_LOG 4

/* A scan of g's constraint found no group, or found one whose repair failed on a constraint
 * where none ever succeeded: its next 1, 3, 7... candidacies are skipped (solve_incremental
 * counts them down). */
static void back_off(lmmg_cnst *g) {
  if (g->miss < LMMG_BACKOFF_LOG) g->miss++;
  g->wait = (1u << g->miss) - 1;
}


/* The commit of member v at the group's value nv: a member of the engine's group clock of c
 * (its tag) only takes the value, reported with the others at once (1); any other is
 * committed as a variable of the usual repair (0). */
static inline int commit_member(lmm_system *s, lmm_var *vars, const int *gtag, int tag, double nv, int v,
                                void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  lmm_var *x = &vars[v];
  x->newval = nv;
  if (gtag[v] == tag) {
    x->value = nv;
    return 1;
  }
  lmmi_commit(s, v, changed, ctx);
  return 0;
}

int lmmg_repair(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx) {
  if (s->order || s->hidden.len || s->nstale) return 0;
  size_t nt0 = s->inc_c.len;
  /* The first modified constraint with a group (a flow's route has one saturated link), of
   * those large enough (g_cand, in T's order). The scans read S's marks, not T, so T grows
   * only once a group is found. */
  double bmin;
  int c = -1;
  s->istamp++;
  for (size_t i = 0; i < s->g_cand.len && c < 0; i++) {
    int ci = s->g_cand.data[i];
    lmmg_cnst *g = &s->gc.data[ci];
    s->g_scans++;
    int found = scan_group(s, ci, &bmin);
    if (found > 0) {   /* where no repair ever succeeded, its backoff goes on if it fails */
      c = ci;
      if (g->won) g->miss = 0;
      continue;
    }
    if (found < 0) continue;
    /* No group there: scanned again after 1, 3, 7... candidacies (at most 2^LMMG_BACKOFF_LOG - 1).
     * A fat tree's links, of members of several penalties, or a link whose flows are mostly
     * bottlenecked elsewhere, stay so; skipping costs only a usual repair, which is exact. */
    back_off(g);
    g->until = 0;   /* no new engine group there */
  }
  int ok = c >= 0, odd = 0;
  for (size_t i = 0; i < s->inc_v.len && ok; i++) {
    const lmm_var *x = &s->vars.data[s->inc_v.data[i]];
    if (x->penalty <= 0) continue;
    for (int j = 0; j < x->nel && ok; j++)
      if (x->el[j].coeff > 0) ok = lmmi_add_touched(s, x->el[j].cnst);
  }
  s->inc_chk.len = 0;
  if (ok) {
    for (size_t i = 0; i < s->inc_add.len; i++) queue_check(s, s->inc_add.data[i]);
    s->g_on = 1;
    scan_others(s);
    s->add_loads = 1;
    lmmi_fill(s, s->inc_v.data, s->inc_v.len, s->inc_c.data, s->inc_c.len);
    s->add_loads = 0;
    s->g_nv = s->g_lvl / s->g_w;
    ok = !s->g_free && group_holds(s, bmin) && bound_holds(s);
    for (size_t i = 0; i < s->inc_v.len && ok; i++) ok = lmmi_has_bottleneck(s, s->inc_v.data[i]);
    for (size_t i = 0; i < s->inc_chk.len && ok; i++) ok = lmmi_has_bottleneck(s, s->inc_chk.data[i]);
    /* The commit's members are the scan's (g_mem), unless a check gave a kept variable of the
     * members' penalty and value c as its bottleneck: lmmg_member then holds for it too, and
     * the commit reads c's list as before (never seen on the five shapes). */
    for (size_t i = 0; i < s->inc_chk.len && ok && !odd; i++) odd = lmmg_member(s, &s->vars.data[s->inc_chk.data[i]]);
  }
  s->g_on = 0;
  s->inc_chk.len = 0;
  s->inc_add.len = 0;
  if (!ok) {           /* T as it was: the usual repair starts from the modified constraints */
    s->g_fallback++;
    /* A group whose repair fails where none ever succeeded (a fat tree's switch link, whose
     * members' other links saturate first) is tried less and less often, as a constraint
     * without a group is; where group repairs succeed, a failure costs one attempt. */
    if (c >= 0 && !s->gc.data[c].won) back_off(&s->gc.data[c]);
    for (size_t i = nt0; i < s->inc_c.len; i++) s->cmark.data[s->inc_c.data[i]] = 0;
    s->inc_c.len = nt0;
    s->istamp++;
    return 0;
  }
  /* The engine's flows may join c's group for the next LMMG_KEEP solves (lmm_internal.h). */
  lmmg_cnst *gc = &s->gc.data[c];
  gc->won = 1;
  gc->miss = 0;
  gc->until = s->g_solve + LMMG_KEEP;
  if (gc->until > s->g_until) s->g_until = gc->until;
  s->g_join = 1;
  s->g_fast++;
  s->inc_ok++;
  s->inc_vars += s->inc_v.len;
  for (size_t i = 0; i < s->inc_v.len; i++) lmmi_commit(s, s->inc_v.data[i], changed, ctx);
  if (s->g_nv != s->g_v) {   /* the members, in c's order (lmmg_seed's order in S) */
    /* Those in the engine's group clock of c are reported together, by their number: the
     * engine checks that they are all its members (docs/performance.md, "one report"). */
    /* The scan's members (lmmg_member held for them then and still does: only S0's and
     * the checked variables changed since), in c's order; their fields in locals: the stores
     * of their values could alias the system's doubles for the compiler, which then reloaded
     * them at every member. lmmi_commit changes nothing they hold. */
    lmm_var *vars = s->vars.data;
    const int *gtag = s->vgtag;
    const double nv = s->g_nv;
    size_t tagged = 0;
    int tag = s->g_report ? c : -2;
    if (!odd) {
      const int *mem = s->g_mem.data;
      const size_t nm = s->g_mem.len;
      s->g_read += nm;
      for (size_t j = 0; j < nm; j++) tagged += commit_member(s, vars, gtag, tag, nv, mem[j], changed, ctx);
    } else {
      const lmm_cnst *k = &s->cnsts.data[c];
      s->g_odd++;
      s->g_read += (uint64_t)k->n;
      for (int j = 0; j < k->n; j++) {
        int v = k->refs[j].var;
        const lmm_var *x = &vars[v];
        if (k->refs[j].coeff <= 0 || x->penalty <= 0 || !lmmg_member(s, x)) continue;
        tagged += commit_member(s, vars, gtag, tag, nv, v, changed, ctx);
      }
    }
    if (tagged) s->g_report(ctx, c, nv, tagged);
  }
  keep_bound(s);
  forget_other_bounds(s, c);
  return 1;
}
