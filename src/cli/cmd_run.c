/* psim run: execution-driven simulation of a program built with psimcc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
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
    "                      run/psimcc-coll-selector:default|mpich|ompi the selection of\n"
    "                      psimcc builds (psim calibrate --machine writes the MPI measured)\n"
    "                      run/iprobe-cost:S, run/test-cost:S CPU seconds each MPI_Iprobe,\n"
    "                      MPI_Test* costs the rank (default 0; calibrate writes them)\n"
    "                      run/coll-cost:S CPU seconds each collective call costs the rank\n"
    "                      beyond its messages (default 0; calibrate writes it)\n"
    "                      run/charge-copies:yes|no the MPI's own work is the rank's\n"
    "                      computation: packing non-contiguous datatypes, sends to self,\n"
    "                      collectives' local copies, reductions' operators, measured\n"
    "                      (default yes)\n"
    "                      run/pack-pipeline:BYTES chunk in which a non-contiguous message\n"
    "                      is packed, sent and unpacked, overlapping its transfer (default\n"
    "                      65536; 0: pack, transfer, unpack in sequence)\n"
    CLI_CPU_HELP
    "  --stack-size SIZE   stack of each rank (default 8M; K, M, G suffixes)\n"
    "  --repeat K          run the program K times and charge each burst of computation the\n"
    "                      least of its K measurements (the least disturbed, as the best of\n"
    "                      K real runs): a steadier prediction for K times the wall time;\n"
    "                      the program's stdout of the first K-1 runs is discarded\n"
    "  --compute-limit S   stop the run when a rank runs its own code S seconds (wall time)\n"
    "                      without calling MPI: ranks take turns on one core, so one that\n"
    "                      never calls MPI again would hang the run (default 300; 0: none)\n"
    CLI_THREADS_HELP
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
    "  --trace FILE        timeline of the run: FILE.paje (Paje: ViTE, pj_dump), FILE.json\n"
    "                      (Chrome trace events: Perfetto), FILE.prv (Paraver) or FILE.otf2\n"
    "                      (OTF2: Vampir); repeatable (as psim replay)\n"
    "  --trace-prv FILE    Paraver trace FILE (and its .pcf, .row), whatever its name\n"
    "  --trace-otf2 DIR    OTF2 archive DIR/traces.otf2 (Score-P's layout)\n"
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

/* Which collective selection ran, and why (the JSON's "collectives" names it per collective):
 * given (smpi/coll-selector), the platform's for psimcc's programs (run/psimcc-coll-selector),
 * or the program's own MPI's. */
static void selector_line(FILE *f, const coll_selector *c, int prog_mpi, int given, int platform) {
  static const char *const whose[] = {"SimGrid's", "MPICH's algorithm selection", "Open MPI's algorithm selection"};
  static const char *const built[] = {"psimcc", "MPICH", "Open MPI"};
  int mode = coll_selector_mode(c);
  if (platform && !given)
    fprintf(f, "collectives: smpi/coll-selector:%s (%s: run/psimcc-coll-selector, the MPI the platform was "
               "calibrated with, for a program built with psimcc)\n", coll_selector_mode_name(mode), whose[mode]);
  else if (given)
    fprintf(f, "collectives: smpi/coll-selector:%s (%s, as given)\n", coll_selector_mode_name(mode), whose[mode]);
  else
    fprintf(f, "collectives: smpi/coll-selector:%s (%s: the program was built with %s)\n",
            coll_selector_mode_name(mode), whose[mode], built[prog_mpi]);
}

/* psim run's options, as parse_args reads them from argv. */
typedef struct run_args {
  const char *platform_path, *hostfile, *json, *actions, *network, *privatize;
  const char *trace_tit, *measure_tasks, *task_costs, *machine_file, *background;
  long np, repeat;
  int quiet, shared, measure, singleton, threads;
  int prog_at;                /* argv index of the program */
  double speed_ref, threshold, compute_limit;   /* 0 / negative: not given */
  size_t stack;               /* 0: not given */
  VEC(char *) cfgs;
  cli_dyn dyn;                /* --host-events and its companions */
  cli_observe obsv;           /* --trace, --report, --timeline, --progress */
} run_args;

/* --help was given: printed, the command exits 0 (parse_args' return). */
#define RUN_HELP_SHOWN (-1)

