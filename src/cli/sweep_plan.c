/* psim plan: SAMPI's capacity-planning question answered directly. The smallest host count
 * whose makespan meets a target (or the largest whose efficiency does), found by bisection
 * over the count instead of running every value: about log2(HI - LO) runs, fewer rounds
 * with --jobs N (N probes per round split the interval in N + 1). The runs are a sweep's
 * (same child processes, same outputs), so the curve measured on the way is printed and
 * saved too. The search assumes the makespan does not grow with the host count (and the
 * efficiency does not grow either); a measured curve that contradicts it is reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"

static const char *HELP =
    "usage: psim plan --hosts LO..HI (--makespan SECONDS | --efficiency E) [options] -- COMMAND ARGS...\n"
    "\n"
    "Finds, by bisection over the host count, the smallest count in LO..HI for which the\n"
    "psim command COMMAND ARGS (with {hosts} replaced by the count) predicts a makespan of\n"
    "at most SECONDS; with --efficiency, the largest count whose efficiency is at least E,\n"
    "efficiency being (LO x makespan at LO) / (count x makespan at the count). With both,\n"
    "the smallest count meeting the makespan, and whether its efficiency meets E (it is the\n"
    "most efficient count that meets the makespan). Prints the curve measured on the way.\n"
    "\n"
    "options:\n"
    "  --hosts LO..HI      the host counts to consider (integers, LO >= 1)\n"
    "  --makespan SECONDS  the makespan target\n"
    "  --efficiency E      the efficiency target (0 < E <= 1)\n"
    "  -j, --jobs N        N probes at once per round (default: the number of cores)\n"
    "  --json FILE         the measured runs as psim sweep writes them, plus \"plan\"\n"
    "  --csv FILE          the measured runs, one row each\n"
    "  --quiet             only the answer on stdout\n"
    "\n"
    "The search assumes the makespan does not increase with the host count; when the runs\n"
    "measured say otherwise, it says so. Use psim sweep for the whole curve.\n"
    "\n"
    "example:\n"
    "  psim plan --hosts 1..256 --makespan 60 -- replay --platform 'flat:{hosts},10Gf,10Gbps,1us' --np 256 trace/\n"
    "\n"
    "Exit status: 0 answered, 1 no count in LO..HI meets the target, 2 bad usage or a run\n"
    "failed (its error is printed), 130 interrupted.\n";

/* Runs the configurations in want[] (those not done yet), nothing else. 0, or 1 interrupted. */
static int measure(sweep_job *job, const long *want, int n, long lo, int jobs) {
  enum { HELD = 9 };
  for (size_t i = 0; i < job->space.total; i++) if (job->runs[i].state == RUN_PENDING) job->runs[i].state = HELD;
  job->ntodo = 0;
  for (int k = 0; k < n; k++) {
    sweep_run *r = &job->runs[want[k] - lo];
    if (r->state == HELD) { r->state = RUN_PENDING; job->ntodo++; }
  }
  job->ndone = job->nresumed = 0;
  int rc = sweep_run_local(job, jobs);
  for (size_t i = 0; i < job->space.total; i++) if (job->runs[i].state == HELD) job->runs[i].state = RUN_PENDING;
  sweep_metrics(job);
  return rc;
}

typedef struct target { double makespan, efficiency; } target;

/* The question asked of a measured count: 1 when it is on the "too many hosts" side. */
static int beyond(const sweep_run *r, const target *t) {
  if (!isnan(t->makespan)) return r->time <= t->makespan;
  return r->efficiency < t->efficiency;
}

/* The first run that failed among want[], or NULL. */
static const sweep_run *failed(const sweep_job *job, const long *want, int n, long lo, long *at) {
  for (int k = 0; k < n; k++) {
    const sweep_run *r = &job->runs[want[k] - lo];
    if (r->state == RUN_DONE && (r->status != 0 || !r->result || isnan(r->time))) { *at = want[k]; return r; }
  }
  return NULL;
}

