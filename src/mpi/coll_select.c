/* Collective names, the algorithm tables and the selector (`--cfg smpi/<coll>:<algo>`).
 *
 * Names are SimGrid's: collectives as in its smpi/<coll> configuration keys (reduce_scatter;
 * the trace action spelling "reducescatter" is accepted too), algorithms as in its
 * src/smpi/colls. "default" (always index 0) is SimGrid 3.32's default selector
 * (src/smpi/colls/smpi_default_selector.cpp, which psim reproduces message by message):
 *   barrier        ompi_basic_linear
 *   bcast          binomial_tree
 *   reduce         linear non-blocking (colls::ireduce + wait; replay passes MPI_OP_NULL);
 *                  ompi_basic_linear for a non-commutative operator or a derived datatype
 *   allreduce      reduce default to 0, then bcast binomial_tree from 0; Open MPI's
 *                  decision (allreduce__ompi) for a derived datatype
 *   alltoall       alltoall__ompi (Open MPI 4 decision table: basic_linear / pair / bruck)
 *   alltoallv, gather, allgather, allgatherv, scatter, gatherv, scatterv
 *                  linear non-blocking (colls::i<coll> + wait)
 *   reduce_scatter reduce default to 0 + scatterv when counts are regular, else
 *                  reduce_scatter__mpich (mpich_pair above 524288 elements, mpich_rdb below)
 *   scan, exscan   linear: irecv from every lower rank, isend to every higher one, wait all
 * The selector holds no global state: a coll_selector is a plain value. */
#include <stdio.h>
#include <string.h>

#include "mpi/coll_internal.h"

static const char *const kind_names[COLL_NKINDS] = {
  [COLL_BARRIER] = "barrier", [COLL_BCAST] = "bcast", [COLL_REDUCE] = "reduce",
  [COLL_ALLREDUCE] = "allreduce", [COLL_ALLTOALL] = "alltoall", [COLL_ALLTOALLV] = "alltoallv",
  [COLL_GATHER] = "gather", [COLL_ALLGATHER] = "allgather", [COLL_GATHERV] = "gatherv",
  [COLL_ALLGATHERV] = "allgatherv", [COLL_SCATTER] = "scatter", [COLL_SCATTERV] = "scatterv",
  [COLL_REDUCESCATTER] = "reduce_scatter", [COLL_SCAN] = "scan", [COLL_EXSCAN] = "exscan",
};

const char *coll_kind_name(coll_kind k) {
  return (unsigned)k < COLL_NKINDS ? kind_names[k] : "?";
}

int coll_kind_from_name(const char *name) {
  if (!name) return -1;
  for (int k = 0; k < COLL_NKINDS; k++)
    if (!strcmp(name, kind_names[k])) return k;
  if (!strcmp(name, "reducescatter")) return COLL_REDUCESCATTER;
  return -1;
}

