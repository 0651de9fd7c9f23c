/* Collectives on MPI_COMM_WORLD (or a communicator with its ranks in its order) as their TIT
 * action, with the sizes and datatype codes psim run writes for the same call
 * (src/emul/rt/rt_coll.c's trace_action: sizes are bytes as counts of elements of one code,
 * the element size of the datatype that call would use; MPI_BYTE's when a size is not a
 * whole count). On another communicator TIT has no way to say which ranks take part: the
 * call becomes `sleep` of its measured time, counted for the warning at MPI_Finalize. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer.h"

/* A code for element size es in which every vals[0..n) is a whole count, else MPI_BYTE's;
 * *csz receives the code's size (rt_coll.c's trace_code). */
static int code_for(int es, const double *vals, int n, int *csz) {
  int code = tr_dtcode(es > 0 ? es : 1);
  int sz = code == 6 ? 1 : es;
  for (int i = 0; i < n && sz > 1; i++)
    if (fmod(vals[i], sz) != 0) { code = 6; sz = 1; }
  *csz = sz;
  return code;
}

/* " c_0 ... c_{n-1}" in elements of csz bytes; caller frees. */
static char *counts_text(const double *v, int n, int csz) {
  size_t cap = (size_t)n * 24 + 1, len = 0;
  char *s = malloc(cap);
  if (!s) abort();
  s[0] = 0;
  for (int i = 0; i < n; i++) len += (size_t)snprintf(s + len, cap - len, " %.0f", v[i] / csz);
  return s;
}

/* bytes of count elements of dt */
static double nbytes(MPI_Datatype dt, int count) { return (double)count * tr_type_size(dt); }

static double *bytes_of(const int *counts, MPI_Datatype dt, int n, int significant) {
  double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
  if (!v) abort();
  if (significant)
    for (int i = 0; i < n; i++) v[i] = nbytes(dt, counts[i]);
  return v;
}

static int comm_rank(MPI_Comm c) { int r; PMPI_Comm_rank(c, &r); return r; }

/* Every wrapper: untraced -> PMPI alone; traced on a world-shaped communicator -> CALL then
 * RECORD; on another -> CALL then a sleep. */
#define COLL(CALL, RECORD)                                               \
  if (!tr_enter()) return CALL;                                          \
  int rc = CALL;                                                         \
  if (rc == MPI_SUCCESS) {                                               \
    if (tr_world_shaped(comm)) { RECORD; }                               \
    else tr_opaque(TRC_OTHER_COMM_COLL);                                 \
  }                                                                      \
  tr_leave();                                                            \
  return rc;

/* one size and one code: bcast, reduce, allreduce, scan, exscan */
static void rec_one(const char *fmt1, const char *name, double bytes, int es, int root) {
  int cs, sc = code_for(es, &bytes, 1, &cs);
  if (root >= 0) tr_line(fmt1, name, bytes / cs, root, sc);
  else tr_line(fmt1, name, bytes / cs, sc);
}

int MPI_Barrier(MPI_Comm comm) { COLL(PMPI_Barrier(comm), tr_line("barrier")) }

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  COLL(PMPI_Bcast(buf, count, dt, root, comm),
       rec_one("%s %.0f %d %d", "bcast", nbytes(dt, count), tr_type_size(dt), root))
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  COLL(PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm),
       rec_one("%s %.0f 0 %d %d", "reduce", nbytes(dt, count), tr_type_size(dt), root))
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  COLL(PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm),
       rec_one("%s %.0f 0 %d", "allreduce", nbytes(dt, count), tr_type_size(dt), -1))
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  COLL(PMPI_Scan(sbuf, rbuf, count, dt, op, comm),
       rec_one("%s %.0f 0 %d", "scan", nbytes(dt, count), tr_type_size(dt), -1))
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  COLL(PMPI_Exscan(sbuf, rbuf, count, dt, op, comm),
       rec_one("%s %.0f 0 %d", "exscan", nbytes(dt, count), tr_type_size(dt), -1))
}

