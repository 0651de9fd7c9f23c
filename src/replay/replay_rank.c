/* Rank stepping for the replay driver (see replay_internal.h): each rank is a cursor over its
 * trace and a small state machine.
 *
 * Every trace action is translated into a short list of operations ("rops") that one small
 * interpreter executes: a send is [SEND], an isend [ISEND_KEEP], a collective is the program
 * its algorithm compiles to (include/psim/coll.h) followed by the reduction's computation.
 * An operation either finishes at once or blocks its rank; the rank is made ready again by the
 * completion that unblocks it, and resumes the same operation at the step it stopped at
 * (rank.step, op_step in replay_internal.h). exec_op dispatches to one function per kind (op_*).
 *
 * Time accounting (replay_rank_account): a rank's time from 0 to its finish is cut at every
 * date it blocks into intervals of one phase (PH_*): computing, inside MPI, waiting for its PE,
 * at a balancing step. Inside MPI it is *communicating* while it is busy with its own messages
 * (mpi_rank_busy_time: one of its transfers in flight, latency phase included, or an
 * os/ois/or overhead) and *waiting* otherwise. Sums of consecutive intervals, so the four (or
 * five) times add up to the finish date. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_internal.h"

/* ---- rank helpers ---- */
/* An action's program has room for its ops (reserve_ops, or the inline op for one). */
static rop *add_op(rank *k) {
  rop *op = &k->ops[k->nops++];
  memset(op, 0, sizeof *op);
  return op;
}

/* Room for the n ops of a program just begun (after reset_ops): a collective's is allocated
 * at its length (ranks hold it while they wait inside it; doubling left a quarter to a half
 * of it unused), one op is the inline one. */
static void reserve_ops(rank *k, int n) {
  if (n > (int)(sizeof k->inline_ops / sizeof *k->inline_ops)) k->ops = xmalloc((size_t)n * sizeof *k->ops);
}

/* The rank enters a collective's program (npreqs: room for the requests it starts) or a
 * trace's waitall (nheap: its requests): its rank_wait, which it holds until it leaves. */
static rank_wait *wait_enter(rank *k, int npreqs, int nheap) {
  rank_wait *w = xmalloc(sizeof *w + (size_t)npreqs * sizeof *w->preqs + (size_t)nheap * sizeof(int));
  w->npreqs = w->pwaited = 0;
  w->cappreqs = npreqs;
  w->wpend = w->nwdone = 0;
  w->hcap = nheap;
  k->w = w;
  return w;
}

/* Every request of the block's waitall left its group (mpi_req_leave): nothing points at it. */
static void wait_leave(rank *k) {
  free(k->w);
  k->w = NULL;
}

static void reset_ops(rank *k) {
  if (k->ops != k->inline_ops) free(k->ops);
  k->ops = k->inline_ops;
  k->nops = k->pc = 0;
  k->step = STEP_START;
  if (k->w) wait_leave(k);
}

static void keep_text(rank *k) {
  if (k->text_copied || !k->has_action) return;
  if (k->act_text_len + 1 > k->text_cap) {
    /* most ranks keep one short line: room for it alone (a 32-byte block), doubling after */
    int want = 2 * k->text_cap;
    k->text_cap = k->act_text_len + 1 > want ? k->act_text_len + 1 : want;
    k->text = xrealloc(k->text, (size_t)k->text_cap);
  }
  memcpy(k->text, k->act_text, (size_t)k->act_text_len);
  k->text[k->act_text_len] = 0;
  k->text_copied = 1;
}

void replay_rank_fail(replay *R) {
  R->failed = 1;
  /* spread over processes, the others stop with it at the end of the window (replay_par.c) */
  if (!R->par || isinf(R->lookahead)) sim_stop(R->sim);
}

static void notify_phase(replay *R, int id, int what, double start, double end) {
  for (int i = 0; i < R->o->nobservers; i++)
    if (R->o->observers[i].phase) R->o->observers[i].phase(R->o->observers[i].ctx, id, what, start, end);
}

static int is_compute_action(const rank *k) {
  return k->act_kind == TIT_COMPUTE || k->act_kind == TIT_SLEEP;
}

void replay_rank_account(replay *R, rank *k, int phase) {
  const double now = sim_now(R->sim);
  const double d = now - k->acct_mark;
  if (R->o->nobservers && d > 0) {
    if (k->phase == PH_COMPUTE && k->inner) notify_phase(R, k->id, REPLAY_PHASE_COMPUTE, k->acct_mark, now);
    else if (k->phase == PH_PE) notify_phase(R, k->id, REPLAY_PHASE_PE, k->acct_mark, now);
  }
  double busy = 0;
  switch (k->phase) {
  case PH_MPI: {
    if (R->par) {   /* settled at the end: a change may still come for a date passed */
      mpi_busy_read(R->world, k->id, d, 1, phase == PH_MPI);
      break;
    }
    busy = mpi_rank_busy_time(R->world, k->id);
    double c = busy - k->busy_mark;
    if (c > d) c = d;
    if (c < 0) c = 0;
    k->st.comm += c;
    k->st.wait += d - c;
    break;
  }
  case PH_COMPUTE: k->st.compute += d; break;
  case PH_PE: replay_cold(R, k)->pe_wait += d; break;   /* VP mode only, as PH_LB */
  case PH_MOVE: replay_cold(R, k)->move += d; break;    /* --host-events only */
  default: replay_cold(R, k)->lb += d; break;
  }
  if (R->par) { if (phase == PH_MPI && k->phase != PH_MPI) mpi_busy_read(R->world, k->id, 0, 0, 1); }
  else if (phase == PH_MPI) k->busy_mark = k->phase == PH_MPI ? busy : mpi_rank_busy_time(R->world, k->id);
  k->acct_mark = now;
  k->phase = (uint8_t)phase;
  k->inner = phase == PH_COMPUTE && k->has_action && !is_compute_action(k);
}

