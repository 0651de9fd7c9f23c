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
 * neighbour). The non-blocking forms run as the blocking ones and return a completed request,
 * as psim's other non-blocking collectives (rt_nbc.c). --trace-tit records the messages as
 * irecv and isend lines (bytes of MPI_BYTE, the collective's negative tags, which no program's
 * message has) and their wait, so that the trace replays to the run's time. */
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

/* --trace-tit: the receives, as posted (before the sends, which are recorded as they go) */
static void trace_recvs(emu_rank *k, const nbr *b, emu_req **er) {
  for (int i = 0; i < b->nin; i++) {
    if (!er[i]) continue;
    ++*emu_trace_npend(k);
    emu_trace_line(k, "irecv %d %d %zu %d", b->c->world[b->in[i]], b->tin[i], er[i]->rcap, emu_trace_dtcode(1));
  }
}

/* --trace-tit: their completion, one waitall when they were all the rank had pending (as
 * MPI_Waitall records it), else a wait each */
static void trace_waits(emu_rank *k, const nbr *b, emu_req **er, int npend0) {
  int n = b->nin + b->nout, m = 0;
  for (int i = 0; i < n; i++) m += er[i] != NULL;
  if (!m) return;
  if (npend0 == 0 && m > 1) emu_trace_line(k, "waitall");
  for (int i = 0; i < n; i++) {
    if (!er[i]) continue;
    int recv = i < b->nin, j = recv ? i : i - b->nin;
    int peer = b->c->world[recv ? b->in[j] : b->out[j]];
    if (!(npend0 == 0 && m > 1))
      emu_trace_line(k, "wait %d %d %d", recv ? peer : k->id, recv ? k->id : peer, recv ? b->tin[j] : b->tout[j]);
  }
  *emu_trace_npend(k) -= m;
}

/* The messages; then each block is unpacked where it belongs. */
static int nbr_run(nbr *b, const void *sbuf, void *rbuf) {
  emu_rank *k = emu_self();
  rt_comm *c = b->c;
  int ctx = 2 * c->id + 1, n = b->nin + b->nout;
  size_t total = 0, off = 0;
  for (int i = 0; i < b->nin; i++) {
    RT_CHECK_COUNT(b->rc[i]);
    if (b->in[i] != MPI_PROC_NULL) total += rt_pack_size(b->rt[i], b->rc[i]);
  }
  for (int j = 0; j < b->nout; j++) {
    RT_CHECK_COUNT(b->sc[j]);
    rt_type(b->st[j]);
  }
  char *stage = xmalloc(total + 1);
  emu_req **er = xcalloc((size_t)n + 1, sizeof *er);
  emu_hold(k, stage);
  emu_hold(k, er);
  for (int i = 0; i < b->nin; i++) {
    if (b->in[i] == MPI_PROC_NULL) continue;
    size_t cap = rt_pack_size(b->rt[i], b->rc[i]);
    er[i] = emu_irecv(c->world[b->in[i]], b->tin[i], ctx, stage + off, cap);
    off += cap;
  }
  int rec = emu_trace_on(k), npend0 = rec ? *emu_trace_npend(k) : 0;
  if (rec) trace_recvs(k, b, er);
  for (int j = 0; j < b->nout; j++) {
    if (b->out[j] == MPI_PROC_NULL) continue;
    size_t len;
    void *p = rt_pack_alloc((const char *)sbuf + b->sd[j], b->sc[j], b->st[j], &len);
    er[b->nin + j] = emu_isend(c->world[b->out[j]], b->tout[j], ctx, p, len, 1, 0, 0);
    if (rec) {
      ++*emu_trace_npend(k);
      emu_trace_line(k, "isend %d %d %zu %d", c->world[b->out[j]], b->tout[j], len, emu_trace_dtcode(1));
    }
  }
  emu_waitall_take(er, n);
  if (rec) trace_waits(k, b, er, npend0);
  off = 0;
  for (int i = 0; i < b->nin; i++) {
    if (!er[i]) continue;
    size_t cap = rt_pack_size(b->rt[i], b->rc[i]);
    if (er[i]->truncated)
      emu_fatal("source %d (rank %d) sends %zu bytes, the block received from it holds %zu (MPI_ERR_TRUNCATE)",
                i, b->in[i], er[i]->got, cap);
    rt_unpack(stage + off, er[i]->got, (char *)rbuf + b->rd[i], b->rc[i], b->rt[i]);
    off += cap;
  }
  for (int i = 0; i < n; i++) emu_req_free(er[i]);
  emu_release(k, stage);
  emu_release(k, er);
  free(stage);
  free(er);
  emu_release(k, b->arrays);
  emu_release(k, b->in);
  free(b->arrays);
  free(b->in);
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
                   int rcount, MPI_Datatype rtype, MPI_Comm comm, int consecutive) {
  nbr b;
  nbr_begin(&b, name, comm);
  same_sends(&b, scount, stype, consecutive);
  recv_blocks(&b, rcount, NULL, NULL, rtype);
  return nbr_run(&b, sbuf, rbuf);
}

int MPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return uniform("MPI_Neighbor_allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, 0);
}

int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const int rcounts[], const int displs[], MPI_Datatype rtype,
                            MPI_Comm comm) {
  nbr b;
  nbr_begin(&b, "MPI_Neighbor_allgatherv", comm);
  same_sends(&b, scount, stype, 0);
  recv_blocks(&b, 0, rcounts, displs, rtype);
  return nbr_run(&b, sbuf, rbuf);
}

int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return uniform("MPI_Neighbor_alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, 1);
}

int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  nbr b;
  nbr_begin(&b, "MPI_Neighbor_alltoallv", comm);
  MPI_Aint ext = rt_extent(stype);
  for (int j = 0; j < b.nout; j++) { b.sc[j] = scounts[j]; b.st[j] = stype; b.sd[j] = ext * sdispls[j]; }
  recv_blocks(&b, 0, rcounts, rdispls, rtype);
  return nbr_run(&b, sbuf, rbuf);
}

int MPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  nbr b;
  nbr_begin(&b, "MPI_Neighbor_alltoallw", comm);
  for (int j = 0; j < b.nout; j++) { b.sc[j] = scounts[j]; b.st[j] = stypes[j]; b.sd[j] = sdispls[j]; }
  for (int i = 0; i < b.nin; i++) { b.rc[i] = rcounts[i]; b.rt[i] = rtypes[i]; b.rd[i] = rdispls[i]; }
  return nbr_run(&b, sbuf, rbuf);
}

/* ---- the non-blocking forms: the blocking call, then a completed request ---- */

int MPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  RT_NBC(MPI_Neighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm), req);
}

int MPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request *req) {
  RT_NBC(MPI_Neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), req);
}

int MPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  RT_NBC(MPI_Neighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), req);
}

int MPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype stype, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request *req) {
  RT_NBC(MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), req);
}

int MPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                            MPI_Request *req) {
  RT_NBC(MPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), req);
}
