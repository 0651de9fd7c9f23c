/* The HTML report: one self-contained file (inline CSS, SVG and one small inline script for
 * the zoomable timeline; no font, nothing fetched) drawn from a result's JSON document, so it
 * opens offline, in any browser, years later. Every chart uses the one fixed state legend of
 * obs_states.c (the summary bar included) and has labelled axes; heatmaps and the matrix have
 * colour scales with values and units. Sections: summary and where the time goes, model
 * sections when the document has them (obs_report_model.c), the timeline with the critical
 * path as a band (obs_report_tl.c), load heatmap, average load over time, communication
 * matrix, time of each rank, the critical path's top contributors. Sections whose data the
 * document lacks (written without --report/--timeline) say how to get it. A psim lb document
 * adds its per-iteration views (obs_report_lb.c); a psim sensitivity document is a page of its
 * own (obs_report_sens.c); several documents, or one holding several runs, make a comparison
 * page (obs_report_cmp.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/observe.h"

enum { W = OBS_W, LEFT = OBS_LEFT, RIGHT = OBS_RIGHT, MAX_ROWS = 128 };

static void missing(FILE *f, const char *what) {
  fprintf(f, "<p class=\"note\">No %s in this document: write it with <code>--report FILE.html</code> "
             "or <code>--json FILE --timeline</code>.</p>\n", what);
}

/* ---- where the time goes: the parts of a rank's time (rank_stats), then idle ----
 * psim lb documents (with "pes") add the time VPs wait for their PE and at balancing steps. */
enum { NPARTS = 6 };
static const char *const PART_KEY[NPARTS] = {"compute_time", "comm_time", "wait_time", "pe_wait_time", "lb_time",
                                             "idle_time"};
static const char *const PART_NAME[NPARTS] = {"compute", "sending / receiving", "waiting (for messages)",
                                              "waiting for its PE", "balancing", "idle (finished)"};
/* The fixed legend's colours: communicating (a rank's own messages moving, either way) is
 * the colour of sending. */
static const int PART_STATE[NPARTS] = {OBS_ST_COMPUTE, OBS_ST_SEND, OBS_ST_WAIT, OBS_ST_PE, OBS_ST_LB, OBS_ST_IDLE};
#define PART_FILL(i) obs_state_colour(PART_STATE[i])

/* The parts to draw: computing, communicating, waiting, [PE, steps,] idle. */
static int parts_of(const jv *doc, int *idx) {
  int n = 0, vp = jv_get(doc, "pes") != NULL;
  for (int i = 0; i < NPARTS; i++)
    if (vp || (i != 3 && i != 4)) idx[n++] = i;
  return n;
}

/* Sums the parts of ranks [lo, hi) into v (idle = T - the others, per rank). */
static void rank_parts(const jv *ranks, size_t lo, size_t hi, double T, double *v) {
  for (int j = 0; j < NPARTS; j++) v[j] = 0;
  for (size_t i = lo; i < hi; i++) {
    const jv *r = jv_at(ranks, i);
    double used = 0;
    for (int j = 0; j < NPARTS - 1; j++) { double x = jv_num(jv_get(r, PART_KEY[j]), 0); v[j] += x; used += x; }
    if (T > used) v[NPARTS - 1] += T - used;
  }
}

/* The legend of the parts (SVG, 4 a row from x, y), with their shares when pct is given. */
static void parts_legend(FILE *f, const int *idx, int n, double x, double y, const double *pct) {
  fputs("<g class=\"legend\">", f);
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s",
            x + (k % 4) * 215, y + 20 * (k / 4), PART_FILL(i), x + (k % 4) * 215 + 16, y + 10 + 20 * (k / 4), PART_NAME[i]);
    if (pct) fprintf(f, " %.1f %%", pct[i]);
    fputs("</text>\n", f);
  }
  fputs("</g>\n", f);
}

/* psim run's command line (the document's "argv"), HTML-escaped when html; an argument that a
 * shell would split or drop is quoted, so that the line reads as it was typed. */