/* Every block ends an accounting interval: what the rank did up to now is settled, and a
 * rank that never runs again (deadlock) has its times up to the date it blocked for good. */
void replay_rank_block(replay *R, rank *k, int phase) {
  k->state = RK_BLOCKED;
  keep_text(k);
  replay_rank_account(R, k, phase);
}

/* Blocked waiting for messages: a VP gives its PE to the next ready one. */
static void block_comm(replay *R, rank *k) {
  replay_rank_block(R, k, PH_MPI);
  if (R->vp) { replay_cold(R, k)->wait_comm = 1; replay_vp_release(R, k); }
}

/* Blocked in a single wait (MPI_Wait, a blocking send or receive, a scan's waits): SimGrid
 * touches the host's CPU as it does so (models_wait_blocked). Waitall and waitany do not. */
static void block_wait_one(replay *R, rank *k) {
  models_wait_blocked(R->models, replay_host(R, k));
  block_comm(R, k);
}

static void wake(replay *R, rank *k) {
  if (k->state != RK_BLOCKED) return;
  if (R->vp && replay_cold(R, k)->wait_comm) { replay_cold(R, k)->wait_comm = 0; replay_vp_acquire(R, k); return; }
  k->state = RK_READY;
  sim_make_ready(R->sim, k->id);
}

void replay_rank_wake(replay *R, rank *k) { wake(R, k); }

static void activity_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  wake(R, replay_rank_at(R, a->tag));
}

/* A computation ended: its useful work is credited (dynamic efficiency) before a is freed. */
static void compute_done(sim *s, activity *a) {
  replay *R = a->data;
  dyn_compute_end(R->dyn, a->tag);
  activity_done(s, a);
}

/* The rank's wait (or test) returns q. SMPI's finish_wait then sleeps smpi/or when q received
 * a detached message: the rank pays it before going on (replay_rank_run), one message after
 * the other (psim run does the same: emu_req_take). */
static void take(rank *k, mpi_req *q) {
  q->taken = 1;
  k->or_due += mpi_req_or_due(q);
  mpi_req_or_paid(q);
}

/* The waitall's complete requests not taken yet, by index (a binary min-heap): a round takes
 * the first in the waitall's order. */
static void wdone_push(rank_wait *w, int i) {
  /* a request is filed once, and a waitall has at most hcap of them */
  int *h = rank_wait_heap(w), c = w->nwdone++;
  while (c > 0) {
    int p = (c - 1) / 2;
    if (h[p] <= i) break;
    h[c] = h[p];
    c = p;
  }
  h[c] = i;
}

static int wdone_pop(rank_wait *w) {
  int *h = rank_wait_heap(w), top = h[0], last = h[--w->nwdone], n = w->nwdone, c = 0;
  for (;;) {
    int l = 2 * c + 1;
    if (l >= n) break;
    if (l + 1 < n && h[l + 1] < h[l]) l++;
    if (h[l] >= last) break;
    h[c] = h[l];
    c = l;
  }
  if (n) h[c] = last;
  return top;
}

void replay_rank_req_done(void *ctx, mpi_req *q) {
  replay *R = ctx;
  if (R->o->nobservers && !q->is_send && q->xfer_end >= 0) {
    /* a receive completes at its message's arrival (or its posting, if the message was there
     * first), plus smpi/or for a detached message */
    double s = q->xfer_end > q->posted ? q->xfer_end : q->posted, now = sim_now(R->sim);
    if (now > s) notify_phase(R, mpi_req_owner(q), REPLAY_PHASE_OVERHEAD, s, now);
  }
  if (!q->waited) return;
  rank *k = replay_rank_at(R, mpi_req_owner(q));
  /* one of the requests of the rank's waitall (waitall_round) */
  const int member = k->w && q->grouped;   /* a request of its waitall (none of an older one) */
  if (member) k->w->wpend--;
  /* A rank already woken (a waitany answered by another request) is no longer waiting on q:
   * its next wait counts afresh (a waitall's next round takes it). */
  if (k->state != RK_BLOCKED) {
    if (member) wdone_push(k->w, (int)(q->wseq - 1));
    return;
  }
  take(k, q);   /* the answer to the rank's wait */
  if (--k->nwaiting == 0) wake(R, k);
}

