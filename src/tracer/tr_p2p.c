/* Point-to-point calls of a real run as TIT actions, as psim run records them
 * (src/emul/rt/rt_p2p.c): blocking calls as `send`/`recv` once complete; non-blocking ones
 * as `isend` when posted and `irecv` with the source and tag that matched (a hole in the
 * rank's lines until then), and their completion as `wait SRC DST TAG`, or `waitall` when
 * MPI_Waitall completes every request the rank has pending (replay's waitall waits for all
 * of them). Ranks are MPI_COMM_WORLD's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tracer.h"

enum { RQ_SEND, RQ_RECV };

typedef struct rq {
  MPI_Request key;
  int used, kind;
  int peer, tag;         /* a send's world destination; a receive's posted source (comm rank) */
  int esize;             /* element size of the datatype: the line's code */
  MPI_Comm comm;
  long hole;             /* a receive's reserved irecv line */
  double bytes;          /* a receive's posted size */
} rq;

/* The traced requests, by handle: open addressing, linear probing. */
static rq *tab;
static size_t cap, used;

static size_t hash(MPI_Request r) {
  uint64_t h = 0;
  memcpy(&h, &r, sizeof r < sizeof h ? sizeof r : sizeof h);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return (size_t)h;
}

static rq *find(MPI_Request r) {
  if (!used || r == MPI_REQUEST_NULL) return NULL;
  for (size_t i = hash(r) & (cap - 1);; i = (i + 1) & (cap - 1)) {
    if (!tab[i].used) return NULL;
    if (tab[i].key == r) return &tab[i];
  }
}

static rq *add(MPI_Request r) {
  if (2 * (used + 1) > cap) {
    size_t oc = cap;
    rq *old = tab;
    cap = cap ? 2 * cap : 256;
    tab = calloc(cap, sizeof *tab);
    if (!tab) abort();
    used = 0;
    for (size_t i = 0; i < oc; i++)
      if (old[i].used) *add(old[i].key) = old[i];
    free(old);
  }
  size_t i = hash(r) & (cap - 1);
  while (tab[i].used) i = (i + 1) & (cap - 1);
  memset(&tab[i], 0, sizeof tab[i]);
  tab[i].used = 1;
  tab[i].key = r;
  used++;
  return &tab[i];
}

/* Removal without tombstones: the entries after it that probed past it move back. */
static void del(rq *e) {
  size_t i = (size_t)(e - tab);
  tab[i].used = 0;
  used--;
  for (size_t j = (i + 1) & (cap - 1); tab[j].used; j = (j + 1) & (cap - 1)) {
    size_t h = hash(tab[j].key) & (cap - 1);
    /* tab[j] may fill the gap at i when its home h is not in (i, j] cyclically */
    if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
      tab[i] = tab[j];
      tab[j].used = 0;
      i = j;
    }
  }
}

static int world_peer(MPI_Comm comm, int r) {
  if (comm == MPI_COMM_WORLD) return r;
  tr.count[TRC_OTHER_COMM_P2P]++;
  return tr_world_rank(comm, r);
}

static void line_amount(const char *act, int peer, int tag, double bytes, int esize) {
  double n;
  int code;
  tr_amount(bytes, esize, &n, &code);
  tr_line("%s %d %d %lld %d", act, peer, tag, (long long)n, code);   /* n is whole: faster than %.0f */
}

static void fill_recv(long hole, int src, int tag, double bytes, int esize) {
  double n;
  int code;
  tr_amount(bytes, esize, &n, &code);
  tr_fill(hole, "irecv %d %d %lld %d", src, tag, (long long)n, code);
}

static double status_bytes(const MPI_Status *st) {
  int n = 0;
  PMPI_Get_count(st, MPI_BYTE, &n);
  return n == MPI_UNDEFINED ? 0 : (double)n;
}

/* A traced request completed with status st: its irecv line, then its wait (unless quiet:
 * a waitall line stands for it). */
