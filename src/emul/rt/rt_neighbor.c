/* Neighbourhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their
 * MPI_Ineighbor_* forms) on Cartesian, graph and distributed graph communicators.
 *
 * Each is what a program would write by hand, so its simulated time is the network model's
 * for those messages: a receive posted from each source (in MPI's order of the sources), then
 * a non-blocking send to each destination (in MPI's order), then a wait for all of them, taken
 * as MPI_Waitall takes them (SMPI's loop of waitany). The messages travel on the
 * communicator's collective context (a program's own receives cannot take them) with the tags
 * rt_topo_neighbors gives; MPI_PROC_NULL neighbours of a Cartesian grid are skipped (their
 * blocks of the receive buffer are left as they are). Every variant is expressed as
 * MPI_Neighbor_alltoallw's general form (a count, a byte displacement and a datatype per
 * neighbour). The MPI_Ineighbor_* forms post the same messages and return a request (RQ_NBR,
 * completed by MPI_Wait, MPI_Test... in rt_p2p.c) that is complete when all of them are: the
 * exchange overlaps what the rank does meanwhile, as a hand-written MPI_Isend/MPI_Irecv
 * exchange would (psim's other non-blocking collectives run at the call, rt_nbc.c). Blocks
 * received are unpacked when the request completes. --trace-tit records the messages as irecv
 * and isend lines (bytes of MPI_BYTE, the collective's negative tags, which no program's
 * message has) and their waits, so that the trace replays to the run's time. */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

typedef struct nbr {
  rt_comm *c;
  int nin, nout;
  int *in, *tin, *out, *tout;   /* rt_topo_neighbors' block */
  int *rc, *sc;                 /* per source / destination: count */
  MPI_Aint *rd, *sd;            /* byte displacement */
  MPI_Datatype *rt, *st;        /* datatype */
  void *arrays;                 /* the block of rc..st */
} nbr;

/* Enters the call and finds the neighbours; the caller fills rc..st. */
static void nbr_begin(nbr *b, const char *name, MPI_Comm comm) {
  emu_enter(name);
  rt_need_init();
  emu_rank *k = emu_self();
  k->call_peer = k->call_tag = -99;
  b->c = rt_comm_get(comm);
  rt_no_inter(b->c, name);
  rt_topo_neighbors(b->c, name, &b->nin, &b->in, &b->tin, &b->nout, &b->out, &b->tout);
  size_t n = (size_t)(b->nin + b->nout) + 1;
  char *p = xmalloc(n * (sizeof(int) + sizeof(MPI_Aint) + sizeof(MPI_Datatype)));
  b->arrays = p;
  b->rd = (MPI_Aint *)p;
  b->sd = b->rd + b->nin;
  b->rc = (int *)(b->rd + n);
  b->sc = b->rc + b->nin;
  b->rt = b->rc + n;
  b->st = b->rt + b->nin;
  emu_hold(k, b->arrays);   /* freed by the run's teardown if the run stops meanwhile */
  emu_hold(k, b->in);
}

/* A started neighbourhood collective: its messages (nin receive slots, then the sends; NULL
 * for MPI_PROC_NULL) and where each block received goes. One block of memory, with its
 * staging buffer apart. */
struct rt_nbr_op {
  int n, nin;
  emu_req **er;
  int *peer, *tag;            /* world rank and tag of each message */
  void **dst;                 /* receive slot i: count[i] of type[i] at dst[i], cap[i] bytes */
  int *count;
  MPI_Datatype *type;
  size_t *cap;
  char *stage;
  int traced;                 /* recorded by --trace-tit */
};

static struct rt_nbr_op *op_new(int nin, int nout) {
  size_t n = (size_t)(nin + nout) + 1;
  struct rt_nbr_op *op = xcalloc(1, sizeof *op + n * (sizeof(emu_req *) + sizeof(void *) + sizeof(size_t) +
                                                      4 * sizeof(int)));
  op->n = nin + nout;
  op->nin = nin;
  op->er = (emu_req **)(op + 1);
  op->dst = (void **)(op->er + n);
  op->cap = (size_t *)(op->dst + n);
  op->peer = (int *)(op->cap + n);
  op->tag = op->peer + n;
  op->count = op->tag + n;
  op->type = op->count + n;
  return op;
}

/* Posts the receives (in MPI's order of the sources), then the sends (of the destinations);
 * --trace-tit records them as they go. Frees what nbr_begin made. */