/* A value that is not psim's own: the number, a speed or seconds, checked here so that a bad
 * one is a usage error before the program or the platform is read. 0, or -1 (printed). */
static int parse_value(run_args *a, const char *opt, const char *v) {
  if (!strcmp(opt, "--repeat")) {
    if ((a->repeat = cli_int("run", opt, v)) <= 0) { if (a->repeat == 0) cli_usage("run", "--repeat must be at least 1"); return -1; }
  } else if (!strcmp(opt, "--np") || !strcmp(opt, "-np") || !strcmp(opt, "-n")) {
    if ((a->np = cli_int("run", opt, v)) <= 0) { if (a->np == 0) cli_usage("run", "--np must be at least 1"); return -1; }
  } else if (!strcmp(opt, "--host-speed-ref")) {
    int w = 0;
    char why[256];
    if (psim_unit_speed(v, &a->speed_ref, &w, why, sizeof why) < 0 || !(a->speed_ref > 0))
      return cli_usage("run", "--host-speed-ref expects a speed in flop/s (e.g. 2e9 or 2Gf), got '%s'", v), -1;
  } else if (!strcmp(opt, "--compute-limit") || !strcmp(opt, "--cpu-threshold")) {
    int limit = !strcmp(opt, "--compute-limit");
    double *x = limit ? &a->compute_limit : &a->threshold;
    char *end;
    *x = strtod(v, &end);
    if (end == v || *end || !(*x >= 0) || !isfinite(*x))
      return cli_usage("run", limit ? "--compute-limit expects seconds (0: no limit), got '%s'"
                                     : "--cpu-threshold expects seconds, got '%s'", v), -1;
  } else if (!strcmp(opt, "--stack-size")) {
    if (parse_size(v, &a->stack) < 0 || a->stack < 65536)
      return cli_usage("run", "--stack-size expects a size of at least 64K (e.g. 16M), got '%s'", v), -1;
  }
  return 0;
}

/* The option taking a value whose string is kept as given (NULL: opt is not one of them). */
static const char **string_option(run_args *a, const char *opt) {
  static const char *const names[] = {"--platform", "--hostfile", "--network", "--machine", "--background",
                                      "--privatize-libs", "--json", "--actions", "--trace-tit",
                                      "--measure-tasks", "--task-costs", NULL};
  const char **slots[] = {&a->platform_path, &a->hostfile, &a->network, &a->machine_file, &a->background,
                          &a->privatize, &a->json, &a->actions, &a->trace_tit, &a->measure_tasks,
                          &a->task_costs};
  for (int i = 0; names[i]; i++)
    if (!strcmp(opt, names[i])) return slots[i];
  return NULL;
}

/* argv up to the program (after '--', or the first word that is not an option: the rest is
 * the program's). 0, RUN_HELP_SHOWN, or the exit status after a usage error. */
static int parse_args(int argc, char **argv, run_args *a) {
  static const char *const numeric[] = {"--np", "-np", "-n", "--host-speed-ref", "--compute-limit",
                                        "--cpu-threshold", "--stack-size", "--repeat", NULL};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int k = cli_observe_option(&a->obsv, "run", argc, argv, &i);
    if (k < 0) return PSIM_EXIT_USAGE;
    if (k > 0) continue;
    if ((k = cli_threads_option(&a->threads, "run", argc, argv, &i)) != 0) { if (k < 0) return PSIM_EXIT_USAGE; continue; }
    const char **slot = string_option(a, o);
    int takes = slot || cli_is_one_of(o, numeric) || !strcmp(o, "--cfg");
    if (!strcmp(o, "--")) { a->prog_at = i + 1; break; }
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { fputs(HELP, stdout); return RUN_HELP_SHOWN; }
    if ((k = cli_dyn_option(&a->dyn, "run", "--host-events", argc, argv, &i)) != 0) {
      if (k < 0) return PSIM_EXIT_USAGE;
      continue;
    }
    if (takes && !v) return cli_usage("run", "%s needs a value", o);
    if (takes) i++;
    if (slot) *slot = v;
    else if (!strcmp(o, "--cfg")) VEC_PUSH(a->cfgs, (char *)v);
    else if (takes) { if (parse_value(a, o, v)) return PSIM_EXIT_USAGE; }
    else if (!strncmp(o, "--cfg=", 6)) VEC_PUSH(a->cfgs, (char *)o + 6);
    else if (!strcmp(o, "--no-measure")) a->measure = 0;
    else if (!strcmp(o, "--shared-globals")) a->shared = 1;
    else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) a->quiet = 1;
    else if (!strcmp(o, "--singleton")) a->singleton = a->quiet = 1;
    else if (o[0] == '-' && o[1]) return cli_usage("run", "unknown option '%s'", o);
    else { a->prog_at = i; break; }
  }
  if (a->prog_at < 0 || a->prog_at >= argc) return cli_usage("run", "no program given (psim run --np N -- ./prog args)");
  if (a->measure_tasks && a->task_costs) return cli_usage("run", "--measure-tasks and --task-costs exclude each other");
  if (cli_check_out(a->json) || cli_check_out(a->measure_tasks) || cli_check_out(a->trace_tit)) return PSIM_EXIT_USAGE;
  return 0;
}

