/* One replay spread over the processes of an MPI job (issue 38, part 2; replay.h's
 * replay_par, docs/performance.md "One replay over an MPI job").
 *
 * Conservative windows, after MPI-Sim (../shared/papers/001_...): a message posted at date t
 * by a rank of one process cannot end at a rank of another before t + L, L being the smallest
 * latency of a route between hosts of two processes (the constant model: latency plus bytes
 * over the route's narrowest bandwidth, no contention). So every process may run its events
 * dated before T + L, T being the earliest next event of all processes, without hearing from
 * the others. The window ends with an event of this file at the largest date below T + L:
 * the messages posted during the window are exchanged (all-to-all), each process hands those
 * for its ranks to the MPI layer (mpi_wire_in, which matches them and dates their transfers),
 * a second all-to-all returns the dates of the transfers that matched at once to their
 * senders' processes, and one minimum over the processes gives the next window's T: windows
 * jump over the empty stretches. No event anywhere after an exchange is the end of the run (a
 * deadlock when ranks did not finish, found as in one process). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_internal.h"

/* What a one-process replay does that this protocol cannot (yet) reproduce, checked before
 * anything runs; the message names the option. */
static int check_options(replay *R) {
  const replay_opts *o = R->o;
  const net_config *c = &o->net;
  const char *what = NULL;
  if (c->model != NET_CONSTANT)
    what = c->model == NET_STAR ? "--network star (each host's port is shared: a message's share is not known in advance)"
                                : "the flow model (--network smpi, the default: every flow on a shared link changes the others' rates at once; use --network constant)";
  else if (c->machine) what = "--machine (pair transmission times and delays are not in the lookahead)";
  else if (c->cpu.active) what = "--cfg cpu/..., background/... (the CPU model's report and the CPU cost of messages)";
  else if (c->async_small_thresh > 0) what = "--cfg smpi/async-small-thresh (eager messages and mailbox mutexes, ordered by turns across ranks)";
  else if (c->tie_simgrid) what = "--cfg network/tie-order:simgrid";
  else if (o->vp) what = "psim lb (virtual processors on PEs)";
  else if (o->host_events && o->host_events->n) what = "--host-events";
  else if (o->actions) what = "--actions (a log in the global order of one date's actions)";
  else if (o->nobservers) what = "--trace, --trace-prv, --trace-otf2, --report, --timeline and --progress (observers see every action in one global order)";
  if (!what) return 0;
  psim_errf(R->err, PSIM_EXIT_USAGE, NULL, 0,
            "psim replay over %d MPI processes: %s is not supported; run it in one process", R->par->nprocs, what);
  return -1;
}

static void out_wire(void *ctx, int proc, const mpi_wire *m) {
  replay *R = ctx;
  VEC_PUSH(R->outbox[proc], *m);
}

/* Whole hosts to processes, in blocks of consecutive hosts of about np / nprocs ranks each
 * (ranks of one host may exchange messages without latency: they stay together). */
static int *host_blocks(const replay *R, int nh) {
  const int K = R->par->nprocs;
  int *per_host = xcalloc((size_t)nh, sizeof *per_host);
  int *host_proc = xmalloc((size_t)nh * sizeof *host_proc);
  for (int r = 0; r < R->np; r++) per_host[R->rank_host[r]]++;
  long long before = 0;
  for (int h = 0; h < nh; h++) {
    host_proc[h] = R->np ? (int)(before * K / R->np) : 0;
    before += per_host[h];
  }
  for (int h = 0; h < nh; h++)
    if (!per_host[h]) host_proc[h] = -1;   /* no rank: no message from or to it */
  free(per_host);
  return host_proc;
}

