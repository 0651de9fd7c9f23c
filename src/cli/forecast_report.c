/* Inline-SVG charts for psim forecast --report and psim calibrate --kernels (no scripts, no
 * network: the page is one self-contained file). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/forecast_report.h"

void fcr_esc(FILE *f, const char *s) {
  static const char *const ent[] = {"&lt;", "&gt;", "&amp;", "&quot;"};
  while (s && *s) {
    size_t run = strcspn(s, "<>&\"");
    fwrite(s, 1, run, f);
    s += run;
    if (*s) fputs(ent[strchr("<>&\"", *s) - "<>&\""], f), s++;
  }
}

void fcr_begin(FILE *f, const char *title) {
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", f);
  fcr_esc(f, title);
  fputs("</title><style>body{font-family:sans-serif;margin:1.5em;max-width:1000px}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}"
        "svg text{font-size:11px;font-family:sans-serif}.best{font-weight:bold;background:#fe8}"
        "</style></head><body>\n<h1>", f);
  fcr_esc(f, title);
  fputs("</h1>\n", f);
}

void fcr_end(FILE *f) { fputs("</body></html>\n", f); }

/* position of v on a log axis [lo, hi] mapped to [a, b] */
static double logpos(double v, double lo, double hi, double a, double b) {
  if (v < lo) v = lo;
  return a + (b - a) * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
}

static void log_range(const double *x, int n, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > 0) {
      if (x[i] < *lo) *lo = x[i];
      if (x[i] > *hi) *hi = x[i];
    }
  if (!(*hi > 0)) { *lo = 1e-6; *hi = 1; }
  *lo = pow(10, floor(log10(*lo)));
  *hi = pow(10, ceil(log10(*hi)));
  if (*hi <= *lo) *hi = *lo * 10;
}

/* decade ticks of a log axis, horizontal (vertical = 0) or vertical */
static void log_ticks(FILE *f, double lo, double hi, int vertical, double a, double b, double at, double len) {
  for (double d = lo; d <= hi * 1.0001; d *= 10) {
    double pos = logpos(d, lo, hi, a, b);
    if (vertical)
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
              at, pos, at + len, pos, at - 4, pos + 4, d);
    else
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
              pos, at, pos, at - len, pos, at + 14, d);
  }
}

/* One log range over two series (a measurement and its model). */
static void log_range2(const double *a, const double *b, int n, double *lo, double *hi) {
  double lo2, hi2;
  log_range(a, n, lo, hi);
  log_range(b, n, &lo2, &hi2);
  if (lo2 < *lo) *lo = lo2;
  if (hi2 > *hi) *hi = hi2;
}

/* A chart's title and its log-log axes: x over [xlo, xhi] from x0 to x1, y over [lo, hi]
 * from y0 up to y1. */
static void log_chart(FILE *f, const char *title, int w, int h, double xlo, double xhi, double lo, double hi,
                      double x0, double x1, double y0, double y1) {
  fprintf(f, "<h3>");
  fcr_esc(f, title);
  fprintf(f, "</h3>\n<svg width=\"%d\" height=\"%d\" role=\"img\">\n", w, h);
  log_ticks(f, xlo, xhi, 0, x0, x1, y0, y0 - y1);
  log_ticks(f, lo, hi, 1, y0, y1, x0, x1 - x0);
}

void fcr_scatter(FILE *f, const char *title, const double *meas, const double *fit, int n) {
  double lo, hi;
  log_range2(meas, fit, n, &lo, &hi);
  const double x0 = 70, x1 = 470, y0 = 320, y1 = 20;
  log_chart(f, title, 500, 360, lo, hi, lo, hi, x0, x1, y0, y1);
  fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#888\" stroke-dasharray=\"4\"/>\n",
          x0, y0, x1, y1);
  for (int i = 0; i < n; i++) {
    if (!(meas[i] > 0)) continue;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\"><title>measured %.4g s, fitted %.4g s</title></circle>\n",
            logpos(meas[i], lo, hi, x0, x1), logpos(fit[i] > 0 ? fit[i] : lo, lo, hi, y0, y1), meas[i], fit[i]);
  }
  fprintf(f, "<text x=\"270\" y=\"352\" text-anchor=\"middle\">measured time (s)</text>"
             "<text x=\"14\" y=\"170\" transform=\"rotate(-90 14 170)\" text-anchor=\"middle\">fitted time (s)</text>\n</svg>\n");
}

void fcr_curve(FILE *f, const char *title, const char *xlabel, const char *ylabel, const double *x,
               const double *meas, const double *model, int n) {
  double xlo, xhi, lo, hi;
  log_range(x, n, &xlo, &xhi);
  log_range2(meas, model, n, &lo, &hi);
  const double x0 = 70, x1 = 870, y0 = 420, y1 = 20;
  log_chart(f, title, 900, 460, xlo, xhi, lo, hi, x0, x1, y0, y1);
  fputs("<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"1.5\" points=\"", f);
  for (int i = 0; i < n; i++)
    if (x[i] > 0 && model[i] > 0) fprintf(f, "%.1f,%.1f ", logpos(x[i], xlo, xhi, x0, x1), logpos(model[i], lo, hi, y0, y1));
  fputs("\"/>\n", f);
  for (int i = 0; i < n; i++) {
    if (!(x[i] > 0 && meas[i] > 0)) continue;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\"><title>%.0f: measured %.4g, model %.4g (%+.1f %%)</title></circle>\n",
            logpos(x[i], xlo, xhi, x0, x1), logpos(meas[i], lo, hi, y0, y1), x[i], meas[i], model[i], 100 * (model[i] / meas[i] - 1));
  }
  fprintf(f, "<text x=\"470\" y=\"452\" text-anchor=\"middle\">");
  fcr_esc(f, xlabel);
  fprintf(f, "</text><text x=\"14\" y=\"220\" transform=\"rotate(-90 14 220)\" text-anchor=\"middle\">");
  fcr_esc(f, ylabel);
  fputs("</text>\n</svg>\n", f);
  /* the same figures as a table, for reading off and for screen readers */
  fputs("<table><tr><th>", f);
  fcr_esc(f, xlabel);
  fputs("</th><th>measured</th><th>model</th><th>error</th></tr>\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "<tr><td>%.0f</td><td>%.4g</td><td>%.4g</td><td>%+.1f %%</td></tr>\n", x[i], meas[i], model[i],
            100 * (model[i] / meas[i] - 1));
  fputs("</table>\n", f);
}