/* What set_up builds for the run, and frees (run_free). Not copied: o points into it. */
typedef struct run_setup {
  platform *plat;
  machine *mach;
  int *hosts;                 /* the hostfile's entries */
  emu_opts o;
  int prog_mpi;               /* the MPI the program was built for (EMU_MPI_*), 0: psimcc */
  int sel_given;              /* smpi/coll-selector came from the platform or --cfg */
  const char *psimcc_sel;     /* run/psimcc-coll-selector: the selection for psimcc's programs */
  int status;                 /* the program's exit status, filled by the run */
  FILE *af;                   /* --actions */
  int saved_stdout;           /* psim's stdout while the program's output goes to stderr */
} run_setup;

/* run/psimcc-coll-selector:default|mpich|ompi, the collective selection of a program built
 * with psimcc (psim calibrate --machine writes the MPI it measured: a program built with
 * psimcc stands for one built with that MPI's mpicc); programs built for a real MPI keep
 * theirs. 1 when key was it, 0 if not, -1 with err on a bad value. */
static int psimcc_selector(run_setup *s, const char *key, const char *value, psim_err *err) {
  if (strcmp(key, "run/psimcc-coll-selector")) return 0;
  coll_selector check;
  coll_selector_init(&check);
  if (coll_selector_use(&check, value, err) < 0) return -1;
  s->psimcc_sel = coll_selector_mode_name(coll_selector_mode(&check));   /* not value: --cfg's is freed */
  return 1;
}

/* The platform's <config> then --cfg, in SimGrid's order (the command line wins), then the
 * options that are properties in disguise (--background, --network, --machine). */
static int apply_config(const run_args *a, run_setup *s) {
  psim_err err;
  psim_err_clear(&err);
  for (int i = 0; i < plat_nconfig(s->plat); i++) {
    const char *k, *v;
    plat_config_at(s->plat, i, &k, &v);
    s->sel_given |= !strcmp(k, "smpi/coll-selector");
    psim_err e2;
    psim_err_clear(&e2);
    int r = psimcc_selector(s, k, v, &e2);
    if (r == 0 && emu_opts_cfg(&s->o, k, v, &e2) < 0 && strncmp(e2.msg, "unknown configuration key", 25)) r = -1;
    if (r < 0) {
      /* name the platform file and the line, as replay does */
      psim_errf(&err, PSIM_EXIT_INPUT, plat_name(s->plat), plat_config_line(s->plat, i), "<config>: %.1500s", e2.msg);
      return cli_fail(&err);
    }
  }
  for (size_t i = 0; i < a->cfgs.len; i++) {
    char *k, *v, *copy = xstrdup(a->cfgs.data[i]);
    if (split_cfg(copy, &k, &v) < 0) {
      free(copy);
      return cli_usage("run", "--cfg expects KEY:VALUE, got '%s'", a->cfgs.data[i]);
    }
    s->sel_given |= !strcmp(k, "smpi/coll-selector");
    int r = psimcc_selector(s, k, v, &err);
    if (r == 0) r = emu_opts_cfg(&s->o, k, v, &err);
    free(copy);
    if (r < 0) return cli_fail(&err);
  }
  /* after the others: an algorithm chosen per collective stays (coll_selector_use) */
  if (s->psimcc_sel && !s->prog_mpi && !s->sel_given) coll_selector_use(&s->o.coll, s->psimcc_sel, NULL);
  if (a->background && emu_opts_cfg(&s->o, "background/trace", a->background, &err) < 0) return cli_fail(&err);
  if (a->network && net_model_parse(a->network, &s->o.net.model) < 0)
    return cli_usage("run", "--network expects smpi, constant or star, got '%s'", a->network);
  if (a->machine_file) {
    if (!(s->mach = cli_machine_load(a->machine_file, s->plat))) return PSIM_EXIT_INPUT;
    s->o.net.machine = s->mach;
  }
  return 0;
}

