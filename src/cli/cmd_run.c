/* psim run: execution-driven simulation of a program built with psimcc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_args.h"
#include "cli/cpu_help.h"
#include "cli/dyn_args.h"
#include "cli/run_observe.h"
#include "psim/emul.h"
#include "psim/observe.h"

static const char *HELP =
    "usage: psim run [options] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs an MPI program built with psimcc (or, unchanged, by MPICH's or Open MPI's mpicc,\n"
    "mpicxx or mpifort) inside the simulator: every rank really executes (one at a time, as\n"
    "coroutines in this process), messages carry the real data, and psim\n"
    "keeps simulated time. A rank's computation costs its CPU time between MPI calls scaled to\n"
    "the simulated host (host speed ref / host speed), or what it declares with psim_compute,\n"
    "psim_sleep, PSIM_SAMPLE; communication is modelled as in psim replay. The program's own\n"
    "output goes to stdout; then the same summary as psim replay.\n"
    "\n"
    "options:\n"
    "  --np N              number of ranks (default 1)\n"
    "  --platform FILE     SimGrid platform XML, or flat:N[,SPEED[,BW[,LAT]]] (as replay);\n"
    "                      default: the embedded 64-node cluster\n"
    "  --hostfile FILE     host of each rank, one per line ('host:N' = N lines)\n"
    "  --host-speed-ref F  this machine's flop/s (default: measured for 0.2 s, see psim\n"
    "                      calibrate); measured CPU seconds x F = flops on the simulated host\n"
    "  --no-measure        ignore measured CPU time: only declared costs count (exact times)\n"
    "  --cpu-threshold S   ignore measured bursts shorter than S seconds (default 1e-6)\n"
    "  --network MODEL     smpi (default), constant or star (DPS's star: each host's port\n"
    "                      shared equally by its transfers; --cfg star/bandwidth:V,\n"
    "                      star/latency:V override every port)\n"
    "  --machine FILE      CLUE machine file: a host's factor multiplies its measured CPU\n"
    "                      time; send/recv/pack delays, pair transmission times\n"
    "                      (docs/models.md); --cfg cpu/factor:X multiplies every factor\n"
    "  --cfg KEY:VALUE     model property as in psim replay; smpi/test:S, smpi/iprobe:S\n"
    "                      inject SMPI's sleeps into unsuccessful polls (default: none, a\n"
    "                      rank polling in vain waits for the next event); smpi/wtime:S\n"
    "                      what a read of MPI_Wtime costs (default 1e-8, as in SMPI);\n"
    "                      disk/bandwidth:BW the disk of hosts without a <disk> for MPI-IO\n"
    "                      (default: none, their I/O takes no time); run/spin-limit:N\n"
    "                      failed polls with only the pollers' own sleeps under way that\n"
    "                      make a livelock, reported as a deadlock (default 1048576; 0: never);\n"
    "                      run/lock-limit:S wall seconds a rank may wait for a lock outside\n"
    "                      MPI that another rank holds, nothing else running (default 10);\n"
    "                      run/thread-level:L the most MPI_Init_thread provides: single,\n"
    "                      funneled (default), serialized, multiple; only a rank's main\n"
    "                      thread can call MPI whatever it says (cp2k asks serialized)\n"
    "                      smpi/coll-selector:default|mpich|ompi the collective algorithms\n"
    "                      (default: the program's MPI's: mpich or ompi for mpicc binaries,\n"
    "                      SimGrid's default for psimcc builds; the summary says which)\n"
    "                      run/charge-copies:yes|no the MPI's own work is the rank's\n"
    "                      computation: packing non-contiguous datatypes, sends to self,\n"
    "                      collectives' local copies, measured (default yes)\n"
    CLI_CPU_HELP
    "  --stack-size SIZE   stack of each rank (default 8M; K, M, G suffixes)\n"
    "  --compute-limit S   stop the run when a rank runs its own code S seconds (wall time)\n"
    "                      without calling MPI: ranks take turns on one core, so one that\n"
    "                      never calls MPI again would hang the run (default 300; 0: none)\n"
    "  --shared-globals    load the program once: all ranks share its global variables\n"
    "                      (default: one private copy of the program per rank)\n"
    "  --privatize-libs LIST  comma-separated shared libraries that get a private copy per\n"
    "                      rank too, with their globals (a program built by a real mpicc,\n"
    "                      as SimGrid's smpi/privatize-libs); the libraries it needs that call\n"
    "                      MPI (NEEDED libmpich.so.12 or libmpi.so.40) get one\n"
    "                      without being listed\n"
    "  --json FILE         write the results as JSON ('-' = stdout, then the program's own\n"
    "                      output goes to stderr: stdout holds only the JSON)\n"
    "  --actions FILE      log each MPI call: END_TIME RANK CALL DURATION ('-': as --json -)\n"
    "  --trace FILE        timeline of the run: FILE.paje (Paje: ViTE, pj_dump) or FILE.json\n"
    "                      (Chrome trace events: Perfetto); repeatable (as psim replay)\n"
    "  --report FILE.html  the HTML report of the run (timeline, critical path; see psim report)\n"
    "  --timeline          add the report's data to --json (psim report draws it)\n"
    "  --progress          progress on stderr (default: only when stderr is a terminal);\n"
    "                      --no-progress silences it\n"
    "  --trace-tit DIR     record the run as a TIT trace (DIR/rank-N.txt and DIR/list) that\n"
    "                      psim replay DIR (same platform, hostfile, --np) replays to the same\n"
    "                      simulated time: emulate once, replay many\n"
    "  --measure-tasks FILE  PSIM_TASK blocks run; write each task's cost per iteration\n"
    "  --task-costs FILE   PSIM_TASK blocks are skipped; inject cost x iterations from FILE\n"
    "                      (as --measure-tasks writes it; exact times with --no-measure)\n"
    CLI_DYN_HOST_HELP
    "  --quiet             no summary\n"
    "  --singleton         run as the program itself would (what ./prog does for a program\n"
    "                      built with psimcc): no summary nor notes of psim's own, and psim\n"
    "                      exits with the status\n"
    "                      the program returned or passed to exit (the first non-zero rank's)\n"
    "\n"
    "example:\n"
    "  build/psimcc -O2 -o ring examples/ring.c\n"
    "  psim run --np 8 -- ./ring 1000\n"
    "  psim run --np 8 --cfg cpu/recv-cost:0.5 --cfg background/poisson:0.1,2,0,1 -- ./ring 1000\n"
    "  build/psimcc -O2 -o lu_dps examples/lu_dps.c\n"
    "  psim run --np 8 --no-measure --host-events 'iter=1:remove=4-7' -- ./lu_dps 1296 162\n"
    "  psim run --np 8 --trace-tit /tmp/ring.tit -- ./ring 1000 && psim replay --np 8 /tmp/ring.tit\n"
    "  printf 'host node-* factor=2 send=0:20us,1MB:60us\\n' > /tmp/m\n"
    "  psim run --np 8 --network star --cfg star/bandwidth:11.85MBps --machine /tmp/m -- ./ring 1000\n"
    "  psim run --np 8 --report /tmp/ring.html --trace /tmp/ring.json -- ./ring 1000\n"
    "  mpicc.mpich -O2 -o /tmp/ring_mpich examples/ring.c     # MPICH's own mpicc\n"
    "  psim run --np 8 -- /tmp/ring_mpich 1000\n"
    "  mpicc.openmpi -O2 -o /tmp/ring_ompi examples/ring.c    # Open MPI's own mpicc\n"
    "  psim run --np 8 -- /tmp/ring_ompi 1000\n"
    "  mpicc.mpich -O2 -o /tmp/pdg examples/pdgemm_scalapack.c -lscalapack-mpich -lopenblas -lm\n"
    "  psim run --np 4 -- /tmp/pdg 200    # BLACS's globals: one copy per rank\n"
    "\n"
    "Exit status: 0 ok, 2 bad input, 3 deadlock (blocked ranks and their calls are listed),\n"
    "4 the application failed (a rank crashed, overflowed its stack, an MPI error, MPI_Abort).\n";

static int parse_size(const char *v, size_t *out) {
  char *end;
  double x = strtod(v, &end);
  if (end == v || x <= 0) return -1;
  double mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1024, end++;
  else if (*end == 'm' || *end == 'M') mul = 1024.0 * 1024, end++;
  else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024, end++;
  if (*end == 'i') end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return -1;
  *out = (size_t)(x * mul);
  return 0;
}

static int split_cfg(char *s, char **key, char **value) {
  char *sep = strpbrk(s, ":=");
  if (!sep) return -1;
  *sep = 0;
  *key = s;
  *value = sep + 1;
  return 0;
}

/* Points fd 1 at stderr, for the program's output, and returns psim's stdout as a new
 * descriptor (stdout_back restores it), or -1 with a message. */
