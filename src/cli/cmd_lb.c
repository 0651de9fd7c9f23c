/* psim lb: over-decomposition with dynamic load balancing (SAMPI), from one trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_emit.h"
#include "cli/dyn_args.h"
#include "cli/lb_report.h"
#include "cli/run_args.h"
#include "psim/adapt.h"

static const char *HELP =
    "usage: psim lb TRACE --pes N --balancer B[,B...] --period K[,K...] [options]\n"
    "\n"
    "Simulates an over-decomposed application under Adaptive MPI: the trace's ranks are\n"
    "virtual processors (VPs) placed on N processing elements (PEs, the first N cores of the\n"
    "platform, host after host). On a PE one VP runs at a time, until it waits for a message or\n"
    "reaches a balancing step; ready VPs wait in FIFO order. 'R migrate [BYTES]' lines mark the\n"
    "ends of iterations; every K-th migrate is a balancing step: all VPs wait for each other,\n"
    "the balancer maps VPs to PEs from their computing time since the last step, the moving\n"
    "VPs send BYTES over the network (contended), and the application resumes.\n"
    "Comma lists of balancers and periods run every combination.\n"
    "\n"
    "options:\n"
    "  --pes N             number of PEs (required)\n"
    "  --balancer LIST     greedy, greedy-refine, refine (Charm++ 7 RefineA), refine-classic\n"
    "                      (Charm++ 6 RefineLB, the SAMPI thesis'), greedy-comm, refine-comm,\n"
    "                      rotate, random, dummy (steps, no moves), none (no steps)\n"
    "  --period LIST       balance at every K-th migrate (default 1)\n"
    "  --initial MAP       block (default: consecutive VPs together), round-robin, or a file\n"
    "                      with one PE per line in VP order\n"
    "  --vp-memory BYTES   memory of a VP whose migrate line gives none (default 1e6)\n"
    "  --lb-cost SECONDS   simulated run time of the strategy at each step (default 0)\n"
    "  --seed N            seed of the random balancer (default 1)\n"
    "  --alpha A --beta B  comm cost of the comm-aware balancers (3.5e-5 s, 8.5e-9 s/B)\n"
    "  --json FILE         results as JSON ('-' = stdout): one object, or {\"runs\": [...]}\n"
    "  --loads FILE        per-iteration loads as CSV (iteration, per-PE, per-VP); with several\n"
    "                      configurations FILE gets -BALANCER-PERIOD before its extension\n"
    "  --report FILE.html  the HTML report of the run (one configuration): replay's charts plus\n"
    "                      per-iteration load heatmaps, PE load per iteration with the balancing\n"
    "                      steps marked, and the dynamic efficiency of each iteration\n"
    "  --timeline          add the report's data to --json (one configuration): \"ranks\",\n"
    "                      \"timeline\", \"comm_matrix\", \"critical_path\", \"iterations\"\n"
    "                      (psim report turns that document into the HTML report)\n"
    "  --quiet             no table on stdout\n"
    "  --pe-events SPEC    PEs leave and join mid-run: EVENT[;EVENT...], EVENT =\n"
    "                      iter=N:remove=LIST | t=DATE:remove=LIST (or add=LIST), LIST = PE\n"
    "                      indices and ranges FIRST-LAST, e.g. 'iter=1:remove=4-7'; the event\n"
    "                      forces a balancing step (at the N-th migrate, or the first migrate\n"
    "                      no VP had reached at DATE) that moves every VP off removed PEs\n"
    CLI_RUN_OPTIONS_HELP
    "\n"
    "example:\n"
    "  psim gen stencil2d --grid 16x16 --iters 500 -o /tmp/o3d\n"
    "  psim lb /tmp/o3d --pes 16 --balancer refine-classic,greedy,none --period 10,20,40\n"
    "  psim lb /tmp/o3d --pes 16 --balancer greedy --period 20 --report greedy.html\n"
    "  psim lb /tmp/o3d --pes 16 --balancer greedy --period 20 --network star --cfg cpu/factor:2\n"
    "  psim lb /tmp/o3d --pes 16 --balancer greedy --period 20 --cfg background/count:1 --json lb.json\n"
    "  psim lb /tmp/o3d --pes 16 --balancer greedy --period 20 --pe-events 'iter=100:remove=8-15'\n"
    "\n"
    "Exit status: 0 ok, 2 bad input (unknown balancer, more PEs than cores, migrate on only\n"
    "some VPs, ...), 3 deadlock.\n";

/* Splits a comma list into out (strings point into a copy the caller frees). */
static int split_list(char *s, const char **out, int cap) {
  int n = 0;
  for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
    if (n == cap) return -1;
    out[n++] = t;
  }
  return n;
}

/* FILE.csv -> FILE-greedy-20.csv */
static void suffixed(char *buf, size_t n, const char *path, const char *bal, int period) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) dot = path + strlen(path);
  snprintf(buf, n, "%.*s-%s-%d%s", (int)(dot - path), path, bal, period, dot);
}

