/* The comparison page: several runs side by side, as a performance engineer compares a
 * baseline and its variants. Runs come from several documents (psim report A.json B.json) or
 * from one document holding several (psim lb's {"runs": [...]} of balancers x periods, a
 * sweep's {"runs": [{"params", "result"}]}). For each run: makespan, efficiency and imbalance
 * as bars on one scale; the average load over time of every run overlaid on one chart (SAMPI
 * thesis Fig. 5.3: from the timeline bins when the document has them, else from psim lb's
 * per-iteration efficiency); where the time goes, as stacked bars in the fixed legend's
 * colours and as a table of differences from the first run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/observe.h"

enum { W = OBS_W, LEFT = 200, RIGHT = OBS_RIGHT, MAX_RUNS = 256, NPARTS = 6 };

typedef struct cmp_run {
  const jv *doc;
  char label[160];
  double T, n, cap, eff, imb;   /* makespan, ranks (VPs), capacity (ranks or PEs), efficiency, imbalance */
  double parts[NPARTS];         /* compute, comm, wait, pe_wait, lb, idle (rank-seconds) */
} cmp_run;

static const char *const KEY[NPARTS - 1] = {"compute_time", "comm_time", "wait_time", "pe_wait_time", "lb_time"};
static const char *const NAME[NPARTS] = {"compute", "sending / receiving", "waiting (for messages)",
                                         "waiting for its PE", "balancing", "idle (finished)"};
static const int STATE[NPARTS] = {OBS_ST_COMPUTE, OBS_ST_SEND, OBS_ST_WAIT, OBS_ST_PE, OBS_ST_LB, OBS_ST_IDLE};
/* one colour per run for the overlaid curves (Okabe-Ito, then repeated) */
static const char *const RUN_COLOUR[8] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"};

static int has_run(const jv *d) {
  return d && d->type == JV_OBJ && jv_get(d, "simulated_time") && (jv_get(d, "ranks") || jv_get(d, "totals"));
}

/* Imbalance: max / mean computing time over the ranks; for psim lb, over the PEs per
 * iteration (mean over iterations) when the document has them, else the steps' "before". */
static double imbalance(const jv *d) {
  const jv *it = jv_get(d, "iterations"), *pl = it && it->type == JV_OBJ ? jv_get(it, "pe_load") : NULL;
  if (jv_len(pl)) {
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < jv_len(pl); i++) {
      const jv *row = jv_at(pl, i);
      double mx = 0, sum = 0;
      for (size_t p = 0; p < jv_len(row); p++) { double x = jv_num(jv_at(row, p), 0); sum += x; if (x > mx) mx = x; }
      if (sum > 0) { s += mx / (sum / (double)jv_len(row)); k++; }
    }
    return k ? s / (double)k : NAN;
  }
  if (jv_get(d, "pes")) {
    const jv *st = jv_get(d, "steps");
    double s = 0;
    for (size_t i = 0; i < jv_len(st); i++) s += jv_num(jv_get(jv_at(st, i), "imbalance_before"), 0);
    return jv_len(st) ? s / (double)jv_len(st) : NAN;
  }
  const jv *r = jv_get(d, "ranks");
  double mx = 0, sum = 0;
  for (size_t i = 0; i < jv_len(r); i++) { double x = jv_num(jv_get(jv_at(r, i), "compute_time"), 0); sum += x; if (x > mx) mx = x; }
  return jv_len(r) && sum > 0 ? mx / (sum / (double)jv_len(r)) : NAN;
}

