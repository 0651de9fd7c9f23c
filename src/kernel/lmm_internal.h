/* Internals of the sharing solver, shared by lmm.c (the solver) and lmm_selective.c (SimGrid's
 * selective-update semantics). Nothing outside src/kernel/ includes this. */
#ifndef PSIM_LMM_INTERNAL_H
#define PSIM_LMM_INTERNAL_H

#include "psim/kernel.h"

typedef struct { int cnst; int cpos; double coeff; } lmm_elem;   /* a variable's use of a constraint */
/* A constraint's list entry; coeff duplicates the variable's element (read in the hot loops). */
typedef struct { int var; int epos; double coeff; } lmm_ref;

/* A group of a constraint's variables charged to one witness constraint (lmm_bound.c). */
typedef struct { int cnst; int count; double ratio, cap; } lmm_witness;

typedef struct {
  double capacity;
  int fatpipe;
  lmm_ref *refs;
  int n, cap;
  int dirty;          /* in the dirty list */
  unsigned info_stamp;  /* load and maxl below are those of the tentative solution istamp */
  double load, maxl;    /* sum a_cv x_v and max level x_v w_v over the variables */
  /* scratch for the solve */
  double remaining, usage;
  int nfree;
  unsigned qstamp;    /* solve_incremental: scanned for kept variables above qlvl this round */
  double qlvl;
  /* Never binding (see lmm.c, "Constraints that cannot bind"): sum of coeff x bound over its
   * variables, how many of them are unbounded, and whether the exact solver may leave it out. */
  double bsum;
  int nunb;
  int clean;          /* non-binding since every variable recording it as bottleneck was checked */
  int skip;           /* clean and still non-binding: the exact solver ignores it */
  lmm_witness *wit;   /* open addressing by witness constraint, wcap a power of 2 (or 0) */
  int wn, wcap;
} lmm_cnst;

/* lmm_group.c's state of a constraint, the bottleneck group as one variable
 * (network/solver:groups), in an array of its own: lmm_cnst stays 128 bytes (a larger one cost
 * the per-flow path 2 % more instructions, its index no longer a shift). a: in a group repair,
 * the group's members' coefficients summed on this constraint. On a group's constraint: hi, a
 * value its members can rise to without saturating any of their other constraints (a lower
 * bound of the true one), valid while epoch is the system's g_epoch and the members' value is
 * v (a group repair on another constraint sets epoch back: forget_other_bounds); exact when it
 * was just computed over every member. stamp: visited by that computation
 * (s->g_visit). watched: a group's constraint, or used by its members when hi was computed. */
typedef struct {
  double a, hi, v;
  unsigned epoch, stamp;
  int exact, watched;
  int won;            /* a group repair ever succeeded on it */
  unsigned miss, wait;  /* scans in a row that found no group (or, never won, whose group repair
                         * failed); candidacies left to skip */
  uint64_t until;     /* the engine's groups form on it while the system's g_solve is below:
                       * LMMG_KEEP solves after its last group repair; 0 after a scan that found
                       * no group */
} lmmg_cnst;

/* Members' variables at least, for a group repair (lmm_group.c; below: the usual repair). */
#define LMMG_GROUP_MIN 32
/* Solves after a constraint's last group repair during which the engine's flows may still join
 * its group (lmmg_cnst.until; docs/performance.md, "Group clocks: a group only while its
 * repairs succeed"). */
#define LMMG_KEEP 16

/* A variable's fields the solve reads: one cache line (the array is 64-byte aligned). */
typedef struct {
  double penalty, bound, value, newval;
  lmm_elem *el;
  int nel;
  int bneck;          /* what limits it in the current solution: a constraint, or BNECK_* */
  unsigned mark;      /* component stamp; in solve_incremental: in the re-solved set S */
  unsigned cmark, qmark;  /* solve_incremental: to be checked, queued for S, in this round */
  int fixed;
} lmm_var;

/* The others, in a parallel array. */
typedef struct {
  void *owner;
  int cap;            /* of el */
  int alive, dirty;
  int next_free;
} lmm_var_cold;