/* two sizes of one element size: alltoall, allgather (root < 0), gather, scatter */
static void rec_two(const char *name, double b1, double b2, int es, int root) {
  int cs, cr, sc = code_for(es, &b1, 1, &cs), rc = code_for(es, &b2, 1, &cr);
  if (root >= 0) tr_line("%s %.0f %.0f %d %d %d", name, b1 / cs, b2 / cr, root, sc, rc);
  else tr_line("%s %.0f %.0f %d %d", name, b1 / cs, b2 / cr, sc, rc);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
  /* in place, the receive side is also the send side */
  int inpl = sbuf == MPI_IN_PLACE;
  COLL(PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm),
       rec_two("alltoall", inpl ? nbytes(rtype, rcount) : nbytes(stype, scount), nbytes(rtype, rcount),
               tr_type_size(inpl ? rtype : stype), -1))
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm) {
  int inpl = sbuf == MPI_IN_PLACE;
  COLL(PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm),
       rec_two("allgather", inpl ? nbytes(rtype, rcount) : nbytes(stype, scount), nbytes(rtype, rcount),
               tr_type_size(rtype), -1))
}

static void rec_gather(const void *sbuf, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
                       int root, MPI_Comm comm) {
  int me = comm_rank(comm), inpl = sbuf == MPI_IN_PLACE && me == root;
  double sb = inpl ? nbytes(rtype, rcount) : nbytes(stype, scount);
  rec_two("gather", sb, me == root ? nbytes(rtype, rcount) : sb, tr_type_size(inpl ? rtype : stype), root);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm) {
  COLL(PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
       rec_gather(sbuf, scount, stype, rcount, rtype, root, comm))
}

static void rec_scatter(int scount, MPI_Datatype stype, const void *rbuf, int rcount, MPI_Datatype rtype,
                        int root, MPI_Comm comm) {
  int me = comm_rank(comm), inpl = rbuf == MPI_IN_PLACE && me == root;
  double rb = inpl ? nbytes(stype, scount) : nbytes(rtype, rcount);
  rec_two("scatter", me == root ? nbytes(stype, scount) : rb, rb, tr_type_size(me == root ? stype : rtype), root);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm) {
  COLL(PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
       rec_scatter(scount, stype, rbuf, rcount, rtype, root, comm))
}

static void rec_alltoallv(const void *sbuf, const int *scounts, MPI_Datatype stype, const int *rcounts,
                          MPI_Datatype rtype, MPI_Comm comm) {
  int n;
  PMPI_Comm_size(comm, &n);
  if (sbuf == MPI_IN_PLACE) { scounts = rcounts; stype = rtype; }
  double *sc = bytes_of(scounts, stype, n, 1), *rc = bytes_of(rcounts, rtype, n, 1), st = 0, rt = 0;
  for (int i = 0; i < n; i++) { st += sc[i]; rt += rc[i]; }
  int es = tr_type_size(stype), cs, cr;
  int scode = code_for(es, sc, n, &cs);
  if (fmod(st, cs) != 0) { scode = 6; cs = 1; }
  int rcode = code_for(es, rc, n, &cr);
  if (fmod(rt, cr) != 0) { rcode = 6; cr = 1; }
  char *a = counts_text(sc, n, cs), *b = counts_text(rc, n, cr);
  tr_line("alltoallv %.0f%s %.0f%s %d %d", st / cs, a, rt / cr, b, scode, rcode);
  free(a); free(b); free(sc); free(rc);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  COLL(PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
       rec_alltoallv(sbuf, scounts, stype, rcounts, rtype, comm))
}

