/* A run's MPI calls and their messages, kept until the end of the run, then attached to each
 * other by their dates (obs_calls.h says by which rules). */
#include <stdlib.h>
#include <string.h>

#include "obs_calls.h"

void obs_calls_init(obs_calls *c, int np) {
  memset(c, 0, sizeof *c);
  c->np = np;
  c->rank = xcalloc((size_t)(np > 0 ? np : 1), sizeof *c->rank);
  c->end = -1;
}

void obs_calls_free(obs_calls *c) {
  if (!c->rank) return;
  for (int r = 0; r < c->np; r++) VEC_FREE(c->rank[r]);
  free(c->rank);
  if (c->ev)
    for (int r = 0; r < c->np; r++) VEC_FREE(c->ev[r]);
  free(c->ev);
  VEC_FREE(c->msgs);
  for (size_t i = 0; i < c->names.len; i++) free(c->names.data[i]);
  VEC_FREE(c->names);
  memset(c, 0, sizeof *c);
}

/* The MPI function of a trace action's kind (a replay's action text is its trace line). */
static const char *kind_function(tit_kind k) {
  switch (k) {
  case TIT_INIT: return "MPI_Init";
  case TIT_FINALIZE: return "MPI_Finalize";
  case TIT_SEND: return "MPI_Send";
  case TIT_ISEND: return "MPI_Isend";
  case TIT_RECV: return "MPI_Recv";
  case TIT_IRECV: return "MPI_Irecv";
  case TIT_SENDRECV: return "MPI_Sendrecv";
  case TIT_WAIT: return "MPI_Wait";
  case TIT_TEST: return "MPI_Test";
  case TIT_WAITALL: return "MPI_Waitall";
  case TIT_BARRIER: return "MPI_Barrier";
  case TIT_BCAST: return "MPI_Bcast";
  case TIT_REDUCE: return "MPI_Reduce";
  case TIT_ALLREDUCE: return "MPI_Allreduce";
  case TIT_ALLTOALL: return "MPI_Alltoall";
  case TIT_ALLTOALLV: return "MPI_Alltoallv";
  case TIT_GATHER: return "MPI_Gather";
  case TIT_ALLGATHER: return "MPI_Allgather";
  case TIT_GATHERV: return "MPI_Gatherv";
  case TIT_ALLGATHERV: return "MPI_Allgatherv";
  case TIT_SCATTER: return "MPI_Scatter";
  case TIT_SCATTERV: return "MPI_Scatterv";
  case TIT_REDUCESCATTER: return "MPI_Reduce_scatter";
  case TIT_SCAN: return "MPI_Scan";
  case TIT_EXSCAN: return "MPI_Exscan";
  case TIT_MIGRATE: return "MPI_Migrate";
  default: return NULL;
  }
}

static int is_coll(tit_kind k) { return k >= TIT_BARRIER && k <= TIT_EXSCAN; }

static int intern(obs_calls *c, const char *s, size_t n) {
  for (size_t i = 0; i < c->names.len; i++)
    if (strlen(c->names.data[i]) == n && !memcmp(c->names.data[i], s, n)) return (int)i;
  char *d = xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  VEC_PUSH(c->names, d);
  return (int)c->names.len - 1;
}

/* The call's MPI function: psim run names it (the action's text), a replay's trace line
 * starts with the action's name ("comm_split ..." is MPI_Comm_split). */
static int function_of(obs_calls *c, const tit_action *a, const char *text, int len) {
  int n = 0;
  while (n < len && text[n] != ' ' && text[n] != '\t') n++;
  if (n > 4 && !memcmp(text, "MPI_", 4)) return intern(c, text, (size_t)n);
  const char *f = kind_function(a->kind);
  if (f) return intern(c, f, strlen(f));
  if (a->kind != TIT_NOOP || n == 0 || n > 60) return -1;
  char b[72] = "MPI_";
  memcpy(b + 4, text, (size_t)n);
  if (b[4] >= 'a' && b[4] <= 'z') b[4] = (char)(b[4] - 'a' + 'A');
  return intern(c, b, (size_t)n + 4);
}

static double sum(const double *v, int n) {
  double s = 0;
  for (int i = 0; v && i < n; i++) s += v[i];
  return s;
}