/* Counts the trace's migrate actions: without any, no balancing step can happen. */
static void count_migrate(void *ctx, int rank, const tit_action *a, const char *text, int len,
                          double start, double end) {
  (void)rank, (void)text, (void)len, (void)start, (void)end;
  if (a->kind == TIT_MIGRATE) ++*(unsigned long *)ctx;
}

/* The document for cli_emit: the lb object, with the recording and its critical path for the
 * report (and for --json under --timeline). */
typedef struct lb_doc {
  const lb_run *runs;
  int nruns;
  const adapt_opts *o;
  const run_meta *m;
  lb_report_extra x;
  int timeline;
} lb_doc;

static void write_doc(FILE *f, void *ctx, int for_report) {
  const lb_doc *d = ctx;
  lb_report_json(f, d->runs, d->nruns, d->o, d->m, (for_report || d->timeline) ? &d->x : NULL);
}

int cmd_lb(int argc, char **argv) {
  cli_run run = {0};
  cli_dyn dyn;
  cli_dyn_init(&dyn);
  const char *balancers = NULL, *periods = "1", *json = NULL, *loads = NULL, *initial = "block";
  const char *report = NULL;
  int timeline = 0;
  obs_record *rec = NULL;
  obs_critpath cp = {0};
  replay_observer observers[2];
  unsigned long migrates = 0;
  long npes = 0;
  double vp_memory = 1e6, lb_cost = 0, alpha = 3.5e-5, beta = 8.5e-9;
  long seed = 1;
  int quiet = 0, rc = 2;
  char *bcopy = NULL, *pcopy = NULL;
  lb_run *runs = NULL;
  int nruns = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    int r = cli_dyn_option(&dyn, "lb", "--pe-events", argc, argv, &i);
    if (r < 0) goto out;
    if (r > 0) continue;
    r = cli_run_option(&run, "lb", argc, argv, &i);
    if (r < 0) goto out;
    if (r > 0) continue;
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { quiet = 1; continue; }
    if (!strcmp(a, "--timeline")) { timeline = 1; continue; }
    static const char *const with_value[] = {"--pes", "--balancer", "--period", "--json", "--loads",
                                             "--report", "--initial", "--seed", "--vp-memory",
                                             "--lb-cost", "--alpha", "--beta", NULL};
    if (!cli_is_one_of(a, with_value)) { rc = cli_usage("lb", "unknown option '%s'", a); goto out; }
    if (!v) { rc = cli_usage("lb", "%s needs a value", a); goto out; }
    i++;
    if (!strcmp(a, "--pes")) { if ((npes = cli_int("lb", a, v)) < 0) goto out; }
    else if (!strcmp(a, "--balancer")) balancers = v;
    else if (!strcmp(a, "--period")) periods = v;
    else if (!strcmp(a, "--json")) json = v;
    else if (!strcmp(a, "--loads")) loads = v;
    else if (!strcmp(a, "--report")) report = v;
    else if (!strcmp(a, "--initial")) initial = v;
    else if (!strcmp(a, "--seed")) { if ((seed = cli_int("lb", a, v)) < 0) goto out; }
    else if (!strcmp(a, "--vp-memory")) { if (cli_num("lb", a, v, &vp_memory)) goto out; }
    else if (!strcmp(a, "--lb-cost")) { if (cli_num("lb", a, v, &lb_cost)) goto out; }
    else if (!strcmp(a, "--alpha")) { if (cli_num("lb", a, v, &alpha)) goto out; }
    else if (!strcmp(a, "--beta")) { if (cli_num("lb", a, v, &beta)) goto out; }
  }
  if (npes < 1) { rc = cli_usage("lb", "--pes N (at least 1) is required"); goto out; }
  if (!balancers) { rc = cli_usage("lb", "--balancer is required (one of: %s)", lb_kind_list()); goto out; }
  const char *bl[64], *pl[64];
  bcopy = xstrdup(balancers);
  pcopy = xstrdup(periods);
  int nb = split_list(bcopy, bl, 64), np = split_list(pcopy, pl, 64);
  if (nb < 1 || np < 1) { rc = cli_usage("lb", "--balancer and --period take 1 to 64 comma-separated values"); goto out; }
  int bk[64], pk[64];
  for (int i = 0; i < nb; i++)
    if ((bk[i] = lb_kind_from_name(bl[i])) < 0) {
      rc = cli_usage("lb", "unknown balancer '%s' (expected one of: %s)", bl[i], lb_kind_list());
      goto out;
    }
  for (int i = 0; i < np; i++) {
    long k = cli_int("lb", "--period", pl[i]);
    if (k < 0) goto out;
    if (k == 0) { rc = cli_usage("lb", "--period must be at least 1"); goto out; }
    pk[i] = (int)k;
  }
  /* 'none' runs once whatever the periods */
  int nconf = 0;
  for (int b = 0; b < nb; b++) nconf += bk[b] == LB_NONE ? 1 : np;
  if ((report || timeline) && nconf > 1) {
    rc = cli_usage("lb", "--report and --timeline describe one run: give one balancer and one period");
    goto out;
  }
  if (timeline && !json) { rc = cli_usage("lb", "--timeline adds sections to --json FILE: give one"); goto out; }
  if (cli_check_out(json) || cli_check_out(loads) || cli_check_out(report)) goto out;
  if ((rc = cli_run_setup(&run, "lb")) != 0) goto out;
  rc = 2;
  adapt_opts o;
  adapt_opts_init(&o, run.plat, (int)run.np);
  o.base = run.o;
  o.npes = (int)npes;
  o.vp_memory = vp_memory;
  o.lb_cost = lb_cost;
  o.alpha = alpha;
  o.beta = beta;
  o.seed = (uint64_t)seed;
  o.keep_loads = loads || report || timeline;
  int policy;
  if ((rc = cli_dyn_setup(&dyn, "lb", "--pe-events", (int)npes, NULL, NULL, &policy)) != 0) goto out;
  rc = 2;
  if (dyn.spec) o.pe_events = &dyn.ev;
  o.base.observers = observers;
  o.base.nobservers = 0;
  if (report || timeline) {
    /* the whole history, for the timeline charts and the critical path of the report */
    rec = obs_record_new((int)run.np, 0);
    observers[o.base.nobservers++] = obs_record_observer(rec);
  }
  observers[o.base.nobservers++] = (replay_observer){.ctx = &migrates, .action = count_migrate};
  if (!strcmp(initial, "block")) o.initial = ADAPT_INIT_BLOCK;
  else if (!strcmp(initial, "round-robin")) o.initial = ADAPT_INIT_ROUND_ROBIN;
  else { o.initial = ADAPT_INIT_FILE; o.initial_file = initial; }
  runs = xcalloc((size_t)(nb * np), sizeof *runs);
  psim_err err;
  psim_err_clear(&err);
  for (int b = 0; b < nb; b++) {
    for (int p = 0; p < np; p++) {
      /* 'none' never balances: one run whatever the period */
      if (bk[b] == LB_NONE && p > 0) continue;
      lb_run *r = &runs[nruns];
      r->balancer = (lb_kind)bk[b];
      r->period = pk[p];
      o.balancer = r->balancer;
      o.period = r->period;
      if (nruns && cli_run_open_source(&run, &err) < 0) { rc = cli_fail(&err); goto out; }
      nruns++;
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      int x = adapt_run(run.src, &o, &r->res, &err);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      r->wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
      if (x < 0) {
        if (err.code == PSIM_EXIT_DEADLOCK && r->res.run.deadlock) {
          fprintf(stderr, "psim lb (%s, period %d): %s", lb_kind_name(r->balancer), r->period, r->res.run.deadlock);
          rc = PSIM_EXIT_DEADLOCK;
        } else rc = cli_fail(&err);
        goto out;
      }
      if (nruns == 1 && migrates == 0 && (nb > 1 || bk[0] != LB_NONE))
        fprintf(stderr, "psim lb: warning: the trace has no 'migrate' action, so no balancing can "
                        "happen: the VPs keep their initial mapping (end each iteration with "
                        "'R migrate [BYTES]'; see psim lb --help)\n");
      if (!quiet)
        fprintf(stderr, "psim lb: %s period %d: %llu actions in %.3f s wall (%.0f actions/s)\n",
                lb_kind_name(r->balancer), r->period, (unsigned long long)r->res.run.actions, r->wall,
                r->wall > 0 ? (double)r->res.run.actions / r->wall : 0.0);
      if (loads) {
        char path[4096];
        if (nb * np > 1) suffixed(path, sizeof path, loads, lb_kind_name(r->balancer), r->period);
        else snprintf(path, sizeof path, "%s", loads);
        FILE *f = cli_open_out(path);
        if (!f) goto out;
        adapt_write_loads_csv(f, &r->res);
        if (cli_close_out(f, path)) goto out;
      }
    }
  }
  run_meta m = cli_run_meta(&run, "lb");
  /* what --json under --timeline and the report draw (rec: one of them was asked for) */
  if (rec && (json || report)) obs_critpath_compute(rec, &runs[0].res.run, &cp);
  lb_doc doc = {runs, nruns, &o, &m, {rec, &cp}, timeline};
  if ((rc = cli_emit(json, report, run.traces.data[0], write_doc, &doc)) != 0) goto out;
  if (!quiet && !(json && !strcmp(json, "-"))) {
    if (nruns == 1) lb_report_one(stdout, &runs[0]);
    else lb_report_table(stdout, runs, nruns);
  }
  rc = 0;
out:
  for (int i = 0; i < nruns; i++) adapt_result_free(&runs[i].res);
  free(runs);
  obs_critpath_free(&cp);
  obs_record_free(rec);
  free(bcopy);
  free(pcopy);
  cli_run_free(&run);
  cli_dyn_free(&dyn);
  return rc;
}