/* L: the smallest latency between two hosts of two processes (INFINITY: no such pair). */
static int lookahead(replay *R, const int *host_proc, int nh) {
  double L = INFINITY;
  int la = -1, lb = -1;
  for (int a = 0; a < nh; a++) {
    if (host_proc[a] < 0) continue;
    for (int b = 0; b < nh; b++) {
      if (host_proc[b] < 0 || host_proc[b] == host_proc[a]) continue;
      double t = models_const_time(R->models, a, b, 0, R->err);
      if (t < 0) return -1;
      if (t < L) { L = t; la = a; lb = b; }
    }
  }
  if (!(L > 0))
    return psim_errf(R->err, PSIM_EXIT_INPUT, NULL, 0,
                     "psim replay over %d MPI processes: the route from host '%s' to host '%s' has no "
                     "latency, so the processes could not run ahead of each other (lookahead 0); run it "
                     "in one process", R->par->nprocs, plat_host_at(R->o->plat, la)->name,
                     plat_host_at(R->o->plat, lb)->name);
  R->lookahead = L;
  return 0;
}

int replay_par_init(replay *R) {
  R->par = R->o->par;
  if (check_options(R) < 0) return -1;
  const int nh = plat_nhosts(R->o->plat);
  int *host_proc = host_blocks(R, nh);
  R->proc_of = xmalloc((size_t)(R->np > 0 ? R->np : 1) * sizeof *R->proc_of);
  R->lidx = xmalloc((size_t)(R->np > 0 ? R->np : 1) * sizeof *R->lidx);
  R->nlocal = 0;
  for (int r = 0; r < R->np; r++) {
    R->proc_of[r] = host_proc[R->rank_host[r]];
    R->lidx[r] = R->proc_of[r] == R->par->me ? R->nlocal++ : -1;
  }
  int rc = lookahead(R, host_proc, nh);
  free(host_proc);
  if (rc < 0) return -1;
  R->outbox = xcalloc((size_t)R->par->nprocs, sizeof *R->outbox);
  mpi_world_split(R->world, R->proc_of, R->par->me, out_wire, R);
  return 0;
}

void replay_par_free(replay *R) {
  if (R->outbox)
    for (int p = 0; p < R->par->nprocs; p++) VEC_FREE(R->outbox[p]);
  free(R->outbox);
  free(R->proc_of);
  free(R->lidx);
  R->outbox = NULL;
  R->proc_of = NULL;
  R->lidx = NULL;
}

/* One all-to-all of the outboxes; what comes in goes to the MPI layer in process order (a
 * sender's messages to one receiver in its posting order). */
static void exchange(replay *R) {
  const replay_par *P = R->par;
  char **out = xmalloc((size_t)P->nprocs * sizeof *out);
  size_t *len = xmalloc((size_t)P->nprocs * sizeof *len);
  for (int p = 0; p < P->nprocs; p++) {
    out[p] = (char *)R->outbox[p].data;
    len[p] = R->outbox[p].len * sizeof(mpi_wire);
  }
  size_t inlen = 0;
  char *in = P->alltoall(P->ctx, out, len, &inlen);
  for (int p = 0; p < P->nprocs; p++) R->outbox[p].len = 0;
  free(out);
  free(len);
  for (size_t off = 0; off + sizeof(mpi_wire) <= inlen; off += sizeof(mpi_wire)) {
    mpi_wire m;
    memcpy(&m, in + off, sizeof m);
    if (!R->failed && mpi_wire_in(R->world, &m, R->err) < 0) R->failed = 1;
  }
  free(in);
}

static void window_end(sim *s, activity *a);

/* Agrees on the next window (T = the earliest next event of every process) and schedules its
 * end at the largest date below T + L; none when nothing is left anywhere, and a stop when
 * a process failed. */
