/* psim gen stencil2d: the Ondes3D-like workload of psim lb. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/tools.h"

static const char *HELP =
    "usage: psim gen stencil2d [options] -o DIR\n"
    "\n"
    "Writes an Ondes3D-like iterative trace for 'psim lb': a 2-D domain of cells split over a\n"
    "grid of VPs; per iteration each VP exchanges halos with its up-to-4 neighbours (non-\n"
    "periodic), computes the cost of its cells, then marks the end of the iteration with\n"
    "'migrate BYTES' (its cells x cell memory). Cells in the absorbing border layer cost up to\n"
    "4x more (corners; 2.5x on the sides); a circular front expanding from a source point\n"
    "raises the cost of the cells it crosses (then a smaller raise behind it), so the\n"
    "imbalance moves over time. One file per rank plus DIR/list.\n"
    "\n"
    "options (defaults in brackets):\n"
    "  --grid PxQ           VP grid, ranks = P x Q, rank = y * P + x [16x16]\n"
    "  --domain NXxNY       cells [256x256]\n"
    "  --iters K            iterations [500]\n"
    "  --cell-flops F       flops of a physical cell per iteration [2e4]\n"
    "  --border W           absorbing layer thickness in cells [10]\n"
    "  --border-cost C      cost factor at the layer's corners [4]\n"
    "  --front-speed S      cells per iteration [0.5]\n"
    "  --front-width W      width of the front band in cells [12]\n"
    "  --front-cost C       cost factor in the band [3]\n"
    "  --wake-cost C        cost factor behind the front [1.5]\n"
    "  --source X,Y         source cell [drawn from the seed]\n"
    "  --noise R            relative per-cell, per-iteration noise [0]\n"
    "  --seed N             [1]\n"
    "  --halo-bytes B       bytes per boundary cell sent to a neighbour [48]\n"
    "  --cell-bytes B       migratable memory per cell [240]\n"
    "  --profile CSV        take compute from a profile (iteration,rank,flops) written by\n"
    "                       'psim trace aggregate'; --grid must match its ranks\n"
    "  -o DIR               output directory (created)\n"
    "\n"
    "example:\n"
    "  psim gen stencil2d --grid 16x16 --iters 500 -o /tmp/o3d\n"
    "  psim lb /tmp/o3d --pes 16 --balancer greedy --period 20\n";

int cmd_gen_stencil2d(int argc, char **argv) {
  gen_stencil2d_opts o;
  gen_stencil2d_defaults(&o);
  const char *dir = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(HELP, stdout); return 0; }
    static const char *const with_value[] = {
        "-o", "--grid", "--domain", "--profile", "--source", "--iters", "--cell-flops", "--border",
        "--border-cost", "--front-speed", "--front-width", "--front-cost", "--wake-cost", "--noise",
        "--seed", "--halo-bytes", "--cell-bytes", NULL};
    if (!cli_is_one_of(a, with_value))
      return cli_usage("gen", "unknown option '%s' for 'psim gen stencil2d'", a);
    if (!v) return cli_usage("gen", "%s needs a value", a);
    i++;
    char *end;
    double x = strtod(v, &end);
    int num_ok = end != v && !*end && x >= 0 && isfinite(x);
    if (!strcmp(a, "-o")) dir = v;
    else if (!strcmp(a, "--grid")) { if (cli_dims("gen", a, v, &o.px, &o.py)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--domain")) { if (cli_dims("gen", a, v, &o.nx, &o.ny)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--profile")) o.profile = v;
    else if (!strcmp(a, "--source")) {
      if (sscanf(v, "%lf,%lf", &o.src_x, &o.src_y) != 2 || o.src_x < 0 || o.src_y < 0)
        return cli_usage("gen", "--source expects X,Y (cells, >= 0), got '%s'", v);
    } else if (!num_ok) return cli_usage("gen", "%s expects a non-negative number, got '%s'", a, v);
    else if ((!strcmp(a, "--iters") || !strcmp(a, "--border") || !strcmp(a, "--seed")) &&
             (x != (double)(long)x || x > 2e9))
      return cli_usage("gen", "%s expects a non-negative integer, got '%s'", a, v);
    else if (!strcmp(a, "--iters")) o.iters = (int)x;
    else if (!strcmp(a, "--cell-flops")) o.cell_flops = x;
    else if (!strcmp(a, "--border")) o.border = (int)x;
    else if (!strcmp(a, "--border-cost")) o.border_cost = x;
    else if (!strcmp(a, "--front-speed")) o.front_speed = x;
    else if (!strcmp(a, "--front-width")) o.front_width = x;
    else if (!strcmp(a, "--front-cost")) o.front_cost = x;
    else if (!strcmp(a, "--wake-cost")) o.wake_cost = x;
    else if (!strcmp(a, "--noise")) o.noise = x;
    else if (!strcmp(a, "--seed")) o.seed = (uint64_t)x;
    else if (!strcmp(a, "--halo-bytes")) o.halo_bytes_per_cell = x;
    else o.cell_bytes = x;   /* --cell-bytes */
  }
  if (!dir) return cli_usage("gen", "missing -o DIR");
  psim_err err;
  psim_err_clear(&err);
  if (gen_stencil2d(&o, dir, &err) < 0) return cli_fail(&err);
  fprintf(stderr, "psim gen: stencil2d %dx%d VPs written to %s\n", o.px, o.py, dir);
  return 0;
}
