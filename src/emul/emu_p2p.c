/* Messages with real data over the MPI layer (src/mpi/p2p.c decides when they move).
 *
 * A send's payload is copied when the send is detached (the sender's MPI_Send returns at once
 * and may reuse its buffer), referenced otherwise (the sender waits for the rendez-vous). The
 * bytes land in the receiver's buffer when the send and the receive *match*: both sides know
 * it right after mpi_isend/mpi_irecv return (q->matched). For a receive, the send it matched
 * is the one mpi_iprobe reported just before: the layer takes the oldest matching unexpected
 * send, as iprobe does. The receiver cannot observe its buffer before its request completes,
 * so copying at the match rather than at the simulated arrival changes nothing it can see. */
#include <stdlib.h>
#include <string.h>

#include "emul/emu.h"

emu_req *emu_req_new(void) {
  emu_sim *S = emu_current;
  emu_req *r = S->free_reqs;
  if (r) S->free_reqs = r->next_free;
  else { r = xmalloc(sizeof *r); VEC_PUSH(S->all_reqs, r); }
  memset(r, 0, sizeof *r);
  r->owner = S->running ? S->running->id : 0;
  return r;
}

static void req_recycle(emu_sim *S, emu_req *r) {
  if (r->owned) free((void *)r->data);
  r->data = NULL;
  r->next_free = S->free_reqs;
  S->free_reqs = r;
}

void emu_req_free(emu_req *r) {
  if (!r) return;
  emu_sim *S = emu_current;
  if (r->io && !r->done) { r->orphan = 1; return; }   /* its disk activity frees it (emu_io.c) */
  if (r->q) {
    mpi_req *q = r->q;
    /* an unmatched send lives on (its data too) until a receive takes it */
    if (r->is_send && !r->copied && !q->matched) {
      r->orphan = 1;
      mpi_req_release(S->world, q);
      return;
    }
    q->user = NULL;
    mpi_req_release(S->world, q);
    r->q = NULL;
  }
  req_recycle(S, r);
}

void emu_req_finish(emu_req *r) {
  emu_sim *S = emu_current;
  if (r->orphan) { req_recycle(S, r); return; }   /* MPI_Request_free'd: nobody will look */
  r->done = 1;
  emu_rank *k = &S->ranks[r->owner];
  if (r->waited && k->state == EK_BLOCKED && --k->nwait == 0) emu_wake(S, k);
  emu_wake_pollers();
}

/* Copies a matched send's payload into its receive's landing zone. */
static void deliver(emu_req *s, emu_req *r) {
  if (!s || s->copied) return;
  s->copied = 1;
  if (!r) return;
  size_t n = s->len;
  if (n > r->rcap) { r->truncated = 1; n = r->rcap; }
  /* a send to self is a copy the rank makes itself (the network model has no link to time
   * it); to another rank, the copy is psim's way of moving the bytes the model times */
  emu_work w = {0};
  int self = s->owner == r->owner;
  if (self) emu_work_begin(&w);
  if (n && r->rbuf && s->data) memcpy(r->rbuf, s->data, n);
  if (self) emu_work_end(&w);
  if (n && r->rbuf && emu_current->o->net.wr_factors) emu_recv_landed(&emu_current->ranks[r->owner], r->rbuf);
  r->got = s->len;
  r->copied = 1;
  if (s->owned) { free((void *)s->data); s->owned = 0; }
  s->data = NULL;
}

static void release_orphan(emu_req *s) {
  if (!s->orphan || !s->copied) return;
  if (!s->done && s->q && !s->q->detached) return; /* completes later through on_done */
  if (s->q) s->q->user = NULL;
  s->q = NULL;
  s->orphan = 0;
  req_recycle(emu_current, s);
}

/* A sleep inside an MPI call: an overhead (smpi/os, ois: busy, the rank works on its message)
 * or a polling sleep (test, iprobe: waiting unless one of its messages moves meanwhile). */
static void sleep_overhead(emu_sim *S, double t, int busy) {
  if (t <= 0) return;
  emu_rank *k = S->running;
  double t0 = sim_now(S->sim), bc = k->call_busy_compute;
  if (busy) mpi_rank_busy(S->world, k->id, +1);
  emu_sleep(t);
  if (busy) mpi_rank_busy(S->world, k->id, -1);
  emu_call_time_since(k, t0, bc);
}