/* What SimGrid's modified-set walk (lmm_selective.c, lmm_sgorder.c) reads of a variable,
 * besides its stamp (lmm_system.vvisit, 4 bytes a variable: the walk tests it at every list
 * entry it reads, visited or not): one 64-byte line per variable (the array is 64-byte
 * aligned). The walk visits every variable of the touched components; it read the stamp, its
 * hot line (penalty, el, nel) and its element array (a separate allocation, 16 bytes an
 * element), three to four cache lines a variable for what it needs: whether it is switched on,
 * and its constraints. Those are copied here (on, nel, c: kept by lmm_var_new, lmm_expand and
 * lmm_var_set_penalty; a freed variable is in no list, and its slot's record is reset when it
 * is reused; the walk reads el only past LMM_HOPS elements). */
#define LMM_HOPS 12
typedef struct {
  int stale;          /* value from a solve that did not see all its constraints */
  int hidden;         /* elements left out of the solution (lmm_selective.c, "Open sets") */
  int on;             /* !(penalty <= 0): the walk goes through it */
  int nel;            /* lmm_var.nel */
  int c[LMM_HOPS];    /* el[j].cnst, for j < LMM_HOPS */
} lmm_var_walk;
_Static_assert(sizeof(lmm_var_walk) == 64, "one cache line a variable");

/* SimGrid's order of a variable (lmm_sgorder.c): when it was last switched on; listed by this
 * solve (lmmo_solve). */
typedef struct { uint64_t ord, ostamp; } lmm_var_ord;

/* A constraint's state in SimGrid's modified-set walk (lmm_selective.c, lmm_sgorder.c): m ==
 * the system's epoch while it is in the modified set M; and what the walk may skip of its
 * list, which holds `on` entries of switched-on variables (exact, kept at every change of a
 * penalty or a list; the others, switched off, the walk skips) of which vis were visited in
 * this epoch since it joined M (reset when it joins; a variable visited joins all its
 * constraints, so any other count is of a constraint out of M, never read). vis may count
 * too few (an entry added or visited before the join, removed after), never too many, so
 * vis == on proves that every entry is skippable. A constraint taken from the walk's stack in
 * that state has nothing to give the walk, and its list is not read: on a component held
 * together by a shared link the walk reaches most variables through it, and their other
 * links' lists, read after, were nothing but skipped entries (docs/performance.md, "The walk
 * skips lists it has seen"). In one record: the walk reads m and vis of each element of each
 * variable it visits, and decides a skip without reading the constraint's own record. n and
 * refs: the constraint's list (lmm_cnst's, copied by lmm_expand and lmm_var_free), which the walk
 * reads from here, not from the constraint's 128-byte record, a cache line more per list. */
typedef struct { unsigned m; int vis, on, n; const lmm_ref *refs; } lmm_cnst_walk;

/* lmm_selective.c: an element of a variable left out of the solution, with its coefficient. */
typedef struct { int var, el; double coeff; } lmm_hidden;

/* lmm_sgorder.c: a constraint's switched-on variables in SimGrid's list order (lmmo_list: by
 * increasing stamp, read from the end; entries whose variable went off or away are skipped,
 * then dropped), and one level of SimGrid's recursive walk (constraint c, at list position
 * pos, variable v, its element j). */
/* el: the variable's element on the constraint; w: its weight there, coefficient / penalty
 * (what SimGrid's filling sums); var is -1 once the variable went off or away. */
typedef struct { int var, el; uint64_t ord; double w; } lmmo_ent;
typedef struct { lmmo_ent *e; size_t n, cap, dead; } lmmo_list;
typedef struct { int c; size_t pos; int v, j; const lmmo_list *l; } lmmo_frame;
/* lmmo_solve: a constraint that can still saturate (SimGrid's ConstraintLight), with its
 * active variables at o_act[a0 .. a0 + an). */
typedef struct { int c, an; size_t a0; double r; } lmmo_light;

