/* Trace replay driver (see include/psim/replay.h).
 *
 * Every trace action is translated into a short list of operations ("rops") that one small
 * interpreter executes: a send is [SEND], an isend [ISEND_KEEP], a collective is the program
 * its algorithm compiles to (include/psim/coll.h) followed by the reduction's computation.
 * An operation either finishes at once or blocks its rank; the rank is made ready again by the
 * completion that unblocks it, and resumes the same operation at its next phase (`sub`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/mpi_layer.h"
#include "psim/replay.h"

typedef enum {
  R_SEND, R_ISEND, R_RECV, R_IRECV, R_WAITALL, R_WAIT, R_COMPUTE, R_SLEEP,
  R_ISEND_KEEP, R_IRECV_KEEP, R_WAIT_KEY, R_TEST_KEY, R_WAITALL_KEEP,
  R_MIGRATE,   /* only with replay_opts.vp: a possible balancing step */
} rop_kind;

typedef struct rop {
  uint8_t kind;
  uint8_t ctx;
  int32_t peer, peer2, tag;
  double bytes, amount;
} rop;

/* A request started by a trace isend/irecv, waited for later by (src, dst, tag). */
typedef struct keyed { int src, dst, tag; mpi_req *req; } keyed;

/* RK_QUEUED: a VP ready to run but waiting for its PE; RK_STEP: at a balancing step. */
typedef enum { RK_READY, RK_BLOCKED, RK_DONE, RK_QUEUED, RK_STEP } rank_state;

typedef struct rank {
  int id, host;
  uint8_t state, sub, has_action, at_end;
  uint8_t wait_comm;              /* VP mode: blocked in communication, without its PE */
  int migrates;                   /* VP mode: migrate points reached */
  int qnext;                      /* VP mode: next VP in its PE's ready queue */
  double iter_mark;               /* VP mode: st.compute at its previous migrate */
  int pc, nops, capops;
  rop *ops;
  rop inline_ops[2];
  /* requests started by the current program (collective), in order */
  mpi_req **preqs;
  int npreqs, cappreqs, pwaited;  /* preqs[0..pwaited) already waited for */
  mpi_req *cur;                   /* request a blocking op waits for */
  int nwaiting;                   /* requests it is blocked on that are not done */
  keyed *pend;
  int npend, cappend;
  tit_action act;
  const char *last_file;          /* where its last action came from (for deadlock reports) */
  long last_line;
  double act_start, xfer_lo, xfer_hi;
  char *text;                     /* copy of the action text once it blocks */
  int text_len, text_cap, text_copied;
  rank_stats st;
} rank;

typedef struct replay {
  const replay_opts *o;
  tit_source *src;
  sim *sim;
  models *models;
  mpi_world *world;
  rank *ranks;
  int *rank_host;
  int np;
  double test_count;              /* SMPI's process-wide count of injected test sleeps */
  int failed;
  psim_err *err;
  uint64_t actions;
  coll_prog prog;
  double last_progress;
  /* over-decomposition (o->vp != NULL): per PE the running VP (-1: idle) and a FIFO ring of
   * ready VPs; the balancing step in progress */
  const replay_vp *vp;
  int *pe_running, *pe_qhead, *pe_qtail;  /* queues linked through rank.qnext, -1 = none */
  int at_step, ndone, nsteps, migrating;
  double *step_loads, *step_bytes, *load_mark;
  int *new_pe;
} replay;

void replay_opts_init(replay_opts *o, const platform *p, int np) {
  memset(o, 0, sizeof *o);
  o->plat = p;
  o->np = np;
  net_config_init(&o->net);
  coll_selector_init(&o->coll);
  o->migrate_bytes = 0;
}

int replay_opts_cfg(replay_opts *o, const char *key, const char *value, psim_err *err) {
  int r = net_config_set(&o->net, key, value, err);
  if (r != 0) return r < 0 ? -1 : 0;
  if (!strncmp(key, "smpi/", 5) && coll_kind_from_name(key + 5) >= 0)
    return coll_selector_set(&o->coll, key + 5, value, err);
  if (!strcmp(key, "smpi/reduce_scatter"))
    return coll_selector_set(&o->coll, "reducescatter", value, err);
  if (!strcmp(key, "smpi/coll-selector")) {
    if (strcmp(value, "default") && strcmp(value, "smpi"))
      return psim_errf(err, 2, NULL, 0,
                       "--cfg smpi/coll-selector:%s is not supported; choose algorithms per "
                       "collective with smpi/<collective>:<algorithm>", value);
    return 0;
  }
  return psim_errf(err, 2, NULL, 0,
                   "unknown configuration key '%s' (expected a network/..., smpi/... property "
                   "or smpi/<collective>; see psim replay --help)", key);
}

/* ---- rank helpers ---- */
static rop *add_op(rank *k) {
  if (k->nops == k->capops) {
    int cap = k->capops * 2;
    rop *n = xmalloc((size_t)cap * sizeof *n);
    memcpy(n, k->ops, (size_t)k->nops * sizeof *n);
    if (k->ops != k->inline_ops) free(k->ops);
    k->ops = n;
    k->capops = cap;
  }
  rop *op = &k->ops[k->nops++];
  memset(op, 0, sizeof *op);
  return op;
}