/* The rank's wait or test returns r: SMPI's finish_wait then sleeps smpi/or when r received a
 * detached message, in the receiving rank, one message after the other (as psim replay does:
 * mpi_req_or_due). */
void emu_req_take(emu_req *r) {
  if (!r || !r->q || !r->done || !(mpi_req_or_due(r->q) > 0)) return;
  double t = mpi_req_or_due(r->q);
  mpi_req_or_paid(r->q);
  sleep_overhead(emu_current, t, 1);
}

/* SMPI's waitall is a loop of waitany: each request is taken (its smpi/or paid) as soon as it
 * is complete, in order, while the others go on arriving; waiting for all of them and then
 * paying every or one after the other would end later. */
void emu_waitall_take(emu_req **reqs, int n) {
  for (;;) {
    int ndone = 0, pending = 0;
    for (int i = 0; i < n; i++) {
      if (!reqs[i]) continue;
      if (reqs[i]->done) { ndone++; emu_req_take(reqs[i]); }
      else pending++;
    }
    if (!pending) return;
    emu_wait(reqs, n, ndone + 1);
  }
}

/* A collective's own wait takes its request, then frees it. */
static void take_free(emu_req *r) {
  emu_req_take(r);
  emu_req_free(r);
}

emu_req *emu_isend(int dst, int tag, int ctx, const void *data, size_t len, int owned, int flags,
                   int blocking) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  const net_config *c = &S->o->net;
  double bytes = (double)len;
  /* SMPI charges os before a detached blocking send and any synchronous one, ois before an
   * isend (Request::start) */
  double ovh = 0;
  if (!blocking) ovh = models_overhead(S->models, k->host, OVH_ISEND, bytes);
  else if (bytes < c->detached_thresh || (flags & MPI_F_SSEND)) ovh = models_overhead(S->models, k->host, OVH_SEND, bytes);
  ovh += models_send_delay(S->models, k->host, bytes);   /* a machine file's, on every send */
  sleep_overhead(S, ovh, 1);
  /* a point-to-point message of data the program wrote since they last moved (or packed:
   * `owned`) takes the platform's written factors (emu_written.c); collectives' (odd
   * contexts) take them in the MPI layer */
  if (c->wr_factors && !(ctx & 1) && data && len && (owned || emu_send_written(k, data, len)))
    flags |= MPI_F_WRITTEN;
  emu_req *r = emu_req_new();
  r->is_send = 1;
  int detached = (flags & MPI_F_BUFFERED) || (!(flags & MPI_F_SSEND) && bytes < c->detached_thresh);
  if (data && len) {
    if (owned) { r->data = data; r->owned = 1; }
    else if (detached) {
      void *copy = xmalloc(len);
      emu_work w = {0};   /* to itself: the eager copy is the rank's work too (deliver) */
      if (dst == k->id) emu_work_begin(&w);
      memcpy(copy, data, len);
      if (dst == k->id) emu_work_end(&w);
      r->data = copy;
      r->owned = 1;
    } else {
      r->data = data;
    }
  } else if (owned) {
    free((void *)data);
  }
  r->len = len;
  mpi_req *q = mpi_isend(S->world, k->id, dst, tag, ctx, bytes, flags, S->err);
  if (!q) emu_fatal("%s", S->err->msg);
  r->q = q;
  if (!q->user) q->user = r;
  if (q->detached) {   /* completed inside mpi_isend, before q->user was set */
    r->done = 1;
    k->st.msgs_sent++;
    k->st.bytes_sent += bytes;
  }
  if (q->matched && q->peer) deliver(r, q->peer->user);
  emu_rank *d = &S->ranks[dst];
  if (d->probing && d->probe_ctx == ctx && (d->probe_src < 0 || d->probe_src == k->id) &&
      (d->probe_tag < 0 || d->probe_tag == tag))
    emu_wake(S, d);
  return r;
}