static void command_line(FILE *f, const jv *argv, int html) {
  for (size_t i = 0; i < jv_len(argv); i++) {
    const char *a = jv_str(jv_at(argv, i), "");
    int q = !*a || strpbrk(a, " \t\n'\"\\$&|;<>()*?[]#~`") != NULL;
    if (i) fputc(' ', f);
    if (q) fputc('\'', f);
    if (html) obs_html_esc(f, a); else fputs(a, f);
    if (q) fputc('\'', f);
  }
}

/* ---- summary ---- */
static void summary(FILE *f, const jv *doc) {
  const jv *ranks = jv_get(doc, "ranks");
  size_t np = jv_len(ranks);
  double T = jv_num(jv_get(doc, "simulated_time"), 0);
  double parts[NPARTS];
  rank_parts(ranks, 0, np, T, parts);
  double tc = parts[0];
  double tot = T * (double)np;
  /* psim lb: the ranks are VPs sharing PEs, so efficiency is over the PEs' time */
  double npe = jv_num(jv_get(doc, "pes"), (double)np);
  double eff = T * npe > 0 ? tc / (T * npe) : 0;
  const char *who = jv_get(doc, "pes") ? "VPs" : "ranks";
  char tb[32], bb[32];
  obs_fmt_time(tb, sizeof tb, T);
  obs_fmt_bytes(bb, sizeof bb, jv_num(jv_get(doc, "bytes"), 0));
  fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n", f);
  fprintf(f, "<tr><th>simulated time (makespan)</th><td id=\"makespan\">%s (%.9g s)</td></tr>\n", tb, T);
  fprintf(f, "<tr><th>%s</th><td>%zu</td></tr>\n", who, np);
  if (jv_get(doc, "pes")) fprintf(f, "<tr><th>PEs</th><td>%.0f</td></tr>\n", npe);
  fputs("<tr><th>platform</th><td>", f);
  obs_html_esc(f, jv_str(jv_get(doc, "platform"), "?"));
  fputs("</td></tr>\n<tr><th>network model</th><td>", f);
  obs_html_esc(f, jv_str(jv_get(doc, "network_model"), "?"));
  if (jv_get(doc, "machine_file")) {
    fputs("</td></tr>\n<tr><th>machine file</th><td>", f);
    obs_html_esc(f, jv_str(jv_get(doc, "machine_file"), "?"));
  }
  const jv *av = jv_get(doc, "argv");
  if (jv_len(av)) {   /* psim run: what ran is a program and its arguments, not traces */
    fputs("</td></tr>\n<tr><th>program</th><td id=\"program\">", f);
    command_line(f, av, 1);
  } else {
    fputs("</td></tr>\n<tr><th>traces</th><td>", f);
    const jv *tr = jv_get(doc, "traces");
    for (size_t i = 0; i < jv_len(tr) && i < 8; i++) { if (i) fputs(", ", f); obs_html_esc(f, jv_str(jv_at(tr, i), "")); }
    if (jv_len(tr) > 8) fprintf(f, " (and %zu more)", jv_len(tr) - 8);
  }
  fprintf(f, "</td></tr>\n<tr><th>actions / messages / bytes</th><td>%.0f / %.0f / %s</td></tr>\n",
          jv_num(jv_get(doc, "actions"), 0), jv_num(jv_get(doc, "messages"), 0), bb);
  fprintf(f, "<tr><th>efficiency</th><td id=\"efficiency\">%.1f %% (computation / (%s &times; makespan))</td></tr>\n",
          100 * eff, jv_get(doc, "pes") ? "PEs" : "ranks");
  const jv *dl = jv_get(doc, "deadlock");
  if (dl && dl->type == JV_STR) { fputs("<tr><th>deadlock</th><td><pre>", f); obs_html_esc(f, dl->str); fputs("</pre></td></tr>\n", f); }
  fprintf(f, "</table>\n<h3>Where the %s' time goes</h3>\n", who);
  int idx[NPARTS], n = parts_of(doc, idx);
  double pct[NPARTS];
  for (int i = 0; i < NPARTS; i++) pct[i] = tot > 0 ? 100 * parts[i] / tot : 0;
  fprintf(f, "<p>The time of every %s from 0 to the makespan, summed (%.6g %s-seconds); the colours are the "
             "timeline's.</p>\n", who[0] == 'V' ? "VP" : "rank", tot, who[0] == 'V' ? "VP" : "rank");
  fprintf(f, "<svg id=\"time-split\" class=\"chart\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          n > 4 ? 106 : 86);
  double x = 0;
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    double w = tot > 0 ? (W - 2.0) * parts[i] / tot : 0;
    /* data-seconds: what the tests compare with the document's ranks */
    fprintf(f, "<rect class=\"part\" data-part=\"%s\" data-seconds=\"%.9g\" x=\"%.2f\" y=\"0\" width=\"%.2f\" "
               "height=\"28\" fill=\"%s\"><title>%s: %.1f %%</title></rect>\n",
            PART_KEY[i], parts[i], x + 1, w, PART_FILL(i), PART_NAME[i], pct[i]);
    x += w;
  }
  fprintf(f, "<line x1=\"1\" y1=\"30\" x2=\"%d\" y2=\"30\" stroke=\"#444\"/>", W - 1);
  for (int i = 0; i <= 4; i++) {
    double xt = 1 + (W - 2.0) * i / 4;
    fprintf(f, "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"34\" stroke=\"#444\"/><text x=\"%.1f\" y=\"45\" "
               "text-anchor=\"%s\">%d %%</text>", xt, xt, xt, i == 0 ? "start" : i == 4 ? "end" : "middle", 25 * i);
  }
  fprintf(f, "\n<text class=\"axis-label\" x=\"%.0f\" y=\"45\" text-anchor=\"middle\">share of the %s' time</text>\n",
          W * 0.375, who);
  parts_legend(f, idx, n, 0, 58, pct);
  fputs("</svg></section>\n", f);
}