static void reset_ops(rank *k) {
  if (k->ops != k->inline_ops) free(k->ops);
  k->ops = k->inline_ops;
  k->capops = 2;
  k->nops = k->pc = 0;
  k->sub = 0;
  k->npreqs = k->pwaited = 0;
}

static void keep_text(rank *k) {
  if (k->text_copied || !k->has_action) return;
  if (k->act.text_len + 1 > k->text_cap) {
    k->text_cap = k->act.text_len + 32;
    k->text = xrealloc(k->text, (size_t)k->text_cap);
  }
  memcpy(k->text, k->act.text, (size_t)k->act.text_len);
  k->text[k->act.text_len] = 0;
  k->text_len = k->act.text_len;
  k->text_copied = 1;
}

static void fail(replay *R) {
  R->failed = 1;
  sim_stop(R->sim);
}

static void block(rank *k) {
  k->state = RK_BLOCKED;
  keep_text(k);
}

/* VP mode: VP k wants its PE; it runs now if the PE is idle, else waits its turn. */
static void pe_acquire(replay *R, rank *k) {
  int pe = R->vp->vp_pe[k->id];
  if (R->pe_running[pe] < 0) {
    R->pe_running[pe] = k->id;
    k->state = RK_READY;
    sim_make_ready(R->sim, k->id);
    return;
  }
  k->qnext = -1;
  if (R->pe_qtail[pe] >= 0) R->ranks[R->pe_qtail[pe]].qnext = k->id;
  else R->pe_qhead[pe] = k->id;
  R->pe_qtail[pe] = k->id;
  k->state = RK_QUEUED;
}

/* VP mode: VP k leaves its PE (blocked in communication, at a step, or finished). */
static void pe_release(replay *R, rank *k) {
  int pe = R->vp->vp_pe[k->id];
  if (R->pe_running[pe] != k->id) return;
  R->pe_running[pe] = -1;
  int next = R->pe_qhead[pe];
  if (next < 0) return;
  R->pe_qhead[pe] = R->ranks[next].qnext;
  if (R->pe_qhead[pe] < 0) R->pe_qtail[pe] = -1;
  R->pe_running[pe] = next;
  R->ranks[next].state = RK_READY;
  sim_make_ready(R->sim, next);
}

/* Blocked waiting for messages: a VP gives its PE to the next ready one. */
static void block_comm(replay *R, rank *k) {
  block(k);
  if (R->vp) { k->wait_comm = 1; pe_release(R, k); }
}

static void wake(replay *R, rank *k) {
  if (k->state != RK_BLOCKED) return;
  if (R->vp && k->wait_comm) { k->wait_comm = 0; pe_acquire(R, k); return; }
  k->state = RK_READY;
  sim_make_ready(R->sim, k->id);
}

static void activity_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  wake(R, &R->ranks[a->tag]);
}

/* MPI layer callback: a request completed. */
static void req_done(void *ctx, mpi_req *q) {
  replay *R = ctx;
  if (!q->waited) return;
  rank *k = &R->ranks[q->owner];
  if (--k->nwaiting == 0) wake(R, k);
}

static void note_xfer(rank *k, const mpi_req *q) {
  if (q->xfer_start < 0) return;
  if (q->xfer_start < k->xfer_lo) k->xfer_lo = q->xfer_start;
  if (q->xfer_end > k->xfer_hi) k->xfer_hi = q->xfer_end;
}

static void count_done(rank *k, const mpi_req *q) {
  note_xfer(k, q);
  if (q->is_send) { k->st.msgs_sent++; k->st.bytes_sent += q->bytes; }
  else { k->st.msgs_recv++; k->st.bytes_recv += q->bytes; }
}

/* Waits for requests[0..n): returns 1 when the rank must block. */
static int wait_reqs(rank *k, mpi_req **reqs, int n) {
  int pending = 0;
  for (int i = 0; i < n; i++) {
    if (!reqs[i] || reqs[i]->done) continue;
    mpi_req_wait(reqs[i]);
    pending++;
  }
  if (!pending) return 0;
  k->nwaiting = pending;
  return 1;
}

static void release_reqs(replay *R, rank *k, mpi_req **reqs, int n) {
  for (int i = 0; i < n; i++) {
    if (!reqs[i]) continue;
    count_done(k, reqs[i]);
    mpi_req_release(R->world, reqs[i]);
    reqs[i] = NULL;
  }
}

static void push_preq(rank *k, mpi_req *q) {
  if (k->npreqs == k->cappreqs) {
    k->cappreqs = k->cappreqs ? 2 * k->cappreqs : 8;
    k->preqs = xrealloc(k->preqs, (size_t)k->cappreqs * sizeof *k->preqs);
  }
  k->preqs[k->npreqs++] = q;
}

