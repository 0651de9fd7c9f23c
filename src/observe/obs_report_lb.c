/* The report's sections for a psim lb run (its document's "iterations", "steps" and lb
 * fields): what over-decomposition and balancing did, iteration by iteration.
 *   - the balancing summary and steps;
 *   - the maximum, average and minimum PE load of each iteration over time with the
 *     balancing steps marked (Fig. 5.2 bottom, 5.3: the aggregated view, indexed by time);
 *   - the dynamic efficiency of each iteration (DPS, Fig. 12);
 *   - heatmaps of the load of each PE (and of groups of VPs) per iteration, as the SAMPI
 *     thesis draws them (Fig. 5.2, top): red above the iteration's average, white at it, blue
 *     below, so the imbalance stays visible while the loads themselves change.
 * Iterations are columns; past MAX_COLS they are averaged in consecutive groups, so a long run
 * stays a drawing of bounded size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/util.h"

enum { W = OBS_W, LEFT = OBS_LEFT, RIGHT = OBS_RIGHT, MAX_COLS = 200, MAX_ROWS = 64 };

/* Thesis colours: blue (light) - white (average) - red (heavy). */
static void ratio_colour(double r, int *R, int *G, int *B) {
  double t = r - 1;
  if (!isfinite(t)) t = 0;
  t = t / 0.5;   /* full colour at 0.5x and 1.5x the average */
  if (t > 1) t = 1;
  if (t < -1) t = -1;
  if (t >= 0) { *R = (int)(255 - t * (255 - 178)); *G = (int)(255 - t * (255 - 24)); *B = (int)(255 - t * (255 - 43)); }
  else { t = -t; *R = (int)(255 - t * (255 - 33)); *G = (int)(255 - t * (255 - 102)); *B = (int)(255 - t * (255 - 172)); }
}

static void ratio_legend(FILE *f, double x, double y) {
  const double r[5] = {0.5, 0.75, 1, 1.25, 1.5};
  const char *lab[5] = {"&#8804; 0.5&#215; average", "0.75&#215;", "average", "1.25&#215;", "&#8805; 1.5&#215;"};
  for (int i = 0; i < 5; i++) {
    int R, G, B;
    ratio_colour(r[i], &R, &G, &B);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"rgb(%d,%d,%d)\" stroke=\"#999\" stroke-width=\"0.5\"/>"
               "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", x + i * 130, y, R, G, B, x + i * 130 + 16, y + 10, lab[i]);
  }
}

/* The load matrix of rows (PEs, or VPs averaged in groups) x iterations; mat[it][row]. */
typedef struct lb_matrix {
  int n, rows, groups;       /* iterations, rows of the document, rows drawn */
  double *v;                 /* groups x n, group means */
} lb_matrix;

static void matrix_read(const jv *m, int n, lb_matrix *out) {
  int rows = (int)jv_len(jv_at(m, 0));
  int G = rows < MAX_ROWS ? rows : MAX_ROWS;
  out->n = n;
  out->rows = rows;
  out->groups = G;
  out->v = xcalloc((size_t)(G ? G : 1) * (size_t)(n ? n : 1), sizeof *out->v);
  for (int it = 0; it < n; it++) {
    const jv *row = jv_at(m, (size_t)it);
    for (int g = 0; g < G; g++) {
      int lo = (int)((long long)g * rows / G), hi = (int)((long long)(g + 1) * rows / G);
      double s = 0;
      for (int k = lo; k < hi; k++) s += jv_num(jv_at(row, (size_t)k), 0);
      out->v[(size_t)g * (size_t)n + (size_t)it] = hi > lo ? s / (hi - lo) : 0;
    }
  }
}

/* Vertical dashed lines after each balancing step's iteration, on an iteration axis. */
static void iter_step_marks(FILE *f, const jv *step_after, int n, double pw, double y0, double y1) {
  for (size_t i = 0; i < jv_len(step_after) && n > 0; i++) {
    double it = jv_num(jv_at(step_after, i), 0), x = LEFT + pw * it / n;
    fprintf(f, "<line class=\"lb-step-iter\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
               "stroke-dasharray=\"4 3\"><title>balancing step after iteration %.0f</title></line>\n", x, y0, x, y1, it);
  }
}