static const coll_algo barrier_algos[] = {
  {"default", coll_barrier_ompi_basic_linear},
  {"ompi_basic_linear", coll_barrier_ompi_basic_linear},
  {"ompi_recursivedoubling", coll_barrier_ompi_recursivedoubling},
  {"ompi_bruck", coll_barrier_ompi_bruck},
  {"ompi_tree", coll_barrier_ompi_tree},
  {"ompi_doublering", coll_barrier_ompi_doublering},
};
static const coll_algo bcast_algos[] = {
  {"default", coll_bcast_binomial_tree},
  {"binomial_tree", coll_bcast_binomial_tree},
  {"flattree", coll_bcast_flattree},
  {"scatter_LR_allgather", coll_bcast_scatter_LR_allgather},
  {"scatter_rdb_allgather", coll_bcast_scatter_rdb_allgather},
};
static const coll_algo reduce_algos[] = {
  {"default", coll_reduce_default},
  {"binomial", coll_reduce_binomial},
  {"flat_tree", coll_reduce_flat_tree},
  {"ompi_basic_linear", coll_reduce_flat_tree},   /* the same messages (coll_reduce.c) */
};
static const coll_algo allreduce_algos[] = {
  {"default", coll_allreduce_default},
  {"lr", coll_allreduce_lr},
  {"rdb", coll_allreduce_rdb},
  {"rab_rdb", coll_allreduce_rab_rdb},
  {"redbcast", coll_allreduce_redbcast},
  {"ompi", coll_allreduce_ompi},
};
static const coll_algo alltoall_algos[] = {
  {"default", coll_alltoall_default},
  {"ompi", coll_alltoall_default},
  {"basic_linear", coll_alltoall_basic_linear},
  {"pair", coll_alltoall_pair},
  {"bruck", coll_alltoall_bruck},
  {"ring", coll_alltoall_ring},
};
static const coll_algo alltoallv_algos[] = {
  {"default", coll_alltoallv_default},
  {"ring", coll_alltoallv_ring},
  {"pair", coll_alltoallv_ring},
};
static const coll_algo gather_algos[] = {
  {"default", coll_gather_default},
  {"ompi_basic_linear", coll_gather_ompi_basic_linear},
  {"ompi_binomial", coll_gather_ompi_binomial},
};
static const coll_algo allgather_algos[] = {
  {"default", coll_allgather_default},
  {"ring", coll_allgather_ring},
  {"rdb", coll_allgather_rdb},
  {"bruck", coll_allgather_bruck},
  {"pair", coll_allgather_pair},
};
static const coll_algo gatherv_algos[] = {{"default", coll_gatherv_default}};
static const coll_algo allgatherv_algos[] = {
  {"default", coll_allgatherv_default},
  {"ring", coll_allgatherv_ring},
};
static const coll_algo scatter_algos[] = {
  {"default", coll_scatter_default},
  {"ompi_basic_linear", coll_scatter_ompi_basic_linear},
  {"ompi_binomial", coll_scatter_ompi_binomial},
};
static const coll_algo scatterv_algos[] = {{"default", coll_scatterv_default}};
static const coll_algo reduce_scatter_algos[] = {
  {"default", coll_reduce_scatter_default},
  {"mpich_pair", coll_reduce_scatter_mpich_pair},
  {"mpich_rdb", coll_reduce_scatter_mpich_rdb},
};
static const coll_algo scan_algos[] = {{"default", coll_scan_default}};
static const coll_algo exscan_algos[] = {{"default", coll_exscan_default}};

#define TABLE(a) {a, (int)(sizeof a / sizeof a[0])}
static const struct { const coll_algo *a; int n; } tables[COLL_NKINDS] = {
  [COLL_BARRIER] = TABLE(barrier_algos), [COLL_BCAST] = TABLE(bcast_algos),
  [COLL_REDUCE] = TABLE(reduce_algos), [COLL_ALLREDUCE] = TABLE(allreduce_algos),
  [COLL_ALLTOALL] = TABLE(alltoall_algos), [COLL_ALLTOALLV] = TABLE(alltoallv_algos),
  [COLL_GATHER] = TABLE(gather_algos), [COLL_ALLGATHER] = TABLE(allgather_algos),
  [COLL_GATHERV] = TABLE(gatherv_algos), [COLL_ALLGATHERV] = TABLE(allgatherv_algos),
  [COLL_SCATTER] = TABLE(scatter_algos), [COLL_SCATTERV] = TABLE(scatterv_algos),
  [COLL_REDUCESCATTER] = TABLE(reduce_scatter_algos), [COLL_SCAN] = TABLE(scan_algos),
  [COLL_EXSCAN] = TABLE(exscan_algos),
};

const coll_algo *coll_algos(coll_kind k, int *n) {
  if ((unsigned)k >= COLL_NKINDS) { *n = 0; return NULL; }
  *n = tables[k].n;
  return tables[k].a;
}

void coll_selector_init(coll_selector *s) {
  for (int k = 0; k < COLL_NKINDS; k++) s->algo[k] = 0;
}