static void add_run(cmp_run *runs, int *n, const jv *d, const char *label) {
  if (*n >= MAX_RUNS) return;
  cmp_run *r = &runs[(*n)++];
  memset(r, 0, sizeof *r);
  r->doc = d;
  snprintf(r->label, sizeof r->label, "%s", label);
  r->T = jv_num(jv_get(d, "simulated_time"), 0);
  r->n = jv_len(jv_get(d, "ranks")) ? (double)jv_len(jv_get(d, "ranks")) : jv_num(jv_get(d, "vps"), jv_num(jv_get(d, "np"), 0));
  r->cap = jv_num(jv_get(d, "pes"), r->n);
  const jv *tot = jv_get(d, "totals");
  double used = 0;
  for (int i = 0; i < NPARTS - 1; i++) {
    double x = 0;
    if (tot) x = jv_num(jv_get(tot, KEY[i]), 0);
    else for (size_t k = 0; k < jv_len(jv_get(d, "ranks")); k++) x += jv_num(jv_get(jv_at(jv_get(d, "ranks"), k), KEY[i]), 0);
    r->parts[i] = x;
    used += x;
  }
  r->parts[NPARTS - 1] = r->T * r->n > used ? r->T * r->n - used : 0;
  r->eff = r->T * r->cap > 0 ? r->parts[0] / (r->T * r->cap) : NAN;
  r->imb = imbalance(d);
}

/* A label for a run inside a document of several: lb's balancer and period, a sweep's params. */
static void inner_label(char *b, size_t n, const char *title, const jv *item, size_t i) {
  const jv *params = jv_get(item, "params");
  if (jv_get(item, "balancer")) {
    snprintf(b, n, "%s, period %.0f", jv_str(jv_get(item, "balancer"), "?"), jv_num(jv_get(item, "period"), 0));
  } else if (params && params->type == JV_OBJ) {
    size_t k = 0;
    b[0] = 0;
    for (size_t p = 0; p < params->n; p++) {
      const jv *v = &params->items[p];
      char one[64];
      if (v->type == JV_NUM) snprintf(one, sizeof one, "%s%s=%.6g", p ? " " : "", params->keys[p], v->num);
      else snprintf(one, sizeof one, "%s%s=%s", p ? " " : "", params->keys[p], jv_str(v, "?"));
      if (k + strlen(one) + 1 < n) { strcpy(b + k, one); k += strlen(one); }
    }
  } else snprintf(b, n, "%s #%zu", title, i + 1);
}

/* The average load per time bin of a run: from its timeline, else from lb's iterations
 * (efficiency of each iteration at the time it ended). xs in seconds, ys in [0, 1]. */
static size_t load_curve(const cmp_run *r, double **xs, double **ys) {
  const jv *tl = jv_get(r->doc, "timeline");
  *xs = *ys = NULL;
  if (tl) {
    const jv *groups = jv_get(tl, "groups"), *comp = jv_get(tl, "compute");
    size_t G = jv_len(groups), nb = (size_t)jv_num(jv_get(tl, "bins"), 0);
    double bw = jv_num(jv_get(tl, "bin_width"), 0);
    if (!nb || !G) return 0;
    *xs = xmalloc(nb * sizeof **xs);
    *ys = xmalloc(nb * sizeof **ys);
    for (size_t b = 0; b < nb; b++) {
      double s = 0;
      for (size_t g = 0; g < G; g++) {
        double k = jv_num(jv_at(jv_at(groups, g), 1), 0) - jv_num(jv_at(jv_at(groups, g), 0), 0) + 1;
        s += k * jv_num(jv_at(jv_at(comp, g), b), 0);
      }
      (*xs)[b] = bw * ((double)b + 0.5);
      (*ys)[b] = r->cap > 0 ? s / r->cap : 0;
    }
    return nb;
  }
  const jv *it = jv_get(r->doc, "iterations");
  if (it && it->type == JV_ARR && jv_len(it)) {   /* dynamic efficiency (docs/models.md) */
    size_t n = jv_len(it);
    *xs = xmalloc(n * sizeof **xs);
    *ys = xmalloc(n * sizeof **ys);
    for (size_t i = 0; i < n; i++) {
      (*xs)[i] = jv_num(jv_get(jv_at(it, i), "end"), 0);
      (*ys)[i] = jv_num(jv_get(jv_at(it, i), "efficiency"), 0);
    }
    return n;
  }
  if (it && it->type == JV_OBJ && jv_len(jv_get(it, "efficiency"))) {
    size_t n = jv_len(jv_get(it, "efficiency"));
    *xs = xmalloc(n * sizeof **xs);
    *ys = xmalloc(n * sizeof **ys);
    for (size_t i = 0; i < n; i++) {
      (*xs)[i] = jv_num(jv_at(jv_get(it, "end"), i), 0);
      (*ys)[i] = jv_num(jv_at(jv_get(it, "efficiency"), i), 0);
    }
    return n;
  }
  return 0;
}

