/* psim run's observers (emu_opts.observers): the same replay_observer callbacks as a trace
 * replay, so the trace writers, the recording behind the report and the critical path, and
 * the progress line serve psim run too. An MPI call is reported as the trace action of the
 * same meaning (MPI_Isend -> isend, MPI_Waitall -> waitall, ...), a computation (measured
 * CPU burst or psim_compute) as compute, psim_sleep as sleep; messages as they arrive. The
 * program's source lines are unknown: actions carry no file or line. */
#include <string.h>

#include "emul/emu.h"

static const struct { const char *name; tit_kind k; } CALLS[] = {
    {"MPI_Send", TIT_SEND},         {"MPI_Ssend", TIT_SEND},          {"MPI_Bsend", TIT_SEND},
    {"MPI_Rsend", TIT_SEND},        {"MPI_Isend", TIT_ISEND},         {"MPI_Issend", TIT_ISEND},
    {"MPI_Ibsend", TIT_ISEND},      {"MPI_Irsend", TIT_ISEND},        {"MPI_Recv", TIT_RECV},
    {"MPI_Irecv", TIT_IRECV},       {"MPI_Probe", TIT_RECV},          {"MPI_Sendrecv", TIT_SENDRECV},
    {"MPI_Sendrecv_replace", TIT_SENDRECV},
    {"MPI_Wait", TIT_WAIT},         {"MPI_Waitany", TIT_WAIT},        {"MPI_Waitall", TIT_WAITALL},
    {"MPI_Waitsome", TIT_WAITALL},  {"MPI_Test", TIT_TEST},           {"MPI_Testany", TIT_TEST},
    {"MPI_Testall", TIT_TEST},      {"MPI_Testsome", TIT_TEST},       {"MPI_Iprobe", TIT_TEST},
    {"MPI_Barrier", TIT_BARRIER},   {"MPI_Bcast", TIT_BCAST},         {"MPI_Reduce", TIT_REDUCE},
    {"MPI_Allreduce", TIT_ALLREDUCE}, {"MPI_Alltoall", TIT_ALLTOALL}, {"MPI_Alltoallv", TIT_ALLTOALLV},
    {"MPI_Gather", TIT_GATHER},     {"MPI_Gatherv", TIT_GATHERV},     {"MPI_Allgather", TIT_ALLGATHER},
    {"MPI_Allgatherv", TIT_ALLGATHERV}, {"MPI_Scatter", TIT_SCATTER}, {"MPI_Scatterv", TIT_SCATTERV},
    {"MPI_Reduce_scatter", TIT_REDUCESCATTER}, {"MPI_Scan", TIT_SCAN}, {"MPI_Exscan", TIT_EXSCAN},
    {"MPI_Init", TIT_INIT},         {"MPI_Finalize", TIT_FINALIZE},   {"MPI_Migrate", TIT_MIGRATE},
    {"psim_compute", TIT_COMPUTE},  {"PSIM_SAMPLE", TIT_COMPUTE},     {"psim_sleep", TIT_SLEEP},
};

static tit_kind call_kind(const char *name) {
  for (size_t i = 0; name && i < sizeof CALLS / sizeof *CALLS; i++)
    if (!strcmp(CALLS[i].name, name)) return CALLS[i].k;
  return TIT_NOOP;   /* communicator management, MPI_Start, MPI_Wtime...: no state of its own */
}

void emu_observe_action(emu_sim *S, int rank, const char *call, tit_kind k, double start, double end) {
  if (!S->o->nobservers) return;
  tit_action a;
  memset(&a, 0, sizeof a);
  a.kind = call ? call_kind(call) : k;
  a.rank = rank;
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
}