static void done(rq *e, const MPI_Status *st, int quiet) {
  int src = tr.rank, dst = tr.rank, tag = e->tag;
  if (e->kind == RQ_SEND) {
    dst = e->peer;
  } else {
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) {   /* the irecv never happened: its reserved line becomes a no-op */
      tr_fill(e->hole, "compute 0");
      tr.npend--;
      del(e);
      return;
    }
    src = tr_world_rank(e->comm, st->MPI_SOURCE);
    tag = st->MPI_TAG;
    fill_recv(e->hole, src, tag, status_bytes(st), e->esize);
  }
  tr.npend--;
  del(e);
  if (!quiet) tr_line("wait %d %d %d", src, dst, tag);
}

static void post_send(MPI_Request r, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  if (dest == MPI_PROC_NULL) return;
  int w = world_peer(comm, dest), es = tr_type_size(dt);
  line_amount("isend", w, tag, (double)count * es, es);
  tr.npend++;
  rq *e = add(r);
  e->kind = RQ_SEND;
  e->peer = w;
  e->tag = tag;
}

#define ISEND(NAME)                                                                          \
  int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,    \
           MPI_Request *req) {                                                               \
    if (!tr_enter()) return P##NAME(buf, count, dt, dest, tag, comm, req);                   \
    int rc = P##NAME(buf, count, dt, dest, tag, comm, req);                                  \
    if (rc == MPI_SUCCESS) post_send(*req, count, dt, dest, tag, comm);                      \
    tr_leave();                                                                              \
    return rc;                                                                               \
  }
ISEND(MPI_Isend)
ISEND(MPI_Issend)
ISEND(MPI_Irsend)
ISEND(MPI_Ibsend)

/* Every blocking send is a `send`: TIT has no synchronous, ready or buffered modes. */
#define SEND(NAME)                                                                           \
  int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {  \
    if (!tr_enter()) return P##NAME(buf, count, dt, dest, tag, comm);                        \
    int rc = P##NAME(buf, count, dt, dest, tag, comm);                                       \
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {                                        \
      int es = tr_type_size(dt);                                                             \
      line_amount("send", world_peer(comm, dest), tag, (double)count * es, es);              \
    }                                                                                        \
    tr_leave();                                                                              \
    return rc;                                                                               \
  }
SEND(MPI_Send)
SEND(MPI_Ssend)
SEND(MPI_Rsend)
SEND(MPI_Bsend)

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req) {
  if (!tr_enter()) return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
  int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
  if (rc == MPI_SUCCESS && src != MPI_PROC_NULL) {
    if (comm != MPI_COMM_WORLD) tr.count[TRC_OTHER_COMM_P2P]++;
    rq *e = add(*req);
    e->kind = RQ_RECV;
    e->peer = src;
    e->tag = tag;
    e->esize = tr_type_size(dt);
    e->bytes = (double)count * e->esize;
    e->comm = comm;
    e->hole = tr_hole();
    tr.npend++;
  }
  tr_leave();
  return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Recv(buf, count, dt, src, tag, comm, st);
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
  if (rc == MPI_SUCCESS && src != MPI_PROC_NULL)
    line_amount("recv", world_peer(comm, st->MPI_SOURCE), st->MPI_TAG, status_bytes(st), tr_type_size(dt));
  tr_leave();
  return rc;
}

/* As psim run records it: isend, irecv, then the send's wait and the receive's. */
static void sendrecv_trace(int rc, int dest, int stag, MPI_Datatype rtype, int src, MPI_Comm comm,
                           const MPI_Status *st, long hole) {
  if (rc != MPI_SUCCESS) return;
  if (dest != MPI_PROC_NULL) {
    tr.npend--;
    tr_line("wait %d %d %d", tr.rank, world_peer(comm, dest), stag);
  }
  if (src != MPI_PROC_NULL) {
    tr.npend--;
    int w = world_peer(comm, st->MPI_SOURCE);
    fill_recv(hole, w, st->MPI_TAG, status_bytes(st), tr_type_size(rtype));
    tr_line("wait %d %d %d", w, tr.rank, st->MPI_TAG);
  }
}