/* Horizontal bars of one metric, a row per run, on one scale from 0. */
static void bars(FILE *f, const char *id, const char *title, const char *unit, const cmp_run *runs, int n, int which) {
  double mx = 0, v[MAX_RUNS];
  for (int i = 0; i < n; i++) {
    v[i] = which == 0 ? runs[i].T : which == 1 ? 100 * runs[i].eff : runs[i].imb;
    if (isfinite(v[i]) && v[i] > mx) mx = v[i];
  }
  if (!(mx > 0)) mx = 1;
  double bh = 18, pw = W - LEFT - RIGHT - 80;
  fprintf(f, "<h3>%s</h3>\n<svg id=\"%s\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          title, id, W, bh * n + 64);
  for (int i = 0; i < n; i++) {
    double y = bh * i;
    fputs("<text x=\"", f);
    fprintf(f, "%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 6, y + bh * 0.7);
    obs_html_esc(f, runs[i].label);
    fputs("</text>", f);
    if (isfinite(v[i]))
      fprintf(f, "<rect class=\"bar\" data-value=\"%.9g\" x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\">%.4g%s%s</text>\n", v[i], LEFT, y + 2, pw * v[i] / mx, bh - 4,
              RUN_COLOUR[i % 8], LEFT + pw * v[i] / mx + 4, y + bh * 0.7, v[i], *unit ? " " : "", unit);
    else fprintf(f, "<text x=\"%d\" y=\"%.1f\">not in this document</text>\n", LEFT + 4, y + bh * 0.7);
  }
  double y = bh * n + 2;
  fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", LEFT, y, LEFT + pw, y);
  for (int k = 0; k <= 4; k++)
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.3g</text>\n",
            LEFT + pw * k / 4, y, LEFT + pw * k / 4, y + 4, LEFT + pw * k / 4, y + 16, mx * k / 4);
  fprintf(f, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%s%s%s</text>\n", LEFT + pw / 2, y + 32,
          title, *unit ? " (" : "", unit, *unit ? ")" : "");
  obs_svg_ylabel(f, 12, bh * n / 2, "run");
  fputs("<g class=\"legend\">", f);
  fprintf(f, "<text x=\"%d\" y=\"%.1f\">one bar per run, in its curve's colour</text></g>\n", LEFT, y + 48);
  fputs("</svg>\n", f);
}

static void overlay(FILE *f, const cmp_run *runs, int n) {
  double Tm = 0;
  int any = 0;
  for (int i = 0; i < n; i++) if (runs[i].T > Tm) Tm = runs[i].T;
  fputs("<section id=\"cmp-load\"><h2>Average load over time</h2>\n<p>Each run's average load (share of the "
        "ranks', or PEs', time spent computing) over simulated time, overlaid: a run that balances well stays "
        "high and ends first.</p>\n", f);
  double H = 220, pw = W - OBS_LEFT - RIGHT;
  fprintf(f, "<svg id=\"cmp-load-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          W, H + 50 + 18.0 * ((n + 2) / 3));
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>\n",
            OBS_LEFT, H * i / 4, W - RIGHT, H * i / 4, OBS_LEFT - 6, H * i / 4 + 4, 100 - 25 * i);
  for (int i = 0; i < n; i++) {
    double *xs, *ys;
    size_t m = load_curve(&runs[i], &xs, &ys);
    if (m && Tm > 0) {
      any = 1;
      fprintf(f, "<polyline class=\"load-curve\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", RUN_COLOUR[i % 8]);
      for (size_t k = 0; k < m; k++) fprintf(f, "%.1f,%.1f ", OBS_LEFT + pw * xs[k] / Tm, H * (1 - (ys[k] > 1 ? 1 : ys[k])));
      fputs("\"/>\n", f);
    }
    free(xs);
    free(ys);
  }
  if (!any)
    fprintf(f, "<text x=\"%d\" y=\"%.0f\">no run of these documents has a timeline: write them with --timeline</text>\n",
            OBS_LEFT + 10, H / 2);
  obs_svg_ylabel(f, 40, H / 2, "average load (%)");
  obs_svg_time_axis(f, OBS_LEFT, pw, H, 0, Tm);
  fputs("<g class=\"legend\">", f);
  for (int i = 0; i < n; i++) {
    double x = OBS_LEFT + (i % 3) * 270, y = H + 36 + 18 * (i / 3);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"3\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">", x, y, RUN_COLOUR[i % 8],
            x + 18, y + 5);
    obs_html_esc(f, runs[i].label);
    fputs("</text>", f);
  }
  fputs("</g>\n</svg></section>\n", f);
}