static void rec_gatherv(const void *sbuf, int scount, MPI_Datatype stype, const int *rcounts,
                        MPI_Datatype rtype, int root, MPI_Comm comm) {
  int n, me = comm_rank(comm);
  PMPI_Comm_size(comm, &n);
  int inpl = sbuf == MPI_IN_PLACE && me == root;
  double sb = inpl ? nbytes(rtype, rcounts[me]) : nbytes(stype, scount);
  double *rc = bytes_of(rcounts, rtype, n, me == root);   /* significant at the root only */
  int es = tr_type_size(inpl ? rtype : stype), cs, cr;
  int scode = code_for(es, &sb, 1, &cs), rcode = code_for(es, rc, n, &cr);
  char *b = counts_text(rc, n, cr);
  tr_line("gatherv %.0f%s %d %d %d", sb / cs, b, root, scode, rcode);
  free(b); free(rc);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  COLL(PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
       rec_gatherv(sbuf, scount, stype, rcounts, rtype, root, comm))
}

static void rec_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, const int *rcounts,
                           MPI_Datatype rtype, MPI_Comm comm) {
  int n, me = comm_rank(comm);
  PMPI_Comm_size(comm, &n);
  double sb = sbuf == MPI_IN_PLACE ? nbytes(rtype, rcounts[me]) : nbytes(stype, scount);
  double *rc = bytes_of(rcounts, rtype, n, 1);
  int cs, code = code_for(tr_type_size(rtype), rc, n, &cs);   /* one code for both sides */
  if (fmod(sb, cs) != 0) { code = 6; cs = 1; }
  char *b = counts_text(rc, n, cs);
  tr_line("allgatherv %.0f%s %d", sb / cs, b, code);
  free(b); free(rc);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  COLL(PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
       rec_allgatherv(sbuf, scount, stype, rcounts, rtype, comm))
}

static void rec_scatterv(const int *scounts, MPI_Datatype stype, const void *rbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm) {
  int n, me = comm_rank(comm);
  PMPI_Comm_size(comm, &n);
  int inpl = rbuf == MPI_IN_PLACE && me == root;
  double rb = inpl ? nbytes(stype, scounts[me]) : nbytes(rtype, rcount);
  double *sc = bytes_of(scounts, stype, n, me == root);
  int es = tr_type_size(me == root ? stype : rtype), cs, cr;
  int scode = code_for(es, sc, n, &cs), rcode = code_for(es, &rb, 1, &cr);
  char *a = counts_text(sc, n, cs);
  tr_line("scatterv%s %.0f %d %d %d", a, rb / cr, root, scode, rcode);
  free(a); free(sc);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  COLL(PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
       rec_scatterv(scounts, stype, rbuf, rcount, rtype, root, comm))
}

static void rec_reducescatter(const int *rcounts, int same, MPI_Datatype dt, MPI_Comm comm) {
  int n;
  PMPI_Comm_size(comm, &n);
  double *rc = calloc((size_t)n, sizeof *rc);
  if (!rc) abort();
  for (int i = 0; i < n; i++) rc[i] = nbytes(dt, rcounts ? rcounts[i] : same);
  int cs, code = code_for(tr_type_size(dt), rc, n, &cs);
  char *b = counts_text(rc, n, cs);
  tr_line("reducescatter%s 0 %d", b, code);
  free(b); free(rc);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) {
  COLL(PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm), rec_reducescatter(rcounts, 0, dt, comm))
}

/* psim run records it as MPI_Reduce_scatter with equal counts */
int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm) {
  COLL(PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm), rec_reducescatter(NULL, rcount, dt, comm))
}

/* Communicator creation is collective over the parent: psim run times it as MPICH does it,
 * an allgather of two ints (color and key: src/emul/rt/rt_comm.c's split), and records that. */
#define SPLIT(CALL) COLL(CALL, tr_line("allgather 2 2 1 1"))

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  SPLIT(PMPI_Comm_split(comm, color, key, newcomm))
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) { SPLIT(PMPI_Comm_dup(comm, newcomm)) }

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  SPLIT(PMPI_Comm_create(comm, group, newcomm))
}
