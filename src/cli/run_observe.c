/* psim run's observation options (see run_observe.h): the same outputs as psim replay. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_emit.h"
#include "cli/run_observe.h"

void cli_observe_init(cli_observe *c, int progress) {
  memset(c, 0, sizeof *c);
  c->progress = progress;
}

int cli_trace_option(cli_trace_outs *v, const char *cmd, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  obs_trace_format f = !strcmp(a, "--trace") ? OBS_TRACE_BY_NAME : !strcmp(a, "--trace-prv") ? OBS_TRACE_PRV
                       : !strcmp(a, "--trace-otf2") ? OBS_TRACE_OTF2 : (obs_trace_format)-1;
  if ((int)f < 0) return 0;
  if (*i + 1 >= argc) { cli_usage(cmd, "%s needs a value", a); return -1; }
  VEC_PUSH(*v, ((cli_trace_out){argv[++*i], f}));
  return 1;
}

int cli_observe_option(cli_observe *c, const char *cmd, int argc, char **argv, int *i) {
  c->argc = argc;
  c->argv = argv;
  int k = cli_trace_option(&c->traces, cmd, argc, argv, i);
  if (k) return k;
  const char *a = argv[*i];
  if (!strcmp(a, "--report") && *i + 1 >= argc) { cli_usage(cmd, "%s needs a value", a); return -1; }
  if (!strcmp(a, "--report")) c->report = argv[++*i];
  else if (!strcmp(a, "--timeline")) c->timeline = 1;
  else if (!strcmp(a, "--progress")) c->progress = 1;
  else if (!strcmp(a, "--no-progress")) c->progress = 0;
  else return 0;
  return 1;
}

int cli_observe_setup(cli_observe *c, const platform *plat, const int *rank_host, int np) {
  if (cli_check_out(c->report)) return PSIM_EXIT_USAGE;
  for (size_t i = 0; i < c->traces.len; i++) if (cli_check_out(c->traces.data[i].path)) return PSIM_EXIT_USAGE;
  /* the trace writers keep a pointer to it until they are closed */
  c->rank_host = xmalloc((size_t)(np > 0 ? np : 1) * sizeof *c->rank_host);
  if (np > 0) memcpy(c->rank_host, rank_host, (size_t)np * sizeof *rank_host);
  rank_host = c->rank_host;
  if (c->progress) {
    c->prog = obs_progress_new(stderr);
    VEC_PUSH(c->obs, obs_progress_observer(c->prog));
  }
  for (size_t i = 0; i < c->traces.len; i++) {
    psim_err err;
    psim_err_clear(&err);
    obs_trace *t = obs_trace_open_as(c->traces.data[i].path, c->traces.data[i].format, plat, rank_host, np, &err);
    if (!t) return cli_fail(&err);
    VEC_PUSH(c->writers, t);
    VEC_PUSH(c->obs, obs_trace_observer(t));
  }
  if (c->timeline || c->report) {
    c->rec = obs_record_new(np, 0);
    VEC_PUSH(c->obs, obs_record_observer(c->rec));
  }
  return 0;
}

/* psim run's document: replay's (cli_write_result_doc) and the program's command line, which
 * the report names (the document's "traces" holds the program alone). */
typedef struct run_doc {
  cli_result_doc d;
  char *const *argv;
  int argc;
} run_doc;

static void write_run_doc(FILE *f, void *ctx, int for_report) {
  const run_doc *x = ctx;
  const cli_result_doc *d = &x->d;
  obs_write_json_body(f, d->res, d->m);
  if (x->argc > 0) {
    fputs(",\n  \"argv\": [", f);
    for (int i = 0; i < x->argc; i++) {
      if (i) fputs(", ", f);
      obs_json_string(f, x->argv[i]);
    }
    fputc(']', f);
  }
  if (for_report || (d->timeline && d->rec)) obs_write_json_sections(f, d->res, d->rec, d->cp);
  fputs("\n}\n", f);
}

int cli_observe_finish(cli_observe *c, const replay_result *res, const run_meta *m, const char *json, int ok,
                       const char *title) {
  obs_progress_free(c->prog);   /* clears its line before anything else is printed */
  c->prog = NULL;
  for (size_t i = 0; i < c->writers.len; i++) {
    psim_err err;
    psim_err_clear(&err);
    obs_trace *t = c->writers.data[i];
    c->writers.data[i] = NULL;
    if (obs_trace_close(t, &err) < 0) return cli_fail(&err);
  }
  if (c->rec && ok) { obs_critpath_compute(c->rec, res, &c->cp); c->cp_done = 1; }
  const obs_critpath *cpp = c->cp_done ? &c->cp : NULL;
  run_doc doc = {{res, m, c->rec, cpp, c->timeline}, NULL, 0};
  for (int i = 0; title && i < c->argc; i++)
    if (c->argv[i] == title) { doc.argv = c->argv + i; doc.argc = c->argc - i; break; }
  return cli_emit(json, c->report, title, write_run_doc, &doc);
}

void cli_observe_free(cli_observe *c) {
  for (size_t i = 0; i < c->writers.len; i++) {
    psim_err err;
    if (c->writers.data[i]) obs_trace_close(c->writers.data[i], &err);
  }
  obs_progress_free(c->prog);
  if (c->cp_done) obs_critpath_free(&c->cp);
  obs_record_free(c->rec);
  free(c->rank_host);
  VEC_FREE(c->traces);
  VEC_FREE(c->writers);
  VEC_FREE(c->obs);
  memset(c, 0, sizeof *c);
}