int cmd_plan(int argc, char **argv) {
  sweep_job job = {0};
  const char *hosts = NULL;
  target t = {NAN, NAN};
  long jobs = -1;
  int quiet = 0, rc = 2;
  psim_err err;
  psim_err_clear(&err);
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { quiet = 1; continue; }
    if (strcmp(a, "--hosts") && strcmp(a, "--makespan") && strcmp(a, "--efficiency") && strcmp(a, "-j") &&
        strcmp(a, "--jobs") && strcmp(a, "--json") && strcmp(a, "--csv")) {
      rc = cli_usage("plan", "unknown option '%s' (the command to run goes after '--')", a);
      goto out;
    }
    if (!v) { rc = cli_usage("plan", "%s needs a value", a); goto out; }
    i++;
    double x;
    if (!strcmp(a, "--hosts")) hosts = v;
    else if (!strcmp(a, "--json")) job.json = v;
    else if (!strcmp(a, "--csv")) job.csv = v;
    else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) { if ((jobs = cli_int("plan", a, v)) < 0) goto out; }
    else if (sweep_number(v, &x) < 0 || !(x > 0) || (!strcmp(a, "--efficiency") && x > 1)) {
      rc = cli_usage("plan", "%s expects a number above 0%s, got '%s'", a, strcmp(a, "--efficiency") ? "" : " and at most 1", v);
      goto out;
    } else if (!strcmp(a, "--makespan")) t.makespan = x;
    else t.efficiency = x;
  }
  if (!hosts) { rc = cli_usage("plan", "--hosts LO..HI is required"); goto out; }
  if (isnan(t.makespan) && isnan(t.efficiency)) { rc = cli_usage("plan", "give a target: --makespan SECONDS or --efficiency E"); goto out; }
  /* the space: every count of LO..HI (runs are indexed by count - LO) */
  char spec[256];
  double lo_d, hi_d;
  const char *dots = strstr(hosts, "..");
  char lo_text[64];
  snprintf(lo_text, sizeof lo_text, "%.*s", dots ? (int)(dots - hosts) : 0, hosts);
  if (!dots || sweep_number(lo_text, &lo_d) < 0 || sweep_number(dots + 2, &hi_d) < 0 || lo_d != floor(lo_d) ||
      hi_d != floor(hi_d) || lo_d < 1 || hi_d < lo_d || hi_d - lo_d >= SWEEP_MAX_VALUES) {
    rc = cli_usage("plan", "--hosts expects LO..HI, integers with 1 <= LO <= HI (at most %d counts), got '%s'", SWEEP_MAX_VALUES, hosts);
    goto out;
  }
  long lo = (long)lo_d, hi = (long)hi_d;
  snprintf(spec, sizeof spec, "hosts=%ld..%ld", lo, hi);
  if (sweep_space_add(&job.space, spec, &err) < 0 || sweep_space_finish(&job.space, &err) < 0) {
    rc = cli_usage("plan", "%s", err.msg);
    goto out;
  }
  for (i++; i < argc; i++) VEC_PUSH(job.tmpl, argv[i]);
  job.hosts_param = 0;
  if (sweep_launched_tasks() > 1) {
    fprintf(stderr, "psim plan: started as one of %ld tasks: psim plan runs in one process (use --jobs); start one task\n", sweep_launched_tasks());
    rc = 2;
    goto out;
  }
  if ((rc = sweep_job_init(&job, "plan")) != 0) goto out;
  if (jobs < 0) jobs = sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  sweep_signals();
  /* the ends first: is there an answer at all? */
  long ends[2] = {lo, hi}, probe[64], at = 0;
  int interrupted = measure(&job, ends, lo == hi ? 1 : 2, lo, (int)jobs);
  const sweep_run *bad = interrupted ? NULL : failed(&job, ends, 2, lo, &at);
  long a = lo, b = hi, answer = -1;
  int eff_mode = isnan(t.makespan);
  if (!interrupted && !bad) {
    /* invariant: a is not beyond, b is (when the answer lies strictly inside) */
    const sweep_run *rl = &job.runs[0], *rh = &job.runs[hi - lo];
    if (beyond(rl, &t)) answer = eff_mode ? -1 : lo;
    else if (!beyond(rh, &t)) answer = eff_mode ? hi : -1;
    else {
      while (b - a > 1 && !interrupted && !bad) {
        int n = sweep_probes(a, b, jobs > 64 ? 64 : (int)jobs, probe);
        interrupted = measure(&job, probe, n, lo, (int)jobs);
        if (interrupted || (bad = failed(&job, probe, n, lo, &at)) != NULL) break;
        for (int k = 0; k < n; k++) {
          if (beyond(&job.runs[probe[k] - lo], &t)) { b = probe[k]; break; }
          a = probe[k];
        }
      }
      answer = eff_mode ? a : b;
    }
  }
  sweep_progress_end(&job);
  size_t measured = 0;
  int monotone = 1, seen_beyond = 0;
  for (long h = lo; h <= hi; h++) {
    const sweep_run *r = &job.runs[h - lo];
    if (r->state != RUN_DONE) continue;
    measured++;
    if (beyond(r, &t)) seen_beyond = 1;
    else if (seen_beyond) monotone = 0;
  }
  /* stdout carrying the JSON or CSV (-) holds only that, as for psim sweep: no table, and the
   * answer (also in the JSON's "plan") goes to stderr */
  int to_stdout = (job.json && !strcmp(job.json, "-")) || (job.csv && !strcmp(job.csv, "-"));
  FILE *say = to_stdout ? stderr : stdout;
  if (!quiet && !to_stdout) sweep_write_table(&job, stdout);
  char extra[512];
  int n = snprintf(extra, sizeof extra, "\"plan\": {\"parameter\": \"hosts\", \"low\": %ld, \"high\": %ld, \"target_makespan\": ", lo, hi);
  n += snprintf(extra + n, sizeof extra - (size_t)n, isnan(t.makespan) ? "null" : "%.17g", t.makespan);
  n += snprintf(extra + n, sizeof extra - (size_t)n, ", \"target_efficiency\": ");
  n += snprintf(extra + n, sizeof extra - (size_t)n, isnan(t.efficiency) ? "null" : "%.17g", t.efficiency);
  if (answer >= 0) snprintf(extra + n, sizeof extra - (size_t)n, ", \"answer\": %ld, \"runs\": %zu}", answer, measured);
  else snprintf(extra + n, sizeof extra - (size_t)n, ", \"answer\": null, \"runs\": %zu}", measured);
  rc = 0;
  if (job.json && sweep_write_json(&job, job.json, !interrupted && !bad, extra) < 0) rc = 2;
  if (job.csv && sweep_write_csv(&job, job.csv) < 0) rc = 2;
  if (interrupted) { fprintf(stderr, "psim plan: interrupted\n"); rc = 130; goto out; }
  if (bad) {
    fprintf(stderr, "psim plan: the run with hosts=%ld failed (exit %d): %s\n", at, bad->status, bad->error ? bad->error : "");
    rc = 2;
    goto out;
  }
  if (!monotone)
    fprintf(stderr, "psim plan: warning: the measured curve is not monotonic in the host count; the bisection assumes it is (psim sweep measures every count)\n");
  const char *what = eff_mode ? "largest host count with efficiency >=" : "smallest host count with makespan <=";
  double goal = eff_mode ? t.efficiency : t.makespan;
  if (answer < 0) {
    fprintf(say, "no host count in %ld..%ld meets the target (%s %g); %zu runs\n", lo, hi, what, goal, measured);
    if (!rc) rc = 1;
    goto out;
  }
  const sweep_run *r = &job.runs[answer - lo];
  fprintf(say, "%s %g: %ld (makespan %.6f s, efficiency %.4f relative to %ld host%s); %zu runs instead of %ld\n", what,
         goal, answer, r->time, r->efficiency, lo, lo > 1 ? "s" : "", measured, hi - lo + 1);
  if (!eff_mode && !isnan(t.efficiency) && !(r->efficiency >= t.efficiency)) {
    fprintf(say, "its efficiency is below %g: no count in %ld..%ld meets both targets\n", t.efficiency, lo, hi);
    if (!rc) rc = 1;
  }
out:
  sweep_job_free(&job);
  return rc;
}
