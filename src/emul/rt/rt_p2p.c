/* Point-to-point calls: requests, sends, receives, waits, tests, probes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

void rt_reqs_init(rt_world *w) {
  VEC_PUSH(w->reqs, NULL);   /* MPI_REQUEST_NULL */
  w->free_req = 0;
}

static MPI_Request req_alloc(void) {
  rt_world *w = rt_w();
  int h = w->free_req;
  if (h) w->free_req = w->reqs.data[h]->next_free;
  else {
    /* requests are allocated one by one: a rank may block while holding a pointer to one */
    rt_req *n = xcalloc(1, sizeof *n);
    VEC_PUSH(w->reqs, n);
    h = (int)w->reqs.len - 1;
  }
  rt_req *r = w->reqs.data[h];
  void *stage = r->stage;
  memset(r, 0, sizeof *r);
  free(stage);
  r->used = 1;
  return h;
}

MPI_Request rt_req_completed(void) { return req_alloc(); }   /* used, not active: done */

MPI_Request rt_req_io(emu_req *er, long long bytes) {
  MPI_Request h = req_alloc();
  rt_req *r = rt_w()->reqs.data[h];
  r->kind = RQ_FILE;
  r->active = 1;
  r->er = er;
  r->io_bytes = bytes;
  return h;
}

static void req_release(MPI_Request h) {
  rt_world *w = rt_w();
  rt_req *r = w->reqs.data[h];
  free(r->stage);
  r->stage = NULL;
  r->used = 0;
  r->next_free = w->free_req;
  w->free_req = h;
}

/* not inlined: its return address names the MPI call (rt_live) */
__attribute__((noinline)) static rt_req *req_get(MPI_Request h) {
  rt_live(__builtin_return_address(0));
  rt_world *w = rt_w();
  if (h <= 0 || (size_t)h >= w->reqs.len || !w->reqs.data[h]->used) emu_fatal("invalid request %d (MPI_ERR_REQUEST)", h);
  return w->reqs.data[h];
}

rt_req *rt_req_at(MPI_Request h) { return req_get(h); }
void rt_req_release(MPI_Request h) { req_release(h); }

static void check_peer(rt_comm *c, int peer, int any_ok) {
  if (peer == MPI_PROC_NULL || (any_ok && peer == MPI_ANY_SOURCE)) return;
  if (peer < 0 || peer >= c->size) emu_fatal("rank %d is out of range (communicator of size %d, MPI_ERR_RANK)", peer, c->size);
}

static void set_call(const char *name, int peer, int tag, rt_comm *c) {
  emu_rank *k = emu_self();
  k->call = name;
  k->call_peer = peer;
  k->call_tag = tag;
  k->call_comm = c ? c->handle : 0;
}

/* ---- recording (--trace-tit; see src/emul/emu_trace.c) ---- */

/* Set while MPI_Waitall records `waitall`: the completions it makes write no `wait`. */
static int trace_quiet_waits;

/* bytes as a count of elements of a TIT datatype code of dt's element size. */
static void trace_amount(MPI_Datatype dt, double bytes, double *n, int *code) {
  size_t sz = rt_type_inflight(dt)->size;
  *code = emu_trace_dtcode(sz);
  double csz = *code == 6 ? 1 : (double)sz;
  *n = bytes / csz;
  if (fmod(bytes, csz) != 0) { *code = 6; *n = bytes; }
}

/* A non-blocking request starts: `isend` now; `irecv` once its source and tag are known. */
static void trace_post(rt_req *r) {
  emu_rank *k = emu_self();
  if (r->proc_null || !emu_trace_on(k)) return;
  r->traced = 1;
  ++*emu_trace_npend(k);
  if (r->kind == RQ_SEND) {
    double n;
    int code;
    trace_amount(r->dt, (double)rt_type_inflight(r->dt)->size * r->count, &n, &code);
    emu_trace_line(k, "isend %d %d %.0f %d", r->comm->world[r->peer], r->tag, n, code);
  } else {
    r->tid = emu_trace_hole(k);
  }
}

/* A recorded request completes (e = its message, NULL when it never will): the irecv line
 * gets the source and tag that matched, then the `wait` replay completes it with. */
static void trace_done(rt_req *r, const emu_req *e, int wait) {
  emu_rank *k = emu_self();
  if (!r->traced) return;
  r->traced = 0;
  int src = k->id, dst = k->id, tag = r->tag;
  if (r->kind == RQ_SEND) {
    dst = r->comm->world[r->peer];
  } else {
    double bytes = e ? (double)e->got : (double)rt_type_inflight(r->dt)->size * r->count, n;
    int code;
    if (e) { src = e->src; tag = e->tag; }
    else { src = r->peer == MPI_ANY_SOURCE ? 0 : r->comm->world[r->peer]; tag = tag < 0 ? 0 : tag; }
    trace_amount(r->dt, bytes, &n, &code);
    emu_trace_fill(k, r->tid, "irecv %d %d %.0f %d", src, tag, n, code);
  }
  if (!wait) return;   /* never completed: replay waits for it at the end, as the run did not */
  --*emu_trace_npend(k);
  if (!trace_quiet_waits) emu_trace_line(k, "wait %d %d %d", src, dst, tag);
}