static void heatmap(FILE *f, const char *id, const lb_matrix *m, const char *what, const jv *step_after) {
  int n = m->n, G = m->groups;
  int per = (n + MAX_COLS - 1) / MAX_COLS, cols = per ? (n + per - 1) / per : 0;
  double pw = W - LEFT - RIGHT, rh = G <= 16 ? 16 : G <= 32 ? 9 : 6, cw = cols ? pw / cols : 0;
  fprintf(f, "<svg id=\"%s\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", id, W,
          rh * G + 60);
  /* each iteration's average over the rows: the white of the scale */
  double *avg = xcalloc((size_t)(n ? n : 1), sizeof *avg);
  for (int it = 0; it < n; it++) {
    for (int g = 0; g < G; g++) avg[it] += m->v[(size_t)g * (size_t)n + (size_t)it];
    avg[it] /= G ? G : 1;
  }
  for (int g = 0; g < G; g++) {
    int lo = (int)((long long)g * m->rows / G), hi = (int)((long long)(g + 1) * m->rows / G) - 1;
    double y = rh * g;
    if (rh >= 9 || g % 4 == 0) {
      if (hi > lo) fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%ss %d-%d</text>\n", LEFT - 6, y + rh * 0.8, what, lo, hi);
      else fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %d</text>\n", LEFT - 6, y + rh * 0.8, what, lo);
    }
    for (int c = 0; c < cols; c++) {
      double s = 0, a = 0;
      int k = 0;
      for (int it = c * per; it < n && it < (c + 1) * per; it++, k++) {
        s += m->v[(size_t)g * (size_t)n + (size_t)it];
        a += avg[it];
      }
      int R, Gc, B;
      ratio_colour(a > 0 ? s / a : 1, &R, &Gc, &B);
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\">", LEFT + cw * c, y,
              cw + 0.2, rh - 1, R, Gc, B);
      if (per == 1) fprintf(f, "<title>%s %d%s, iteration %d: %.4g s (%.2f&#215; average)</title>", what, lo,
                            hi > lo ? "..." : "", c + 1, k ? s / k : 0, a > 0 ? s / a : 1);
      fputs("</rect>\n", f);
    }
  }
  iter_step_marks(f, step_after, n, pw, 0, rh * G);
  obs_svg_iter_axis(f, LEFT, pw, rh * G + 4, n);
  ratio_legend(f, LEFT, rh * G + 30);
  fputs("</svg>\n", f);
  free(avg);
}

/* max / avg / min PE load of each iteration, at its end time, with the steps marked. */
static void load_chart(FILE *f, const lb_matrix *pe, const double *end, const jv *steps, double T) {
  int n = pe->n;
  double H = 220, pw = W - LEFT - RIGHT, top = 0;
  double *mx = xmalloc((size_t)(n ? n : 1) * sizeof *mx), *av = xmalloc((size_t)(n ? n : 1) * sizeof *av),
         *mn = xmalloc((size_t)(n ? n : 1) * sizeof *mn);
  for (int it = 0; it < n; it++) {
    mx[it] = -INFINITY; mn[it] = INFINITY; av[it] = 0;
    for (int p = 0; p < pe->groups; p++) {
      double x = pe->v[(size_t)p * (size_t)n + (size_t)it];
      if (x > mx[it]) mx[it] = x;
      if (x < mn[it]) mn[it] = x;
      av[it] += x;
    }
    av[it] /= pe->groups ? pe->groups : 1;
    if (mx[it] > top) top = mx[it];
  }
  if (top <= 0) top = 1;
  char tb[32];
  fprintf(f, "<svg id=\"lb-load-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H + 60);
  for (int i = 0; i <= 4; i++) {
    obs_fmt_time(tb, sizeof tb, top * (4 - i) / 4);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, tb);
  }
  const double *lines[3] = {mx, av, mn};
  const char *col[3] = {"#b2182b", "#3366cc", "#3a9d3a"}, *name[3] = {"max", "average", "min"};
  for (int l = 0; l < 3 && T > 0; l++) {
    fprintf(f, "<polyline class=\"lb-load-%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", name[l], col[l]);
    for (int it = 0; it < n; it++) fprintf(f, "%.1f,%.1f ", LEFT + pw * end[it] / T, H * (1 - lines[l][it] / top));
    fputs("\"/>\n", f);
  }
  /* the steps: where the balancer ran (the thesis' points), imbalance before and after */
  for (size_t i = 0; i < jv_len(steps) && T > 0; i++) {
    const jv *s = jv_at(steps, i);
    double t = jv_num(jv_get(s, "time"), 0), x = LEFT + pw * t / T;
    double ab = jv_num(jv_get(s, "avg_before"), 0);
    fprintf(f, "<line class=\"lb-step\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#222\" stroke-dasharray=\"4 3\">"
               "<title>step %zu at %.6g s: imbalance %.3f &#8594; %.3f, %.0f VPs moved</title></line>\n",
            x, x, H, i + 1, t, jv_num(jv_get(s, "imbalance_before"), 1), jv_num(jv_get(s, "imbalance_after"), 1),
            jv_num(jv_get(s, "migrations"), 0));
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#222\"/>\n", x, H * (1 - ab / top));
  }
  fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>\n", LEFT, LEFT, H);
  obs_svg_time_axis(f, LEFT, pw, H, 0, T);
  for (int l = 0; l < 3; l++)
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s PE load</text>\n",
            LEFT + l * 150, H + 34, col[l], LEFT + l * 150 + 16, H + 40, name[l]);
  if (jv_len(steps))
    fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#222\" stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"%.0f\">balancing step</text>\n",
            LEFT + 450, H + 30, LEFT + 450, H + 44, LEFT + 458, H + 40);
  fputs("</svg>\n", f);
  free(mx);
  free(av);
  free(mn);
}

