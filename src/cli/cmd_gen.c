/* psim gen: synthetic workloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/tools.h"

static const char *HELP =
    "usage: psim gen stencil [options] -o DIR\n"
    "       psim gen stencil2d [options] -o DIR   (see psim gen stencil2d --help)\n"
    "       psim gen mix --ranks N --rounds K [--seed S] [--collectives LIST] [--p2p-only] -o DIR\n"
    "\n"
    "Writes a time-independent trace, one file per rank plus DIR/list; every command that\n"
    "takes traces accepts DIR.\n"
    "\n"
    "stencil: a 2-D periodic halo exchange, the replay benchmark's workload. Per iteration each\n"
    "rank posts 4 irecv and 4 isend to its neighbours, waits for all, computes, and joins an\n"
    "allreduce.\n"
    "  --ranks N          number of ranks (a near-square grid is chosen); or\n"
    "  --grid PxQ         the process grid (default 8x8)\n"
    "  --iters K          iterations (default 100)\n"
    "  --halo BYTES       halo message size (default 16384)\n"
    "  --flops F          compute per iteration (default 1e6)\n"
    "  --allreduce BYTES  allreduce size per iteration, 0 = none (default 8)\n"
    "  --gzip | --zstd    compress the files\n"
    "  --shared           one shared file (all ranks' lines) instead of one file per rank\n"
    "  -o DIR             output directory (created)\n"
    "\n"
    "mix: a random, deadlock-free mix of every action (send modes, sizes around the protocol\n"
    "thresholds, every collective with random roots, computations), for differential tests.\n"
    "  --collectives LIST  comma list of collectives to use (default: all)\n"
    "  --p2p-only | --no-p2p\n"
    "\n"
    "example:\n"
    "  psim gen stencil --ranks 64 --iters 200 -o /tmp/st64 && psim replay /tmp/st64\n";

/* An option the chosen workload does not take (it may belong to another one). */
static int unknown(const char *workload, const char *a) {
  return cli_usage("gen", "unknown option '%s' for 'psim gen %s'", a, workload);
}

static int gen_mix_main(int argc, char **argv) {
  gen_mix_opts o = {0};
  o.ranks = 4;
  o.rounds = 20;
  o.seed = 1;
  const char *dir = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(HELP, stdout); return 0; }
    if (!strcmp(a, "--p2p-only")) { o.p2p_only = 1; continue; }
    if (!strcmp(a, "--no-p2p")) { o.no_p2p = 1; continue; }
    static const char *const with_value[] = {"-o", "--collectives", "--ranks", "--rounds", "--seed", NULL};
    if (!cli_is_one_of(a, with_value)) return unknown("mix", a);
    if (!v) return cli_usage("gen", "%s needs a value", a);
    i++;
    long x;
    if (!strcmp(a, "-o")) dir = v;
    else if (!strcmp(a, "--collectives")) o.collectives = v;
    else if (!strcmp(a, "--ranks")) {
      if ((x = cli_int("gen", a, v)) < 0) return PSIM_EXIT_USAGE;
      if (x < 1) return cli_usage("gen", "--ranks must be at least 1");
      o.ranks = (int)x;
    }
    else if (!strcmp(a, "--rounds")) { if ((x = cli_int("gen", a, v)) < 0) return PSIM_EXIT_USAGE; o.rounds = (int)x; }
    else { if ((x = cli_int("gen", a, v)) < 0) return PSIM_EXIT_USAGE; o.seed = (uint64_t)x; }   /* --seed */
  }
  if (!dir) return cli_usage("gen", "missing -o DIR");
  psim_err err;
  psim_err_clear(&err);
  if (gen_mix(&o, dir, &err) < 0) return cli_fail(&err);
  return 0;
}

int cmd_gen(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(HELP, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "mix")) return gen_mix_main(argc, argv);
  if (!strcmp(argv[1], "stencil2d")) return cmd_gen_stencil2d(argc, argv);
  if (argv[1][0] == '-') return cli_usage("gen", "unknown option '%s' (expected a workload first: stencil, stencil2d or mix)", argv[1]);
  if (strcmp(argv[1], "stencil"))
    return cli_usage("gen", "unknown workload '%s' (expected: stencil, stencil2d or mix)", argv[1]);
  gen_stencil_opts o;
  gen_stencil_defaults(&o);
  const char *dir = NULL;
  int grid_set = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(HELP, stdout); return 0; }
    if (!strcmp(a, "--gzip")) { o.compress = 1; continue; }
    if (!strcmp(a, "--zstd")) { o.compress = 2; continue; }
    if (!strcmp(a, "--shared")) { o.shared = 1; continue; }
    static const char *const with_value[] = {"-o", "--ranks", "--grid", "--iters", "--halo", "--flops",
                                             "--allreduce", NULL};
    if (!cli_is_one_of(a, with_value)) return unknown("stencil", a);
    if (!v) return cli_usage("gen", "%s needs a value", a);
    i++;
    if (!strcmp(a, "-o")) dir = v;
    else if (!strcmp(a, "--ranks")) {
      if (grid_set) return cli_usage("gen", "--ranks and --grid both set the process grid: give one");
      grid_set = 1;
      long n = cli_int("gen", a, v);
      if (n < 0) return PSIM_EXIT_INPUT;
      if (n < 1) return cli_usage("gen", "--ranks must be at least 1");
      int px = 1;
      for (int d = 1; (long)d * d <= n; d++) if (n % d == 0) px = d;
      o.px = (int)(n / px);
      o.py = px;
    } else if (!strcmp(a, "--grid")) {
      if (grid_set) return cli_usage("gen", "--ranks and --grid both set the process grid: give one");
      grid_set = 1;
      if (cli_dims("gen", a, v, &o.px, &o.py)) return PSIM_EXIT_USAGE;
    } else if (!strcmp(a, "--iters")) {
      long n = cli_int("gen", a, v);
      if (n < 0) return PSIM_EXIT_INPUT;
      o.iters = (int)n;
    } else if (!strcmp(a, "--halo") || !strcmp(a, "--flops") || !strcmp(a, "--allreduce")) {
      double x;
      if (cli_num("gen", a, v, &x)) return PSIM_EXIT_USAGE;
      if (!strcmp(a, "--halo")) o.halo_bytes = x;
      else if (!strcmp(a, "--flops")) o.flops = x;
      else o.allreduce_bytes = x;
    }
  }
  if (!dir) return cli_usage("gen", "missing -o DIR");
  psim_err err;
  psim_err_clear(&err);
  if (gen_stencil(&o, dir, &err) < 0) return cli_fail(&err);
  fprintf(stderr, "psim gen: %d ranks x %d iterations written to %s\n", o.px * o.py, o.iters, dir);
  return 0;
}