/* The program (checked first: before loading the platform and measuring the host speed),
 * the platform, the options on top of emu_opts' defaults, the hostfile. */
static int set_up_run(const run_args *a, char **argv, run_setup *s) {
  psim_err err;
  psim_err_clear(&err);
  if (emu_prog_check(argv[a->prog_at], &err) < 0) return cli_fail(&err);
  char *warnings = NULL;
  s->plat = a->platform_path ? plat_open(a->platform_path, &warnings, &err) : plat_default();
  if (warnings) { fputs(warnings, stderr); free(warnings); }
  if (!s->plat) return cli_fail(&err);
  emu_opts *o = &s->o;
  emu_opts_init(o, s->plat, (int)a->np);
  /* The collectives the program's MPI would run: a program built for MPICH or Open MPI takes
   * that MPI's algorithm selection (issue 34: psim run predicts the program as it runs for
   * real); psimcc's programs keep SimGrid's default, as psim replay does. An explicit
   * smpi/coll-selector (the platform's <config>, then --cfg) overrides it in apply_config. */
  s->prog_mpi = emu_prog_mpi(argv[a->prog_at]);
  if (s->prog_mpi) coll_selector_use(&o->coll, s->prog_mpi == EMU_MPI_MPICH ? "mpich" : "ompi", NULL);
  if (a->hostfile) {
    int n = cli_hostfile_load(s->plat, a->hostfile, &s->hosts);
    if (n < 0) return PSIM_EXIT_INPUT;
    o->hostfile = s->hosts;
    o->nhostfile = n;
  }
  int rc = apply_config(a, s);
  if (rc) return rc;
  if (!a->measure) o->measure = 0;
  o->singleton = a->singleton;
  if (a->threshold >= 0) o->cpu_threshold = a->threshold;
  if (a->compute_limit >= 0) o->compute_limit = a->compute_limit;
  if (a->stack) o->stack_size = a->stack;
  o->shared_globals = a->shared;
  if (a->threads) o->threads = a->threads;
  o->privatize_libs = a->privatize;
  if (a->speed_ref > 0) o->host_speed_ref = a->speed_ref;
  o->trace_tit = a->trace_tit;
  o->measure_tasks = a->measure_tasks;
  o->task_costs = a->task_costs;
  o->status = &s->status;
  return 0;
}

/* --json - or --actions -: stdout holds only that output (for a pipe into a JSON reader), so
 * the program's own output (its printf, its Fortran units) goes to stderr during the run;
 * --actions - then writes to psim's real stdout. */
static int set_up_outputs(const run_args *a, run_setup *s) {
  int dash_actions = a->actions && !strcmp(a->actions, "-");
  if ((a->json && !strcmp(a->json, "-")) || dash_actions) {
    if ((s->saved_stdout = program_output_to_stderr()) < 0) return PSIM_EXIT_INPUT;
  }
  if (dash_actions && s->saved_stdout >= 0) {
    int fd = dup(s->saved_stdout);
    if (fd < 0 || !(s->af = fdopen(fd, "w"))) {
      if (fd >= 0) close(fd);
      perror("psim run: --actions -");
      return PSIM_EXIT_INPUT;
    }
  } else if (a->actions && !(s->af = cli_open_out(a->actions))) {
    return PSIM_EXIT_INPUT;
  }
  s->o.actions = s->af;
  return 0;
}

/* Everything before the run: the run itself (set_up_run), host events, the host speed
 * reference (measured only when measured CPU time counts and none was given: it takes
 * 0.2 s), the outputs and the observers. 0 or the exit status. */
