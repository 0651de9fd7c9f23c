/* Point-to-point semantics: matching queues and the SMPI send protocol (see mpi_layer.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/match.h"
#include "psim/mpi_layer.h"

/* A deferred busy change (kind +1, -1) or read (BUSY_CLOSE, BUSY_OPEN bits) of a rank,
 * applied in date order (mpi_busy_fold). Within one date, changes commute with each other
 * and with reads (busy_change); only two reads of a rank at one date do not (a close then an
 * open is not an open then a close), and reads are all logged at the date they happen, in
 * order: so no sequence number is kept (24 bytes an entry, not 32). */
enum { BUSY_CLOSE = 2, BUSY_OPEN = 4 };
typedef struct busy_ent { double date, d; int rank, kind; } busy_ent;
/* A rank's busy time and its comm and wait, as of the entries folded so far. */
/* remote: the rank's operations whose dates another process may still give (a send to a
 * rank there, before its MPI_WIRE_STARTED; a receive whose sender may be there, before it
 * matched); pending: its entries in the log. */
typedef struct busy_state { double since, closed, acc, mark, comm, wait; int n, used, remote, pending; } busy_state;

struct mpi_world {
  sim *sim;
  models *models;
  int nranks;
  const int *rank_host;
  mpi_done_fn on_done;
  void *ctx;
  match_index *q;     /* posted receives and unexpected sends of every rank */
  psim_slab reqs;       /* every request */
  mpi_stats stats;
  mpi_transfer_fn observe;
  void *observe_ctx;
  uint64_t wseq;        /* last mpi_req.wseq given */
  /* per rank: own messages in progress (on the wire, or paying an overhead), the date of the
   * last change of that count, and the time it was above zero before that date */
  int *busy_n;
  double *busy_since, *busy_acc;
  double *busy_closed;   /* date the count fell to zero, while that interval is not added (-1) */
  /* A world spread over processes (mpi_world_split): the process of each rank, this one's,
   * where messages for the others go, and the busy changes and reads kept for the end. */
  const int *proc_of;
  int me;
  mpi_wire_fn out;
  void *out_ctx;
  /* The log in two parts: busy_log, the entries dated at the moment they were logged (in date
   * order as they come: no sort), and busy_late, those dated otherwise (a transfer's start
   * or end learnt from another process, before or after now): few, sorted when folded. */
  VEC(busy_ent) busy_log;
  VEC(busy_ent) busy_late;
  /* per rank of this process (lidx[r]: its index among them, -1 elsewhere; issue 38, part 2:
   * a process holds its own ranks' state), the log folded so far (mpi_busy_fold) */
  int *lidx;
  int nlocal;
  busy_state *busy_st;
  double last;          /* the date of the last message end or completion seen here */
  int xfer_mark;        /* the kernel's mark kind of a message's end (transfer_mark), or 0 */
  uint64_t *gbase;      /* per rank, the base of its wait group (mpi_wgroup_rewait), or NULL
                           before the first group */
};

/* Busy time is kept so that its value does not depend on the order of one date's changes
 * (issue 38, part 2: in a replay spread over processes, a rank's changes at one date come from
 * several processes, in no order the sequential run would share). A count falling to zero at
 * date x leaves the interval open until x (closed_at); a count rising again at the same x
 * continues it, as if the rise had come first. The sum is then one addition per maximal busy
 * interval, whatever the order of the changes inside a date. */
static void busy_change(double *since, double *closed, double *acc, int *n, int delta, double now) {
  if (delta > 0) {
    if ((*n)++ > 0) return;
    if (*closed == now) { *closed = -1; return; }   /* the same interval goes on */
    if (*closed >= 0) { *acc += *closed - *since; *closed = -1; }
    *since = now;
  } else if (--*n == 0) {
    *closed = now;
  }
}

static double busy_value(double since, double closed, double acc, int n, double now) {
  if (n > 0) return acc + (now - since);
  return closed >= 0 ? acc + (closed - since) : acc;
}

/* One entry into its rank's state: the same operations, on the same values, as the
 * one-process run's at that date (busy_change makes one date's order irrelevant; a read is
 * the same before or after a change of its date). */
