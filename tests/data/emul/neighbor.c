/* Neighbourhood collectives (tests/cli/run_neighbor.sh).
 *
 *   neighbor             the data of every collective (blocking and MPI_Ineighbor_*, completed by
 *                        MPI_Wait, Test, Waitall, Waitany or Testall) on a
 *                        periodic ring (Cartesian), a 2-D non-periodic grid, a graph ring and a
 *                        directed distributed-graph ring; prints " No Errors"
 *   neighbor time S T [W]  all ranks start at simulated time 1 s, then an exchange of S bytes
 *                        with both neighbours of a ring: T = cart, graph, dist (the
 *                        MPI_Neighbor_alltoall of each topology) or hand (MPI_Irecv from left
 *                        and right, MPI_Isend to left and right, MPI_Waitall); icart and ihand:
 *                        MPI_Ineighbor_alltoall / the hand-written posts, then W seconds of
 *                        psim_sleep, then MPI_Wait / MPI_Waitall; rank 0 prints "time END" (the
 *                        latest rank's end) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { CART, GRID, GRAPH, DIST };
static const char *names[] = {"cart ring", "2-D grid", "graph ring", "dist ring"};

/* The neighbours of this rank on topology kind k (as MPI orders them), and for in-slot i the
 * out-slot of the sender that lands there. */
static int neighbours(MPI_Comm c, int k, int *in, int *out, int *nout) {
  int nin = 0, w;
  if (k == CART || k == GRID) {
    int nd;
    MPI_Cartdim_get(c, &nd);
    for (int d = 0; d < nd; d++) MPI_Cart_shift(c, d, 1, &in[2 * d], &in[2 * d + 1]);
    nin = *nout = 2 * nd;
    memcpy(out, in, (size_t)nin * sizeof *in);
  } else if (k == GRAPH) {
    MPI_Graph_neighbors_count(c, rank, &nin);
    MPI_Graph_neighbors(c, rank, nin, in);
    *nout = nin;
    memcpy(out, in, (size_t)nin * sizeof *in);
  } else {
    MPI_Dist_graph_neighbors_count(c, &nin, nout, &w);
    MPI_Dist_graph_neighbors(c, nin, in, MPI_UNWEIGHTED, *nout, out, MPI_UNWEIGHTED);
  }
  return nin;
}
static int sender_slot(int k, int i, const int *in) {
  /* the -1 neighbour sent through its +1 slot, also when both are one rank (a periodic
   * dimension of size 1 or 2; MPICH 4.0.2 agrees for alltoall but pairs slot i with slot i in
   * alltoallv there) */
  if (k == CART || k == GRID) return i ^ 1;
  if (k == GRAPH) return in[0] == in[1] ? i : !i;     /* left's slot 1 is me, right's slot 0 */
  return 0;                                           /* the directed ring: one out-edge */
}

/* Completes a non-blocking collective's request in one of five ways: MPI_Wait, an MPI_Test
 * loop, MPI_Waitall beside another request, MPI_Waitany, an MPI_Testall loop. */
static void complete(MPI_Request *rq, int how) {
  MPI_Request two[2];
  int flag = 0, idx;
  switch (how) {
  case 0: MPI_Wait(rq, MPI_STATUS_IGNORE); break;
  case 1: while (!flag) MPI_Test(rq, &flag, MPI_STATUS_IGNORE); break;
  case 2:
    two[0] = *rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    *rq = two[0];
    break;
  case 3:
    two[0] = MPI_REQUEST_NULL;
    two[1] = *rq;
    MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == 1, "Waitany index %d", idx);
    *rq = two[1];
    break;
  default: while (!flag) MPI_Testall(1, rq, &flag, MPI_STATUSES_IGNORE); break;
  }
  CHECK(*rq == MPI_REQUEST_NULL, "request not freed (way %d)", how);
}

