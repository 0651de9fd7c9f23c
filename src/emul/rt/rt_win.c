/* One-sided communication: windows, their synchronisation (fence, lock/unlock, lock_all,
 * flush, post/start/complete/wait) and the transfers that time the operations (Put, Get,
 * Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap, and the request-based Rput,
 * Rget, Raccumulate, Rget_accumulate), which are rt_win_ops.c's; rt_win_internal.h holds what
 * both share. Dynamic windows (MPI_Win_create_dynamic) have MPI_BOTTOM as
 * base and unit 1: a target displacement is an address in memory the target attached
 * (MPI_Win_attach, local, no message); their operations and epochs are timed as any window's.
 * Shared windows (MPI_Win_allocate_shared) are memory the ranks of one simulated host really
 * share (they live in one process); see MPI_Win_allocate_shared below. Window info: the hints
 * MPI defines, kept and given back (win_hints).
 *
 * Data moves when the origin makes the call: a Put or an Accumulate changes the target's
 * memory at once, a Get fills the origin's buffer at once. Nobody can tell: MPI forbids the
 * origin to read a Get's buffer, and the target to look at its window, before the
 * synchronisation that ends the epoch, and every epoch here starts only once the target may be
 * accessed (a fence is a barrier, a lock is granted, a start waits for the post). Ranks run
 * one at a time, so each operation is atomic, as MPI requires of accumulates.
 *
 * Time (docs/EMULATION.md, "One-sided communication"): every operation on another rank is a
 * transfer on the network model, started at the call: a Put or an Accumulate of n bytes is a
 * message of n bytes to the target; a Get is a request (0 bytes) to the target, then a reply
 * of n bytes; Get_accumulate, Fetch_and_op and Compare_and_swap send their n bytes (twice n
 * for a compare-and-swap) and get n back. Operations on the caller's own window take no time.
 * The calls that end an epoch wait until the transfers they cover have arrived: fence waits for
 * the rank's own operations then is a barrier; unlock waits for the operations to that target,
 * then sends the release (0 bytes) and returns when it arrives; flush waits; complete waits,
 * then sends each target a 0-byte "done" that its MPI_Win_wait waits for; post sends each
 * origin a 0-byte notice that its MPI_Win_start waits for. A lock on another rank is a 0-byte
 * request and a 0-byte grant, sent when the lock is free; lock_all takes shared locks without
 * messages (MPICH takes them lazily), as does a lock with MPI_MODE_NOCHECK. The transfers count
 * as communication of both ranks (busy time), as messages do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt_win_internal.h"

enum { OP_DATA, OP_LOCK_REQ, OP_LOCK_GRANT, OP_UNLOCK, OP_POST, OP_DONE };

struct rma_op {
  rt_win *win;
  int kind;
  int origin, target;        /* local ranks in the window */
  int from, to;              /* world ranks of the transfer under way */
  double reply;              /* bytes sent back when the request arrives; < 0: none */
  int lock_type;             /* OP_LOCK_REQ */
  emu_req *req;              /* OP_DATA of MPI_Rput...: the request it completes, else NULL */
  rma_op *prev, *next;       /* the window's operations in flight */
};

static const char *const hint_key[NHINTS] = {"no_locks", "accumulate_ordering", "accumulate_ops",
                                             "same_size", "same_disp_unit", "alloc_shared_noncontig"};
static const char *const hint_default[NHINTS] = {"false", "rar,raw,war,waw", "same_op_no_op",
                                                 "false", "false", "false"};

/* ---- handles ---- */

/* not inlined: its return address names the MPI call (rt_live) */
__attribute__((noinline)) static rt_win *win_get(MPI_Win h) {
  rt_live(__builtin_return_address(0));
  rt_world *w = rt_w();
  if (h <= 0 || (size_t)h >= w->wins.len || !w->wins.data[h]) emu_fatal("invalid window %d (MPI_ERR_WIN)", h);
  rt_win *win = w->wins.data[h];
  if (win->dead) emu_fatal("window %d was freed (MPI_ERR_WIN)", h);
  if (win->comm->local[rt_world_rank()] < 0) emu_fatal("window %d is not one of this rank's (MPI_ERR_WIN)", h);
  return win;
}

static int me_in(const rt_win *win) { return win->comm->local[rt_world_rank()]; }

static void win_destroy(rt_win *win) {
  while (win->live) { rma_op *o = win->live; win->live = o->next; free(o); }
  for (int i = 0; i < win->n; i++) { free(win->acc[i]); free(win->exp[i]); }
  for (int i = 0; i < win->n; i++) VEC_FREE(win->attached[i]);
  for (size_t i = 0; i < win->segs.len; i++) free(win->segs.data[i]);
  VEC_FREE(win->segs);
  free(win->hints);
  free(win->base); free(win->size); free(win->disp); free(win->own_mem); free(win->attached);
  free(win->pending); free(win->pending_to); free(win->waiting);
  free(win->excl); free(win->nshared); VEC_FREE(win->queue); free(win->held); free(win->granted);
  free(win->fence_open); free(win->lock_all); free(win->posted);
  free(win->acc); free(win->nacc); free(win->exp); free(win->nexp); free(win->ndone);
  free(win);
}

