/* psim replay: replay a time-independent trace on a platform. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_emit.h"
#include "cli/dyn_args.h"
#include "cli/replay_mpi.h"
#include "cli/run_args.h"
#include "cli/run_observe.h"
#include "cli/sweep_cli.h"
#include "psim/observe.h"
#include "psim/replay.h"

static const char *HELP =
    "usage: psim replay [options] TRACE...\n"
    "\n"
    "Replays a time-independent trace (SimGrid's TIT format: per-rank actions with volumes in\n"
    "flops and bytes) on a described platform and predicts its run time.\n"
    "\n"
    "TRACE is one shared file holding every rank's lines, one file per rank (in rank order),\n"
    "a list file naming the per-rank files (what SimGrid's -replay takes), or a directory\n"
    "written by 'psim gen'. Files may be gzip- or zstd-compressed.\n"
    "\n"
    "options:\n"
    "  --platform FILE     SimGrid platform XML (v4.1); default: the embedded 64-node cluster\n"
    "                      (print it with 'psim platform --default')\n"
    "  --hostfile FILE     host of each rank, one per line ('host:N' = N lines); ranks cycle\n"
    "                      over the entries; default: the platform's hosts in order\n"
    "  --np N              number of ranks; default: the number of ranks in the trace\n"
    "  --network MODEL     smpi (default): SimGrid/SMPI's flow model with contention;\n"
    "                      constant: latency + size/bandwidth along the route, no contention;\n"
    "                      star: DPS's star, each host's port shared equally by its transfers\n"
    "                      (--cfg star/bandwidth:V, star/latency:V override every port)\n"
    "  --ref-speed FLOPS   a Paraver, Dimemas, GOAL, DUMPI or OTF2 trace's compute time becomes\n"
    "                      flops at this speed (default: the platform's host speed)\n"
    "  --compute-counter C a Paraver trace's compute from hardware counter C (e.g. PAPI_TOT_INS,\n"
    "                      or its event type), what it counted between two MPI calls\n"
    "  --compute-scale F   multiplies every compute volume read from such a trace\n"
    "  --machine FILE      CLUE machine file: host factors (computation time x factor),\n"
    "                      send/recv/pack delays, pair transmission times, changes at dates\n"
    "                      (docs/models.md); --cfg cpu/factor:X multiplies every factor\n"
    "  --cfg KEY:VALUE     set a model property, as SimGrid's --cfg (repeatable), e.g.\n"
    "                      network/TCP-gamma:4194304  network/crosstraffic:no  smpi/os:0:1e-6:1e-9\n"
    "                      smpi/bw-factor:0:1  smpi/send-is-detached-thresh:65536  smpi/test:1e-4\n"
    "                      smpi/<collective>:<algorithm>, e.g. smpi/allreduce:rdb smpi/bcast:flattree\n"
    "                      (psim replay --list-algorithms prints them all)\n"
    "                      network/solver:groups (the default: flows sharing a bottleneck solved as\n"
    "                      one) or network/solver:flows (each flow apart, the reference; same\n"
    "                      results within 1e-9)\n"
    CLI_CPU_HELP
    "  --json FILE         write the results as JSON ('-' = stdout)\n"
    "  --actions FILE      log each finished action: END_TIME RANK ACTION DURATION ('-' = stdout)\n"
    "  --trace FILE        write a timeline of the run: FILE.paje = Paje (ViTE, PajeNG's pj_dump),\n"
    "                      FILE.json = Chrome trace events (Perfetto, chrome://tracing), FILE.prv =\n"
    "                      Paraver (with FILE.pcf, FILE.row), FILE.otf2 = OTF2 (Vampir); repeatable\n"
    "  --trace-prv FILE    Paraver trace FILE (and its .pcf, .row), whatever its name\n"
    "  --trace-otf2 DIR    OTF2 archive DIR/traces.otf2 (Score-P's layout; psim replay DIR reads it)\n"
    "  --report FILE.html  write the HTML report of the run (charts, critical path; see psim report)\n"
    "  --timeline          add the report's data to --json: \"timeline\", \"comm_matrix\",\n"
    "                      \"critical_path\" (psim report turns that document into the HTML report)\n"
    "  --quiet             no summary on stdout\n"
    "  --progress          progress on stderr (default: only when stderr is a terminal)\n"
    "  --list-algorithms   print the collective algorithms and exit\n"
    CLI_DYN_HOST_HELP
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st     # a 16-rank trace (a directory)\n"
    "  psim replay /tmp/st                                   # on the embedded 64-node cluster\n"
    "  psim platform --default > /tmp/cluster.xml && printf 'node-0:8\\nnode-1:8\\n' > /tmp/hosts\n"
    "  psim replay --platform /tmp/cluster.xml --hostfile /tmp/hosts /tmp/st --json /tmp/st.json\n"
    "  psim replay /tmp/st --network star --cfg star/latency:1350us --cfg star/bandwidth:11.85MBps\n"
    "  printf 'host node-1? factor=2.5\\npair node-* node-* transmit=0:80us,1500:120us,1MB:9ms\\n' > /tmp/m\n"
    "  psim replay /tmp/st --machine /tmp/m\n"
    "  psim replay /tmp/st --cfg cpu/recv-cost:0.5 --cfg background/count:1 --json /tmp/cpu.json\n"
    "  psim replay /tmp/st --host-events 't=0.001:remove=8-15'   # 8 hosts leave at 1 ms\n"
    "  psim replay /tmp/st --trace-prv /tmp/st.prv            # Paraver: /tmp/st.prv, .pcf, .row\n"
    "\n"
    "Under mpirun (the MPI build, make mpi), one replay is spread over the processes: each runs\n"
    "the ranks of a block of hosts (--network constant only; docs/performance.md):\n"
    "  mpirun -np 2 build-mpi/psim replay --network constant /tmp/st --json /tmp/st2.json\n"
    "\n"
    "Exit status: 0 ok, 2 bad input (the message names the file and line), 3 deadlock (each\n"
    "blocked rank is listed with its pending action and where it comes from).\n";

static int list_algorithms(void) {
  for (int k = 0; k < COLL_NKINDS; k++) {
    char buf[1024];
    coll_algorithms((coll_kind)k, buf, sizeof buf);
    printf("%-14s %s\n", coll_kind_name((coll_kind)k), buf);
  }
  return 0;
}

int cmd_replay(int argc, char **argv) { return cmd_replay_with(argc, argv, NULL, NULL); }

/* argv[0] names the command in messages (psim demo runs this with "demo"); prepare, when
 * given, runs once the options are known to be good, before the trace is read. */
