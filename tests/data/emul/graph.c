/* Graph and distributed graph topologies (tests/cli/run_graph.sh).
 *
 *   graph            every query checked on every rank; prints " No Errors"
 *   graph cost WHAT  the simulated duration of one creation, all ranks starting at t = 1 s:
 *                    WHAT = graph (MPI_Graph_create), split (MPI_Comm_split, its stated cost),
 *                    dist (MPI_Dist_graph_create of a ring, each rank naming its out-edges),
 *                    dist_hand (what it is modelled as: MPI_Alltoall of one int, MPI_Alltoallv
 *                    of the 12-byte edge records, MPI_Comm_split), adjacent
 *                    (MPI_Dist_graph_create_adjacent); rank 0 prints "cost END"
 *   graph bad WHAT   rank 1 misuses a call (an error): graph_neighbors (MPI_Graph_neighbors on
 *                    MPI_COMM_WORLD), dist_neighbors (MPI_Dist_graph_neighbors on a Cartesian
 *                    communicator), neighbor (MPI_Neighbor_alltoall on MPI_COMM_WORLD),
 *                    graph_edges (MPI_Graph_create with an edge to node 9 of 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int cost(const char *what) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm c = MPI_COMM_NULL;
  int *index = malloc((size_t)size * sizeof *index), *edges = malloc(2 * (size_t)size * sizeof *edges);
  for (int i = 0; i < size; i++) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  start_at_one();
  if (!strcmp(what, "graph")) MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c);
  else if (!strcmp(what, "split")) MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
  else if (!strcmp(what, "adjacent")) {
    int nb[2] = {left, right}, w[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w, MPI_INFO_NULL, 0, &c);
  } else if (!strcmp(what, "dist")) {
    int src = rank, deg = 2, dst[2] = {left, right}, w[2] = {5, 7};
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, dst, w, MPI_INFO_NULL, 0, &c);
  } else if (!strcmp(what, "dist_hand")) {
    /* each edge (rank -> left, rank -> right) goes to its source (this rank: 2 records) and to
     * its destination (1 record each), 12 bytes a record */
    int *one = calloc((size_t)size, sizeof *one), *got = calloc((size_t)size, sizeof *got);
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    MPI_Alltoall(one, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
    sc[rank] += 24; sc[left] += 12; sc[right] += 12;   /* what this rank sends */
    rc[rank] += 24; rc[right] += 12; rc[left] += 12;   /* what it gets: its own 2 out-edges, the 2 in-edges */
    for (int i = 1; i < size; i++) { sd[i] = sd[i - 1] + sc[i - 1]; rd[i] = rd[i - 1] + rc[i - 1]; }
    char *sb = calloc((size_t)(sd[size - 1] + sc[size - 1] + 1), 1), *rb = calloc((size_t)(rd[size - 1] + rc[size - 1] + 1), 1);
    MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    free(one); free(got); free(sc); free(rc); free(sd); free(rd); free(sb); free(rb);
  } else {
    printf("unknown cost %s\n", what);
    return 1;
  }
  print_latest("cost");
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  free(index);
  free(edges);
  return 0;
}

static void bad(const char *what) {
  int nb[4], w[4], d = 2, p = 0, index[2] = {1, 2}, edges[2] = {1, 9};
  MPI_Comm c;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &d, &p, 0, &c);
  if (rank != 1) return;
  if (!strcmp(what, "graph_neighbors")) MPI_Graph_neighbors(MPI_COMM_WORLD, 0, 4, nb);
  else if (!strcmp(what, "dist_neighbors")) MPI_Dist_graph_neighbors(c, 4, nb, w, 4, nb, w);
  else if (!strcmp(what, "neighbor")) MPI_Neighbor_alltoall(nb, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD);
  else if (!strcmp(what, "graph_edges")) MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c);
}