void coll_algorithms(coll_kind k, char *buf, size_t n) {
  int na;
  const coll_algo *a = coll_algos(k, &na);
  size_t used = 0;
  if (n) buf[0] = '\0';
  for (int i = 0; i < na && used < n; i++) {
    int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", a[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
}

int coll_selector_set(coll_selector *s, const char *coll, const char *algo, psim_err *err) {
  int k = coll_kind_from_name(coll);
  if (k < 0) {
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < COLL_NKINDS && used < sizeof list; i++) {
      int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", kind_names[i]);
      if (w < 0) break;
      used += (size_t)w;
    }
    return psim_errf(err, PSIM_EXIT_USAGE, NULL, 0,
                     "unknown collective '%s' (smpi/<collective>:<algorithm>); valid collectives: %s",
                     coll ? coll : "", list);
  }
  int na;
  const coll_algo *a = coll_algos((coll_kind)k, &na);
  for (int i = 0; i < na; i++)
    if (algo && !strcmp(algo, a[i].name)) {
      s->algo[k] = i;
      return 0;
    }
  char list[1024];
  coll_algorithms((coll_kind)k, list, sizeof list);
  return psim_errf(err, PSIM_EXIT_USAGE, NULL, 0,
                   "unknown algorithm '%s' for collective %s; valid algorithms: %s",
                   algo ? algo : "", kind_names[k], list);
}

static const char *const mode_names[] = {"default", "mpich", "ompi"};

const char *coll_selector_mode_name(int mode) {
  return mode >= 0 && mode <= COLL_SEL_OMPI ? mode_names[mode] : "?";
}

int coll_selector_use(coll_selector *s, const char *name, psim_err *err) {
  int mode = -1;
  if (name && (!strcmp(name, "default") || !strcmp(name, "smpi"))) mode = COLL_SEL_DEFAULT;
  else if (name && !strcmp(name, "mpich")) mode = COLL_SEL_MPICH;
  else if (name && !strcmp(name, "ompi")) mode = COLL_SEL_OMPI;
  if (mode < 0)
    return psim_errf(err, PSIM_EXIT_USAGE, NULL, 0,
                     "--cfg smpi/coll-selector expects default, mpich or ompi, got '%s' (or choose "
                     "algorithms per collective with smpi/<collective>:<algorithm>)", name ? name : "");
  /* an algorithm chosen for one collective stays (SimGrid: smpi/<collective> wins) */
  for (int k = 0; k < COLL_NKINDS; k++)
    if (s->algo[k] <= 0) s->algo[k] = -mode;
  return 0;
}

int coll_selector_mode(const coll_selector *s) {
  for (int k = 0; k < COLL_NKINDS; k++)
    if (s->algo[k] < 0) return -s->algo[k];
  return COLL_SEL_DEFAULT;
}

const char *coll_selector_name(const coll_selector *s, coll_kind k) {
  int na;
  const coll_algo *a = coll_algos(k, &na);
  if (a && s->algo[k] < 0) return coll_selector_mode_name(-s->algo[k]);
  if (!a || s->algo[k] < 0 || s->algo[k] >= na) return "?";
  return a[s->algo[k]].name;
}

/* What "default" runs, in the words of the table above (the name of the equal algorithm when
 * there is one): what results report as the algorithm used. */
static const char *const default_algorithm[COLL_NKINDS] = {
  [COLL_BARRIER] = "ompi_basic_linear", [COLL_BCAST] = "binomial_tree", [COLL_REDUCE] = "linear",
  [COLL_ALLREDUCE] = "reduce+bcast", [COLL_ALLTOALL] = "ompi", [COLL_ALLTOALLV] = "linear",
  [COLL_GATHER] = "linear", [COLL_ALLGATHER] = "linear", [COLL_GATHERV] = "linear",
  [COLL_ALLGATHERV] = "linear", [COLL_SCATTER] = "linear", [COLL_SCATTERV] = "linear",
  [COLL_REDUCESCATTER] = "reduce+scatterv|mpich", [COLL_SCAN] = "linear", [COLL_EXSCAN] = "linear",
};