/* Row labels of a chart of G rows over np ranks (groups when G < np), every `every` rows. */
static void row_label(FILE *f, double y, double rh, long lo, long hi, const char *who) {
  if (hi > lo) fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%ld-%ld</text>\n", LEFT - 6, y + rh * 0.8, lo, hi);
  else fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %ld</text>\n", LEFT - 6, y + rh * 0.8, who, lo);
}

/* ---- load heatmap and load over time ---- */
static const int GREEN0[3] = {255, 255, 255}, GREEN1[3] = {0, 90, 30};

static void load_views(FILE *f, const jv *doc) {
  const jv *tl = jv_get(doc, "timeline");
  const char *who = jv_get(doc, "pes") ? "VP" : "rank";
  fputs("<section id=\"heatmap\"><h2>Load heatmap</h2>\n", f);
  if (!tl) { missing(f, "timeline"); fputs("</section>\n<section id=\"load-time\"><h2>Average load over time</h2>\n", f); missing(f, "timeline"); fputs("</section>\n", f); return; }
  double T = jv_num(jv_get(tl, "end"), 0), pw = W - LEFT - RIGHT;
  const jv *groups = jv_get(tl, "groups"), *comp = jv_get(tl, "compute");
  size_t G = jv_len(groups), nb = (size_t)jv_num(jv_get(tl, "bins"), 0);
  double rh = G <= 16 ? 20 : 8, bw = nb ? pw / (double)nb : 0;
  int grouped = G < jv_len(jv_get(doc, "ranks"));
  fprintf(f, "<p>Share of each time bin spent computing, per %s%s (%zu bins of %.4g s): white is idle or in MPI, "
             "dark green is computing all the bin.</p>\n", grouped ? "block of consecutive " : "", who, nb,
          jv_num(jv_get(tl, "bin_width"), 0));
  fprintf(f, "<svg id=\"heatmap-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          rh * (double)G + 80);
  int every = rh >= 20 ? 1 : 2;
  for (size_t g = 0; g < G; g++) {
    const jv *gr = jv_at(groups, g);
    double y = rh * (double)g;
    if (g % (size_t)every == 0) row_label(f, y, rh, (long)jv_num(jv_at(gr, 0), 0), (long)jv_num(jv_at(gr, 1), 0), who);
    /* runs of bins of one colour are one rect: 16,384 ranks stay 64 rows of few shapes */
    for (size_t b = 0; b < nb;) {
      char col[32], next[32];
      obs_ramp(jv_num(jv_at(jv_at(comp, g), b), 0), GREEN0, GREEN1, col, sizeof col);
      size_t e = b + 1;
      while (e < nb) {
        obs_ramp(jv_num(jv_at(jv_at(comp, g), e), 0), GREEN0, GREEN1, next, sizeof next);
        if (strcmp(next, col)) break;
        e++;
      }
      if (strcmp(col, "rgb(255,255,255)"))
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n", LEFT + bw * (double)b, y,
                bw * (double)(e - b) + 0.2, rh - 1, col);
      b = e;
    }
  }
  obs_svg_ylabel(f, 14, rh * (double)G / 2, grouped ? (who[0] == 'V' ? "VPs (blocks)" : "ranks (blocks)") : (who[0] == 'V' ? "VP" : "rank"));
  obs_svg_time_axis(f, LEFT, pw, rh * (double)G + 4, 0, T);
  obs_svg_colour_scale(f, LEFT, rh * (double)G + 44, 300, 0, 100, 0, GREEN0, GREEN1, "share of the bin spent computing", "%");
  fputs("</svg></section>\n", f);

  /* load over time: the ranks' average share computing per bin, i.e. the dynamic efficiency;
   * for psim lb the capacity is the PEs', and the balancing steps are marked */
  const jv *pes = jv_get(doc, "pes"), *steps = jv_get(doc, "steps");
  fprintf(f, "<section id=\"load-time\"><h2>Average load over time</h2>\n"
             "<p>Average over the %s of the share of each bin spent computing (dynamic efficiency: "
             "useful computation / (%s &times; bin width))%s.</p>\n", pes ? "PEs" : "ranks", pes ? "PEs" : "ranks",
          jv_len(steps) ? "; dashed lines: load-balancing steps" : "");
  double H = 200;
  fprintf(f, "<svg id=\"load-time-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H + 60);
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, 100 - 25 * i);
  fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", obs_state_colour(OBS_ST_COMPUTE));
  double nranks = 0;
  for (size_t g = 0; g < G; g++) nranks += jv_num(jv_at(jv_at(groups, g), 1), 0) - jv_num(jv_at(jv_at(groups, g), 0), 0) + 1;
  for (size_t b = 0; b < nb; b++) {
    double s = 0;
    for (size_t g = 0; g < G; g++) {
      double k = jv_num(jv_at(jv_at(groups, g), 1), 0) - jv_num(jv_at(jv_at(groups, g), 0), 0) + 1;
      s += k * jv_num(jv_at(jv_at(comp, g), b), 0);
    }
    double cap = pes ? jv_num(pes, nranks) : nranks;
    double avg = cap > 0 ? s / cap : 0;
    fprintf(f, "%.1f,%.1f ", LEFT + bw * ((double)b + 0.5), H * (1 - avg));
  }
  fputs("\"/>\n", f);
  for (size_t i = 0; i < jv_len(steps) && T > 0; i++) {
    double t = jv_num(jv_get(jv_at(steps, i), "time"), 0);
    fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n",
            LEFT + pw * t / T, LEFT + pw * t / T, H, obs_state_colour(OBS_ST_LB));
  }
  fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>\n", LEFT, LEFT, H);
  obs_svg_ylabel(f, 40, H / 2, "average load (%)");
  obs_svg_time_axis(f, LEFT, pw, H, 0, T);
  fprintf(f, "<g class=\"legend\"><rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"3\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">"
             "average load (share of the %s' time computing)</text>", LEFT, H + 36, obs_state_colour(OBS_ST_COMPUTE), LEFT + 18,
          H + 41, pes ? "PEs" : "ranks");
  if (jv_len(steps))
    fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"%.0f\">"
               "balancing step</text>", LEFT + 420, H + 38, LEFT + 434, H + 38, obs_state_colour(OBS_ST_LB), LEFT + 438, H + 41);
  fputs("</g>\n</svg></section>\n", f);
}

