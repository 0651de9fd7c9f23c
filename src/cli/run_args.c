/* The options every simulation command shares (platform, hostfile, ranks, model, --cfg,
 * traces) and turning them into a platform, a trace source and replay options. replay,
 * critical-path and sensitivity parse them here so they accept the same arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_args.h"

/* --ref-speed, --compute-counter, --compute-scale: how a foreign trace's compute becomes
 * flops (include/psim/trace.h), for every command that reads traces. 1: a (with its value v)
 * was one of them and is applied; 0: not one of them; -1: a bad value (the usage printed). */
int cli_foreign_option(const char *cmd, const char *a, const char *v) {
  if (!strcmp(a, "--compute-counter")) {
    if (!v || !*v) { cli_usage(cmd, "--compute-counter expects a counter's name (e.g. PAPI_TOT_INS) or event type"); return -1; }
    tit_set_compute_counter(v);
    return 1;
  }
  int speed = !strcmp(a, "--ref-speed");
  if (!speed && strcmp(a, "--compute-scale")) return 0;
  char *end = NULL;
  double x = v ? strtod(v, &end) : 0;
  if (!v || end == v || *end || !(x > 0) || !isfinite(x)) {
    cli_usage(cmd, speed ? "--ref-speed expects a positive speed in flop/s" : "--compute-scale expects a positive factor");
    return -1;
  }
  if (speed) tit_set_ref_speed(x);
  else tit_set_compute_scale(x);
  return 1;
}

int cli_run_option(cli_run *r, const char *cmd, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  const char **slot = NULL;
  int fo = cli_foreign_option(cmd, a, v);   /* foreign traces' compute (trace.h) */
  if (fo) {
    if (fo > 0) ++*i;
    return fo;
  }
  if (!strcmp(a, "--platform")) slot = &r->platform_path;
  else if (!strcmp(a, "--hostfile")) slot = &r->hostfile;
  else if (!strcmp(a, "--network")) slot = &r->network;
  else if (!strcmp(a, "--machine")) slot = &r->machine_path;
  else if (!strcmp(a, "--background")) slot = &r->background;
  else if (!strncmp(a, "--cfg=", 6)) { VEC_PUSH(r->cfgs, (char *)a + 6); return 1; }
  else if (strcmp(a, "--np") && strcmp(a, "--cfg")) {
    if (a[0] == '-' && a[1]) return 0;
    VEC_PUSH(r->traces, a);
    return 1;
  }
  if (!v) { cli_usage(cmd, "%s needs a value", a); return -1; }
  ++*i;
  if (slot) *slot = v;
  else if (!strcmp(a, "--cfg")) VEC_PUSH(r->cfgs, (char *)v);
  else {
    long np = cli_int(cmd, a, v);
    if (np < 0) return -1;
    if (np == 0) { cli_usage(cmd, "--np must be at least 1"); return -1; }
    r->np = np;
  }
  return 1;
}

/* Splits "key:value" (or "key=value") at the first separator. */
static int split_cfg(char *s, char **key, char **value) {
  char *sep = strpbrk(s, ":=");
  if (!sep) return -1;
  *sep = 0;
  *key = s;
  *value = sep + 1;
  return 0;
}

machine *cli_machine_load(const char *path, const platform *p) {
  psim_err err;
  psim_err_clear(&err);
  machine *mf = machine_load(path, &err);
  if (!mf) { cli_fail(&err); return NULL; }
  const char *pat = NULL;
  long line = machine_unmatched(mf, p, &pat);
  if (line)   /* a file may describe more hosts than this platform has: not an error */
    fprintf(stderr, "psim: %s:%ld: warning: pattern '%s' matches no host of %s\n", path, line, pat, plat_name(p));
  return mf;
}

int cli_run_open_source(cli_run *r, psim_err *err) {
  if (r->src) tit_close(r->src);
  /* A foreign trace's compute time becomes flops at the platform's speed unless --ref-speed
   * said otherwise: a replay on the traced machine's platform reproduces its compute time. */
  if (!tit_ref_speed_is_set() && r->plat && plat_nhosts(r->plat) > 0) tit_set_ref_speed(plat_host_at(r->plat, 0)->speed);
  r->src = tit_open(r->traces.data, (int)r->traces.len, (int)r->np, err);
  return r->src ? 0 : -1;
}

int cli_hostfile_load(const platform *p, const char *path, int **hosts) {
  psim_err err;
  psim_err_clear(&err);
  int n = plat_hostfile_load(p, path, hosts, &err);
  if (n < 0) return cli_fail(&err), -1;
  if (n == 0) { psim_errf(&err, PSIM_EXIT_INPUT, path, 0, "the hostfile lists no host"); return cli_fail(&err), -1; }
  return n;
}

