/* Options of nodes leaving and joining mid-run (see dyn_args.h): parsed here once for
 * replay, run and lb, turned into dyn_events by the replay layer's parser. */
#include <stdlib.h>
#include <string.h>

#include "cli/dyn_args.h"

void cli_dyn_init(cli_dyn *d) {
  memset(d, 0, sizeof *d);
  d->rank_memory = -1;
}

int cli_dyn_option(cli_dyn *d, const char *cmd, const char *opt_events, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  int host = !strcmp(opt_events, "--host-events");
  if (strcmp(a, opt_events) && !(host && (!strcmp(a, "--host-policy") || !strcmp(a, "--rank-memory"))))
    return 0;
  if (!v) { cli_usage(cmd, "%s needs a value", a); return -1; }
  ++*i;
  if (!strcmp(a, opt_events)) d->spec = v;
  else if (!strcmp(a, "--host-policy")) {
    if (strcmp(v, "rr") && strcmp(v, "least")) {
      cli_usage(cmd, "--host-policy expects rr or least, got '%s'", v);
      return -1;
    }
    d->policy = v;
  } else {
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= 0) || x > 1e18) {
      cli_usage(cmd, "--rank-memory expects a number of bytes >= 0, got '%s'", v);
      return -1;
    }
    d->rank_memory = x;
  }
  return 1;
}

int cli_dyn_setup(cli_dyn *d, const char *cmd, const char *opt_events, int nunits,
                  const char *(*name_of)(void *, int), void *ctx, int *policy) {
  (void)cmd;
  *policy = d->policy && !strcmp(d->policy, "least") ? DYN_POLICY_LEAST : DYN_POLICY_ROUND_ROBIN;
  if (!d->spec) return 0;
  psim_err err;
  psim_err_clear(&err);
  if (dyn_events_parse(opt_events, d->spec, nunits, name_of, ctx, &d->ev, &err) < 0) return cli_fail(&err);
  return 0;
}

const char *cli_dyn_host_name(void *plat, int i) { return plat_host_at(plat, i)->name; }

void cli_dyn_free(cli_dyn *d) { dyn_events_free(&d->ev); }