void rt_wins_free(rt_world *w) {
  for (size_t i = 0; i < w->wins.len; i++) if (w->wins.data[i]) win_destroy(w->wins.data[i]);
  VEC_FREE(w->wins);
}

static rt_win *win_new(rt_comm *c) {
  rt_world *w = rt_w();
  if (!w->wins.len) VEC_PUSH(w->wins, NULL);   /* MPI_WIN_NULL */
  int n = c->size;
  size_t nn = (size_t)n * (size_t)n;
  rt_win *win = xcalloc(1, sizeof *win);
  win->comm = rt_comm_new(w, n, c->world);
  win->n = n;
  win->refs = n;
  win->base = xcalloc((size_t)n, sizeof *win->base);
  win->size = xcalloc((size_t)n, sizeof *win->size);
  win->disp = xcalloc((size_t)n, sizeof *win->disp);
  win->own_mem = xcalloc((size_t)n, sizeof *win->own_mem);
  win->attached = xcalloc((size_t)n, sizeof *win->attached);
  win->hints = xcalloc((size_t)n, sizeof *win->hints);
  win->pending = xcalloc((size_t)n, sizeof *win->pending);
  win->pending_to = xcalloc(nn, sizeof *win->pending_to);
  win->waiting = xcalloc((size_t)n, sizeof *win->waiting);
  win->excl = xmalloc((size_t)n * sizeof *win->excl);
  for (int i = 0; i < n; i++) win->excl[i] = -1;
  win->nshared = xcalloc((size_t)n, sizeof *win->nshared);
  win->held = xcalloc(nn, 1);
  win->granted = xcalloc((size_t)n, sizeof *win->granted);
  win->fence_open = xcalloc((size_t)n, sizeof *win->fence_open);
  win->lock_all = xcalloc((size_t)n, sizeof *win->lock_all);
  win->posted = xcalloc(nn, sizeof *win->posted);
  win->acc = xcalloc((size_t)n, sizeof *win->acc);
  win->nacc = xcalloc((size_t)n, sizeof *win->nacc);
  win->exp = xcalloc((size_t)n, sizeof *win->exp);
  win->nexp = xcalloc((size_t)n, sizeof *win->nexp);
  win->ndone = xcalloc((size_t)n, sizeof *win->ndone);
  for (int i = 0; i < n; i++) { win->nacc[i] = -1; win->nexp[i] = -1; }
  VEC_PUSH(w->wins, win);
  win->handle = (int)w->wins.len - 1;
  return win;
}

/* ---- waiting ---- */

/* Blocks the running rank (local rank `me` of win) until done(win, me, arg) holds. */
static void wait_until(rt_win *win, int me, int (*done)(rt_win *, int, int), int arg) {
  while (!done(win, me, arg)) {
    win->waiting[me] = 1;
    emu_block();
    win->waiting[me] = 0;
  }
}

static void news_for(rt_win *win, int r) {
  if (win->waiting[r]) {
    win->waiting[r] = 0;
    emu_wake(emu_current, &emu_current->ranks[win->comm->world[r]]);
  }
  emu_wake_pollers();
}

static int all_arrived(rt_win *win, int me, int arg) { (void)arg; return win->pending[me] == 0; }
static int arrived_to(rt_win *win, int me, int t) { return win->pending_to[me * win->n + t] == 0; }

/* ---- transfers ---- */

static void op_start(rma_op *o, int from, int to, double bytes);

static void grant_next(rt_win *win, int t);

static void op_arrived(sim *s, activity *a) {
  (void)s;
  rma_op *o = a->data;
  rt_win *win = o->win;
  emu_sim *S = emu_current;
  mpi_rank_busy(S->world, o->from, -1);
  mpi_rank_busy(S->world, o->to, -1);
  int n = win->n;
  switch (o->kind) {
  case OP_DATA:
    if (o->reply >= 0) {   /* the request reached the target: the reply comes back */
      double b = o->reply;
      o->reply = -1;
      op_start(o, win->comm->world[o->target], win->comm->world[o->origin], b);
      return;
    }
    win->pending[o->origin]--;
    win->pending_to[o->origin * n + o->target]--;
    if (o->req) emu_req_finish(o->req);   /* MPI_Rput...: locally complete (see flush_local) */
    news_for(win, o->origin);
    break;
  case OP_LOCK_REQ: {
    lock_wait q = {o->origin, o->target, o->lock_type, 1};
    VEC_PUSH(win->queue, q);
    grant_next(win, o->target);
    break;
  }
  case OP_LOCK_GRANT:
    win->granted[o->origin] = 1;
    news_for(win, o->origin);
    break;
  case OP_UNLOCK: {
    int t = o->target, r = o->origin;
    if (win->excl[t] == r) win->excl[t] = -1;
    else win->nshared[t]--;
    win->held[r * n + t] = HELD_NONE;
    win->granted[r] = 1;   /* the release has arrived: the unlocking rank may go on */
    news_for(win, r);
    grant_next(win, t);
    break;
  }
  case OP_POST:
    win->posted[o->origin * n + o->target]++;
    news_for(win, o->origin);
    break;
  case OP_DONE:
    win->ndone[o->target]++;
    news_for(win, o->target);
    break;
  }
  if (o->prev) o->prev->next = o->next; else win->live = o->next;
  if (o->next) o->next->prev = o->prev;
  free(o);
  if (win->dead && !win->live) {
    rt_w()->wins.data[win->handle] = NULL;
    win_destroy(win);
  }
}

