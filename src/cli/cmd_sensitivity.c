/* psim sensitivity: how much the predicted time depends on each factor of the model, one at a
 * time (the DPS paper's Tables 2-4): network latency, bandwidth, host speed, MPI overheads,
 * the application's computations and the cluster models' --cfg keys, each multiplied by the
 * chosen factors; for traces (replay) or for a program (psim run).
 *
 * Every variant runs in its own forked process, on its own copy of the platform and its own
 * trace reader, and sends back its simulated time through a pipe: nothing mutable is shared,
 * so -j N runs N at once and the output does not depend on N. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_emit.h"
#include "cli/run_args.h"
#include "psim/emul.h"

static const char *HELP =
    "usage: psim sensitivity [options] TRACE...\n"
    "       psim sensitivity [options] [--np N] [--no-measure] -- PROGRAM [ARGS...]\n"
    "\n"
    "Simulates the trace (same arguments as 'psim replay'), or the program built with psimcc\n"
    "(as 'psim run'), once as given (the base) and once per variant, each multiplying one\n"
    "parameter of the model by a factor K, and prints each variant's predicted time and its\n"
    "relative difference from the base (the DPS paper's Tables 2-4):\n"
    "  latency          every link's latency (and the loopback's)\n"
    "  bandwidth        every link's bandwidth (and the loopback's)\n"
    "  speed            every host's speed\n"
    "  overheads        the MPI send/receive overheads smpi/os, smpi/or, smpi/ois (zero unless\n"
    "                   set with --cfg or the platform; then not varied)\n"
    "  compute          the cost of every computation (the same as speed x1/K)\n"
    "  cpu/send-cost, cpu/recv-cost, cpu/factor, background/count\n"
    "                   the cluster models' --cfg keys (docs/models.md): the value given with\n"
    "                   --cfg (default 0, 0, 1, 0) times K; not varied when 0 or unknown;\n"
    "                   cpu/factor only when --vary names it (else it is compute again)\n"
    "\n"
    "options:\n" CLI_RUN_OPTIONS_HELP
    "  --factors LIST      comma-separated factors K (default 0.5,2)\n"
    "  --vary LIST         parameters to vary (default: all of them that can change something);\n"
    "                      NAME:K[:K...] gives one its own factors, e.g. latency:0.00148\n"
    "  --no-measure        (program) only declared costs count, as psim run --no-measure\n"
    "  --host-speed-ref F  (program) this machine's flop/s, as psim run\n"
    "  -j N                run N variants at once (default: the number of cores)\n"
    "  --json FILE         write the table as JSON ('-' = stdout)\n"
    "  --report FILE.html  the table and its tornado chart as an HTML report (also:\n"
    "                      psim report s.json -o FILE.html)\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st\n"
    "  psim sensitivity /tmp/st --factors 0.5,2 -j 2\n"
    "  build/psimcc -O2 -o lu_dps examples/lu_dps.c\n"
    "  psim sensitivity --np 8 --no-measure --vary latency:0.001,bandwidth:50 -j 2 -- ./lu_dps 1296 324\n";

/* ---- the parameters: one table ----
 * A parameter is varied by multiplying it by K. Built-in ones scale the platform or the
 * network configuration; a --cfg key (CFG) scales that key's value: the one given with --cfg
 * (else `dflt`), times K, set through replay_opts_cfg. Adding a model's parameter is one line;
 * a key this build does not know, or whose value is 0 (nothing to scale), is not varied. */
typedef struct sens_ctx { platform *plat; replay_opts *o; double k; } sens_ctx;
typedef struct sens_param {
  const char *name;                 /* for --vary and the JSON */
  const char *label;                /* for the table */
  void (*apply)(sens_ctx *c);       /* built-in; NULL for a --cfg key */
  const char *cfg;                  /* the --cfg key */
  double dflt;                      /* its value when --cfg does not give it */
  int in_default;                   /* varied when --vary is not given */
} sens_param;

/* Latency and bandwidth: the links, the loopback, and the star's ports when --cfg star/... sets
 * them for every host (they override the links then). */
