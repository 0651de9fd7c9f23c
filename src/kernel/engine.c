/* The simulation engine: clock, event queue, activities, ready queue.
 *
 * Activities progress at the rate the solver gives their variable. Rather than touching every
 * activity at every event, each keeps (remaining, updated, rate) and a predicted completion
 * date in a 4-ary heap; only activities whose rate changes are brought up to date ("lazy"
 * updates, as SimGrid's default). The heap orders by (date, seq) so ties resolve in the order
 * activities were scheduled: runs are deterministic. */
#include <math.h>
#include <stdlib.h>

#include "psim/kernel.h"

/* An event queue entry: the activity and a copy of its key (see the event heap below). */
typedef struct { double date; uint64_t seq; activity *a; } heap_ent;

struct sim {
  double now;
  uint64_t seq;
  lmm_system *lmm;
  VEC(heap_ent) heap;
  /* ready queue: a ring buffer of ids */
  int *ready;
  size_t rhead, rlen, rcap;
  psim_slab pool;         /* activity objects */
  VEC(activity *) batch;  /* the events of one date (selective update) */
  VEC(activity *) sleeps; /* SimGrid's CPU sleeps started since the last solve (sim_start_sleep) */
  size_t ndaemon;         /* daemons in the heap */
  int bulk;               /* schedule() leaves the heap order to heapify() (sg_heap_order) */
  int stopped;
  int overflow;           /* a finite delay or work ended past the largest double: run stopped */
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
  psim_slab_init(&s->pool, sizeof(activity));
  return s;
}

void sim_free(sim *s) {
  if (!s) return;
  VEC_FREE(s->heap);
  VEC_FREE(s->batch);
  VEC_FREE(s->sleeps);
  psim_slab_destroy(&s->pool);
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

static inline void heap_put(sim *s, size_t i, heap_ent e) { s->heap.data[i] = e; e.a->heap = (int)i; }

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

static void heap_remove(sim *s, activity *a) {
  size_t i = (size_t)a->heap;
  heap_ent last = s->heap.data[--s->heap.len];
  a->heap = -1;
  s->ndaemon -= (size_t)a->daemon;
  if (last.a == a) return;
  heap_ent old = s->heap.data[i];
  heap_put(s, i, last);
  if (s->bulk) return;
  if (before(&last, &old)) sift_up(s, i);
  else sift_down(s, i);
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

static activity *new_activity(sim *s, activity_done_fn done, void *data, int tag) {
  activity *a = psim_slab_alloc(&s->pool);
  a->remaining = 0;
  a->rate = 0;
  a->scale = 1;
  a->updated = s->now;
  a->date = INFINITY;
  a->seq = s->seq++;
  a->var = -1;
  a->heap = -1;
  a->done = done;
  a->data = data;
  a->tag = tag;
  a->then = NULL;
  a->next_work = a->next_penalty = 0;
  a->next_var = -1;
  a->daemon = 0;
  a->cpu = -1;
  return a;
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

/* Solver callback: a variable's value changed, so its activity's rate and date do. */
static void rate_changed(void *ctx, void *owner, double value) {
  sim *s = ctx;
  activity *a = owner;
  if (a->var < 0) return; /* still in a timer phase (a message's latency): nothing to update */
  double left = a->remaining;
  if (a->rate > 0) left -= a->rate * (s->now - a->updated);
  if (left < 0) left = 0;
  a->rate = value * a->scale;
  rated_reschedule(s, a, left);
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

size_t sim_pending(const sim *s) { return s->heap.len - s->ndaemon; }
size_t sim_nready(const sim *s) { return s->rlen; }

/* Ends activity a (popped from the heap): frees its variable, calls done(), recycles it. */
static void finish(sim *s, activity *a) {
  if (a->var >= 0) {
    lmm_var_free(s->lmm, a->var);
    a->var = -1;
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
    if (lmm_ordered(s->lmm)) sg_heap_order(s);
    if (s->heap.len == s->ndaemon) break;   /* only daemons (or nothing) left */
    /* Every completion at the next date is processed before any rank runs again, as in
     * SimGrid; ranks woken by them then run in the order they were woken. */
    s->now = s->heap.data[0].date;
    if (!lmm_selective(s->lmm)) {
      while (s->heap.len && s->heap.data[0].date <= s->now) {
        activity *a = s->heap.data[0].a;
        heap_remove(s, a);
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
      activity *a = s->heap.data[0].a;
      heap_remove(s, a);
      VEC_PUSH(s->batch, a);
      enables += a->then && a->var < 0;
    }
    lmm_walks(s->lmm, enables);
    for (size_t i = 0; i < s->batch.len; i++) {
      activity *a = s->batch.data[i];
      if (a->then && a->var < 0) {   /* end of a latency phase */
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
        if (!a || (a->cpu >= 0) != cpu) continue;
        s->batch.data[i] = NULL;
        events++;
        finish(s, a);
        if (s->stopped) return events;
      }
  }
  return events;
}