static void op_start(rma_op *o, int from, int to, double bytes) {
  emu_sim *S = emu_current;
  o->from = from;
  o->to = to;
  mpi_rank_busy(S->world, from, +1);
  mpi_rank_busy(S->world, to, +1);
  emu_trace_rma(S);
  if (!models_transfer(S->models, S->rank_host[from], S->rank_host[to], bytes, op_arrived, o, 0, S->err))
    emu_fatal("%s", S->err->msg);
}

static rma_op *op_new(rt_win *win, int kind, int origin, int target) {
  rma_op *o = xcalloc(1, sizeof *o);
  o->win = win;
  o->kind = kind;
  o->origin = origin;
  o->target = target;
  o->reply = -1;
  o->next = win->live;
  if (win->live) win->live->prev = o;
  win->live = o;
  return o;
}

/* A message of `bytes` from local rank `from` to `to` (kind: what its arrival does). */
static void send_note(rt_win *win, int kind, int origin, int target, int from, int to, double bytes) {
  rma_op *o = op_new(win, kind, origin, target);
  op_start(o, win->comm->world[from], win->comm->world[to], bytes);
}

/* An operation of `out` bytes to target t, with a reply of `back` bytes (< 0: none); req
 * (MPI_Rput...; else NULL) completes when it arrives. */
void rtw_data_op(rt_win *win, int me, int t, double out, double back, emu_req *req) {
  if (t == me) {   /* the caller's own window: a local copy, no time */
    if (req) req->done = 1;
    emu_poll_local();
    return;
  }
  win->pending[me]++;
  win->pending_to[me * win->n + t]++;
  rma_op *o = op_new(win, OP_DATA, me, t);
  o->reply = back;
  o->req = req;
  op_start(o, win->comm->world[me], win->comm->world[t], out);
}

/* ---- locks ---- */

static int compatible(const rt_win *win, int t, int type) {
  if (win->excl[t] >= 0) return 0;
  return type == MPI_LOCK_SHARED || win->nshared[t] == 0;
}

static void take(rt_win *win, int t, int r, int type) {
  if (type == MPI_LOCK_EXCLUSIVE) win->excl[t] = r;
  else win->nshared[t]++;
  win->held[r * win->n + t] = type == MPI_LOCK_EXCLUSIVE ? HELD_EXCL : HELD_SHARED;
}

/* Grants the queued requests for target t that can be, in their order: the first one that
 * cannot be granted yet keeps the later ones for t waiting (no starvation of an exclusive
 * lock by a stream of shared ones). */
static void grant_next(rt_win *win, int t) {
  size_t i = 0;
  while (i < win->queue.len) {
    lock_wait g = win->queue.data[i];
    if (g.target != t) { i++; continue; }
    if (!compatible(win, t, g.type)) break;
    memmove(win->queue.data + i, win->queue.data + i + 1, (win->queue.len - i - 1) * sizeof g);
    win->queue.len--;
    take(win, t, g.origin, g.type);
    if (g.remote) send_note(win, OP_LOCK_GRANT, g.origin, t, t, g.origin, 0);
    else { win->granted[g.origin] = 1; news_for(win, g.origin); }
  }
}

static int is_granted(rt_win *win, int me, int arg) { (void)arg; return win->granted[me]; }

static void lock_one(rt_win *win, int me, int t, int type, int assert) {
  if (win->held[me * win->n + t] != HELD_NONE) emu_fatal("MPI_Win_lock: rank %d already holds a lock on rank %d (MPI_ERR_RMA_SYNC)", me, t);
  /* the program asserts that nobody holds a conflicting lock: taken without a message */
  if (assert & MPI_MODE_NOCHECK) { take(win, t, me, type); if (t == me) emu_poll_local(); return; }
  win->granted[me] = 0;
  if (t == me) {
    if (compatible(win, t, type)) { take(win, t, me, type); emu_poll_local(); return; }
    lock_wait q = {me, t, type, 0};
    VEC_PUSH(win->queue, q);
  } else {
    rma_op *o = op_new(win, OP_LOCK_REQ, me, t);
    o->lock_type = type;
    op_start(o, win->comm->world[me], win->comm->world[t], 0);
  }
  wait_until(win, me, is_granted, 0);
}

static void unlock_one(rt_win *win, int me, int t, int remote) {
  wait_until(win, me, arrived_to, t);
  if (!remote || t == me) {
    if (win->excl[t] == me) win->excl[t] = -1;
    else win->nshared[t]--;
    win->held[me * win->n + t] = HELD_NONE;
    grant_next(win, t);
    return;
  }
  win->granted[me] = 0;
  send_note(win, OP_UNLOCK, me, t, me, t, 0);
  wait_until(win, me, is_granted, 0);
}

/* ---- checks ---- */

static void check_rank(const rt_win *win, int r, const char *call) {
  if (r < 0 || r >= win->n) emu_fatal("%s: rank %d is out of range (window of %d ranks, MPI_ERR_RANK)", call, r, win->n);
}