static void efficiency_chart(FILE *f, const double *eff, int n, const jv *step_after) {
  double H = 180, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"lb-efficiency-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H + 40);
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, 100 - 25 * i);
  iter_step_marks(f, step_after, n, pw, 0, H);
  fputs("<polyline fill=\"none\" stroke=\"#3a9d3a\" stroke-width=\"1.5\" points=\"", f);
  for (int it = 0; it < n; it++)
    if (isfinite(eff[it])) fprintf(f, "%.1f,%.1f ", LEFT + pw * (it + 0.5) / n, H * (1 - eff[it]));
  fputs("\"/>\n", f);
  /* one point per iteration, its value in data-efficiency (what the tests read back) */
  for (int it = 0; it < n; it++)
    if (isfinite(eff[it]))
      fprintf(f, "<circle class=\"eff-point\" data-efficiency=\"%.6g\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" fill=\"#3a9d3a\">"
                 "<title>iteration %d: %.1f %%</title></circle>\n",
              eff[it], LEFT + pw * (it + 0.5) / n, H * (1 - eff[it]), it + 1, 100 * eff[it]);
  fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>\n", LEFT, LEFT, H);
  obs_svg_iter_axis(f, LEFT, pw, H, n);
  fputs("</svg>\n", f);
}

static void steps_table(FILE *f, const jv *steps) {
  size_t n = jv_len(steps);
  if (!n) return;
  fputs("<table class=\"grid\"><tr><th>step</th><th>time (s)</th><th>max / avg PE load before</th>"
        "<th>after (predicted)</th><th>VPs moved</th><th>bytes</th></tr>\n", f);
  for (size_t i = 0; i < n; i++) {
    if (n > 12 && i == 6) fprintf(f, "<tr><td colspan=\"6\">(%zu more steps in the JSON document)</td></tr>\n", n - 12);
    if (n > 12 && i >= 6 && i < n - 6) continue;
    const jv *s = jv_at(steps, i);
    char bb[32];
    obs_fmt_bytes(bb, sizeof bb, jv_num(jv_get(s, "bytes"), 0));
    fprintf(f, "<tr><td>%zu</td><td>%.6g</td><td>%.3f</td><td>%.3f</td><td>%.0f</td><td>%s</td></tr>\n", i + 1,
            jv_num(jv_get(s, "time"), 0), jv_num(jv_get(s, "imbalance_before"), 1),
            jv_num(jv_get(s, "imbalance_after"), 1), jv_num(jv_get(s, "migrations"), 0), bb);
  }
  fputs("</table>\n", f);
}

