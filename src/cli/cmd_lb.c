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

/* psim lb's options, as parse_args reads them, and the configurations they list. */
typedef struct lb_args {
  cli_run run;                /* the trace, the platform, the models (run_args.c) */
  cli_dyn dyn;                /* --pe-events */
  const char *balancers, *periods, *json, *loads, *initial, *report;
  int timeline, quiet;
  long npes, seed;
  double vp_memory, lb_cost, alpha, beta;
  char *bcopy, *pcopy;        /* the lists' copies, which bl and pl point into */
  int nb, np;                 /* how many balancers, periods */
  int bk[64], pk[64];         /* each balancer's kind, each period */
} lb_args;

/* --help was given: printed, the command exits 0 (parse_args' return). */
#define LB_HELP_SHOWN (-1)

/* argv into a, one option at a time (the shared ones through cli_dyn_option and
 * cli_run_option). 0, LB_HELP_SHOWN, or the exit status after a usage error. */
static int parse_options(int argc, char **argv, lb_args *a) {
  static const char *const with_value[] = {"--pes", "--balancer", "--period", "--json", "--loads",
                                           "--report", "--initial", "--seed", "--vp-memory",
                                           "--lb-cost", "--alpha", "--beta", NULL};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { fputs(HELP, stdout); return LB_HELP_SHOWN; }
    int r = cli_dyn_option(&a->dyn, "lb", "--pe-events", argc, argv, &i);
    if (r < 0) return PSIM_EXIT_USAGE;
    if (r > 0) continue;
    r = cli_run_option(&a->run, "lb", argc, argv, &i);
    if (r < 0) return PSIM_EXIT_USAGE;
    if (r > 0) continue;
    if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) { a->quiet = 1; continue; }
    if (!strcmp(o, "--timeline")) { a->timeline = 1; continue; }
    if (!cli_is_one_of(o, with_value)) return cli_usage("lb", "unknown option '%s'", o);
    if (!v) return cli_usage("lb", "%s needs a value", o);
    i++;
    int bad = 0;
    if (!strcmp(o, "--pes")) bad = (a->npes = cli_int("lb", o, v)) < 0;
    else if (!strcmp(o, "--balancer")) a->balancers = v;
    else if (!strcmp(o, "--period")) a->periods = v;
    else if (!strcmp(o, "--json")) a->json = v;
    else if (!strcmp(o, "--loads")) a->loads = v;
    else if (!strcmp(o, "--report")) a->report = v;
    else if (!strcmp(o, "--initial")) a->initial = v;
    else if (!strcmp(o, "--seed")) bad = (a->seed = cli_int("lb", o, v)) < 0;
    else if (!strcmp(o, "--vp-memory")) bad = cli_num("lb", o, v, &a->vp_memory);
    else if (!strcmp(o, "--lb-cost")) bad = cli_num("lb", o, v, &a->lb_cost);
    else if (!strcmp(o, "--alpha")) bad = cli_num("lb", o, v, &a->alpha);
    else if (!strcmp(o, "--beta")) bad = cli_num("lb", o, v, &a->beta);
    if (bad) return PSIM_EXIT_USAGE;
  }
  return 0;
}

/* --balancer and --period into kinds and numbers. 0 or the exit status. */
static int parse_lists(lb_args *a) {
  const char *bl[64], *pl[64];
  a->bcopy = xstrdup(a->balancers);
  a->pcopy = xstrdup(a->periods);
  a->nb = split_list(a->bcopy, bl, 64);
  a->np = split_list(a->pcopy, pl, 64);
  if (a->nb < 1 || a->np < 1) return cli_usage("lb", "--balancer and --period take 1 to 64 comma-separated values");
  for (int i = 0; i < a->nb; i++)
    if ((a->bk[i] = lb_kind_from_name(bl[i])) < 0)
      return cli_usage("lb", "unknown balancer '%s' (expected one of: %s)", bl[i], lb_kind_list());
  for (int i = 0; i < a->np; i++) {
    long k = cli_int("lb", "--period", pl[i]);
    if (k < 0) return PSIM_EXIT_USAGE;
    if (k == 0) return cli_usage("lb", "--period must be at least 1");
    a->pk[i] = (int)k;
  }
  return 0;
}