struct lmm_system {
  VEC(lmm_cnst) cnsts;
  VEC(unsigned) cmark;      /* per constraint: component stamp; in solve_incremental: in T */
  struct { lmm_var *data; size_t len, cap; } vars;   /* 64-byte aligned */
  lmm_var_cold *vcold;      /* vars.cap entries */
  lmm_var_walk *vwalk;      /* vars.cap entries, 64-byte aligned */
  lmm_var_ord *vord;        /* vars.cap entries */
  unsigned *vvisit;         /* vars.cap entries: reached by the walk of this epoch */
  int *vgtag;               /* vars.cap entries: the engine's group clock the variable is in (its
                             * constraint, lmmi_set_gtag), or -1; dense, as lmmg_repair's commit
                             * reads it for each of ~800 members at each event (it was in
                             * lmm_var_cold, a cache line more a member) */
  int free_var;             /* head of the free list of variable slots, -1 when empty */
  VEC(int) dirty_cnsts;
  VEC(int) dirty_vars;
  unsigned stamp;
  VEC(int) comp_c, comp_v, stack;  /* scratch: one component's constraints and variables */
  VEC(int) inc_v, inc_c, inc_add, inc_chk;  /* solve_incremental: S, T, vars to add to S, to check */
  VEC(int) fill_c, fill_b;  /* fill: constraints that can still saturate, free bounded vars */
  VEC(double) fill_r;       /* fill: remaining / usage of fill_c's constraints this round */
  unsigned istamp;
  int add_loads;            /* fill adds what it fixes to the loads (solve_incremental's check reads them) */
  uint64_t work;
  uint64_t solves, rounds;  /* full component solves, filling rounds (both kinds) */
  uint64_t inc_ok, inc_fail, inc_vars;   /* local repairs kept, their variables; given up */
  int skip_on;              /* lmmi_skip allowed in this solve */
  int check;                /* PSIM_LMM_CHECK: compare every local repair with a full solve */
  /* SimGrid's selective update (lmm_selective.c); all zero when off */
  int selective;
  int walks;                /* walk at each touch in this epoch (lmm_walks) */
  unsigned epoch;           /* one per solve */
  VEC(int) m_list;          /* the modified set M, in order of entry */
  VEC(lmm_cnst_walk) cwalk; /* per constraint: in M, the walk's skippable entries (dense: the
                             * walk reads it for every constraint of every visited variable) */
  VEC(int) late;            /* variables switched on while their first constraint was in M */
  VEC(int) walk;            /* scratch stack of the walk */
  uint64_t walk_read;       /* list entries the walk read (for the tests) */
  int walk_noskip;          /* read every list (the tests' reference walk) */
  size_t nstale;            /* variables with stale set */
  int stale_in_m;           /* the walks of this epoch met a stale variable */
  int sg_always;            /* PSIM_LMM_SG: always solve M as SimGrid does (a debugging aid) */
  int no_hide;              /* PSIM_LMM_NOHIDE: open sets by progressive filling (lmm_selective.c) */
  uint64_t sel_fast, sel_restricted, sel_open;   /* solves: exact path, restricted, with open M */
  uint64_t sel_hidden;      /* open M solved by the exact path, with elements hidden */
  VEC(lmm_hidden) hidden;   /* the elements left out of the current solution */
  /* SimGrid's order of M and of its actions (lmm_sgorder.c; on with the selective update) */
  int order;
  uint64_t ord_next, o_stamp;
  VEC(lmmo_frame) o_frames;
  lmmo_list *o_lists;       /* per constraint */
  size_t o_nlists;
  VEC(void *) o_owners;     /* the actions of the last solve's M, in SimGrid's order */
  /* lmmo_solve's scratch: its light table, the active elements' variables, the saturated
   * constraints and variables of a round */
  VEC(lmmo_light) o_light;
  VEC(int) o_act, o_sat, o_vlist;
  /* The bottleneck group as one variable in the local repair (lmm_group.c, lmmg_repair; on
   * under network/solver:groups). During a group repair (g_on): the group's constraint g_c,
   * its members' penalty g_w and value g_v (the predicate lmmg_member), their new value g_nv;
   * in fill, the group's usage g_use (sum of coefficient / penalty), whether it is still free
   * and the level it was fixed at. g_epoch: bumped by every solve that is not a group repair
   * (their bounds, lmmg_cnst.hi, are then unknown). */
  int groups;
  VEC(lmmg_cnst) gc;        /* per constraint */
  int g_on, g_c, g_free;
  double g_w, g_v, g_nv, g_use, g_ac, g_lvl;
  unsigned g_epoch, g_visit;
  int g_live;               /* some group's bound is known (of this g_epoch) */
  VEC(int) g_bounds;        /* the groups' constraints whose bound was computed in this g_epoch */
  /* The engine's groups (engine.c) form only where group repairs keep succeeding: g_solve
   * counts lmmi_solve_exact's solves, g_until is the largest lmmg_cnst.until given, and g_join,
   * set at each solve and by each group repair, is g_always || g_until > g_solve (one load for
   * the engine at each re-rated flow; g_always: the unit tests' small groups). */
  uint64_t g_solve, g_until;
  int g_join, g_always;
  /* solve_incremental: the modified constraints of T with LMMG_GROUP_MIN variables or more
   * (lmmg_repair's candidates; T has no FATPIPE constraint). None: no group repair. */
  VEC(int) g_cand;
  /* lmmg_repair: the group's members found by the scan of g_c, in c's order (the commit's
   * list). */
  VEC(int) g_mem;
  /* lmmg_last_round in a group repair: S0's free variables on the group's constraint, with
   * their place in its list (var, epos: that place), in the list's order. */
  VEC(lmm_ref) g_s0;
  /* The engine's report of a group repair's members that are in its group clock of the
   * group's constraint (gtag == g_c): one call with their number instead of one per member
   * (lmmg_repair's commit; NULL: every member reported to `changed`). */
  void (*g_report)(void *ctx, int c, double value, size_t n);
  uint64_t g_fast, g_fallback, g_recompute, g_scans;
  uint64_t g_odd;            /* group repairs whose commit read c's list (lmmg_repair, `odd`) */
  uint64_t g_read;           /* entries the group repairs' commits read (members, or c's list) */
  uint64_t last_read;        /* entries lmmg_last_round read (S0's variables, or c's list) */
};