static int set_up(run_args *a, char **argv, int argc, run_setup *s) {
  int rc = set_up_run(a, argv, s);
  if (rc) return rc;
  emu_opts *o = &s->o;
  if ((rc = cli_dyn_setup(&a->dyn, "run", "--host-events", plat_nhosts(s->plat), cli_dyn_host_name, s->plat,
                          &o->move_policy)) != 0)
    return rc;
  if (a->dyn.spec) o->host_events = &a->dyn.ev;
  if (a->dyn.rank_memory >= 0) o->rank_memory = a->dyn.rank_memory;
  if ((o->measure || a->measure_tasks) && !(o->host_speed_ref > 0)) {
    o->host_speed_ref = emu_calibrate(0.2);
    if (!a->quiet) fprintf(stderr, "psim: host speed reference measured: %.4g flop/s (fix it with --host-speed-ref)\n", o->host_speed_ref);
  }
  o->program = argv[a->prog_at];
  o->argc = argc - a->prog_at;
  o->argv = argv + a->prog_at;
  if ((rc = set_up_outputs(a, s)) != 0) return rc;
  int *rh = obs_rank_hosts(s->plat, o->hostfile, o->nhostfile, (int)a->np);
  rc = cli_observe_setup(&a->obsv, s->plat, rh, (int)a->np);
  free(rh);
  if (rc) return rc;
  o->observers = a->obsv.obs.data;
  o->nobservers = (int)a->obsv.obs.len;
  return 0;
}

/* What the run gave. */
typedef struct run_outcome {
  replay_result res;
  int deadlock;               /* the run ended in a deadlock (res.deadlock says where) */
  double wall;                /* seconds */
  emu_busy_mark busy0, busy1; /* the machine's CPU accounting before the first run and after the last */
} run_outcome;

/* The run, then psim's stdout back and --actions closed (its lines are complete). 0 when
 * there are results to write (a deadlock included), else the exit status: under
 * --singleton, the status the program chose, as for any program. */
/* --repeat K: the first K-1 runs, measuring only (no observers, no --actions nor traces, the
 * program's stdout to /dev/null); each burst of the last run is then charged the least of its
 * K measurements (emu_repeat). 0, or the exit status of a run that failed. */
static int measure_runs(const run_args *a, run_setup *s) {
  if (a->repeat <= 1) return 0;
  s->o.repeat = emu_repeat_new((int)a->np);
  emu_opts pre = s->o;
  int status = 0;
  pre.observers = NULL, pre.nobservers = 0, pre.actions = NULL, pre.trace_tit = NULL, pre.measure_tasks = NULL;
  pre.status = &status;
  for (long i = 1; i < a->repeat; i++) {
    psim_err err;
    psim_err_clear(&err);
    replay_result res;
    fflush(stdout);
    int keep = dup(1), nul = open("/dev/null", O_WRONLY);
    if (keep >= 0 && nul >= 0) dup2(nul, 1);
    int r = emu_run(&pre, &res, &err);
    fflush(stdout);
    if (keep >= 0) dup2(keep, 1), close(keep);
    if (nul >= 0) close(nul);
    replay_result_free(&res);
    if (r < 0) {
      fprintf(stderr, "psim run: --repeat: run %ld of %ld failed\n", i, a->repeat);
      return cli_fail(&err);
    }
  }
  return 0;
}