/* The options, then what they must say together: checked before the trace is read, and the
 * outputs' paths before a run whose results they would lose. */
static int parse_args(int argc, char **argv, lb_args *a) {
  int rc = parse_options(argc, argv, a);
  if (rc) return rc;
  if (a->npes < 1) return cli_usage("lb", "--pes N (at least 1) is required");
  if (!a->balancers) return cli_usage("lb", "--balancer is required (one of: %s)", lb_kind_list());
  if ((rc = parse_lists(a)) != 0) return rc;
  /* 'none' runs once whatever the periods */
  int nconf = 0;
  for (int b = 0; b < a->nb; b++) nconf += a->bk[b] == LB_NONE ? 1 : a->np;
  if ((a->report || a->timeline) && nconf > 1)
    return cli_usage("lb", "--report and --timeline describe one run: give one balancer and one period");
  if (a->timeline && !a->json) return cli_usage("lb", "--timeline adds sections to --json FILE: give one");
  if (cli_check_out(a->json) || cli_check_out(a->loads) || cli_check_out(a->report)) return PSIM_EXIT_USAGE;
  return 0;
}

/* What set_up builds: the VP mode's options and the observers of every run. Not copied: o
 * points into it. */
typedef struct lb_setup {
  adapt_opts o;
  obs_record *rec;            /* --report, --timeline: the run's whole history */
  replay_observer observers[2];
  unsigned long migrates;     /* the trace's migrate actions (count_migrate) */
} lb_setup;

/* The platform and the trace (cli_run_setup), the VP mode's options, --pe-events, the
 * observers. 0 or the exit status. */
static int set_up(lb_args *a, lb_setup *s) {
  int rc = cli_run_setup(&a->run, "lb");
  if (rc) return rc;
  adapt_opts *o = &s->o;
  adapt_opts_init(o, a->run.plat, (int)a->run.np);
  o->base = a->run.o;
  o->npes = (int)a->npes;
  o->vp_memory = a->vp_memory;
  o->lb_cost = a->lb_cost;
  o->alpha = a->alpha;
  o->beta = a->beta;
  o->seed = (uint64_t)a->seed;
  o->keep_loads = a->loads || a->report || a->timeline;
  int policy;
  if ((rc = cli_dyn_setup(&a->dyn, "lb", "--pe-events", (int)a->npes, NULL, NULL, &policy)) != 0) return rc;
  if (a->dyn.spec) o->pe_events = &a->dyn.ev;
  o->base.observers = s->observers;
  o->base.nobservers = 0;
  if (a->report || a->timeline) {
    /* the whole history, for the timeline charts and the critical path of the report */
    s->rec = obs_record_new((int)a->run.np, 0);
    s->observers[o->base.nobservers++] = obs_record_observer(s->rec);
  }
  s->observers[o->base.nobservers++] = (replay_observer){.ctx = &s->migrates, .action = count_migrate};
  if (!strcmp(a->initial, "block")) o->initial = ADAPT_INIT_BLOCK;
  else if (!strcmp(a->initial, "round-robin")) o->initial = ADAPT_INIT_ROUND_ROBIN;
  else { o->initial = ADAPT_INIT_FILE; o->initial_file = a->initial; }
  return 0;
}

/* What the runs gave. */
typedef struct lb_outcome {
  lb_run *runs;
  int nruns;
  obs_critpath cp;            /* of runs[0], for --timeline and the report */
} lb_outcome;

/* --loads of one configuration, written as soon as it has run (a later configuration's
 * deadlock leaves the earlier ones' files): FILE, or FILE-BALANCER-PERIOD among several. */
static int write_loads(const lb_args *a, const lb_run *r) {
  char path[4096];
  if (a->nb * a->np > 1) suffixed(path, sizeof path, a->loads, lb_kind_name(r->balancer), r->period);
  else snprintf(path, sizeof path, "%s", a->loads);
  FILE *f = cli_open_out(path);
  if (!f) return PSIM_EXIT_INPUT;
  adapt_write_loads_csv(f, &r->res);
  return cli_close_out(f, path) ? PSIM_EXIT_INPUT : 0;
}

/* One configuration: its run (the trace reopened after the first), the warning that nothing
 * can balance (once), its speed line, its --loads. 0 or the exit status (3: a deadlock,
 * listed). */