/* ---- communication matrix ---- */
static const int ORANGE0[3] = {255, 245, 235}, ORANGE1[3] = {127, 39, 4};

static void comm_matrix(FILE *f, const jv *doc) {
  fputs("<section id=\"comm-matrix\"><h2>Communication matrix</h2>\n", f);
  const jv *cm = jv_get(doc, "comm_matrix");
  if (!cm) { missing(f, "communication matrix"); fputs("</section>\n", f); return; }
  const jv *bytes = jv_get(cm, "bytes");
  size_t G = jv_len(bytes);
  size_t np = jv_len(jv_get(doc, "ranks"));
  const char *who = jv_get(doc, "pes") ? "VP" : "rank";
  double mx = 0, mn = 0;
  for (size_t a = 0; a < G; a++)
    for (size_t b = 0; b < G; b++) {
      double x = jv_num(jv_at(jv_at(bytes, a), b), 0);
      if (x > mx) mx = x;
      if (x > 0 && (mn == 0 || x < mn)) mn = x;
    }
  /* log scale when the non-zero values span more than two decades */
  int logscale = mn > 0 && mx / mn > 100;
  double lo = logscale ? mn : 0;
  double side = 480, cell = G ? side / (double)G : 0, X0 = LEFT;
  fprintf(f, "<p>Bytes sent from a %s%s (row) to another (column), point-to-point and inside collectives; white: "
             "nothing sent.</p>\n", G < np ? "block of consecutive " : "", who);
  fprintf(f, "<svg id=\"comm-matrix-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          W, side + 90);
  for (size_t a = 0; a < G; a++)
    for (size_t b = 0; b < G; b++) {
      double x = jv_num(jv_at(jv_at(bytes, a), b), 0);
      char col[32] = "rgb(255,255,255)";
      if (x > 0) obs_ramp(0.08 + 0.92 * obs_scale_pos(x, lo, mx, logscale), ORANGE0, ORANGE1, col, sizeof col);
      fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%zu -&gt; %zu: %.6g B</title></rect>\n",
              X0 + cell * (double)b, cell * (double)a, cell, cell, col, a, b, x);
    }
  fprintf(f, "<rect x=\"%.0f\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\" stroke-width=\"0.5\"/>\n", X0, side, side);
  /* ticks: about 8 on each side, at the first rank of a row or column */
  size_t step = G > 8 ? (G + 7) / 8 : 1;
  for (size_t a = 0; a < G; a += step) {
    long first = (long)(((unsigned long long)a * np + G - 1) / G);
    double c = cell * ((double)a + 0.5);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%ld</text>\n",
            X0 - 4, c, X0, c, X0 - 6, c + 4, first);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%ld</text>\n",
            X0 + c, side, X0 + c, side + 4, X0 + c, side + 16, first);
  }
  char yl[48], xl[48];
  snprintf(yl, sizeof yl, "source %s", who);
  snprintf(xl, sizeof xl, "destination %s", who);
  obs_svg_ylabel(f, 40, side / 2, yl);
  fprintf(f, "<text class=\"axis-label\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", X0 + side / 2, side + 32, xl);
  obs_svg_colour_scale(f, X0 + side + 40, 40, 260, lo, mx > 0 ? mx : 1, logscale, ORANGE0, ORANGE1, "bytes sent", "B");
  fputs("</svg></section>\n", f);
}