static void push_keyed(rank *k, int src, int dst, int tag, mpi_req *q) {
  if (k->npend == k->cappend) {
    k->cappend = k->cappend ? 2 * k->cappend : 4;
    k->pend = xrealloc(k->pend, (size_t)k->cappend * sizeof *k->pend);
  }
  k->pend[k->npend++] = (keyed){src, dst, tag, q};
}

static int find_keyed(const rank *k, int src, int dst, int tag) {
  for (int i = 0; i < k->npend; i++)
    if (k->pend[i].src == src && k->pend[i].dst == dst && k->pend[i].tag == tag) return i;
  return -1;
}

static void remove_keyed(rank *k, int i) {
  memmove(&k->pend[i], &k->pend[i + 1], (size_t)(k->npend - i - 1) * sizeof *k->pend);
  k->npend--;
}

static int sleep_then(replay *R, rank *k, double t, int next_sub) {
  if (t <= 0) { k->sub = (uint8_t)next_sub; return 0; }
  sim_start_timer(R->sim, t, activity_done, R, k->id);
  k->sub = (uint8_t)next_sub;
  block(k);
  return 1;
}

/* ---- balancing steps (VP mode) ---- */
/* Every VP is at the step and every migration has arrived: VPs take their new PEs and queue
 * for them in VP order. */
static void step_resume(replay *R) {
  const replay_vp *vp = R->vp;
  for (int v = 0; v < R->np; v++) {
    vp->vp_pe[v] = R->new_pe[v];
    R->rank_host[v] = vp->pe_host[R->new_pe[v]];
    R->ranks[v].host = R->rank_host[v];
    R->ranks[v].st.host = R->rank_host[v];
  }
  R->at_step = 0;
  for (int v = 0; v < R->np; v++) {
    rank *k = &R->ranks[v];
    k->state = RK_BLOCKED;
    pe_acquire(R, k);
  }
  if (vp->resumed) vp->resumed(vp->ctx, R->nsteps, sim_now(R->sim));
}

static void migration_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  if (--R->migrating == 0) step_resume(R);
}

/* The strategy has run (lb_cost elapsed): the moving VPs' memory crosses the network. */
static void step_strategy_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  R->migrating = 1;   /* held until every transfer is started */
  for (int v = 0; v < R->np && !R->failed; v++) {
    int from = R->vp->vp_pe[v], to = R->new_pe[v];
    if (from == to) continue;
    R->migrating++;
    if (!models_transfer(R->models, R->vp->pe_host[from], R->vp->pe_host[to], R->step_bytes[v],
                         migration_done, R, v, R->err)) {
      fail(R);
      return;
    }
  }
  if (--R->migrating == 0) step_resume(R);
}

/* The last VP reached the step: measure, decide, then migrate. */
static void step_start(replay *R) {
  const replay_vp *vp = R->vp;
  R->nsteps++;
  for (int v = 0; v < R->np; v++) {
    R->step_loads[v] = R->ranks[v].st.compute - R->load_mark[v];
    R->load_mark[v] = R->ranks[v].st.compute;
    R->new_pe[v] = vp->vp_pe[v];
  }
  if (vp->step(vp->ctx, R->nsteps, sim_now(R->sim), R->step_loads, R->step_bytes, R->new_pe, R->err) < 0) {
    fail(R);
    return;
  }
  for (int v = 0; v < R->np; v++)
    if (R->new_pe[v] < 0 || R->new_pe[v] >= vp->npes) {
      psim_errf(R->err, 2, NULL, 0, "balancing step %d put VP %d on PE %d (PEs are 0..%d)",
                R->nsteps, v, R->new_pe[v], vp->npes - 1);
      fail(R);
      return;
    }
  sim_start_timer(R->sim, vp->lb_cost, step_strategy_done, R, 0);
}

/* A migrate was reached on only some VPs: the others ended their trace. */
static void step_mismatch(replay *R) {
  int waiting = -1, ended = -1;
  for (int v = 0; v < R->np; v++) {
    if (R->ranks[v].state == RK_STEP && waiting < 0) waiting = v;
    if (R->ranks[v].state == RK_DONE && ended < 0) ended = v;
  }
  const rank *w = &R->ranks[waiting];
  psim_errf(R->err, 2, w->act.file, w->act.line,
            "migrate on only some VPs: VP %d is at its migrate number %d (a balancing step) but "
            "VP %d ended its trace after %d migrates; every VP must reach every migrate",
            waiting, w->migrates, ended, R->ranks[ended].migrates);
  fail(R);
}