static int run_one(lb_args *a, lb_setup *s, lb_run *r, int first) {
  psim_err err;
  psim_err_clear(&err);
  s->o.balancer = r->balancer;
  s->o.period = r->period;
  if (!first && cli_run_open_source(&a->run, &err) < 0) return cli_fail(&err);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int x = adapt_run(a->run.src, &s->o, &r->res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  r->wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (x < 0) {
    if (err.code != PSIM_EXIT_DEADLOCK || !r->res.run.deadlock) return cli_fail(&err);
    fprintf(stderr, "psim lb (%s, period %d): %s", lb_kind_name(r->balancer), r->period, r->res.run.deadlock);
    return PSIM_EXIT_DEADLOCK;
  }
  if (first && s->migrates == 0 && (a->nb > 1 || a->bk[0] != LB_NONE))
    fprintf(stderr, "psim lb: warning: the trace has no 'migrate' action, so no balancing can "
                    "happen: the VPs keep their initial mapping (end each iteration with "
                    "'R migrate [BYTES]'; see psim lb --help)\n");
  if (!a->quiet)
    fprintf(stderr, "psim lb: %s period %d: %llu actions in %.3f s wall (%.0f actions/s)\n",
            lb_kind_name(r->balancer), r->period, (unsigned long long)r->res.run.actions, r->wall,
            r->wall > 0 ? (double)r->res.run.actions / r->wall : 0.0);
  return a->loads ? write_loads(a, r) : 0;
}

/* Every combination of balancer and period, in the order listed ('none' never balances:
 * one run whatever the periods). */
static int run_all(lb_args *a, lb_setup *s, lb_outcome *out) {
  out->runs = xcalloc((size_t)(a->nb * a->np), sizeof *out->runs);
  for (int b = 0; b < a->nb; b++) {
    for (int p = 0; p < a->np; p++) {
      if (a->bk[b] == LB_NONE && p > 0) continue;
      lb_run *r = &out->runs[out->nruns];
      r->balancer = (lb_kind)a->bk[b];
      r->period = a->pk[p];
      int first = out->nruns == 0;
      out->nruns++;
      int rc = run_one(a, s, r, first);
      if (rc) return rc;
    }
  }
  return 0;
}

/* --json and --report through the shared output stage, then the table on stdout (unless
 * stdout carries the JSON). */
static int emit(const lb_args *a, const lb_setup *s, lb_outcome *out) {
  run_meta m = cli_run_meta(&a->run, "lb");
  /* what --json under --timeline and the report draw (rec: one of them was asked for) */
  if (s->rec && (a->json || a->report)) obs_critpath_compute(s->rec, &out->runs[0].res.run, &out->cp);
  lb_doc doc = {out->runs, out->nruns, &s->o, &m, {s->rec, &out->cp}, a->timeline};
  int rc = cli_emit(a->json, a->report, a->run.traces.data[0], write_doc, &doc);
  if (rc) return rc;
  if (!a->quiet && !(a->json && !strcmp(a->json, "-"))) {
    if (out->nruns == 1) lb_report_one(stdout, &out->runs[0]);
    else lb_report_table(stdout, out->runs, out->nruns);
  }
  return 0;
}

int cmd_lb(int argc, char **argv) {
  lb_args a = {.periods = "1", .initial = "block", .seed = 1, .vp_memory = 1e6, .alpha = 3.5e-5, .beta = 8.5e-9};
  lb_setup s = {0};
  lb_outcome out = {0};
  cli_dyn_init(&a.dyn);
  int rc = parse_args(argc, argv, &a);
  if (rc == 0) rc = set_up(&a, &s);
  if (rc == 0) rc = run_all(&a, &s, &out);
  if (rc == 0) rc = emit(&a, &s, &out);
  for (int i = 0; i < out.nruns; i++) adapt_result_free(&out.runs[i].res);
  free(out.runs);
  obs_critpath_free(&out.cp);
  obs_record_free(s.rec);
  free(a.bcopy);
  free(a.pcopy);
  cli_run_free(&a.run);
  cli_dyn_free(&a.dyn);
  return rc == LB_HELP_SHOWN ? 0 : rc;
}
