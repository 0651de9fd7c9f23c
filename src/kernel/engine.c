/* The simulation engine: clock, event queue, activities, ready queue.
 *
 * Activities progress at the rate the solver gives their variable. Rather than touching every
 * activity at every event, each keeps (remaining, updated, rate) and a predicted completion
 * date in a 4-ary heap; only activities whose rate changes are brought up to date ("lazy"
 * updates, as SimGrid's default). The heap orders by (date, seq) so ties resolve in the order
 * activities were scheduled: runs are deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "psim/kernel.h"
#include "lmm_internal.h"   /* the solver's bottlenecks and groups, read per report */

/* An event queue entry: the activity and a copy of its key (see the event heap below). A
 * mark's entry (sim_start_mark) holds its object's address with the mark's kind in the low
 * bits instead (mark_kind nonzero): no activity, no back-index. */
typedef struct { double date; uint64_t seq; activity *a; } heap_ent;
#define MARK_BITS ((uintptr_t)7)
static inline unsigned mark_kind(const activity *a) { return (unsigned)((uintptr_t)a & MARK_BITS); }

struct sim {
  double now;
  uint64_t seq;
  lmm_system *lmm;
  VEC(heap_ent) heap;
  /* ready queue: a ring buffer of ids */
  int *ready;
  size_t rhead, rlen, rcap;
  psim_slab pool;         /* activity objects */
  psim_slab events;       /* event activities (sim_start_event): their head only */
  VEC(activity *) batch;  /* the events of one date (selective update) */
  VEC(activity *) sleeps; /* SimGrid's CPU sleeps started since the last solve (sim_start_sleep) */
  size_t ndaemon;         /* daemons in the heap */
  int bulk;               /* schedule() leaves the heap order to heapify() (sg_heap_order) */
  int stopped;
  int overflow;           /* a finite delay or work ended past the largest double: run stopped */
  /* Group clocks (network/solver:groups; see "Group clocks" below) */
  int groups;             /* sim_set_groups: smallest constraint (variables) with a group; 0 off */
  VEC(sim_vgroup *) vg_of; /* per constraint: its group, or NULL */
  VEC(sim_vgroup *) vg_touched;  /* groups reported on (or joined) in this solve */
  VEC(activity *) vg_cand;        /* flows re-rated per flow in this solve: may join a group */
  unsigned vg_stamp;      /* one per solve */
  size_t vg_members;      /* activities in groups (not in the event heap themselves) */
  size_t vg_proxies;      /* groups' proxies in the event heap */
  uint64_t vg_joins, vg_leaves, vg_dissolves, vg_moves;   /* PSIM_LMM_STATS counters */
  uint64_t vg_batches;    /* the solver's reports of many members at once (vg_members_report) */
  sim_mark_fn marks[SIM_MARK_KINDS + 1];   /* by kind (1..SIM_MARK_KINDS) */
};

/* A group clock: flows of one share, on one virtual time (docs/performance.md, "Group
 * clocks (issue 35)"). V is the work per unit of scale done by every member since the group
 * began, as of date tv; r the members' solver value. A member's key is the V at which it
 * ends; its work left at date t is (key - V(t)) x scale. */
struct sim_vgroup {
  double V, tv, r;
  int cnst;               /* the constraint whose group it is */
  VEC(activity *) m;      /* the members: a binary min-heap by (vgkey, seq) */
  activity *proxy;        /* its entry in the event heap */
  unsigned stamp;         /* == sim.vg_stamp: reported on in this solve */
  double newr;            /* the value reported in this solve */
  size_t nsame;           /* members that reported newr (or joined at it) in this solve */
};

void sim_stop(sim *s) { s->stopped = 1; }

int sim_overflowed(const sim *s) { return s->overflow; }

/* A date computed from a finite delay (or finite work at a positive rate) that comes out
 * infinite has overflowed: INFINITY means "never" to the heap, so the activity would silently
 * never end and the run would look like a deadlock. Stop instead; the caller reports it. */
static void date_overflow(sim *s, activity *a) {
  if (a->date != INFINITY) return;
  s->overflow = 1;
  s->stopped = 1;
}

sim *sim_new(void) {
  sim *s = xcalloc(1, sizeof *s);
  s->lmm = lmm_new();
  s->vg_stamp = 1;   /* a new group's stamp (0) is never this solve's */
  psim_slab_init(&s->pool, sizeof(activity));
  psim_slab_init(&s->events, SIM_EVENT_SIZE);
  return s;
}