/* sbytes of elements of ses bytes */
static long sendrecv_post(double sbytes, int ses, int dest, int stag, int src, MPI_Comm comm) {
  long hole = 0;
  if (dest != MPI_PROC_NULL) {
    line_amount("isend", world_peer(comm, dest), stag, sbytes, ses);
    tr.npend++;
  }
  if (src != MPI_PROC_NULL) { hole = tr_hole(); tr.npend++; }
  return hole;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st) {
  if (!tr_enter())
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st);
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  int es = tr_type_size(stype);
  long hole = sendrecv_post((double)scount * es, es, dest, stag, src, comm);
  int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st);
  if (rc != MPI_SUCCESS && src != MPI_PROC_NULL) tr_fill(hole, "compute 0");
  sendrecv_trace(rc, dest, stag, rtype, src, comm, st, hole);
  tr_leave();
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src, int rtag,
                         MPI_Comm comm, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, st);
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  /* psim run sends the packed buffer as MPI_BYTE (src/emul/rt/rt_p2p.c): bytes, code 6 */
  long hole = sendrecv_post((double)count * tr_type_size(dt), 1, dest, stag, src, comm);
  int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, st);
  if (rc != MPI_SUCCESS && src != MPI_PROC_NULL) tr_fill(hole, "compute 0");
  sendrecv_trace(rc, dest, stag, dt, src, comm, st, hole);
  tr_leave();
  return rc;
}

/* A wait on requests the trace has no line for (a non-blocking collective's, a persistent
 * one's): the time it took, as a sleep. */
static void untraced_wait(void) { tr_opaque(TRC_UNTRACED_WAIT); }

int MPI_Wait(MPI_Request *req, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Wait(req, st);
  MPI_Request h = *req;
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  int rc = PMPI_Wait(req, st);
  rq *e = find(h);
  if (e) done(e, st, 0);
  else if (h != MPI_REQUEST_NULL) untraced_wait();
  tr_leave();
  return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Test(req, flag, st);
  MPI_Request h = *req;
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  int rc = PMPI_Test(req, flag, st);
  rq *e = *flag ? find(h) : NULL;
  if (e) done(e, st, 0);
  if (!*flag) tr_polled();
  tr_leave();
  return rc;
}

/* Copies of the handles (the MPI nulls completed ones) and statuses to read the sources from. */
typedef struct multi {
  MPI_Request hs[32], *h;
  MPI_Status ss[32], *s;
} multi;

static MPI_Status *multi_begin(multi *m, int n, const MPI_Request *reqs, MPI_Status *sts) {
  m->h = n <= 32 ? m->hs : malloc((size_t)n * sizeof *m->h);
  m->s = NULL;
  if (!m->h) abort();
  memcpy(m->h, reqs, (size_t)n * sizeof *m->h);
  if (sts != MPI_STATUSES_IGNORE) return sts;
  m->s = n <= 32 ? m->ss : malloc((size_t)n * sizeof *m->s);
  if (!m->s) abort();
  return m->s;
}

static void multi_end(multi *m) {
  if (m->h != m->hs) free(m->h);
  if (m->s && m->s != m->ss) free(m->s);
}

/* The completed requests idx[0..k) (all of them when idx is NULL and k = n). */
static void multi_done(multi *m, const MPI_Status *sts, const int *idx, int k, int blocking) {
  int ntraced = 0, any = 0;
  for (int j = 0; j < k; j++) {
    int i = idx ? idx[j] : j;
    if (m->h[i] == MPI_REQUEST_NULL) continue;
    any = 1;
    if (find(m->h[i])) ntraced++;
  }
  int quiet = !idx && ntraced > 1 && ntraced == tr.npend;
  if (quiet) tr_line("waitall");
  for (int j = 0; j < k; j++) {
    int i = idx ? idx[j] : j;
    rq *e = find(m->h[i]);
    if (e) done(e, &sts[idx ? j : i], quiet);
  }
  if (blocking && any && !ntraced) untraced_wait();
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[]) {
  if (!tr_enter()) return PMPI_Waitall(n, reqs, sts);
  multi m;
  MPI_Status *s = multi_begin(&m, n, reqs, sts);
  int rc = PMPI_Waitall(n, reqs, s);
  multi_done(&m, s, NULL, n, 1);
  multi_end(&m);
  tr_leave();
  return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[]) {
  if (!tr_enter()) return PMPI_Testall(n, reqs, flag, sts);
  multi m;
  MPI_Status *s = multi_begin(&m, n, reqs, sts);
  int rc = PMPI_Testall(n, reqs, flag, s);
  if (*flag) {   /* per request: a test is not replay's waitall */
    int *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    if (!idx) abort();
    for (int i = 0; i < n; i++) idx[i] = i;
    multi_done(&m, s, idx, n, 0);
    free(idx);
  } else {
    tr_polled();
  }
  multi_end(&m);
  tr_leave();
  return rc;
}