/* Starts the communication of request r (new or persistent). */
static void req_start(rt_req *r, int blocking) {
  r->active = 1;
  if (!blocking) trace_post(r);
  if (r->proc_null) { r->er = NULL; return; }
  rt_comm *c = r->comm;
  int ctx = 2 * c->id;
  if (r->kind == RQ_SEND) {
    rt_dtype *t = rt_type_inflight(r->dt);
    size_t len = t->size * (size_t)r->count;
    if (t->contig) r->er = emu_isend(c->world[r->peer], r->tag, ctx, r->buf, len, 0, r->flags, blocking);
    else {
      emu_rank *k = emu_self();
      double w0 = k->work;
      void *p = rt_pack_alloc(r->buf, r->count, r->dt, &len);
      emu_work_pipeline(k->work - w0, len);   /* the first chunk's packing, then the message */
      r->er = emu_isend(c->world[r->peer], r->tag, ctx, p, len, 1, r->flags, blocking);
    }
  } else {
    rt_dtype *t = rt_type_inflight(r->dt);
    size_t cap = t->size * (size_t)r->count;
    void *dst = r->buf;
    if (!t->contig) {
      if (r->stage_len < cap || !r->stage) { free(r->stage); r->stage = xmalloc(cap ? cap : 1); r->stage_len = cap; }
      dst = r->stage;
    }
    int src = r->peer == MPI_ANY_SOURCE ? MPI_L_ANY : c->world[r->peer];
    r->er = emu_irecv(src, r->tag, ctx, dst, cap);
  }
}

static MPI_Request req_make(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                            MPI_Comm comm, int flags, int persistent) {
  RT_CHECK_COUNT(count);
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "point-to-point communication");
  rt_type(dt);
  check_peer(c, peer, kind == RQ_RECV);
  if (kind == RQ_SEND && tag < 0) emu_fatal("invalid tag %d (MPI_ERR_TAG)", tag);
  MPI_Request h = req_alloc();
  rt_req *r = rt_w()->reqs.data[h];
  r->kind = kind;
  r->buf = buf;
  r->count = count;
  r->dt = dt;
  r->peer = peer;
  r->tag = tag;
  r->comm = c;
  r->flags = flags;
  r->persistent = persistent;
  r->proc_null = peer == MPI_PROC_NULL;
  return h;
}

/* A status's MPI_ERROR is left as it was by the calls that give one status (MPI 3.2.5: the
 * call's own return value says it; MPICH's pt2pt/mprobe checks it is not modified); the calls
 * that give several set it (statuses_ok). psim's errors are fatal: it is always MPI_SUCCESS.
 * status_clear: no source, tag, data or cancellation (the rest filled by the caller). */
static void status_clear(MPI_Status *st) {
  if (!st) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->psim_cancelled = 0;
  st->psim_bytes = 0;
}

/* MPI's empty status (MPI 3.7.3: a null or inactive request): MPI_ANY_SOURCE, MPI_ANY_TAG and
 * MPI_SUCCESS, whatever the call (MPICH's pt2pt/rqstatus checks the error field). */
static void empty_status(MPI_Status *st) {
  status_clear(st);
  if (st) st->MPI_ERROR = MPI_SUCCESS;
}

/* MPI_PROC_NULL's status: source MPI_PROC_NULL, no data; MPI_ERROR left alone, as MPICH does. */
static void proc_null_status(MPI_Status *st) {
  status_clear(st);
  if (st) st->MPI_SOURCE = MPI_PROC_NULL;
}

static void statuses_ok(MPI_Status *sts, int n) {
  for (int i = 0; sts && i < n; i++) sts[i].MPI_ERROR = MPI_SUCCESS;
}

static int req_done(rt_req *r) {
  if (r->kind == RQ_GREQ) return r->gdone;
  if (r->kind == RQ_NBR) return rt_nbr_done(r->nbr);
  if (r->pair && !req_done(req_get(r->pair))) return 0;   /* MPI_Isendrecv: its send too */
  return r->proc_null || !r->active || (r->er && r->er->done);
}

/* What an unfinished request waits for: its own message, then an MPI_Isendrecv's send. A
 * generalized request only its own rank can complete (ranks have one thread): waiting for one
 * it has not completed can never end. */
static emu_req *req_waitable(rt_req *r) {
  if (r->kind == RQ_GREQ) {
    if (!r->gdone) emu_fatal("waiting for a generalized request that MPI_Grequest_complete has not completed (psim runs each rank as one thread: nothing else can complete it)");
    return NULL;
  }
  if (r->kind == RQ_NBR) return rt_nbr_waitable(r->nbr);
  if (r->er && !r->er->done) return r->er;
  return r->pair ? req_get(r->pair)->er : NULL;
}