/* ---- per-rank bars ---- */
static void rank_bars(FILE *f, const jv *doc) {
  const jv *ranks = jv_get(doc, "ranks");
  size_t np = jv_len(ranks);
  double T = jv_num(jv_get(doc, "simulated_time"), 0);
  size_t G = np < MAX_ROWS ? np : MAX_ROWS;
  const char *who = jv_get(doc, "pes") ? "VP" : "rank";
  fputs("<section id=\"rank-bars\"><h2>Time of each rank</h2>\n", f);
  int idx[NPARTS], n = parts_of(doc, idx);
  fprintf(f, "<p>Computing, communicating (its own messages moving), waiting (in MPI, none of its messages moving)%s "
             "and idle after finishing, per %s%s.</p>\n", n > 4 ? ", waiting for its PE, at balancing steps" : "",
          G < np ? "block of consecutive " : "", G < np ? (who[0] == 'V' ? "VPs (average)" : "ranks (average)") : who);
  double bh = G <= 32 ? 14 : G <= 64 ? 7 : 4, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"rank-bars-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          bh * (double)G + (n > 4 ? 86 : 66));
  for (size_t g = 0; g < G; g++) {
    size_t lo = (g * np + G - 1) / G, hi = ((g + 1) * np + G - 1) / G;
    double v[NPARTS];
    rank_parts(ranks, lo, hi, T, v);
    double k = hi > lo ? (double)(hi - lo) : 1;
    for (int j = 0; j < NPARTS; j++) v[j] /= k;
    double y = bh * (double)g, x = LEFT;
    if (g % (size_t)ceil(12 / bh) == 0) row_label(f, y, bh, (long)lo, (long)hi - 1, who);
    for (int q = 0; q < n; q++) {
      int j = idx[q];
      double w = T > 0 ? pw * v[j] / T : 0;
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s: %.6g s</title></rect>\n",
              x, y, w, bh - 1, PART_FILL(j), PART_NAME[j], v[j]);
      x += w;
    }
  }
  obs_svg_ylabel(f, 14, bh * (double)G / 2, G < np ? (who[0] == 'V' ? "VPs (blocks)" : "ranks (blocks)") : who);
  obs_svg_time_axis(f, LEFT, pw, bh * (double)G + 4, 0, T);
  parts_legend(f, idx, n, LEFT, bh * (double)G + 30, NULL);
  fputs("</svg></section>\n", f);
}