static void busy_apply(busy_state *st, const busy_ent *e) {
  if (e->kind == 1 || e->kind == -1) { busy_change(&st->since, &st->closed, &st->acc, &st->n, e->kind, e->date); return; }
  double busy = busy_value(st->since, st->closed, st->acc, st->n, e->date);
  if (e->kind & BUSY_CLOSE) {
    double c = busy - st->mark, d = e->d;
    if (c > d) c = d;
    if (c < 0) c = 0;
    st->comm += c;
    st->wait += d - c;
  }
  if (e->kind & BUSY_OPEN) st->mark = busy;
}

static inline busy_state *busy_of(mpi_world *w, int r) { return &w->busy_st[w->lidx[r]]; }

/* An entry dated now of a rank with no remote operation in progress and nothing in the log is
 * applied at once: no entry dated earlier can come for it any more (a date another process
 * gives is never before the post of the operation it dates, and from that post on the rank's
 * entries are logged), so its entries are still applied in date order. The log then holds
 * only the entries of ranks exchanging messages with another process, from their first such
 * post to the next fold. */
static void busy_log(mpi_world *w, int r, double date, double d, int kind) {
  busy_ent e = {date, d, r, kind};
  busy_state *st = busy_of(w, r);
  const int now = date == sim_now(w->sim);
  if (now && !st->remote && !st->pending) {
    busy_apply(st, &e);
    st->used = 1;
    return;
  }
  st->pending++;
  if (now) VEC_PUSH(w->busy_log, e);
  else VEC_PUSH(w->busy_late, e);
}

/* A receive whose sender may be in another process (its source there, or any). */
static int recv_remote(const mpi_world *w, const mpi_req *r) {
  return w->proc_of && !r->is_send && (r->src < 0 || w->proc_of[r->src] != w->me);
}

void mpi_rank_busy(mpi_world *w, int r, int delta) {
  if (w->proc_of) { busy_log(w, r, sim_now(w->sim), 0, delta); return; }
  busy_change(&w->busy_since[r], &w->busy_closed[r], &w->busy_acc[r], &w->busy_n[r], delta, sim_now(w->sim));
}

double mpi_rank_busy_time(const mpi_world *w, int r) {
  return busy_value(w->busy_since[r], w->busy_closed[r], w->busy_acc[r], w->busy_n[r], sim_now(w->sim));
}

void mpi_world_observe(mpi_world *w, mpi_transfer_fn fn, void *ctx) {
  w->observe = fn;
  w->observe_ctx = ctx;
}

static void transfer_mark(sim *s, void *obj);

mpi_world *mpi_world_new(sim *s, models *m, int nranks, const int *rank_host, mpi_done_fn on_done,
                         void *ctx) {
  mpi_world *w = xcalloc(1, sizeof *w);
  w->sim = s;
  w->models = m;
  w->nranks = nranks;
  w->rank_host = rank_host;
  w->on_done = on_done;
  w->ctx = ctx;
  w->q = match_new(nranks);
  w->busy_n = xcalloc((size_t)(nranks > 0 ? nranks : 1), sizeof *w->busy_n);
  w->busy_since = xcalloc((size_t)(nranks > 0 ? nranks : 1), sizeof *w->busy_since);
  w->busy_acc = xcalloc((size_t)(nranks > 0 ? nranks : 1), sizeof *w->busy_acc);
  w->busy_closed = xmalloc((size_t)(nranks > 0 ? nranks : 1) * sizeof *w->busy_closed);
  for (int i = 0; i < nranks; i++) w->busy_closed[i] = -1;
  psim_slab_init_owned(&w->reqs, sizeof(mpi_req), w);
  w->xfer_mark = sim_mark_kind(s, transfer_mark);
  return w;
}

void mpi_world_free(mpi_world *w) {
  if (!w) return;
  psim_slab_destroy(&w->reqs);
  match_free(w->q);
  free(w->busy_n);
  free(w->busy_since);
  free(w->busy_acc);
  free(w->busy_closed);
  free(w->gbase);
  VEC_FREE(w->busy_log);
  VEC_FREE(w->busy_late);
  free(w->lidx);
  free(w->busy_st);
  free(w);
}

