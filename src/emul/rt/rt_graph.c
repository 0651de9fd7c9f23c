/* Graph and distributed graph topologies (MPI_Graph_*, MPI_Dist_graph_*).
 *
 * As for Cartesian grids (rt_topo.c), ranks are not reordered (reorder is ignored; MPI allows
 * it, and the simulated placement is the one --np and the host file chose): rank r of the new
 * communicator is rank r of the old one, and MPI_Graph_map/MPI_Cart_map give every rank its
 * own rank. The queries are local and cost nothing.
 *
 * Cost of creation, in simulated time:
 *  - MPI_Graph_create and MPI_Dist_graph_create_adjacent: every rank already knows what it
 *    needs (the whole graph, or its own neighbours), so the cost is that of making the
 *    communicator, MPI_Comm_split's: an allgather of two ints (as MPI_Cart_create);
 *  - MPI_Dist_graph_create: a rank may name edges of any other rank, so the edges must reach
 *    both their ends first. That is modelled as real messages: an alltoall of one int per
 *    peer (how many edge records each rank gets from each), then an alltoallv of the records
 *    (source, destination and, when weighted, the weight: 8 or 12 bytes; each edge goes to its
 *    source and to its destination), then the split. Each rank's neighbours are the edges in
 *    the order of the ranks that named them, then of their lists (MPI leaves it open).
 *
 * The graph of MPI_Graph_create is one block shared by the members; a distributed graph keeps
 * each member's own lists (one block per member, each filled by its rank). */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

/* A rank's lists: in[nin], inw[nin], out[nout], outw[nout] */
typedef struct rt_adj {
  int nin, nout;
  int v[];
} rt_adj;

struct rt_graph {
  int kind;                  /* MPI_GRAPH or MPI_DIST_GRAPH */
  int weighted;              /* MPI_DIST_GRAPH: the weights are not MPI_UNWEIGHTED */
  int size;                  /* members (entries of adj) */
  rt_adj **adj;              /* MPI_DIST_GRAPH: per member, NULL until it set its lists */
  int nnodes, nedges;        /* MPI_GRAPH: index[nnodes], edges[nedges] in v */
  int v[];
};

int rt_graph_kind(const rt_comm *c) { return c->graph ? c->graph->kind : 0; }

void rt_graph_free(struct rt_graph *g) {
  if (!g) return;
  if (g->adj)
    for (int i = 0; i < g->size; i++) free(g->adj[i]);
  free(g->adj);
  free(g);
}

/* An error in a local query (no emu_enter): the run's report names the call. */
static void topo_fatal(const char *call, const char *what) __attribute__((noreturn));
static void topo_fatal(const char *call, const char *what) {
  emu_self()->call = call;
  emu_fatal("%s (MPI_ERR_TOPOLOGY)", what);
}

static struct rt_graph *graph_of(MPI_Comm comm, int kind, const char *call) {
  rt_comm *c = rt_comm_get(comm);
  if (!c->graph || c->graph->kind != kind)
    topo_fatal(call, kind == MPI_GRAPH ? "the communicator has no graph topology (MPI_Graph_create)"
                                       : "the communicator has no distributed graph topology (MPI_Dist_graph_create)");
  return c->graph;
}

static struct rt_graph *graph_new(int kind, size_t nv) {
  struct rt_graph *g = xcalloc(1, sizeof *g + nv * sizeof(int));
  g->kind = kind;
  return g;
}

static const int *graph_index(const struct rt_graph *g) { return g->v; }
static const int *graph_edges(const struct rt_graph *g) { return g->v + g->nnodes; }

void rt_graph_copy(const rt_comm *from, rt_comm *to) {
  const struct rt_graph *g = from->graph;
  if (!g || to->graph) return;
  size_t nv = g->kind == MPI_GRAPH ? (size_t)g->nnodes + (size_t)g->nedges : 0;
  struct rt_graph *n = graph_new(g->kind, nv);
  n->weighted = g->weighted;
  n->nnodes = g->nnodes;
  n->nedges = g->nedges;
  memcpy(n->v, g->v, nv * sizeof(int));
  n->size = g->size;
  if (g->adj) {
    n->adj = xcalloc((size_t)g->size, sizeof *n->adj);
    for (int i = 0; i < g->size; i++) {
      const rt_adj *a = g->adj[i];
      if (!a) continue;
      size_t len = sizeof *a + 2 * (size_t)(a->nin + a->nout) * sizeof(int);
      n->adj[i] = xmalloc(len);
      memcpy(n->adj[i], a, len);
    }
  }
  to->graph = n;
}