static int any_common(int test, int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st) {
  multi m;
  MPI_Status mine;
  if (st == MPI_STATUS_IGNORE) st = &mine;
  multi_begin(&m, n, reqs, MPI_STATUS_IGNORE);
  int f = 1;
  int rc = test ? PMPI_Testany(n, reqs, index, &f, st) : PMPI_Waitany(n, reqs, index, st);
  if (flag) *flag = f;
  if (f && *index != MPI_UNDEFINED) {
    rq *e = find(m.h[*index]);
    if (e) done(e, st, 0);
    else if (!test) untraced_wait();
  } else if (test) {
    tr_polled();
  }
  multi_end(&m);
  return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Waitany(n, reqs, index, st);
  int rc = any_common(0, n, reqs, index, NULL, st);
  tr_leave();
  return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Testany(n, reqs, index, flag, st);
  int rc = any_common(1, n, reqs, index, flag, st);
  tr_leave();
  return rc;
}

static int some_common(int test, int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]) {
  multi m;
  MPI_Status *s = multi_begin(&m, n, reqs, sts);
  int rc = test ? PMPI_Testsome(n, reqs, outcount, idx, s) : PMPI_Waitsome(n, reqs, outcount, idx, s);
  if (*outcount != MPI_UNDEFINED && *outcount > 0) multi_done(&m, s, idx, *outcount, !test);
  else if (test) tr_polled();
  multi_end(&m);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]) {
  if (!tr_enter()) return PMPI_Waitsome(n, reqs, outcount, idx, sts);
  int rc = some_common(0, n, reqs, outcount, idx, sts);
  tr_leave();
  return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]) {
  if (!tr_enter()) return PMPI_Testsome(n, reqs, outcount, idx, sts);
  int rc = some_common(1, n, reqs, outcount, idx, sts);
  tr_leave();
  return rc;
}

/* A receive that will never be waited: its posted form (ANY_SOURCE as 0, as psim run). */
static void fill_posted(rq *e) {
  int src = e->peer == MPI_ANY_SOURCE ? 0 : tr_world_rank(e->comm, e->peer);
  fill_recv(e->hole, src, e->tag < 0 ? 0 : e->tag, e->bytes, e->esize);
}

int MPI_Request_free(MPI_Request *req) {
  if (!tr_enter()) return PMPI_Request_free(req);
  rq *e = find(*req);
  if (e) {   /* a send stays pending for replay, which waits for it at the end of the rank */
    if (e->kind == RQ_RECV) fill_posted(e);
    del(e);
  }
  int rc = PMPI_Request_free(req);
  tr_leave();
  return rc;
}

void tr_req_finish(void) {
  for (size_t i = 0; i < cap; i++)
    if (tab[i].used && tab[i].kind == RQ_RECV) fill_posted(&tab[i]);
  free(tab);
  tab = NULL;
  cap = used = 0;
}

/* Probes write no action of their own (the receive that follows does); one that finds nothing
 * is polling time, a sleep. MPI_Probe's wait is the receive's in a replay. */
int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Iprobe(src, tag, comm, flag, st);
  int rc = PMPI_Iprobe(src, tag, comm, flag, st);
  if (!*flag) tr_polled();
  tr_leave();
  return rc;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st) {
  if (!tr_enter()) return PMPI_Probe(src, tag, comm, st);
  int rc = PMPI_Probe(src, tag, comm, st);
  tr_leave();
  return rc;
}
