/* The output stage of psim replay, run, lb and sensitivity (see cli_emit.h). The report is
 * made from a JSON document written to memory, the document psim report reads from a file:
 * the page a run writes and the page psim report makes of its --json --timeline agree. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_emit.h"

/* write(ctx, which) to path: 0, or the exit status after printing why it failed. */
static int emit_file(const char *path, cli_doc_writer write, void *ctx, int which) {
  FILE *f = cli_open_out(path);
  if (!f) return PSIM_EXIT_INPUT;
  write(f, ctx, which);
  return cli_close_out(f, path) ? PSIM_EXIT_INPUT : 0;
}

int cli_emit(const char *json, const char *report, const char *title, cli_doc_writer write, void *ctx) {
  int k;
  if (json && (k = emit_file(json, write, ctx, 0)) != 0) return k;
  if (report) {
    char *doc = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&doc, &len);
    if (!mf) { fprintf(stderr, "psim: out of memory\n"); return PSIM_EXIT_INPUT; }
    write(mf, ctx, 1);
    fclose(mf);
    int k = cli_write_report_file(report, doc, len, title);
    free(doc);
    if (k) return k;
  }
  return 0;
}

void cli_write_result_doc(FILE *f, void *ctx, int for_report) {
  const cli_result_doc *d = ctx;
  if (for_report || (d->timeline && d->rec)) obs_write_json_full(f, d->res, d->m, d->rec, d->cp);
  else obs_write_json(f, d->res, d->m);
}

int cli_emit_page(const char *json, const char *report, cli_doc_writer write, void *ctx) {
  int k;
  if (json && (k = emit_file(json, write, ctx, 0)) != 0) return k;
  return report ? emit_file(report, write, ctx, 1) : 0;
}