/* Finishes a completed request: unpacks, fills the status, frees or deactivates it. */
static void req_complete(MPI_Request *h, MPI_Status *st) {
  rt_req *r = req_get(*h);
  if (r->kind == RQ_GREQ || r->kind == RQ_NBR) {
    if (r->kind == RQ_GREQ) rt_greq_finish(r, st);
    else { rt_nbr_finish(r->nbr); r->nbr = NULL; status_clear(st); }
    req_release(*h);
    *h = MPI_REQUEST_NULL;
    return;
  }
  if (r->pair) {   /* MPI_Isendrecv: its send completes with it (MPI_Waitany may get here first) */
    MPI_Request p = r->pair;
    rt_req *pr = req_get(p);
    r->pair = 0;
    if (!req_done(pr)) emu_wait(&pr->er, 1, 1);
    req_complete(&p, NULL);
    r = req_get(*h);
  }
  if (r->proc_null) proc_null_status(st);
  else if (!r->active) empty_status(st);
  else {
    emu_req *e = r->er;
    if (r->cancelled) {
      status_clear(st);
      if (st) st->psim_cancelled = 1;
      r->cancelled = 0;
    } else if (r->kind == RQ_RECV) {
      if (e->truncated)
        emu_fatal("message of %zu bytes truncated by a receive of %zu bytes (MPI_ERR_TRUNCATE)", e->got, e->rcap);
      if (r->stage) {
        emu_rank *k = emu_self();
        double w0 = k->work;
        rt_unpack(r->stage, e->got, r->buf, r->count, r->dt);
        if (e->q) k->work = w0 + emu_unpack_overlap(k->work - w0, e->got, mpi_req_xfer_start(e->q), e->q->xfer_end);
      }
      if (st) {
        st->MPI_SOURCE = r->comm->local[e->src];
        st->MPI_TAG = e->tag;
        st->psim_cancelled = 0;
        st->psim_bytes = (long long)e->got;
      }
    } else {
      status_clear(st);
      if (st && r->kind == RQ_FILE) st->psim_bytes = r->io_bytes;   /* MPI_Get_count's */
    }
    trace_done(r, e, 1);
    emu_req_take(e);   /* smpi/or, paid as the wait or test returns it */
    emu_req_free(e);
    r->er = NULL;
  }
  r->active = 0;
  r->smpi_taken = 0;
  if (!r->persistent) {
    req_release(*h);
    *h = MPI_REQUEST_NULL;
  }
}

static int p2p(int kind, const char *name, void *buf, int count, MPI_Datatype dt, int peer, int tag,
               MPI_Comm comm, int flags, MPI_Status *st) {
  emu_enter(name);
  rt_need_init();
  MPI_Request h = req_make(kind, buf, count, dt, peer, tag, comm, flags, 0);
  rt_req *r = rt_w()->reqs.data[h];
  set_call(name, peer, tag, r->comm);
  req_start(r, 1);
  r = rt_w()->reqs.data[h];
  if (r->er) emu_wait(&r->er, 1, 1);
  emu_rank *k = emu_self();
  if (r->er && emu_trace_on(k)) {
    const emu_req *e = r->er;
    double n;
    int code;
    if (kind == RQ_SEND) {
      trace_amount(dt, (double)e->len, &n, &code);
      emu_trace_line(k, "send %d %d %.0f %d", r->comm->world[peer], tag, n, code);
    } else {
      trace_amount(dt, (double)e->got, &n, &code);
      emu_trace_line(k, "recv %d %d %.0f %d", e->src, e->tag, n, code);
    }
  }
  req_complete(&h, st);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p(RQ_SEND, "MPI_Send", (void *)buf, count, dt, dest, tag, comm, 0, NULL);
}
int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p(RQ_SEND, "MPI_Ssend", (void *)buf, count, dt, dest, tag, comm, MPI_F_SSEND, NULL);
}
int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p(RQ_SEND, "MPI_Rsend", (void *)buf, count, dt, dest, tag, comm, 0, NULL);
}
/* Buffered sends complete locally whatever their size (the attached buffer holds a copy):
 * the payload is copied and the send is detached, also above smpi/send-is-detached-thresh. */
int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p(RQ_SEND, "MPI_Bsend", (void *)buf, count, dt, dest, tag, comm, MPI_F_BUFFERED, NULL);
}
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st) {
  return p2p(RQ_RECV, "MPI_Recv", buf, count, dt, source, tag, comm, 0, st);
}

