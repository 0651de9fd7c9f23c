/* Generator of the Ondes3D-like workload for load balancing (see include/psim/tools.h).
 *
 * Why these costs: in Ondes3D the absorbing layer (C-PML, 10 cells) costs 1 to 4 times a
 * physical cell depending on how many directions it damps, which gives a fixed spatial
 * imbalance; the thesis also observes a cost that moves with the simulated wave. The circular
 * front reproduces that moving imbalance, so that balancing steps have something to chase. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/tools.h"

void gen_stencil2d_defaults(gen_stencil2d_opts *o) {
  memset(o, 0, sizeof *o);
  o->px = o->py = 16;
  o->nx = o->ny = 256;
  o->iters = 500;
  o->cell_flops = 2e4;
  o->border = 10;
  o->border_cost = 4;
  o->front_speed = 0.5;
  o->front_width = 12;
  o->front_cost = 3;
  o->wake_cost = 1.5;
  o->src_x = o->src_y = -1;
  o->noise = 0;
  o->seed = 1;
  o->halo_bytes_per_cell = 48;   /* 3 velocity components x 8 bytes x 2 layers */
  o->cell_bytes = 240;           /* ~30 doubles of fields and coefficients per cell */
}

/* First cell of part i of n over len cells (parts differ by at most one cell). */
static int part_lo(int i, int n, int len) { return (int)((long)i * len / n); }

/* A uniform [0,1) number from (seed, cell, iteration), without state. */
static double hash01(uint64_t seed, uint64_t cell, uint64_t it) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL ^ (cell + 1) * 0xBF58476D1CE4E5B9ULL ^ (it + 1) * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* Reads a profile CSV (iteration,rank,flops; header optional) into prof[(it-1) * n + rank]. */
static double *read_profile(const char *path, int n, int *iters, psim_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open: %s", strerror(errno)); return NULL; }
  VEC(double) v = {0};
  char buf[512];
  long ln = 0;
  int maxit = 0;
  while (fgets(buf, sizeof buf, f)) {
    ln++;
    if (ln == 1 && strstr(buf, "iteration")) continue;
    if (buf[0] == '\n' || buf[0] == '#') continue;
    long it, r;
    double x;
    char *p = buf, *end;
    it = strtol(p, &end, 10);
    if (end == p || *end != ',') goto bad;
    p = end + 1;
    r = strtol(p, &end, 10);
    if (end == p || *end != ',') goto bad;
    p = end + 1;
    x = strtod(p, &end);
    if (end == p || (*end && *end != '\n' && *end != '\r')) goto bad;
    if (it < 1 || r < 0 || r >= n || x < 0) {
      psim_errf(err, PSIM_EXIT_INPUT, path, ln, "iteration must be >= 1, rank in 0..%d (the --grid), flops >= 0", n - 1);
      fclose(f); VEC_FREE(v); return NULL;
    }
    while (v.len < (size_t)it * (size_t)n) VEC_PUSH(v, -1.0);
    v.data[(size_t)(it - 1) * (size_t)n + (size_t)r] = x;
    if (it > maxit) maxit = (int)it;
    continue;
  bad:
    psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected 'iteration,rank,flops'");
    fclose(f); VEC_FREE(v); return NULL;
  }
  fclose(f);
  for (size_t i = 0; i < v.len; i++)
    if (v.data[i] < 0) {
      psim_errf(err, PSIM_EXIT_INPUT, path, 0, "no value for iteration %zu, rank %zu", i / (size_t)n + 1, i % (size_t)n);
      VEC_FREE(v); return NULL;
    }
  if (!maxit) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "the profile is empty"); return NULL; }
  *iters = maxit;
  return v.data;
}