static int in_epoch(const rt_win *win, int me, int t) {
  if (win->fence_open[me] || win->lock_all[me] || win->held[me * win->n + t] != HELD_NONE) return 1;
  for (int i = 0; i < win->nacc[me]; i++) if (win->acc[me][i] == t) return 1;
  return 0;
}

/* A dynamic window's access of bytes [lo, hi) from MPI_BOTTOM: in memory the target has
 * attached, possibly several adjacent regions (MPICH's rma/win_dynamic_rma_flush_get writes
 * across two); MPI_ERR_RMA_RANGE otherwise. */
static void check_attached(const rt_win *win, int t, uintptr_t lo, uintptr_t hi, const char *call) {
  const win_regions *rs = &win->attached[t];
  uintptr_t cur = lo;
  for (size_t i = 0; i < rs->len && cur < hi; i++) {
    uintptr_t b = (uintptr_t)rs->data[i].base, e = b + (uintptr_t)rs->data[i].size;
    if (cur >= b && cur < e) { cur = e; i = (size_t)-1; }   /* covered up to e: look again from there */
  }
  if (cur >= hi) return;
  emu_fatal("%s: address %#jx to %#jx is in no memory rank %d attached to its dynamic window (MPI_ERR_RMA_RANGE)",
            call, (uintmax_t)lo, (uintmax_t)hi, t);
}

/* The target's address of an access of count x dt at disp, checked against its window (a
 * dynamic window's displacement is an address: base MPI_BOTTOM, unit 1). */
char *rtw_target_addr(rt_win *win, int t, MPI_Aint disp, int count, MPI_Datatype dt, const char *call) {
  rt_dtype *ty = rt_type(dt);
  ptrdiff_t off = (ptrdiff_t)disp * win->disp[t];
  if (count > 0 && ty->size > 0) {
    ptrdiff_t lo = off + ty->true_lb, hi = off + (ptrdiff_t)(count - 1) * (ty->ub - ty->lb) + ty->true_ub;
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) check_attached(win, t, (uintptr_t)lo, (uintptr_t)hi, call);
    else if (lo < 0 || hi > win->size[t])
      emu_fatal("%s: bytes %td to %td of rank %d's window of %td bytes (MPI_ERR_RMA_RANGE)", call, lo, hi, t, win->size[t]);
  }
  if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) return (char *)(uintptr_t)off;
  return (char *)win->base[t] + off;
}

/* Common entry of an operation: the window, the caller, checks; returns the target address. */
rt_win *rtw_op_begin(const char *call, MPI_Win h, int t, int ocount, MPI_Datatype odt, int tcount,
                     MPI_Datatype tdt, int *me) {
  emu_enter(call);
  rt_need_init();
  rt_win *win = win_get(h);
  *me = me_in(win);
  RT_CHECK_COUNT(ocount);
  RT_CHECK_COUNT(tcount);
  if (t == MPI_PROC_NULL) return win;
  check_rank(win, t, call);
  if (!in_epoch(win, *me, t)) emu_fatal("%s to rank %d outside an access epoch (no fence, lock or start; MPI_ERR_RMA_SYNC)", call, t);
  if (odt != MPI_DATATYPE_NULL && tdt != MPI_DATATYPE_NULL &&
      rt_pack_size(odt, ocount) != rt_pack_size(tdt, tcount))
    emu_fatal("%s: origin has %zu bytes, target %zu (MPI_ERR_TYPE)", call, rt_pack_size(odt, ocount), rt_pack_size(tdt, tcount));
  return win;
}

/* ---- hints ---- */

static int hint_valid(int k, const char *v) {
  switch (k) {
  case H_ACC_OPS: return !strcmp(v, "same_op") || !strcmp(v, "same_op_no_op");
  case H_ACC_ORDERING: {   /* "none", or some of rar, raw, war, waw separated by commas */
    if (!strcmp(v, "none")) return 1;
    static const char *const kinds[] = {"rar", "raw", "war", "waw"};
    int seen = 0;
    for (const char *p = v;;) {
      int i = 0;
      while (i < 4 && strncmp(p, kinds[i], 3)) i++;
      if (i == 4 || (seen & 1 << i)) return 0;
      seen |= 1 << i;
      p += 3;
      if (!*p) return 1;
      if (*p++ != ',') return 0;
    }
  }
  default: return !strcmp(v, "true") || !strcmp(v, "false");
  }
}

/* The rank's hints from info (MPI_INFO_NULL: none): keys it does not know, and values that are
 * not valid, are ignored, as MPI lets an implementation do. */
static void hints_take(win_hints *h, MPI_Info info) {
  if (info == MPI_INFO_NULL) return;
  rt_info_get(info);   /* fatal when invalid */
  for (int k = 0; k < NHINTS; k++) {
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    MPI_Info_get(info, hint_key[k], MPI_MAX_INFO_VAL, v, &flag);
    if (flag && strlen(v) < sizeof h->v[k] && hint_valid(k, v)) strcpy(h->v[k], v);
  }
}

/* ---- creation ---- */

/* what each rank brings to the creation */
typedef struct win_info { void *base; MPI_Aint size; int disp; win_hints hints; } win_info;

/* MPI_Win_allocate_shared's memory, once every rank's size is known: one segment where rank
 * i's part follows rank i-1's (MPI's default; an empty part's base is where the next part
 * starts), or, when a rank gave alloc_shared_noncontig, a block per rank. The window owns it
 * (freed with the window; not counted in any rank's heap, rt_heap.c). */
