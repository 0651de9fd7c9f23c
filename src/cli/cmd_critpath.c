/* psim critical-path: replay a trace and print the chain of actions and messages that fixed
 * its makespan. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/run_args.h"

static const char *HELP =
    "usage: psim critical-path [options] TRACE...\n"
    "\n"
    "Replays a trace (same arguments as 'psim replay') and prints its critical path: the chain\n"
    "of computations and messages that determined the simulated time, walked back from the last\n"
    "rank to finish (a call that ended when a message arrived continues at the sender when the\n"
    "transfer started, or at the receiver when the bytes waited for its receive). Its time is\n"
    "split into computation, transfer and waiting (MPI overheads, calls not ended by a message),\n"
    "in total and per rank.\n"
    "\n"
    "options:\n" CLI_RUN_OPTIONS_HELP
    "  --json FILE         write the critical path as JSON ('-' = stdout)\n"
    "  --quiet             no listing on stdout\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st && psim critical-path /tmp/st\n";

int cmd_critpath(int argc, char **argv) {
  cli_run run = {0};
  const char *json = NULL;
  int quiet = 0, rc = 2;
  replay_result res = {0};
  obs_record *rec = NULL;
  obs_critpath cp = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int k = cli_run_option(&run, "critical-path", argc, argv, &i);
    if (k < 0) goto out;
    if (k > 0) continue;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); rc = 0; goto out; }
    else if (!strcmp(a, "--json")) {
      if (i + 1 >= argc) { rc = cli_usage("critical-path", "--json needs a value"); goto out; }
      json = argv[++i];
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = 1;
    else { rc = cli_usage("critical-path", "unknown option '%s'", a); goto out; }
  }
  if (cli_check_out(json)) goto out;
  if ((rc = cli_run_setup(&run, "critical-path")) != 0) goto out;
  rc = 2;
  rec = obs_record_new((int)run.np, 1);
  replay_observer ob = obs_record_observer(rec);
  run.o.observers = &ob;
  run.o.nobservers = 1;
  run.o.progress = isatty(2);
  psim_err err;
  psim_err_clear(&err);
  int r = replay_run(run.src, &run.o, &res, &err);
  if (r < 0) { rc = cli_fail(&err); goto out; }   /* a deadlocked run has no makespan to explain */
  obs_critpath_compute(rec, &res, &cp);
  if (!quiet && !(json && !strcmp(json, "-"))) obs_critpath_write_text(stdout, &cp, rec);
  if (json) {
    FILE *f = cli_open_out(json);
    if (!f) goto out;
    fputs("{\"simulated_time\": ", f);
    obs_json_number(f, res.simulated_time);
    fputs(", \"critical_path\": ", f);
    obs_critpath_write_json(f, &cp, rec, 0);
    fputs("}\n", f);
    if (cli_close_out(f, json)) goto out;
  }
  rc = 0;
out:
  obs_critpath_free(&cp);
  obs_record_free(rec);
  replay_result_free(&res);
  cli_run_free(&run);
  return rc;
}