static void ap_lat(sens_ctx *c) {
  plat_scale(c->plat, 1, 1, c->k);
  c->o->net.loopback_lat *= c->k;
  if (c->o->net.star_lat >= 0) c->o->net.star_lat *= c->k;
}
static void ap_bw(sens_ctx *c) {
  plat_scale(c->plat, 1, c->k, 1);
  c->o->net.loopback_bw *= c->k;
  if (c->o->net.star_bw >= 0) c->o->net.star_bw *= c->k;
}
static void ap_speed(sens_ctx *c) { plat_scale(c->plat, c->k, 1, 1); }
static void ap_comp(sens_ctx *c) { plat_scale(c->plat, 1 / c->k, 1, 1); }
/* Overhead functions use their first section below the smallest threshold (below_first), so
 * scaling the sections scales the whole function. */
static void scale_steps(step_fn *f, double k) {
  for (int i = 0; i < f->n; i++) { f->a[i] *= k; f->b[i] *= k; }
  if (!f->below_first) f->below *= k;
}
static void ap_ovh(sens_ctx *c) {
  scale_steps(&c->o->net.os, c->k); scale_steps(&c->o->net.or_, c->k); scale_steps(&c->o->net.ois, c->k);
}

static const sens_param PARAMS[] = {
    {"latency", "latency", ap_lat, NULL, 0, 1},
    {"bandwidth", "bandwidth", ap_bw, NULL, 0, 1},
    {"speed", "host speed", ap_speed, NULL, 0, 1},
    {"overheads", "overheads", ap_ovh, NULL, 0, 1},
    {"compute", "compute", ap_comp, NULL, 0, 1},
    /* the cluster models' keys (docs/models.md): varied when this build knows them */
    {"cpu/send-cost", "comm CPU (send)", NULL, "cpu/send-cost", 0, 1},
    {"cpu/recv-cost", "comm CPU (receive)", NULL, "cpu/recv-cost", 0, 1},
    /* with no machine file it is "compute" again: varied only when --vary names it */
    {"cpu/factor", "performance factor", NULL, "cpu/factor", 1, 0},
    {"background/count", "background users", NULL, "background/count", 0, 1},
};
enum { NPARAMS = (int)(sizeof PARAMS / sizeof PARAMS[0]), V_BASE = -1 };

typedef struct variant {
  int what;             /* index in PARAMS, V_BASE */
  double k;
  double time;          /* simulated time, NAN when the run failed */
  pid_t pid;
  int fd;
} variant;

/* The value of --cfg key as given on the command line (the last one), else dflt. */
static double cfg_value(const cli_run *run, const char *key, double dflt) {
  size_t n = strlen(key);
  double v = dflt;
  for (size_t i = 0; i < run->cfgs.len; i++) {
    const char *c = run->cfgs.data[i];
    if (!strncmp(c, key, n) && (c[n] == ':' || c[n] == '=')) v = strtod(c + n + 1, NULL);
  }
  return v;
}

/* Applies parameter p x k to o and plat. Returns 0, or -1 with err (a --cfg key unknown). */
static int apply_param(const cli_run *run, platform *plat, replay_opts *o, int p, double k, psim_err *err) {
  const sens_param *sp = &PARAMS[p];
  sens_ctx c = {plat, o, k};
  if (sp->apply) { sp->apply(&c); return 0; }
  char val[64];
  snprintf(val, sizeof val, "%.17g", cfg_value(run, sp->cfg, sp->dflt) * k);
  return replay_opts_cfg(o, sp->cfg, val, err);
}

/* Whether varying p can change anything: overheads set, a known --cfg key with a value. */
static int param_applies(const cli_run *run, int p) {
  const sens_param *sp = &PARAMS[p];
  if (sp->apply == ap_ovh) {
    const step_fn *s3[3] = {&run->o.net.os, &run->o.net.or_, &run->o.net.ois};
    for (int j = 0; j < 3; j++) {
      if (!s3[j]->below_first && s3[j]->below != 0) return 1;
      for (int i = 0; i < s3[j]->n; i++) if (s3[j]->a[i] != 0 || s3[j]->b[i] != 0) return 1;
    }
    return 0;
  }
  if (sp->apply) return 1;
  if (cfg_value(run, sp->cfg, sp->dflt) == 0) return 0;
  replay_opts o = run->o;
  psim_err err;
  psim_err_clear(&err);
  return apply_param(run, run->plat, &o, p, 2, &err) == 0;
}