/* ---- MPI_Graph_* ---- */

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph) {
  emu_enter("MPI_Graph_create");
  rt_need_init();
  (void)reorder;
  rt_comm *c = rt_comm_get(comm_old);
  rt_no_inter(c, "MPI_Graph_create");
  if (nnodes < 0 || nnodes > c->size)
    emu_fatal("a graph of %d nodes on a communicator of %d (MPI_ERR_ARG)", nnodes, c->size);
  int nedges = nnodes ? index[nnodes - 1] : 0;
  for (int i = 0; i < nnodes; i++)
    if (index[i] < (i ? index[i - 1] : 0)) emu_fatal("index[%d] = %d is below index[%d] (MPI_ERR_ARG)", i, index[i], i - 1);
  for (int e = 0; e < nedges; e++)
    if (edges[e] < 0 || edges[e] >= nnodes) emu_fatal("edges[%d] = %d is not a node of the %d-node graph (MPI_ERR_ARG)", e, edges[e], nnodes);
  int me = rt_comm_rank(c);
  *comm_graph = rt_comm_split(c, me < nnodes ? 0 : MPI_UNDEFINED, me);
  if (*comm_graph != MPI_COMM_NULL) {
    rt_comm *nc = rt_comm_get(*comm_graph);
    if (!nc->graph) {   /* the first member hangs it */
      struct rt_graph *g = graph_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
      g->nnodes = nnodes;
      g->nedges = nedges;
      memcpy(g->v, index, (size_t)nnodes * sizeof(int));
      memcpy(g->v + nnodes, edges, (size_t)nedges * sizeof(int));
      nc->graph = g;
    }
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  const struct rt_graph *g = graph_of(comm, MPI_GRAPH, "MPI_Graphdims_get");
  *nnodes = g->nnodes;
  *nedges = g->nedges;
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const struct rt_graph *g = graph_of(comm, MPI_GRAPH, "MPI_Graph_get");
  for (int i = 0; i < g->nnodes && i < maxindex; i++) index[i] = graph_index(g)[i];
  for (int e = 0; e < g->nedges && e < maxedges; e++) edges[e] = graph_edges(g)[e];
  return MPI_SUCCESS;
}

static void graph_range(const struct rt_graph *g, int rank, const char *call, int *lo, int *hi) {
  if (rank < 0 || rank >= g->nnodes) {
    emu_self()->call = call;
    emu_fatal("rank %d is not a node of the %d-node graph (MPI_ERR_RANK)", rank, g->nnodes);
  }
  *lo = rank ? graph_index(g)[rank - 1] : 0;
  *hi = graph_index(g)[rank];
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  const struct rt_graph *g = graph_of(comm, MPI_GRAPH, "MPI_Graph_neighbors_count");
  int lo, hi;
  graph_range(g, rank, "MPI_Graph_neighbors_count", &lo, &hi);
  *nneighbors = hi - lo;
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const struct rt_graph *g = graph_of(comm, MPI_GRAPH, "MPI_Graph_neighbors");
  int lo, hi;
  graph_range(g, rank, "MPI_Graph_neighbors", &lo, &hi);
  for (int e = lo; e < hi && e - lo < maxneighbors; e++) neighbors[e - lo] = graph_edges(g)[e];
  return MPI_SUCCESS;
}

/* No reordering: a rank keeps its rank when the graph has a node for it. */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
  (void)index;
  (void)edges;
  rt_comm *c = rt_comm_get(comm);
  if (nnodes < 1 || nnodes > c->size) {
    emu_self()->call = "MPI_Graph_map";
    emu_fatal("a graph of %d nodes on a communicator of %d (MPI_ERR_ARG)", nnodes, c->size);
  }
  int me = rt_comm_rank(c);
  *newrank = me < nnodes ? me : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* ---- MPI_Dist_graph_* ---- */

/* MPI_UNWEIGHTED (empty 0) and MPI_WEIGHTS_EMPTY (1): two addresses distinct from any array
 * and from NULL (MPI 3.0: a NULL weights array may be a program's empty one) */
int *psim_topo_weights(int empty) {
  static int w[2];
  return &w[empty != 0];
}

static const int *weights_or_null(const int *w) {
  return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w;
}

static rt_adj *adj_new(int nin, int nout) {
  rt_adj *a = xmalloc(sizeof *a + 2 * (size_t)(nin + nout) * sizeof(int));
  a->nin = nin;
  a->nout = nout;
  return a;
}
static int *adj_in(rt_adj *a) { return a->v; }
static int *adj_inw(rt_adj *a) { return a->v + a->nin; }
static int *adj_out(rt_adj *a) { return a->v + 2 * a->nin; }
static int *adj_outw(rt_adj *a) { return a->v + 2 * a->nin + a->nout; }

/* Makes the communicator (MPI_Comm_split's cost) and hangs the calling rank's lists on it. */
static MPI_Comm dist_graph_comm(rt_comm *c, rt_adj *mine, int weighted) {
  int me = rt_comm_rank(c);
  MPI_Comm h = rt_comm_split(c, 0, me);
  rt_comm *nc = rt_comm_get(h);
  if (!nc->graph) {
    nc->graph = graph_new(MPI_DIST_GRAPH, 0);
    nc->graph->size = nc->size;
    nc->graph->adj = xcalloc((size_t)nc->size, sizeof *nc->graph->adj);
  }
  /* MPI: weighted unless every rank passed MPI_UNWEIGHTED; psim takes the ranks' word */
  if (weighted) nc->graph->weighted = 1;
  nc->graph->adj[rt_comm_rank(nc)] = mine;
  return h;
}

static void check_ranks(const rt_comm *c, int n, const int r[], const char *what) {
  for (int i = 0; i < n; i++)
    if (r[i] < 0 || r[i] >= c->size)
      emu_fatal("%s[%d] = %d is out of range (communicator of size %d, MPI_ERR_RANK)", what, i, r[i], c->size);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph) {
  emu_enter("MPI_Dist_graph_create_adjacent");
  rt_need_init();
  (void)info;
  (void)reorder;
  rt_comm *c = rt_comm_get(comm_old);
  rt_no_inter(c, "MPI_Dist_graph_create_adjacent");
  if (indegree < 0 || outdegree < 0) emu_fatal("negative degree (%d in, %d out) (MPI_ERR_ARG)", indegree, outdegree);
  check_ranks(c, indegree, sources, "sources");
  check_ranks(c, outdegree, destinations, "destinations");
  const int *sw = weights_or_null(sourceweights), *dw = weights_or_null(destweights);
  if ((!sw && indegree && sourceweights != MPI_UNWEIGHTED) || (!dw && outdegree && destweights != MPI_UNWEIGHTED))
    emu_fatal("MPI_WEIGHTS_EMPTY with a degree above 0 (MPI_ERR_ARG)");
  rt_adj *a = adj_new(indegree, outdegree);
  for (int i = 0; i < indegree; i++) { adj_in(a)[i] = sources[i]; adj_inw(a)[i] = sw ? sw[i] : 1; }
  for (int i = 0; i < outdegree; i++) { adj_out(a)[i] = destinations[i]; adj_outw(a)[i] = dw ? dw[i] : 1; }
  int weighted = sourceweights != MPI_UNWEIGHTED || destweights != MPI_UNWEIGHTED;
  *comm_dist_graph = dist_graph_comm(c, a, weighted);
  emu_leave();
  return MPI_SUCCESS;
}

/* One edge record of MPI_Dist_graph_create's exchange. */
typedef struct edge { int src, dst, w; } edge;

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph) {
  emu_enter("MPI_Dist_graph_create");
  rt_need_init();
  (void)info;
  (void)reorder;
  rt_comm *c = rt_comm_get(comm_old);
  rt_no_inter(c, "MPI_Dist_graph_create");
  emu_rank *k = emu_self();
  k->call_peer = k->call_tag = -99;
  if (n < 0) emu_fatal("n = %d sources (MPI_ERR_ARG)", n);
  check_ranks(c, n, sources, "sources");
  int ne = 0;
  for (int i = 0; i < n; i++) {
    if (degrees[i] < 0) emu_fatal("degrees[%d] = %d (MPI_ERR_ARG)", i, degrees[i]);
    ne += degrees[i];
  }
  check_ranks(c, ne, destinations, "destinations");
  const int *w = weights_or_null(weights);
  if (!w && ne && weights != MPI_UNWEIGHTED) emu_fatal("MPI_WEIGHTS_EMPTY with edges (MPI_ERR_ARG)");
  int me = rt_comm_rank(c), size = c->size;
  /* the edges this rank names, deposited for the others (record 0 holds the count) */
  rt_slot *s = rt_slot_enter(c);
  edge *mine = xmalloc((size_t)(ne + 1) * sizeof *mine);
  mine[0] = (edge){ne, weights != MPI_UNWEIGHTED, 0};
  for (int i = 0, e = 0; i < n; i++)
    for (int d = 0; d < degrees[i]; d++, e++) mine[e + 1] = (edge){sources[i], destinations[e], w ? w[e] : 1};
  s->data[me] = mine;
  s->len[me] = (size_t)(ne + 1) * sizeof *mine;
  int weighted = weights != MPI_UNWEIGHTED;
  size_t rec = weighted ? 3 * sizeof(int) : 2 * sizeof(int);
  /* the counts: an alltoall of one int per peer */
  coll_call x;
  memset(&x, 0, sizeof x);
  x.kind = COLL_ALLTOALL;
  x.rank = me;
  x.size = size;
  x.bytes = x.bytes2 = sizeof(int);
  x.dtsize = sizeof(int);
  rt_coll_timing(c, &x);
  /* every rank has deposited its edges by now (an alltoall's result depends on all of them):
   * the records, an alltoallv of what each rank sends each */
  double *sc = xcalloc(2 * (size_t)size, sizeof *sc), *rc = sc + size;
  int nin = 0, nout = 0;
  for (int r = 0; r < size; r++) {
    const edge *er = s->data[r];
    if (!er) emu_fatal("internal error: the edges of rank %d are missing", r);
    if (er[0].dst) weighted = 1;
    for (int e = 1; e <= er[0].src; e++) {
      if (r == me) { sc[er[e].src] += (double)rec; sc[er[e].dst] += (double)rec; }
      if (er[e].src == me) { rc[r] += (double)rec; nout++; }
      if (er[e].dst == me) { rc[r] += (double)rec; nin++; }
    }
  }
  emu_hold(k, sc);
  rt_alltoallv_bytes_timing(c, sc, rc);
  emu_release(k, sc);
  free(sc);
  rt_adj *a = adj_new(nin, nout);
  int i_in = 0, i_out = 0;
  for (int r = 0; r < size; r++) {
    const edge *er = s->data[r];
    for (int e = 1; e <= er[0].src; e++) {
      if (er[e].dst == me) { adj_in(a)[i_in] = er[e].src; adj_inw(a)[i_in++] = er[e].w; }
      if (er[e].src == me) { adj_out(a)[i_out] = er[e].dst; adj_outw(a)[i_out++] = er[e].w; }
    }
  }
  rt_slot_leave(c, s);
  emu_hold(k, a);
  *comm_dist_graph = dist_graph_comm(c, a, weighted);
  emu_release(k, a);
  emu_leave();
  return MPI_SUCCESS;
}