static void split(FILE *f, const cmp_run *runs, int n) {
  int vp = 0;
  for (int i = 0; i < n; i++) vp |= runs[i].parts[3] > 0 || runs[i].parts[4] > 0 || jv_get(runs[i].doc, "pes") != NULL;
  fputs("<section id=\"cmp-split\"><h2>Where the time goes</h2>\n<p>The ranks' time from 0 to each run's makespan, "
        "summed, as shares (bars) and in rank-seconds with the difference from the first run (table).</p>\n", f);
  double bh = 18, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"cmp-split-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          W, bh * n + 80);
  for (int i = 0; i < n; i++) {
    double tot = 0, x = LEFT, y = bh * i;
    for (int k = 0; k < NPARTS; k++) tot += runs[i].parts[k];
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 6, y + bh * 0.7);
    obs_html_esc(f, runs[i].label);
    fputs("</text>", f);
    for (int k = 0; k < NPARTS; k++) {
      double w = tot > 0 ? pw * runs[i].parts[k] / tot : 0;
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>%s: %.1f %%</title></rect>", x,
              y + 2, w, bh - 4, obs_state_colour(STATE[k]), NAME[k], tot > 0 ? 100 * runs[i].parts[k] / tot : 0);
      x += w;
    }
    fputc('\n', f);
  }
  double y = bh * n + 2;
  fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", LEFT, y, LEFT + pw, y);
  for (int k = 0; k <= 4; k++)
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d %%</text>\n",
            LEFT + pw * k / 4, y, LEFT + pw * k / 4, y + 4, LEFT + pw * k / 4, y + 16, 25 * k);
  fprintf(f, "<text class=\"axis-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">share of the ranks' time</text>\n", LEFT - 6, y + 16);
  obs_svg_ylabel(f, 12, bh * n / 2, "run");
  fputs("<g class=\"legend\">", f);
  int q = 0;
  for (int k = 0; k < NPARTS; k++) {
    if (!vp && (k == 3 || k == 4)) continue;
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s</text>",
            LEFT + (q % 4) * 180, y + 28 + 18 * (q / 4), obs_state_colour(STATE[k]), LEFT + (q % 4) * 180 + 16,
            y + 38 + 18 * (q / 4), NAME[k]);
    q++;
  }
  fputs("</g>\n</svg>\n<table class=\"grid\" id=\"cmp-diff\"><tr><th>part (rank-seconds)</th>", f);
  for (int i = 0; i < n; i++) { fputs("<th>", f); obs_html_esc(f, runs[i].label); fputs("</th>", f); }
  fputs("</tr>\n", f);
  for (int k = 0; k < NPARTS; k++) {
    if (!vp && (k == 3 || k == 4)) continue;
    fprintf(f, "<tr><th style=\"text-align:left\">%s</th>", NAME[k]);
    for (int i = 0; i < n; i++) {
      double d = runs[i].parts[k] - runs[0].parts[k];
      if (i == 0) fprintf(f, "<td>%.6g</td>", runs[i].parts[k]);
      else fprintf(f, "<td>%.6g (%s%.4g)</td>", runs[i].parts[k], d >= 0 ? "+" : "", d);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table></section>\n", f);
}

int obs_report_compare(FILE *f, const jv *const *docs, const char *const *titles, int n, psim_err *err) {
  cmp_run *runs = xcalloc(MAX_RUNS, sizeof *runs);
  int nr = 0;
  for (int i = 0; i < n; i++) {
    const jv *d = docs[i], *list = jv_get(d, "runs");
    if (has_run(d)) {
      char b[160];
      if (jv_get(d, "balancer")) snprintf(b, sizeof b, "%s (%s, period %.0f)", titles[i], jv_str(jv_get(d, "balancer"), "?"),
                                          jv_num(jv_get(d, "period"), 0));
      else snprintf(b, sizeof b, "%s", titles[i]);
      add_run(runs, &nr, d, b);
    } else if (list && list->type == JV_ARR) {
      for (size_t k = 0; k < jv_len(list); k++) {
        const jv *item = jv_at(list, k), *res = jv_get(item, "result");
        const jv *run = has_run(item) ? item : has_run(res) ? res : NULL;
        if (!run) continue;   /* a failed sweep run, or a brief one without its totals */
        char b[160];
        inner_label(b, sizeof b, titles[i], item, k);
        add_run(runs, &nr, run, b);
      }
    } else {
      free(runs);
      return psim_errf(err, PSIM_EXIT_INPUT, titles[i], 0,
                       "not a psim result (no \"ranks\" or \"simulated_time\", and no \"runs\" list): write one with "
                       "psim replay/run/lb --json, psim sensitivity --json or psim sweep --json");
    }
  }
  if (!nr) {
    free(runs);
    return psim_errf(err, PSIM_EXIT_INPUT, titles[0], 0, "no run with its times in %s (a sweep written with --brief keeps none)",
                     n > 1 ? "these documents" : "this document");
  }
  char title[64];
  snprintf(title, sizeof title, "comparison of %d runs", nr);
  obs_report_head(f, title, "comparison");
  fputs("<section id=\"cmp-table\"><h2>Runs side by side</h2>\n<table class=\"grid\" id=\"cmp-runs\"><tr><th>run</th>"
        "<th>makespan (s)</th><th>vs first</th><th>efficiency</th><th>imbalance (max / mean)</th><th>ranks</th>"
        "<th>PEs</th></tr>\n", f);
  for (int i = 0; i < nr; i++) {
    const cmp_run *r = &runs[i];
    fputs("<tr><td style=\"text-align:left\">", f);
    obs_html_esc(f, r->label);
    fprintf(f, "</td><td>%.9g</td><td>", r->T);
    if (i && runs[0].T > 0) fprintf(f, "%+.1f %%", 100 * (r->T / runs[0].T - 1)); else fputs("(base)", f);
    fputs("</td><td>", f);
    if (isfinite(r->eff)) fprintf(f, "%.1f %%", 100 * r->eff); else fputs("-", f);
    fputs("</td><td>", f);
    if (isfinite(r->imb)) fprintf(f, "%.3f", r->imb); else fputs("-", f);
    fprintf(f, "</td><td>%.0f</td><td>", r->n);
    if (jv_get(r->doc, "pes")) fprintf(f, "%.0f", r->cap); else fputs("-", f);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
  fputs("</section>\n<section id=\"cmp-bars\"><h2>Makespan, efficiency, imbalance</h2>\n", f);
  bars(f, "cmp-makespan", "makespan", "s", runs, nr, 0);
  bars(f, "cmp-efficiency", "efficiency", "%", runs, nr, 1);
  bars(f, "cmp-imbalance", "imbalance (max / mean computing)", "", runs, nr, 2);
  fputs("</section>\n", f);
  overlay(f, runs, nr);
  split(f, runs, nr);
  obs_report_tail(f);
  free(runs);
  return 0;
}