static struct rt_nbr_op *nbr_start(nbr *b, const void *sbuf, void *rbuf) {
  emu_rank *k = emu_self();
  rt_comm *c = b->c;
  int ctx = 2 * c->id + 1;
  size_t total = 0, off = 0;
  for (int i = 0; i < b->nin; i++) {
    RT_CHECK_COUNT(b->rc[i]);
    if (b->in[i] != MPI_PROC_NULL) total += rt_pack_size(b->rt[i], b->rc[i]);
  }
  for (int j = 0; j < b->nout; j++) {
    RT_CHECK_COUNT(b->sc[j]);
    rt_type(b->st[j]);
  }
  struct rt_nbr_op *op = op_new(b->nin, b->nout);
  op->stage = xmalloc(total + 1);
  op->traced = emu_trace_on(k);
  for (int i = 0; i < b->nin; i++) {
    if (b->in[i] == MPI_PROC_NULL) continue;
    op->cap[i] = rt_pack_size(b->rt[i], b->rc[i]);
    op->dst[i] = (char *)rbuf + b->rd[i];
    op->count[i] = b->rc[i];
    op->type[i] = b->rt[i];
    op->peer[i] = c->world[b->in[i]];
    op->tag[i] = b->tin[i];
    op->er[i] = emu_irecv(op->peer[i], op->tag[i], ctx, op->stage + off, op->cap[i]);
    off += op->cap[i];
    if (op->traced) {
      ++*emu_trace_npend(k);
      emu_trace_line(k, "irecv %d %d %zu %d", op->peer[i], op->tag[i], op->cap[i], emu_trace_dtcode(1));
    }
  }
  for (int j = 0; j < b->nout; j++) {
    if (b->out[j] == MPI_PROC_NULL) continue;
    int m = b->nin + j;
    size_t len;
    void *p = rt_pack_alloc((const char *)sbuf + b->sd[j], b->sc[j], b->st[j], &len);
    op->peer[m] = c->world[b->out[j]];
    op->tag[m] = b->tout[j];
    op->er[m] = emu_isend(op->peer[m], op->tag[m], ctx, p, len, 1, 0, 0);
    if (op->traced) {
      ++*emu_trace_npend(k);
      emu_trace_line(k, "isend %d %d %zu %d", op->peer[m], op->tag[m], len, emu_trace_dtcode(1));
    }
  }
  emu_release(k, b->arrays);
  emu_release(k, b->in);
  free(b->arrays);
  free(b->in);
  return op;
}

/* --trace-tit: the messages' completion, one waitall when they are all the rank has pending
 * (as MPI_Waitall records it), else a wait each */
static void trace_waits(emu_rank *k, const struct rt_nbr_op *op) {
  int m = 0;
  for (int i = 0; i < op->n; i++) m += op->er[i] != NULL;
  if (!m) return;
  int all = m > 1 && *emu_trace_npend(k) == m;
  if (all) emu_trace_line(k, "waitall");
  for (int i = 0; i < op->n && !all; i++) {
    if (!op->er[i]) continue;
    int recv = i < op->nin;
    emu_trace_line(k, "wait %d %d %d", recv ? op->peer[i] : k->id, recv ? k->id : op->peer[i], op->tag[i]);
  }
  *emu_trace_npend(k) -= m;
}

/* Waits for every message (taken as MPI_Waitall takes them), unpacks the blocks, frees op. */
static void nbr_end(struct rt_nbr_op *op) {
  emu_rank *k = emu_self();
  emu_waitall_take(op->er, op->n);
  if (op->traced) trace_waits(k, op);
  size_t off = 0;
  for (int i = 0; i < op->nin; i++) {
    if (!op->er[i]) continue;
    if (op->er[i]->truncated)
      emu_fatal("source %d (rank %d) sends %zu bytes, the block received from it holds %zu (MPI_ERR_TRUNCATE)",
                i, op->peer[i], op->er[i]->got, op->cap[i]);
    rt_unpack(op->stage + off, op->er[i]->got, op->dst[i], op->count[i], op->type[i]);
    off += op->cap[i];
  }
  for (int i = 0; i < op->n; i++) emu_req_free(op->er[i]);
  free(op->stage);
  free(op);
}

emu_req *rt_nbr_waitable(const struct rt_nbr_op *op) {
  for (int i = 0; i < op->n; i++)
    if (op->er[i] && !op->er[i]->done) return op->er[i];
  return NULL;
}

int rt_nbr_done(const struct rt_nbr_op *op) { return !rt_nbr_waitable(op); }

void rt_nbr_finish(struct rt_nbr_op *op) { nbr_end(op); }

void rt_nbr_discard(struct rt_nbr_op *op) {
  if (!op) return;
  free(op->stage);
  free(op);
}

