/* The output stage every simulating command ends with (cli_emit.c): the result document to
 * --json and, made again with the sections the report draws, the HTML page to --report. One
 * place, so that the commands agree on what goes where and on what a failed write returns. */
#ifndef PSIM_CLI_EMIT_H
#define PSIM_CLI_EMIT_H

#include <stdio.h>

#include "psim/observe.h"

/* Writes a command's result document to f. for_report: the document the HTML report is made
 * of (with the timeline, the communication matrix, the critical path when the command has
 * them), not necessarily the one --json asked for. */
typedef void (*cli_doc_writer)(FILE *f, void *ctx, int for_report);

/* Writes write(ctx, 0)'s document to json ("-" = stdout) when json is not NULL, then the
 * report of write(ctx, 1)'s to report (title: what the page is about) when report is not
 * NULL. 0, or the exit status after printing why (nothing more is written after a failure). */
int cli_emit(const char *json, const char *report, const char *title, cli_doc_writer write, void *ctx);

/* The same stage for a command that draws its own page rather than psim report's (psim
 * forecast's charts): write(ctx, 0)'s document to json, then write(ctx, 1)'s HTML page as it
 * is to report. Same rules: 0, or the exit status after the first failed output. */
int cli_emit_page(const char *json, const char *report, cli_doc_writer write, void *ctx);

/* The document of one replay or psim run (a cli_doc_writer's ctx): obs_write_json's, or
 * obs_write_json_full's (rec and its critical path) for the report, and for --json under
 * --timeline when the run was recorded. */
typedef struct cli_result_doc {
  const replay_result *res;
  const run_meta *m;
  const obs_record *rec;      /* NULL: the run was not recorded */
  const obs_critpath *cp;     /* NULL: none computed (a deadlock) */
  int timeline;               /* --timeline: --json's document has the report's sections */
} cli_result_doc;
void cli_write_result_doc(FILE *f, void *ctx, int for_report);

#endif