static void next_window(replay *R) {
  sim *s = R->sim;
  double x[2] = {sim_nready(s) ? sim_now(s) : sim_next_date(s), R->failed ? -1.0 : 0.0};
  R->par->min(R->par->ctx, x, 2);
  if (x[1] < 0) {   /* every process stops at this same window */
    R->par_stopped = R->par_done = 1;
    sim_stop(s);
    return;
  }
  if (isinf(x[0])) { R->par_done = 1; return; }   /* no event anywhere, nothing in flight: the end */
  /* Every busy change dated before T is known now (a message posted later starts at T or
   * after): the log is folded at every window (a merge in place, linear in its entries), so
   * it holds one window's entries at most. */
  if (mpi_busy_pending(R->world)) mpi_busy_fold(R->world, x[0]);
  double end = x[0] + R->lookahead;
  if (isfinite(end)) end = nextafter(end, -INFINITY);
  /* Past 2^53 lookaheads (850 years at 3 us) T + L rounds to T: the window then ends just
   * after T, else it would end before T (or at T, before the ranks ready at T run) and the
   * run would never get past T. */
  if (!(end > x[0])) end = nextafter(x[0], INFINITY);
  double now = sim_now(s);
  double d = end > now ? end - now : 0;
  for (int i = 0; i < 64 && now + d != end && end > now; i++) d = now + d < end ? nextafter(d, INFINITY) : nextafter(d, -INFINITY);
  sim_start_timer(s, d, window_end, R, 0);
}

static void window_end(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  R->windows++;
  exchange(R);   /* the window's messages: sends for this process's ranks, dates for its senders */
  exchange(R);   /* the dates of the transfers the first exchange started */
  next_window(R);
}

void replay_par_start(replay *R) {
  if (isinf(R->lookahead)) {
    /* no route between processes (every rank in one): they run on their own; an agreement
     * on failure is all that is left */
    return;
  }
  next_window(R);
}

/* ---- results ---- */
static void put_busy(void *ctx, int r, double comm, double wait) {
  replay *R = ctx;
  rank *k = replay_rank_at(R, r);
  k->st.comm = comm;
  k->st.wait = wait;
}

typedef struct rank_rec { int rank; rank_stats st; } rank_rec;
typedef struct proc_rec { double messages, bytes, events, last, unfinished, failed; } proc_rec;

/* Merges the processes' deadlock lines (each "  rank N ...\n", in rank order) into one list in
 * rank order, as one process writes it. */
static char *merge_lines(const char *all, const size_t *lens, int nprocs) {
  size_t total = 0;
  for (int p = 0; p < nprocs; p++) total += lens[p];
  char *out = xmalloc(total + 1), *o = out;
  const char **cur = xmalloc((size_t)nprocs * sizeof *cur), **end = xmalloc((size_t)nprocs * sizeof *end);
  const char *at = all;
  for (int p = 0; p < nprocs; p++) { cur[p] = at; end[p] = at + lens[p]; at += lens[p]; }
  for (;;) {
    int best = -1;
    long bestr = 0;
    for (int p = 0; p < nprocs; p++) {
      if (cur[p] >= end[p]) continue;
      long r = strtol(cur[p] + 7, NULL, 10);   /* after "  rank " */
      if (best < 0 || r < bestr) { best = p; bestr = r; }
    }
    if (best < 0) break;
    const char *nl = memchr(cur[best], '\n', (size_t)(end[best] - cur[best]));
    size_t n = nl ? (size_t)(nl - cur[best]) + 1 : (size_t)(end[best] - cur[best]);
    memcpy(o, cur[best], n);
    o += n;
    cur[best] += n;
  }
  *o = 0;
  free(cur);
  free(end);
  return out;
}