void obs_report_lb(FILE *f, const jv *doc) {
  const jv *its = jv_get(doc, "iterations"), *steps = jv_get(doc, "steps");
  const jv *step_after = jv_get(its, "step_after");
  size_t n_end, n_eff;
  double *end = obs_jv_numbers(jv_get(its, "end"), &n_end);
  double *eff = obs_jv_numbers(jv_get(its, "efficiency"), &n_eff);
  int n = (int)jv_len(jv_get(its, "pe_load"));
  if ((size_t)n > n_end) n = (int)n_end;
  if ((size_t)n > n_eff) n = (int)n_eff;
  double T = jv_num(jv_get(doc, "simulated_time"), 0);
  char bb[32];
  obs_fmt_bytes(bb, sizeof bb, jv_num(jv_get(doc, "bytes_migrated"), 0));

  fputs("<section id=\"lb\"><h2>Load balancing</h2>\n<table class=\"kv\">\n<tr><th>balancer</th><td>", f);
  obs_html_esc(f, jv_str(jv_get(doc, "balancer"), "?"));
  if (!strcmp(jv_str(jv_get(doc, "balancer"), ""), "none")) fputs(" (no balancing step)</td></tr>\n", f);
  else fprintf(f, " (a step at every %.0f-th migrate)</td></tr>\n", jv_num(jv_get(doc, "period"), 0));
  fprintf(f, "<tr><th>VPs on PEs</th><td>%.0f on %.0f (initial mapping: ", jv_num(jv_get(doc, "vps"), 0), jv_num(jv_get(doc, "pes"), 0));
  obs_html_esc(f, jv_str(jv_get(doc, "initial"), "?"));
  fprintf(f, ")</td></tr>\n<tr><th>iterations</th><td>%d</td></tr>\n", n);
  fprintf(f, "<tr><th>balancing steps / VPs migrated / bytes moved</th><td>%.0f / %.0f / %s</td></tr>\n</table>\n",
          jv_num(jv_get(doc, "lb_steps"), 0), jv_num(jv_get(doc, "migrations"), 0), bb);
  steps_table(f, steps);
  fputs("</section>\n", f);

  if (n == 0) {
    fputs("<p class=\"note\">No iteration to draw: the trace has no <code>migrate</code> lines.</p>\n", f);
    free(end);
    free(eff);
    return;
  }
  lb_matrix pe = {0}, vp = {0};
  matrix_read(jv_get(its, "pe_load"), n, &pe);
  matrix_read(jv_get(its, "vp_load"), n, &vp);
  fputs("<section id=\"lb-load\"><h2>PE load per iteration over time</h2>\n"
        "<p>Maximum, average and minimum computing time of the PEs in each iteration, at the time the "
        "iteration ended (its last VP reached the <code>migrate</code>); dashed lines and dots: balancing "
        "steps (hover for the imbalance before and after). The gap between max and average is the time "
        "lost to imbalance.</p>\n", f);
  load_chart(f, &pe, end, steps, T);
  fputs("</section>\n", f);

  fputs("<section id=\"lb-efficiency\"><h2>Dynamic efficiency per iteration</h2>\n"
        "<p>Computing done by all VPs during each iteration's wall time (from the end of the previous "
        "iteration to its own end) / (PEs &times; that time). A balancing step's pause and migrations "
        "count in the iteration after it.</p>\n", f);
  efficiency_chart(f, eff, n, step_after);
  fputs("</section>\n", f);
  fprintf(f, "<section id=\"lb-heatmap\"><h2>Load per PE and per iteration</h2>\n"
             "<p>Computing time of each PE (the VPs that ran on it) in each iteration, relative to the "
             "iteration's average over the PEs (an iteration ends at a <code>migrate</code>)%s%s.</p>\n",
          jv_len(step_after) ? "; dashed lines: balancing steps" : "",
          n > MAX_COLS ? "; consecutive iterations averaged to fit" : "");
  heatmap(f, "lb-pe-heatmap-chart", &pe, "PE", step_after);
  fprintf(f, "<h3>Load per VP and per iteration</h3>\n<p>The same for the VPs%s: where the work is, "
             "whichever PE runs it.</p>\n", vp.groups < vp.rows ? " (averaged in groups of consecutive VPs)" : "");
  heatmap(f, "lb-vp-heatmap-chart", &vp, "VP", step_after);
  fputs("</section>\n", f);

  free(pe.v);
  free(vp.v);
  free(end);
  free(eff);
}

/* ---- the PE-level timeline: which VP computed on each PE over time, and the migrations ---- */

