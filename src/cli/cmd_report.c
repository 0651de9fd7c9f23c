/* psim report: the HTML report of a result document written by psim replay --json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/observe.h"

static const char *HELP =
    "usage: psim report RESULT.json -o REPORT.html\n"
    "\n"
    "Writes one self-contained HTML file (inline SVG charts, no script, readable offline) from a\n"
    "result document: summary and where time goes, Gantt chart of the ranks, load heatmap and\n"
    "average load over time, communication matrix, time of each rank, critical path.\n"
    "The timeline charts and the critical path need a document written with --timeline:\n"
    "  psim replay trace/ --json result.json --timeline && psim report result.json -o report.html\n"
    "('psim replay --report report.html' does both at once.) Also draws the documents of\n"
    "'psim lb --json F --timeline' (per-iteration loads, balancing steps, dynamic efficiency)\n"
    "and 'psim sensitivity --json F' (the table and its tornado chart).\n"
    "\n"
    "options:\n"
    "  -o FILE    the HTML file to write ('-' = stdout; default: RESULT with .html)\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st\n"
    "  psim replay /tmp/st --json /tmp/st.json --timeline && psim report /tmp/st.json -o /tmp/st.html\n";

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
  if (!f) return 2;
  psim_err err;
  psim_err_clear(&err);
  int r = obs_write_report(f, json, len, title, &err);
  int bad = cli_close_out(f, out);
  if (r < 0) return cli_fail(&err);
  return bad;
}

int cmd_report(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); return 0; }
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (i + 1 >= argc) return cli_usage("report", "%s needs a value", a);
      out = argv[++i];
    } else if (a[0] == '-' && a[1]) return cli_usage("report", "unknown option '%s'", a);
    else if (in) return cli_usage("report", "one result document at a time (got '%s' and '%s')", in, a);
    else in = a;
  }
  if (!in) return cli_usage("report", "no result document given");
  char *def = NULL;
  if (!out) {
    size_t n = strlen(in);
    def = xmalloc(n + 6);
    memcpy(def, in, n + 1);
    if (n > 5 && !strcmp(def + n - 5, ".json")) def[n - 5] = 0;
    strcat(def, ".html");
    out = def;
  }
  size_t len = 0;
  char *text = slurp(in, &len);
  int rc = text ? cli_write_report_file(out, text, len, in) : 2;
  free(text);
  free(def);
  return rc;
}
