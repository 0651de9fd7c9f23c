/* The observation options of psim run (--trace, --trace-prv, --trace-otf2, --report, --timeline,
 * --progress), wired as
 * psim replay wires them: trace writers, the recording behind the report and the critical
 * path, the progress line, all as replay_observers (run_observe.c). */
#ifndef PSIM_CLI_RUN_OBSERVE_H
#define PSIM_CLI_RUN_OBSERVE_H

#include "psim/observe.h"

/* A trace to write: --trace FILE (the format from the name), --trace-prv FILE, --trace-otf2 DIR. */
typedef struct cli_trace_out {
  const char *path;
  obs_trace_format format;
} cli_trace_out;
typedef VEC(cli_trace_out) cli_trace_outs;
/* argv[*i] is --trace, --trace-prv or --trace-otf2: 1 (pushed, *i past its value), 0 not one
 * of them, -1 its value is missing (printed; exit status 2). psim replay's and psim run's. */
int cli_trace_option(cli_trace_outs *v, const char *cmd, int argc, char **argv, int *i);

typedef struct cli_observe {
  cli_trace_outs traces;
  const char *report;
  int timeline, progress;
  obs_record *rec;
  obs_progress *prog;
  obs_critpath cp;
  int cp_done;
  int *rank_host;             /* a copy, for the trace writers */
  VEC(obs_trace *) writers;
  VEC(replay_observer) obs;   /* what the run gets */
  /* the command's argv, as cli_observe_option saw it: the program's command line for the
   * document is found in it (cli_observe_finish) */
  int argc;
  char **argv;
} cli_observe;

/* Call first, with whether progress is on by default (stderr is a terminal). */
void cli_observe_init(cli_observe *c, int progress);
/* argv[*i] is one of ours: 1 (consumed, *i advanced past its value), 0 not ours, -1 error
 * (printed; exit status 2). */
int cli_observe_option(cli_observe *c, const char *cmd, int argc, char **argv, int *i);
/* Before the run: checks outputs can be written, opens trace files. 0, or an exit status. */
int cli_observe_setup(cli_observe *c, const platform *plat, const int *rank_host, int np);
/* After the run (ok: it finished without deadlock): closes the traces, computes the critical
 * path, writes the JSON document (with the report's sections when --timeline) to json (or
 * nothing when NULL) and the report. When title is one of the argv strings
 * cli_observe_option was given (psim run's program), the document's "argv" is it and the
 * arguments after it: the program's command line. 0, or an exit status. */
int cli_observe_finish(cli_observe *c, const replay_result *res, const run_meta *m, const char *json, int ok,
                       const char *title);
void cli_observe_free(cli_observe *c);

#endif
