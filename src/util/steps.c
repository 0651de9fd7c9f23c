/* Step functions of message size: SimGrid's piecewise factors and overheads. */
#include <math.h>
#include <stdlib.h>

#include "psim/util.h"

static int cmp_sections(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int step_fn_parse(step_fn *f, const char *str, int overhead, psim_err *err) {
  step_fn out = {0};
  out.below = 1.0;
  out.below_first = overhead;
  double rows[32][3];
  const char *p = str;
  while (*p) {
    if (out.n == 32) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "too many sections in '%s' (at most 32)", str);
    double v[3] = {0, 0, 0};
    int nv = 0;
    for (;;) {
      char *end;
      double x = strtod(p, &end);
      if (end == p)
        return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0,
                         "cannot parse '%s': expected %s separated by ';'", str,
                         overhead ? "sections size:constant:per_byte" : "sections size:factor");
      /* Sizes, factors, seconds and seconds per byte: a negative or non-finite one parses but
       * gives negative or NaN times that the simulation would take silently. */
      if (!isfinite(x) || x < 0)
        return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "'%s': expected finite non-negative numbers, got '%.*s'", str,
                         (int)(end - p), p);
      if (nv < 3) v[nv] = x;
      nv++;
      p = end;
      if (*p == ':') { p++; continue; }
      break;
    }
    if (nv < 2 || (!overhead && nv != 2))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot parse '%s': expected %s", str,
                       overhead ? "size:constant:per_byte" : "size:factor");
    rows[out.n][0] = v[0];
    rows[out.n][1] = v[1];
    rows[out.n][2] = overhead ? v[2] : 0;
    out.n++;
    if (*p == ';') p++;
    else if (*p)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot parse '%s': unexpected '%c'", str, *p);
  }
  qsort(rows, (size_t)out.n, sizeof rows[0], cmp_sections);
  for (int i = 0; i < out.n; i++) {
    out.thr[i] = rows[i][0];
    out.a[i] = rows[i][1];
    out.b[i] = rows[i][2];
  }
  *f = out;
  return 0;
}

double step_fn_eval(const step_fn *f, double size) {
  /* The section used is the one with the largest threshold strictly below the size. Below the
   * smallest threshold, factors are 1 and overheads use the first section (as SMPI does). */
  if (f->n == 0) return f->below_first ? 0.0 : f->below;
  double cur = f->below_first ? f->a[0] + f->b[0] * size : f->below;
  for (int i = 0; i < f->n; i++) {
    if (size <= f->thr[i]) return cur;
    cur = f->a[i] + f->b[i] * size;
  }
  return cur;
}
