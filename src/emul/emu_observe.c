/* psim run's observers (emu_opts.observers): the same replay_observer callbacks as a trace
 * replay, so the trace writers, the recording behind the report and the critical path, and
 * the progress line serve psim run too. An MPI call is reported as the trace action of the
 * same meaning (MPI_Isend -> isend, MPI_Waitall -> waitall, ...), a computation (measured
 * CPU burst or psim_compute) as compute, psim_sleep as sleep; messages as they arrive. An MPI
 * call carries the file and line it was made at when include/psim_mpi/mpi.h's macro recorded
 * them just before it (psim_at: the blocking calls of a psimcc build; `at` below); other
 * calls (non-blocking ones) and computations have none: the site psim_at left would be an
 * earlier call's. A precompiled MPICH or Open MPI binary's blocking calls get the site its
 * stack gives (emu_site.c): file:line with debug information, else function+offset. */
#include <stdlib.h>
#include <string.h>

#include "emul/emu.h"

/* at: mpi.h wraps the call in psim_at(__FILE__, __LINE__) */
static const struct { const char *name; tit_kind k; int at; } CALLS[] = {
   {"MPI_Send", TIT_SEND, 1},           {"MPI_Ssend", TIT_SEND, 1},          {"MPI_Bsend", TIT_SEND, 0},
   {"MPI_Rsend", TIT_SEND, 0},          {"MPI_Isend", TIT_ISEND, 0},         {"MPI_Issend", TIT_ISEND, 0},
   {"MPI_Ibsend", TIT_ISEND, 0},        {"MPI_Irsend", TIT_ISEND, 0},        {"MPI_Recv", TIT_RECV, 1},
   {"MPI_Irecv", TIT_IRECV, 0},         {"MPI_Probe", TIT_RECV, 1},          {"MPI_Sendrecv", TIT_SENDRECV, 1},
   {"MPI_Sendrecv_replace", TIT_SENDRECV, 1}, {"MPI_Wait", TIT_WAIT, 1},           {"MPI_Waitany", TIT_WAIT, 1},
   {"MPI_Waitall", TIT_WAITALL, 1},     {"MPI_Waitsome", TIT_WAITALL, 1},    {"MPI_Test", TIT_TEST, 0},
   {"MPI_Testany", TIT_TEST, 0},        {"MPI_Testall", TIT_TEST, 0},        {"MPI_Testsome", TIT_TEST, 0},
   {"MPI_Iprobe", TIT_TEST, 0},         {"MPI_Barrier", TIT_BARRIER, 1},     {"MPI_Bcast", TIT_BCAST, 1},
   {"MPI_Reduce", TIT_REDUCE, 1},       {"MPI_Allreduce", TIT_ALLREDUCE, 1}, {"MPI_Alltoall", TIT_ALLTOALL, 1},
   {"MPI_Alltoallv", TIT_ALLTOALLV, 0}, {"MPI_Gather", TIT_GATHER, 1},       {"MPI_Gatherv", TIT_GATHERV, 0},
   {"MPI_Allgather", TIT_ALLGATHER, 1}, {"MPI_Allgatherv", TIT_ALLGATHERV, 0}, {"MPI_Scatter", TIT_SCATTER, 1},
   {"MPI_Scatterv", TIT_SCATTERV, 0},   {"MPI_Reduce_scatter", TIT_REDUCESCATTER, 0}, {"MPI_Scan", TIT_SCAN, 0},
   {"MPI_Exscan", TIT_EXSCAN, 0},       {"MPI_Init", TIT_INIT, 0},           {"MPI_Finalize", TIT_FINALIZE, 0},
   {"MPI_Migrate", TIT_MIGRATE, 0},     {"psim_compute", TIT_COMPUTE, 0},    {"PSIM_SAMPLE", TIT_COMPUTE, 0},
   {"psim_sleep", TIT_SLEEP, 0},
};

/* The call's kind, and whether its site was recorded (*at). */
static tit_kind call_kind(const char *name, int *at) {
  *at = 0;
  for (size_t i = 0; name && i < sizeof CALLS / sizeof *CALLS; i++)
    if (!strcmp(CALLS[i].name, name)) { *at = CALLS[i].at; return CALLS[i].k; }
  return TIT_NOOP;   /* communicator management, MPI_Start, MPI_Wtime...: no state of its own */
}

/* coll_kind and tit_kind list the collectives in one order (include/psim/coll.h, trace.h) */
static tit_kind coll_tit_kind(coll_kind k) { return (tit_kind)(TIT_BARRIER + (int)k); }

static double *copy_counts(const double *v, int n) {
  if (!v) return NULL;
  double *c = xmalloc((size_t)n * sizeof *c);
  memcpy(c, v, (size_t)n * sizeof *c);
  return c;
}

void emu_observe_coll(emu_rank *k, const coll_call *x, double flops) {
  free(k->oc.counts);
  free(k->oc.counts2);
  k->oc.set = 1;
  k->oc.kind = (int)coll_tit_kind(x->kind);
  k->oc.root = x->root;
  k->oc.n = x->size;
  k->oc.bytes = x->bytes, k->oc.bytes2 = x->bytes2, k->oc.amount = flops;
  k->oc.counts = copy_counts(x->counts, x->size);
  k->oc.counts2 = copy_counts(x->counts2, x->size);
}

void emu_observe_action(emu_sim *S, int rank, const char *call, tit_kind k, double start, double end) {
  if (!S->o->nobservers) return;
  tit_action a;
  memset(&a, 0, sizeof a);
  int at = 0;
  a.kind = call ? call_kind(call, &at) : k;
  a.rank = rank;
  emu_rank *kr = &S->ranks[rank];
  /* a collective on MPI_COMM_WORLD: its arguments, as a trace line gives them */
  if (call && kr->oc.set && kr->oc.kind == (int)a.kind) {
    a.run_fields = 1;
    a.peer = a.peer2 = a.tag = -1;
    a.root = kr->oc.root;
    a.bytes = kr->oc.bytes, a.bytes2 = kr->oc.bytes2, a.amount = kr->oc.amount;
    a.counts = kr->oc.counts, a.counts2 = kr->oc.counts2, a.ncounts = kr->oc.n;
  }
  if (call) kr->oc.set = 0;   /* another call (MPI_Comm_split's allgather...) reports its own */
  if (at && kr->file && kr->line > 0) { a.file = kr->file; a.line = kr->line; }
  else if (at && !kr->file) {   /* a program psimcc did not build */
    int ln = 0;
    if (emu_site_of_call(S, rank, &a.file, &ln)) a.line = ln;
  }
  const char *text = call ? call : a.kind == TIT_SLEEP ? "sleep" : "compute";
  for (int i = 0; i < S->o->nobservers; i++)
    if (S->o->observers[i].action)
      S->o->observers[i].action(S->o->observers[i].ctx, rank, &a, text, (int)strlen(text), start, end);
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  emu_sim *S = ctx;
  for (int i = 0; i < S->o->nobservers; i++)
    if (S->o->observers[i].message) S->o->observers[i].message(S->o->observers[i].ctx, send, recv);
}

void emu_observe_start(emu_sim *S) {
  if (S->o->nobservers) mpi_world_observe(S->world, on_message, S);
}

void emu_observe_end(emu_sim *S, double time) {
  for (int i = 0; i < S->o->nobservers; i++)
    if (S->o->observers[i].end) S->o->observers[i].end(S->o->observers[i].ctx, time);
  /* the observers copied the call sites they keep */
  emu_sites_free(S->sites);
  S->sites = NULL;
}