static void colour(double v, char *buf, size_t n) {
  /* v in [0,1]: blue (fast) -> yellow -> red (slow) */
  int r = (int)(v < 0.5 ? 60 + 390 * v : 255), g = (int)(v < 0.5 ? 120 + 240 * v : 240 - 400 * (v - 0.5));
  int b = (int)(v < 0.5 ? 220 - 300 * v : 70 - 100 * (v - 0.5));
  snprintf(buf, n, "rgb(%d,%d,%d)", r < 0 ? 0 : r > 255 ? 255 : r, g < 0 ? 0 : g > 255 ? 255 : g,
           b < 0 ? 0 : b > 255 ? 255 : b);
}

void fcr_heatmap(FILE *f, const fc_grid *g, int n, int best) {
  int maxp = 1, maxq = 1;
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < n; i++) {
    if (g[i].p > maxp) maxp = g[i].p;
    if (g[i].q > maxq) maxq = g[i].q;
    if (g[i].time < lo) lo = g[i].time;
    if (g[i].time > hi) hi = g[i].time;
  }
  if (maxp > 64 || maxq > 64) {
    fputs("<p>(more than 64 rows or columns: the heatmap is drawn for runs of at most 64)</p>\n", f);
    return;
  }
  double cell = 560.0 / (maxp > maxq ? maxp : maxq);
  if (cell > 40) cell = 40;
  double x0 = 60, y0 = 20 + cell * maxq;
  fprintf(f, "<h2>Time over grid shapes (the paper's Figure 4.2)</h2>\n"
             "<p>One cell per grid p x q: p (rows of the grid) across, q (columns) up. Colour: forecast time, "
             "log scale from %.4g s (blue) to %.4g s (red). The best grid is outlined.</p>\n"
             "<svg width=\"%.0f\" height=\"%.0f\" role=\"img\">\n",
          lo, hi, x0 + cell * maxp + 20, y0 + 40);
  for (int i = 0; i < n; i++) {
    double v = hi > lo ? (log(g[i].time) - log(lo)) / (log(hi) - log(lo)) : 0;
    char c[32];
    colour(v, c, sizeof c);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
               "<title>%d x %d: %.6g s%s</title></rect>\n",
            x0 + cell * (g[i].p - 1), y0 - cell * g[i].q, cell, cell, g[i].fits ? c : "#eee",
            i == best ? " stroke=\"#000\" stroke-width=\"3\"" : " stroke=\"#fff\"", g[i].p, g[i].q,
            g[i].time, g[i].fits ? "" : " (does not fit in memory)");
  }
  int step = maxp > 16 ? 4 : 1;
  for (int p = 1; p <= maxp; p += (p == 1 && step > 1 ? step - 1 : step))
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", x0 + cell * (p - 0.5), y0 + 14, p);
  for (int q = 1; q <= maxq; q += (q == 1 && step > 1 ? step - 1 : step))
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", x0 - 4, y0 - cell * (q - 0.5) + 4, q);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">p (grid rows)</text>"
             "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">q (grid columns)</text>\n</svg>\n",
          x0 + cell * maxp / 2, y0 + 32, y0 / 2, y0 / 2);
}

void fcr_best_curve(FILE *f, const int *procs, const double *t, const int *bp, const int *bq, int n) {
  if (n < 1) return;
  double lo, hi;
  log_range(t, n, &lo, &hi);
  int pmax = procs[n - 1] > 1 ? procs[n - 1] : 2, pmin = procs[0];
  const double x0 = 70, x1 = 870, y0 = 320, y1 = 20;
  fprintf(f, "<h2>Time on the best grid against the number of processes (the paper's Figure 3.1)</h2>\n"
             "<svg width=\"900\" height=\"360\" role=\"img\">\n");
  log_ticks(f, lo, hi, 1, y0, y1, x0, x1 - x0);
  fputs("<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"2\" points=\"", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%.1f,%.1f ", x0 + (x1 - x0) * (procs[i] - pmin) / (double)(pmax > pmin ? pmax - pmin : 1),
            logpos(t[i], lo, hi, y0, y1));
  fputs("\"/>\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#c33\"><title>%d processes: %.6g s on %d x %d</title></circle>\n",
            x0 + (x1 - x0) * (procs[i] - pmin) / (double)(pmax > pmin ? pmax - pmin : 1),
            logpos(t[i], lo, hi, y0, y1), procs[i], t[i], bp[i], bq[i]);
  int tick = (pmax - pmin) / 8 > 0 ? (pmax - pmin) / 8 : 1;
  for (int p = pmin; p <= pmax; p += tick)
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
            x0 + (x1 - x0) * (p - pmin) / (double)(pmax > pmin ? pmax - pmin : 1), y0 + 14, p);
  fprintf(f, "<text x=\"470\" y=\"352\" text-anchor=\"middle\">processes</text>"
             "<text x=\"14\" y=\"170\" transform=\"rotate(-90 14 170)\" text-anchor=\"middle\">time on the best grid (s)</text>\n</svg>\n");
}