static int ip2p(int kind, const char *name, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                MPI_Comm comm, int flags, MPI_Request *req) {
  emu_enter(name);
  rt_need_init();
  MPI_Request h = req_make(kind, buf, count, dt, peer, tag, comm, flags, 0);
  req_start(rt_w()->reqs.data[h], 0);
  *req = h;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return ip2p(RQ_SEND, "MPI_Isend", (void *)buf, count, dt, dest, tag, comm, 0, req);
}
int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return ip2p(RQ_SEND, "MPI_Issend", (void *)buf, count, dt, dest, tag, comm, MPI_F_SSEND, req);
}
int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return ip2p(RQ_SEND, "MPI_Irsend", (void *)buf, count, dt, dest, tag, comm, 0, req);
}
int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return ip2p(RQ_SEND, "MPI_Ibsend", (void *)buf, count, dt, dest, tag, comm, MPI_F_BUFFERED, req);
}
int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req) {
  return ip2p(RQ_RECV, "MPI_Irecv", buf, count, dt, source, tag, comm, 0, req);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  *req = req_make(RQ_SEND, (void *)buf, count, dt, dest, tag, comm, 0, 1);
  return MPI_SUCCESS;
}
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  *req = req_make(RQ_SEND, (void *)buf, count, dt, dest, tag, comm, MPI_F_SSEND, 1);
  return MPI_SUCCESS;
}
/* ready: the program guarantees the receive is posted; a standard send, as MPI_Rsend */
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return MPI_Send_init(buf, count, dt, dest, tag, comm, req);
}
/* buffered = detached at any size, as MPI_Bsend */
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  *req = req_make(RQ_SEND, (void *)buf, count, dt, dest, tag, comm, MPI_F_BUFFERED, 1);
  return MPI_SUCCESS;
}
int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req) {
  *req = req_make(RQ_RECV, buf, count, dt, source, tag, comm, 0, 1);
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *req) {
  emu_enter("MPI_Start");
  rt_req *r = req_get(*req);
  if (r->active) emu_fatal("MPI_Start of an active request (MPI_ERR_REQUEST)");
  req_start(r, 0);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request reqs[]) {
  emu_enter("MPI_Startall");
  for (int i = 0; i < count; i++) MPI_Start(&reqs[i]);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size) {
  rt_rank *me = rt_me();
  me->bsend_buf = buffer;
  me->bsend_size = size;
  return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size) {
  rt_rank *me = rt_me();
  *(void **)buffer_addr = me->bsend_buf;
  *size = me->bsend_size;
  me->bsend_buf = NULL;
  me->bsend_size = 0;
  return MPI_SUCCESS;
}

/* Blocks until `need` of the active requests in reqs[0..n) are done. */
static void wait_some(MPI_Request *reqs, int n, int need) {
  emu_req *inl[32], **ers = n > 32 ? xmalloc((size_t)n * sizeof *ers) : inl;
  int m = 0;
  for (int i = 0; i < n; i++) {
    ers[i] = NULL;
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    rt_req *r = req_get(reqs[i]);
    if (req_done(r)) { ers[i] = NULL; need--; continue; }
    ers[i] = req_waitable(r);
    m++;
  }
  if (need > 0 && m) emu_wait(ers, n, need);
  if (ers != inl) free(ers);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st) {
  if (*req == MPI_REQUEST_NULL) { empty_status(st); return MPI_SUCCESS; }
  emu_enter("MPI_Wait");
  rt_req *r = req_get(*req);
  set_call("MPI_Wait", r->kind == RQ_RECV ? r->peer : -99, r->tag, r->comm);
  wait_some(req, 1, 1);
  req_complete(req, st);
  emu_leave();
  return MPI_SUCCESS;
}

/* SMPI's waitall is a loop of waitany: each request is finished, and its smpi/or paid, as soon
 * as it completes, while the others go on (emu_waitall_take). */
static void waitall_taking(MPI_Request *reqs, int n) {
  for (;;) {
    int ndone = 0, pending = 0;
    for (int i = 0; i < n; i++) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      rt_req *r = req_get(reqs[i]);
      if (!req_done(r)) { pending++; continue; }
      ndone++;
      if (r->er) emu_req_take(r->er);
    }
    if (!pending) return;
    wait_some(reqs, n, ndone + 1);
  }
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[]) {
  emu_enter("MPI_Waitall");
  set_call("MPI_Waitall", -99, -99, NULL);
  waitall_taking(reqs, count);
  /* replay's waitall waits for every request the rank has pending: record it only when
   * this call completes all of them, else one wait per request (the same end time) */
  emu_rank *k = emu_self();
  if (emu_trace_on(k)) {
    int ntraced = 0;
    for (int i = 0; i < count; i++)
      if (reqs[i] != MPI_REQUEST_NULL && req_get(reqs[i])->traced) ntraced++;
    if (ntraced > 1 && ntraced == *emu_trace_npend(k)) {
      emu_trace_line(k, "waitall");
      trace_quiet_waits = 1;
    }
  }
  for (int i = 0; i < count; i++) {
    if (reqs[i] == MPI_REQUEST_NULL) { if (sts) empty_status(&sts[i]); continue; }
    req_complete(&reqs[i], sts ? &sts[i] : NULL);
  }
  statuses_ok(sts, count);
  trace_quiet_waits = 0;
  emu_leave();
  return MPI_SUCCESS;
}

static int first_done(int count, MPI_Request reqs[]) {
  for (int i = 0; i < count; i++)
    if (reqs[i] != MPI_REQUEST_NULL && req_get(reqs[i])->active && req_done(req_get(reqs[i]))) return i;
  return -1;
}

