/* Point-to-point semantics: matching queues and the SMPI send protocol (see mpi_layer.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/match.h"
#include "psim/mpi_layer.h"

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
};

void mpi_rank_busy(mpi_world *w, int r, int delta) {
  if (delta > 0) {
    if (w->busy_n[r]++ == 0) w->busy_since[r] = sim_now(w->sim);
  } else if (--w->busy_n[r] == 0) {
    w->busy_acc[r] += sim_now(w->sim) - w->busy_since[r];
  }
}

double mpi_rank_busy_time(const mpi_world *w, int r) {
  return w->busy_n[r] > 0 ? w->busy_acc[r] + (sim_now(w->sim) - w->busy_since[r]) : w->busy_acc[r];
}

void mpi_world_observe(mpi_world *w, mpi_transfer_fn fn, void *ctx) {
  w->observe = fn;
  w->observe_ctx = ctx;
}

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
  psim_slab_init(&w->reqs, sizeof(mpi_req));
  return w;
}

void mpi_world_free(mpi_world *w) {
  if (!w) return;
  psim_slab_destroy(&w->reqs);
  match_free(w->q);
  free(w->busy_n);
  free(w->busy_since);
  free(w->busy_acc);
  free(w);
}

mpi_stats mpi_world_stats(const mpi_world *w) { return w->stats; }
int mpi_rank_host(const mpi_world *w, int rank) { return w->rank_host[rank]; }
models *mpi_models(mpi_world *w) { return w->models; }

/* A new request, every field written once (no memset of the whole request first). */
static inline mpi_req *req_new(mpi_world *w, int owner, int src, int dst, int tag, int ctx,
                               double bytes, int is_send) {
  mpi_req *r = psim_slab_alloc(&w->reqs);
  r->owner = owner;
  r->src = src;
  r->dst = dst;
  r->tag = tag;
  r->ctx = ctx;
  r->bytes = bytes;
  r->is_send = (unsigned)is_send & 1u;
  r->done = r->detached = r->matched = r->released = r->arrived = r->waited = r->taken = 0;
  r->busy = 1;
  r->posted = sim_now(w->sim);
  r->or_due = 0;
  r->xfer_start = r->xfer_end = -1;
  r->peer = r->next = r->oprev = r->onext = NULL;
  r->seq = 0;
  r->wseq = 0;
  r->wbase = NULL;
  r->world = w;
  r->user = NULL;
  return r;
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
  w->on_done(w->ctx, r);
}

static void recv_overhead_done(sim *s, activity *a) {
  (void)s;
  mpi_req *recv = a->data;
  mpi_rank_busy(recv->world, recv->owner, -1);
  recv->busy = 0;
  complete(recv->world, recv);
  maybe_free(recv->world, recv);
}

/* The receive of a message whose bytes have all arrived completes: at once, or after a machine
 * file's receive delay; smpi/or (SMPI's copy out of the detached buffer) is left due. */
static void finish_recv(mpi_world *w, mpi_req *recv, const mpi_req *send) {
  recv->bytes = send->bytes;
  recv->src = send->src;
  recv->tag = send->tag;
  recv->xfer_start = send->xfer_start;
  recv->xfer_end = send->xfer_end;
  recv->peer = NULL;
  /* smpi/or of a detached message: not here but in the receiver's wait or test that returns
   * the request (SMPI's Request::finish_wait), as a sleep of its own, one message after the
   * other; the drivers pay or_due (replay_rank.c take, emu_p2p.c emu_req_take) */
  recv->or_due = send->detached ? models_overhead(w->models, w->rank_host[recv->owner], OVH_RECV, send->bytes) : 0;
  double ovh = models_recv_delay(w->models, w->rank_host[recv->owner], send->bytes);   /* a machine file's */
  if (ovh > 0) {
    mpi_rank_busy(w, recv->owner, +1);
    models_sleep(w->models, w->rank_host[recv->owner], ovh, recv_overhead_done, recv, 0);
    return;
  }
  recv->busy = 0;
  complete(w, recv);
  maybe_free(w, recv);
}

void mpi_req_wait(mpi_req *r) {
  r->waited = 1;
  if (!r->wseq) r->wseq = ++r->world->wseq;
}

void mpi_req_rewait(mpi_req *r) {
  r->waited = 1;
  r->wbase = NULL;
  r->wseq = ++r->world->wseq;
}

void mpi_req_join(mpi_req *r, const uint64_t *base, int index) {
  r->waited = 1;
  r->wbase = base;
  r->wseq = (uint64_t)index + 1;
}

/* Members get the places w->wseq + 1 .. w->wseq + n: what n mpi_req_rewait calls would give
 * (the skipped numbers of members not waiting any more are never compared). */
void mpi_wgroup_rewait(mpi_world *w, uint64_t *base, int n) {
  *base = w->wseq;
  w->wseq += (uint64_t)n;
}

void mpi_req_leave(mpi_req *r) {
  if (!r->wbase) return;
  r->wseq = mpi_req_place(r);
  r->wbase = NULL;
}

static void transfer_done(sim *s, activity *a) {
  mpi_req *send = a->data;
  mpi_world *w = send->world;
  send->xfer_end = sim_now(s);
  send->arrived = 1;
  mpi_rank_busy(w, send->src, -1);
  mpi_rank_busy(w, send->dst, -1);
  mpi_req *recv = send->peer;
  if (w->observe) w->observe(w->observe_ctx, send, recv);
  /* The sender first when it started waiting first (the receiver's completion may be delayed
   * by smpi/or anyway). */
  uint64_t sp = mpi_req_place(send), rp = recv ? mpi_req_place(recv) : 0;
  int send_first = recv && !send->detached && sp && (!rp || sp < rp);
  if (send_first) complete(w, send);
  if (recv) finish_recv(w, recv, send);
  send->busy = !send->matched; /* an eager message not yet received stays in its queue */
  send->peer = NULL;
  if (!send->detached && !send_first) complete(w, send);
  maybe_free(w, send);
}

static int start_transfer(mpi_world *w, mpi_req *send, psim_err *err) {
  send->xfer_start = sim_now(w->sim);
  mpi_rank_busy(w, send->src, +1);
  mpi_rank_busy(w, send->dst, +1);
  w->stats.messages++;
  w->stats.bytes += send->bytes;
  activity *a = models_transfer(w->models, w->rank_host[send->src], w->rank_host[send->dst],
                                send->bytes, transfer_done, send, 0, err);
  return a ? 0 : -1;
}

/* A send and a receive meet. The send's bytes start moving unless they already did (eager). */
static int match(mpi_world *w, mpi_req *send, mpi_req *recv, psim_err *err) {
  send->matched = recv->matched = 1;
  if (send->arrived) { /* eager message already there */
    finish_recv(w, recv, send);
    send->busy = 0;
    maybe_free(w, send);
    return 0;
  }
  send->peer = recv;
  recv->peer = send;
  if (send->xfer_start >= 0) return 0; /* eager, still in flight: transfer_done finishes both */
  return start_transfer(w, send, err);
}

mpi_req *mpi_isend(mpi_world *w, int src, int dst, int tag, int ctx, double bytes, int flags,
                   psim_err *err) {
  mpi_req *s = req_new(w, src, src, dst, tag, ctx, bytes < 0 ? 0 : bytes, 1);
  const net_config *c = models_config(w->models);
  s->detached = (flags & MPI_F_BUFFERED) || (!(flags & MPI_F_SSEND) && s->bytes < c->detached_thresh);
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
  mpi_req *r = req_new(w, dst, src, dst, tag, ctx, bytes, 0);
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