/* A program (psim sensitivity -- PROGRAM ARGS) rather than traces. */
typedef struct sens_prog {
  int argc;
  char **argv;
  int measure;
  double speed_ref;
} sens_prog;

/* In the child: applies the variant to its own copies, simulates, writes the time to fd. */
static void run_variant(cli_run *run, const sens_prog *prog, const variant *v, int fd) {
  replay_opts o = run->o;
  psim_err err;
  psim_err_clear(&err);
  replay_result res = {0};
  double t = NAN;
  if (v->what != V_BASE && apply_param(run, run->plat, &o, v->what, v->k, &err) < 0) cli_fail(&err);
  else if (prog) {
    emu_opts eo;
    emu_opts_init(&eo, run->plat, (int)run->np);
    eo.hostfile = o.hostfile;
    eo.nhostfile = o.nhostfile;
    eo.net = o.net;
    eo.coll = o.coll;
    eo.measure = prog->measure;
    eo.host_speed_ref = prog->speed_ref;
    eo.program = prog->argv[0];
    eo.argc = prog->argc;
    eo.argv = prog->argv;
    /* the program's own output would interleave with the table */
    if (!freopen("/dev/null", "w", stdout)) _exit(1);
    if (emu_run(&eo, &res, &err) < 0) cli_fail(&err);
    else t = res.simulated_time;
  } else if (cli_run_open_source(run, &err) < 0) cli_fail(&err);
  else if (replay_run(run->src, &o, &res, &err) < 0) cli_fail(&err);
  else t = res.simulated_time;
  replay_result_free(&res);
  char buf[64];
  int n = snprintf(buf, sizeof buf, "%.17g\n", t);
  if (write(fd, buf, (size_t)n) != n) _exit(1);
}

static int start(cli_run *run, const sens_prog *prog, variant *v) {
  int p[2];
  if (pipe(p) < 0) { perror("psim: pipe"); return -1; }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { perror("psim: fork"); close(p[0]); close(p[1]); return -1; }
  if (pid == 0) {
    close(p[0]);
    run_variant(run, prog, v, p[1]);
    _exit(0);   /* no atexit handlers, no flushing of the parent's buffers twice */
  }
  close(p[1]);
  v->pid = pid;
  v->fd = p[0];
  return 0;
}

static void collect(variant *v) {
  char buf[64] = "";
  ssize_t n, got = 0;
  while (got < (ssize_t)sizeof buf - 1 && (n = read(v->fd, buf + got, sizeof buf - 1 - (size_t)got)) != 0) {
    if (n < 0) { if (errno == EINTR) continue; break; }
    got += n;
  }
  buf[got] = 0;
  close(v->fd);
  int st;
  while (waitpid(v->pid, &st, 0) < 0 && errno == EINTR) {}
  v->time = got > 0 ? strtod(buf, NULL) : NAN;
  v->pid = 0;
}

/* The JSON document of the table (what psim report draws as a tornado chart). */
static void write_json(FILE *f, const variant *vs, size_t n, double base, const run_meta *m, int np) {
  fputs("{\n  \"command\": \"sensitivity\",\n  \"platform\": ", f);
  obs_json_string(f, m->platform);
  fprintf(f, ",\n  \"network_model\": \"%s\",\n  \"np\": %d,\n  \"base\": ", m->network, np);
  obs_json_number(f, base);
  fputs(",\n  \"variants\": [", f);
  for (size_t i = 1; i < n; i++) {
    fprintf(f, "%s\n    {\"factor\": \"%s\", \"k\": ", i > 1 ? "," : "", PARAMS[vs[i].what].name);
    obs_json_number(f, vs[i].k);
    fputs(", \"simulated_time\": ", f);
    obs_json_number(f, vs[i].time);
    fputs(", \"relative_difference\": ", f);
    obs_json_number(f, (vs[i].time - base) / base);
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
}

/* The document for cli_emit: the report draws the same document --json gets. */
typedef struct sens_doc {
  const variant *vs;
  size_t n;
  double base;
  const run_meta *m;
  int np;
} sens_doc;

static void write_doc(FILE *f, void *ctx, int for_report) {
  const sens_doc *d = ctx;
  (void)for_report;
  write_json(f, d->vs, d->n, d->base, d->m, d->np);
}

static int parse_list(const char *s, double *out, int max) {
  int n = 0;
  char *copy = xstrdup(s), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *end;
    double x = strtod(t, &end);
    if (*end || !(x > 0) || !isfinite(x) || n == max) { free(copy); return -1; }
    out[n++] = x;
  }
  free(copy);
  return n;
}

