/* psim replay: replay a time-independent trace on a platform. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
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
    "                      constant: latency + size/bandwidth along the route, no contention\n"
    "  --cfg KEY:VALUE     set a model property, as SimGrid's --cfg (repeatable), e.g.\n"
    "                      network/TCP-gamma:4194304  network/crosstraffic:no  smpi/os:0:1e-6:1e-9\n"
    "                      smpi/bw-factor:0:1  smpi/send-is-detached-thresh:65536  smpi/test:1e-4\n"
    "                      smpi/<collective>:<algorithm>, e.g. smpi/allreduce:rdb smpi/bcast:flattree\n"
    "                      (psim replay --list-algorithms prints them all)\n"
    "  --json FILE         write the results as JSON ('-' = stdout)\n"
    "  --actions FILE      log each finished action: END_TIME RANK ACTION DURATION ('-' = stdout)\n"
    "  --quiet             no summary on stdout\n"
    "  --progress          progress on stderr (default: only when stderr is a terminal)\n"
    "  --list-algorithms   print the collective algorithms and exit\n"
    "\n"
    "example:\n"
    "  psim replay --platform cluster.xml --hostfile hosts --np 64 trace.txt --json out.json\n"
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

/* Splits "key:value" (or "key=value") at the first separator. */
static int split_cfg(char *s, char **key, char **value) {
  char *sep = strpbrk(s, ":=");
  if (!sep) return -1;
  *sep = 0;
  *key = s;
  *value = sep + 1;
  return 0;
}

int cmd_replay(int argc, char **argv) {
  const char *platform_path = NULL, *hostfile = NULL, *json = NULL, *actions = NULL, *network = NULL;
  long np = 0;
  int quiet = 0, progress = isatty(2);
  VEC(char *) cfgs = {0};
  VEC(const char *) traces = {0};
  int rc = 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() do { if (!v) { rc = cli_usage("replay", "%s needs a value", a); goto out; } i++; } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    else if (!strcmp(a, "--list-algorithms")) { rc = list_algorithms(); goto out; }
    else if (!strcmp(a, "--platform")) { NEEDV(); platform_path = v; }
    else if (!strcmp(a, "--hostfile")) { NEEDV(); hostfile = v; }
    else if (!strcmp(a, "--np")) { NEEDV(); if ((np = cli_int("replay", a, v)) <= 0) { if (np == 0) cli_usage("replay", "--np must be at least 1"); goto out; } }
    else if (!strcmp(a, "--network")) { NEEDV(); network = v; }
    else if (!strcmp(a, "--cfg")) { NEEDV(); VEC_PUSH(cfgs, (char *)v); }
    else if (!strncmp(a, "--cfg=", 6)) VEC_PUSH(cfgs, (char *)a + 6);
    else if (!strcmp(a, "--json")) { NEEDV(); json = v; }
    else if (!strcmp(a, "--actions")) { NEEDV(); actions = v; }
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = 1;
    else if (!strcmp(a, "--progress")) progress = 1;
    else if (!strcmp(a, "--no-progress")) progress = 0;
    else if (a[0] == '-' && a[1]) { rc = cli_usage("replay", "unknown option '%s'", a); goto out; }
    else VEC_PUSH(traces, a);
#undef NEEDV
  }
  if (!traces.len) { rc = cli_usage("replay", "no trace given"); goto out; }

  psim_err err;
  psim_err_clear(&err);
  platform *plat = NULL;
  char *warnings = NULL;
  if (platform_path) plat = plat_load_xml(platform_path, &warnings, &err);
  else plat = plat_default();
  if (warnings) { fputs(warnings, stderr); free(warnings); }
  if (!plat) { rc = cli_fail(&err); goto out; }

  tit_source *src = tit_open(traces.data, (int)traces.len, (int)np, &err);
  if (!src) { rc = cli_fail(&err); plat_free(plat); goto out; }
  if (!np) np = tit_nranks(src);

  replay_opts o;
  replay_opts_init(&o, plat, (int)np);
  o.progress = progress;
  int *hosts = NULL;
  FILE *af = NULL;
  replay_result res = {0};
  if (hostfile) {
    int n = plat_hostfile_load(plat, hostfile, &hosts, &err);
    if (n < 0) { rc = cli_fail(&err); goto done; }
    if (n == 0) { psim_errf(&err, 2, hostfile, 0, "the hostfile lists no host"); rc = cli_fail(&err); goto done; }
    o.hostfile = hosts;
    o.nhostfile = n;
  }
  /* The platform's <config> first, then the command line (which wins). */
  for (int i = 0; i < plat_nconfig(plat); i++) {
    const char *k, *v;
    plat_config_at(plat, i, &k, &v);
    psim_err e2;
    psim_err_clear(&e2);
    if (replay_opts_cfg(&o, k, v, &e2) < 0) {
      if (!strncmp(e2.msg, "unknown configuration key", 25))
        fprintf(stderr, "psim: %s: ignoring <config> property '%s' (not used by psim)\n", plat_name(plat), k);
      else { snprintf(err.file, sizeof err.file, "%s", plat_name(plat)); err.code = 2; snprintf(err.msg, sizeof err.msg, "<config>: %.1500s", e2.msg); rc = cli_fail(&err); goto done; }
    }
  }
  for (size_t i = 0; i < cfgs.len; i++) {
    char *k, *v, *copy = xstrdup(cfgs.data[i]);
    if (split_cfg(copy, &k, &v) < 0) {
      free(copy);
      rc = cli_usage("replay", "--cfg expects KEY:VALUE, got '%s'", cfgs.data[i]);
      goto done;
    }
    int r = replay_opts_cfg(&o, k, v, &err);
    free(copy);
    if (r < 0) { rc = cli_fail(&err); goto done; }
  }
  if (network) {
    if (!strcmp(network, "smpi")) o.net.model = NET_SMPI;
    else if (!strcmp(network, "constant")) o.net.model = NET_CONSTANT;
    else { rc = cli_usage("replay", "--network expects smpi or constant, got '%s'", network); goto done; }
  }
  if (actions && !(af = cli_open_out(actions))) { rc = 2; goto done; }
  o.actions = af;

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = replay_run(src, &o, &res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (af) { cli_close_out(af); af = NULL; }
  if (r < 0 && err.code != PSIM_EXIT_DEADLOCK) { rc = cli_fail(&err); goto done; }

  run_meta m = {"replay", plat_name(plat), o.net.model == NET_SMPI ? "smpi" : "constant",
                traces.data, (int)traces.len, plat, &o.coll};
  if (json) {
    FILE *f = cli_open_out(json);
    if (!f) { rc = 2; goto done; }
    obs_write_json(f, &res, &m);
    cli_close_out(f);
  }
  if (!quiet && !(json && !strcmp(json, "-")) && !(actions && !strcmp(actions, "-")))
    obs_write_summary(stdout, &res, &m);
  if (!quiet)
    fprintf(stderr, "psim: %llu actions in %.3f s wall (%.0f actions/s)\n",
            (unsigned long long)res.actions, wall, wall > 0 ? (double)res.actions / wall : 0.0);
  if (r < 0) {
    fprintf(stderr, "psim: %s", res.deadlock);
    rc = PSIM_EXIT_DEADLOCK;
  } else {
    rc = 0;
  }
done:
  if (af) cli_close_out(af);
  replay_result_free(&res);
  free(hosts);
  tit_close(src);
  plat_free(plat);
out:
  VEC_FREE(cfgs);
  VEC_FREE(traces);
  return rc;
}