/* Executes (or resumes) operation op of rank k. Returns 1 if the rank blocked. */
static int exec_op(replay *R, rank *k, const rop *op) {
  const net_config *c = &R->o->net;
  mpi_req *q;
  switch ((rop_kind)op->kind) {
  case R_COMPUTE:
    if (k->sub == 0) {
      if (op->amount <= 0) return 0;
      models_exec(R->models, k->host, op->amount, activity_done, R, k->id);
      k->sub = 1;
      block(k);
      return 1;
    }
    return 0;
  case R_SLEEP:
    if (k->sub == 0) return sleep_then(R, k, op->amount, 1);
    return 0;
  case R_SEND:
  case R_ISEND:
  case R_ISEND_KEEP: {
    if (k->sub == 0) {
      /* SMPI charges os before a detached or synchronous-less send, ois before an isend */
      double ovh = 0;
      if (op->kind != R_SEND) ovh = models_overhead(R->models, k->host, OVH_ISEND, op->bytes);
      else if (op->bytes < c->detached_thresh) ovh = models_overhead(R->models, k->host, OVH_SEND, op->bytes);
      if (sleep_then(R, k, ovh, 1)) return 1;
    }
    if (k->sub == 1) {
      q = mpi_isend(R->world, k->id, op->peer, op->tag, op->ctx, op->bytes, 0, R->err);
      if (!q) { fail(R); return 1; }
      if (op->kind == R_ISEND) { push_preq(k, q); return 0; }
      if (op->kind == R_ISEND_KEEP) { push_keyed(k, k->id, op->peer, op->tag, q); return 0; }
      k->cur = q;
      k->sub = 2;
      if (wait_reqs(k, &k->cur, 1)) { block_comm(R, k); return 1; }
    }
    release_reqs(R, k, &k->cur, 1);
    return 0;
  }
  case R_RECV:
  case R_IRECV:
  case R_IRECV_KEEP:
    if (k->sub == 0) {
      q = mpi_irecv(R->world, k->id, op->peer, op->tag, op->ctx, op->bytes, R->err);
      if (!q) { fail(R); return 1; }
      if (op->kind == R_IRECV) { push_preq(k, q); return 0; }
      if (op->kind == R_IRECV_KEEP) { push_keyed(k, op->peer, k->id, op->tag, q); return 0; }
      k->cur = q;
      k->sub = 1;
      if (wait_reqs(k, &k->cur, 1)) { block_comm(R, k); return 1; }
    }
    release_reqs(R, k, &k->cur, 1);
    return 0;
  case R_WAITALL:
    if (k->sub == 0) {
      k->sub = 1;
      if (wait_reqs(k, k->preqs + k->pwaited, k->npreqs - k->pwaited)) { block_comm(R, k); return 1; }
    }
    release_reqs(R, k, k->preqs + k->pwaited, k->npreqs - k->pwaited);
    k->pwaited = k->npreqs;
    return 0;
  case R_WAIT: {
    /* wait for the request started by program op number `peer` */
    int idx = -1, n = 0;
    for (int i = 0; i < op->peer && i < k->nops; i++)
      if (k->ops[i].kind == R_ISEND || k->ops[i].kind == R_IRECV) n++;
    idx = n;
    if (idx >= k->npreqs) return 0;
    if (k->sub == 0) {
      k->sub = 1;
      if (wait_reqs(k, &k->preqs[idx], 1)) { block_comm(R, k); return 1; }
    }
    release_reqs(R, k, &k->preqs[idx], 1);
    return 0;
  }
  case R_WAIT_KEY: {
    if (k->sub == 0) {
      int i = find_keyed(k, op->peer, op->peer2, op->tag);
      if (i < 0) {
        if (k->npend == 0) {
          psim_errf(R->err, 2, k->act.file, k->act.line,
                    "rank %d: wait %d %d %d is not preceded by any irecv or isend", k->id,
                    op->peer, op->peer2, op->tag);
          fail(R);
          return 1;
        }
        return 0; /* completed earlier by a test */
      }
      k->cur = k->pend[i].req;
      remove_keyed(k, i);
      k->sub = 1;
      if (wait_reqs(k, &k->cur, 1)) { block_comm(R, k); return 1; }
    }
    release_reqs(R, k, &k->cur, 1);
    return 0;
  }
  case R_TEST_KEY: {
    if (k->sub == 0) {
      double t = c->grow_injected ? R->test_count * c->test_sleep : c->test_sleep;
      if (sleep_then(R, k, t, 1)) return 1;
    }
    int i = find_keyed(k, op->peer, op->peer2, op->tag);
    if (i < 0) return 0;
    q = k->pend[i].req;
    if (!q || q->done) {
      if (q) { count_done(k, q); mpi_req_release(R->world, q); }
      k->pend[i].req = NULL;   /* a later wait on it returns at once */
      R->test_count = 1;
    } else {
      R->test_count += 1;
    }
    return 0;
  }
  case R_WAITALL_KEEP: {
    if (k->sub == 0) {
      k->sub = 1;
      int pending = 0;
      for (int i = 0; i < k->npend; i++) {
        mpi_req *p = k->pend[i].req;
        if (p && !p->done) { mpi_req_wait(p); pending++; }
      }
      if (pending) { k->nwaiting = pending; block_comm(R, k); return 1; }
    }
    for (int i = 0; i < k->npend; i++)
      if (k->pend[i].req) { count_done(k, k->pend[i].req); mpi_req_release(R->world, k->pend[i].req); }
    k->npend = 0;
    return 0;
  }
  case R_MIGRATE: {
    if (k->sub) return 0;   /* resumed after the step */
    const replay_vp *vp = R->vp;
    k->migrates++;
    if (vp->iteration)
      vp->iteration(vp->ctx, k->id, k->migrates, vp->vp_pe[k->id], k->st.compute - k->iter_mark,
                    sim_now(R->sim));
    k->iter_mark = k->st.compute;
    if (vp->period <= 0 || k->migrates % vp->period) return 0;
    k->sub = 1;
    R->step_bytes[k->id] = op->bytes >= 0 ? op->bytes : vp->vp_memory;
    block(k);
    k->state = RK_STEP;
    pe_release(R, k);
    if (++R->at_step == R->np) step_start(R);
    else if (R->at_step + R->ndone == R->np) step_mismatch(R);
    return 1;
  }
  }
  return 0;
}