int main(int argc, char **argv) {
  int t;
  check_init(&argc, &argv);
  if (argc > 2 && !strcmp(argv[1], "bad")) {
    bad(argv[2]);
    MPI_Finalize();
    return 0;
  }
  if (argc > 2 && !strcmp(argv[1], "cost")) {
    int rc = cost(argv[2]);
    MPI_Finalize();
    return rc;
  }

  /* MPI_Graph_create: a star over the first n = size - 1 ranks (at least 1): node 0 is linked
   * to every other node, and node 1 to itself too (a self loop); the last rank is left out */
  int n = size > 1 ? size - 1 : 1, ne = 0;
  int *index = malloc((size_t)n * sizeof *index), *edges = malloc(4 * (size_t)n * sizeof *edges);
  for (int i = 0; i < n; i++) {
    if (i == 0) for (int j = 1; j < n; j++) edges[ne++] = j;
    else { edges[ne++] = 0; if (i == 1) edges[ne++] = 1; }
    index[i] = ne;
  }
  MPI_Comm g, gd;
  MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g);
  if (rank >= n) {
    CHECK(g == MPI_COMM_NULL, "rank beyond the graph's nodes got a communicator");
  } else {
    int nn, nedges, cnt, nb[64], idx2[64], e2[256], r;
    MPI_Comm_rank(g, &r);
    CHECK(r == rank, "graph rank %d", r);
    MPI_Topo_test(g, &t);
    CHECK(t == MPI_GRAPH, "Topo_test %d", t);
    MPI_Graphdims_get(g, &nn, &nedges);
    CHECK(nn == n && nedges == ne, "Graphdims %d %d (want %d %d)", nn, nedges, n, ne);
    MPI_Graph_get(g, 64, 256, idx2, e2);
    for (int i = 0; i < n; i++) CHECK(idx2[i] == index[i], "index[%d]", i);
    for (int i = 0; i < ne; i++) CHECK(e2[i] == edges[i], "edges[%d]", i);
    for (int q = 0; q < n; q++) {
      MPI_Graph_neighbors_count(g, q, &cnt);
      int want = q == 0 ? n - 1 : q == 1 ? 2 : 1;
      CHECK(cnt == want, "neighbors_count(%d) = %d (want %d)", q, cnt, want);
      MPI_Graph_neighbors(g, q, 64, nb);
      for (int i = 0; i < cnt; i++) {
        int w = q == 0 ? i + 1 : i == 0 ? 0 : 1;
        CHECK(nb[i] == w, "neighbors(%d)[%d] = %d (want %d)", q, i, nb[i], w);
      }
    }
    MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &r);
    CHECK(r == rank, "Graph_map %d", r);
    MPI_Comm_dup(g, &gd);
    MPI_Topo_test(gd, &t);
    MPI_Graphdims_get(gd, &nn, &nedges);
    CHECK(t == MPI_GRAPH && nn == n && nedges == ne, "dup: %d %d %d", t, nn, nedges);
    MPI_Comm_free(&gd);
    MPI_Comm_free(&g);
  }
  if (size > 1) {
    int r;
    MPI_Graph_map(MPI_COMM_WORLD, size - 1, index, edges, &r);
    CHECK(r == (rank < size - 1 ? rank : MPI_UNDEFINED), "Graph_map of the smaller graph %d", r);
  }
  int cdims[1] = {size > 1 ? size - 1 : 1}, cper[1] = {0}, cr;
  MPI_Cart_map(MPI_COMM_WORLD, 1, cdims, cper, &cr);
  CHECK(cr == (rank < cdims[0] ? rank : MPI_UNDEFINED), "Cart_map %d", cr);
  MPI_Topo_test(MPI_COMM_WORLD, &t);
  CHECK(t == MPI_UNDEFINED, "Topo_test of WORLD %d", t);
  free(index);
  free(edges);

  /* MPI 3.0: MPI_UNWEIGHTED is not NULL (a NULL array may be an empty one), nor is
   * MPI_WEIGHTS_EMPTY, and they differ */
  CHECK(MPI_UNWEIGHTED != NULL && MPI_WEIGHTS_EMPTY != NULL && MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY,
        "MPI_UNWEIGHTED %p MPI_WEIGHTS_EMPTY %p", (void *)MPI_UNWEIGHTED, (void *)MPI_WEIGHTS_EMPTY);

  /* MPI_Dist_graph_create_adjacent: a directed ring (in from the left, out to the right),
   * weighted with the sender's rank; and an unweighted one */
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int sw = left, dw = rank, in, out, wt, src[4], dst[4], sws[4], dws[4];
  MPI_Comm d;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &sw, 1, &right, &dw, MPI_INFO_NULL, 0, &d);
  MPI_Topo_test(d, &t);
  CHECK(t == MPI_DIST_GRAPH, "dist Topo_test %d", t);
  MPI_Dist_graph_neighbors_count(d, &in, &out, &wt);
  CHECK(in == 1 && out == 1 && wt, "adjacent counts %d %d %d", in, out, wt);
  MPI_Dist_graph_neighbors(d, 4, src, sws, 4, dst, dws);
  CHECK(src[0] == left && dst[0] == right && sws[0] == left && dws[0] == rank,
        "adjacent lists %d %d %d %d", src[0], dst[0], sws[0], dws[0]);
  MPI_Comm dd;
  MPI_Comm_dup(d, &dd);
  MPI_Dist_graph_neighbors(dd, 4, src, sws, 4, dst, dws);
  CHECK(src[0] == left && dst[0] == right && sws[0] == left, "dup of adjacent %d %d", src[0], dst[0]);
  MPI_Comm_free(&dd);
  MPI_Comm_free(&d);
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d);
  MPI_Dist_graph_neighbors_count(d, &in, &out, &wt);
  CHECK(in == 1 && out == 1 && !wt, "unweighted counts %d %d %d", in, out, wt);
  sws[0] = -5;
  MPI_Dist_graph_neighbors(d, 4, src, sws, 4, dst, MPI_UNWEIGHTED);
  CHECK(src[0] == left && dst[0] == right && sws[0] == -5, "unweighted lists %d %d %d", src[0], dst[0], sws[0]);
  MPI_Comm_free(&d);

  /* MPI_Dist_graph_create: rank 0 names every edge i -> i+1 (weight 10 i) and every rank
   * names its own edge i -> i-1 (weight 100 + i) */
  int *s0 = malloc((size_t)(size + 1) * sizeof *s0), *deg = malloc((size_t)(size + 1) * sizeof *deg);
  int *d0 = malloc((size_t)(size + 1) * sizeof *d0), *w0 = malloc((size_t)(size + 1) * sizeof *w0), k = 0;
  if (rank == 0)
    for (int i = 0; i < size; i++) { s0[k] = i; deg[k] = 1; d0[k] = (i + 1) % size; w0[k] = 10 * i; k++; }
  s0[k] = rank; deg[k] = 1; d0[k] = left; w0[k] = 100 + rank; k++;
  MPI_Dist_graph_create(MPI_COMM_WORLD, k, s0, deg, d0, w0, MPI_INFO_NULL, 1, &d);
  MPI_Dist_graph_neighbors_count(d, &in, &out, &wt);
  CHECK(in == 2 && out == 2 && wt, "dist counts %d %d %d", in, out, wt);
  MPI_Dist_graph_neighbors(d, 4, src, sws, 4, dst, dws);
  /* MPI leaves the order open (psim's: the ranks that named them, then their lists; MPICH's
   * differs): either order of the two */
  int sw0 = src[0] == left && sws[0] == 10 * left, sw1 = src[1] == right && sws[1] == 100 + right;
  int rv0 = src[1] == left && sws[1] == 10 * left, rv1 = src[0] == right && sws[0] == 100 + right;
  CHECK((sw0 && sw1) || (rv0 && rv1), "dist in-lists %d(%d) %d(%d)", src[0], sws[0], src[1], sws[1]);
  sw0 = dst[0] == right && dws[0] == 10 * rank; sw1 = dst[1] == left && dws[1] == 100 + rank;
  rv0 = dst[1] == right && dws[1] == 10 * rank; rv1 = dst[0] == left && dws[0] == 100 + rank;
  CHECK((sw0 && sw1) || (rv0 && rv1), "dist out-lists %d(%d) %d(%d)", dst[0], dws[0], dst[1], dws[1]);
  MPI_Comm_free(&d);
  free(s0); free(deg); free(d0); free(w0);
  /* a graph with no edges at all, unweighted, and MPI_WEIGHTS_EMPTY for a degree of 0 */
  MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d);
  MPI_Dist_graph_neighbors_count(d, &in, &out, &wt);
  CHECK(in == 0 && out == 0, "empty counts %d %d", in, out);
  MPI_Comm_free(&d);

  return check_done();
}