const char *coll_selector_algorithm(const coll_selector *s, coll_kind k) {
  if ((unsigned)k < COLL_NKINDS && s->algo[k] == 0) return default_algorithm[k];
  return coll_selector_name(s, k);
}

/* Checks what every algorithm relies on, so that they need not: a valid rank, size and root,
 * and the per-rank size vectors of the v-variants. */
static int check_call(const coll_call *c, psim_err *err) {
  const char *name = coll_kind_name(c->kind);
  if (c->size < 1 || c->rank < 0 || c->rank >= c->size)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s: rank %d out of range for %d ranks",
                     name, c->rank, c->size);
  int rooted = c->kind == COLL_BCAST || c->kind == COLL_REDUCE || c->kind == COLL_GATHER ||
               c->kind == COLL_GATHERV || c->kind == COLL_SCATTER || c->kind == COLL_SCATTERV;
  if (rooted && (c->root < 0 || c->root >= c->size))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0,
                     "%s: root %d out of range (expected 0..%d for %d ranks)", name, c->root,
                     c->size - 1, c->size);
  if (!(c->bytes >= 0) || !(c->bytes2 >= 0))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s: negative or invalid message size", name);
  int need_counts = c->kind == COLL_ALLTOALLV || c->kind == COLL_SCATTERV;
  int need_counts2 = c->kind == COLL_ALLTOALLV || c->kind == COLL_GATHERV ||
                     c->kind == COLL_ALLGATHERV || c->kind == COLL_REDUCESCATTER;
  if ((need_counts && !c->counts) || (need_counts2 && !c->counts2))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s: missing per-rank sizes", name);
  for (int i = 0; (need_counts || need_counts2) && i < c->size; i++)
    if ((need_counts && !(c->counts[i] >= 0)) || (need_counts2 && !(c->counts2[i] >= 0)))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s: negative size for rank %d", name, i);
  return 0;
}

/* The pairwise algorithms exist for a power-of-two number of ranks only: SimGrid 3.32 stops
 * the simulation on any other ("... pair algorithm can't be used with non power of two number
 * of processes!"); psim runs the ring exchange there, MPICH's pairwise algorithm for that case
 * (coll_alltoall.c, coll_allgather.c), and says so once per collective and process. */
static void warn_pair(coll_kind k, const char *algo, int size) {
  static int warned[COLL_NKINDS];
  if (strcmp(algo, "pair") != 0 || coll_is_pof2(size) || warned[k]) return;
  if (k != COLL_ALLTOALL && k != COLL_ALLTOALLV && k != COLL_ALLGATHER) return;
  warned[k] = 1;
  fprintf(stderr, "psim: warning: smpi/%s:pair needs a power-of-two number of ranks (SimGrid 3.32 "
          "stops on %d); psim runs the ring exchange there, as MPICH does\n", coll_kind_name(k), size);
}

/* The index of algorithm `name` in collective k's table (0, "default", if absent). */
static int algo_index(coll_kind k, const char *name) {
  int na;
  const coll_algo *a = coll_algos(k, &na);
  for (int i = 0; i < na; i++)
    if (!strcmp(a[i].name, name)) return i;
  return 0;
}

/* MPICH's choice for call c (MPICH 3 and 4's default selection, the thresholds of its
 * MPIR_CVAR_*_MSG_SIZE variables), among the algorithms psim has; where MPICH would run one
 * psim lacks, the nearest psim has is named and docs/models.md says so. Sizes are the call's
 * bytes: c->bytes per rank (alltoall: per destination), c->bytes2 the block received from each
 * rank (allgather). */
