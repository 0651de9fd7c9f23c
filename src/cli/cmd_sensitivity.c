/* psim sensitivity: how much the predicted time depends on each factor of the model, one at a
 * time (the DPS paper's Tables 2-4): network latency, bandwidth, host speed, MPI overheads and
 * the application's computations, each multiplied by the chosen factors.
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

#include "cli/run_args.h"

static const char *HELP =
    "usage: psim sensitivity [options] TRACE...\n"
    "\n"
    "Replays the trace (same arguments as 'psim replay') once as given (the base) and once per\n"
    "variant, each varying one factor, and prints each variant's predicted time and its\n"
    "relative difference from the base:\n"
    "  latency xK      every link's latency (and the loopback's)\n"
    "  bandwidth xK    every link's bandwidth (and the loopback's)\n"
    "  host speed xK   every host's speed\n"
    "  overheads xK    the MPI send/receive overheads smpi/os, smpi/or, smpi/ois (zero unless\n"
    "                  set with --cfg or the platform; then the variant is skipped)\n"
    "  compute xK      the cost of every computation (the same as host speed x1/K)\n"
    "\n"
    "options:\n" CLI_RUN_OPTIONS_HELP
    "  --factors LIST      comma-separated factors K (default 0.5,2)\n"
    "  --vary LIST         which factors to vary (default latency,bandwidth,speed,overheads,compute)\n"
    "  -j N                run N variants at once (default: the number of cores)\n"
    "  --json FILE         write the table as JSON ('-' = stdout)\n"
    "  --report FILE.html  the table and its tornado chart as an HTML report (also:\n"
    "                      psim report s.json -o FILE.html)\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st\n"
    "  psim sensitivity /tmp/st --factors 0.5,2 -j 2\n";

enum { V_BASE, V_LAT, V_BW, V_SPEED, V_OVH, V_COMP, V_N };
static const char *const VNAME[V_N] = {"base", "latency", "bandwidth", "speed", "overheads", "compute"};
static const char *const VLABEL[V_N] = {"base", "latency", "bandwidth", "host speed", "overheads", "compute"};

typedef struct variant {
  int what;
  double k;
  double time;          /* simulated time, NAN when the run failed */
  pid_t pid;
  int fd;
} variant;

/* Overhead functions use their first section below the smallest threshold (below_first), so
 * scaling the sections scales the whole function. */
static void scale_steps(step_fn *f, double k) {
  for (int i = 0; i < f->n; i++) { f->a[i] *= k; f->b[i] *= k; }
  if (!f->below_first) f->below *= k;
}

static int overheads_set(const net_config *c) {
  const step_fn *s[3] = {&c->os, &c->or_, &c->ois};
  for (int j = 0; j < 3; j++) {
    if (!s[j]->below_first && s[j]->below != 0) return 1;
    for (int i = 0; i < s[j]->n; i++) if (s[j]->a[i] != 0 || s[j]->b[i] != 0) return 1;
  }
  return 0;
}

/* In the child: applies the variant to its own copies, replays, writes the time to fd. */
static void run_variant(cli_run *run, const variant *v, int fd) {
  replay_opts o = run->o;
  double k = v->k;
  switch (v->what) {
  case V_LAT: plat_scale(run->plat, 1, 1, k); o.net.loopback_lat *= k; break;
  case V_BW: plat_scale(run->plat, 1, k, 1); o.net.loopback_bw *= k; break;
  case V_SPEED: plat_scale(run->plat, k, 1, 1); break;
  case V_COMP: plat_scale(run->plat, 1 / k, 1, 1); break;
  case V_OVH: scale_steps(&o.net.os, k); scale_steps(&o.net.or_, k); scale_steps(&o.net.ois, k); break;
  default: break;
  }
  psim_err err;
  psim_err_clear(&err);
  replay_result res = {0};
  double t = NAN;
  if (cli_run_open_source(run, &err) < 0) cli_fail(&err);
  else if (replay_run(run->src, &o, &res, &err) < 0) cli_fail(&err);
  else t = res.simulated_time;
  replay_result_free(&res);
  char buf[64];
  int n = snprintf(buf, sizeof buf, "%.17g\n", t);
  if (write(fd, buf, (size_t)n) != n) _exit(1);
}