mpi_stats mpi_world_stats(const mpi_world *w) { return w->stats; }
int mpi_rank_host(const mpi_world *w, int rank) { return w->rank_host[rank]; }
models *mpi_models(mpi_world *w) { return w->models; }

/* The world a request belongs to: its slab's (psim_slab_init_owned), not a field of its own. */
static inline mpi_world *req_world(const mpi_req *r) { return psim_slab_owner(r); }

/* A new request, every field written once (no memset of the whole request first). */
static inline mpi_req *req_new(mpi_world *w, int src, int dst, int tag, int ctx, double bytes,
                               int is_send) {
  mpi_req *r = psim_slab_alloc(&w->reqs);
  r->src = src;
  r->dst = dst;
  r->tag = tag;
  r->ctx = ctx;
  r->bytes = bytes;
  r->is_send = (unsigned)is_send & 1u;
  r->done = r->detached = r->matched = r->released = r->arrived = r->waited = r->taken = 0;
  r->busy = 1;
  r->posted = sim_now(w->sim);
  r->xs_at = MPI_XS_NONE;
  r->finished = 0;
  r->xfer_end = -1;
  r->peer = r->oprev = r->onext = NULL;   /* peer: next too */
  r->seq = 0;
  r->wseq = 0;
  r->grouped = 0;
  r->shadow = r->remote = r->written = r->at_rest = 0;
  r->user = NULL;
  return r;
}

/* r's bytes started moving at t (a receive: its message's). t is the post date for an eager
 * send, which is queued while they move: its order links are then in use (mpi_req.xstart_
 * shares their bytes), so that date is not written there; any other request is not queued
 * by then (a send matched, a receive finished). */
static void set_xstart(mpi_req *r, double t) {
  if (t == r->posted) {
    r->xs_at = MPI_XS_POSTED;
    return;
  }
  r->xs_at = MPI_XS_OWN;
  r->xstart_ = t;
}

/* A request is recycled once the driver released it and no queue or transfer refers to it. */
static void maybe_free(mpi_world *w, mpi_req *r) {
  if (r->released && !r->busy) psim_slab_free(&w->reqs, r);
}

void mpi_req_release(mpi_world *w, mpi_req *r) {
  r->released = 1;
  maybe_free(w, r);
}

static void complete(mpi_world *w, mpi_req *r) {
  r->done = 1;
  if (w->proc_of) w->last = sim_now(w->sim);
  if (!r->shadow) w->on_done(w->ctx, r);   /* a shadow's sender is told by mpi_wire_in */
}

static int is_local(const mpi_world *w, int rank) { return !w->proc_of || w->proc_of[rank] == w->me; }

static void recv_overhead_done(sim *s, activity *a) {
  (void)s;
  mpi_req *recv = a->data;
  mpi_world *w = req_world(recv);
  mpi_rank_busy(w, recv->dst, -1);
  recv->busy = 0;
  complete(w, recv);
  maybe_free(w, recv);
}

/* The receive of a message whose bytes have all arrived completes: at once, or after a machine
 * file's receive delay; smpi/or (SMPI's copy out of the detached buffer) is left due. */
static void finish_recv(mpi_world *w, mpi_req *recv, const mpi_req *send) {
  recv->bytes = send->bytes;
  recv->src = send->src;
  recv->tag = send->tag;
  set_xstart(recv, mpi_req_xfer_start(send));   /* recv is out of its queue */
  recv->xfer_end = send->xfer_end;
  recv->peer = NULL;
  /* smpi/or of a detached message: not here but in the receiver's wait or test that returns
   * the request (SMPI's Request::finish_wait), as a sleep of its own, one message after the
   * other; the drivers pay or_due (replay_rank.c take, emu_p2p.c emu_req_take) */
  recv->or_due_ = send->detached ? models_overhead(w->models, w->rank_host[recv->dst], OVH_RECV, send->bytes) : 0;
  recv->finished = 1;
  double ovh = models_recv_delay(w->models, w->rank_host[recv->dst], send->bytes);   /* a machine file's */
  if (ovh > 0) {
    mpi_rank_busy(w, recv->dst, +1);
    models_sleep(w->models, w->rank_host[recv->dst], ovh, recv_overhead_done, recv, 0);
    return;
  }
  recv->busy = 0;
  complete(w, recv);
  maybe_free(w, recv);
}