static void vg_free(sim *s, sim_vgroup *g);

void sim_free(sim *s) {
  if (!s) return;
  if (s->groups && getenv("PSIM_LMM_STATS"))
    fprintf(stderr, "groups: %llu joins, %llu leaves, %llu dissolved, %llu re-datings, %llu members' reports at once\n",
            (unsigned long long)s->vg_joins, (unsigned long long)s->vg_leaves,
            (unsigned long long)s->vg_dissolves, (unsigned long long)s->vg_moves,
            (unsigned long long)s->vg_batches);
  for (size_t i = 0; i < s->vg_of.len; i++)
    if (s->vg_of.data[i]) vg_free(s, s->vg_of.data[i]);
  VEC_FREE(s->vg_of);
  VEC_FREE(s->vg_touched);
  VEC_FREE(s->vg_cand);
  VEC_FREE(s->heap);
  VEC_FREE(s->batch);
  VEC_FREE(s->sleeps);
  psim_slab_destroy(&s->pool);
  psim_slab_destroy(&s->events);
  free(s->ready);
  lmm_free(s->lmm);
  free(s);
}

double sim_now(const sim *s) { return s->now; }
lmm_system *sim_lmm(sim *s) { return s->lmm; }

/* ---- event heap ----
 * A 4-ary min-heap whose entries carry their own key (date, seq): comparisons never load the
 * activity, only moves write its back-index. (date, seq) is a total order (seq is unique), so
 * the order of removal does not depend on the heap's shape. */
static inline int before(const heap_ent *x, const heap_ent *y) {
  return x->date < y->date || (x->date == y->date && x->seq < y->seq);
}

static inline void heap_put(sim *s, size_t i, heap_ent e) {
  s->heap.data[i] = e;
  if (!mark_kind(e.a)) e.a->heap = (int)i;
}

static void sift_up(sim *s, size_t i) {
  heap_ent e = s->heap.data[i];
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!before(&e, &s->heap.data[p])) break;
    heap_put(s, i, s->heap.data[p]);
    i = p;
  }
  heap_put(s, i, e);
}

static void sift_down(sim *s, size_t i) {
  heap_ent e = s->heap.data[i];
  heap_ent *h = s->heap.data;
  size_t n = s->heap.len;
  for (;;) {
    size_t c = 4 * i + 1, m = i;
    double bd = e.date;
    uint64_t bs = e.seq;
    size_t end = c + 4 < n ? c + 4 : n;
    /* Branch-free selection of the smallest child: the comparisons are unpredictable. */
    for (; c < end; c++) {
      int lt = (h[c].date < bd) | ((h[c].date == bd) & (h[c].seq < bs));
      m = lt ? c : m;
      bd = lt ? h[c].date : bd;
      bs = lt ? h[c].seq : bs;
    }
    if (m == i) break;
    heap_put(s, i, h[m]);
    i = m;
  }
  heap_put(s, i, e);
}

/* Removes entry i (an activity's or a mark's). */
static void heap_remove_at(sim *s, size_t i) {
  heap_ent last = s->heap.data[--s->heap.len];
  if (i == s->heap.len) return;   /* it was the last */
  heap_ent old = s->heap.data[i];
  heap_put(s, i, last);
  if (s->bulk) return;
  if (before(&last, &old)) sift_up(s, i);
  else sift_down(s, i);
}

static void heap_remove(sim *s, activity *a) {
  size_t i = (size_t)a->heap;
  a->heap = -1;
  s->ndaemon -= (size_t)a->daemon;
  heap_remove_at(s, i);
}

/* (Re)places a in the heap according to its date; INFINITY = not queued. */
static void schedule(sim *s, activity *a) {
  if (a->heap >= 0) {
    if (a->date == INFINITY) { heap_remove(s, a); return; }
    heap_ent *e = &s->heap.data[a->heap];
    int up = a->date < e->date;
    e->date = a->date;
    e->seq = a->seq;
    if (s->bulk) return;
    if (up) sift_up(s, (size_t)a->heap);
    else sift_down(s, (size_t)a->heap);
    return;
  }
  if (a->date == INFINITY) return;
  heap_ent e = {a->date, a->seq, a};
  s->ndaemon += (size_t)a->daemon;
  VEC_PUSH(s->heap, e);
  e.a->heap = (int)s->heap.len - 1;
  if (!s->bulk) sift_up(s, s->heap.len - 1);
}