static int program_output_to_stderr(void) {
  cli_flush_stdout();
  int fd = dup(1);
  if (fd < 0 || dup2(2, 1) < 0) {
    perror("psim run: keeping stdout for --json - / --actions -");
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

/* fd 1 is psim's stdout again (after the program's output is flushed to stderr). */
static void stdout_back(int *saved) {
  if (*saved < 0) return;
  fflush(stdout);
  dup2(*saved, 1);
  close(*saved);
  *saved = -1;
}

/* Which collective selection ran, and why (the JSON's "collectives" names it per collective). */
static void selector_line(FILE *f, const coll_selector *c, int prog_mpi, int given) {
  static const char *const whose[] = {"SimGrid's", "MPICH's algorithm selection", "Open MPI's algorithm selection"};
  static const char *const built[] = {"psimcc", "MPICH", "Open MPI"};
  int mode = coll_selector_mode(c);
  if (given)
    fprintf(f, "collectives: smpi/coll-selector:%s (%s, as given)\n", coll_selector_mode_name(mode), whose[mode]);
  else
    fprintf(f, "collectives: smpi/coll-selector:%s (%s: the program was built with %s)\n",
            coll_selector_mode_name(mode), whose[mode], built[prog_mpi]);
}

int cmd_run(int argc, char **argv) {
  const char *platform_path = NULL, *hostfile = NULL, *json = NULL, *actions = NULL, *network = NULL;
  const char *privatize = NULL;
  const char *trace_tit = NULL, *measure_tasks = NULL, *task_costs = NULL, *machine_file = NULL, *background = NULL;
  machine *mach = NULL;
  long np = 1;
  int quiet = 0, shared = 0, measure = 1, prog_at = -1, singleton = 0, status = 0;
  double speed_ref = 0, threshold = -1, compute_limit = -1;
  size_t stack = 0;
  VEC(char *) cfgs = {0};
  cli_dyn dyn;
  cli_dyn_init(&dyn);
  int rc = 2, dk;
  cli_observe obsv;
  cli_observe_init(&obsv, isatty(2));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ko = cli_observe_option(&obsv, "run", argc, argv, &i);
    if (ko < 0) goto out;
    if (ko > 0) continue;
#define NEEDV() do { if (!v) { rc = cli_usage("run", "%s needs a value", a); goto out; } i++; } while (0)
    if (!strcmp(a, "--")) { prog_at = i + 1; break; }
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    else if ((dk = cli_dyn_option(&dyn, "run", "--host-events", argc, argv, &i)) != 0) { if (dk < 0) goto out; }
    else if (!strcmp(a, "--platform")) { NEEDV(); platform_path = v; }
    else if (!strcmp(a, "--hostfile")) { NEEDV(); hostfile = v; }
    else if (!strcmp(a, "--np") || !strcmp(a, "-np") || !strcmp(a, "-n")) {
      NEEDV();
      if ((np = cli_int("run", a, v)) <= 0) { if (np == 0) cli_usage("run", "--np must be at least 1"); goto out; }
    }
    else if (!strcmp(a, "--host-speed-ref")) {
      NEEDV();
      int w = 0;
      char why[256];
      if (psim_unit_speed(v, &speed_ref, &w, why, sizeof why) < 0 || !(speed_ref > 0)) {
        rc = cli_usage("run", "--host-speed-ref expects a speed in flop/s (e.g. 2e9 or 2Gf), got '%s'", v);
        goto out;
      }
    }
    else if (!strcmp(a, "--compute-limit")) {
      NEEDV();
      char *end;
      compute_limit = strtod(v, &end);
      if (end == v || *end || !(compute_limit >= 0) || !isfinite(compute_limit)) { rc = cli_usage("run", "--compute-limit expects seconds (0: no limit), got '%s'", v); goto out; }
    }
    else if (!strcmp(a, "--cpu-threshold")) {
      NEEDV();
      char *end;
      threshold = strtod(v, &end);
      if (end == v || *end || !(threshold >= 0) || !isfinite(threshold)) { rc = cli_usage("run", "--cpu-threshold expects seconds, got '%s'", v); goto out; }
    }
    else if (!strcmp(a, "--no-measure")) measure = 0;
    else if (!strcmp(a, "--network")) { NEEDV(); network = v; }
    else if (!strcmp(a, "--machine")) { NEEDV(); machine_file = v; }
    else if (!strcmp(a, "--background")) { NEEDV(); background = v; }
    else if (!strcmp(a, "--cfg")) { NEEDV(); VEC_PUSH(cfgs, (char *)v); }
    else if (!strncmp(a, "--cfg=", 6)) VEC_PUSH(cfgs, (char *)a + 6);
    else if (!strcmp(a, "--stack-size")) {
      NEEDV();
      if (parse_size(v, &stack) < 0 || stack < 65536) { rc = cli_usage("run", "--stack-size expects a size of at least 64K (e.g. 16M), got '%s'", v); goto out; }
    }
    else if (!strcmp(a, "--shared-globals")) shared = 1;
    else if (!strcmp(a, "--privatize-libs")) { NEEDV(); privatize = v; }
    else if (!strcmp(a, "--json")) { NEEDV(); json = v; }
    else if (!strcmp(a, "--actions")) { NEEDV(); actions = v; }
    else if (!strcmp(a, "--trace-tit")) { NEEDV(); trace_tit = v; }
    else if (!strcmp(a, "--measure-tasks")) { NEEDV(); measure_tasks = v; }
    else if (!strcmp(a, "--task-costs")) { NEEDV(); task_costs = v; }
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = 1;
    else if (!strcmp(a, "--singleton")) singleton = quiet = 1;
    else if (a[0] == '-' && a[1]) { rc = cli_usage("run", "unknown option '%s'", a); goto out; }
    else { prog_at = i; break; }
#undef NEEDV
  }
  if (prog_at < 0 || prog_at >= argc) { rc = cli_usage("run", "no program given (psim run --np N -- ./prog args)"); goto out; }
  if (measure_tasks && task_costs) { rc = cli_usage("run", "--measure-tasks and --task-costs exclude each other"); goto out; }
  if (cli_check_out(json) || cli_check_out(measure_tasks) || cli_check_out(trace_tit)) goto out;

  psim_err err;
  psim_err_clear(&err);
  /* the program first: before loading the platform and measuring the host speed */
  if (emu_prog_check(argv[prog_at], &err) < 0) { rc = cli_fail(&err); goto out; }
  platform *plat = NULL;
  char *warnings = NULL;
  if (platform_path) plat = plat_open(platform_path, &warnings, &err);
  else plat = plat_default();
  if (warnings) { fputs(warnings, stderr); free(warnings); }
  if (!plat) { rc = cli_fail(&err); goto out; }

  emu_opts o;
  emu_opts_init(&o, plat, (int)np);
  /* The collectives the program's MPI would run: a program built for MPICH or Open MPI takes
   * that MPI's algorithm selection (issue 34: psim run predicts the program as it runs for
   * real); psimcc's programs keep SimGrid's default, as psim replay does. An explicit
   * smpi/coll-selector (the platform's <config>, then --cfg) overrides it below. */
  int prog_mpi = emu_prog_mpi(argv[prog_at]), sel_given = 0;
  if (prog_mpi) coll_selector_use(&o.coll, prog_mpi == EMU_MPI_MPICH ? "mpich" : "ompi", NULL);
  int *hosts = NULL;
  FILE *af = NULL;
  int saved_stdout = -1;   /* psim's stdout while the program's output goes to stderr */
  replay_result res = {0};
  if (hostfile) {
    int n = plat_hostfile_load(plat, hostfile, &hosts, &err);
    if (n < 0) { rc = cli_fail(&err); goto done; }
    if (n == 0) { psim_errf(&err, PSIM_EXIT_INPUT, hostfile, 0, "the hostfile lists no host"); rc = cli_fail(&err); goto done; }
    o.hostfile = hosts;
    o.nhostfile = n;
  }
  for (int i = 0; i < plat_nconfig(plat); i++) {
    const char *k, *v;
    plat_config_at(plat, i, &k, &v);
    sel_given |= !strcmp(k, "smpi/coll-selector");
    psim_err e2;
    psim_err_clear(&e2);
    if (emu_opts_cfg(&o, k, v, &e2) < 0 && strncmp(e2.msg, "unknown configuration key", 25)) {
      /* name the platform file and the line, as replay does */
      psim_err_clear(&err);
      psim_errf(&err, PSIM_EXIT_INPUT, plat_name(plat), plat_config_line(plat, i), "<config>: %.1500s", e2.msg);
      rc = cli_fail(&err);
      goto done;
    }
  }
  for (size_t i = 0; i < cfgs.len; i++) {
    char *k, *v, *copy = xstrdup(cfgs.data[i]);
    if (split_cfg(copy, &k, &v) < 0) {
      free(copy);
      rc = cli_usage("run", "--cfg expects KEY:VALUE, got '%s'", cfgs.data[i]);
      goto done;
    }
    sel_given |= !strcmp(k, "smpi/coll-selector");
    int r = emu_opts_cfg(&o, k, v, &err);
    free(copy);
    if (r < 0) { rc = cli_fail(&err); goto done; }
  }
  if (background && emu_opts_cfg(&o, "background/trace", background, &err) < 0) { rc = cli_fail(&err); goto done; }
  if (network && net_model_parse(network, &o.net.model) < 0) {
    rc = cli_usage("run", "--network expects smpi, constant or star, got '%s'", network);
    goto done;
  }
  if (machine_file) {
    if (!(mach = cli_machine_load(machine_file, plat))) { rc = 2; goto done; }
    o.net.machine = mach;
  }
  if (!measure) o.measure = 0;
  o.singleton = singleton;
  if (threshold >= 0) o.cpu_threshold = threshold;
  if (compute_limit >= 0) o.compute_limit = compute_limit;
  if (stack) o.stack_size = stack;
  o.shared_globals = shared;
  o.privatize_libs = privatize;
  if (speed_ref > 0) o.host_speed_ref = speed_ref;
  o.trace_tit = trace_tit;
  o.measure_tasks = measure_tasks;
  o.task_costs = task_costs;
  o.status = &status;
  if ((rc = cli_dyn_setup(&dyn, "run", "--host-events", plat_nhosts(plat), cli_dyn_host_name, plat,
                          &o.move_policy)) != 0)
    goto done;
  rc = 2;
  if (dyn.spec) o.host_events = &dyn.ev;
  if (dyn.rank_memory >= 0) o.rank_memory = dyn.rank_memory;
  if ((o.measure || measure_tasks) && !(o.host_speed_ref > 0)) {
    o.host_speed_ref = emu_calibrate(0.2);
    if (!quiet) fprintf(stderr, "psim: host speed reference measured: %.4g flop/s (fix it with --host-speed-ref)\n", o.host_speed_ref);
  }
  o.program = argv[prog_at];
  o.argc = argc - prog_at;
  o.argv = argv + prog_at;
  /* --json - or --actions -: stdout holds only that output (for a pipe into a JSON reader), so
   * the program's own output (its printf, its Fortran units) goes to stderr during the run */
  if ((json && !strcmp(json, "-")) || (actions && !strcmp(actions, "-"))) {
    if ((saved_stdout = program_output_to_stderr()) < 0) { rc = 2; goto done; }
  }
  if (actions && !strcmp(actions, "-") && saved_stdout >= 0) {
    int fd = dup(saved_stdout);
    if (fd < 0 || !(af = fdopen(fd, "w"))) {
      if (fd >= 0) close(fd);
      perror("psim run: --actions -");
      rc = 2;
      goto done;
    }
  } else if (actions && !(af = cli_open_out(actions))) { rc = 2; goto done; }
  o.actions = af;
  {
    int *rh = obs_rank_hosts(plat, o.hostfile, o.nhostfile, (int)np);
    int k = cli_observe_setup(&obsv, plat, rh, (int)np);
    free(rh);
    if (k) { rc = k; goto done; }
  }
  o.observers = obsv.obs.data;
  o.nobservers = (int)obsv.obs.len;

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = emu_run(&o, &res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cli_flush_stdout();
  stdout_back(&saved_stdout);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (af) {
    int bad = cli_close_out(af, actions);
    af = NULL;
    if (bad) { rc = 2; goto done; }
  }
  /* --singleton: a status the program chose is the process's, as for any program */
  if (r < 0 && singleton && err.code == PSIM_EXIT_APP && status != 0) { rc = status & 255 ? status & 255 : 1; goto done; }
  if (r < 0 && err.code != PSIM_EXIT_DEADLOCK) { rc = cli_fail(&err); goto done; }

  const char *progs[1] = {o.program};
  run_meta m = {"run", plat_name(plat), net_model_name(o.net.model), progs, 1, plat, &o.coll,
                mach ? machine_path(mach) : NULL};
  {
    int k = cli_observe_finish(&obsv, &res, &m, json, r == 0, o.program);
    if (k) { rc = k; goto done; }
  }
  if (!quiet && !(json && !strcmp(json, "-")) && !(actions && !strcmp(actions, "-"))) {
    obs_write_summary(stdout, &res, &m);
    selector_line(stdout, &o.coll, prog_mpi, sel_given);
  }
  if (!quiet)
    fprintf(stderr, "psim: %d ranks, %llu MPI calls and computations, %llu messages in %.3f s wall (%.0f messages/s)\n",
            res.np, (unsigned long long)res.actions, (unsigned long long)res.messages, wall,
            wall > 0 ? (double)res.messages / wall : 0.0);
  if (r < 0) {
    fprintf(stderr, "psim: %s", res.deadlock);
    rc = PSIM_EXIT_DEADLOCK;
  } else {
    rc = 0;
  }
done:
  if (af) cli_close_out(af, actions);
  stdout_back(&saved_stdout);
  cli_observe_free(&obsv);
  replay_result_free(&res);
  free(hosts);
  machine_free(mach);
  plat_free(plat);
out:
  cli_dyn_free(&dyn);
  cli_observe_free(&obsv);
  VEC_FREE(cfgs);
  return rc;
}
