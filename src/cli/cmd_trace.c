/* psim trace: trace tools of the load-balancing workflow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run_args.h"
#include "psim/tools.h"
#include "psim/trace.h"

static const char *HELP =
    "usage: psim trace stats [--ref-speed FLOPS] [--compute-counter C] [--compute-scale F] TRACE\n"
    "       psim trace convert [--ref-speed FLOPS] [--compute-counter C] [--compute-scale F] TRACE -o DIR\n"
    "       psim trace lb-period K TRACE OUTDIR\n"
    "       psim trace aggregate --from FXxFY --to TXxTY TRACE [-o CSV]\n"
    "\n"
    "stats      ranks, actions by kind, total flops and bytes, migrate points\n"
    "convert    writes TRACE (any format psim reads: TIT, Paraver, Dimemas, GOAL) as SimGrid\n"
    "           TIT, one file per rank and DIR/list (SimGrid's -replay argument)\n"
    "--ref-speed  flop/s of the traced machine: a Paraver, Dimemas or GOAL trace's compute\n"
    "           time becomes flops at that speed (default 1e9; replay defaults to the\n"
    "           platform's host speed)\n"
    "--compute-counter C  a Paraver trace's compute from hardware counter C (its name in the\n"
    "           .pcf, e.g. PAPI_TOT_INS, or its event type): a burst is what C counted\n"
    "           between two MPI calls, in units the platform's speed is then given in\n"
    "--compute-scale F  multiplies every compute volume read from a foreign trace\n"
    "lb-period  keeps every K-th migrate of each rank (the others are dropped), so that\n"
    "           'psim lb --period 1' on OUTDIR balances every K iterations of TRACE\n"
    "aggregate  spatial aggregation of a trace of a FXxFY grid of ranks (rank = y * FX + x) to\n"
    "           TXxTY: per iteration (iterations end at migrates) each coarse cell's compute is\n"
    "           the area-weighted sum of the fine ranks it intersects (any TXxTY); writes the\n"
    "           profile as CSV 'iteration,rank,flops' (stdout by default), which\n"
    "           'psim gen stencil2d --grid TXxTY --profile CSV' turns into a coarse trace\n"
    "\n"
    "TRACE is a file, a list file or a directory written by 'psim gen' (as for replay).\n"
    "\n"
    "example:\n"
    "  psim gen stencil2d --grid 16x16 --iters 100 -o /tmp/f\n"
    "  psim trace aggregate --from 16x16 --to 4x4 /tmp/f -o /tmp/p.csv\n"
    "  psim gen stencil2d --grid 4x4 --iters 100 --profile /tmp/p.csv -o /tmp/c\n";

static int dims(const char *opt, const char *v, int *a, int *b) {
  if (!v || sscanf(v, "%dx%d", a, b) != 2 || *a < 1 || *b < 1)
    return cli_usage("trace", "%s expects AxB with positive integers (e.g. 16x16), got '%s'", opt, v ? v : "");
  return 0;
}

int cmd_trace(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(HELP, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *tool = argv[1];
  psim_err err;
  psim_err_clear(&err);
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(HELP, stdout); return 0; }
  if (tool[0] == '-') return cli_usage("trace", "unknown option '%s' (expected a tool first: stats, convert, lb-period or aggregate)", tool);
  if (!strcmp(tool, "stats") || !strcmp(tool, "convert")) {
    const char *in = NULL, *out = NULL;
    for (int i = 2; i < argc; i++) {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      int fo = cli_foreign_option("trace", a, v);
      if (fo < 0) return PSIM_EXIT_USAGE;
      if (fo) {
        i++;
      } else if (!strcmp(a, "-o") && !strcmp(tool, "convert")) {
        if (!v) return cli_usage("trace", "-o needs a directory");
        out = v;
        i++;
      } else if (a[0] == '-' && a[1]) return cli_usage("trace", "unknown option '%s' for 'psim trace %s'", a, tool);
      else if (in) return cli_usage("trace", "%s takes one trace", tool);
      else in = a;
    }
    if (!in) return cli_usage("trace", "%s needs a trace", tool);
    if (!strcmp(tool, "stats")) return trace_stats(&in, 1, stdout, &err) < 0 ? cli_fail(&err) : 0;
    if (!out) return cli_usage("trace", "convert needs -o DIR");
    /* lb-period with a period no trace reaches copies every action: the same writer */
    return trace_lb_period(&in, 1, 2147483647, out, &err) < 0 ? cli_fail(&err) : 0;
  }
  /* stats and lb-period take no option */
  if (strcmp(tool, "aggregate"))
    for (int i = 2; i < argc; i++)
      if (argv[i][0] == '-' && argv[i][1]) return cli_usage("trace", "unknown option '%s' for 'psim trace %s'", argv[i], tool);
  if (!strcmp(tool, "stats")) {
    if (argc < 3) return cli_usage("trace", "stats needs a trace");
    return trace_stats((const char *const *)argv + 2, argc - 2, stdout, &err) < 0 ? cli_fail(&err) : 0;
  }
  if (!strcmp(tool, "lb-period")) {
    if (argc != 5) return cli_usage("trace", "usage: psim trace lb-period K TRACE OUTDIR");
    long k = cli_int("trace", "K", argv[2]);
    if (k < 0) return PSIM_EXIT_INPUT;
    if (k == 0) return cli_usage("trace", "K must be at least 1");
    const char *in[1] = {argv[3]};
    return trace_lb_period(in, 1, (int)k, argv[4], &err) < 0 ? cli_fail(&err) : 0;
  }
  if (!strcmp(tool, "aggregate")) {
    int fx = 0, fy = 0, tx = 0, ty = 0;
    const char *out = NULL;
    VEC(const char *) in = {0};
    int rc = 2;
    for (int i = 2; i < argc; i++) {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp(a, "--from")) { if (dims(a, v, &fx, &fy)) goto done; i++; }
      else if (!strcmp(a, "--to")) { if (dims(a, v, &tx, &ty)) goto done; i++; }
      else if (!strcmp(a, "-o")) { if (!v) { cli_usage("trace", "-o needs a value"); goto done; } out = v; i++; }
      else if (a[0] == '-' && a[1]) { cli_usage("trace", "unknown option '%s' for 'psim trace aggregate'", a); goto done; }
      else VEC_PUSH(in, a);
    }
    if (!fx || !tx) { cli_usage("trace", "aggregate needs --from FXxFY and --to TXxTY"); goto done; }
    if (!in.len) { cli_usage("trace", "aggregate needs a trace"); goto done; }
    FILE *f = cli_open_out(out ? out : "-");
    if (!f) goto done;
    rc = trace_aggregate(in.data, (int)in.len, fx, fy, tx, ty, f, &err) < 0 ? cli_fail(&err) : 0;
    if (cli_close_out(f, out ? out : "-")) rc = 2;
  done:
    VEC_FREE(in);
    return rc;
  }
  return cli_usage("trace", "unknown tool '%s' (expected stats, convert, lb-period or aggregate)", tool);
}