/* The trace's sizes of a collective (obs_call.b1, b2). */
static void coll_sizes(obs_call *k, const tit_action *a) {
  k->b1 = a->bytes;
  k->b2 = a->bytes2;
  switch (a->kind) {
  case TIT_ALLTOALLV: k->b1 = sum(a->counts, a->ncounts); k->b2 = sum(a->counts2, a->ncounts); break;
  case TIT_GATHERV: case TIT_ALLGATHERV: k->b2 = sum(a->counts2, a->ncounts); break;
  case TIT_SCATTERV: k->b1 = sum(a->counts, a->ncounts); break;
  case TIT_REDUCESCATTER:
    k->b1 = sum(a->counts2, a->ncounts);
    k->b2 = a->counts2 && a->rank >= 0 && a->rank < a->ncounts ? a->counts2[a->rank] : 0;
    break;
  default: break;
  }
}

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len, double start,
                      double end) {
  obs_calls *c = ctx;
  if (rank < 0 || rank >= c->np) return;
  if (a->kind == TIT_LOCATION || a->kind == TIT_ITERATION) return;   /* markers, no time */
  obs_call k;
  memset(&k, 0, sizeof k);
  k.start = start;
  k.end = end;
  k.kind = a->kind;
  k.peer = k.peer2 = k.root = k.tag = -1;
  /* psim run names the MPI function and gives no fields (emu_observe.c); a replay's text is
   * the trace line, its fields the line's */
  k.known = !(len > 4 && !memcmp(text, "MPI_", 4)) || a->run_fields;
  if (a->kind == TIT_COMPUTE || a->kind == TIT_SLEEP) {
    k.role = a->kind == TIT_COMPUTE ? OC_COMPUTE : OC_SLEEP;
    k.name = -1;
  } else {
    k.name = function_of(c, a, text, len);
    if (k.name < 0) return;
    const char *f = c->names.data[k.name];
    switch (a->kind) {
    case TIT_SEND: k.role = OC_SEND; break;
    case TIT_ISEND: k.role = OC_ISEND; break;
    case TIT_RECV: k.role = strcmp(f, "MPI_Probe") ? OC_RECV : OC_MPI; break;
    case TIT_IRECV: k.role = OC_IRECV; break;
    case TIT_SENDRECV: k.role = OC_SENDRECV; break;
    case TIT_WAIT: case TIT_WAITALL: case TIT_TEST: k.role = strcmp(f, "MPI_Iprobe") ? OC_DONE : OC_MPI; break;
    default: k.role = is_coll(a->kind) ? OC_COLL : OC_MPI;
    }
    if (k.known) {
      k.peer = a->peer;
      k.tag = a->tag;
      if (a->kind == TIT_SENDRECV) { k.peer2 = a->peer2; k.tag = 0; }
      if (a->kind == TIT_BCAST || a->kind == TIT_REDUCE || a->kind == TIT_GATHER || a->kind == TIT_GATHERV ||
          a->kind == TIT_SCATTER || a->kind == TIT_SCATTERV)
        k.root = a->root;
      if (k.role == OC_COLL) coll_sizes(&k, a);
    }
  }
  VEC_PUSH(c->rank[rank], k);
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  obs_calls *c = ctx;
  if (send->src < 0 || send->src >= c->np || send->dst < 0 || send->dst >= c->np) return;
  obs_cmsg m;
  memset(&m, 0, sizeof m);
  m.src = send->src;
  m.dst = send->dst;
  m.tag = send->tag;
  m.coll = (send->ctx & 1) != 0;
  m.detached = send->detached;
  m.bytes = send->bytes;
  m.posted = send->posted;
  m.xstart = mpi_req_start_or_post(send);
  m.xend = send->xfer_end >= 0 ? send->xfer_end : m.xstart;
  m.rposted = recv ? recv->posted : -1;
  m.sseq = send->seq;
  m.rseq = recv ? recv->seq : 0;
  m.scall = m.rcall = m.ccall = m.sdone = -1;
  VEC_PUSH(c->msgs, m);
}

static void on_end(void *ctx, double time) { ((obs_calls *)ctx)->end = time; }

replay_observer obs_calls_observer(obs_calls *c) {
  return (replay_observer){.ctx = c, .action = on_action, .message = on_message, .end = on_end};
}