emu_req *emu_irecv(int src, int tag, int ctx, void *buf, size_t cap) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  emu_req *r = emu_req_new();
  r->rbuf = buf;
  r->rcap = cap;
  const mpi_req *s0 = mpi_iprobe(S->world, k->id, src, tag, ctx);
  emu_req *sender = s0 ? s0->user : NULL;
  /* the receive must exist before the layer may complete it synchronously (eager arrival) */
  mpi_req *q = mpi_irecv(S->world, k->id, src, tag, ctx, -1, S->err);
  if (!q) emu_fatal("%s", S->err->msg);
  r->q = q;
  q->user = r;
  if (q->matched) {
    deliver(sender, r);
    if (sender) release_orphan(sender);
    if (q->done) {   /* completed inside mpi_irecv, before q->user was set */
      r->done = 1;
      r->src = q->src;
      r->tag = q->tag;
      r->got = (size_t)q->bytes;
      k->st.msgs_recv++;
      k->st.bytes_recv += q->bytes;
    }
  }
  return r;
}

int emu_cancel_recv(emu_req *r) {
  if (!r || r->is_send || r->done || !r->q || !mpi_cancel_recv(emu_current->world, r->q)) return 0;
  r->done = 1;
  r->got = 0;
  return 1;
}

void emu_wait(emu_req **reqs, int n, int need) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  emu_work_charge_overlap();   /* a packing that overlaps the messages (emu_work_pipeline) */
  int pending = 0, ndone = 0;
  for (int i = 0; i < n; i++) {
    if (!reqs[i]) continue;
    if (reqs[i]->done) ndone++;
    else pending++;
  }
  if (need > pending + ndone) need = pending + ndone;
  int missing = need - ndone;
  if (missing <= 0) return;
  for (int i = 0; i < n; i++) if (reqs[i] && !reqs[i]->done) { reqs[i]->waited = 1; if (reqs[i]->q) mpi_req_wait(reqs[i]->q); }
  k->nwait = missing;
  double from = sim_now(S->sim);
  emu_block();
  k->idle_from = from;
  k->idle_to = sim_now(S->sim);
  for (int i = 0; i < n; i++) if (reqs[i]) reqs[i]->waited = 0;
}

void emu_test_poll(int success) {
  emu_poll_cost(emu_current->o->test_cost);
  if (success) emu_spin_progress(emu_current);
  else emu_poll_failed();
}

int emu_polls_injected(void) { return emu_current->o->inject_polls; }

/* A failed poll under SMPI's injected sleeps: the call is a poll (it does not end the rank's
 * spin, emu_leave), and it may show a livelock (emu_spin.c). */
static void injected_poll_failed(emu_sim *S) {
  S->running->poll_failed = 1;
  if (emu_spin_poll(S, S->running)) emu_block();   /* the run stops, the rank stays here */
}

/* SMPI's Request::test and Request::testany: the sleep comes first, then the simcall that
 * looks at the request (the rank yields), and only its answer moves the process-wide count
 * (as psim replay's `test`, replay_rank.c). */
void emu_test_begin(int any) {
  emu_sim *S = emu_current;
  double t = (any ? S->testany_count : S->test_count) * S->o->net.test_sleep;
  /* recorded as a sleep: the trace has no `test` (its completion is recorded as a wait) */
  if (S->tit) emu_trace_sleep(S->running, t);
  sleep_overhead(S, t, 0);
  emu_yield();
}

void emu_test_end(int any, int success) {
  emu_sim *S = emu_current;
  double *n = any ? &S->testany_count : &S->test_count;
  if (success) emu_spin_progress(S);
  else injected_poll_failed(S);
  if (success) *n = 1;
  else if (any || S->o->net.grow_injected) *n += 1;
}

const mpi_req *emu_iprobe(int src, int tag, int ctx) {
  emu_sim *S = emu_current;
  if (!S->o->inject_polls) {
    emu_poll_cost(S->o->iprobe_cost);
    const mpi_req *s = mpi_iprobe(S->world, S->running->id, src, tag, ctx);
    if (s) emu_spin_progress(S);
    if (s || !emu_poll_failed()) return s;
    return mpi_iprobe(S->world, S->running->id, src, tag, ctx);
  }
  /* with --cfg smpi/iprobe, as SMPI's Request::iprobe: before probing, a computation of
   * count x smpi/iprobe seconds of the host's speed (so it shares the CPU with the host's other
   * ranks; the trace records it as that compute, replay having no probes), longer after each
   * unsuccessful probe, so that a polling loop lets simulated time advance; then the probe, a
   * simcall (the rank yields), and the count moves on its answer */
  emu_cpu_overhead(S->iprobe_count * S->o->iprobe_sleep);
  emu_yield();
  const mpi_req *s = mpi_iprobe(S->world, S->running->id, src, tag, ctx);
  if (s) emu_spin_progress(S);
  else injected_poll_failed(S);
  if (s) S->iprobe_count = 1;
  else if (S->o->net.grow_injected) S->iprobe_count += 1;
  return s;
}