/* ---- translating trace actions ---- */
static int is_reduction(tit_kind k) {
  return k == TIT_REDUCE || k == TIT_ALLREDUCE || k == TIT_SCAN || k == TIT_EXSCAN ||
         k == TIT_REDUCESCATTER;
}

static int coll_of(tit_kind k) {
  switch (k) {
  case TIT_BARRIER: return COLL_BARRIER;
  case TIT_BCAST: return COLL_BCAST;
  case TIT_REDUCE: return COLL_REDUCE;
  case TIT_ALLREDUCE: return COLL_ALLREDUCE;
  case TIT_ALLTOALL: return COLL_ALLTOALL;
  case TIT_ALLTOALLV: return COLL_ALLTOALLV;
  case TIT_GATHER: return COLL_GATHER;
  case TIT_ALLGATHER: return COLL_ALLGATHER;
  case TIT_GATHERV: return COLL_GATHERV;
  case TIT_ALLGATHERV: return COLL_ALLGATHERV;
  case TIT_SCATTER: return COLL_SCATTER;
  case TIT_SCATTERV: return COLL_SCATTERV;
  case TIT_REDUCESCATTER: return COLL_REDUCESCATTER;
  case TIT_SCAN: return COLL_SCAN;
  case TIT_EXSCAN: return COLL_EXSCAN;
  default: return -1;
  }
}

static int check_peer(replay *R, rank *k, int peer, const char *what) {
  if (peer >= 0 && peer < R->np) return 0;
  psim_errf(R->err, 2, k->act.file, k->act.line, "rank %d: %s %d is out of range (0..%d)", k->id,
            what, peer, R->np - 1);
  fail(R);
  return -1;
}

static int translate(replay *R, rank *k) {
  const tit_action *a = &k->act;
  rop *op;
  switch (a->kind) {
  case TIT_MIGRATE:
    if (R->vp) { op = add_op(k); op->kind = R_MIGRATE; op->bytes = a->bytes; }
    return 0;
  case TIT_INIT: case TIT_FINALIZE: case TIT_NOOP: case TIT_LOCATION:
    return 0;
  case TIT_COMPUTE:
    op = add_op(k); op->kind = R_COMPUTE; op->amount = a->amount;
    return 0;
  case TIT_SLEEP:
    op = add_op(k); op->kind = R_SLEEP; op->amount = a->amount;
    return 0;
  case TIT_SEND: case TIT_ISEND:
    if (check_peer(R, k, a->peer, "destination") < 0) return -1;
    op = add_op(k);
    op->kind = a->kind == TIT_SEND ? R_SEND : R_ISEND_KEEP;
    op->peer = a->peer; op->tag = a->tag; op->bytes = a->bytes; op->ctx = MPI_CTX_USER;
    return 0;
  case TIT_RECV: case TIT_IRECV:
    if (check_peer(R, k, a->peer, "source") < 0) return -1;
    op = add_op(k);
    op->kind = a->kind == TIT_RECV ? R_RECV : R_IRECV_KEEP;
    op->peer = a->peer; op->tag = a->tag; op->bytes = a->bytes; op->ctx = MPI_CTX_USER;
    return 0;
  case TIT_SENDRECV:
    if (check_peer(R, k, a->peer, "destination") < 0 || check_peer(R, k, a->peer2, "source") < 0) return -1;
    op = add_op(k); op->kind = R_ISEND; op->peer = a->peer; op->bytes = a->bytes;
    op = add_op(k); op->kind = R_IRECV; op->peer = a->peer2; op->bytes = a->bytes2;
    op = add_op(k); op->kind = R_WAITALL;
    return 0;
  case TIT_WAIT: case TIT_TEST:
    op = add_op(k);
    op->kind = a->kind == TIT_WAIT ? R_WAIT_KEY : R_TEST_KEY;
    op->peer = a->peer; op->peer2 = a->peer2; op->tag = a->tag;
    return 0;
  case TIT_WAITALL:
    op = add_op(k); op->kind = R_WAITALL_KEEP;
    return 0;
  default: break;
  }
  int ck = coll_of(a->kind);
  if (ck < 0) {
    psim_errf(R->err, 2, a->file, a->line, "rank %d: action %s is not supported by replay", k->id,
              tit_kind_name(a->kind));
    fail(R);
    return -1;
  }
  coll_call call = {(coll_kind)ck, k->id, R->np, a->root, a->bytes, a->bytes2, a->counts, a->counts2, a->dtsize};
  if (call.root < 0 || call.root >= R->np) {
    if (check_peer(R, k, call.root, "root") < 0) return -1;
  }
  coll_prog_reset(&R->prog);
  if (coll_build(&R->o->coll, &call, &R->prog, R->err) < 0) {
    R->err->line = a->line;
    snprintf(R->err->file, sizeof R->err->file, "%s", a->file ? a->file : "");
    fail(R);
    return -1;
  }
  for (int i = 0; i < R->prog.n; i++) {
    const coll_op *co = &R->prog.ops[i];
    op = add_op(k);
    op->ctx = MPI_CTX_COLL;
    op->peer = co->peer;
    op->tag = co->tag;
    op->bytes = co->bytes;
    op->amount = co->flops;
    switch ((coll_opkind)co->kind) {
    case CO_ISEND: op->kind = R_ISEND; break;
    case CO_IRECV: op->kind = R_IRECV; break;
    case CO_SEND: op->kind = R_SEND; break;
    case CO_RECV: op->kind = R_RECV; break;
    case CO_WAITALL: op->kind = R_WAITALL; break;
    case CO_WAIT: op->kind = R_WAIT; break;
    case CO_COMPUTE: op->kind = R_COMPUTE; break;
    }
  }
  if (is_reduction(a->kind) && a->amount > 0) {
    op = add_op(k); op->kind = R_COMPUTE; op->amount = a->amount;
  }
  return 0;
}