int gen_stencil2d(const gen_stencil2d_opts *o, const char *dir, psim_err *err) {
  if (o->px < 1 || o->py < 1 || o->iters < 0 || o->nx < o->px || o->ny < o->py)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "stencil2d: the grid must be at least 1x1, with at least one cell per VP");
  int n = o->px * o->py, iters = o->iters;
  double *prof = NULL;
  if (o->profile && !(prof = read_profile(o->profile, n, &iters, err))) return -1;
  if (tools_mkdir_p(dir, err) < 0) { free(prof); return -1; }
  /* per-cell constants: border factor and distance to the source */
  size_t ncell = (size_t)o->nx * (size_t)o->ny;
  double *bf = NULL, *dist = NULL;
  if (!prof) {
    bf = xmalloc(ncell * sizeof *bf);
    dist = xmalloc(ncell * sizeof *dist);
    psim_rng rng;
    psim_rng_seed(&rng, o->seed);
    double sx = o->src_x >= 0 ? o->src_x : psim_rng_uniform(&rng) * o->nx;
    double sy = o->src_y >= 0 ? o->src_y : psim_rng_uniform(&rng) * o->ny;
    for (int y = 0; y < o->ny; y++)
      for (int x = 0; x < o->nx; x++) {
        int sides = (x < o->border) + (x >= o->nx - o->border) + (y < o->border) + (y >= o->ny - o->border);
        if (sides > 2) sides = 2;
        size_t c = (size_t)y * (size_t)o->nx + (size_t)x;
        bf[c] = 1 + (o->border_cost - 1) * sides / 2.0;
        dist[c] = hypot(x + 0.5 - sx, y + 0.5 - sy);
      }
  }
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s/list", dir);
  FILE *list = fopen(path, "w");
  if (!list) { free(prof); free(bf); free(dist); return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno)); }
  int rc = 0;
  for (int r = 0; r < n && !rc; r++) {
    int X = r % o->px, Y = r / o->px;
    int x0 = part_lo(X, o->px, o->nx), x1 = part_lo(X + 1, o->px, o->nx);
    int y0 = part_lo(Y, o->py, o->ny), y1 = part_lo(Y + 1, o->py, o->ny);
    int w = x1 - x0, h = y1 - y0;
    /* neighbours (north, south, west, east) and their halo sizes */
    int nb[4], nnb = 0;
    double hb[4];
    if (Y > 0) { nb[nnb] = r - o->px; hb[nnb++] = w * o->halo_bytes_per_cell; }
    if (Y < o->py - 1) { nb[nnb] = r + o->px; hb[nnb++] = w * o->halo_bytes_per_cell; }
    if (X > 0) { nb[nnb] = r - 1; hb[nnb++] = h * o->halo_bytes_per_cell; }
    if (X < o->px - 1) { nb[nnb] = r + 1; hb[nnb++] = h * o->halo_bytes_per_cell; }
    snprintf(path, sizeof path, "%s/rank-%d.txt", dir, r);
    FILE *f = fopen(path, "w");
    if (!f) { rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno)); break; }
    fprintf(list, "rank-%d.txt\n", r);
    fprintf(f, "%d init\n", r);
    double mem = (double)w * h * o->cell_bytes;
    for (int it = 0; it < iters; it++) {
      for (int k = 0; k < nnb; k++) fprintf(f, "%d irecv %d 0 %.0f\n", r, nb[k], hb[k]);
      for (int k = 0; k < nnb; k++) fprintf(f, "%d isend %d 0 %.0f\n", r, nb[k], hb[k]);
      if (nnb) fprintf(f, "%d waitall\n", r);
      double flops;
      if (prof) flops = prof[(size_t)it * (size_t)n + (size_t)r];
      else {
        double rad = o->front_speed * it, sum = 0;
        for (int y = y0; y < y1; y++)
          for (int x = x0; x < x1; x++) {
            size_t c = (size_t)y * (size_t)o->nx + (size_t)x;
            double fct = bf[c];
            if (fabs(dist[c] - rad) <= 0.5 * o->front_width) fct *= o->front_cost;
            else if (dist[c] < rad) fct *= o->wake_cost;
            if (o->noise > 0) fct *= 1 + o->noise * (2 * hash01(o->seed, c, (uint64_t)it) - 1);
            sum += fct;
          }
        flops = sum * o->cell_flops;
      }
      int len = snprintf(line, sizeof line, "%d compute %.17g\n%d migrate %.0f\n", r, flops, r, mem);
      fwrite(line, 1, (size_t)len, f);
    }
    fprintf(f, "%d finalize\n", r);
    if (fclose(f) != 0) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "error while writing (disk full?)");
  }
  if (fclose(list) != 0 && !rc) rc = psim_errf(err, PSIM_EXIT_INPUT, dir, 0, "cannot write the list file");
  free(prof);
  free(bf);
  free(dist);
  return rc ? -1 : 0;
}