static const char *mpich_choice(const coll_call *c) {
  int n = c->size, pof2 = coll_is_pof2(n);
  double dts = c->dtsize > 0 ? c->dtsize : 1;
  switch (c->kind) {
  case COLL_BARRIER: return "ompi_bruck";   /* dissemination, as MPICH's barrier */
  case COLL_BCAST:   /* short (12288 B) or fewer than 8 ranks: binomial; medium (524288 B) on a
                      * power of two: scatter + recursive-doubling allgather; else ring allgather */
    if (c->bytes < 12288 || n < 8) return "binomial_tree";
    if (c->bytes < 524288 && pof2) return "scatter_rdb_allgather";
    return "scatter_LR_allgather";
  case COLL_REDUCE:  /* binomial; MPICH's reduce-scatter + gather for long commutative ones is
                      * not among psim's algorithms */
    return "binomial";
  case COLL_ALLREDUCE: {
    /* above 2048 bytes, commutative, at least one element per rank of the largest power of two
     * under n: Rabenseifner's reduce-scatter + allgather; else recursive doubling */
    int p2 = coll_pof2_floor(n);
    double count = c->bytes / dts;
    int commute = !c->has_op || c->commutative;
    if (c->bytes > 2048 && count >= p2 && commute) return "rab_rdb";
    return "rdb";
  }
  case COLL_ALLTOALL:   /* per destination: under 256 B on 8 ranks or more, Bruck; under 32768 B,
                         * every isend and irecv at once; above, pairwise exchange */
    if (c->bytes < 256 && n >= 8) return "bruck";
    if (c->bytes < 32768) return "basic_linear";
    return pof2 ? "pair" : "ring";
  case COLL_ALLGATHER: {   /* total under 524288 B on a power of two: recursive doubling; under
                            * 81920 B: Bruck; else ring */
    double total = c->bytes2 * n;
    if (total < 524288 && pof2) return "rdb";
    if (total < 81920) return "bruck";
    return "ring";
  }
  case COLL_ALLGATHERV: {
    double total = 0;
    for (int i = 0; c->counts2 && i < n; i++) total += c->counts2[i];
    return total < 81920 ? "default" : "ring";
  }
  case COLL_GATHER: return "ompi_binomial";    /* MPICH's gather and scatter: binomial trees */
  case COLL_SCATTER: return "ompi_binomial";
  case COLL_REDUCESCATTER:   /* pairwise for long commutative ones, recursive doubling for a
                              * non-commutative operator (recursive halving, MPICH's short
                              * commutative choice, is not psim's: SimGrid's default then) */
    if (c->has_op && !c->commutative) return "mpich_rdb";
    {
      double total = 0;
      for (int i = 0; c->counts2 && i < n; i++) total += c->counts2[i];
      return total >= 524288 ? "mpich_pair" : "default";
    }
  default: return "default";   /* alltoallv, gatherv, scatterv, scan, exscan: linear, as MPICH's */
  }
}

/* Open MPI 4's choice (its tuned component's fixed decisions) where psim has the algorithm:
 * allreduce and alltoall (coll_allreduce_ompi.c, coll_alltoall.c: its decision tables), barrier
 * (recursive doubling on a power of two, Bruck's dissemination else). Its bcast, reduce,
 * gather, scatter and allgather decisions choose among algorithms psim lacks (split binary
 * trees, pipelines, neighbour exchange): SimGrid's default runs them, Open MPI's basic ones. */
static const char *ompi_choice(const coll_call *c) {
  switch (c->kind) {
  case COLL_BARRIER: return coll_is_pof2(c->size) ? "ompi_recursivedoubling" : "ompi_bruck";
  case COLL_ALLREDUCE: return "ompi";
  case COLL_ALLTOALL: return "ompi";
  default: return "default";
  }
}

int coll_build(const coll_selector *s, const coll_call *c, coll_prog *out, psim_err *err) {
  unsigned k = (unsigned)c->kind;
  if (k >= COLL_NKINDS)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "unknown collective kind %u", k);
  if (check_call(c, err)) return -1;
  int na;
  const coll_algo *a = coll_algos((coll_kind)k, &na);
  int i = s ? s->algo[k] : 0;
  if (i == -COLL_SEL_MPICH) i = algo_index((coll_kind)k, mpich_choice(c));
  else if (i == -COLL_SEL_OMPI) i = algo_index((coll_kind)k, ompi_choice(c));
  if (i < 0 || i >= na) i = 0;
  warn_pair((coll_kind)k, a[i].name, c->size);
  return a[i].fn(s, c, out, err);
}