static int any_active(int count, MPI_Request reqs[]) {
  for (int i = 0; i < count; i++)
    if (reqs[i] != MPI_REQUEST_NULL && req_get(reqs[i])->active) return 1;
  return 0;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *st) {
  emu_enter("MPI_Waitany");
  set_call("MPI_Waitany", -99, -99, NULL);
  *index = MPI_UNDEFINED;
  if (!any_active(count, reqs)) { empty_status(st); emu_leave(); return MPI_SUCCESS; }
  int i;
  /* a request may need several messages (MPI_Ineighbor_*, an MPI_Isendrecv's pair): wait
   * again until one request is complete */
  while ((i = first_done(count, reqs)) < 0) {
    /* only active requests count: wait_some skips inactive persistent ones as done */
    emu_req *inl[32], **ers = count > 32 ? xmalloc((size_t)count * sizeof *ers) : inl;
    for (int j = 0; j < count; j++)
      ers[j] = reqs[j] != MPI_REQUEST_NULL && req_get(reqs[j])->active && !req_done(req_get(reqs[j]))
                   ? req_waitable(req_get(reqs[j])) : NULL;
    emu_wait(ers, count, 1);
    if (ers != inl) free(ers);
  }
  *index = i;
  req_complete(&reqs[i], st);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[]) {
  emu_enter("MPI_Waitsome");
  int idx;
  *outcount = 0;
  if (!any_active(incount, reqs)) { *outcount = MPI_UNDEFINED; emu_leave(); return MPI_SUCCESS; }
  MPI_Waitany(incount, reqs, &idx, sts ? &sts[0] : NULL);
  indices[(*outcount)++] = idx;
  int i;
  while ((i = first_done(incount, reqs)) >= 0) {
    indices[*outcount] = i;
    req_complete(&reqs[i], sts ? &sts[*outcount] : NULL);
    (*outcount)++;
  }
  statuses_ok(sts, *outcount);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st) {
  emu_enter("MPI_Test");
  if (*req == MPI_REQUEST_NULL) { *flag = 1; empty_status(st); emu_leave(); return MPI_SUCCESS; }
  if (emu_polls_injected()) {
    emu_test_begin(0);
    *flag = req_done(req_get(*req));
    /* SMPI's finish_wait (its smpi/or sleep) comes before the count is reset */
    if (*flag) req_complete(req, st);
    emu_test_end(0, *flag);
  } else {
    emu_test_poll(req_done(req_get(*req)));
    *flag = req_done(req_get(*req));
    if (*flag) req_complete(req, st);
  }
  emu_leave();
  return MPI_SUCCESS;
}

/* With injected polls, SMPI's MPI_Testall and MPI_Testsome test each request in turn
 * (Request::test: a sleep, a yield, a look) and set those found complete to
 * MPI_REQUEST_NULL, paying their smpi/or then; a later call tests only the others. psim keeps
 * the handles (MPI_Testall must not complete any unless all are) and marks them. Returns
 * whether every active request is complete. */