int replay_par_finish(replay *R, replay_result *res) {
  const replay_par *P = R->par;
  if (!isinf(R->lookahead) && !R->par_done) {
    /* sim_run stopped between two windows without the others (a date overflowed): they
     * wait at the next window's end; this process joins it, failed, and all stop there */
    R->failed = 1;
    exchange(R);
    exchange(R);
    double x[2] = {INFINITY, -1.0};
    P->min(P->ctx, x, 2);
  }
  mpi_busy_settle(R->world, put_busy, R);
  VEC(rank_rec) mine = {0};
  int unfinished = 0;
  for (int li = 0; li < R->nlocal; li++) {
    const rank *k = &R->ranks[li];
    rank_rec rr = {k->id, replay_rank_stats(R, k->id)};
    if (k->state != RK_DONE) { rr.st.finish = k->acct_mark; rr.st.blocked = 1; unfinished++; }
    VEC_PUSH(mine, rr);
  }
  mpi_stats ms = mpi_world_stats(R->world);
  double last = R->last > mpi_world_last_date(R->world) ? R->last : mpi_world_last_date(R->world);
  proc_rec me = {(double)ms.messages, ms.bytes, (double)res->events, last, unfinished, R->failed};
  size_t total = 0;
  char *procs = P->gather(P->ctx, &me, sizeof me, &total, NULL);
  char *recs = P->gather(P->ctx, mine.data, mine.len * sizeof *mine.data, &total, NULL);
  size_t nrecs = total / sizeof(rank_rec);
  VEC_FREE(mine);
  int nlines = 0;
  char *lines = replay_unfinished_lines(R, "blocked in", &nlines);
  size_t *lens = xmalloc((size_t)P->nprocs * sizeof *lens);
  char *all_lines = P->gather(P->ctx, lines, strlen(lines), &total, lens);
  free(lines);
  /* every process learns whether the run failed or deadlocked (for its exit status) */
  double flags[2] = {R->failed ? -1.0 : 0.0, unfinished ? -1.0 : 0.0};
  P->min(P->ctx, flags, 2);
  int rc = 0;
  if (flags[0] < 0) {
    if (!R->failed)
      psim_errf(R->err, PSIM_EXIT_INPUT, NULL, 0, "stopped: another process of the MPI job failed (its message is above)");
    rc = -1;
  }
  res->np = R->np;
  res->ranks = xcalloc((size_t)R->np, sizeof *res->ranks);
  res->windows = R->windows;
  res->lookahead = R->lookahead;
  if (P->me == 0) {
    proc_rec sum = {0};
    for (int p = 0; p < P->nprocs; p++) {
      proc_rec q;
      memcpy(&q, procs + (size_t)p * sizeof q, sizeof q);
      sum.messages += q.messages;
      sum.bytes += q.bytes;   /* sums of whole bytes: exact, whatever the order */
      sum.events += q.events;
      if (q.last > sum.last) sum.last = q.last;
    }
    for (size_t j = 0; j < nrecs; j++) {
      rank_rec rr;
      memcpy(&rr, recs + j * sizeof rr, sizeof rr);
      res->ranks[rr.rank] = rr.st;
    }
    res->events = (uint64_t)sum.events;
    if (rc == 0 && flags[1] < 0) {
      int n = 0;
      for (int i = 0; i < R->np; i++) n += res->ranks[i].blocked;
      char head[256];
      snprintf(head, sizeof head, "deadlock at simulated time %.6f: %d of %d ranks cannot finish\n", sum.last, n, R->np);
      char *merged = merge_lines(all_lines, lens, P->nprocs);
      size_t hl = strlen(head), ml = strlen(merged);
      res->deadlock = xmalloc(hl + ml + 1);
      memcpy(res->deadlock, head, hl);
      memcpy(res->deadlock + hl, merged, ml + 1);
      free(merged);
    }
    for (int i = 0; i < R->np; i++) {
      if (res->ranks[i].finish > res->simulated_time) res->simulated_time = res->ranks[i].finish;
      res->actions += res->ranks[i].actions;
    }
    if (res->deadlock && sum.last > res->simulated_time) res->simulated_time = sum.last;
    res->messages = (uint64_t)sum.messages;
    res->bytes = sum.bytes;
  } else {
    for (int li = 0; li < R->nlocal; li++) res->ranks[R->ranks[li].id] = replay_rank_stats(R, R->ranks[li].id);
  }
  if (rc == 0 && flags[1] < 0) {
    psim_errf(R->err, PSIM_EXIT_DEADLOCK, NULL, 0, "%s", res->deadlock ? res->deadlock : "deadlock (reported by process 0)\n");
    rc = -1;
  }
  free(procs);
  free(recs);
  free(all_lines);
  free(lens);
  return rc;
}
