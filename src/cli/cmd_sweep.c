/* psim sweep: one psim command run for every configuration of some parameters (capacity
 * planning, what-if studies), over local processes or the ranks of an MPI job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"

static const char *HELP =
    "usage: psim sweep --vary NAME=VALUES [--vary ...] [options] -- COMMAND ARGS...\n"
    "\n"
    "Runs the psim command COMMAND ARGS (replay, run, lb, ...) once per configuration, with\n"
    "every {NAME} in it replaced by the configuration's value of NAME, and gathers the runs'\n"
    "JSON results. Each run is a separate psim process: one failing (bad input, deadlock,\n"
    "crash) is recorded with its error and exit status, and the sweep goes on.\n"
    "\n"
    "VALUES is a comma-separated list of values and ranges:\n"
    "  4,8,16   1Gbps,10Gbps    values as they are written\n"
    "  4..64*2                  4, 8, 16, 32, 64 (geometric: times the factor)\n"
    "  1e-6..1e-4*10            1e-06, 1e-05, 0.0001\n"
    "  0..1+0.25   1..8         0, 0.25, 0.5, 0.75, 1 (arithmetic: plus the step; default +1)\n"
    "Several --vary make the cross product (the last varies fastest); --zip pairs them.\n"
    "\n"
    "options:\n"
    "  --vary NAME=VALUES  a parameter (repeatable)\n"
    "  --zip               configuration i takes the i-th value of every parameter\n"
    "  -j, --jobs N        run N configurations at once (default: the number of cores; under\n"
    "                      an MPI launcher: per rank, default 1)\n"
    "  --root-jobs N       under MPI, how many of them rank 0 runs (default: as --jobs; 0: it\n"
    "                      only hands out configurations and gathers results)\n"
    "  --json FILE         {\"runs\": [{\"params\", \"status\", \"error\", \"simulated_time\",\n"
    "                      \"host_count\", \"cost\", \"efficiency\", \"result\": the run's own JSON}]}\n"
    "  --csv FILE          one row per run: parameters, status, simulated_time, host_count,\n"
    "                      cost, efficiency, error\n"
    "  --report FILE.html  the metric against the first parameter, one line per value of the\n"
    "                      others, and the other two metrics (inline SVG, works offline)\n"
    "  --metric M          the report's main chart: makespan (default), efficiency or cost\n"
    "  --resume FILE       take the successful runs of FILE (an earlier --json of this sweep)\n"
    "                      as done; failed and missing ones run\n"
    "  --brief             keep only the top-level numbers and strings of each run's JSON\n"
    "                      (no per-rank arrays: thousands of large runs stay small)\n"
    "  --hosts-param NAME  the parameter holding the host count (default: 'hosts' when there\n"
    "                      is one; else the hosts the run's ranks used, its PEs or its ranks)\n"
    "  --quiet             no table on stdout\n"
    "  --progress          progress on stderr (default: only when stderr is a terminal)\n"
    "\n"
    "Metrics: makespan = simulated_time; cost = host count x makespan (host.s); efficiency =\n"
    "the cost of the run on the fewest hosts of its series (same values of all parameters but\n"
    "the first) / the run's cost: with the host count first, the strong-scaling efficiency.\n"
    "The outputs never depend on the order runs finish in. They are rewritten every 30 s while\n"
    "the sweep runs; after Ctrl-C (or SIGTERM) they hold the runs done, and --resume goes on.\n"
    "\n"
    "examples:\n"
    "  psim sweep --vary hosts=4,8,16 --vary bw=1Gbps,10Gbps --json s.json --report s.html \\\n"
    "      -- replay --platform 'flat:{hosts},1Gf,{bw},1us' --np 16 trace/\n"
    "  mpirun -np 8 build-mpi/psim sweep --vary hosts=1..64 --json s.json -- replay ...\n"
    "  (docs/sweep.md: Slurm, hostfiles; 'psim plan' finds the smallest sufficient host count)\n"
    "\n"
    "Exit status: 0 every run succeeded, 1 some runs failed (recorded), 2 bad usage,\n"
    "130 interrupted (the outputs hold the runs done).\n";

int sweep_run_local(sweep_job *job, int jobs) {
  sweep_pool pool = {0};
  size_t cursor = 0, i;
  double shown = sweep_now();
  sweep_progress(job);
  for (;;) {
    while (!sweep_interrupted && pool.running.len < (size_t)jobs && sweep_next(job, &cursor, &i))
      sweep_start_or_fail(job, &pool, i);
    if (!pool.running.len) break;
    /* with a progress line, wake up every 50 ms so that its clock moves during long runs */
    if (sweep_pool_reap(job, &pool, !job->progress, &i)) sweep_note_done(job, i);
    else if (job->progress && !sweep_interrupted) {
      struct timespec ts = {0, 50000000};
      nanosleep(&ts, NULL);
      if (sweep_now() - shown >= 1) { sweep_progress(job); shown = sweep_now(); }
    }
    if (sweep_interrupted) { sweep_pool_kill(job, &pool); break; }
  }
  VEC_FREE(pool.running);
  return sweep_interrupted ? 1 : 0;
}