/* Restores the heap order after bulk changes (Floyd's construction: linear in the heap size). */
static void heapify(sim *s) {
  if (s->heap.len < 2) return;
  for (size_t i = (s->heap.len - 2) / 4 + 1; i-- > 0;) sift_down(s, i);   /* from the last parent */
}

/* The head of a new activity (struct activity: what every activity has). */
static void init_head(sim *s, activity *a, activity_done_fn done, void *data, int tag) {
  a->date = INFINITY;
  a->seq = s->seq++;
  a->var = -1;
  a->heap = -1;
  a->done = done;
  a->data = data;
  a->tag = tag;
  a->then = NULL;
  a->model = NULL;
  a->next_work = 0;
  a->src = a->dst = -1;
  a->daemon = 0;
  a->cpu = -1;
  a->groupable = 0;
  a->event = 0;
  a->vgpos = -1;
}

static activity *new_activity(sim *s, activity_done_fn done, void *data, int tag) {
  activity *a = psim_slab_alloc(&s->pool);
  init_head(s, a, done, data, tag);
  a->remaining = 0;
  a->rate = 0;
  a->scale = 1;
  a->updated = s->now;
  a->next_penalty = 0;
  a->next_var = -1;
  a->vg = NULL;
  a->vgstamp = 0;
  a->vgkey = 0;
  return a;
}

activity *sim_start_event(sim *s, double delay, activity_done_fn done, void *data, int tag) {
  activity *a = psim_slab_alloc(&s->events);
  init_head(s, a, done, data, tag);
  a->event = 1;
  a->date = s->now + (delay > 0 ? delay : 0);
  if (isfinite(delay)) date_overflow(s, a);
  schedule(s, a);
  return a;
}

int sim_mark_kind(sim *s, sim_mark_fn fn) {
  for (int k = 1; k <= SIM_MARK_KINDS; k++) {
    if (!s->marks[k]) s->marks[k] = fn;
    if (s->marks[k] == fn) return k;
  }
  return 0;
}

/* As sim_start_event dates and queues an event (its sequence number, its date, an overflow),
 * with the object's tagged address as the entry. */
void sim_start_mark(sim *s, double delay, void *obj, int kind) {
  heap_ent e = {s->now + (delay > 0 ? delay : 0), s->seq++, (activity *)((uintptr_t)obj | (uintptr_t)kind)};
  if (e.date == INFINITY) {   /* never queued, as an event dated INFINITY */
    if (isfinite(delay)) s->overflow = s->stopped = 1;
    return;
  }
  VEC_PUSH(s->heap, e);
  if (!s->bulk) sift_up(s, s->heap.len - 1);
}

activity *sim_start_timer(sim *s, double delay, activity_done_fn done, void *data, int tag) {
  activity *a = new_activity(s, done, data, tag);
  a->date = s->now + (delay > 0 ? delay : 0);
  if (isfinite(delay)) date_overflow(s, a);
  schedule(s, a);
  return a;
}

/* ---- SimGrid's order of one date's events ----
 * SimGrid's models each keep their actions in a heap whose ties (equal dates) pop in the order
 * of their last insertion or update (a stable boost pairing heap; an update counts as an
 * insertion). After each solve a model re-inserts, with a freshly computed date, every action
 * of its modified set, in that set's order: for the CPU model, the sleeps started since the
 * last solve newest first (CpuCas01::sleep puts each at the FRONT of the set), then its
 * computations in the order of the solver's modified constraints (lmm_modified); for the
 * network model, its flows in that order. psim has one heap ordered by (date, seq): giving
 * these activities new seq numbers in that order, and their dates by SimGrid's arithmetic,
 * reproduces both heaps' orders. At a date, SimGrid's engine then reports the CPU model's
 * ended actions before the network model's (its model order, EngineImpl::handle_ended_actions).
 * Only under the selective update (SimGrid's SMPI mode), where the lmm keeps the order. */
activity *sim_start_sleep(sim *s, double delay, int cnst, activity_done_fn done, void *data, int tag) {
  activity *a = sim_start_timer(s, delay, done, data, tag);
  if (delay > 0 && cnst >= 0 && lmm_ordered(s->lmm)) {
    a->cpu = cnst;
    VEC_PUSH(s->sleeps, a);
    /* SimGrid creates a switched-on variable on the CPU before switching it off: the host
     * joins the modified set. */
    lmm_touch_cnst(s->lmm, cnst);
  }
  return a;
}

void sim_cpu_work(sim *s, activity *a, int cnst) {
  if (lmm_ordered(s->lmm)) a->cpu = cnst;
}