/* A VP's colour: hues spread by the golden angle, so neighbouring VPs differ. */
static void vp_colour(int v, char *b, size_t n) {
  double h = fmod(v * 137.508, 360.0);
  snprintf(b, n, "hsl(%.0f,%d%%,%d%%)", h, 55 + (v % 3) * 10, 45 + (v % 2) * 10);
}

void obs_report_pe_timeline(FILE *f, const jv *doc) {
  const jv *pt = jv_get(doc, "pe_timeline"), *vp = jv_get(pt, "vp"), *mig = jv_get(pt, "migrations");
  size_t P = jv_len(vp), nb = (size_t)jv_num(jv_get(pt, "bins"), 0);
  double bw = jv_num(jv_get(pt, "bin_width"), 0), T = bw * (double)nb, pw = W - LEFT - RIGHT;
  if (!P || !nb) return;
  fprintf(f, "<section id=\"pe-timeline\"><h2>PEs over time</h2>\n<p>Which VP computed on each PE (per time bin of "
             "%.4g s, the VP that computed longest in it; a colour per VP, white: no VP computing), and the %zu "
             "migrations of the balancing steps as arrows from the old PE to the new one, from the step to the "
             "resumption.</p>\n", bw, jv_len(mig));
  double rh = P <= 16 ? 18 : P <= 64 ? 8 : 4, H = rh * (double)P;
  fprintf(f, "<svg id=\"pe-timeline-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
             "<defs><marker id=\"mig-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" "
             "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#222\"/></marker></defs>\n", W, H + 70);
  size_t every = (size_t)ceil(11 / rh);
  for (size_t p = 0; p < P; p++) {
    const jv *row = jv_at(vp, p);
    double y = rh * (double)p;
    if (p % every == 0) fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">PE %zu</text>\n", LEFT - 6, y + rh * 0.8, p);
    for (size_t b = 0; b < nb;) {   /* runs of one VP */
      int v = (int)jv_num(jv_at(row, b), -1);
      size_t e = b + 1;
      while (e < nb && (int)jv_num(jv_at(row, e), -1) == v) e++;
      if (v >= 0) {
        char c[40];
        vp_colour(v, c, sizeof c);
        fprintf(f, "<rect class=\"pe-run\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>PE %zu: VP %d, "
                   "%.6g - %.6g s</title></rect>\n", LEFT + pw * (double)b / (double)nb, y, pw * (double)(e - b) / (double)nb,
                rh - 1, c, p, v, bw * (double)b, bw * (double)e);
      }
      b = e;
    }
  }
  for (size_t i = 0; i < jv_len(mig) && T > 0; i++) {
    const jv *m = jv_at(mig, i);
    double t0 = jv_num(jv_at(m, 1), 0), t1 = jv_num(jv_at(m, 2), 0);
    int v = (int)jv_num(jv_at(m, 3), 0), from = (int)jv_num(jv_at(m, 4), 0), to = (int)jv_num(jv_at(m, 5), 0);
    fprintf(f, "<line class=\"migration\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" stroke-width=\"0.8\" "
               "marker-end=\"url(#mig-arrow)\"><title>step %.0f: VP %d from PE %d to PE %d</title></line>\n",
            LEFT + pw * t0 / T, rh * (from + 0.5), LEFT + pw * (t1 > t0 ? t1 : t0) / T + 2, rh * (to + 0.5),
            jv_num(jv_at(m, 0), 0), v, from, to);
  }
  obs_svg_ylabel(f, 14, H / 2, "PE");
  obs_svg_time_axis(f, LEFT, pw, H + 2, 0, T);
  fprintf(f, "<g class=\"legend\">");
  for (int v = 0; v < 6; v++) {
    char c[40];
    vp_colour(v, c, sizeof c);
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"10\" height=\"12\" fill=\"%s\"/>", LEFT + v * 11, H + 38, c);
  }
  fprintf(f, "<text x=\"%d\" y=\"%.0f\">VP 0, 1, 2, ... (a colour per VP; hover for its number)</text>"
             "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#222\" marker-end=\"url(#mig-arrow)\"/>"
             "<text x=\"%d\" y=\"%.0f\">a VP migrating at a balancing step</text></g>\n",
          LEFT + 72, H + 48, LEFT + 400, H + 44, LEFT + 430, H + 44, LEFT + 436, H + 48);
  fputs("</svg></section>\n", f);
}