static int smpi_test_each(int count, MPI_Request reqs[]) {
  int all = 1;
  for (int i = 0; i < count; i++) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    rt_req *r = req_get(reqs[i]);
    if (!r->active || r->smpi_taken) continue;
    emu_test_begin(0);
    r = req_get(reqs[i]);
    int done = req_done(r);
    if (done) {   /* smpi/or is paid before the count is reset (MPI_Test) */
      r->smpi_taken = 1;
      if (r->er) emu_req_take(r->er);
    }
    emu_test_end(0, done);
    if (!done) all = 0;
  }
  return all;
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[]) {
  emu_enter("MPI_Testall");
  int all = 1;
  if (emu_polls_injected()) {
    all = smpi_test_each(count, reqs);
  } else {
    for (int i = 0; i < count; i++)
      if (reqs[i] != MPI_REQUEST_NULL && !req_done(req_get(reqs[i]))) all = 0;
    emu_test_poll(all);
    all = 1;
    for (int i = 0; i < count; i++)
      if (reqs[i] != MPI_REQUEST_NULL && !req_done(req_get(reqs[i]))) all = 0;
  }
  *flag = all;
  if (all)
    for (int i = 0; i < count; i++) {
      if (reqs[i] == MPI_REQUEST_NULL) { if (sts) empty_status(&sts[i]); continue; }
      req_complete(&reqs[i], sts ? &sts[i] : NULL);
    }
  if (all) statuses_ok(sts, count);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *st) {
  emu_enter("MPI_Testany");
  *index = MPI_UNDEFINED;
  if (!any_active(count, reqs)) { *flag = 1; empty_status(st); emu_leave(); return MPI_SUCCESS; }
  int i;
  if (emu_polls_injected()) {   /* SMPI's Request::testany: one sleep for the whole set */
    emu_test_begin(1);
    i = first_done(count, reqs);
    if (i >= 0) { *index = i; req_complete(&reqs[i], st); }   /* smpi/or first (MPI_Test) */
    emu_test_end(1, i >= 0);
  } else {
    emu_test_poll(first_done(count, reqs) >= 0);
    i = first_done(count, reqs);
    if (i >= 0) { *index = i; req_complete(&reqs[i], st); }
  }
  *flag = i >= 0;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[]) {
  emu_enter("MPI_Testsome");
  *outcount = 0;
  if (!any_active(incount, reqs)) { *outcount = MPI_UNDEFINED; emu_leave(); return MPI_SUCCESS; }
  if (emu_polls_injected()) {   /* SMPI: each request tested in turn, taken when complete */
    for (int j = 0; j < incount; j++) {
      if (reqs[j] == MPI_REQUEST_NULL || !req_get(reqs[j])->active) continue;
      emu_test_begin(0);
      int done = req_done(req_get(reqs[j]));
      if (done) {   /* smpi/or is paid before the count is reset (MPI_Test) */
        indices[*outcount] = j;
        req_complete(&reqs[j], sts ? &sts[*outcount] : NULL);
        (*outcount)++;
      }
      emu_test_end(0, done);
    }
    statuses_ok(sts, *outcount);
    emu_leave();
    return MPI_SUCCESS;
  }
  emu_test_poll(first_done(incount, reqs) >= 0);
  int i;
  while ((i = first_done(incount, reqs)) >= 0) {
    indices[*outcount] = i;
    req_complete(&reqs[i], sts ? &sts[*outcount] : NULL);
    (*outcount)++;
  }
  statuses_ok(sts, *outcount);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *req) {
  rt_req *r = req_get(*req);
  if (r->kind == RQ_NBR) {
    emu_self()->call = "MPI_Request_free";
    emu_fatal("MPI_Request_free of a non-blocking collective's request (erroneous in MPI: wait for it)");
  }
  if (r->kind == RQ_GREQ) {   /* its free_fn runs once the program completes it */
    if (r->gdone) { rt_greq_finish(r, NULL); req_release(*req); }
    else r->gorphan = 1;
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (r->pair) { MPI_Request p = r->pair; r->pair = 0; MPI_Request_free(&p); }
  if (r->traced) trace_done(r, r->er && r->er->done ? r->er : NULL, 0);
  /* a one-sided operation in flight keeps its er until it completes (emu_req_finish frees it) */
  if (r->kind == RQ_RMA && r->er && !r->er->done) { r->er->orphan = 1; r->er = NULL; }
  if (r->er) { emu_req_free(r->er); r->er = NULL; }
  req_release(*req);
  *req = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

/* MPI_Request_get_status is a poll, as MPI_Test is (without completing the request): by
 * default the poll rule of emu_test_poll (a second unsuccessful look in a row waits for the
 * next event: a `while (!flag) MPI_Request_get_status(...)` loop used to spin for ever, no
 * simulated time passing). With SMPI's injected polls, SMPI's cost: its get_status
 * (Request::get_status) of a started request is an iprobe for the request's source and tag
 * (a send's source is the sender itself), with the iprobe's injected computation, yield and
 * count, whatever the answer; an inactive request costs nothing, nor does a detached send
 * (SMPI keeps no activity for one: its action_ is null). (SMPI then answers flag 1 even for a
 * request still pending; psim answers whether it is complete.) */
int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st) {
  if (req == MPI_REQUEST_NULL) { *flag = 1; empty_status(st); return MPI_SUCCESS; }
  emu_enter("MPI_Request_get_status");
  rt_req *r = req_get(req);
  int detached = r->kind == RQ_SEND && r->er && r->er->q && r->er->q->detached;
  if (r->kind != RQ_GREQ && r->active && !r->proc_null && !detached) {
    if (emu_polls_injected() && r->kind != RQ_NBR && r->kind != RQ_RMA && r->kind != RQ_FILE) {
      rt_comm *c = r->comm;
      int src = r->kind == RQ_SEND ? emu_self()->id
                : r->peer == MPI_ANY_SOURCE ? MPI_L_ANY : c->world[r->peer];
      (void)emu_iprobe(src, r->tag, 2 * c->id);
      r = req_get(req);
    } else {
      emu_test_poll(req_done(r));
    }
  }
  *flag = req_done(r);
  if (*flag && st) {
    if (r->proc_null) proc_null_status(st);
    else status_clear(st);
    if (r->cancelled) st->psim_cancelled = 1;
    else if (r->kind == RQ_FILE) st->psim_bytes = r->io_bytes;
    else if (r->kind == RQ_RECV && r->er) {
      st->MPI_SOURCE = r->comm->local[r->er->src];
      st->MPI_TAG = r->er->tag;
      st->psim_bytes = (long long)r->er->got;
    }
  }
  emu_leave();
  return MPI_SUCCESS;
}

/* A receive that no send has matched is cancelled: it completes (its wait returns at once)
 * with MPI_Test_cancelled true. A send, or a receive that already matched, is not: MPI lets
 * cancel fail, and the request then completes normally (a send is matched by the receive its
 * program posts; psim never withdraws a message that may already be on the wire). */
int MPI_Cancel(MPI_Request *req) {
  emu_enter("MPI_Cancel");
  rt_req *r = req_get(*req);
  if (r->kind == RQ_GREQ) rt_greq_cancel(r);
  if (r->kind == RQ_RECV && r->active && !r->proc_null && emu_cancel_recv(r->er)) {
    r->cancelled = 1;
    if (r->traced) {   /* the irecv never happened: its reserved line becomes a no-op */
      emu_rank *k = emu_self();
      r->traced = 0;
      --*emu_trace_npend(k);
      emu_trace_fill(k, r->tid, "compute 0");
    }
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *st, int *flag) { *flag = st->psim_cancelled; return MPI_SUCCESS; }

static void probe_status(rt_comm *c, const mpi_req *s, MPI_Status *st) {
  if (!st) return;
  st->MPI_SOURCE = c->local[s->src];
  st->MPI_TAG = s->tag;
  st->psim_cancelled = 0;
  st->psim_bytes = (long long)s->bytes;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *st) {
  emu_enter("MPI_Probe");
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "a probe");
  check_peer(c, source, 1);
  set_call("MPI_Probe", source, tag, c);
  if (source == MPI_PROC_NULL) { proc_null_status(st); emu_leave(); return MPI_SUCCESS; }
  const mpi_req *s = emu_probe(source == MPI_ANY_SOURCE ? MPI_L_ANY : c->world[source], tag, 2 * c->id);
  probe_status(c, s, st);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *st) {
  emu_enter("MPI_Iprobe");
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "a probe");
  check_peer(c, source, 1);
  if (source == MPI_PROC_NULL) { *flag = 1; proc_null_status(st); emu_leave(); return MPI_SUCCESS; }
  const mpi_req *s = emu_iprobe(source == MPI_ANY_SOURCE ? MPI_L_ANY : c->world[source], tag, 2 * c->id);
  *flag = s != NULL;
  if (s) probe_status(c, s, st);
  emu_leave();
  return MPI_SUCCESS;
}