/* One --vary item: NAME or NAME:K[:K...] (its own factors). Returns the PARAMS index, or -1. */
static int vary_item(char *t, double *ks, int *nk) {
  char *colon = strchr(t, ':');
  *nk = 0;
  if (colon) {
    *colon = 0;
    for (char *q = colon + 1; *q;) {
      char *end;
      double x = strtod(q, &end);
      if (end == q || !(x > 0) || !isfinite(x) || *nk == 16 || (*end && *end != ':')) return -2;
      ks[(*nk)++] = x;
      q = *end ? end + 1 : end;
    }
    if (!*nk) return -2;
  }
  for (int j = 0; j < NPARAMS; j++) if (!strcmp(t, PARAMS[j].name)) return j;
  return -1;
}

static const char *param_names(void) {
  static char buf[512];
  size_t n = 0;
  for (int j = 0; j < NPARAMS; j++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", j ? ", " : "", PARAMS[j].name);
  return buf;
}

int cmd_sensitivity(int argc, char **argv) {
  cli_run run = {0};
  const char *json = NULL, *report = NULL, *vary = NULL;
  double factors[16] = {0.5, 2};
  int nfactors = 2, rc = 2, prog_at = -1, measure = 1;
  double speed_ref = 0;
  long jobs = sysconf(_SC_NPROCESSORS_ONLN);
  VEC(variant) vs = {0};
  char notes[1024] = "";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) { prog_at = i + 1; break; }
    int k = cli_run_option(&run, "sensitivity", argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    if (!strcmp(a, "--no-measure")) { measure = 0; continue; }
    static const char *const with_value[] = {"--json", "--report", "--factors", "--vary", "-j",
                                             "--host-speed-ref", NULL};
    if (!cli_is_one_of(a, with_value)) {
      rc = cli_usage("sensitivity", "unknown option '%s'", a);
      goto out;
    }
    if (!v) { rc = cli_usage("sensitivity", "%s needs a value", a); goto out; }
    i++;
    if (!strcmp(a, "--json")) json = v;
    else if (!strcmp(a, "--report")) report = v;
    else if (!strcmp(a, "--vary")) vary = v;
    else if (!strcmp(a, "-j")) { if ((jobs = cli_int("sensitivity", a, v)) < 0) goto out; if (!jobs) jobs = 1; }
    else if (!strcmp(a, "--host-speed-ref")) {
      int w = 0;
      char why[256];
      if (psim_unit_speed(v, &speed_ref, &w, why, sizeof why) < 0 || !(speed_ref > 0)) {
        rc = cli_usage("sensitivity", "--host-speed-ref expects a speed in flop/s (e.g. 2e9), got '%s'", v);
        goto out;
      }
    }
    else if ((nfactors = parse_list(v, factors, 16)) <= 0) {
      rc = cli_usage("sensitivity", "--factors expects positive numbers separated by commas, got '%s'", v);
      goto out;
    }
  }
  sens_prog prog = {0}, *progp = NULL;
  if (prog_at >= 0) {
    if (prog_at >= argc) { rc = cli_usage("sensitivity", "no program after '--'"); goto out; }
    if (run.traces.len) { rc = cli_usage("sensitivity", "give traces or '-- PROGRAM ARGS', not both"); goto out; }
    psim_err perr;
    psim_err_clear(&perr);
    if (emu_prog_check(argv[prog_at], &perr) < 0) { rc = cli_fail(&perr); goto out; }
    prog = (sens_prog){argc - prog_at, argv + prog_at, measure, speed_ref};
    progp = &prog;
    run.no_traces = 1;
  }
  if (jobs < 1) jobs = 1;
  if (cli_check_out(json) || cli_check_out(report)) goto out;
  if ((rc = cli_run_setup(&run, "sensitivity")) != 0) goto out;
  rc = 2;
  if (progp && prog.measure && !(prog.speed_ref > 0)) prog.speed_ref = emu_calibrate(0.2);
  /* the variants, in table order */
  VEC_PUSH(vs, ((variant){V_BASE, 1, NAN, 0, -1}));
  {
    char *copy = xstrdup(vary ? vary : ""), *save = NULL;
    if (!vary)   /* every default parameter that can change something */
      for (int j = 0; j < NPARAMS; j++) {
        if (!PARAMS[j].in_default || !param_applies(&run, j)) continue;
        for (int f = 0; f < nfactors; f++) VEC_PUSH(vs, ((variant){j, factors[f], NAN, 0, -1}));
      }
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      double ks[16];
      int nk, w = vary_item(t, ks, &nk);
      if (w < 0) {
        if (w == -2) cli_usage("sensitivity", "--vary: '%s' expects NAME:K[:K...] with positive factors K", t);
        else cli_usage("sensitivity", "--vary: unknown parameter '%s' (%s)", t, param_names());
        free(copy);
        goto out;
      }
      if (!param_applies(&run, w)) {
        size_t l = strlen(notes);
        snprintf(notes + l, sizeof notes - l, "(%s not varied: %s)\n", PARAMS[w].name,
                 PARAMS[w].apply ? "smpi/os, smpi/or and smpi/ois are zero; set them with --cfg"
                                 : "its --cfg value is 0 or the key is unknown to this build");
        continue;
      }
      if (!nk) { memcpy(ks, factors, (size_t)nfactors * sizeof *ks); nk = nfactors; }
      for (int f = 0; f < nk; f++) VEC_PUSH(vs, ((variant){w, ks[f], NAN, 0, -1}));
    }
    free(copy);
  }
  /* Children open their own readers: an inherited one would share file offsets. */
  if (run.src) tit_close(run.src);
  run.src = NULL;
  size_t next = 0, done = 0, running = 0, first_running = 0;
  while (done < vs.len) {
    while (next < vs.len && running < (size_t)jobs) {
      if (start(&run, progp, &vs.data[next]) < 0) goto out;
      next++;
      running++;
    }
    /* collect in start order: simple, and the slowest variants do not block others long */
    collect(&vs.data[first_running++]);
    running--;
    done++;
  }
  double base = vs.data[0].time;
  if (isnan(base)) { fprintf(stderr, "psim sensitivity: the base run failed\n"); goto out; }
  run_meta m = cli_run_meta(&run, "sensitivity");
  if (!json || strcmp(json, "-")) {
    printf("sensitivity of %d ranks on %s, %s network model: base %.6f s\n\n", (int)run.np, m.platform,
           m.network, base);
    printf("%-30s %16s %12s\n", "variant", "predicted (s)", "difference");
    for (size_t i = 0; i < vs.len; i++) {
      char name[96];
      if (vs.data[i].what == V_BASE) snprintf(name, sizeof name, "base");
      else snprintf(name, sizeof name, "%s x%g", PARAMS[vs.data[i].what].label, vs.data[i].k);
      if (isnan(vs.data[i].time)) printf("%-30s %16s %12s\n", name, "failed", "");
      else if (vs.data[i].what == V_BASE) printf("%-30s %16.6f %12s\n", name, base, "");
      else printf("%-30s %16.6f %+11.2f%%\n", name, vs.data[i].time, 100 * (vs.data[i].time - base) / base);
    }
    fputs(notes, stdout);
  }
  sens_doc doc = {vs.data, vs.len, base, &m, (int)run.np};
  /* the page is titled by what was studied: the first trace, or the program (no trace then) */
  const char *title = run.traces.len ? run.traces.data[0] : argv[prog_at];
  if ((rc = cli_emit(json, report, title, write_doc, &doc)) != 0) goto out;
  rc = 0;
  for (size_t i = 0; i < vs.len; i++) if (isnan(vs.data[i].time)) rc = 2;
out:
  for (size_t i = 0; i < vs.len; i++) if (vs.data[i].pid > 0) collect(&vs.data[i]);
  VEC_FREE(vs);
  cli_run_free(&run);
  return rc;
}
