/* psim simulation kernel: simulated clock, event queue, activities and the sharing solver.
 *
 * The kernel knows nothing of MPI or traces. Drivers start activities (an amount of work that
 * progresses at a rate the resource models set) and timers, and get a callback when they end.
 * Determinism: events are ordered by (date, sequence number of scheduling), so the same inputs
 * always give the same order of callbacks.
 *
 * Ownership: sim_new allocates the kernel, sim_free releases it and every activity still in
 * it. An activity belongs to the kernel from sim_start_* until its callback has returned. */
#ifndef PSIM_KERNEL_H
#define PSIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "psim/util.h"

/* ---- The sharing solver (weighted max-min fairness, SimGrid's "LMM") ----
 * Constraints are resources with a capacity (a link's bandwidth, a host's flop rate); each
 * variable (a flow, a computation) consumes `coeff` units of a constraint per unit of its own
 * value. On a SHARED constraint the sum of consumptions is at most the capacity; on a FATPIPE
 * one, each variable alone is limited by it. A variable's penalty weights the sharing (a larger
 * penalty gets a smaller share); penalty 0 switches a variable off (it takes no share).
 * The solver only recomputes the connected components touched since the last solve. */
typedef struct lmm_system lmm_system;

lmm_system *lmm_new(void);
void lmm_free(lmm_system *s);
int lmm_cnst_new(lmm_system *s, double capacity, int fatpipe);
double lmm_cnst_capacity(const lmm_system *s, int c);
/* Changes constraint c's capacity (a host's CPU left over by communication): every variable
 * using it is re-solved at the next solve, and SimGrid's selective update is told (touch). */
void lmm_cnst_set_capacity(lmm_system *s, int c, double capacity);
/* Number of variables using constraint c (switched off ones included). */
int lmm_cnst_nvars(const lmm_system *s, int c);
/* A new variable; its value is reported to `owner` through the solve callback. */
int lmm_var_new(lmm_system *s, double penalty, double bound, void *owner);
/* Adds coeff to the consumption of constraint c by variable v (creating it when absent). */
void lmm_expand(lmm_system *s, int c, int v, double coeff);
void lmm_var_set_penalty(lmm_system *s, int v, double penalty);
void lmm_var_free(lmm_system *s, int v);
double lmm_var_value(const lmm_system *s, int v);
/* Re-solves the modified components; calls changed(ctx, owner, value) for every variable of
 * them whose value differs from the previous solution. */
void lmm_solve(lmm_system *s, void (*changed)(void *ctx, void *owner, double value), void *ctx);
/* SimGrid's selective update (network/optim:Lazy, lmm_selective.c): only the constraints
 * reached from the events since the last solve are re-solved, as SimGrid does, even where
 * that is not the max-min solution of the whole system. Off (the default of a new system):
 * the exact max-min solution after every change. The models report the events: */
void lmm_set_selective(lmm_system *s, int on);
/* network/solver:groups: a saturated constraint's bottleneck group is re-solved as one
 * variable in the local repair (lmm_group.c); off (the default), every member is re-solved. */
void lmm_set_groups(lmm_system *s, int on);
/* Local repairs done with a group as one variable, scans of a constraint for a group (for the
 * tests and PSIM_LMM_STATS). */
uint64_t lmm_group_repairs(const lmm_system *s);
uint64_t lmm_group_scans(const lmm_system *s);
int lmm_selective(const lmm_system *s);
/* a new variable (switched off or on) got an element on constraint c; */
void lmm_touch_cnst(lmm_system *s, int c);
/* Would lmm_touch_cnst do anything now? (A model may skip looking up a route's links.) */
int lmm_touching(const lmm_system *s);
/* variable v was switched on (its first constraint is touched). Freeing touches by itself. */
void lmm_touch_var(lmm_system *s, int v);
/* The engine, at the start of each epoch (after a solve, before the events of the next date):
 * how many variables it is about to switch on. */
void lmm_walks(lmm_system *s, int enables);
/* ... and once it has switched them on (before freeing the ended activities' variables). */
void lmm_enables_done(lmm_system *s);
/* SimGrid's order (lmm_sgorder.c, --cfg network/tie-order:simgrid): after a solve, the owners
 * of the variables of its modified set M, in the order SimGrid hands them back to their model
 * (which re-inserts them into its action heap in that order). */
int lmm_ordered(const lmm_system *s);
/* Off by default; only with the selective update; set before any variable exists. */
void lmm_set_sg_order(lmm_system *s, int on);
size_t lmm_modified(const lmm_system *s, void *const **owners);
/* The constraint that limits variable v in the last exact solution, or -1 (at its bound,
 * unknown, switched off). The engine's group clocks use it to choose a flow's group. */