void mpi_req_wait(mpi_req *r) {
  r->waited = 1;
  if (!r->wseq) r->wseq = ++req_world(r)->wseq;
}

void mpi_req_rewait(mpi_req *r) {
  r->waited = 1;
  r->grouped = 0;
  r->wseq = ++req_world(r)->wseq;
}

void mpi_req_join(mpi_req *r, int index) {
  r->waited = 1;
  r->grouped = 1;
  r->wseq = (uint64_t)index + 1;
}

uint64_t mpi_req_place(const mpi_req *r) {
  if (!r->grouped) return r->wseq;
  const mpi_world *w = req_world(r);
  return (w->gbase ? w->gbase[mpi_req_owner(r)] : 0) + r->wseq;
}

/* Members get the places w->wseq + 1 .. w->wseq + n: what n mpi_req_rewait calls would give
 * (the skipped numbers of members not waiting any more are never compared). */
void mpi_wgroup_rewait(mpi_world *w, int rank, int n) {
  if (!w->gbase) w->gbase = xcalloc((size_t)(w->nranks > 0 ? w->nranks : 1), sizeof *w->gbase);
  w->gbase[rank] = w->wseq;
  w->wseq += (uint64_t)n;
}

void mpi_req_leave(mpi_req *r) {
  if (!r->grouped) return;
  r->wseq = mpi_req_place(r);
  r->grouped = 0;
}

/* A message's last byte arrived: as a mark of its send (the constant model, issue 38: no
 * event a message in flight) or an activity's end (transfer_done). */
static void transfer_mark(sim *s, void *obj) {
  mpi_req *send = obj;
  mpi_world *w = req_world(send);
  send->xfer_end = sim_now(s);
  send->arrived = 1;
  if (w->proc_of) w->last = send->xfer_end;
  if (!send->shadow) mpi_rank_busy(w, send->src, -1);   /* else the sender's process does */
  mpi_rank_busy(w, send->dst, -1);
  mpi_req *recv = send->matched ? send->peer : NULL;   /* else: eager, queued (peer is its link) */
  if (w->observe) w->observe(w->observe_ctx, send, recv);
  /* The sender first when it started waiting first (the receiver's completion may be delayed
   * by smpi/or anyway). */
  uint64_t sp = mpi_req_place(send), rp = recv ? mpi_req_place(recv) : 0;
  int send_first = recv && !send->detached && sp && (!rp || sp < rp);
  if (send_first) complete(w, send);
  if (recv) finish_recv(w, recv, send);
  send->busy = !send->matched; /* an eager message not yet received stays in its queue */
  if (send->matched) send->peer = NULL;
  if (!send->detached && !send_first) complete(w, send);
  maybe_free(w, send);
}

static void transfer_done(sim *s, activity *a) { transfer_mark(s, a->data); }

/* The delay from now to date `at` (>= now) such that now + delay is exactly `at`: a message
 * whose sender is in another process is dated at its start, a date this process may have
 * passed, and must end at the date the one-process run gives it. */
static double delay_to(double now, double at) {
  double d = at - now;
  for (int i = 0; i < 64 && now + d != at; i++) d = now + d < at ? nextafter(d, INFINITY) : nextafter(d, -INFINITY);
  return d;
}

/* A shadow send (its sender is in another process) meets its receive: the bytes move from
 * the later of the two posts, for the constant model's time (mpi_world_split); the sender's
 * process is told the start and the end (its busy time, a rendez-vous send's completion). */