/* SimGrid's Action::update_remains_lazy, then the completion date its model computes
 * (Model::next_occurring_event_lazy), then a new place among equal dates. */
static void rated_reschedule(sim *s, activity *a, double left);

static void rekey_work(sim *s, activity *a) {
  if (a->var < 0) return;
  double left = a->remaining;
  if (left > 0) {
    left -= a->rate * (s->now - a->updated);
    if (left < 1e-14) left = 0;   /* SimGrid's double_update: 1e-5 x 1e-9 */
  }
  /* Nothing left: due now, whatever its rate (SimGrid never has a rate of 0 here; psim's
   * activities of no work, an empty message, get their variable anyway). */
  a->seq = s->seq++;
  rated_reschedule(s, a, left);
}

static void sg_heap_order(sim *s) {
  for (size_t i = s->sleeps.len; i-- > 0;) {
    activity *a = s->sleeps.data[i];
    a->seq = s->seq++;
    if (a->heap >= 0) schedule(s, a);
  }
  s->sleeps.len = 0;
  void *const *own;
  size_t n = lmm_modified(s->lmm, &own);
  /* When the modified set holds a good part of the heap (a whole cluster, often), the new
   * keys are written in place and the heap rebuilt once: (date, seq) is a total order, so
   * the heap's shape does not change what pops first. */
  s->bulk = n >= 16 && 4 * n >= s->heap.len;
  for (size_t i = 0; i < n; i++)
    if (((activity *)own[i])->cpu >= 0) rekey_work(s, own[i]);
  for (size_t i = 0; i < n; i++)
    if (((activity *)own[i])->cpu < 0) rekey_work(s, own[i]);
  if (s->bulk) heapify(s);
  s->bulk = 0;
}

activity *sim_start_daemon(sim *s, double delay, activity_done_fn done, void *data, int tag) {
  activity *a = sim_start_timer(s, delay, done, data, tag);
  sim_daemon(s, a);
  return a;
}

activity *sim_start_work(sim *s, double work, int var, double scale, activity_done_fn done,
                         void *data, int tag) {
  activity *a = new_activity(s, done, data, tag);
  a->remaining = work;
  a->var = var;
  a->scale = scale;
  if (work <= 0) a->date = s->now;     /* nothing to do: completes now */
  schedule(s, a);
  return a;
}

void sim_continue_work(sim *s, activity *a, double work, int var, double scale) {
  a->remaining = work;
  a->var = var;
  a->scale = scale;
  a->rate = 0;
  a->updated = s->now;
  a->seq = s->seq++;
  a->date = work <= 0 ? s->now : INFINITY;
  schedule(s, a);
}

/* ---- activities at a rate the model sets (no solver variable) ---- */

double sim_work_left(const sim *s, const activity *a) {
  if (a->event) return 0;   /* a timer: no work */
  if (a->vg) {   /* a group's member: from its key and the group's virtual time */
    const sim_vgroup *g = a->vg;
    double left = (a->vgkey - (g->V + g->r * (s->now - g->tv))) * a->scale;
    return left > 0 ? left : 0;
  }
  if (a->date <= s->now) return 0;   /* due now: rounding must not push it later */
  double left = a->remaining - (a->rate > 0 ? a->rate * (s->now - a->updated) : 0);
  return left > 0 ? left : 0;
}

/* Brings `remaining` to now, then predicts the completion at the current rate. */
static void rated_reschedule(sim *s, activity *a, double left) {
  a->remaining = left;
  a->updated = s->now;
  if (left <= 0) a->date = s->now;
  else if (a->rate > 0) {
    a->date = s->now + left / a->rate;
    if (isfinite(left)) date_overflow(s, a);
  } else a->date = INFINITY;
  schedule(s, a);
}

activity *sim_start_rated(sim *s, double work, double rate, activity_done_fn done, void *data, int tag) {
  activity *a = new_activity(s, done, data, tag);
  a->rate = rate > 0 ? rate : 0;
  rated_reschedule(s, a, work > 0 ? work : 0);
  return a;
}

void sim_set_rate(sim *s, activity *a, double rate) {
  double left = sim_work_left(s, a);
  a->rate = rate > 0 ? rate : 0;
  rated_reschedule(s, a, left);
}

void sim_scale_work(sim *s, activity *a, double f) {
  double left = sim_work_left(s, a) * f;
  rated_reschedule(s, a, left);
}

static int vg_report(sim *s, activity *a, double value);
static void vg_members_report(void *ctx, int c, double value, size_t n);