/* ---- critical path: its split, its top contributors (the band is on the timeline) ---- */
static void critical_path(FILE *f, const jv *doc) {
  fputs("<section id=\"critical-path\"><h2>Critical path</h2>\n", f);
  const jv *cp = jv_get(doc, "critical_path");
  if (!cp) { missing(f, "critical path"); fputs("</section>\n", f); return; }
  static const char *const KEY[5] = {"compute", "transfer", "overhead", "wait", "pe_wait"};
  static const char *const NAME[5] = {"computation", "transfers", "MPI overheads", "waiting", "waiting for its PE"};
  static const int ST[5] = {OBS_ST_COMPUTE, OBS_ST_SEND, OBS_ST_RECV, OBS_ST_WAIT, OBS_ST_PE};
  double L = jv_num(jv_get(cp, "length"), 0), v[5];
  for (int i = 0; i < 5; i++) v[i] = jv_num(jv_get(cp, KEY[i]), 0);
  char lb[32];
  obs_fmt_time(lb, sizeof lb, L);
  fprintf(f, "<p>The chain of computations and messages that fixed the makespan (%s), ending on rank %.0f; it is the "
             "band above the timeline's rows.</p>\n", lb, jv_num(jv_get(cp, "last_rank"), -1));
  fprintf(f, "<svg id=\"critical-path-chart\" class=\"chart\" width=\"%d\" height=\"90\" xmlns=\"http://www.w3.org/2000/svg\">\n", W);
  double x = 1;
  for (int i = 0; i < 5; i++) {
    double w = L > 0 ? (W - 2.0) * v[i] / L : 0;
    fprintf(f, "<rect class=\"part\" data-part=\"%s\" data-seconds=\"%.9g\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"24\" "
               "fill=\"%s\"><title>%s: %.6g s</title></rect>\n", KEY[i], v[i], x, w, obs_state_colour(ST[i]), NAME[i], v[i]);
    x += w;
  }
  fprintf(f, "<line x1=\"1\" y1=\"26\" x2=\"%d\" y2=\"26\" stroke=\"#444\"/>", W - 1);
  for (int i = 0; i <= 4; i++) {
    double xt = 1 + (W - 2.0) * i / 4;
    fprintf(f, "<line x1=\"%.1f\" y1=\"26\" x2=\"%.1f\" y2=\"30\" stroke=\"#444\"/><text x=\"%.1f\" y=\"41\" "
               "text-anchor=\"%s\">%d %%</text>", xt, xt, xt, i == 0 ? "start" : i == 4 ? "end" : "middle", 25 * i);
  }
  fprintf(f, "\n<text class=\"axis-label\" x=\"%.0f\" y=\"41\" text-anchor=\"middle\">share of the path's length</text>\n", W * 0.375);
  fputs("<g class=\"legend\">", f);
  for (int i = 0; i < 5; i++)
    fprintf(f, "<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"64\">%s %.1f %%</text>",
            i * 190, obs_state_colour(ST[i]), i * 190 + 16, NAME[i], L > 0 ? 100 * v[i] / L : 0);
  fputs("</g>\n</svg>\n", f);
  /* top contributors: where to look in the code */
  const jv *top = jv_get(cp, "top");
  if (jv_len(top)) {
    fputs("<h3>Top contributors</h3>\n<table class=\"grid\" id=\"cp-top\"><tr><th>rank</th><th>part</th><th>action</th>"
          "<th>source</th><th>times on the path</th><th>time (s)</th><th>share</th></tr>\n", f);
    for (size_t i = 0; i < jv_len(top); i++) {
      const jv *t = jv_at(top, i);
      double tt = jv_num(jv_get(t, "time"), 0);
      fprintf(f, "<tr><td>%.0f</td><td>", jv_num(jv_get(t, "rank"), 0));
      obs_html_esc(f, jv_str(jv_get(t, "part"), "?"));
      fputs("</td><td>", f);
      if (!strcmp(jv_str(jv_get(t, "part"), ""), "transfer")) fprintf(f, "message from rank %.0f", jv_num(jv_get(t, "from"), -1));
      else obs_html_esc(f, jv_str(jv_get(t, "action"), "(end of trace)"));
      fputs("</td><td style=\"text-align:left\">", f);
      const char *file = jv_str(jv_get(t, "file"), NULL);
      if (file) obs_html_esc(f, file);
      if (file && jv_num(jv_get(t, "line"), 0) > 0) fprintf(f, ":%.0f", jv_num(jv_get(t, "line"), 0));
      fprintf(f, "</td><td>%.0f</td><td>%.6g</td><td>%.1f %%</td></tr>\n", jv_num(jv_get(t, "count"), 0), tt,
              L > 0 ? 100 * tt / L : 0);
    }
    fputs("</table>\n", f);
  }
  fputs("<h3>Per rank</h3>\n<table class=\"grid\"><tr><th>rank</th><th>computation (s)</th><th>transfers (s)</th>"
        "<th>MPI overheads (s)</th><th>waiting (s)</th><th>waiting for its PE (s)</th></tr>\n", f);
  const jv *pr = jv_get(cp, "ranks");
  for (size_t i = 0; i < jv_len(pr) && i < 64; i++) {
    const jv *r = jv_at(pr, i);
    fprintf(f, "<tr><td>%.0f</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td></tr>\n",
            jv_num(jv_get(r, "rank"), 0), jv_num(jv_get(r, "compute"), 0), jv_num(jv_get(r, "transfer"), 0),
            jv_num(jv_get(r, "overhead"), 0), jv_num(jv_get(r, "wait"), 0), jv_num(jv_get(r, "pe_wait"), 0));
  }
  if (jv_len(pr) > 64) fprintf(f, "<tr><td colspan=\"6\">(%zu more ranks)</td></tr>\n", jv_len(pr) - 64);
  fputs("</table></section>\n", f);
}