static int start(cli_run *run, variant *v) {
  int p[2];
  if (pipe(p) < 0) { perror("psim: pipe"); return -1; }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { perror("psim: fork"); close(p[0]); close(p[1]); return -1; }
  if (pid == 0) {
    close(p[0]);
    run_variant(run, v, p[1]);
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
    fprintf(f, "%s\n    {\"factor\": \"%s\", \"k\": ", i > 1 ? "," : "", VNAME[vs[i].what]);
    obs_json_number(f, vs[i].k);
    fputs(", \"simulated_time\": ", f);
    obs_json_number(f, vs[i].time);
    fputs(", \"relative_difference\": ", f);
    obs_json_number(f, (vs[i].time - base) / base);
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
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

int cmd_sensitivity(int argc, char **argv) {
  cli_run run = {0};
  const char *json = NULL, *report = NULL, *vary = "latency,bandwidth,speed,overheads,compute";
  double factors[16] = {0.5, 2};
  int nfactors = 2, rc = 2;
  long jobs = sysconf(_SC_NPROCESSORS_ONLN);
  VEC(variant) vs = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int k = cli_run_option(&run, "sensitivity", argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    if (strcmp(a, "--json") && strcmp(a, "--report") && strcmp(a, "--factors") && strcmp(a, "--vary") && strcmp(a, "-j")) {
      rc = cli_usage("sensitivity", "unknown option '%s'", a);
      goto out;
    }
    if (!v) { rc = cli_usage("sensitivity", "%s needs a value", a); goto out; }
    i++;
    if (!strcmp(a, "--json")) json = v;
    else if (!strcmp(a, "--report")) report = v;
    else if (!strcmp(a, "--vary")) vary = v;
    else if (!strcmp(a, "-j")) { if ((jobs = cli_int("sensitivity", a, v)) < 0) goto out; if (!jobs) jobs = 1; }
    else if ((nfactors = parse_list(v, factors, 16)) <= 0) {
      rc = cli_usage("sensitivity", "--factors expects positive numbers separated by commas, got '%s'", v);
      goto out;
    }
  }
  if (jobs < 1) jobs = 1;
  if (cli_check_out(json) || cli_check_out(report)) goto out;
  if ((rc = cli_run_setup(&run, "sensitivity")) != 0) goto out;
  rc = 2;
  /* the variants, in table order */
  VEC_PUSH(vs, ((variant){V_BASE, 1, NAN, 0, -1}));
  int skipped_ovh = 0;
  {
    char *copy = xstrdup(vary), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      int w = -1;
      for (int j = 1; j < V_N; j++) if (!strcmp(t, VNAME[j])) w = j;
      if (w < 0) {
        cli_usage("sensitivity", "--vary: unknown factor '%s' (latency, bandwidth, speed, overheads, compute)", t);
        free(copy);
        goto out;
      }
      if (w == V_OVH && !overheads_set(&run.o.net)) { skipped_ovh = 1; continue; }
      for (int f = 0; f < nfactors; f++) VEC_PUSH(vs, ((variant){w, factors[f], NAN, 0, -1}));
    }
    free(copy);
  }
  /* Children open their own readers: an inherited one would share file offsets. */
  tit_close(run.src);
  run.src = NULL;
  size_t next = 0, done = 0, running = 0, first_running = 0;
  while (done < vs.len) {
    while (next < vs.len && running < (size_t)jobs) {
      if (start(&run, &vs.data[next]) < 0) goto out;
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
    printf("%-22s %16s %12s\n", "variant", "predicted (s)", "difference");
    for (size_t i = 0; i < vs.len; i++) {
      char name[64];
      if (vs.data[i].what == V_BASE) snprintf(name, sizeof name, "base");
      else snprintf(name, sizeof name, "%s x%g", VLABEL[vs.data[i].what], vs.data[i].k);
      if (isnan(vs.data[i].time)) printf("%-22s %16s %12s\n", name, "failed", "");
      else if (vs.data[i].what == V_BASE) printf("%-22s %16.6f %12s\n", name, base, "");
      else printf("%-22s %16.6f %+11.2f%%\n", name, vs.data[i].time, 100 * (vs.data[i].time - base) / base);
    }
    if (skipped_ovh)
      printf("(overheads not varied: smpi/os, smpi/or and smpi/ois are zero; set them with --cfg)\n");
  }
  if (json) {
    FILE *f = cli_open_out(json);
    if (!f) goto out;
    write_json(f, vs.data, vs.len, base, &m, (int)run.np);
    if (cli_close_out(f, json)) goto out;
  }
  if (report) {
    char *doc = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&doc, &len);
    if (!mf) { fprintf(stderr, "psim: out of memory\n"); goto out; }
    write_json(mf, vs.data, vs.len, base, &m, (int)run.np);
    fclose(mf);
    int k = cli_write_report_file(report, doc, len, run.traces.data[0]);
    free(doc);
    if (k) { rc = k; goto out; }
  }
  rc = 0;
  for (size_t i = 0; i < vs.len; i++) if (isnan(vs.data[i].time)) rc = 2;
out:
  for (size_t i = 0; i < vs.len; i++) if (vs.data[i].pid > 0) collect(&vs.data[i]);
  VEC_FREE(vs);
  cli_run_free(&run);
  return rc;
}