/* `now` is the simulated date: it does not move while a rank runs. */
static void finish_action(replay *R, rank *k, double now) {
  const double dur = now - k->act_start;
  double d = dur;
  k->st.actions++;
  R->actions++;
  tit_kind kind = k->act.kind;
  if (kind == TIT_COMPUTE || kind == TIT_SLEEP) k->st.compute += d;
  else if (d > 0) {
    /* Time in an MPI call is communication while its messages moved, waiting otherwise. */
    double lo = k->xfer_lo < k->act_start ? k->act_start : k->xfer_lo;
    double hi = k->xfer_hi > now ? now : k->xfer_hi;
    double comm = hi > lo ? hi - lo : 0;
    if (is_reduction(kind) && k->act.amount > 0) {
      double c = k->act.amount / plat_host_at(R->o->plat, k->host)->speed;
      if (c > d) c = d;
      k->st.compute += c;
      d -= c;
      if (comm > d) comm = d;
    }
    k->st.comm += comm;
    k->st.wait += d - comm;
  }
  if ((R->o->actions || R->o->nobservers) && kind != TIT_INIT && kind != TIT_FINALIZE) {
    const char *t = k->text_copied ? k->text : k->act.text;
    int n = k->text_copied ? k->text_len : k->act.text_len;
    if (R->o->actions) fprintf(R->o->actions, "%.6f %d %.*s %.6f\n", now, k->id, n, t, dur);
    for (int i = 0; i < R->o->nobservers; i++)
      if (R->o->observers[i].action)
        R->o->observers[i].action(R->o->observers[i].ctx, k->id, &k->act, t, n, k->act_start, now);
  }
  k->has_action = 0;
  k->text_copied = 0;
}

/* Loads rank k's next action into its program. Returns 0 at the end of its trace. */
static int load_next(replay *R, rank *k, double now) {
  reset_ops(k);
  int r = tit_next(R->src, k->id, &k->act, R->err);
  if (r < 0) { fail(R); return 0; }
  if (r == 0) return 0;
  k->has_action = 1;
  k->last_file = k->act.file;
  k->last_line = k->act.line;
  k->act_start = now;
  k->xfer_lo = INFINITY;
  k->xfer_hi = -INFINITY;
  if (translate(R, k) < 0) return 0;
  return 1;
}

static void progress(replay *R) {
  if (!R->o->progress || (R->actions & 0xFFFF)) return;
  fprintf(stderr, "\r[psim] simulated %.6f s, %llu actions", sim_now(R->sim),
          (unsigned long long)R->actions);
}

static int is_post(int kind) {
  return kind == R_SEND || kind == R_ISEND || kind == R_ISEND_KEEP || kind == R_RECV || kind == R_IRECV ||
         kind == R_IRECV_KEEP;
}

static void rank_run(void *ctx, int id) {
  replay *R = ctx;
  rank *k = &R->ranks[id];
  if (R->failed || k->state == RK_DONE) return;
  k->state = RK_READY;
  const double now = sim_now(R->sim);
  for (;;) {
    if (k->pc < k->nops) {
      const rop *op = &k->ops[k->pc];
      if (exec_op(R, k, op)) return;
      k->pc++;
      k->sub = 0;
      /* Posting a send or a receive is a simcall in SimGrid: every ready rank makes one before
       * any makes its next. Which messages start first decides ties later on. */
      if (!R->vp && is_post(op->kind)) {
        sim_make_ready(R->sim, id);
        return;
      }
      continue;
    }
    if (k->has_action) { finish_action(R, k, now); progress(R); }
    if (k->at_end) break;
    if (!load_next(R, k, now)) {
      if (R->failed) return;
      /* end of trace: wait for the requests still pending, as SimGrid does */
      reset_ops(k);
      k->at_end = 1;
      if (k->npend) {
        rop *op = add_op(k);
        op->kind = R_WAITALL_KEEP;
      }
    }
  }
  k->state = RK_DONE;
  k->st.finish = now;
  if (R->vp) {
    pe_release(R, k);
    R->ndone++;
    if (R->at_step && R->at_step + R->ndone == R->np) step_mismatch(R);
  }
}