static void shared_layout(rt_win *win, void *const *infos) {
  int noncontig = 0;
  MPI_Aint total = 0;
  for (int i = 0; i < win->n; i++) {
    const win_info *a = infos[i];
    noncontig |= !strcmp(a->hints.v[H_NONCONTIG], "true");
    total += a->size;
  }
  if (noncontig) {   /* an empty part has no memory: a NULL base (MPICH's win_shared_noncontig_put) */
    for (int i = 0; i < win->n; i++) {
      if (!win->size[i]) continue;
      void *p = xcalloc(1, (size_t)win->size[i]);
      VEC_PUSH(win->segs, p);
      win->base[i] = p;
    }
    return;
  }
  char *seg = xcalloc(1, total ? (size_t)total : 1);
  VEC_PUSH(win->segs, seg);
  for (int i = 0; i < win->n; i++) {
    win->base[i] = seg;
    seg += win->size[i];
  }
}

static MPI_Win create(void *base, MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, int flavor,
                      const char *call) {
  rt_comm *c = rt_comm_get(comm);
  if (size < 0) emu_fatal("%s: negative size %td (MPI_ERR_SIZE)", call, size);
  if (disp <= 0) emu_fatal("%s: displacement unit %d (must be positive, MPI_ERR_DISP)", call, disp);
  int me = rt_comm_rank(c), n = c->size;
  win_info *wi = xcalloc(1, sizeof *wi);
  wi->base = base;
  wi->size = size;
  wi->disp = disp;
  hints_take(&wi->hints, info);
  rt_slot *s = rt_slot_enter(c);
  s->data[me] = wi;
  s->len[me] = sizeof *wi;
  /* MPICH exchanges every rank's base, size and displacement unit: an allgather */
  coll_call x = {.kind = COLL_ALLGATHER, .rank = me, .size = n, .bytes = 3 * 8.0, .bytes2 = 3 * 8.0, .dtsize = 8, .commutative = 1};
  rt_coll_timing(c, &x);
  if (!s->res) {
    rt_win *win = win_new(c);
    win->flavor = flavor;
    for (int i = 0; i < n; i++) {
      const win_info *a = s->data[i];
      win->base[i] = a->base;
      win->size[i] = a->size;
      win->disp[i] = a->disp;
      win->own_mem[i] = flavor == MPI_WIN_FLAVOR_ALLOCATE;
      win->hints[i] = a->hints;
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED) shared_layout(win, s->data);
    int *h = xmalloc(sizeof *h);
    *h = win->handle;
    s->res = h;
  }
  MPI_Win h = *(int *)s->res;
  rt_slot_leave(c, s);
  return h;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  emu_enter("MPI_Win_create");
  rt_need_init();
  *win = create(base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, "MPI_Win_create");
  emu_leave();
  return MPI_SUCCESS;
}

void *__wrap_malloc(size_t n);
void __wrap_free(void *p);

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) {
  emu_enter("MPI_Win_allocate");
  rt_need_init();
  if (size < 0) emu_fatal("MPI_Win_allocate: negative size %td (MPI_ERR_SIZE)", size);
  void *p = __wrap_malloc(size ? (size_t)size : 1);
  if (!p) emu_fatal("MPI_Win_allocate: out of memory for %td bytes (MPI_ERR_NO_MEM)", size);
  *(void **)baseptr = p;
  *win = create(p, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, "MPI_Win_allocate");
  emu_leave();
  return MPI_SUCCESS;
}

/* MPI_BOTTOM as base, no memory, unit 1: each rank attaches its memory afterwards */
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  emu_enter("MPI_Win_create_dynamic");
  rt_need_init();
  *win = create(MPI_BOTTOM, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic");
  emu_leave();
  return MPI_SUCCESS;
}

/* Shared-memory windows. All ranks live in one process, so the ranks of one simulated host
 * (those MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups: rt_topo.c) really share the
 * window's memory: their loads and stores on it are the program's own memory accesses, which
 * take no simulated communication (only the computation they are part of). MPI makes a
 * communicator whose ranks cannot share memory erroneous: one that spans several simulated
 * hosts is refused, naming two ranks on different hosts. RMA operations on the window are
 * those of any window (timed by the network model between the ranks' hosts, a loopback here).
 * The creation is timed as the other windows' (an allgather). */
static void check_one_host(const rt_comm *c, const char *call) {
  emu_sim *S = emu_current;
  int h0 = S->ranks[c->world[0]].host;
  for (int i = 1; i < c->size; i++) {
    int h = S->ranks[c->world[i]].host;
    if (h == h0) continue;
    emu_fatal("%s: the communicator spans several simulated hosts: its rank 0 (world rank %d) runs on host %s, its rank %d (world rank %d) on host %s; "
              "only the ranks of one host share memory (split the communicator with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); MPI_ERR_RMA_SHARED)",
              call, c->world[0], plat_host_at(S->o->plat, h0)->name, i, c->world[i], plat_host_at(S->o->plat, h)->name);
  }
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win) {
  emu_enter("MPI_Win_allocate_shared");
  rt_need_init();
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "MPI_Win_allocate_shared");
  check_one_host(c, "MPI_Win_allocate_shared");
  *win = create(NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared");
  rt_win *w = win_get(*win);
  *(void **)baseptr = w->base[me_in(w)];
  emu_leave();
  return MPI_SUCCESS;
}