/* ---- matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv) ----
 * A matched probe takes the message out of matching at once: it posts a receive for exactly
 * the source and tag it found, which the MPI layer matches with that very send (the oldest
 * with that source and tag, as the probe's was the oldest that matched at all), into a staging
 * buffer of the message's size. No other receive can take it then. The MPI_Message is that
 * receive's request; MPI_Mrecv gives it its buffer and waits for it as MPI_Wait does. The
 * message's transfer, when it waited for its receive (above smpi/async-small-thresh), starts
 * at the probe, not at MPI_Mrecv. */

static MPI_Message mprobe_claim(rt_comm *c, const mpi_req *s) {
  MPI_Request h = req_alloc();
  rt_req *r = rt_w()->reqs.data[h];
  r->kind = RQ_RECV;
  r->dt = MPI_BYTE;
  r->peer = c->local[s->src];
  r->tag = s->tag;
  r->comm = c;
  r->mprobed = 1;
  r->active = 1;
  r->stage_len = (size_t)s->bytes;
  r->stage = xmalloc(r->stage_len + 1);
  trace_post(r);
  int src = s->src, tag = s->tag;
  r->er = emu_irecv(src, tag, 2 * c->id, r->stage, r->stage_len);
  if (!r->er->q || !r->er->q->matched || r->er->q->peer != s)
    emu_fatal("internal error: the probed message from rank %d (tag %d) was not the one matched", src, tag);
  return h;
}

/* MPI_Mprobe (flag NULL: waits for a message) and MPI_Improbe */
static int mprobe(const char *name, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *st) {
  emu_enter(name);
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "a probe");
  check_peer(c, source, 1);
  set_call(name, source, tag, c);
  *message = MPI_MESSAGE_NULL;
  if (flag) *flag = 1;
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(st);
  } else {
    int src = source == MPI_ANY_SOURCE ? MPI_L_ANY : c->world[source];
    const mpi_req *s = flag ? emu_iprobe(src, tag, 2 * c->id) : emu_probe(src, tag, 2 * c->id);
    if (flag) *flag = s != NULL;
    if (s) {
      probe_status(c, s, st);
      *message = mprobe_claim(c, s);
    }
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *st) {
  return mprobe("MPI_Mprobe", source, tag, comm, NULL, message, st);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *st) {
  return mprobe("MPI_Improbe", source, tag, comm, flag, message, st);
}

/* The message's request, given the receive buffer (the bytes are unpacked into it when it
 * completes); MPI_MESSAGE_NO_PROC gives a request with MPI_PROC_NULL's empty status. */
static MPI_Request mrecv_request(void *buf, int count, MPI_Datatype dt, MPI_Message *message) {
  RT_CHECK_COUNT(count);
  rt_type(dt);
  MPI_Message m = *message;
  if (m == MPI_MESSAGE_NULL) emu_fatal("the message is MPI_MESSAGE_NULL (MPI_ERR_REQUEST)");
  *message = MPI_MESSAGE_NULL;
  if (m == MPI_MESSAGE_NO_PROC) {
    MPI_Request h = req_alloc();
    rt_req *r = rt_w()->reqs.data[h];
    r->kind = RQ_RECV;
    r->proc_null = r->active = 1;
    return h;
  }
  rt_world *w = rt_w();
  rt_req *r = m > 0 && (size_t)m < w->reqs.len && w->reqs.data[m]->used ? w->reqs.data[m] : NULL;
  if (!r || !r->mprobed || !r->active)
    emu_fatal("message %d is not one that MPI_Mprobe or MPI_Improbe gave and no receive took yet (MPI_ERR_REQUEST)", m);
  set_call(emu_self()->call, r->peer, r->tag, r->comm);
  r->mprobed = 0;
  r->buf = buf;
  r->count = count;
  r->dt = dt;
  emu_req *e = r->er;
  e->rcap = rt_pack_size(dt, count);
  e->truncated = e->got > e->rcap;
  return m;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *st) {
  emu_enter("MPI_Mrecv");
  rt_need_init();
  MPI_Request h = mrecv_request(buf, count, dt, message);
  wait_some(&h, 1, 1);
  req_complete(&h, st);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *req) {
  emu_enter("MPI_Imrecv");
  rt_need_init();
  *req = mrecv_request(buf, count, dt, message);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *st, MPI_Datatype dt, int *count) {
  size_t sz = rt_type(dt)->size;
  if (sz == 0) { *count = 0; return MPI_SUCCESS; }
  *count = st->psim_bytes % (long long)sz ? MPI_UNDEFINED : (int)(st->psim_bytes / (long long)sz);
  return MPI_SUCCESS;
}