/* Variable v's entry on constraint c enters (d = 1) or leaves (d = -1) c's list, or v switches
 * on (d = 1) or off (d = -1, called with on = 1): what it changes in the walk's counts
 * (lmm_cnst_walk; `on`: its penalty is positive, as the walk reads it). */
static inline void lmms_count(lmm_system *s, int v, int c, int on, int d) {
  if (!on) return;
  s->cwalk.data[c].on += d;
  if (s->selective && s->vvisit[v] == s->epoch) s->cwalk.data[c].vis += d;
}

/* Values of var.bneck besides a constraint index. */
enum { BNECK_BOUND = -1,    /* at its bound (or unconstrained) */
       BNECK_NONE = -2 };   /* unknown: must be checked (and switched-off variables) */


/* Is kept variable x a member of the group of the current group repair (lmm_group.c)? Its
 * members are the variables recorded as bottlenecked on the group's constraint, all of one
 * penalty and one value (the repair refuses a constraint where that does not hold). */
static inline int lmmg_member(const lmm_system *s, const lmm_var *x) {
  return x->bneck == s->g_c && x->value == s->g_v && x->penalty == s->g_w && x->mark != s->stamp;
}

/* engine.c: variable v's activity joined the group clock of constraint c (-1: left it). */
static inline void lmmi_set_gtag(lmm_system *s, int v, int c) { s->vgtag[v] = c; }

/* lmm.c, for lmm_selective.c */
/* Variable v / constraint c changed: the next solve re-solves from there. */
void lmmi_mark_var(lmm_system *s, int v);
void lmmi_mark_cnst(lmm_system *s, int c);
/* Makes variable v's new value (newval) its value, and reports it when it changed. */
static inline void lmmi_commit(lmm_system *s, int v, void (*changed)(void *ctx, void *owner, double value),
                               void *ctx) {
  lmm_var *x = &s->vars.data[v];
  if (x->newval == x->value) return;
  x->value = x->newval;
  void *owner = s->vcold[v].owner;
  if (changed && owner) changed(ctx, owner, x->value);
}
void lmmi_solve_exact(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx);
void lmmi_clear_dirty(lmm_system *s);

/* SimGrid's precision rule in its progressive filling (maxmin/precision, 1e-5), shared by
 * lmm_selective.c's sg_fill and lmm_sgorder.c's lmmo_solve: what is left of a capacity or a
 * usage after a subtraction counts as 0 under `precision` (1e-5 of the capacity, or 1e-5). */