/* Where a flow may join a group. On a constraint the solver can take a group of
 * (LMMG_GROUP_MIN variables or more) only while its group repairs succeed there (lmm_group.c:
 * within LMMG_KEEP solves of the last one): the solver then reports the members together,
 * which a group takes in O(1) each. Elsewhere (a fat tree's or a dragonfly's links: members
 * of several penalties, no group repair; a link whose group repairs stopped when its traffic
 * did) a group only saved heap moves, and its joins, re-datings and ends cost more than those
 * (docs/performance.md, "Group clocks: nothing where they do not help"), and checking each
 * re-rated flow's bottleneck cost more than that. Smaller constraints, below the solver's
 * minimum, have groups when the engine is asked for them (sim_set_groups below
 * LMMG_GROUP_MIN: the unit tests, lmm's g_always). */
static inline int vg_possible(const sim *s) { return s->groups && s->lmm->g_join; }
static inline int vg_eligible(const sim *s, int c) {
  int n = s->lmm->cnsts.data[c].n;
  return n >= s->groups && (n < LMMG_GROUP_MIN || s->lmm->gc.data[c].until > s->lmm->g_solve);
}

/* Solver callback: a variable's value changed, so its activity's rate and date do. */
static void rate_changed(void *ctx, void *owner, double value) {
  sim *s = ctx;
  activity *a = owner;
  if (a->var < 0) return; /* still in a timer phase (a message's latency): nothing to update */
  if (a->vg && vg_report(s, a, value)) return;   /* still a member: its group does the rest */
  double left = a->remaining;
  if (a->rate > 0) left -= a->rate * (s->now - a->updated);
  if (left < 0) left = 0;
  a->rate = value * a->scale;
  rated_reschedule(s, a, left);
  /* It may join a group once the solve is over, when the members' new share is known (the
   * solver reports a newcomer before or after the members, in no fixed order). Only a flow
   * whose bottleneck has a group or could have one is listed: on shapes without large
   * saturated links that is almost none, and the list would only cost. */
  if (a->groupable && vg_possible(s) && a->vgstamp != s->vg_stamp) {
    int c = s->lmm->vars.data[a->var].bneck;
    if (c < 0) return;
    int has = (size_t)c < s->vg_of.len && s->vg_of.data[c];
    if (!has && !vg_eligible(s, c)) return;
    a->vgstamp = s->vg_stamp;
    VEC_PUSH(s->vg_cand, a);
  }
}

/* ---- Group clocks (network/solver:groups) ----
 * The per-flow path re-dates every flow whose share changes: on a saturated backbone, ~800
 * heap moves per event. Flows of one share on one bottleneck form a group instead (struct
 * sim_vgroup above): a share change is one re-dating of the group's proxy. The solver still
 * reports each member's value; a report costs a comparison. Exactness: a member's progress
 * is the group's virtual time times its scale, which holds as long as its value is the
 * group's; whenever that is not certain the member leaves, or the whole group is dissolved
 * into per-flow activities with their exact work left (vg_dissolve). */

/* s->groups: groups are only created for constraints used by this many variables (fewer: the
 * per-flow path's few heap moves cost less than a group's bookkeeping); 0 = off. */
void sim_set_groups(sim *s, int min_vars) {
  s->groups = min_vars > 0 ? min_vars : 0;
  lmm_set_groups(s->lmm, s->groups > 0);
  s->lmm->g_report = s->groups ? vg_members_report : NULL;
  s->lmm->g_always = s->groups && s->groups < LMMG_GROUP_MIN;
  s->lmm->g_join = s->lmm->g_always;
}
uint64_t sim_group_joins(const sim *s) { return s->vg_joins; }
uint64_t sim_group_dissolves(const sim *s) { return s->vg_dissolves; }
uint64_t sim_group_batches(const sim *s) { return s->vg_batches; }

void sim_groupable(sim *s, activity *a) { (void)s; a->groupable = 1; }

static inline int vg_before(const activity *x, const activity *y) {
  return x->vgkey < y->vgkey || (x->vgkey == y->vgkey && x->seq < y->seq);
}

static inline void vg_put(sim_vgroup *g, size_t i, activity *a) { g->m.data[i] = a; a->vgpos = (int)i; }

static void vg_up(sim_vgroup *g, size_t i) {
  activity *a = g->m.data[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!vg_before(a, g->m.data[p])) break;
    vg_put(g, i, g->m.data[p]);
    i = p;
  }
  vg_put(g, i, a);
}

