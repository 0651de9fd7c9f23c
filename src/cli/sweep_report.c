/* psim sweep --report: one offline HTML page (inline SVG, no script): the chosen metric against
 * the first parameter, one line per series (the values of the other parameters), then the
 * two other metrics, then every run in a table. SAMPI's capacity-planning figure is the
 * makespan chart of a sweep over the host count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sweep_cli.h"
#include "psim/observe.h"

enum { CW = 760, CH = 360, ML = 90, MR = 200, MT = 20, MB = 50 };
static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                     "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* An axis: linear or logarithmic from lo to hi onto [a, b] pixels. */
typedef struct axis { int log; double lo, hi, a, b; } axis;

static double at(const axis *x, double v) {
  double t = x->log ? (log(v) - log(x->lo)) / (log(x->hi) - log(x->lo)) : (v - x->lo) / (x->hi - x->lo);
  if (!(x->hi > x->lo)) t = 0.5;
  return x->a + t * (x->b - x->a);
}

static void fmt_num(char *b, size_t n, double v, int metric) {
  if (metric == METRIC_MAKESPAN) obs_fmt_time(b, n, v);
  else snprintf(b, n, "%.4g", v);
}

static void y_axis(FILE *f, const axis *y, int metric) {
  char lab[64];
  if (y->log) {
    for (double d = pow(10, floor(log10(y->lo))); d <= y->hi * 1.0001; d *= 10)
      for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
        double v = d * m;
        if (v < y->lo * 0.9999 || v > y->hi * 1.0001) continue;
        if (m > 1 && y->hi / y->lo > 1000) continue;
        double py = at(y, v);
        fmt_num(lab, sizeof lab, v, metric);
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", ML, CW - MR, py, py);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n", ML - 6, py + 4, lab);
      }
    return;
  }
  double range = y->hi - y->lo, step = pow(10, floor(log10(range / 5)));
  if (range / step > 10) step *= range / step > 25 ? 5 : 2;
  for (double v = ceil(y->lo / step) * step; v <= y->hi + step * 1e-9; v += step) {
    double py = at(y, v);
    fmt_num(lab, sizeof lab, fabs(v) < step * 1e-9 ? 0 : v, metric);
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", ML, CW - MR, py, py);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n", ML - 6, py + 4, lab);
  }
}

/* The series of run i (as in sweep_metrics): its index among the series, in order. */
static size_t series_of(const sweep_job *job, size_t i, size_t *nseries) {
  const sweep_space *s = &job->space;
  if (s->zip) { *nseries = 1; return 0; }
  *nseries = s->total / s->params.data[0].n;
  return i % *nseries;
}

static void series_label(const sweep_job *job, size_t i, char *b, size_t n) {
  const sweep_space *s = &job->space;
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  sweep_space_config(s, i, idx);
  size_t k = 0;
  b[0] = 0;
  for (size_t p = 1; p < s->params.len && !s->zip && k < n; p++)
    k += (size_t)snprintf(b + k, n - k, "%s%s=%s", p > 1 ? ", " : "", s->params.data[p].name, sweep_value(s, idx, p));
  if (!b[0]) snprintf(b, n, "all runs");
  free(idx);
}

static void chart(FILE *f, const sweep_job *job, int metric) {
  const sweep_space *s = &job->space;
  const sweep_param *xp = &s->params.data[0];
  size_t nx = xp->n, nser;
  series_of(job, 0, &nser);
  /* x: numeric (log when positive over a factor 8 or more) or categorical */
  double *xv = xcalloc(nx, sizeof *xv);
  int numeric = 1;
  for (size_t j = 0; j < nx; j++) if (sweep_number(xp->values[j], &xv[j]) < 0) numeric = 0;
  axis x = {0, 0, (double)(nx > 1 ? nx - 1 : 1), ML + 10, CW - MR - 10};
  if (numeric) {
    x.lo = x.hi = xv[0];
    for (size_t j = 0; j < nx; j++) { x.lo = fmin(x.lo, xv[j]); x.hi = fmax(x.hi, xv[j]); }
    x.log = x.lo > 0 && x.hi / x.lo >= 8;
  }
  axis y = {0, 0, 0, CH - MB, MT};
  int any = 0;
  for (size_t i = 0; i < s->total; i++) {
    double v = sweep_metric(&job->runs[i], metric);
    if (isnan(v)) continue;
    if (!any || v < y.lo) y.lo = v;
    if (!any || v > y.hi) y.hi = v;
    any = 1;
  }
  fprintf(f, "<h2>%s against %s</h2>\n", sweep_metric_label(metric), xp->name);
  if (!any) { fputs("<p>No successful run.</p>\n", f); free(xv); return; }
  y.log = y.lo > 0 && y.hi / y.lo > 100 && metric != METRIC_EFFICIENCY;
  if (!y.log) { y.lo = fmin(0, y.lo); y.hi = y.hi > y.lo ? y.hi * 1.05 : y.lo + 1; }
  fprintf(f, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n", CW, CH, CW, CH);
  y_axis(f, &y, metric);
  fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", ML, CW - MR, CH - MB, CH - MB);
  size_t every = nx > 16 ? (nx + 15) / 16 : 1;
  for (size_t j = 0; j < nx; j += every) {
    double px = at(&x, numeric ? xv[j] : (double)j);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">", px, CH - MB + 16);
    obs_html_esc(f, xp->values[j]);
    fputs("</text>\n", f);
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">", (ML + CW - MR) / 2, CH - 10);
  obs_html_esc(f, xp->name);
  fprintf(f, "%s</text>\n", x.log ? " (log scale)" : "");
  /* one polyline per series, broken where a run failed */
  size_t stride = s->zip ? 1 : nser;
  for (size_t k = 0; k < nser; k++) {
    const char *col = COLORS[k % (sizeof COLORS / sizeof COLORS[0])];
    char label[256];
    series_label(job, k, label, sizeof label);
    fprintf(f, "<g class=\"series\" stroke=\"%s\" fill=\"%s\"><title>", col, col);
    obs_html_esc(f, label);
    fputs("</title>\n<polyline fill=\"none\" stroke-width=\"2\" points=\"", f);
    for (size_t j = 0; j < nx; j++) {
      size_t i = s->zip ? j : j * stride + k;
      double v = sweep_metric(&job->runs[i], metric);
      if (isnan(v)) { fputs("\"/>\n<polyline fill=\"none\" stroke-width=\"2\" points=\"", f); continue; }
      fprintf(f, "%.1f,%.1f ", at(&x, numeric ? xv[j] : (double)j), at(&y, v));
    }
    fputs("\"/>\n", f);
    for (size_t j = 0; j < nx; j++) {
      size_t i = s->zip ? j : j * stride + k;
      double v = sweep_metric(&job->runs[i], metric);
      if (isnan(v)) continue;
      char lab[64];
      fmt_num(lab, sizeof lab, v, metric);
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"><title>", at(&x, numeric ? xv[j] : (double)j), at(&y, v));
      obs_html_esc(f, xp->values[j]);
      fprintf(f, ": %s</title></circle>\n", lab);
    }
    fputs("</g>\n", f);
    if (k < 20) {
      int ly = MT + 10 + 18 * (int)k;
      fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>", CW - MR + 14, ly - 4, col);
      fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", CW - MR + 34, ly + 1);
      obs_html_esc(f, label);
      fputs("</text>\n", f);
    }
  }
  fputs("</svg>\n", f);
  free(xv);
}