const mpi_req *emu_probe(int src, int tag, int ctx) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  if (S->o->inject_polls && S->o->iprobe_sleep > 0) {
    /* SMPI's MPI_Probe is a loop of its iprobe (Request::probe): the message is seen at the
     * end of the injected sleep that follows its arrival, not at the arrival */
    for (;;) {
      const mpi_req *s = emu_iprobe(src, tag, ctx);
      if (s) return s;
    }
  }
  for (;;) {
    const mpi_req *s = mpi_iprobe(S->world, k->id, src, tag, ctx);
    if (s) return s;
    k->probing = 1;
    k->probe_src = src;
    k->probe_tag = tag;
    k->probe_ctx = ctx;
    emu_block();
    k->probing = 0;
  }
}

/* A collective's point-to-point program, as replay runs it (src/replay/replay.c exec_op). */
void emu_run_prog(const coll_prog *p, const int *world_of, int ctx, int at_rest) {
  emu_req *inline_reqs[16];
  emu_req **reqs = inline_reqs;
  int *opidx = NULL;
  int nreqs = 0, cap = 16, waited = 0;
  emu_rank *k = emu_self();
  if (p->n > 16) {
    cap = p->n;
    reqs = xmalloc((size_t)cap * sizeof *reqs);
    emu_hold(k, reqs);
  }
  opidx = xmalloc((size_t)(p->n + 1) * sizeof *opidx);
  emu_hold(k, opidx);
  for (int i = 0; i < p->n; i++) {
    const coll_op *op = &p->ops[i];
    emu_req *r;
    const int flags = at_rest && op->user ? MPI_F_AT_REST : 0;   /* a send of the program's blocks at rest */
    opidx[i] = -1;
    switch ((coll_opkind)op->kind) {
    case CO_ISEND:
      opidx[i] = nreqs;
      reqs[nreqs++] = emu_isend(world_of[op->peer], op->tag, ctx, NULL, (size_t)op->bytes, 0, flags, 0);
      break;
    case CO_IRECV:
      opidx[i] = nreqs;
      reqs[nreqs++] = emu_irecv(world_of[op->peer], op->tag, ctx, NULL, 0);
      break;
    case CO_SEND:
      r = emu_isend(world_of[op->peer], op->tag, ctx, NULL, (size_t)op->bytes, 0, flags, 1);
      emu_wait(&r, 1, 1);
      take_free(r);
      break;
    case CO_RECV:
      r = emu_irecv(world_of[op->peer], op->tag, ctx, NULL, 0);
      emu_wait(&r, 1, 1);
      take_free(r);
      break;
    case CO_WAITALL:
      emu_waitall_take(reqs + waited, nreqs - waited);
      for (int j = waited; j < nreqs; j++) { emu_req_free(reqs[j]); reqs[j] = NULL; }
      waited = nreqs;
      break;
    case CO_WAIT: {
      int j = op->peer >= 0 && op->peer < i ? opidx[op->peer] : -1;
      if (j >= 0 && reqs[j]) {
        emu_wait(&reqs[j], 1, 1);
        take_free(reqs[j]);
        reqs[j] = NULL;
      }
      break;
    }
    case CO_COMPUTE:
      emu_compute(op->flops);
      break;
    case CO_COMBINE:   /* charged after the program (rt_coll_timing) */
      break;
    }
  }
  /* a program always ends with its waits; anything left is released */
  for (int j = 0; j < nreqs; j++)
    if (reqs[j]) { emu_wait(&reqs[j], 1, 1); take_free(reqs[j]); }
  if (reqs != inline_reqs) { emu_release(k, reqs); free(reqs); }
  emu_release(k, opidx);
  free(opidx);
}