static void vg_down(sim_vgroup *g, size_t i) {
  activity *a = g->m.data[i];
  size_t n = g->m.len;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && vg_before(g->m.data[c + 1], g->m.data[c])) c++;
    if (!vg_before(g->m.data[c], a)) break;
    vg_put(g, i, g->m.data[c]);
    i = c;
  }
  vg_put(g, i, a);
}

/* V brought to now at the value in force since tv (the value changes only in vg_commit). */
static inline void vg_advance(sim *s, sim_vgroup *g) {
  if (s->now != g->tv) {
    g->V += g->r * (s->now - g->tv);
    g->tv = s->now;
  }
}

/* Takes member a out of its group (V advanced); its work left becomes its per-flow state. */
static void vg_remove(sim *s, activity *a) {
  sim_vgroup *g = a->vg;
  size_t i = (size_t)a->vgpos;
  activity *last = g->m.data[--g->m.len];
  if (last != a) {
    vg_put(g, i, last);
    if (vg_before(last, a)) vg_up(g, i);
    else vg_down(g, i);
  }
  if (g->stamp == s->vg_stamp && a->vgstamp == s->vg_stamp) g->nsame--;   /* counted, now gone */
  double left = (a->vgkey - g->V) * a->scale;
  a->remaining = left > 0 ? left : 0;
  a->updated = s->now;
  a->rate = g->r * a->scale;
  a->vg = NULL;
  a->vgpos = -1;
  if (a->var >= 0) lmmi_set_gtag(s->lmm, a->var, -1);
  s->vg_members--;
}

/* Dates the group's proxy from its head member; an empty group leaves the event heap. */
static void vg_redate(sim *s, sim_vgroup *g) {
  activity *p = g->proxy;
  if (!g->m.len) {
    if (p->heap >= 0) { heap_remove(s, p); s->vg_proxies--; }
    return;
  }
  activity *h = g->m.data[0];
  double d = (h->vgkey - g->V) / g->r;
  p->date = g->tv + (d > 0 ? d : 0);
  p->seq = h->seq;
  date_overflow(s, p);
  if (p->heap < 0) s->vg_proxies++;
  schedule(s, p);
}

static void vg_free(sim *s, sim_vgroup *g) {
  if (g->proxy->heap >= 0) { heap_remove(s, g->proxy); s->vg_proxies--; }
  psim_slab_free(&s->pool, g->proxy);
  s->vg_of.data[g->cnst] = NULL;
  VEC_FREE(g->m);
  free(g);
}

/* The exact fallback: every member goes back to the per-flow path, with its work left and
 * its variable's current value (some members' values changed in this solve, others not). */
static void vg_dissolve(sim *s, sim_vgroup *g) {
  s->vg_dissolves++;
  vg_advance(s, g);
  while (g->m.len) {
    activity *a = g->m.data[g->m.len - 1];
    vg_remove(s, a);
    a->rate = lmm_var_value(s->lmm, a->var) * a->scale;
    rated_reschedule(s, a, a->remaining);
  }
}

static inline void vg_touch(sim *s, sim_vgroup *g, double value) {
  vg_advance(s, g);
  g->stamp = s->vg_stamp;
  g->newr = value;
  g->nsame = 0;
  VEC_PUSH(s->vg_touched, g);
}

/* The solver's group repair of constraint c gave n of its variables the value `value`, all of
 * them members of c's group (lmmi_set_gtag), in one report instead of n (lmm_group.c): they
 * count as n reports of that value. When another report of this solve gave another value
 * first (a member changed on its own, filled apart), they are not counted: fewer than all
 * members then reported newr, which differs from r (a report is a change), so vg_commit
 * dissolves the group, exactly (every member per flow at its variable's value). A group
 * repair is its solve's only commit, so no member is reported twice. */
static void vg_members_report(void *ctx, int c, double value, size_t n) {
  sim *s = ctx;
  sim_vgroup *g = s->vg_of.data[c];
  if (g->stamp != s->vg_stamp) vg_touch(s, g, value);
  if (value == g->newr && value > 0) g->nsame += n;
  s->vg_batches++;
}

/* Member a's variable has a new value: 1 when it stays in its group (same value as the
 * group's other reports of this solve), 0 when it left (the caller goes on per flow). */