const char *obs_call_name(const obs_calls *c, const obs_call *k) {
  if (k->name >= 0 && (size_t)k->name < c->names.len) return c->names.data[k->name];
  return k->role == OC_SLEEP ? "sleep" : "compute";
}

/* ------------------------------------------------------------------ a rank's events */

static double clamp(double t, const obs_call *k) { return t < k->start ? k->start : t > k->end ? k->end : t; }

static int by_event(const void *a, const void *b) {
  const obs_mev *x = a, *y = b;
  if (x->call != y->call) return x->call < y->call ? -1 : 1;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->what != y->what) return x->what - y->what;
  return x->msg < y->msg ? -1 : x->msg > y->msg;
}

/* Every rank's events (c->ev), in one pass over the messages. */
static void make_events(obs_calls *c) {
  c->ev = xcalloc((size_t)(c->np > 0 ? c->np : 1), sizeof *c->ev);
  for (size_t i = 0; i < c->msgs.len; i++) {
    const obs_cmsg *m = &c->msgs.data[i];
    if (m->coll || m->scall < 0 || m->rcall < 0) continue;
    const obs_call *sk = c->rank[m->src].data, *dk = c->rank[m->dst].data;
    const obs_call *s = &sk[m->scall], *d = &dk[m->rcall];
    int blocking = s->role == OC_SEND;
    VEC_PUSH(c->ev[m->src], ((obs_mev){m->scall, clamp(m->posted, s), blocking ? OE_SEND : OE_ISEND, (long)i}));
    if (!blocking && m->sdone >= 0)
      VEC_PUSH(c->ev[m->src], ((obs_mev){m->sdone, clamp(m->detached ? m->posted : m->xend, &sk[m->sdone]),
                                         OE_ISEND_DONE, (long)i}));
    if (d->role == OC_RECV) {
      VEC_PUSH(c->ev[m->dst], ((obs_mev){m->rcall, clamp(m->xend, d), OE_RECV, (long)i}));
    } else {
      VEC_PUSH(c->ev[m->dst],
               ((obs_mev){m->rcall, clamp(m->rposted >= 0 ? m->rposted : d->start, d), OE_IRECV_POST, (long)i}));
      if (m->ccall >= 0)
        VEC_PUSH(c->ev[m->dst], ((obs_mev){m->ccall, clamp(m->xend, &dk[m->ccall]), OE_IRECV_DONE, (long)i}));
    }
  }
  for (int r = 0; r < c->np; r++)
    if (c->ev[r].len) qsort(c->ev[r].data, c->ev[r].len, sizeof *c->ev[r].data, by_event);
}

/* ------------------------------------------------------------------ attaching */

/* A rank's calls of some roles, as indices in date order. */
typedef VEC(long) idx_vec;

static int sends(int role) { return role == OC_SEND || role == OC_ISEND || role == OC_SENDRECV; }
static int recvs(int role) { return role == OC_RECV || role == OC_IRECV || role == OC_SENDRECV; }

static void list_roles(const obs_call_vec *v, int (*want)(int), int role, idx_vec *out) {
  out->len = 0;
  for (size_t i = 0; i < v->len; i++)
    if (want ? want(v->data[i].role) : v->data[i].role == role) VEC_PUSH(*out, (long)i);
}