/* The blocking call (req NULL): start, wait, unpack. The non-blocking one: start, and return
 * a request (RQ_NBR) that MPI_Wait, MPI_Test... complete, so that the messages overlap what
 * the rank does meanwhile. */
static int nbr_go(nbr *b, const void *sbuf, void *rbuf, MPI_Request *req) {
  struct rt_nbr_op *op = nbr_start(b, sbuf, rbuf);
  if (!req) {
    emu_rank *k = emu_self();
    char *stage = op->stage;
    emu_hold(k, stage);   /* freed by the run's teardown if the run stops meanwhile */
    emu_hold(k, op);
    nbr_end(op);
    emu_release(k, stage);
    emu_release(k, op);
  } else {
    *req = rt_req_completed();
    rt_req *r = rt_req_at(*req);
    r->kind = RQ_NBR;
    r->active = 1;
    r->comm = b->c;
    r->nbr = op;
  }
  emu_leave();
  return MPI_SUCCESS;
}

/* The same count and type for every destination, from displacements 0 (allgather) or from
 * consecutive blocks (alltoall). */
static void same_sends(nbr *b, int count, MPI_Datatype dt, int consecutive) {
  MPI_Aint ext = consecutive ? rt_extent(dt) * count : 0;
  for (int j = 0; j < b->nout; j++) { b->sc[j] = count; b->st[j] = dt; b->sd[j] = ext * j; }
}

/* counts[i] elements of dt at displs[i] extents (NULL: consecutive blocks of count). */
static void recv_blocks(nbr *b, int count, const int *counts, const int *displs, MPI_Datatype dt) {
  MPI_Aint ext = rt_extent(dt);
  for (int i = 0; i < b->nin; i++) {
    b->rc[i] = counts ? counts[i] : count;
    b->rd[i] = displs ? ext * displs[i] : ext * count * i;
    b->rt[i] = dt;
  }
}

/* allgather (the same block to all) and alltoall (consecutive blocks): rcount of rtype from
 * each source, in consecutive blocks */
static int uniform(const char *name, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   int rcount, MPI_Datatype rtype, MPI_Comm comm, int consecutive, MPI_Request *req) {
  nbr b;
  nbr_begin(&b, name, comm);
  same_sends(&b, scount, stype, consecutive);
  recv_blocks(&b, rcount, NULL, NULL, rtype);
  return nbr_go(&b, sbuf, rbuf, req);
}

static int allgatherv(const char *name, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                      MPI_Request *req) {
  nbr b;
  nbr_begin(&b, name, comm);
  same_sends(&b, scount, stype, 0);
  recv_blocks(&b, 0, rcounts, displs, rtype);
  return nbr_go(&b, sbuf, rbuf, req);
}

static int alltoallv(const char *name, const void *sbuf, const int scounts[], const int sdispls[],
                     MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  nbr b;
  nbr_begin(&b, name, comm);
  MPI_Aint ext = rt_extent(stype);
  for (int j = 0; j < b.nout; j++) { b.sc[j] = scounts[j]; b.st[j] = stype; b.sd[j] = ext * sdispls[j]; }
  recv_blocks(&b, 0, rcounts, rdispls, rtype);
  return nbr_go(&b, sbuf, rbuf, req);
}

static int alltoallw(const char *name, const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                     MPI_Request *req) {
  nbr b;
  nbr_begin(&b, name, comm);
  for (int j = 0; j < b.nout; j++) { b.sc[j] = scounts[j]; b.st[j] = stypes[j]; b.sd[j] = sdispls[j]; }
  for (int i = 0; i < b.nin; i++) { b.rc[i] = rcounts[i]; b.rt[i] = rtypes[i]; b.rd[i] = rdispls[i]; }
  return nbr_go(&b, sbuf, rbuf, req);
}

int MPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return uniform("MPI_Neighbor_allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, 0, NULL);
}

int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const int rcounts[], const int displs[], MPI_Datatype rtype,
                            MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, NULL);
}

int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return uniform("MPI_Neighbor_alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, 1, NULL);
}

int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                   rtype, comm, NULL);
}

int MPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                   rtypes, comm, NULL);
}

/* ---- the non-blocking forms: the messages start at the call, the request completes with
 * the last of them ---- */

int MPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  return uniform("MPI_Ineighbor_allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, 0, req);
}

int MPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request *req) {
  return allgatherv("MPI_Ineighbor_allgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);
}

int MPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  return uniform("MPI_Ineighbor_alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, 1, req);
}

int MPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype stype, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request *req) {
  return alltoallv("MPI_Ineighbor_alltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                   rtype, comm, req);
}

int MPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                            MPI_Request *req) {
  return alltoallw("MPI_Ineighbor_alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                   rtypes, comm, req);
}