static void observe_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  replay *R = ctx;
  for (int i = 0; i < R->o->nobservers; i++)
    if (R->o->observers[i].message) R->o->observers[i].message(R->o->observers[i].ctx, send, recv);
}

static void deadlock_report(replay *R, replay_result *res) {
  size_t cap = 4096, len = 0;
  char *buf = xmalloc(cap);
  buf[0] = 0;
  int nblocked = 0;
  for (int i = 0; i < R->np; i++) {
    rank *k = &R->ranks[i];
    if (k->state == RK_DONE) continue;
    nblocked++;
    char line[2048], what[1024] = "";
    size_t wl = 0;
    /* what the blocked operation waits for */
    mpi_req *list[64];
    int n = 0;
    if (k->cur && !k->cur->done) list[n++] = k->cur;
    for (int j = k->pwaited; j < k->npreqs && n < 64; j++) if (k->preqs[j] && !k->preqs[j]->done) list[n++] = k->preqs[j];
    for (int j = 0; j < k->npend && n < 64; j++) if (k->pend[j].req && !k->pend[j].req->done && k->pend[j].req->waited) list[n++] = k->pend[j].req;
    for (int j = 0; j < n && wl + 100 < sizeof what; j++) {
      const mpi_req *q = list[j];
      if (q->is_send)
        wl += (size_t)(q->ctx == MPI_CTX_COLL
                           ? snprintf(what + wl, sizeof what - wl, "%ssend to rank %d (inside the collective) not received",
                                      wl ? "; " : "", q->dst)
                           : snprintf(what + wl, sizeof what - wl, "%ssend to rank %d (tag %d) not received",
                                      wl ? "; " : "", q->dst, q->tag));
      else
        wl += (size_t)(q->ctx == MPI_CTX_COLL
                           ? snprintf(what + wl, sizeof what - wl, "%sreceive from rank %d (inside the collective) never sent",
                                      wl ? "; " : "", q->src)
                           : snprintf(what + wl, sizeof what - wl, "%sreceive from rank %d (tag %d) never sent",
                                      wl ? "; " : "", q->src, q->tag));
    }
    const char *t = k->text_copied ? k->text : (k->has_action ? k->act.text : "");
    int tl = k->text_copied ? k->text_len : (k->has_action ? k->act.text_len : 0);
    if (!k->has_action)
      snprintf(line, sizeof line, "  rank %d (host %s): at the end of its trace (after %s:%ld), waiting for its pending requests: %s\n",
               i, plat_host_at(R->o->plat, k->host)->name, k->last_file ? k->last_file : "?", k->last_line,
               what[0] ? what : "?");
    else
      snprintf(line, sizeof line, "  rank %d (host %s): blocked in '%d %.*s' at %s:%ld: %s\n", i,
               plat_host_at(R->o->plat, k->host)->name, i, tl, t, k->act.file ? k->act.file : "?",
               k->act.line, what[0] ? what : "waiting");
    size_t ll = strlen(line);
    if (len + ll + 1 > cap) { cap = 2 * (len + ll + 1); buf = xrealloc(buf, cap); }
    memcpy(buf + len, line, ll + 1);
    len += ll;
  }
  char head[256];
  snprintf(head, sizeof head, "deadlock at simulated time %.6f: %d of %d ranks cannot finish\n",
           sim_now(R->sim), nblocked, R->np);
  size_t hl = strlen(head);
  char *full = xmalloc(hl + len + 1);
  memcpy(full, head, hl);
  memcpy(full + hl, buf, len + 1);
  free(buf);
  res->deadlock = full;
}

/* VP mode, after the run: VPs still waiting at a step, or VPs that reached different numbers
 * of migrates, mean the trace has migrate points on only some VPs. */
static void vp_final_checks(replay *R) {
  if (R->at_step) {
    int waiting = -1, other = -1;
    for (int v = 0; v < R->np; v++) {
      if (R->ranks[v].state == RK_STEP) { if (waiting < 0) waiting = v; }
      else if (other < 0) other = v;
    }
    const rank *w = &R->ranks[waiting];
    psim_errf(R->err, 2, w->act.file, w->act.line,
              "migrate on only some VPs: %d VPs wait at balancing step %d (VP %d at its migrate "
              "number %d) but VP %d never reaches it (it has %d migrates so far)",
              R->at_step, R->nsteps + 1, waiting, w->migrates, other, R->ranks[other].migrates);
    fail(R);
    return;
  }
  for (int v = 1; v < R->np; v++)
    if (R->ranks[v].state == RK_DONE && R->ranks[0].state == RK_DONE &&
        R->ranks[v].migrates != R->ranks[0].migrates) {
      psim_errf(R->err, 2, NULL, 0,
                "migrate on only some VPs: VP 0 reached %d migrates but VP %d reached %d; every "
                "VP must reach every migrate", R->ranks[0].migrates, v, R->ranks[v].migrates);
      fail(R);
      return;
    }
}