static const char *CSS =
    "body{font:14px/1.4 sans-serif;margin:24px auto;max-width:1000px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
    "h3{font-size:15px}svg.chart{display:block;margin:8px 0;font-size:11px;overflow:visible}svg text{fill:#333}"
    "table.kv th{text-align:left;padding-right:16px;font-weight:normal;color:#555}"
    "table.grid{border-collapse:collapse}table.grid td,table.grid th{border:1px solid #ddd;padding:2px 8px;text-align:right}"
    ".note{color:#777;font-style:italic}pre{margin:0;white-space:pre-wrap}"
    "figure.chart{margin:8px 0}.axis-label{font-size:11px;color:#333}div.axis-label.x{margin-left:120px}"
    "div.legend{font-size:12px;margin:4px 0 0 120px}.key{margin-right:14px;white-space:nowrap}"
    ".key i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}"
    "canvas{display:block;cursor:crosshair}.tools{margin:4px 0 4px 120px;font-size:12px}"
    ".tip{position:absolute;display:none;background:#fff;border:1px solid #888;padding:2px 6px;font-size:12px;"
    "pointer-events:none;white-space:nowrap;z-index:2}";

void obs_report_head(FILE *f, const char *title, const char *command) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>psim report: ", f);
  obs_html_esc(f, title);
  fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>psim ", CSS);
  obs_html_esc(f, command);
  fputs(" report</h1>\n<p>", f);
  obs_html_esc(f, title);
  fputs("</p>\n", f);
}