static int start_shadow(mpi_world *w, mpi_req *send, mpi_req *recv, psim_err *err) {
  double xs = send->posted > recv->posted ? send->posted : recv->posted;
  double t = models_const_time(w->models, w->rank_host[send->src], w->rank_host[send->dst], send->bytes, err);
  if (t < 0) return -1;
  double xe = xs + t;   /* what sim_start_event dates it at xs: xs + t */
  set_xstart(send, xs);
  busy_log(w, send->dst, xs, 0, +1);
  w->stats.messages++;
  w->stats.bytes += send->bytes;
  if (w->xfer_mark) sim_start_mark(w->sim, delay_to(sim_now(w->sim), xe), send, w->xfer_mark);
  else sim_start_event(w->sim, delay_to(sim_now(w->sim), xe), transfer_done, send, 0);
  mpi_wire m = {MPI_WIRE_STARTED, send->src, send->dst, send->tag, send->ctx, (int)send->detached,
                send->bytes, xs, xe, (uint64_t)(uintptr_t)send->user};
  w->out(w->out_ctx, w->proc_of[send->src], &m);
  return 0;
}

static int start_transfer(mpi_world *w, mpi_req *send, psim_err *err) {
  if (send->shadow) return start_shadow(w, send, send->peer, err);
  set_xstart(send, sim_now(w->sim));   /* an eager send's post date, else it is not queued */
  mpi_rank_busy(w, send->src, +1);
  mpi_rank_busy(w, send->dst, +1);
  w->stats.messages++;
  w->stats.bytes += send->bytes;
  /* a collective's message (odd contexts) carries what the MPI or the program has just
   * written, unless it is MPI_F_AT_REST (psim run: a block of the program's send buffer,
   * unchanged since it last moved), and so does a send of MPI_F_WRITTEN (psim run: its buffer
   * changed since it last moved): the model's factors for written data, when the platform
   * has them */
  return models_transfer_mark(w->models, w->rank_host[send->src], w->rank_host[send->dst], send->bytes,
                              (send->ctx & 1 && !send->at_rest) || send->written, send, w->xfer_mark, transfer_done,
                              send, 0, err);
}

/* A send and a receive meet. The send's bytes start moving unless they already did (eager). */
static int match_dates(mpi_world *w, mpi_req *send, mpi_req *recv, psim_err *err) {
  send->matched = recv->matched = 1;
  if (send->arrived) { /* eager message already there */
    finish_recv(w, recv, send);
    send->busy = 0;
    maybe_free(w, send);
    return 0;
  }
  send->peer = recv;
  recv->peer = send;
  if (mpi_req_xfer_start(send) >= 0) return 0; /* eager, still in flight: transfer_done finishes both */
  return start_transfer(w, send, err);
}

/* A send and a receive meet; a receive counted as remote (recv_remote) stops being so once
 * its transfer is dated (its source is still the one posted here). */
static int match(mpi_world *w, mpi_req *send, mpi_req *recv, psim_err *err) {
  const int counted = recv_remote(w, recv), dst = recv->dst;   /* recv may be freed */
  int rc = match_dates(w, send, recv, err);
  if (counted) busy_of(w, dst)->remote--;
  return rc;
}

mpi_req *mpi_isend(mpi_world *w, int src, int dst, int tag, int ctx, double bytes, int flags,
                   psim_err *err) {
  mpi_req *s = req_new(w, src, dst, tag, ctx, bytes < 0 ? 0 : bytes, 1);
  const net_config *c = models_config(w->models);
  s->detached = (flags & MPI_F_BUFFERED) || (!(flags & MPI_F_SSEND) && s->bytes < c->detached_thresh);
  s->written = (flags & MPI_F_WRITTEN) != 0;
  s->at_rest = (flags & MPI_F_AT_REST) != 0;
  if (!is_local(w, dst)) {
    /* The receiver's process matches it and moves its bytes; s waits here for its answer
     * (MPI_WIRE_STARTED), busy until then (smpi/async-small-thresh is refused: eager
     * messages would start before their receive's process knows of them). */
    s->remote = 1;
    busy_of(w, src)->remote++;
    mpi_wire m = {MPI_WIRE_SEND, src, dst, tag, ctx, (int)s->detached, s->bytes, s->posted, 0,
                  (uint64_t)(uintptr_t)s};
    w->out(w->out_ctx, w->proc_of[dst], &m);
    if (s->detached) complete(w, s);
    return s;
  }
  /* smpi/async-small-thresh: a small message flows at once, before its receive is posted;
   * not a synchronous send, which SMPI posts to the rendez-vous mailbox when no receive is
   * there yet (Request::start), so that it waits for the receiver */
  int eager = !(flags & MPI_F_SSEND) && s->bytes < c->async_small_thresh;
  if (eager && start_transfer(w, s, err) < 0) return NULL;
  mpi_req *r = match_take_recv(w->q, s);
  if (r) {
    if (match(w, s, r, err) < 0) return NULL;
  } else {
    match_post_send(w->q, s);
  }
  if (s->detached) complete(w, s);
  return s;
}