int lmm_var_bneck(const lmm_system *s, int v);
/* Number of variables solved so far (a cost counter for benchmarks). */
uint64_t lmm_work(const lmm_system *s);
/* Open modified sets solved exactly with hidden elements (lmm_selective.c; for the tests). */
uint64_t lmm_hidden_solves(const lmm_system *s);

/* ---- Activities and the clock ---- */
typedef struct sim sim;
typedef struct activity activity;
typedef struct sim_vgroup sim_vgroup;   /* engine.c: a group clock (network/solver:groups) */
typedef void (*activity_done_fn)(sim *s, activity *a);

struct activity {
  /* Two parts (issue 38): the head, which every activity has, and the tail, which only those
   * that progress at a rate, have two phases or join group clocks have. An event
   * (sim_start_event, a constant-model message) is allocated without the tail: 96 bytes
   * instead of 160, and a message in flight holds one. Code reading a tail field checks first
   * that the activity is rated (var >= 0), a two-phase one or a group member. */
  double date;          /* predicted completion date (INFINITY when not progressing) */
  uint64_t seq;         /* tie-breaker in the event queue */
  activity_done_fn done;
  void *data;           /* the driver's */
  /* Two-phase activities (a message: latency, then transfer) keep the second phase here. */
  activity_done_fn then;
  void *model;          /* the model that started it */
  double next_work;
  int var;              /* solver variable, -1 for a timer */
  int heap;             /* index in the event queue, -1 when not queued */
  int tag;              /* the driver's (kind of activity) */
  int src, dst;         /* the model's (endpoints of a message) */
  int cpu;              /* an activity of SimGrid's CPU model: its host's constraint, else -1 */
  /* Group clocks (engine.c): a member's group, its place in the group's heap (-2: the
   * group's proxy entry in the event heap, -1: not a member) and its finish key. */
  int vgpos;
  uint8_t daemon;       /* see sim_daemon */
  uint8_t groupable;    /* sim_groupable */
  uint8_t event;        /* allocated without the tail (sim_start_event) */
  /* ---- the tail ---- */
  double remaining;     /* work left (flops, bytes) as of `updated`; for timers unused */
  double rate;          /* work per second now (solver value x scale) */
  double scale;         /* effective rate = solver value * scale (SMPI's bandwidth factor) */
  double updated;       /* date `remaining` was last brought up to date */
  double next_penalty, next_bound;
  int next_var;
  unsigned vgstamp;     /* the solve in which it last reported to its group */
  sim_vgroup *vg;
  double vgkey;
};
/* The size of an event activity (sim_start_event): its head. */
#define SIM_EVENT_SIZE offsetof(activity, remaining)

sim *sim_new(void);
void sim_free(sim *s);
double sim_now(const sim *s);
lmm_system *sim_lmm(sim *s);

/* A timer: done() is called at now + delay. */
activity *sim_start_timer(sim *s, double delay, activity_done_fn done, void *data, int tag);
/* A timer whose caller sets none of the tail's fields (struct activity) and never continues
 * it as work: done() is called at now + delay, with a's head only (data, tag, src, dst...).
 * A constant-model message is one (models_transfer); 96 bytes instead of 160. */
activity *sim_start_event(sim *s, double delay, activity_done_fn done, void *data, int tag);
/* Marks (issue 38, part 3): a completion at a fixed date that needs no activity at all. The
 * event heap's entry (24 bytes) points at the caller's own object, tagged with a kind that
 * sim_mark_kind registered: fn(s, obj) is called at now + delay, in the same (date, sequence)
 * order as an activity started instead would be (a mark takes a sequence number as
 * sim_start_event does). A mark is never moved, cancelled or continued; obj must be 8-byte
 * aligned and stay valid until fn is called. A constant-model message's end is one
 * (models_transfer_mark): no 88-byte event a message in flight.
 * sim_mark_kind returns the kind of fn (the same for the same fn), or 0 when the SIM_MARK_KINDS
 * kinds are taken: the caller then starts an event instead. */
typedef void (*sim_mark_fn)(sim *s, void *obj);
#define SIM_MARK_KINDS 7
int sim_mark_kind(sim *s, sim_mark_fn fn);
void sim_start_mark(sim *s, double delay, void *obj, int kind);
/* SimGrid's CPU model (its order of one date's events, engine.c): sim_start_sleep is a timer
 * that is a sleep on the host whose CPU constraint is `cnst` (a rank's sleep, MPI overheads,
 * test sleeps); sim_cpu_work declares work activity a a computation on constraint `cnst`. */
