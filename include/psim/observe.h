/* psim observation: what a run produced, written for people and for programs.
 * Writers only read the result; the caller owns files and results. */
#ifndef PSIM_OBSERVE_H
#define PSIM_OBSERVE_H

#include <stdio.h>

#include "psim/replay.h"

/* Describes the run for the outputs (all borrowed). */
typedef struct run_meta {
  const char *command;        /* "replay", "lb", "run" */
  const char *platform;       /* its name */
  const char *network;        /* "smpi" or "constant" */
  const char *const *traces;
  int ntraces;
  const platform *plat;
  const coll_selector *coll;
} run_meta;

/* Writes a number so that it reads back exactly (shortest round-trip form). */
void obs_json_number(FILE *f, double x);
void obs_json_string(FILE *f, const char *s);

/* The JSON document of a replay: simulated_time, ranks[], totals. Deterministic. */
void obs_write_json(FILE *f, const replay_result *r, const run_meta *m);
/* The human summary (a table of ranks; condensed when there are many). */
void obs_write_summary(FILE *f, const replay_result *r, const run_meta *m);

#endif