static int vg_report(sim *s, activity *a, double value) {
  sim_vgroup *g = a->vg;
  if (g->stamp != s->vg_stamp) vg_touch(s, g, value);
  /* A second report of one member in a solve (none is expected) must not count twice. */
  if (value == g->newr && value > 0 && a->vgstamp != s->vg_stamp) {
    a->vgstamp = s->vg_stamp;
    g->nsame++;
    return 1;
  }
  vg_remove(s, a);
  s->vg_leaves++;
  return 0;
}

/* After the solve, flow a (per flow, its work and rate up to date) joins the group of its
 * bottleneck when its value is the group's (creating the group on a constraint used by
 * enough variables); 1 if it did. */
static int vg_join(sim *s, activity *a) {
  if (a->vg || a->var < 0 || a->heap < 0 || a->date <= s->now) return 0;
  double value = lmm_var_value(s->lmm, a->var), left = a->remaining;
  if (!(value > 0) || !(left > 0) || !isfinite(left) || !(a->scale > 0) || a->updated != s->now) return 0;
  int c = lmm_var_bneck(s->lmm, a->var);
  if (c < 0) return 0;
  while (s->vg_of.len <= (size_t)c) VEC_PUSH(s->vg_of, NULL);
  sim_vgroup *g = s->vg_of.data[c];
  if (!g) {
    if (!vg_eligible(s, c)) return 0;
    g = xcalloc(1, sizeof *g);
    g->cnst = c;
    g->tv = s->now;
    g->r = value;
    g->proxy = new_activity(s, NULL, g, 0);
    g->proxy->vg = g;
    g->proxy->vgpos = -2;
    s->vg_of.data[c] = g;
  }
  vg_advance(s, g);
  if (!g->m.len) {   /* empty (dissolved in this commit): any value, and V starts afresh */
    g->V = 0;
    g->r = value;
  }
  if (value != g->r) return 0;
  if (g->stamp != s->vg_stamp) {   /* to be re-dated with the others */
    g->stamp = s->vg_stamp;
    g->newr = g->r;
    g->nsame = 0;
    VEC_PUSH(s->vg_touched, g);
  }
  heap_remove(s, a);
  a->vgkey = g->V + left / a->scale;
  a->vg = g;
  lmmi_set_gtag(s->lmm, a->var, c);
  a->date = INFINITY;
  VEC_PUSH(g->m, a);
  vg_up(g, g->m.len - 1);
  s->vg_members++;
  s->vg_joins++;
  return 1;
}

/* After a solve: each group reported on takes its new value (one re-dating) when all its
 * members reported it, and is dissolved otherwise; then the flows re-rated per flow may join
 * a group (at its value from now on). */
static void vg_commit(sim *s) {
  size_t n0 = s->vg_touched.len;
  for (size_t i = 0; i < n0; i++) {
    sim_vgroup *g = s->vg_touched.data[i];
    if (g->newr != g->r && g->nsame != g->m.len) vg_dissolve(s, g);
    else if (g->m.len) g->r = g->newr;
  }
  for (size_t i = 0; i < s->vg_cand.len; i++) vg_join(s, s->vg_cand.data[i]);
  s->vg_cand.len = 0;
  for (size_t i = 0; i < s->vg_touched.len; i++) {
    sim_vgroup *g = s->vg_touched.data[i];
    if (!g->m.len) { vg_free(s, g); continue; }
    vg_redate(s, g);
    s->vg_moves++;
  }
  s->vg_touched.len = 0;
  s->vg_stamp++;
}

/* The event heap's top, taken out: a group's proxy gives its head member (due now, its work
 * done), the proxy being re-dated for the next one. */
static activity *pop_event(sim *s) {
  activity *a = s->heap.data[0].a;
  if (mark_kind(a)) { heap_remove_at(s, 0); return a; }   /* a mark: its tagged entry */
  if (a->vgpos != -2) { heap_remove(s, a); return a; }
  sim_vgroup *g = a->vg;
  double date = a->date;
  vg_advance(s, g);
  activity *m = g->m.data[0];
  vg_remove(s, m);
  m->remaining = 0;
  m->date = date;
  /* Between solves no group is in vg_touched: an empty one can go at once. */
  if (g->m.len) vg_redate(s, g);
  else vg_free(s, g);
  return m;
}

void sim_daemon(sim *s, activity *a) {
  if (a->daemon) return;
  a->daemon = 1;
  if (a->heap >= 0) s->ndaemon++;
}