int replay_run(tit_source *src, const replay_opts *o, replay_result *res, psim_err *err) {
  memset(res, 0, sizeof *res);
  replay R = {0};
  R.o = o;
  R.src = src;
  R.np = o->np;
  R.err = err;
  R.test_count = 1;
  int nh = plat_nhosts(o->plat);
  R.rank_host = xmalloc((size_t)R.np * sizeof *R.rank_host);
  for (int i = 0; i < R.np; i++)
    R.rank_host[i] = o->hostfile ? o->hostfile[i % o->nhostfile] : i % nh;
  if (o->vp) {
    const replay_vp *vp = R.vp = o->vp;
    for (int i = 0; i < R.np; i++) R.rank_host[i] = vp->pe_host[vp->vp_pe[i]];
    R.pe_running = xmalloc((size_t)vp->npes * sizeof *R.pe_running);
    R.pe_qhead = xmalloc((size_t)vp->npes * sizeof *R.pe_qhead);
    R.pe_qtail = xmalloc((size_t)vp->npes * sizeof *R.pe_qtail);
    for (int p = 0; p < vp->npes; p++) R.pe_running[p] = R.pe_qhead[p] = R.pe_qtail[p] = -1;
    R.step_loads = xcalloc((size_t)R.np, sizeof *R.step_loads);
    R.step_bytes = xcalloc((size_t)R.np, sizeof *R.step_bytes);
    R.load_mark = xcalloc((size_t)R.np, sizeof *R.load_mark);
    R.new_pe = xcalloc((size_t)R.np, sizeof *R.new_pe);
  }
  R.sim = sim_new();
  R.models = models_new(R.sim, o->plat, &o->net, err);
  if (!R.models) { sim_free(R.sim); free(R.rank_host); return -1; }
  R.world = mpi_world_new(R.sim, R.models, R.np, R.rank_host, req_done, &R);
  R.ranks = xcalloc((size_t)R.np, sizeof *R.ranks);
  for (int i = 0; i < R.np; i++) {
    rank *k = &R.ranks[i];
    k->id = i;
    k->host = R.rank_host[i];
    k->ops = k->inline_ops;
    k->capops = 2;
    k->st.host = k->host;
    if (R.vp) { k->state = RK_BLOCKED; pe_acquire(&R, k); }   /* one VP per PE runs */
    else sim_make_ready(R.sim, i);
  }
  if (o->nobservers) mpi_world_observe(R.world, observe_message, &R);
  res->events = sim_run(R.sim, rank_run, &R);
  for (int i = 0; i < o->nobservers; i++)
    if (o->observers[i].end) o->observers[i].end(o->observers[i].ctx, sim_now(R.sim));
  if (o->progress) fprintf(stderr, "\r\033[K");
  int rc = 0;
  if (!R.failed && R.vp) vp_final_checks(&R);
  if (R.failed) {
    rc = -1;
  } else {
    for (int i = 0; i < R.np; i++)
      if (R.ranks[i].state != RK_DONE) { rc = -1; break; }
    if (rc < 0) {
      deadlock_report(&R, res);
      psim_errf(err, PSIM_EXIT_DEADLOCK, NULL, 0, "%s", res->deadlock);
    }
  }
  res->np = R.np;
  res->ranks = xcalloc((size_t)R.np, sizeof *res->ranks);
  for (int i = 0; i < R.np; i++) {
    res->ranks[i] = R.ranks[i].st;
    if (R.ranks[i].st.finish > res->simulated_time) res->simulated_time = R.ranks[i].st.finish;
  }
  res->actions = R.actions;
  mpi_stats ms = mpi_world_stats(R.world);
  res->messages = ms.messages;
  res->bytes = ms.bytes;
  for (int i = 0; i < R.np; i++) {
    rank *k = &R.ranks[i];
    if (k->ops != k->inline_ops) free(k->ops);
    free(k->preqs);
    free(k->pend);
    free(k->text);
  }
  free(R.ranks);
  coll_prog_free(&R.prog);
  mpi_world_free(R.world);
  models_free(R.models);
  sim_free(R.sim);
  free(R.rank_host);
  free(R.pe_running);
  free(R.pe_qhead);
  free(R.pe_qtail);
  free(R.step_loads);
  free(R.step_bytes);
  free(R.load_mark);
  free(R.new_pe);
  return rc;
}

void replay_result_free(replay_result *r) {
  free(r->ranks);
  free(r->deadlock);
  memset(r, 0, sizeof *r);
}