/* First position in l whose call ends at or after t. */
static size_t first_ending(const obs_call_vec *v, const idx_vec *l, double t) {
  size_t lo = 0, hi = l->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->data[l->data[mid]].end < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* First position in l whose call index is after call i. */
static size_t first_after(const idx_vec *l, long i) {
  size_t lo = 0, hi = l->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->data[mid] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int send_fits(const obs_call *k, const obs_cmsg *m) {
  if (!k->known) return 1;
  return k->peer == m->dst && (k->role == OC_SENDRECV || k->tag == m->tag);
}

static int recv_fits(const obs_call *k, const obs_cmsg *m) {
  if (!k->known) return 1;
  int src = k->role == OC_SENDRECV ? k->peer2 : k->peer;
  return (src == m->src || src == MPI_L_ANY) && (k->role == OC_SENDRECV || k->tag == m->tag || k->tag == MPI_L_ANY);
}

/* Position after the last call of l entered at or before t. */
static size_t entered_by(const obs_call_vec *v, const idx_vec *l, double t) {
  size_t lo = 0, hi = l->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->data[l->data[mid]].start <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The call of l holding a send or a receive posted at date t: among those whose [start, end]
 * contains t, the one entered last (a call ending at t and the next one starting at t both
 * contain it: the message is the next one's, calls post at their start), the first of several
 * entered at the same date, unused and fitting m; marked used (bit). -1 when none. */
static long take_at(obs_call_vec *v, const idx_vec *l, double t, const obs_cmsg *m,
                    int (*fits)(const obs_call *, const obs_cmsg *), int bit) {
  size_t lo = first_ending(v, l, t), q = entered_by(v, l, t);
  while (q > lo) {
    double s = v->data[l->data[q - 1]].start;
    size_t g = q - 1;
    while (g > lo && v->data[l->data[g - 1]].start == s) g--;
    for (size_t i = g; i < q; i++) {
      obs_call *k = &v->data[l->data[i]];
      if ((k->used & bit) || !fits(k, m)) continue;
      k->used |= bit;
      return l->data[i];
    }
    q = g;
  }
  return -1;
}

/* The first unused call of l from position p on, fitting m, ending at or after t: the
 * receive that took a message which arrived before it was posted. */
static long take_after(obs_call_vec *v, const idx_vec *l, size_t p, const obs_cmsg *m) {
  for (size_t q = p; q < l->len; q++) {
    obs_call *k = &v->data[l->data[q]];
    if ((k->used & 2) || !recv_fits(k, m)) continue;
    k->used |= 2;
    return l->data[q];
  }
  return -1;
}

/* The first wait-like call of l after call `after` that ends at or after t. */
static long completion(const obs_call_vec *v, const idx_vec *l, long after, double t) {
  for (size_t q = first_after(l, after); q < l->len; q++)
    if (v->data[l->data[q]].end >= t) return l->data[q];
  return -1;
}

typedef struct { const obs_cmsg *m; long i; } msg_ref;

static int by_send(const void *a, const void *b) {
  const obs_cmsg *x = ((const msg_ref *)a)->m, *y = ((const msg_ref *)b)->m;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->posted != y->posted) return x->posted < y->posted ? -1 : 1;
  return x->sseq < y->sseq ? -1 : x->sseq > y->sseq;
}

static int by_recv(const void *a, const void *b) {
  const obs_cmsg *x = ((const msg_ref *)a)->m, *y = ((const msg_ref *)b)->m;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  int ux = x->rposted < 0, uy = y->rposted < 0;   /* known postings first */
  if (ux != uy) return ux - uy;
  double tx = ux ? x->posted : x->rposted, ty = uy ? y->posted : y->rposted;
  if (tx != ty) return tx < ty ? -1 : 1;
  uint64_t sx = ux ? x->sseq : x->rseq, sy = uy ? y->sseq : y->rseq;
  return sx < sy ? -1 : sx > sy;
}

static void attach_coll(obs_calls *c, obs_cmsg *m, const idx_vec *coll) {
  obs_call_vec *sv = &c->rank[m->src], *dv = &c->rank[m->dst];
  const idx_vec *sl = &coll[m->src], *dl = &coll[m->dst];
  /* the collective entered last by the send's (the receive's) posting, when it is not over */
  size_t p = entered_by(sv, sl, m->posted);
  if (p > 0 && sv->data[sl->data[p - 1]].end >= m->posted) {
    m->scall = sl->data[p - 1];
    sv->data[m->scall].moved_sent += m->bytes;
  }
  if (m->rposted >= 0) {
    p = entered_by(dv, dl, m->rposted);
    p = p > 0 && dv->data[dl->data[p - 1]].end >= m->rposted ? p - 1 : dl->len;
  } else {
    p = first_ending(dv, dl, m->xend);   /* it arrived first: the next collective took it */
  }
  if (p < dl->len) {
    m->rcall = dl->data[p];
    dv->data[m->rcall].moved_recvd += m->bytes;
  }
}

/* An MPI program's first and last calls, which a replay does not report (a trace's init and
 * finalize take no time): added at the rank's start and end when missing, as the tools
 * reading these formats expect them (Score-P's OTF2 reader in psim counts no compute before
 * the first MPI call). */
static void add_init_finalize(obs_calls *c, int r) {
  obs_call_vec *v = &c->rank[r];
  obs_call k;
  memset(&k, 0, sizeof k);
  k.role = OC_MPI;
  k.peer = k.peer2 = k.root = k.tag = -1;
  if (!v->len || v->data[0].kind != TIT_INIT) {
    k.kind = TIT_INIT;
    k.name = intern(c, "MPI_Init", 8);
    VEC_PUSH(*v, k);
    memmove(v->data + 1, v->data, (v->len - 1) * sizeof *v->data);
    v->data[0] = k;
  }
  if (v->data[v->len - 1].kind != TIT_FINALIZE) {
    k.kind = TIT_FINALIZE;
    k.name = intern(c, "MPI_Finalize", 12);
    k.start = k.end = v->data[v->len - 1].end;
    VEC_PUSH(*v, k);
  }
}

void obs_calls_attach(obs_calls *c) {
  int np = c->np;
  for (int r = 0; r < np; r++) {
    add_init_finalize(c, r);
    obs_call_vec *v = &c->rank[r];
    if (v->data[v->len - 1].end > c->end) c->end = v->data[v->len - 1].end;
  }
  if (c->end < 0) c->end = 0;
  /* per rank: send-like, receive-like, wait-like and collective calls */
  idx_vec *snd = xcalloc((size_t)np * 4 + 1, sizeof *snd);
  idx_vec *rcv = snd + np, *done = snd + 2 * np, *coll = snd + 3 * np;
  for (int r = 0; r < np; r++) {
    list_roles(&c->rank[r], sends, 0, &snd[r]);
    list_roles(&c->rank[r], recvs, 0, &rcv[r]);
    list_roles(&c->rank[r], NULL, OC_DONE, &done[r]);
    list_roles(&c->rank[r], NULL, OC_COLL, &coll[r]);
  }
  size_t n = c->msgs.len;
  msg_ref *ord = xcalloc(n + 1, sizeof *ord);
  size_t np2p = 0;
  for (size_t i = 0; i < n; i++) {
    obs_cmsg *m = &c->msgs.data[i];
    if (m->coll) attach_coll(c, m, coll);
    else ord[np2p++] = (msg_ref){m, (long)i};
  }
  /* sends: in posting order, each to the first unused fitting call containing its posting */
  if (np2p) qsort(ord, np2p, sizeof *ord, by_send);
  for (size_t i = 0; i < np2p; i++) {
    obs_cmsg *m = &c->msgs.data[ord[i].i];
    obs_call_vec *v = &c->rank[m->src];
    m->scall = take_at(v, &snd[m->src], m->posted, m, send_fits, 1);
  }
  /* receives: the known postings first, then the messages that arrived before theirs */
  if (np2p) qsort(ord, np2p, sizeof *ord, by_recv);
  for (size_t i = 0; i < np2p; i++) {
    obs_cmsg *m = &c->msgs.data[ord[i].i];
    obs_call_vec *v = &c->rank[m->dst];
    idx_vec *l = &rcv[m->dst];
    if (m->rposted >= 0) m->rcall = take_at(v, l, m->rposted, m, recv_fits, 2);
    else m->rcall = take_after(v, l, first_ending(v, l, m->xend), m);
  }
  for (size_t i = 0; i < np2p; i++) {
    obs_cmsg *m = &c->msgs.data[ord[i].i];
    if (m->scall < 0 || m->rcall < 0) continue;   /* not written as a message */
    const obs_call *s = &c->rank[m->src].data[m->scall], *d = &c->rank[m->dst].data[m->rcall];
    m->sdone = s->role == OC_ISEND ? completion(&c->rank[m->src], &done[m->src], m->scall,
                                                m->detached ? m->posted : m->xend)
                                   : m->scall;
    m->ccall = d->role == OC_IRECV ? completion(&c->rank[m->dst], &done[m->dst], m->rcall, m->xend) : m->rcall;
  }
  free(ord);
  for (int i = 0; i < 4 * np; i++) VEC_FREE(snd[i]);
  free(snd);
  make_events(c);
}