int cmd_replay_with(int argc, char **argv, int (*prepare)(void *ctx), void *ctx) {
  const char *cmd = argv[0];
  const char *json = NULL, *actions = NULL, *report = NULL;
  int quiet = 0, progress = isatty(2), timeline = 0;
  obs_record *rec = NULL;
  obs_progress *prog = NULL;
  obs_critpath cp = {0};
  cli_run run = {0};
  cli_dyn dyn;
  cli_dyn_init(&dyn);
  cli_trace_outs traces_out = {0};
  VEC(obs_trace *) writers = {0};
  VEC(replay_observer) obs = {0};
  FILE *af = NULL;
  replay_result res = {0};
  psim_err err;
  psim_err_clear(&err);
  int rc = 2;
  /* an MPI job (the MPI build under mpirun): one replay over its processes, process 0 writes */
  int me = 0, nprocs = sweep_mpi_init(&me), progress_asked = 0;
  replay_par par;
  int spread = replay_mpi_par(&par, nprocs, me);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int k = cli_dyn_option(&dyn, cmd, "--host-events", argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
    k = cli_run_option(&run, cmd, argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
    k = cli_trace_option(&traces_out, cmd, argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
#define NEEDV() do { if (!v) { rc = cli_usage(cmd, "%s needs a value", a); goto out; } i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    else if (!strcmp(a, "--list-algorithms")) { rc = list_algorithms(); goto out; }
    else if (!strcmp(a, "--json")) { NEEDV(); json = v; }
    else if (!strcmp(a, "--actions")) { NEEDV(); actions = v; }
    else if (!strcmp(a, "--report")) { NEEDV(); report = v; }
    else if (!strcmp(a, "--timeline")) timeline = 1;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = 1;
    else if (!strcmp(a, "--progress")) progress = progress_asked = 1;
    else if (!strcmp(a, "--no-progress")) progress = 0;
    else { rc = cli_usage(cmd, "unknown option '%s'", a); goto out; }
#undef NEEDV
  }
  if (spread && !progress_asked) progress = 0;   /* a terminal's default: one line per process */
  if (cli_check_out(json) || cli_check_out(report)) goto out;
  if (prepare && (rc = prepare(ctx)) != 0) goto out;
  if ((rc = cli_run_setup(&run, cmd)) != 0) goto out;
  rc = 2;
  replay_opts *o = &run.o;
  if ((rc = cli_dyn_setup(&dyn, cmd, "--host-events", plat_nhosts(run.plat), cli_dyn_host_name,
                          run.plat, &o->move_policy)) != 0)
    goto out;
  rc = 2;
  if (dyn.spec) o->host_events = &dyn.ev;
  o->rank_memory = dyn.rank_memory >= 0 ? dyn.rank_memory : 1e6;
  /* Progress through an observer rather than replay's own line: it also gives the rate. */
  o->progress = 0;
  if (progress) {
    prog = obs_progress_new(stderr);
    VEC_PUSH(obs, obs_progress_observer(prog));
  }
  if (actions && !(af = cli_open_out(actions))) goto out;
  o->actions = af;
  for (size_t i = 0; i < traces_out.len; i++) {
    obs_trace *t = obs_trace_open_as(traces_out.data[i].path, traces_out.data[i].format, run.plat, run.rank_host,
                                     (int)run.np, &err);
    if (!t) { rc = cli_fail(&err); goto out; }
    VEC_PUSH(writers, t);
    VEC_PUSH(obs, obs_trace_observer(t));
  }
  if (timeline || report) {
    rec = obs_record_new((int)run.np, 0);
    VEC_PUSH(obs, obs_record_observer(rec));
  }
  o->observers = obs.data;
  o->nobservers = (int)obs.len;
  if (spread) o->par = &par;

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = replay_run(run.src, o, &res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (af) {
    int bad = cli_close_out(af, actions);
    af = NULL;
    if (bad) goto out;
  }
  if (r < 0 && err.code != PSIM_EXIT_DEADLOCK) { rc = cli_fail(&err); goto out; }
  if (spread && me != 0) {   /* process 0 writes the results */
    rc = r < 0 ? PSIM_EXIT_DEADLOCK : 0;
    goto out;
  }
  for (size_t i = 0; i < writers.len; i++) {
    psim_err e2;
    psim_err_clear(&e2);
    obs_trace *t = writers.data[i];
    writers.data[i] = NULL;
    if (obs_trace_close(t, &e2) < 0) { rc = cli_fail(&e2); goto out; }
  }

  run_meta m = cli_run_meta(&run, "replay");
  if (rec && r == 0) obs_critpath_compute(rec, &res, &cp);
  const obs_critpath *cpp = rec && r == 0 ? &cp : NULL;
  cli_result_doc doc = {&res, &m, rec, cpp, timeline};
  if ((rc = cli_emit(json, report, run.traces.data[0], cli_write_result_doc, &doc)) != 0) goto out;
  if (!quiet && !(json && !strcmp(json, "-")) && !(actions && !strcmp(actions, "-")))
    obs_write_summary(stdout, &res, &m);
  if (!quiet) {
    cli_flush_stdout(); /* the summary first, even when stdout is a pipe */
    fprintf(stderr, "psim: %llu actions in %.3f s wall (%.0f actions/s)\n",
            (unsigned long long)res.actions, wall, wall > 0 ? (double)res.actions / wall : 0.0);
    if (spread)
      fprintf(stderr, "psim: one replay over %d MPI processes: lookahead %g s, %llu windows\n", nprocs,
              res.lookahead, (unsigned long long)res.windows);
  }
  if (r < 0) {
    fprintf(stderr, "psim: %s", res.deadlock);
    rc = PSIM_EXIT_DEADLOCK;
  } else {
    rc = 0;
  }
out:
  if (af) cli_close_out(af, actions);
  for (size_t i = 0; i < writers.len; i++) {
    psim_err e2;
    obs_trace_close(writers.data[i], &e2);
  }
  obs_critpath_free(&cp);
  obs_record_free(rec);
  obs_progress_free(prog);
  replay_result_free(&res);
  cli_run_free(&run);
  cli_dyn_free(&dyn);
  VEC_FREE(traces_out);
  VEC_FREE(writers);
  VEC_FREE(obs);
  sweep_mpi_finalize();
  return rc;
}
