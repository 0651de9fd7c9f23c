/* psim report: the HTML report of a result document written by psim replay --json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/observe.h"

static const char *HELP =
    "usage: psim report RESULT.json [MORE.json...] -o REPORT.html\n"
    "\n"
    "Writes one self-contained HTML file (inline SVG and one small inline script, nothing fetched,\n"
    "readable offline) from a result document: summary and where time goes, a zoomable timeline\n"
    "of the ranks (blocks of ranks when they are many; click to expand) with the critical path as\n"
    "a band, load heatmap and average load over time, communication matrix, time of each rank,\n"
    "the critical path's top contributors (rank, action, file:line).\n"
    "Several documents, or one holding several runs (psim lb with several balancers or periods,\n"
    "psim sweep --json), give a comparison page: makespan, efficiency and imbalance side by\n"
    "side, the average-load curves overlaid, where the time goes and its difference.\n"
    "The timeline charts and the critical path need a document written with --timeline:\n"
    "  psim replay trace/ --json result.json --timeline && psim report result.json -o report.html\n"
    "('psim replay --report report.html' does both at once.) Also draws the documents of\n"
    "'psim lb --json F --timeline' (per-iteration loads, balancing steps, dynamic efficiency)\n"
    "and 'psim sensitivity --json F' (the table and its tornado chart).\n"
    "\n"
    "options:\n"
    "  -o FILE    the HTML file to write ('-' = stdout; default: the first RESULT with .html)\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st\n"
    "  psim replay /tmp/st --json /tmp/st.json --timeline && psim report /tmp/st.json -o /tmp/st.html\n"
    "  psim replay /tmp/st --json /tmp/b.json --timeline --network constant\n"
    "  psim report /tmp/st.json /tmp/b.json -o /tmp/compare.html      # two runs side by side\n";

/* Reads a whole file; NULL with an error printed. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
  if (!f) { fprintf(stderr, "psim: %s: cannot open\n", path); return NULL; }
  size_t cap = 1 << 16, n = 0;
  char *b = xmalloc(cap);
  size_t k;
  while ((k = fread(b + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) { cap *= 2; b = xrealloc(b, cap); }
  }
  int bad = ferror(f);
  if (f != stdin) fclose(f);
  if (bad) { fprintf(stderr, "psim: %s: read error\n", path); free(b); return NULL; }
  *len = n;
  return b;
}

int cli_write_report_file(const char *out, const char *json, size_t len, const char *title) {
  FILE *f = cli_open_out(out);
  if (!f) return PSIM_EXIT_INPUT;
  psim_err err;
  psim_err_clear(&err);
  int r = obs_write_report(f, json, len, title, &err);
  int bad = cli_close_out(f, out);
  if (r < 0) return cli_fail(&err);
  return bad;
}

int cmd_report(int argc, char **argv) {
  const char *out = NULL;
  VEC(const char *) in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); VEC_FREE(in); return 0; }
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (i + 1 >= argc) { VEC_FREE(in); return cli_usage("report", "%s needs a value", a); }
      out = argv[++i];
    } else if (a[0] == '-' && a[1]) { VEC_FREE(in); return cli_usage("report", "unknown option '%s'", a); }
    else VEC_PUSH(in, a);
  }
  if (!in.len) { VEC_FREE(in); return cli_usage("report", "no result document given"); }
  char *def = NULL;
  if (!out) {
    size_t n = strlen(in.data[0]);
    def = xmalloc(n + 6);
    memcpy(def, in.data[0], n + 1);
    if (n > 5 && !strcmp(def + n - 5, ".json")) def[n - 5] = 0;
    strcat(def, ".html");
    out = def;
  }
  int n = (int)in.len, rc = 2;
  char **texts = xcalloc(in.len, sizeof *texts);
  size_t *lens = xcalloc(in.len, sizeof *lens);
  for (int i = 0; i < n; i++)
    if (!(texts[i] = slurp(in.data[i], &lens[i]))) goto done;
  if (n == 1) rc = cli_write_report_file(out, texts[0], lens[0], in.data[0]);
  else {
    FILE *f = cli_open_out(out);
    if (!f) goto done;
    psim_err err;
    psim_err_clear(&err);
    int r = obs_write_report_many(f, (const char *const *)texts, lens, in.data, n, &err);
    int bad = cli_close_out(f, out);
    rc = r < 0 ? cli_fail(&err) : bad;
  }
done:
  for (int i = 0; i < n; i++) free(texts[i]);
  free(texts);
  free(lens);
  free(def);
  VEC_FREE(in);
  return rc;
}