void obs_report_tail(FILE *f) {
  /* when the page was read and loaded (ms after navigation), for bench/report_bench.sh */
  fputs("<p class=\"note\">Written by psim; every chart is drawn from the result document by this file alone "
        "(inline SVG and one inline script), nothing is fetched.</p>\n<script>document.body.setAttribute("
        "'data-parsed-ms',Math.round(performance.now()));window.addEventListener('load',function(){"
        "document.body.setAttribute('data-load-ms',Math.round(performance.now()))})</script>\n</body></html>\n", f);
}

/* One run's page (doc is a replay, run or lb result). */
static void run_page(FILE *f, const jv *doc, const char *title) {
  char *line = NULL;
  const jv *av = jv_get(doc, "argv");
  if (jv_len(av)) {   /* psim run: the page is named after the program's command line */
    size_t n = 0;
    FILE *m = open_memstream(&line, &n);
    if (m) { fputs("program: ", m); command_line(m, av, 0); fclose(m); }
  }
  obs_report_head(f, line ? line : title, jv_str(jv_get(doc, "command"), "replay"));
  free(line);
  summary(f, doc);
  /* psim lb's per-iteration views come first: they are what such a run is about */
  const jv *it = jv_get(doc, "iterations");
  if (it && it->type == JV_OBJ) obs_report_lb(f, doc);
  obs_report_model(f, doc);
  obs_report_timeline(f, doc);
  if (jv_get(doc, "pes") && jv_get(doc, "pe_timeline")) obs_report_pe_timeline(f, doc);
  load_views(f, doc);
  comm_matrix(f, doc);
  rank_bars(f, doc);
  critical_path(f, doc);
  obs_report_tail(f);
}

int obs_is_run_doc(const jv *doc) {
  return doc && doc->type == JV_OBJ && jv_get(doc, "ranks") && jv_get(doc, "simulated_time");
}

int obs_write_report(FILE *f, const char *json_text, size_t len, const char *title, psim_err *err) {
  const char *texts[1] = {json_text};
  size_t lens[1] = {len};
  const char *titles[1] = {title};
  return obs_write_report_many(f, texts, lens, titles, 1, err);
}

int obs_write_report_many(FILE *f, const char *const *texts, const size_t *lens, const char *const *titles, int n,
                          psim_err *err) {
  char msg[256];
  jv **docs = xcalloc((size_t)(n > 0 ? n : 1), sizeof *docs);
  int rc = 0;
  for (int i = 0; i < n; i++)
    if (!(docs[i] = jv_parse(texts[i], lens[i], msg, sizeof msg))) { rc = psim_errf(err, PSIM_EXIT_INPUT, titles[i], 0, "%s", msg); goto out; }
  if (n == 1) {
    const jv *doc = docs[0];
    int sens = doc->type == JV_OBJ && !strcmp(jv_str(jv_get(doc, "command"), ""), "sensitivity");
    if (sens && jv_get(doc, "variants") && jv_get(doc, "base")) {
      /* psim sensitivity --json: its own page (no run to draw, one table and the tornado) */
      obs_report_head(f, titles[0], "sensitivity");
      obs_report_sensitivity(f, doc);
      obs_report_tail(f);
      goto out;
    }
    if (obs_is_run_doc(doc)) { run_page(f, doc, titles[0]); goto out; }
  }
  /* several documents, or one holding several runs (psim lb's list, a sweep): compare them */
  rc = obs_report_compare(f, (const jv *const *)docs, titles, n, err);
out:
  for (int i = 0; i < n; i++) jv_free(docs[i]);
  free(docs);
  return rc;
}