int cli_run_setup(cli_run *r, const char *cmd) {
  psim_err err;
  psim_err_clear(&err);
  if (!r->traces.len && !r->no_traces) return cli_usage(cmd, "no trace given");
  char *warnings = NULL;
  r->plat = r->platform_path ? plat_open(r->platform_path, &warnings, &err) : plat_default();
  if (warnings) { fputs(warnings, stderr); free(warnings); }
  if (!r->plat) return cli_fail(&err);
  if (r->no_traces && !r->np) r->np = 1;
  if (!r->no_traces && cli_run_open_source(r, &err) < 0) return cli_fail(&err);
  int missing = -1, present = r->src ? tit_ranks_present(r->src, &missing) : 0;
  if (missing >= 0) {
    /* a rank without actions would end at once while its peers wait for it */
    const char *name = r->traces.data[0];
    if (r->np)
      psim_errf(&err, PSIM_EXIT_INPUT, name, 0, "the trace has %d ranks (--np %ld): no line for rank %d", present,
                r->np, missing);
    else
      psim_errf(&err, PSIM_EXIT_INPUT, name, 0, "no line for rank %d: the trace has lines for %d of ranks 0..%d "
                "(every rank needs at least one action)", missing, present, tit_nranks(r->src) - 1);
    return cli_fail(&err);
  }
  if (!r->np) r->np = tit_nranks(r->src);
  replay_opts *o = &r->o;
  replay_opts_init(o, r->plat, (int)r->np);
  if (r->hostfile) {
    int n = cli_hostfile_load(r->plat, r->hostfile, &r->hosts);
    if (n < 0) return PSIM_EXIT_INPUT;
    o->hostfile = r->hosts;
    o->nhostfile = n;
  }
  /* The platform's <config> first, then the command line (which wins). */
  for (int i = 0; i < plat_nconfig(r->plat); i++) {
    const char *k, *v;
    plat_config_at(r->plat, i, &k, &v);
    psim_err e2;
    psim_err_clear(&e2);
    if (replay_opts_cfg(o, k, v, &e2) < 0) {
      long line = plat_config_line(r->plat, i);
      if (!strncmp(e2.msg, "unknown configuration key", 25))
        fprintf(stderr, "psim: %s:%ld: ignoring <config> property '%s' (not used by psim)\n", plat_name(r->plat), line, k);
      else {
        psim_err_clear(&err);
        psim_errf(&err, PSIM_EXIT_INPUT, plat_name(r->plat), line, "<config>: %.1500s", e2.msg);
        return cli_fail(&err);
      }
    }
  }
  for (size_t i = 0; i < r->cfgs.len; i++) {
    char *k, *v, *copy = xstrdup(r->cfgs.data[i]);
    if (split_cfg(copy, &k, &v) < 0) {
      free(copy);
      return cli_usage(cmd, "--cfg expects KEY:VALUE, got '%s'", r->cfgs.data[i]);
    }
    int rc = replay_opts_cfg(o, k, v, &err);
    free(copy);
    if (rc < 0) return cli_fail(&err);
  }
  if (r->background && replay_opts_cfg(o, "background/trace", r->background, &err) < 0) return cli_fail(&err);
  if (r->network && net_model_parse(r->network, &o->net.model) < 0)
    return cli_usage(cmd, "--network expects smpi, constant or star, got '%s'", r->network);
  if (r->machine_path) {
    if (!(r->machine = cli_machine_load(r->machine_path, r->plat))) return PSIM_EXIT_INPUT;
    o->net.machine = r->machine;
  }
  r->rank_host = obs_rank_hosts(r->plat, o->hostfile, o->nhostfile, (int)r->np);
  return 0;
}

run_meta cli_run_meta(const cli_run *r, const char *command) {
  return (run_meta){command, plat_name(r->plat), net_model_name(r->o.net.model),
                    r->traces.data, (int)r->traces.len, r->plat, &r->o.coll,
                    r->machine ? machine_path(r->machine) : NULL};
}

void cli_run_free(cli_run *r) {
  if (r->src) tit_close(r->src);
  plat_free(r->plat);
  free(r->hosts);
  free(r->rank_host);
  machine_free(r->machine);
  VEC_FREE(r->cfgs);
  VEC_FREE(r->traces);
  memset(r, 0, sizeof *r);
}

int cli_threads_option(int *threads, const char *cmd, int argc, char **argv, int *i) {
  if (strcmp(argv[*i], "--threads")) return 0;
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  char *end = NULL;
  long n = v ? strtol(v, &end, 10) : 0;
  /* 1024: far more than any machine's cores, and a bound on the workers' stacks */
  if (!v || end == v || *end || n < 1 || n > 1024) {
    cli_usage(cmd, "--threads expects a number of threads from 1 to 1024, got '%s'", v ? v : "");
    return -1;
  }
  *threads = (int)n;
  ++*i;
  return 1;
}
