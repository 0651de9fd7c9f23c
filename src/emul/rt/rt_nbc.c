/* MPI_Alltoallw, and the non-blocking collectives (MPI_Ibarrier, MPI_Ibcast, ...).
 *
 * A non-blocking collective runs as its blocking version at the call and returns a request
 * that is already complete: the data are right and every rank's later calls see them, but the
 * collective's time is spent in the call instead of overlapping the computation that follows
 * (docs/EMULATION.md). Programs that start several collectives and then wait for them, or
 * that poll one with MPI_Test, run unchanged; a program whose ranks start collectives on the
 * same communicator in different orders (erroneous in MPI anyway) would deadlock. */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

/* ---- MPI_Alltoallw: a type and a byte displacement per peer ---- */

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                  void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
                  MPI_Comm comm) {
  emu_enter("MPI_Alltoallw");
  rt_need_init();
  rt_comm *c = rt_comm_get(comm);
  emu_rank *k = emu_self();
  k->call_peer = k->call_tag = -99;
  int me = rt_comm_rank(c), n = c->size;
  void *tmp = NULL;
  if (sbuf == MPI_IN_PLACE) {
    /* the receive buffer is also the send buffer: copy it before anything is overwritten */
    ptrdiff_t lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
      rt_dtype *t = rt_type(rtypes[i]);
      if (!rcounts[i]) continue;
      ptrdiff_t a = rdispls[i] + t->true_lb;
      ptrdiff_t b = rdispls[i] + (ptrdiff_t)(rcounts[i] - 1) * (t->ub - t->lb) + t->true_ub;
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    sbuf = rt_inplace_copy(rbuf, lo, hi, &tmp);
    scounts = rcounts;
    sdispls = rdispls;
    stypes = rtypes;
  }
  rt_slot *s = rt_slot_enter(c);
  size_t hdr = (size_t)(n + 1) * sizeof(size_t), total = 0;
  for (int i = 0; i < n; i++) {
    RT_CHECK_COUNT(scounts[i]);
    RT_CHECK_COUNT(rcounts[i]);
    total += rt_pack_size(stypes[i], scounts[i]);
  }
  char *blob = xmalloc(hdr + total + 1);
  size_t *off = (size_t *)blob, pos = 0;
  double *sc = xmalloc((size_t)n * sizeof *sc), *rc = xmalloc((size_t)n * sizeof *rc);
  for (int i = 0; i < n; i++) {
    off[i] = pos;
    rt_pack((const char *)sbuf + sdispls[i], scounts[i], stypes[i], blob + hdr + pos);
    pos += rt_pack_size(stypes[i], scounts[i]);
    sc[i] = (double)rt_pack_size(stypes[i], scounts[i]);
    rc[i] = (double)rt_pack_size(rtypes[i], rcounts[i]);
  }
  off[n] = pos;
  s->data[me] = blob;
  s->len[me] = hdr + total;
  free(tmp);
  /* timed as an alltoallv of the same byte counts (element size 1) */
  rt_alltoallv_bytes_timing(c, sc, rc);
  free(sc);
  free(rc);
  for (int i = 0; i < n; i++) {
    const size_t *o = s->data[i];
    if (!o) emu_fatal("internal error: contribution of rank %d missing", i);
    const char *piece = (const char *)s->data[i] + hdr + o[me];
    size_t got = o[me + 1] - o[me];
    if (got > rt_pack_size(rtypes[i], rcounts[i]))
      emu_fatal("MPI_Alltoallw: rank %d sends %zu bytes, rank %d receives %zu (MPI_ERR_TRUNCATE)", i, got, me, rt_pack_size(rtypes[i], rcounts[i]));
    rt_unpack(piece, got, (char *)rbuf + rdispls[i], rcounts[i], rtypes[i]);
  }
  rt_slot_leave(c, s);
  emu_leave();
  return MPI_SUCCESS;
}

/* ---- non-blocking collectives: the blocking call, then a completed request ---- */

#define NBC(call, req)                \
  do {                                \
    int rc_ = (call);                 \
    *(req) = rt_req_completed();      \
    return rc_;                       \
  } while (0)

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req) { NBC(MPI_Barrier(comm), req); }

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Bcast(buf, count, dt, root, comm), req);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Reduce(sbuf, rbuf, count, dt, op, root, comm), req);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Allreduce(sbuf, rbuf, count, dt, op, comm), req);
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), req);
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), req);
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), req);
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), req);
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm), req);
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request *req) {
  NBC(MPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), req);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), req);
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), req);
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request *req) {
  NBC(MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), req);
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm), req);
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm), req);
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              MPI_Request *req) {
  NBC(MPI_Scan(sbuf, rbuf, count, dt, op, comm), req);
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *req) {
  NBC(MPI_Exscan(sbuf, rbuf, count, dt, op, comm), req);
}