static rt_adj *adj_of(MPI_Comm comm, const char *call) {
  rt_comm *c = rt_comm_get(comm);
  graph_of(comm, MPI_DIST_GRAPH, call);
  return c->graph->adj[rt_comm_rank(c)];
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
  rt_adj *a = adj_of(comm, "MPI_Dist_graph_neighbors_count");
  *indegree = a->nin;
  *outdegree = a->nout;
  *weighted = rt_comm_get(comm)->graph->weighted;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
  rt_adj *a = adj_of(comm, "MPI_Dist_graph_neighbors");
  int weighted = rt_comm_get(comm)->graph->weighted;
  int *sw = weighted ? (int *)weights_or_null(sourceweights) : NULL;
  int *dw = weighted ? (int *)weights_or_null(destweights) : NULL;
  for (int i = 0; i < a->nin && i < maxindegree; i++) {
    sources[i] = adj_in(a)[i];
    if (sw) sw[i] = adj_inw(a)[i];
  }
  for (int i = 0; i < a->nout && i < maxoutdegree; i++) {
    destinations[i] = adj_out(a)[i];
    if (dw) dw[i] = adj_outw(a)[i];
  }
  return MPI_SUCCESS;
}

/* ---- neighbours for the neighbourhood collectives (rt_neighbor.c) ---- */