void sim_make_ready(sim *s, int id) {
  if (s->rlen == s->rcap) {
    size_t ncap = s->rcap ? 2 * s->rcap : 64;
    int *n = xmalloc(ncap * sizeof *n);
    for (size_t i = 0; i < s->rlen; i++) n[i] = s->ready[(s->rhead + i) % s->rcap];
    free(s->ready);
    s->ready = n;
    s->rcap = ncap;
    s->rhead = 0;
  }
  s->ready[(s->rhead + s->rlen) % s->rcap] = id;
  s->rlen++;
}

size_t sim_pending(const sim *s) { return s->heap.len - s->ndaemon - s->vg_proxies + s->vg_members; }
size_t sim_nready(const sim *s) { return s->rlen; }
double sim_next_date(const sim *s) {
  return s->heap.len > s->ndaemon ? s->heap.data[0].date : INFINITY;
}

/* Ends activity a (popped from the heap): frees its variable, calls done(), recycles it. A
 * mark's entry calls its kind's function with its object. */
static void finish(sim *s, activity *a) {
  if (mark_kind(a)) {
    s->marks[mark_kind(a)](s, (void *)((uintptr_t)a & ~MARK_BITS));
    return;
  }
  if (a->var >= 0) {
    lmm_var_free(s->lmm, a->var);
    a->var = -1;
  }
  if (a->event) {   /* its head only; never continued */
    a->done(s, a);
    if (a->heap < 0) psim_slab_free(&s->events, a);
    return;
  }
  a->remaining = 0;
  double date = a->date;
  a->done(s, a);
  /* done() may have continued the activity with a new phase (sim_continue_work). */
  if (a->heap < 0 && a->var < 0 && a->date == date) psim_slab_free(&s->pool, a);
}

/* SimGrid's timing precision (precision/timing): under its selective update, events closer
 * than this to the current date happen at the current date. */
#define SG_TIMING_PRECISION 1e-9

uint64_t sim_run(sim *s, void (*run)(void *ctx, int id), void *ctx) {
  uint64_t events = 0;
  for (;;) {
    while (s->rlen) {
      int id = s->ready[s->rhead];
      s->rhead = (s->rhead + 1) % s->rcap;
      s->rlen--;
      run(ctx, id);
      if (s->stopped) return events;
    }
    lmm_solve(s->lmm, rate_changed, s);
    if (s->vg_touched.len || s->vg_cand.len) vg_commit(s);
    if (lmm_ordered(s->lmm)) sg_heap_order(s);
    if (s->heap.len == s->ndaemon) break;   /* only daemons (or nothing) left */
    /* Every completion at the next date is processed before any rank runs again, as in
     * SimGrid; ranks woken by them then run in the order they were woken. */
    s->now = s->heap.data[0].date;
    if (!lmm_selective(s->lmm)) {
      while (s->heap.len && s->heap.data[0].date <= s->now) {
        activity *a = pop_event(s);
        events++;
        finish(s, a);
        if (s->stopped) return events;
      }
      continue;
    }
    /* As SimGrid orders one date's events: first the messages whose latency is paid switch
     * their flows on (in heap order), then the finished activities release their resources
     * and are reported (in heap order). The order decides what the selective update sees.
     * Events that these callbacks schedule for the same date wait for the next round, after
     * the ranks ran and the solver solved (SimGrid's next step of zero duration). */
    s->batch.len = 0;
    int enables = 0;
    while (s->heap.len && s->heap.data[0].date - s->now < SG_TIMING_PRECISION) {
      activity *a = pop_event(s);
      VEC_PUSH(s->batch, a);
      enables += !mark_kind(a) && a->then && a->var < 0;
    }
    lmm_walks(s->lmm, enables);
    for (size_t i = 0; i < s->batch.len; i++) {
      activity *a = s->batch.data[i];
      if (!mark_kind(a) && a->then && a->var < 0) {   /* end of a latency phase */
        events++;
        finish(s, a);
        s->batch.data[i] = NULL;
        if (s->stopped) return events;
      }
    }
    lmm_enables_done(s->lmm);
    /* Under SimGrid's order, the CPU model's ended activities first, then the others' (see
     * sim_start_sleep); otherwise a->cpu is -1 throughout and one pass does. */
    for (int cpu = lmm_ordered(s->lmm); cpu >= 0; cpu--)
      for (size_t i = 0; i < s->batch.len; i++) {
        activity *a = s->batch.data[i];
        if (!a || (!mark_kind(a) && a->cpu >= 0) != cpu) continue;   /* a mark: not the CPU's */
        s->batch.data[i] = NULL;
        events++;
        finish(s, a);
        if (s->stopped) return events;
      }
  }
  return events;
}