#define LMM_SG_PRECISION 1e-5
static inline double lmmi_sg_update(double v, double minus, double precision) {
  v -= minus;
  return v < precision ? 0 : v;
}

/* lmm_bound.c */
void lmmb_refresh(lmm_cnst *k);
/* Element i of variable v was added (old_coeff 0) or its coefficient grew from old_coeff. */
void lmmb_elem_changed(lmm_system *s, int v, int i, double old_coeff);
void lmmb_var_gone(lmm_system *s, int v);
/* Does the exact solver leave constraint k out (see lmm_bound.c)? Never with stale values
 * around: the bound assumes a feasible solution, which SimGrid's restricted solves may not keep. */
static inline int lmmi_skip(const lmm_system *s, const lmm_cnst *k) { return k->skip && s->skip_on; }

/* lmm.c, for lmm_group.c's group repair: the tolerance of the repair's check, the fill, the
 * bottleneck check of one variable, T's growth (0 on a FATPIPE constraint). */
#define INC_EPS 1e-9
void lmmi_fill(lmm_system *s, const int *vs, size_t nvs, const int *cs, size_t ncs);
int lmmi_has_bottleneck(lmm_system *s, int v);
int lmmi_add_touched(lmm_system *s, int c);

/* lmm_group.c: the local repair with a saturated constraint's bottleneck group as one
 * variable (network/solver:groups): 1 when done (values reported), 0 when the caller must
 * repair as usual (nothing committed then, S and T as they were). */
int lmmg_repair(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx);
/* fill, when the group is at the saturating constraint k: fixes it at level. */
void lmmg_fix_group(lmm_system *s, lmm_cnst *k, double level);
/* A solve other than a group repair changed values: every group's bound is unknown. */
static inline void lmmg_forget(lmm_system *s) { s->g_epoch++; s->g_live = 0; s->g_bounds.len = 0; }
/* Another solve changed values on the constraints cs (and nowhere else): the bounds are
 * unknown if a group's members use one of them (watched). A solve of hosts' CPUs alone, say,
 * leaves them. */
static inline void lmmg_forget_touched(lmm_system *s, const int *cs, size_t n) {
  if (!s->g_live) return;   /* no bound known: nothing to forget */
  for (size_t i = 0; i < n; i++)
    if (s->gc.data[cs[i]].watched) { lmmg_forget(s); return; }
}

/* lmm_group.c: puts the bottleneck groups of modified saturated constraints into the local
 * repair's set S (solve_incremental, before its first round). */
void lmmg_seed(lmm_system *s);
/* lmm.c's fill: the last round of a fill whose free variables all use the one constraint that
 * saturates (in s->stack), done without the capacity updates; 0 if that is not the case. */
int lmmg_last_round(lmm_system *s, double level, int nfree, const int *cs, size_t ncs);
/* Will this repair (S = inc_v) leave T's loads to cnst_info? */
int lmmg_lazy(const lmm_system *s);

/* lmm_selective.c */
void lmms_init(lmm_system *s);
void lmms_free(lmm_system *s);
void lmms_var_gone(lmm_system *s, int v);
/* v's hidden elements (if any) come back, silently: its constraints are being modified. */
void lmms_unhide_var(lmm_system *s, int v);
void lmms_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx);

/* lmm_sgorder.c */
/* Touches constraint c (not in M) as SimGrid's recursive walk does, in its order. */
void lmmo_walk(lmm_system *s, int c);
/* Variable v is switched on (goes to the front of its constraints' lists), gets a new
 * element on constraint c, goes off or away. */
void lmmo_switched_on(lmm_system *s, int v);
void lmmo_elem_added(lmm_system *s, int v, int el);
void lmmo_off(lmm_system *s, int v);
/* v, switched on, has a new penalty or a new coefficient on one of its elements. */
void lmmo_reweigh(lmm_system *s, int v);
void lmmo_free(lmm_system *s);
/* Solves M as SimGrid does, operation for operation in its order, reports the
 * values that changed, and lists M's actions in SimGrid's order (o_owners). */
void lmmo_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx);

#endif