static void check(MPI_Comm c, int k) {
  int in[8], out[8], nout, nin = neighbours(c, k, in, out, &nout);
  int sbuf[64], rbuf[64], cnt[8], dsp[8], rcnt[8], rdsp[8], vals = 0;
  MPI_Aint sdw[8], rdw[8];
  MPI_Datatype ty[8];
  MPI_Request rq;
  for (int pass = 0; pass < 2; pass++) {   /* blocking, then non-blocking */
    const char *how = pass ? "Ineighbor" : "Neighbor";
    /* allgather: my rank to everyone, one int from each source */
    for (int i = 0; i < 8; i++) rbuf[i] = -1;
    sbuf[0] = 100 + rank;
    if (pass) { MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c, &rq); complete(&rq, 0); }
    else MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c);
    for (int i = 0; i < nin; i++)
      CHECK(rbuf[i] == (in[i] == MPI_PROC_NULL ? -1 : 100 + in[i]), "%s %s_allgather slot %d: %d", names[k], how, i, rbuf[i]);
    /* allgatherv: the slots in reverse order */
    for (int i = 0; i < nin; i++) { rcnt[i] = 1; rdsp[i] = nin - 1 - i; rbuf[i] = -1; }
    if (pass) { MPI_Ineighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, c, &rq); complete(&rq, 1); }
    else MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, c);
    for (int i = 0; i < nin; i++)
      CHECK(rbuf[nin - 1 - i] == (in[i] == MPI_PROC_NULL ? -1 : 100 + in[i]), "%s %s_allgatherv slot %d", names[k], how, i);
    /* alltoall: block j says who sent it and through which slot */
    for (int j = 0; j < nout; j++) sbuf[j] = 1000 * rank + j;
    for (int i = 0; i < 8; i++) rbuf[i] = -1;
    if (pass) { MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c, &rq); complete(&rq, 2); }
    else MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c);
    for (int i = 0; i < nin; i++) {
      int want = in[i] == MPI_PROC_NULL ? -1 : 1000 * in[i] + sender_slot(k, i, in);
      CHECK(rbuf[i] == want, "%s %s_alltoall slot %d: %d (want %d)", names[k], how, i, rbuf[i], want);
    }
    /* alltoallv: j+1 ints to out-slot j, packed from displacement 0 up */
    vals = 0;
    for (int j = 0; j < nout; j++) {
      cnt[j] = j + 1;
      dsp[j] = vals;
      for (int e = 0; e <= j; e++) sbuf[vals++] = 1000 * rank + 10 * j + e;
    }
    int roff = 0;
    for (int i = 0; i < nin; i++) { rcnt[i] = sender_slot(k, i, in) + 1; rdsp[i] = roff; roff += rcnt[i]; }
    for (int i = 0; i < 64; i++) rbuf[i] = -1;
    if (pass) { MPI_Ineighbor_alltoallv(sbuf, cnt, dsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, c, &rq); complete(&rq, 3); }
    else MPI_Neighbor_alltoallv(sbuf, cnt, dsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, c);
    for (int i = 0; i < nin; i++)
      for (int e = 0; e < rcnt[i]; e++) {
        int want = in[i] == MPI_PROC_NULL ? -1 : 1000 * in[i] + 10 * sender_slot(k, i, in) + e;
        CHECK(rbuf[rdsp[i] + e] == want, "%s %s_alltoallv slot %d elt %d: %d (want %d)", names[k], how, i, e, rbuf[rdsp[i] + e], want);
      }
    /* alltoallw: the same in bytes, received as pairs of shorts' size... as MPI_INT with byte
     * displacements */
    for (int j = 0; j < nout; j++) { sdw[j] = (MPI_Aint)dsp[j] * (MPI_Aint)sizeof(int); ty[j] = MPI_INT; }
    for (int i = 0; i < nin; i++) rdw[i] = (MPI_Aint)rdsp[i] * (MPI_Aint)sizeof(int);
    for (int i = 0; i < 64; i++) rbuf[i] = -1;
    if (pass) { MPI_Ineighbor_alltoallw(sbuf, cnt, sdw, ty, rbuf, rcnt, rdw, ty, c, &rq); complete(&rq, 4); }
    else MPI_Neighbor_alltoallw(sbuf, cnt, sdw, ty, rbuf, rcnt, rdw, ty, c);
    for (int i = 0; i < nin; i++)
      for (int e = 0; e < rcnt[i]; e++) {
        int want = in[i] == MPI_PROC_NULL ? -1 : 1000 * in[i] + 10 * sender_slot(k, i, in) + e;
        CHECK(rbuf[rdsp[i] + e] == want, "%s %s_alltoallw slot %d elt %d", names[k], how, i, e);
      }
  }
}

static MPI_Comm make(int k) {
  MPI_Comm c;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  if (k == CART) {
    int d = size, p = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &d, &p, 0, &c);
  } else if (k == GRID) {
    int d[2] = {0, 0}, p[2] = {0, 0};
    MPI_Dims_create(size, 2, d);
    MPI_Cart_create(MPI_COMM_WORLD, 2, d, p, 0, &c);
  } else if (k == GRAPH) {
    int *index = malloc((size_t)size * sizeof *index), *edges = malloc(2 * (size_t)size * sizeof *edges);
    for (int i = 0; i < size; i++) {
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c);
    free(index);
    free(edges);
  } else {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  }
  return c;
}

static int timed(long S, const char *t, double w) {
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  char *sb = calloc(2 * (size_t)S + 1, 1), *rb = calloc(2 * (size_t)S + 1, 1);
  MPI_Comm c = MPI_COMM_NULL;
  int nonblocking = t[0] == 'i';
  if (nonblocking) t++;
  if (!strcmp(t, "cart")) c = make(CART);
  else if (!strcmp(t, "graph")) c = make(GRAPH);
  else if (!strcmp(t, "dist")) {
    int nb[2] = {left, right};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  } else if (strcmp(t, "hand")) { printf("unknown %s\n", t); return 1; }
  start_at_one();
  if (c == MPI_COMM_NULL) {
    MPI_Request r[4];
    MPI_Irecv(rb, (int)S, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(rb + S, (int)S, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(sb, (int)S, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(sb + S, (int)S, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[3]);
#ifdef PSIM_MPI
    if (nonblocking) psim_sleep(w);
#endif
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  } else if (nonblocking) {
    MPI_Request r;
    MPI_Ineighbor_alltoall(sb, (int)S, MPI_BYTE, rb, (int)S, MPI_BYTE, c, &r);
#ifdef PSIM_MPI
    psim_sleep(w);
#endif
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_alltoall(sb, (int)S, MPI_BYTE, rb, (int)S, MPI_BYTE, c);
  }
  print_latest("time");
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  free(sb);
  free(rb);
  return 0;
}

int main(int argc, char **argv) {
  check_init(&argc, &argv);
  if (argc > 3 && !strcmp(argv[1], "time")) {
    int rc = timed(atol(argv[2]), argv[3], argc > 4 ? atof(argv[4]) : 0);
    MPI_Finalize();
    return rc;
  }
  for (int k = CART; k <= DIST; k++) {
    MPI_Comm c = make(k);
    check(c, k);
    MPI_Comm_free(&c);
  }
  return check_done();
}