static int run_program(const run_args *a, run_setup *s, run_outcome *out) {
  psim_err err;
  psim_err_clear(&err);
  emu_busy_mark_now(&out->busy0);
  int rc = measure_runs(a, s);
  if (rc) return rc;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = emu_run(&s->o, &out->res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  emu_busy_mark_now(&out->busy1);
  cli_flush_stdout();
  stdout_back(&s->saved_stdout);
  out->wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (s->af) {
    int bad = cli_close_out(s->af, a->actions);
    s->af = NULL;
    if (bad) return PSIM_EXIT_INPUT;
  }
  if (r < 0 && a->singleton && err.code == PSIM_EXIT_APP && s->status != 0) return s->status & 255 ? s->status & 255 : 1;
  if (r < 0 && err.code != PSIM_EXIT_DEADLOCK) return cli_fail(&err);
  out->deadlock = r < 0;
  return 0;
}

/* What other processes did while the program was measured (emu_busy.c says why it matters):
 * one line on stderr, with advice when they used a tenth of the machine or more. */
static void busy_line(FILE *f, const run_outcome *out) {
  double others, steal;
  if (emu_busy_share(&out->busy0, &out->busy1, &others, &steal) < 0) return;
  fprintf(f, "psim: while it measured, other processes used %.0f %% of this machine's CPUs", 100 * others);
  if (steal >= 0.005) fprintf(f, " (and the VM's host took %.0f %%)", 100 * steal);
  if (others + steal >= 0.1)
    fprintf(f, ": code beside them runs slower than on a quiet machine (streaming memory here: up to 20 %%; "
               "docs/models.md), so this predicts the busy machine; measure on a quiet one");
  fputc('\n', f);
}

/* --json, --report and the traces through the observers' output stage (run_observe.c, then
 * cli_emit), the summary and the collectives line on stdout, the speed line on stderr. 0,
 * PSIM_EXIT_DEADLOCK after listing the blocked ranks, or the exit status of a failed output. */
static int emit(run_args *a, const run_setup *s, const run_outcome *out) {
  const replay_result *res = &out->res;
  const char *progs[1] = {s->o.program};
  run_meta m = {"run", plat_name(s->plat), net_model_name(s->o.net.model), progs, 1, s->plat, &s->o.coll,
                s->mach ? machine_path(s->mach) : NULL};
  int k = cli_observe_finish(&a->obsv, res, &m, a->json, !out->deadlock, s->o.program);
  if (k) return k;
  if (!a->quiet && !(a->json && !strcmp(a->json, "-")) && !(a->actions && !strcmp(a->actions, "-"))) {
    obs_write_summary(stdout, res, &m);
    selector_line(stdout, &s->o.coll, s->prog_mpi, s->sel_given, s->psimcc_sel && !s->prog_mpi);
  }
  if (!a->quiet && s->o.repeat) {
    int d = emu_repeat_diverged(s->o.repeat);
    fprintf(stderr, "psim: --repeat %ld: each of %ld bursts charged the least of its %ld measurements", a->repeat,
            emu_repeat_bursts(s->o.repeat), a->repeat);
    if (d) fprintf(stderr, "; %d rank%s took another path in some run (%s later bursts are that run's own)", d,
                   d > 1 ? "s" : "", d > 1 ? "their" : "its");
    fputc('\n', stderr);
  }
  if (!a->quiet)
    fprintf(stderr, "psim: %d ranks, %llu MPI calls and computations, %llu messages in %.3f s wall (%.0f messages/s)\n",
            res->np, (unsigned long long)res->actions, (unsigned long long)res->messages, out->wall,
            out->wall > 0 ? (double)res->messages / out->wall : 0.0);
  if (!a->quiet && (s->o.measure || a->measure_tasks)) busy_line(stderr, out);
  if (!out->deadlock) return 0;
  fprintf(stderr, "psim: %s", res->deadlock);
  return PSIM_EXIT_DEADLOCK;
}

static void run_free(run_args *a, run_setup *s, run_outcome *out) {
  if (s->af) cli_close_out(s->af, a->actions);
  stdout_back(&s->saved_stdout);
  cli_observe_free(&a->obsv);
  replay_result_free(&out->res);
  emu_repeat_free(s->o.repeat);
  free(s->hosts);
  machine_free(s->mach);
  plat_free(s->plat);
  cli_dyn_free(&a->dyn);
  VEC_FREE(a->cfgs);
}

int cmd_run(int argc, char **argv) {
  run_args a = {.np = 1, .measure = 1, .prog_at = -1, .threshold = -1, .compute_limit = -1};
  run_setup s = {.saved_stdout = -1};
  run_outcome out = {0};
  cli_dyn_init(&a.dyn);
  cli_observe_init(&a.obsv, isatty(2));
  int rc = parse_args(argc, argv, &a);
  if (rc == 0) rc = set_up(&a, argv, argc, &s);
  if (rc == 0) rc = run_program(&a, &s, &out);
  if (rc == 0) rc = emit(&a, &s, &out);
  run_free(&a, &s, &out);
  return rc == RUN_HELP_SHOWN ? 0 : rc;
}