mpi_req *mpi_irecv(mpi_world *w, int dst, int src, int tag, int ctx, double bytes, psim_err *err) {
  mpi_req *r = req_new(w, src, dst, tag, ctx, bytes, 0);
  if (recv_remote(w, r)) busy_of(w, dst)->remote++;
  mpi_req *s = match_find_send(w->q, dst, src, tag, ctx, 1);
  if (s) {
    if (match(w, s, r, err) < 0) return NULL;
  } else {
    match_post_recv(w->q, r);
  }
  return r;
}

int mpi_cancel_recv(mpi_world *w, mpi_req *r) {
  if (r->is_send || r->matched || r->done || !match_remove_recv(w->q, r)) return 0;
  if (recv_remote(w, r)) busy_of(w, r->dst)->remote--;
  r->done = 1;
  r->busy = 0;
  r->bytes = 0;
  maybe_free(w, r);
  return 1;
}

const mpi_req *mpi_iprobe(mpi_world *w, int dst, int src, int tag, int ctx) {
  return match_find_send(w->q, dst, src, tag, ctx, 0);
}

void mpi_describe_pending(const mpi_world *w, int r, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (const mpi_req *q = match_posted(w->q, r); q && used + 80 < n; q = q->onext) {
    char src[16];
    if (q->src == MPI_L_ANY) snprintf(src, sizeof src, "any");
    else snprintf(src, sizeof src, "%d", q->src);
    used += (size_t)snprintf(buf + used, n - used, "%sreceive from %s tag %d%s (no matching send)",
                             used ? "; " : "", src, q->tag, q->ctx == MPI_CTX_COLL ? " [collective]" : "");
  }
}

/* ---- A world spread over processes (issue 38, part 2) ---- */
void mpi_world_split(mpi_world *w, const int *proc_of, int me, mpi_wire_fn out, void *ctx) {
  w->proc_of = proc_of;
  w->me = me;
  w->out = out;
  w->out_ctx = ctx;
  w->lidx = xmalloc((size_t)(w->nranks > 0 ? w->nranks : 1) * sizeof *w->lidx);
  w->nlocal = 0;
  for (int r = 0; r < w->nranks; r++) w->lidx[r] = proc_of[r] == me ? w->nlocal++ : -1;
  w->busy_st = xcalloc((size_t)(w->nlocal > 0 ? w->nlocal : 1), sizeof *w->busy_st);
  for (int i = 0; i < w->nlocal; i++) w->busy_st[i].closed = -1;
  /* the busy time is logged from now on (mpi_rank_busy), the per-rank counts are not used */
  free(w->busy_n);
  free(w->busy_since);
  free(w->busy_acc);
  free(w->busy_closed);
  w->busy_n = NULL;
  w->busy_since = w->busy_acc = w->busy_closed = NULL;
}

double mpi_world_last_date(const mpi_world *w) { return w->last; }

/* A remote rendez-vous send's last byte arrived (the date its receiver's process gave). */
static void remote_send_done(sim *s, activity *a) {
  mpi_req *send = a->data;
  mpi_world *w = req_world(send);
  send->xfer_end = sim_now(s);
  send->arrived = 1;
  send->busy = 0;
  complete(w, send);
  maybe_free(w, send);
}