/* Local. MPI_PROC_NULL: the part of the lowest rank whose size is not zero (rank 0's, of size
 * 0, when every part is empty). Only for shared windows (MPI 3.1; psim refuses the others
 * rather than guessing whether the program may read their memory). */
int MPI_Win_shared_query(MPI_Win h, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) {
  emu_enter("MPI_Win_shared_query");
  rt_need_init();
  rt_win *win = win_get(h);
  if (win->flavor != MPI_WIN_FLAVOR_SHARED)
    emu_fatal("MPI_Win_shared_query: rank %d: window %d was not made by MPI_Win_allocate_shared (MPI_ERR_RMA_FLAVOR)", me_in(win), h);
  int r = rank;
  if (rank == MPI_PROC_NULL) {
    r = 0;
    while (r < win->n - 1 && win->size[r] == 0) r++;
    if (win->size[r] == 0) r = 0;
  } else {
    check_rank(win, rank, "MPI_Win_shared_query");
  }
  *size = win->size[r];
  *disp_unit = win->disp[r];
  *(void **)baseptr = win->base[r];
  emu_leave();
  return MPI_SUCCESS;
}

static rt_win *dynamic_win(MPI_Win h, const char *call) {
  emu_enter(call);
  rt_need_init();
  rt_win *win = win_get(h);
  if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) emu_fatal("%s: window %d is not a dynamic window (MPI_ERR_RMA_FLAVOR)", call, h);
  return win;
}