void rt_graph_neighbors(rt_comm *c, const char *call, int *nin, int **in, int **tin, int *nout,
                        int **out, int **tout) {
  const struct rt_graph *g = c->graph;
  const int *src, *dst;
  if (!g) topo_fatal(call, "the communicator has no topology (Cartesian, graph or distributed graph)");
  if (g->kind == MPI_GRAPH) {
    int lo, hi;
    graph_range(g, rt_comm_rank(c), call, &lo, &hi);
    *nin = *nout = hi - lo;
    src = dst = graph_edges(g) + lo;
  } else {
    rt_adj *a = g->adj[rt_comm_rank(c)];
    *nin = a->nin;
    *nout = a->nout;
    src = adj_in(a);
    dst = adj_out(a);
  }
  /* the messages between two ranks pair in order (MPI's rule for multigraphs): one tag */
  int *v = xmalloc(2 * (size_t)(*nin + *nout + 1) * sizeof *v);
  *in = v;
  *tin = v + *nin;
  *out = v + 2 * *nin;
  *tout = v + 2 * *nin + *nout;
  for (int i = 0; i < *nin; i++) { (*in)[i] = src[i]; (*tin)[i] = RT_NBR_TAG; }
  for (int i = 0; i < *nout; i++) { (*out)[i] = dst[i]; (*tout)[i] = RT_NBR_TAG; }
}