int mpi_wire_in(mpi_world *w, const mpi_wire *m, psim_err *err) {
  if (m->kind == MPI_WIRE_STARTED) {
    mpi_req *send = (mpi_req *)(uintptr_t)m->id;
    set_xstart(send, m->date);   /* never queued here */
    busy_log(w, send->src, m->date, 0, +1);
    busy_log(w, send->src, m->date2, 0, -1);
    busy_of(w, send->src)->remote--;
    send->matched = 1;
    if (send->detached) {
      send->xfer_end = m->date2;
      send->arrived = 1;
      send->busy = 0;
      maybe_free(w, send);
    } else {
      sim_start_event(w->sim, delay_to(sim_now(w->sim), m->date2), remote_send_done, send, 0);
    }
    return 0;
  }
  /* MPI_WIRE_SEND: a shadow of the send, posted at its sender's date, matched as the
   * one-process run matches it: the oldest receive of its key, posted before or after it
   * (the sends of one sender arrive in its order, so the pairs are the same). */
  mpi_req *s = req_new(w, m->src, m->dst, m->tag, m->ctx, m->bytes, 1);
  s->posted = m->date;
  s->detached = (unsigned)m->detached & 1u;
  s->shadow = 1;
  s->released = 1;   /* no driver holds it: freed once its transfer ended */
  s->user = (void *)(uintptr_t)m->id;
  mpi_req *r = match_take_recv(w->q, s);
  if (r) return match(w, s, r, err);
  match_post_send(w->q, s);
  return 0;
}

void mpi_busy_read(mpi_world *w, int r, double d, int close, int open) {
  busy_log(w, r, sim_now(w->sim), d, (close ? BUSY_CLOSE : 0) | (open ? BUSY_OPEN : 0));
}

/* For busy_late, which holds changes only: their order within a date is irrelevant. */
static int busy_cmp(const void *x, const void *y) {
  const busy_ent *a = x, *b = y;
  return a->date < b->date ? -1 : a->date > b->date;
}

/* Applies the entries dated before horizon to their ranks in date order, a merge of the two
 * parts of the log (busy_log is in that order as logged, its reads of one date in their
 * order; busy_late is sorted first). The entries left (dated horizon or later) stay in order
 * at the front of their parts. In place: the log of one window of a 65,536-rank stencil holds
 * ~650,000 entries, and the by-rank copy this replaced doubled that and paid its page faults
 * at every fold. */
void mpi_busy_fold(mpi_world *w, double horizon) {
  busy_ent *a = w->busy_log.data, *b = w->busy_late.data;
  size_t na = w->busy_log.len, nb = w->busy_late.len;
  if (nb > 1) qsort(b, nb, sizeof *b, busy_cmp);
  size_t i = 0, j = 0;
  for (;;) {
    const busy_ent *e;
    if (i < na && a[i].date < horizon && (j >= nb || !(b[j].date < horizon) || a[i].date <= b[j].date)) e = &a[i++];
    else if (j < nb && b[j].date < horizon) e = &b[j++];
    else break;
    busy_state *st = busy_of(w, e->rank);
    busy_apply(st, e);
    st->used = 1;
    st->pending--;
  }
  /* both parts are sorted: what is left of each is its tail */
  memmove(a, a + i, (na - i) * sizeof *a);
  w->busy_log.len = na - i;
  memmove(b, b + j, (nb - j) * sizeof *b);
  w->busy_late.len = nb - j;
}

size_t mpi_busy_pending(const mpi_world *w) { return w->busy_log.len + w->busy_late.len; }

void mpi_busy_settle(mpi_world *w, void (*put)(void *ctx, int r, double comm, double wait), void *ctx) {
  mpi_busy_fold(w, INFINITY);
  VEC_FREE(w->busy_log);
  VEC_FREE(w->busy_late);
  for (int r = 0; r < w->nranks; r++) {
    const busy_state *st = w->lidx[r] >= 0 ? &w->busy_st[w->lidx[r]] : NULL;
    if (st && st->used) put(ctx, r, st->comm, st->wait);
  }
}