int cmd_sweep(int argc, char **argv) {
  sweep_job job = {0};
  const char *report = NULL, *resume = NULL, *hosts_param = NULL;
  long jobs = -1, root_jobs = -1;
  int metric = METRIC_MAKESPAN, quiet = 0, rc = 2;
  int progress = isatty(2);
  psim_err err;
  psim_err_clear(&err);
  job.hosts_param = -1;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    if (!strcmp(a, "--zip")) { job.space.zip = 1; continue; }
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { quiet = 1; continue; }
    if (!strcmp(a, "--progress")) { progress = 1; continue; }
    if (!strcmp(a, "--brief")) { job.brief = 1; continue; }
    if (!strncmp(a, "-j", 2) && a[2]) {   /* -j4 */
      if ((jobs = cli_int("sweep", "-j", a + 2)) < 0) goto out;
      continue;
    }
    if (strcmp(a, "--vary") && strcmp(a, "-j") && strcmp(a, "--jobs") && strcmp(a, "--json") && strcmp(a, "--csv") &&
        strcmp(a, "--report") && strcmp(a, "--metric") && strcmp(a, "--resume") && strcmp(a, "--hosts-param") && strcmp(a, "--root-jobs")) {
      rc = cli_usage("sweep", "unknown option '%s' (the command to run goes after '--')", a);
      goto out;
    }
    if (!v) { rc = cli_usage("sweep", "%s needs a value", a); goto out; }
    i++;
    if (!strcmp(a, "--vary")) {
      if (sweep_space_add(&job.space, v, &err) < 0) { rc = cli_usage("sweep", "%s", err.msg); goto out; }
    } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
      if ((jobs = cli_int("sweep", a, v)) < 0) goto out;
      if (jobs == 0) jobs = 1;
    } else if (!strcmp(a, "--root-jobs")) {
      if ((root_jobs = cli_int("sweep", a, v)) < 0) goto out;
    } else if (!strcmp(a, "--json")) job.json = v;
    else if (!strcmp(a, "--csv")) job.csv = v;
    else if (!strcmp(a, "--report")) report = v;
    else if (!strcmp(a, "--resume")) resume = v;
    else if (!strcmp(a, "--hosts-param")) hosts_param = v;
    else if (!strcmp(v, "makespan")) metric = METRIC_MAKESPAN;
    else if (!strcmp(v, "efficiency")) metric = METRIC_EFFICIENCY;
    else if (!strcmp(v, "cost")) metric = METRIC_COST;
    else { rc = cli_usage("sweep", "--metric expects makespan, efficiency or cost, got '%s'", v); goto out; }
  }
  if (!job.space.params.len) { rc = cli_usage("sweep", "at least one --vary NAME=VALUES is required"); goto out; }
  if (sweep_space_finish(&job.space, &err) < 0) { rc = cli_usage("sweep", "%s", err.msg); goto out; }
  for (i++; i < argc; i++) VEC_PUSH(job.tmpl, argv[i]);
  if (hosts_param) {
    job.hosts_param = sweep_space_find(&job.space, hosts_param, strlen(hosts_param));
    if (job.hosts_param < 0) { rc = cli_usage("sweep", "--hosts-param %s: no such parameter", hosts_param); goto out; }
  } else {
    job.hosts_param = sweep_space_find(&job.space, "hosts", 5);
  }
  if ((rc = sweep_job_init(&job, "sweep")) != 0) goto out;
  int rank = 0, size = sweep_mpi_init(&rank);
  if (size == 1 && sweep_launched_tasks() > 1) {
    /* srun -n K or mpirun -np K of the plain build: K sweeps would each run everything */
    fprintf(stderr, "psim sweep: started as one of %ld tasks, but not as an MPI job: use the MPI build (make mpi) under mpirun or srun --mpi=pmi2, or start one task\n", sweep_launched_tasks());
    rc = 2;
    goto out;
  }
  if (jobs < 0) jobs = size > 1 ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  job.progress = progress && rank == 0;
  if (rank == 0 && resume && (rc = sweep_resume(&job, resume)) != 0) { sweep_mpi_abort(rc); goto out; }
  sweep_signals();
  int local = rank == 0 && size > 1 && root_jobs >= 0 ? (int)root_jobs : (int)jobs;
  int interrupted = size > 1 ? sweep_mpi_run(&job, rank, size, local) : sweep_run_local(&job, (int)jobs);
  if (rank != 0) {
    sweep_mpi_finalize();
    rc = 0;
    goto out;
  }
  sweep_progress_end(&job);
  sweep_metrics(&job);
  rc = 0;
  int to_stdout = (job.json && !strcmp(job.json, "-")) || (job.csv && !strcmp(job.csv, "-"));
  if (!quiet && !to_stdout) sweep_write_table(&job, stdout);
  if (job.json && sweep_write_json(&job, job.json, !interrupted, NULL) < 0) rc = 2;
  if (job.csv && sweep_write_csv(&job, job.csv) < 0) rc = 2;
  if (report) {
    char title[512];
    int n = snprintf(title, sizeof title, "psim sweep --");
    for (size_t k = 0; k < job.tmpl.len && n < (int)sizeof title; k++)
      n += snprintf(title + n, sizeof title - (size_t)n, " %s", job.tmpl.data[k]);
    if (sweep_write_report(&job, report, metric, title) < 0) rc = 2;
  }
  if (interrupted) {
    fprintf(stderr, "psim sweep: interrupted: %zu of %zu runs done%s%s%s\n", job.ndone, job.space.total,
            job.json && strcmp(job.json, "-") ? " (saved; continue with --resume " : "",
            job.json && strcmp(job.json, "-") ? job.json : "", job.json && strcmp(job.json, "-") ? ")" : "");
    fflush(NULL);
    if (size > 1) sweep_mpi_abort(130);
    rc = 130;
    goto out;
  }
  if (!rc && job.nfailed) rc = 1;
  sweep_mpi_finalize();
out:
  sweep_job_free(&job);
  return rc;
}