int sweep_write_report(const sweep_job *job, const char *path, int metric, const char *title) {
  FILE *f = fopen(path, "w");
  if (!f) { fprintf(stderr, "psim sweep: %s: cannot open for writing\n", path); return -1; }
  const sweep_space *s = &job->space;
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>psim sweep: ", f);
  obs_html_esc(f, title);
  fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
        "th{background:#f3f3f3}.bad{color:#b00}svg.chart{display:block;margin:1em 0}</style></head>\n<body>\n"
        "<h1>psim sweep report</h1>\n<p><code>", f);
  obs_html_esc(f, title);
  size_t done = 0, failed = 0;
  for (size_t i = 0; i < s->total; i++) {
    const sweep_run *r = &job->runs[i];
    if (r->state != RUN_DONE) continue;
    done++;
    failed += r->status != 0 || !r->result;
  }
  fprintf(f, "</code></p>\n<p>%zu of %zu runs done, %zu failed. Cost = host count &times; makespan;"
          " efficiency = cost of the series' run on the fewest hosts / cost.</p>\n", done, s->total, failed);
  int order[3] = {metric, metric == METRIC_MAKESPAN ? METRIC_EFFICIENCY : METRIC_MAKESPAN,
                  metric == METRIC_COST ? METRIC_EFFICIENCY : METRIC_COST};
  for (int m = 0; m < 3; m++) chart(f, job, order[m]);
  fputs("<h2>Runs</h2>\n<table><tr><th>#</th>", f);
  for (size_t p = 0; p < s->params.len; p++) {
    fputs("<th>", f);
    obs_html_esc(f, s->params.data[p].name);
    fputs("</th>", f);
  }
  fputs("<th>makespan</th><th>hosts</th><th>cost (host.s)</th><th>efficiency</th><th>status</th></tr>\n", f);
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  for (size_t i = 0; i < s->total; i++) {
    const sweep_run *r = &job->runs[i];
    if (r->state != RUN_DONE) continue;
    sweep_space_config(s, i, idx);
    fprintf(f, "<tr><td>%zu</td>", i + 1);
    for (size_t p = 0; p < s->params.len; p++) {
      fputs("<td>", f);
      obs_html_esc(f, sweep_value(s, idx, p));
      fputs("</td>", f);
    }
    char t[64] = "", h[64] = "", c[64] = "", e[64] = "";
    if (!isnan(r->time)) obs_fmt_time(t, sizeof t, r->time);
    if (!isnan(r->hosts)) snprintf(h, sizeof h, "%.6g", r->hosts);
    if (!isnan(r->cost)) snprintf(c, sizeof c, "%.6g", r->cost);
    if (!isnan(r->efficiency)) snprintf(e, sizeof e, "%.4f", r->efficiency);
    fprintf(f, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td>", t, h, c, e);
    if (r->status == 0 && r->result) fputs("<td>ok</td></tr>\n", f);
    else {
      fprintf(f, "<td class=\"bad\">exit %d: ", r->status);
      obs_html_esc(f, r->error ? r->error : "");
      fputs("</td></tr>\n", f);
    }
  }
  free(idx);
  fputs("</table>\n</body></html>\n", f);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) { fprintf(stderr, "psim sweep: %s: cannot write\n", path); return -1; }
  return 0;
}