static void count_done(rank *k, const mpi_req *q) {
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

/* A wait found its request complete: SMPI returns a detached send's at once (it has no
 * communication to wait on), anything else through a simcall answered at once, which costs
 * the rank its turn (replay_rank_run gives it up). */
static void took_done(rank *k, mpi_req *q) {
  take(k, q);
  if (!(q->is_send && q->detached)) k->yields++;
}

/* Waits for one request (a blocking send or receive, wait): returns 1 when the rank must block. */
static int wait_one(rank *k, mpi_req *q) {
  if (!q || q->taken) return 0;
  if (q->done) { took_done(k, q); return 0; }
  return wait_reqs(k, &q, 1);
}

/* SMPI's waitall (Request::waitall) is a loop of waitany until every request is taken. Each
 * waitany first returns a completed detached send, without a simcall; otherwise it registers
 * the rank on every request not yet taken, in order and behind the ranks already waiting on
 * them, and is answered by the first that is complete: at once (the rank then gives up its
 * turn) or when one completes (it wakes the rank). The order in which a message's two ends are
 * answered (transfer_done) and so the order in which ranks run follow from it. Returns 1 when
 * the rank must stop: blocked, or yielding between two rounds. */
static int waitall_round(replay *R, rank *k, mpi_req **reqs, int n) {
  /* A round costs O(log n), not a pass over the requests (a linear collective's root has one
   * per other rank and one round per request: O(ranks^2) per collective). The first round
   * sorts them once: the requests still pending join the rank's wait group, the complete ones
   * go to wdone; from then on replay_rank_req_done counts the pending ones that complete
   * (wpend) and files those that complete while the rank is not blocked in wdone. */
  rank_wait *w = k->w;   /* the collective's, or the trace waitall's (op_waitall_keep) */
  if (k->step == STEP_START) {
    k->step = STEP_ROUND;
    w->nwdone = w->wpend = 0;
    for (int i = 0; i < n; i++) {
      mpi_req *q = reqs[i];
      if (!q || (uintptr_t)q & PEND_MARK || q->taken) continue;   /* a mark: a test took it */
      if (!q->done) { mpi_req_join(q, i); w->wpend++; }
      else if (q->is_send && q->detached) q->taken = 1;
      else wdone_push(w, i);
    }
  }
  for (;;) {
    /* Every round registers the rank anew on the pending requests, in order, even when a
     * complete one then answers at once (the rank does not block, and a rank that is not
     * blocked is not woken: replay_rank_req_done). */
    if (w->wpend) mpi_wgroup_rewait(R->world, k->id, n);
    int first_done = -1;
    while (w->nwdone && first_done < 0) {
      int i = wdone_pop(w);
      mpi_req *q = reqs[i];
      if (q->is_send && q->detached) q->taken = 1;
      else first_done = i;
    }
    if (first_done >= 0) {
      take(k, reqs[first_done]);
      if (R->vp) continue;   /* VPs take turns on their PE, not as SMPI's actors */
      sim_make_ready(R->sim, k->id);
      return 1;
    }
    if (!w->wpend) return 0;
    k->nwaiting = 1;
    return 1;
  }
}

static void release_reqs(replay *R, rank *k, mpi_req **reqs, int n) {
  for (int i = 0; i < n; i++) {
    if (!reqs[i]) continue;
    mpi_req_leave(reqs[i]);   /* the rank's group will be the next waitall's */
    count_done(k, reqs[i]);
    mpi_req_release(R->world, reqs[i]);
    reqs[i] = NULL;
  }
}

/* translate gave the block room for every request of the program: it grows only if that
 * count missed one (no request is then in a wait group, which points into the block). */
static void push_preq(rank *k, mpi_req *q) {
  rank_wait *w = k->w;
  if (w->npreqs == w->cappreqs) {
    int cap = w->cappreqs ? 2 * w->cappreqs : 8;
    w = xrealloc(w, sizeof *w + (size_t)cap * (sizeof *w->preqs + sizeof(int)));
    w->cappreqs = w->hcap = cap;   /* the heap moved: it is empty between two waitalls */
    k->w = w;
  }
  w->preqs[w->npreqs++] = q;
}

/* A key's two ranks in one int (issue 38: 8 bytes a key, not 12). Every key a rank files has
 * itself at one end and a rank of 0..np-1 at the other: a trace's isend or irecv (its peer
 * checked), or a test's key found among them. -1 for a pair no such key has. */
static int pair_code(const replay *R, const rank *k, int src, int dst) {
  if (src == k->id && dst >= 0 && dst < R->np) return 2 * dst;
  if (dst == k->id && src >= 0 && src < R->np) return 2 * src + 1;
  return -1;
}

/* A key as a word: its pair (below 2^25: np is at most 2^24) and its tag. */
static uintptr_t key_word(int pair, int tag) { return (uintptr_t)(uint32_t)pair << 32 | (uint32_t)tag; }

/* Entry i's key: its request's (mpi_req.user), or the key a mark holds. */
static uintptr_t pend_key(const rank *k, int i) {
  uintptr_t e = (uintptr_t)k->pend[i];
  return e & PEND_MARK ? e >> 1 : (uintptr_t)k->pend[i]->user;
}

/* Files q (NULL: a request a test completed) under its key. The request keeps its key in its
 * user word (the replay does not use it otherwise: its receive's src and tag are the
 * message's once matched, not the key's, when it was posted with MPI_L_ANY). */
static void push_keyed(const replay *R, rank *k, int src, int dst, int tag, mpi_req *q) {
  /* room for 4, then for twice as many whenever the count reaches a power of two: the room
   * is then always above the count (it never shrinks below the next power of two) */
  int n = k->npend;
  if (!k->pend || (n >= 4 && !(n & (n - 1)))) k->pend = xrealloc(k->pend, (size_t)(n ? 2 * n : 4) * sizeof *k->pend);
  uintptr_t key = key_word(pair_code(R, k, src, dst), tag);
  if (q) q->user = (void *)key;
  else q = (mpi_req *)(key << 1 | PEND_MARK);
  k->pend[k->npend++] = q;
}

static int find_keyed(const replay *R, const rank *k, int src, int dst, int tag) {
  int pair = pair_code(R, k, src, dst);
  if (pair < 0) return -1;
  uintptr_t key = key_word(pair, tag);
  for (int i = 0; i < k->npend; i++)
    if (pend_key(k, i) == key) return i;
  return -1;
}

static void remove_keyed(rank *k, int i) {
  memmove(&k->pend[i], &k->pend[i + 1], (size_t)(k->npend - i - 1) * sizeof *k->pend);
  k->npend--;
}

static int sleep_then(replay *R, rank *k, double t, int next, int phase) {
  if (t <= 0) { k->step = (uint8_t)next; return 0; }
  models_sleep(R->models, replay_host(R, k), t, activity_done, R, k->id);
  k->step = (uint8_t)next;
  replay_rank_block(R, k, phase);
  return 1;
}

/* smpi/os, smpi/ois, smpi/or: the rank is busy with its message while it pays them; the
 * overhead ends when the rank runs again (end_overhead). */
static int overhead_then(replay *R, rank *k, double t, int next) {
  if (t <= 0) { k->step = (uint8_t)next; return 0; }
  mpi_rank_busy(R->world, k->id, +1);
  k->in_ovh = 1;
  if (R->dates) R->dates[k->id].ovh_start = sim_now(R->sim);
  return sleep_then(R, k, t, next, PH_MPI);
}

static void end_overhead(replay *R, rank *k) {
  mpi_rank_busy(R->world, k->id, -1);
  k->in_ovh = 0;
  if (R->o->nobservers) notify_phase(R, k->id, REPLAY_PHASE_OVERHEAD, R->dates[k->id].ovh_start, sim_now(R->sim));
}

/* The simcalls of a post (turns of the rank: see replay_rank_run). One, SMPI's isend or irecv;
 * under smpi/async-small-thresh, SMPI's Request::start also takes the receiver's mailbox mutex
 * and probes its mailboxes: lock, the probes, the post, unlock (the post is the last but one:
 * replay_mtx_wait_post). A receive smaller than the
 * threshold probes the small mailbox, then, when no matching small message waits there, the
 * large one; a larger receive probes the small one only. A send smaller than the threshold
 * probes the large mailbox; a larger one goes to it without a probe. `waiting`: a matching
 * small message was there before the receive. */
static int post_turns(const net_config *c, int is_send, double bytes, int waiting) {
  if (c->async_small_thresh <= 0) return 1;
  int small = bytes < c->async_small_thresh;
  if (is_send) return small ? 4 : 3;
  return small && !waiting ? 5 : 4;
}

static int starts_req(const rop *op) { return op->kind == R_ISEND || op->kind == R_IRECV; }

/* ---- the operations: each returns 1 when its rank stopped (blocked, or gave up its turn)
 * and resumes at k->step (op_step), 0 when it is done ---- */

/* A blocking operation waits for *slot (entering STEP_WAIT), then counts and releases it. */
static int wait_slot(replay *R, rank *k, mpi_req **slot) {
  if (k->step != STEP_WAIT) {
    k->step = STEP_WAIT;
    if (wait_one(k, *slot)) { block_wait_one(R, k); return 1; }
  }
  release_reqs(R, k, slot, 1);
  return 0;
}

/* The post's own turn made request q (NULL: an error); the turns left are the unlock's. A
 * non-blocking post files q (src, dst: its key for a trace's wait or test); a blocking
 * send or receive waits for it. */
static int posted(replay *R, rank *k, const rop *op, mpi_req *q, int src, int dst) {
  k->posted = R->o->net.async_small_thresh > 0 ? 2 : 1;
  replay_mtx_hold(R, k, k->posted);
  if (!q) { replay_rank_fail(R); return 1; }
  if (op->kind == R_ISEND || op->kind == R_IRECV) { push_preq(k, q); return 0; }
  if (op->kind == R_ISEND_KEEP || op->kind == R_IRECV_KEEP) { push_keyed(R, k, src, dst, op->tag, q); return 0; }
  k->cur = q;
  return wait_slot(R, k, &k->cur);
}

static int op_compute(replay *R, rank *k, const rop *op) {
  if (k->step != STEP_START || op->amount <= 0) return 0;   /* STEP_BUSY: it ended */
  dyn_compute_start(R->dyn, k->id,
                    models_exec(R->models, replay_host(R, k), op->amount, compute_done, R, k->id),
                    op->amount / plat_host_at(R->o->plat, replay_host(R, k))->speed);
  k->step = STEP_BUSY;
  replay_rank_block(R, k, PH_COMPUTE);
  return 1;
}

static int op_sleep(replay *R, rank *k, const rop *op) {
  if (k->step != STEP_START) return 0;   /* STEP_BUSY: it ended */
  return sleep_then(R, k, op->amount, STEP_BUSY, PH_COMPUTE);
}

/* R_SEND, R_ISEND, R_ISEND_KEEP: overhead, mailbox mutex, post, and a blocking send's wait. */
static int op_send(replay *R, rank *k, const rop *op) {
  const net_config *c = &R->o->net;
  if (k->step == STEP_START) {
    /* SMPI charges os before a detached or synchronous-less send, ois before an isend */
    double ovh = 0;
    if (op->kind != R_SEND) ovh = models_overhead(R->models, replay_host(R, k), OVH_ISEND, op->bytes);
    else if (op->bytes < c->detached_thresh) ovh = models_overhead(R->models, replay_host(R, k), OVH_SEND, op->bytes);
    ovh += models_send_delay(R->models, replay_host(R, k), op->bytes);   /* a machine file's, on every send */
    if (overhead_then(R, k, ovh, STEP_LOCK)) return 1;
  }
  if (k->step == STEP_LOCK) {
    int taken = replay_mtx_take(R, k, op->peer);
    if (!taken) return 1;
    k->step = STEP_POST;
    if (replay_mtx_wait_post(R, k, taken, post_turns(c, 1, op->bytes, 0) - 1)) return 1;
  }
  if (k->step == STEP_POST)
    return posted(R, k, op, mpi_isend(R->world, k->id, op->peer, op->tag, op->ctx, op->bytes, 0, R->err),
                  k->id, op->peer);
  return wait_slot(R, k, &k->cur);
}

/* R_RECV, R_IRECV, R_IRECV_KEEP: no overhead before it, so it starts with the mutex (its own
 * mailboxes'). */
static int op_recv(replay *R, rank *k, const rop *op) {
  const net_config *c = &R->o->net;
  if (k->step == STEP_START) {
    int taken = replay_mtx_take(R, k, k->id);
    if (!taken) return 1;
    k->step = STEP_POST;
    int waiting = 0;
    if (c->async_small_thresh > 0) {
      const mpi_req *w = mpi_iprobe(R->world, k->id, op->peer, op->tag, op->ctx);
      waiting = w && w->bytes < c->async_small_thresh;
    }
    if (replay_mtx_wait_post(R, k, taken, post_turns(c, 0, op->bytes, waiting) - 1)) return 1;
  }
  if (k->step == STEP_POST)
    return posted(R, k, op, mpi_irecv(R->world, k->id, op->peer, op->tag, op->ctx, op->bytes, R->err),
                  op->peer, k->id);
  return wait_slot(R, k, &k->cur);
}

/* A round of waitall over reqs[0..n): 1 when the rank stopped (blocked when a request is
 * pending, else giving up its turn between two rounds). */
static int waitall_stops(replay *R, rank *k, mpi_req **reqs, int n) {
  if (!waitall_round(R, k, reqs, n)) return 0;
  if (k->nwaiting) block_comm(R, k);
  return 1;
}

/* A collective program's waitall: every request it started since the last one. */
static int op_waitall(replay *R, rank *k, const rop *op) {
  (void)op;
  rank_wait *w = k->w;
  if (!w || w->npreqs == w->pwaited) return 0;   /* as a round over no request */
  if (waitall_stops(R, k, w->preqs + w->pwaited, w->npreqs - w->pwaited)) return 1;
  release_reqs(R, k, w->preqs + w->pwaited, w->npreqs - w->pwaited);
  w->pwaited = w->npreqs;
  return 0;
}

/* A collective program's wait for the request started by program op number `peer`: the
 * requests the ops before it started (translate counted them; a scan's rank waits once per
 * other rank, and a count here made each wait cost the length of the program). */
static int op_wait(replay *R, rank *k, const rop *op) {
  int idx = op->widx;   /* translate counted them */
  if (!k->w || idx >= k->w->npreqs) return 0;
  return wait_slot(R, k, &k->w->preqs[idx]);
}

/* A trace's wait for the oldest request of its key (src, dst, tag). */
static int op_wait_key(replay *R, rank *k, const rop *op) {
  if (k->step == STEP_START) {
    int i = find_keyed(R, k, op->key.src, op->key.dst, op->tag);
    if (i < 0) {
      if (k->npend == 0) {
        psim_errf(R->err, PSIM_EXIT_INPUT, k->act_file, k->act_line,
                  "rank %d: wait %d %d %d is not preceded by any irecv or isend", k->id,
                  op->key.src, op->key.dst, op->tag);
        replay_rank_fail(R);
        return 1;
      }
      return 0; /* completed earlier by a test */
    }
    k->cur = replay_pend_req(k, i);
    remove_keyed(k, i);
  }
  return wait_slot(R, k, &k->cur);
}

/* A trace's test, once it has yielded (STEP_TEST_LOOK; at once in VP mode): the request goes
 * back last in its key's queue, completed (as NULL) or not. */
static int test_look(replay *R, rank *k, const rop *op) {
  mpi_req *q = k->cur;
  k->cur = NULL;
  if (!q->done) {
    push_keyed(R, k, op->key.src, op->key.dst, op->tag, q);
    R->test_count += 1;
    return 0;
  }
  take(k, q);
  count_done(k, q);
  mpi_req_release(R->world, q);
  push_keyed(R, k, op->key.src, op->key.dst, op->tag, NULL);   /* a later wait on it returns at once */
  double t = k->or_due;
  k->or_due = 0;
  if (overhead_then(R, k, t, STEP_TEST_RESET)) return 1;
  R->test_count = 1;
  return 0;
}

static int op_test_key(replay *R, rank *k, const rop *op) {
  const net_config *c = &R->o->net;
  if (k->step == STEP_START) {
    /* As SimGrid's replay: the oldest request of the key is taken out; when there is none,
     * or it is one an earlier test completed (kept as NULL), the test does nothing at all,
     * not even its sleep. */
    int i = find_keyed(R, k, op->key.src, op->key.dst, op->tag);
    if (i < 0) return 0;
    k->cur = replay_pend_req(k, i);
    remove_keyed(k, i);
    if (!k->cur) return 0;
    if (R->par && c->grow_injected && c->test_sleep > 0) {
      psim_errf(R->err, PSIM_EXIT_USAGE, k->act_file, k->act_line,
                "rank %d: a test under psim replay over MPI processes needs --cfg "
                "smpi/grow-injected-times:no (SMPI's count of test sleeps is one for all ranks)", k->id);
      replay_rank_fail(R);
      return 1;
    }
    double t = c->grow_injected ? R->test_count * c->test_sleep : c->test_sleep;
    if (sleep_then(R, k, t, STEP_TEST_ASK, PH_MPI)) return 1;
  }
  /* After its sleep, SMPI's test asks the kernel whether the request completed: a simcall,
   * so the rank yields once before it sees the answer and updates the process-wide count
   * of test sleeps; ranks ready at the same date run their own step first (a rank woken
   * with it may start its test sleep from the count before this one's update). */
  if (k->step == STEP_TEST_ASK && !R->vp) {
    k->step = STEP_TEST_LOOK;
    sim_make_ready(R->sim, k->id);
    return 1;
  }
  /* SMPI's test resets the count only after finish_wait, which sleeps smpi/or when the
   * request received a detached message: ranks whose tests end during that sleep still see
   * (and raise) the old count, and the reset comes after them */
  if (k->step == STEP_TEST_RESET) {
    R->test_count = 1;
    return 0;
  }
  return test_look(R, k, op);
}

/* A trace's waitall: as R_WAITALL, rounds of waitany over the requests in the order they were
 * posted (pend_req, which does not change while the rank waits). */
static int op_waitall_keep(replay *R, rank *k, const rop *op) {
  (void)op;
  if (!k->npend) return 0;   /* as a round over no request */
  if (k->step == STEP_START) wait_enter(k, 0, k->npend);
  if (waitall_stops(R, k, k->pend, k->npend)) return 1;
  for (int i = 0; i < k->npend; i++) {
    mpi_req *q = replay_pend_req(k, i);
    if (q) {
      mpi_req_leave(q);
      count_done(k, q);
      mpi_req_release(R->world, q);
    }
  }
  /* The array goes with its requests (issue 38, part 3): kept, it held its room for 8
   * requests a rank through the stencil's allreduce, at the replay's peak (-38 bytes a rank
   * of GNU time's peak at 1 M ranks, -92 at 65 536). push_keyed makes it again. */
  k->npend = 0;
  free(k->pend);
  k->pend = NULL;
  wait_leave(k);
  return 0;
}

/* Executes (or resumes, at k->step) operation op of rank k. Returns 1 if the rank stopped. */
static int exec_op(replay *R, rank *k, const rop *op) {
  switch ((rop_kind)op->kind) {
  case R_COMPUTE: return op_compute(R, k, op);
  case R_SLEEP: return op_sleep(R, k, op);
  case R_SEND: case R_ISEND: case R_ISEND_KEEP: return op_send(R, k, op);
  case R_RECV: case R_IRECV: case R_IRECV_KEEP: return op_recv(R, k, op);
  case R_WAITALL: return op_waitall(R, k, op);
  case R_WAIT: return op_wait(R, k, op);
  case R_WAIT_KEY: return op_wait_key(R, k, op);
  case R_TEST_KEY: return op_test_key(R, k, op);
  case R_WAITALL_KEEP: return op_waitall_keep(R, k, op);
  case R_MIGRATE: return replay_vp_migrate(R, k, op);
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
  psim_errf(R->err, PSIM_EXIT_INPUT, k->act_file, k->act_line, "rank %d: %s %d is out of range (0..%d)", k->id,
            what, peer, R->np - 1);
  replay_rank_fail(R);
  return -1;
}

static int translate(replay *R, rank *k, const tit_action *a) {
  rop *op;
  switch (a->kind) {
  case TIT_MIGRATE:
    if (R->vp) { op = add_op(k); op->kind = R_MIGRATE; op->bytes = a->bytes; }
    else {
      if (a->bytes >= 0 && R->cold) replay_cold(R, k)->mem = a->bytes;   /* for a move */
      dyn_marker(R->dyn, k->id, sim_now(R->sim));
    }
    return 0;
  case TIT_ITERATION:
    dyn_marker(R->dyn, k->id, sim_now(R->sim));
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
    reserve_ops(k, 3);
    op = add_op(k); op->kind = R_ISEND; op->peer = a->peer; op->bytes = a->bytes;
    op = add_op(k); op->kind = R_IRECV; op->peer = a->peer2; op->bytes = a->bytes2;
    op = add_op(k); op->kind = R_WAITALL;
    wait_enter(k, 2, 2);
    return 0;
  case TIT_WAIT: case TIT_TEST:
    op = add_op(k);
    op->kind = a->kind == TIT_WAIT ? R_WAIT_KEY : R_TEST_KEY;
    op->key.src = a->peer; op->key.dst = a->peer2; op->tag = a->tag;
    return 0;
  case TIT_WAITALL:
    op = add_op(k); op->kind = R_WAITALL_KEEP;
    return 0;
  default: break;
  }
  int ck = coll_of(a->kind);
  if (ck < 0) {
    psim_errf(R->err, PSIM_EXIT_INPUT, a->file, a->line, "rank %d: action %s is not supported by replay", k->id,
              tit_kind_name(a->kind));
    replay_rank_fail(R);
    return -1;
  }
  coll_call call = {.kind = (coll_kind)ck, .rank = k->id, .size = R->np, .root = a->root, .bytes = a->bytes,
                    .bytes2 = a->bytes2, .counts = a->counts, .counts2 = a->counts2, .dtsize = a->dtsize};
  if (call.root < 0 || call.root >= R->np) {
    if (check_peer(R, k, call.root, "root") < 0) return -1;
  }
  coll_prog_reset(&R->prog);
  if (coll_build(&R->o->coll, &call, &R->prog, R->err) < 0) {
    R->err->line = a->line;
    snprintf(R->err->file, sizeof R->err->file, "%s", a->file ? a->file : "");
    replay_rank_fail(R);
    return -1;
  }
  reserve_ops(k, R->prog.n + (is_reduction(a->kind) && a->amount > 0));
  int nstarts = 0;   /* the program's requests: preqs at that length (a rank waits in it) */
  for (int i = 0; i < R->prog.n; i++)
    nstarts += R->prog.ops[i].kind == CO_ISEND || R->prog.ops[i].kind == CO_IRECV;
  if (nstarts && !k->w) wait_enter(k, nstarts, nstarts);
  int waits = 0;
  for (int i = 0; i < R->prog.n; i++) {
    const coll_op *co = &R->prog.ops[i];
    op = add_op(k);
    op->ctx = MPI_CTX_COLL;
    op->peer = co->kind == CO_WAIT ? 0 : co->peer;
    op->tag = co->tag;
    op->bytes = co->kind == CO_COMPUTE ? co->flops : co->bytes;   /* amount for a computation */
    switch ((coll_opkind)co->kind) {
    case CO_ISEND: op->kind = R_ISEND; break;
    case CO_IRECV: op->kind = R_IRECV; break;
    case CO_SEND: op->kind = R_SEND; break;
    case CO_RECV: op->kind = R_RECV; break;
    case CO_WAITALL: op->kind = R_WAITALL; break;
    case CO_WAIT: op->kind = R_WAIT; break;
    case CO_COMPUTE: op->kind = R_COMPUTE; break;
    case CO_COMBINE: op->kind = R_COMPUTE; op->bytes = 0; break;   /* never: replay has no operator */
    }
    if (co->kind == CO_WAIT) { op->widx = co->peer; waits = 1; }   /* the op it waits for, for now */
  }
  /* The program is translated: a long one (a linear collective's root: one op per other rank,
   * 32 bytes each, at a doubled capacity) is not kept for the next collective, which the
   * root builds again (issue 38, part 3: 64 bytes a rank at 65 536 ranks while the root waits
   * in its reduce). */
  if (R->prog.cap > REPLAY_PROG_KEEP) coll_prog_free(&R->prog);
  if (is_reduction(a->kind) && a->amount > 0) {
    op = add_op(k); op->kind = R_COMPUTE; op->amount = a->amount;
  }
  /* A wait's request: the number of requests the ops before the one it names started (a
   * scan's rank waits once per other rank: counting at each wait made it cost the length of
   * the program); a wait naming no op of the program (0, or past its end: its first or its
   * last request) as the program counted before. */
  if (!waits) return 0;
  int *before = xmalloc((size_t)(k->nops + 1) * sizeof *before);
  before[0] = 0;
  for (int i = 0; i < k->nops; i++) before[i + 1] = before[i] + starts_req(&k->ops[i]);
  for (int i = 0; i < k->nops; i++) {
    rop *w = &k->ops[i];
    if (w->kind != R_WAIT) continue;
    int at = w->widx;
    w->widx = at <= 0 ? 0 : at < k->nops ? before[at] : before[k->nops];
  }
  free(before);
  return 0;
}

/* `now` is the simulated date: it does not move while a rank runs. */
static void finish_action(replay *R, rank *k, double now) {
  const double act_start = R->dates ? R->dates[k->id].act_start : 0, dur = now - act_start;
  k->st.actions++;
  R->actions++;
  tit_kind kind = (tit_kind)k->act_kind;
  if ((R->o->actions || R->o->nobservers) && kind != TIT_INIT && kind != TIT_FINALIZE) {
    const char *t = k->text_copied ? k->text : k->act_text;
    int n = k->act_text_len;   /* the kept text's too */
    if (R->o->actions) fprintf(R->o->actions, "%.6f %d %.*s %.6f\n", now, k->id, n, t, dur);
    for (int i = 0; i < R->o->nobservers; i++)
      if (R->o->observers[i].action)
        R->o->observers[i].action(R->o->observers[i].ctx, k->id, &R->acts[k->id], t, n, act_start, now);
  }
  k->has_action = 0;
  k->text_copied = 0;
}

/* Loads rank k's next action into its program. Returns 0 at the end of its trace. */
static int load_next(replay *R, rank *k, double now) {
  reset_ops(k);
  /* the reader writes the action only when it returns 1 or fails while parsing it: a failed
   * read keeps what it wrote, as the rank's whole action did */
  tit_action tmp = {.kind = (tit_kind)k->act_kind, .text = k->act_text, .text_len = k->act_text_len,
                    .file = k->act_file, .line = k->act_line};
  tit_action *a = R->acts ? &R->acts[k->id] : &tmp;
  int r = tit_next(R->src, k->id, a, R->err);
  if (r != 0) {
    k->act_kind = (uint8_t)a->kind;
    k->act_text = a->text;
    k->act_text_len = a->text_len;
    k->act_file = a->file;
    k->act_line = a->line;
  }
  if (r < 0) { replay_rank_fail(R); return 0; }
  if (r == 0) return 0;
  k->has_action = 1;
  if (R->dates) R->dates[k->id].act_start = now;
  if (translate(R, k, a) < 0) return 0;
  return 1;
}

static void progress(replay *R) {
  if (!R->o->progress || (R->actions & 0xFFFF)) return;
  fprintf(stderr, "\r[psim] simulated %.6f s, %llu actions", sim_now(R->sim),
          (unsigned long long)R->actions);
}

static void run_rank(replay *R, rank *k, int id);

/* The source lends each line until the next read of any rank (tit_borrow_lines, set by
 * replay_run): a rank that stops in the middle of an action (blocked, or giving up its turn)
 * keeps its text. */
void replay_rank_run(void *ctx, int id) {
  replay *R = ctx;
  if (id >= R->np) { replay_mtx_token(R, id - R->np); return; }
  rank *k = replay_rank_at(R, id);
  if (R->par) R->last = sim_now(R->sim);
  run_rank(R, k, id);
  keep_text(k);
}

static void run_rank(replay *R, rank *k, int id) {
  if (R->failed || k->state == RK_DONE) return;
  k->state = RK_READY;
  if (k->yields && !R->vp) {   /* a turn still owed (see the run loop) */
    k->yields--;
    sim_make_ready(R->sim, id);
    return;
  }
  const double now = sim_now(R->sim);
  for (;;) {
    if (k->in_ovh) end_overhead(R, k);
    if (k->or_due > 0) {   /* before its next operation, or the end of its action */
      double t = k->or_due;
      k->or_due = 0;
      if (overhead_then(R, k, t, k->step)) return;
    }
    if (k->pc < k->nops) {
      const rop *op = &k->ops[k->pc];
      k->posted = 0;
      k->nwaiting = 0;
      if (exec_op(R, k, op)) return;
      k->pc++;
      k->step = STEP_START;
      /* Posting a send or a receive is a simcall in SimGrid: every ready rank makes one before
       * any makes its next. Which messages start first decides ties later on. A blocking send
       * or receive woken by its message goes on at once: its post was an earlier run's; a wait
       * answered at once is one more simcall (took_done). */
      int turns = k->posted + k->yields;
      k->yields = 0;
      if (!R->vp && turns) {
        k->yields = (uint8_t)(turns - 1);
        sim_make_ready(R->sim, id);
        return;
      }
      continue;
    }
    if (k->has_action) { finish_action(R, k, now); progress(R); }
    if (k->at_end) break;
    if (R->maps && replay_rank_move(R, k)) return;
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
  replay_rank_account(R, k, k->phase);
  k->state = RK_DONE;
  if (R->vp) replay_vp_rank_done(R, k);
}


void replay_rank_init(replay *R, rank *k, int id) {
  k->id = id;
  k->ops = k->inline_ops;
  k->phase = PH_MPI;
  if (R->cold) R->cold[id].mem = -1;
}

/* ---- --host-events: moving a rank ---- */
static void move_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  rank *k = replay_rank_at(R, a->tag);
  const rank_cold *c = replay_cold(R, k);
  const double now = sim_now(R->sim);
  dyn_move_rec(R->dyn, c->move_ev, k->id, replay_host(R, k), c->move_to, c->move_bytes, c->move_start, now);
  R->rank_host[k->id] = c->move_to;
  dyn_place(R->dyn, k->id, c->move_to, now);
  wake(R, k);
}

int replay_rank_move(replay *R, rank *k) {
  const double now = sim_now(R->sim);
  int e = -1;
  rank_cold *c = replay_cold(R, k);
  int to = dyn_events_due(R->dyn, R->o->host_events, R->maps, R->np, k->id, &c->ev_next, now, &e);
  if (to < 0 || to == replay_host(R, k)) return 0;
  c->move_ev = e;
  c->move_to = to;
  c->move_start = now;
  c->move_bytes = c->mem >= 0 ? c->mem : R->o->rank_memory;
  if (!models_transfer(R->models, replay_host(R, k), to, c->move_bytes, move_done, R, k->id, R->err)) {
    replay_rank_fail(R);
    return 1;
  }
  replay_rank_block(R, k, PH_MOVE);
  return 1;
}

rank_stats replay_rank_stats(const replay *R, int i) {
  const rank *k = replay_rank_at(R, i);
  rank_stats st;
  memset(&st, 0, sizeof st);   /* its padding too: psim replay over MPI sends it as bytes */
  st.host = R->rank_host[i];
  st.finish = k->state == RK_DONE ? k->acct_mark : 0;   /* the date it ended */
  st.compute = k->st.compute;
  st.comm = k->st.comm;
  st.wait = k->st.wait;
  st.actions = k->st.actions;
  st.msgs_sent = k->st.msgs_sent;
  st.msgs_recv = k->st.msgs_recv;
  st.bytes_sent = k->st.bytes_sent;
  st.bytes_recv = k->st.bytes_recv;
  if (R->cold) {
    st.pe_wait = R->cold[i].pe_wait;
    st.lb = R->cold[i].lb;
    st.move = R->cold[i].move;
  }
  return st;
}

void replay_rank_free(rank *k) {
  if (k->ops != k->inline_ops) free(k->ops);
  free(k->w);
  free(k->pend);
  free(k->text);
}