activity *sim_start_sleep(sim *s, double delay, int cnst, activity_done_fn done, void *data, int tag);
void sim_cpu_work(sim *s, activity *a, int cnst);
/* A timer that does not keep the simulation going: sim_run returns as soon as only daemon
 * timers remain (they stay queued, never called). For model changes at given dates (a
 * machine file's `at` lines), which must not lengthen a run that ends before them. */
activity *sim_start_daemon(sim *s, double delay, activity_done_fn done, void *data, int tag);
/* An activity of `work` units whose rate is solver variable `var` (already expanded on its
 * constraints) times `scale`. The kernel frees the variable when the activity ends. */
activity *sim_start_work(sim *s, double work, int var, double scale, activity_done_fn done,
                         void *data, int tag);
/* Turns a timer-phase activity into a work phase (used for a message's latency then transfer):
 * the same activity object continues with `work` units at solver variable `var`. Only valid
 * from inside its own done() callback; the activity is then not freed. */
void sim_continue_work(sim *s, activity *a, double work, int var, double scale);

/* Activities whose rate the model sets itself, without a solver variable (the star network's
 * equal port shares are not max-min): `work` units at `rate` units per second from now.
 * sim_set_rate brings the work left up to date and changes the rate from now on (0: paused);
 * sim_scale_work multiplies the work left by f (a host's performance factor changed). Both
 * are valid for any activity in a work phase (sim_set_rate: only one without a variable). */
activity *sim_start_rated(sim *s, double work, double rate, activity_done_fn done, void *data, int tag);
void sim_set_rate(sim *s, activity *a, double rate);
void sim_scale_work(sim *s, activity *a, double f);
/* Group clocks (network/solver:groups, engine.c, docs/performance.md "Group clocks"): flows
 * sharing one bottleneck at one share advance on one virtual clock, sit once in the event
 * heap, and a change of their share costs one re-dating. Off by default (the per-flow path).
 * Ignored under SimGrid's order of ties (lmm_ordered). sim_groupable marks a work activity
 * whose variable may join a group (the network model's flows; not computations). */
/* sim_set_groups(s, min_vars): groups on constraints used by at least min_vars variables
 * (0: off). SIM_GROUPS_MIN is the models' choice: on smaller constraints a group's joins and
 * leaves cost more than the per-flow re-datings they save (docs/performance.md). From the
 * solver's own minimum (32 variables) on, a constraint gets a group only once the solver
 * re-solved its bottleneck group as one variable (lmm_group.c): there the solver reports the
 * members together; elsewhere a group costs more than it saves. */
#define SIM_GROUPS_MIN 32
void sim_set_groups(sim *s, int min_vars);
void sim_groupable(sim *s, activity *a);
/* Flows that joined a group so far, groups dissolved (the exact fallback), the solver's reports
 * of many members at once: for the tests. */
uint64_t sim_group_joins(const sim *s);
uint64_t sim_group_dissolves(const sim *s);
uint64_t sim_group_batches(const sim *s);
/* Work left at the current date. */
double sim_work_left(const sim *s, const activity *a);
/* Marks a as a daemon: its events happen while the simulation runs but do not keep it running
 * (background load, samplers): sim_run returns once only daemons remain. */
void sim_daemon(sim *s, activity *a);

/* Ready queue of the driver's runnable entities (ranks), served in FIFO order. */
void sim_make_ready(sim *s, int id);
/* What may still happen: the activities queued (daemons aside) / the entities ready to run. */
size_t sim_pending(const sim *s);
size_t sim_nready(const sim *s);
/* The date of the next queued event (a daemon's too, when others remain), INFINITY when only
 * daemons or nothing remain: a replay spread over processes (issue 38) agrees on its next
 * window's start with it. */
double sim_next_date(const sim *s);

/* Runs until nothing but daemons remains to do: serves ready entities with run(ctx, id), solves, advances
 * the clock to the next completion, calls done() callbacks, repeats. Returns the number of
 * events processed. */
uint64_t sim_run(sim *s, void (*run)(void *ctx, int id), void *ctx);
/* Makes sim_run return after the current callback (a driver hit an error). */
void sim_stop(sim *s);
/* Non-zero when sim_run stopped because an activity's end date overflowed a double (a finite
 * delay or volume too large to be dated): the driver reports it as an input error. */
int sim_overflowed(const sim *s);

#endif