/* Basic elements received: whole elements of dt times their elements, plus those of the
 * signature's prefix that the rest fills; MPI_UNDEFINED when the bytes end inside one. */
/* The basic elements of dt in the status's bytes, -1 when they end inside one. */
static long long elements(const MPI_Status *st, MPI_Datatype dt) {
  rt_dtype *t = rt_type(dt);
  unsigned long long bytes = (unsigned long long)st->psim_bytes;
  if (t->size == 0) return 0;
  if (t->base > 0 && t->base < PSIM_NUM_PREDEFINED_TYPES) {
    size_t b = rt_type(t->base)->size;
    return !b ? 0 : bytes % b ? -1 : (long long)(bytes / b);
  }
  unsigned long long per = 0, n, rem = bytes % t->size;
  for (int s = 0; s < t->nsig; s++) per += t->sig[s].n;
  n = bytes / t->size * per;
  for (int s = 0; s < t->nsig && rem; s++) {
    unsigned long long run = (unsigned long long)t->sig[s].size * t->sig[s].n;
    unsigned long long k = rem >= run ? t->sig[s].n : rem / t->sig[s].size;
    n += k;
    rem -= k * t->sig[s].size;
    if (k < t->sig[s].n) break;
  }
  return rem ? -1 : (long long)n;
}

int MPI_Get_elements(const MPI_Status *st, MPI_Datatype dt, int *count) {
  long long n = elements(st, dt);
  *count = n < 0 || n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
  return MPI_SUCCESS;
}

/* MPI_Count forms (MPI 3.0): the same counts, past 2^31 */
int MPI_Get_elements_x(const MPI_Status *st, MPI_Datatype dt, MPI_Count *count) {
  long long n = elements(st, dt);
  *count = n < 0 ? MPI_UNDEFINED : n;
  return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *st) {
  emu_enter("MPI_Sendrecv");
  rt_need_init();
  MPI_Request r[2];
  r[0] = req_make(RQ_SEND, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, 0);
  req_start(rt_w()->reqs.data[r[0]], 0);
  r[1] = req_make(RQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, 0, 0);
  req_start(rt_w()->reqs.data[r[1]], 0);
  set_call("MPI_Sendrecv", source, recvtag, rt_comm_get(comm));
  wait_some(r, 2, 2);
  req_complete(&r[0], NULL);
  req_complete(&r[1], st);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *st) {
  emu_enter("MPI_Sendrecv_replace");
  size_t len;
  void *tmp = rt_pack_alloc(buf, count, dt, &len);
  MPI_Sendrecv(tmp, (int)len, MPI_BYTE, dest, sendtag, buf, count, dt, source, recvtag, comm, st);
  free(tmp);
  emu_leave();
  return MPI_SUCCESS;
}

/* MPI 4.0's non-blocking sendrecv: the send and the receive start as MPI_Sendrecv's do (same
 * messages, same timing); the request is the receive's, which also waits for the send. */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *req) {
  emu_enter("MPI_Isendrecv");
  rt_need_init();
  MPI_Request s = req_make(RQ_SEND, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, 0);
  req_start(rt_w()->reqs.data[s], 0);
  MPI_Request h = req_make(RQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, 0, 0);
  req_start(rt_w()->reqs.data[h], 0);
  rt_w()->reqs.data[h]->pair = s;
  *req = h;
  emu_leave();
  return MPI_SUCCESS;
}

/* The send goes from a packed copy of buf, owned by the send's request (its stage, freed
 * with it), so the receive may overwrite buf before the send completes. */
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Request *req) {
  emu_enter("MPI_Isendrecv_replace");
  rt_need_init();
  RT_CHECK_COUNT(count);
  rt_type(dt);
  size_t len;
  void *tmp = rt_pack_alloc(buf, count, dt, &len);
  if (len > (size_t)0x7fffffff) emu_fatal("MPI_Isendrecv_replace of %zu bytes (MPI_ERR_COUNT)", len);
  MPI_Request s = req_make(RQ_SEND, tmp, (int)len, MPI_BYTE, dest, sendtag, comm, 0, 0);
  rt_req *sr = rt_w()->reqs.data[s];
  sr->stage = tmp;
  sr->stage_len = len;
  sr->dt = MPI_BYTE;
  req_start(sr, 0);
  MPI_Request h = req_make(RQ_RECV, buf, count, dt, source, recvtag, comm, 0, 0);
  req_start(rt_w()->reqs.data[h], 0);
  rt_w()->reqs.data[h]->pair = s;
  *req = h;
  emu_leave();
  return MPI_SUCCESS;
}