/* Local: no message (MPICH's attach only records the region too) */
int MPI_Win_attach(MPI_Win h, void *base, MPI_Aint size) {
  rt_win *win = dynamic_win(h, "MPI_Win_attach");
  if (size < 0) emu_fatal("MPI_Win_attach: negative size %td (MPI_ERR_SIZE)", size);
  if (size > 0 && !base) emu_fatal("MPI_Win_attach: NULL base for %td bytes (MPI_ERR_ARG)", size);
  win_region r = {base, size};
  VEC_PUSH(win->attached[me_in(win)], r);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win h, const void *base) {
  rt_win *win = dynamic_win(h, "MPI_Win_detach");
  win_regions *rs = &win->attached[me_in(win)];
  size_t i = 0;
  while (i < rs->len && rs->data[i].base != base) i++;
  if (i == rs->len) emu_fatal("MPI_Win_detach: %p was not attached by this rank (MPI_ERR_BASE)", base);
  rs->data[i] = rs->data[--rs->len];
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_free(MPI_Win *h) {
  emu_enter("MPI_Win_free");
  rt_need_init();
  rt_win *win = win_get(*h);
  int me = me_in(win);
  if (win->lock_all[me] || win->nacc[me] >= 0) emu_fatal("MPI_Win_free during an access epoch (MPI_ERR_RMA_SYNC)");
  rt_attr_win_free(*h);   /* the rank's attributes, delete callbacks run (MPI) */
  rt_err_win_free(*h);
  for (int t = 0; t < win->n; t++)
    if (win->held[me * win->n + t]) emu_fatal("MPI_Win_free while holding a lock on rank %d (MPI_ERR_RMA_SYNC)", t);
  /* collective: every rank's operations have arrived before any memory goes away */
  wait_until(win, me, all_arrived, 0);
  coll_call x = {.kind = COLL_BARRIER, .rank = me, .size = win->n, .commutative = 1};
  rt_coll_timing(win->comm, &x);
  if (win->own_mem[me]) __wrap_free(win->base[me]);
  win->base[me] = NULL;
  if (--win->refs == 0) {
    win->dead = 1;
    win->comm->freed = 1;
    if (!win->live) {   /* else when its last message arrives (a note nobody waited for) */
      rt_w()->wins.data[win->handle] = NULL;
      win_destroy(win);
    }
  }
  *h = MPI_WIN_NULL;
  emu_leave();
  return MPI_SUCCESS;
}

/* ---- synchronisation ---- */

int MPI_Win_fence(int assert, MPI_Win h) {
  emu_enter("MPI_Win_fence");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  wait_until(win, me, all_arrived, 0);
  coll_call x = {.kind = COLL_BARRIER, .rank = me, .size = win->n, .commutative = 1};
  rt_coll_timing(win->comm, &x);
  win->fence_open[me] = !(assert & MPI_MODE_NOSUCCEED);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win h) {
  emu_enter("MPI_Win_lock");
  rt_need_init();
  rt_win *win = win_get(h);
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) emu_fatal("MPI_Win_lock: lock type %d (MPI_ERR_LOCKTYPE)", lock_type);
  if (rank != MPI_PROC_NULL) {
    check_rank(win, rank, "MPI_Win_lock");
    lock_one(win, me_in(win), rank, lock_type, assert);
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win h) {
  emu_enter("MPI_Win_unlock");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (rank != MPI_PROC_NULL) {
    check_rank(win, rank, "MPI_Win_unlock");
    if (win->held[me * win->n + rank] == HELD_NONE) emu_fatal("MPI_Win_unlock: no lock held on rank %d (MPI_ERR_RMA_SYNC)", rank);
    unlock_one(win, me, rank, 1);
    if (rank == me) emu_poll_failed();   /* an epoch on its own memory: a poll (see flush) */
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_lock_all(int assert, MPI_Win h) {
  emu_enter("MPI_Win_lock_all");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->lock_all[me]) emu_fatal("MPI_Win_lock_all twice (MPI_ERR_RMA_SYNC)");
  /* MPI_MODE_NOCHECK: the program asserts that no conflicting lock is held or asked for; the
   * epoch opens without taking any lock, as MPICH's does, so that it conflicts with none.
   * OpenCoarrays' event wait holds such an epoch on its own window while the posting image
   * takes an exclusive lock on it: with shared locks taken, the post waited for ever and the
   * waiter spun (its tests allocatable_p2p_event_post, asynchronous_hello_world). */
  if (assert & MPI_MODE_NOCHECK) {
    win->lock_all[me] = 2;
    emu_leave();
    return MPI_SUCCESS;
  }
  /* shared locks on every rank, taken without messages (MPICH's are lazy); an exclusive lock
   * held elsewhere makes it wait for that lock's release */
  for (int t = 0; t < win->n; t++) {
    if (win->held[me * win->n + t] != HELD_NONE) emu_fatal("MPI_Win_lock_all while holding a lock on rank %d (MPI_ERR_RMA_SYNC)", t);
    if (compatible(win, t, MPI_LOCK_SHARED)) { take(win, t, me, MPI_LOCK_SHARED); continue; }
    win->granted[me] = 0;
    lock_wait q = {me, t, MPI_LOCK_SHARED, 0};
    VEC_PUSH(win->queue, q);
    wait_until(win, me, is_granted, 0);
  }
  win->lock_all[me] = 1;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win h) {
  emu_enter("MPI_Win_unlock_all");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (!win->lock_all[me]) emu_fatal("MPI_Win_unlock_all without MPI_Win_lock_all (MPI_ERR_RMA_SYNC)");
  if (win->lock_all[me] == 2) wait_until(win, me, all_arrived, 0);   /* NOCHECK: no lock to release */
  else for (int t = 0; t < win->n; t++) unlock_one(win, me, t, 0);
  win->lock_all[me] = 0;
  emu_leave();
  return MPI_SUCCESS;
}

/* rank < 0: every target */
static int flush(MPI_Win h, int rank, int all, const char *call) {
  emu_enter(call);
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (rank != MPI_PROC_NULL && !all) check_rank(win, rank, call);
  /* nothing to wait for: a rank that reads its own window in a loop until another rank writes
   * it (MPICH's rma/linked_list*) polls; like a failed MPI_Iprobe, the repeated ones wait for
   * news, so that the writer gets to run */
  if (all ? all_arrived(win, me, 0) : rank == MPI_PROC_NULL || arrived_to(win, me, rank)) emu_poll_failed();
  else if (all) wait_until(win, me, all_arrived, 0);
  else wait_until(win, me, arrived_to, rank);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win h) { return flush(h, rank, 0, "MPI_Win_flush"); }
int MPI_Win_flush_all(MPI_Win h) { return flush(h, 0, 1, "MPI_Win_flush_all"); }
/* local completion is taken as arrival (the origin buffer was copied at the call anyway) */
int MPI_Win_flush_local(int rank, MPI_Win h) { return flush(h, rank, 0, "MPI_Win_flush_local"); }
int MPI_Win_flush_local_all(MPI_Win h) { return flush(h, 0, 1, "MPI_Win_flush_local_all"); }
/* A memory barrier between the program's own loads and stores on a window (a shared one's,
 * mostly): a no-op in one process, where those are ordinary accesses. It is a poll, as an
 * empty flush is: a rank that waits in a loop of MPI_Win_sync for another rank's store to
 * its shared memory lets that rank run (a loop of plain loads, without any MPI call, cannot
 * be interrupted: each rank runs until it calls MPI). */
int MPI_Win_sync(MPI_Win h) {
  emu_enter("MPI_Win_sync");
  rt_need_init();
  win_get(h);
  emu_poll_failed();
  emu_leave();
  return MPI_SUCCESS;
}

/* The window's local ranks of a group's members (fatal when one is not in the window). */
static int *group_ranks(rt_win *win, MPI_Group g, int *n, const char *call) {
  const rt_group *gr = rt_group_of(g);
  int *r = xmalloc((size_t)(gr->size ? gr->size : 1) * sizeof *r);
  for (int i = 0; i < gr->size; i++) {
    r[i] = win->comm->local[gr->world[i]];
    if (r[i] < 0) { free(r); emu_fatal("%s: world rank %d of the group is not in the window (MPI_ERR_GROUP)", call, gr->world[i]); }
  }
  *n = gr->size;
  return r;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win h) {
  (void)assert;
  emu_enter("MPI_Win_post");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->nexp[me] >= 0) emu_fatal("MPI_Win_post: an exposure epoch is already open (MPI_ERR_RMA_SYNC)");
  free(win->exp[me]);
  win->exp[me] = group_ranks(win, group, &win->nexp[me], "MPI_Win_post");
  win->ndone[me] = 0;
  for (int i = 0; i < win->nexp[me]; i++) {
    int o = win->exp[me][i];
    if (o == me) { win->posted[me * win->n + me]++; continue; }
    send_note(win, OP_POST, o, me, me, o, 0);
  }
  emu_leave();
  return MPI_SUCCESS;
}

static int all_posted(rt_win *win, int me, int arg) {
  (void)arg;
  for (int i = 0; i < win->nacc[me]; i++)
    if (win->posted[me * win->n + win->acc[me][i]] == 0) return 0;
  return 1;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win h) {
  (void)assert;
  emu_enter("MPI_Win_start");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->nacc[me] >= 0) emu_fatal("MPI_Win_start: an access epoch is already open (MPI_ERR_RMA_SYNC)");
  free(win->acc[me]);
  win->acc[me] = group_ranks(win, group, &win->nacc[me], "MPI_Win_start");
  /* MPI lets start wait for the targets' posts: it does, so that no data moves too early */
  wait_until(win, me, all_posted, 0);
  for (int i = 0; i < win->nacc[me]; i++) win->posted[me * win->n + win->acc[me][i]]--;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win h) {
  emu_enter("MPI_Win_complete");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->nacc[me] < 0) emu_fatal("MPI_Win_complete without MPI_Win_start (MPI_ERR_RMA_SYNC)");
  for (int i = 0; i < win->nacc[me]; i++) wait_until(win, me, arrived_to, win->acc[me][i]);
  for (int i = 0; i < win->nacc[me]; i++) {
    int t = win->acc[me][i];
    if (t == me) { win->ndone[me]++; continue; }
    send_note(win, OP_DONE, me, t, me, t, 0);
  }
  win->nacc[me] = -1;
  emu_leave();
  return MPI_SUCCESS;
}

static int all_done(rt_win *win, int me, int arg) { (void)arg; return win->ndone[me] >= win->nexp[me]; }

static void end_exposure(rt_win *win, int me) {
  win->ndone[me] -= win->nexp[me];
  win->nexp[me] = -1;
}

int MPI_Win_wait(MPI_Win h) {
  emu_enter("MPI_Win_wait");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->nexp[me] < 0) emu_fatal("MPI_Win_wait without MPI_Win_post (MPI_ERR_RMA_SYNC)");
  wait_until(win, me, all_done, 0);
  end_exposure(win, me);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Win_test(MPI_Win h, int *flag) {
  emu_enter("MPI_Win_test");
  rt_need_init();
  rt_win *win = win_get(h);
  int me = me_in(win);
  if (win->nexp[me] < 0) emu_fatal("MPI_Win_test without MPI_Win_post (MPI_ERR_RMA_SYNC)");
  *flag = all_done(win, me, 0);
  if (!*flag && emu_poll_failed()) *flag = all_done(win, me, 0);
  if (*flag) end_exposure(win, me);
  emu_leave();
  return MPI_SUCCESS;
}

/* ---- queries ---- */

int MPI_Win_get_group(MPI_Win h, MPI_Group *group) {
  rt_win *win = win_get(h);
  return MPI_Comm_group(win->comm->handle, group);
}

int MPI_Win_get_attr(MPI_Win h, int key, void *val, int *flag) {
  rt_win *win = win_get(h);
  int me = me_in(win);
  static const int unified = MPI_WIN_UNIFIED;
  *flag = 1;
  switch (key) {
  case MPI_WIN_BASE: *(void **)val = win->base[me]; break;
  case MPI_WIN_SIZE: *(MPI_Aint **)val = &win->size[me]; break;
  case MPI_WIN_DISP_UNIT: *(int **)val = &win->disp[me]; break;
  case MPI_WIN_CREATE_FLAVOR: *(int **)val = &win->flavor; break;
  case MPI_WIN_MODEL: *(const int **)val = &unified; break;
  default: return rt_attr_win_get(h, key, val, flag);   /* user keyvals (rt_attr.c) */
  }
  return MPI_SUCCESS;
}

void rt_win_check(MPI_Win h) { win_get(h); }

/* MPI_Win_get_info gives a new info with the hints the rank's window uses: each one MPI
 * defines (alloc_shared_noncontig for a shared window only), as the rank last gave it at
 * the creation or with MPI_Win_set_info, else its default. MPI_Win_set_info changes those
 * that info gives (MPI: collective; here local, no time); the memory of a shared window keeps
 * the layout it was allocated with. */
int MPI_Win_get_info(MPI_Win h, MPI_Info *info) {
  rt_win *win = win_get(h);
  const win_hints *hs = &win->hints[me_in(win)];
  MPI_Info_create(info);
  for (int k = 0; k < NHINTS; k++) {
    if (k == H_NONCONTIG && win->flavor != MPI_WIN_FLAVOR_SHARED) continue;
    MPI_Info_set(*info, hint_key[k], hs->v[k][0] ? hs->v[k] : hint_default[k]);
  }
  return MPI_SUCCESS;
}

int MPI_Win_set_info(MPI_Win h, MPI_Info info) {
  rt_win *win = win_get(h);
  hints_take(&win->hints[me_in(win)], info);
  return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win h, const char *name) {
  snprintf(win_get(h)->name, MPI_MAX_OBJECT_NAME, "%s", name);
  return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win h, char *name, int *resultlen) {
  snprintf(name, MPI_MAX_OBJECT_NAME, "%s", win_get(h)->name);
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}
