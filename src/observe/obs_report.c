/* The HTML report: one self-contained file (inline CSS and SVG, no script, no font, nothing
 * fetched) drawn from a replay's JSON document, so it opens offline, in any browser, years
 * later. Sections: summary and where time goes, Gantt chart of the ranks (every action when
 * they fit, else time bins per group of ranks), load heatmap, average load over time, the
 * communication matrix, per-rank time bars, the critical path. Sections whose data the
 * document lacks (written without --report/--timeline) say how to get it. A psim lb document
 * adds its per-iteration views (obs_report_lb.c); a psim sensitivity document is a page of its
 * own, the table and the tornado chart (obs_report_sens.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/observe.h"

enum { W = OBS_W, LEFT = OBS_LEFT, RIGHT = OBS_RIGHT, MAX_RECTS = 40000, MAX_ROWS = 128 };
static const char *const CAT_FILL[OBS_NCATS] = {"#3a9d3a", "#3366cc", "#d9452b", "#ee9a1a", "#999999"};

static void legend(FILE *f, double x, double y) {
  for (int c = 0; c < OBS_NCATS; c++)
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
            x + c * 110, y, CAT_FILL[c], x + c * 110 + 16, y + 10, obs_category_name(c));
}

static void missing(FILE *f, const char *what) {
  fprintf(f, "<p class=\"note\">No %s in this document: write it with <code>psim replay --report FILE.html</code> "
             "or <code>psim replay --json FILE --timeline</code>.</p>\n", what);
}

/* ---- where the time goes: the parts of a rank's time (rank_stats), then idle ----
 * psim lb documents (with "pes") add the time VPs wait for their PE and at balancing steps. */
enum { NPARTS = 6 };
static const char *const PART_KEY[NPARTS - 1] = {"compute_time", "comm_time", "wait_time", "pe_wait_time", "lb_time"};
static const char *const PART_NAME[NPARTS] = {"computing", "communicating", "waiting for messages",
                                              "waiting for a PE", "at balancing steps", "idle after finishing"};
static const char *const PART_FILL[NPARTS] = {"#3a9d3a", "#3366cc", "#d9452b", "#b07cc6", "#8c6d31", "#dddddd"};

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

/* ---- summary ---- */
static void summary(FILE *f, const jv *doc, double *eff_out) {
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
  *eff_out = eff;
  char tb[32], bb[32];
  obs_fmt_time(tb, sizeof tb, T);
  obs_fmt_bytes(bb, sizeof bb, jv_num(jv_get(doc, "bytes"), 0));
  fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n", f);
  fprintf(f, "<tr><th>simulated time (makespan)</th><td>%s (%.9g s)</td></tr>\n", tb, T);
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
  fputs("</td></tr>\n<tr><th>traces</th><td>", f);
  const jv *tr = jv_get(doc, "traces");
  for (size_t i = 0; i < jv_len(tr) && i < 8; i++) { if (i) fputs(", ", f); obs_html_esc(f, jv_str(jv_at(tr, i), "")); }
  if (jv_len(tr) > 8) fprintf(f, " (and %zu more)", jv_len(tr) - 8);
  fprintf(f, "</td></tr>\n<tr><th>actions / messages / bytes</th><td>%.0f / %.0f / %s</td></tr>\n",
          jv_num(jv_get(doc, "actions"), 0), jv_num(jv_get(doc, "messages"), 0), bb);
  fprintf(f, "<tr><th>efficiency</th><td>%.1f %% (computation / (%s &times; makespan))</td></tr>\n", 100 * eff,
          jv_get(doc, "pes") ? "PEs" : "ranks");
  const jv *dl = jv_get(doc, "deadlock");
  if (dl && dl->type == JV_STR) { fputs("<tr><th>deadlock</th><td><pre>", f); obs_html_esc(f, dl->str); fputs("</pre></td></tr>\n", f); }
  fprintf(f, "</table>\n<h3>Where the %s' time goes</h3>\n", who);
  int idx[NPARTS], n = parts_of(doc, idx);
  fprintf(f, "<svg id=\"time-split\" class=\"chart\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, n > 4 ? 80 : 60);
  double x = 0;
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    double w = tot > 0 ? (W - 2.0) * parts[i] / tot : 0;
    fprintf(f, "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"28\" fill=\"%s\"><title>%s: %.1f %%</title></rect>\n",
            x + 1, w, PART_FILL[i], PART_NAME[i], tot > 0 ? 100 * parts[i] / tot : 0.0);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s %.1f %%</text>\n",
            (k % 4) * 230, 40 + 20 * (k / 4), PART_FILL[i], (k % 4) * 230 + 16, 50 + 20 * (k / 4), PART_NAME[i],
            tot > 0 ? 100 * parts[i] / tot : 0.0);
    x += w;
  }
  fputs("</svg></section>\n", f);
}

/* ---- Gantt chart ---- */
static void gantt(FILE *f, const jv *doc) {
  fputs("<section id=\"gantt\"><h2>Gantt chart of the ranks</h2>\n", f);
  const jv *tl = jv_get(doc, "timeline");
  if (!tl) { missing(f, "timeline"); fputs("</section>\n", f); return; }
  double T = jv_num(jv_get(tl, "end"), 0);
  const jv *ranks = jv_get(tl, "ranks");
  size_t np = jv_len(ranks), nrect = 0;
  for (size_t r = 0; r < np; r++) nrect += jv_len(jv_at(ranks, r)) / 3;
  double pw = W - LEFT - RIGHT;
  if (ranks && np <= MAX_ROWS && nrect <= MAX_RECTS && T > 0) {
    double rh = np <= 16 ? 20 : np <= 64 ? 8 : 4;
    double h = rh * (double)np + 60;
    fprintf(f, "<p>Every action of every rank (%zu intervals of one kind), coloured by the kind of call: "
               "a wait is red whether its messages are moving or not (the split above tells them "
               "apart). Hover for details.</p>\n", nrect);
    fprintf(f, "<svg id=\"gantt-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, h);
    for (size_t r = 0; r < np; r++) {
      double y = rh * (double)r;
      if (r % (size_t)ceil(12 / rh) == 0) fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">rank %zu</text>\n", LEFT - 6, y + rh * 0.8, r);
      const jv *a = jv_at(ranks, r);
      for (size_t i = 0; i + 2 < jv_len(a); i += 3) {
        double s = jv_num(jv_at(a, i), 0), e = jv_num(jv_at(a, i + 1), 0);
        int c = (int)jv_num(jv_at(a, i + 2), 4);
        if (c < 0 || c >= OBS_NCATS) c = OBS_CAT_OTHER;
        double x0 = LEFT + pw * s / T, w = pw * (e - s) / T;
        char bs[32], be[32];
        obs_fmt_time(bs, sizeof bs, s);
        obs_fmt_time(be, sizeof be, e);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>rank %zu %s %s - %s</title></rect>\n",
                x0, y, w < 0.3 ? 0.3 : w, rh - 1, CAT_FILL[c], r, obs_category_name(c), bs, be);
      }
    }
    obs_svg_time_axis(f, LEFT, pw, rh * (double)np + 4, 0, T);
    legend(f, LEFT, rh * (double)np + 30);
    fputs("</svg>\n", f);
  } else {
    /* Too many to draw one by one: the bins, one row per group of ranks, coloured by what
     * dominates (green computing, red in MPI, white idle), darker the fuller. */
    const jv *groups = jv_get(tl, "groups"), *comp = jv_get(tl, "compute"), *mpi = jv_get(tl, "mpi");
    size_t G = jv_len(groups), nb = (size_t)jv_num(jv_get(tl, "bins"), 0);
    double rh = G <= 16 ? 20 : 8, bw = nb ? pw / (double)nb : 0;
    fprintf(f, "<p>Aggregated: %zu rows (groups of ranks) &times; %zu time bins; green = computing, "
               "red = in MPI calls, white = idle, colour strength = share of the bin.</p>\n", G, nb);
    fprintf(f, "<svg id=\"gantt-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, rh * (double)G + 40);
    for (size_t g = 0; g < G; g++) {
      const jv *gr = jv_at(groups, g);
      double y = rh * (double)g;
      if (rh >= 20 || g % 4 == 0)
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">ranks %.0f-%.0f</text>\n", LEFT - 6, y + rh * 0.8,
                jv_num(jv_at(gr, 0), 0), jv_num(jv_at(gr, 1), 0));
      for (size_t b = 0; b < nb; b++) {
        double c = jv_num(jv_at(jv_at(comp, g), b), 0), m = jv_num(jv_at(jv_at(mpi, g), b), 0);
        int red = c >= m ? 0x3a : 0xd9, green = c >= m ? 0x9d : 0x45, blue = c >= m ? 0x3a : 0x2b;
        double k = c >= m ? c : m;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" fill-opacity=\"%.3f\"/>\n",
                LEFT + bw * (double)b, y, bw + 0.2, rh - 1, red, green, blue, k);
      }
    }
    obs_svg_time_axis(f, LEFT, pw, rh * (double)G + 4, 0, T);
    fputs("</svg>\n", f);
  }
  fputs("</section>\n", f);
}

/* ---- load heatmap and load over time ---- */
static void load_views(FILE *f, const jv *doc) {
  const jv *tl = jv_get(doc, "timeline");
  fputs("<section id=\"heatmap\"><h2>Load heatmap</h2>\n", f);
  if (!tl) { missing(f, "timeline"); fputs("</section>\n<section id=\"load-time\"><h2>Average load over time</h2>\n", f); missing(f, "timeline"); fputs("</section>\n", f); return; }
  double T = jv_num(jv_get(tl, "end"), 0), pw = W - LEFT - RIGHT;
  const jv *groups = jv_get(tl, "groups"), *comp = jv_get(tl, "compute");
  size_t G = jv_len(groups), nb = (size_t)jv_num(jv_get(tl, "bins"), 0);
  double rh = G <= 16 ? 20 : 8, bw = nb ? pw / (double)nb : 0;
  fprintf(f, "<p>Share of each time bin spent computing, per %s (%zu bins of %.4g s).</p>\n",
          G < jv_len(jv_get(doc, "ranks")) ? "group of ranks" : "rank", nb, jv_num(jv_get(tl, "bin_width"), 0));
  fprintf(f, "<svg id=\"heatmap-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, rh * (double)G + 40);
  for (size_t g = 0; g < G; g++) {
    const jv *gr = jv_at(groups, g);
    double y = rh * (double)g;
    double lo = jv_num(jv_at(gr, 0), 0), hi = jv_num(jv_at(gr, 1), 0);
    if ((rh >= 20 || g % 4 == 0) && hi > lo)
      fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">ranks %.0f-%.0f</text>\n", LEFT - 6, y + rh * 0.8, lo, hi);
    else if (rh >= 20 || g % 4 == 0)
      fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">rank %.0f</text>\n", LEFT - 6, y + rh * 0.8, lo);
    for (size_t b = 0; b < nb; b++) {
      double c = jv_num(jv_at(jv_at(comp, g), b), 0);
      /* white (idle) to dark blue (fully loaded) */
      int v = (int)(255 - 200 * c);
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,255)\"/>\n",
              LEFT + bw * (double)b, y, bw + 0.2, rh - 1, v, v);
    }
  }
  obs_svg_time_axis(f, LEFT, pw, rh * (double)G + 4, 0, T);
  fputs("</svg></section>\n", f);

  /* load over time: the ranks' average share computing per bin, i.e. the dynamic efficiency;
   * for psim lb the capacity is the PEs', and the balancing steps are marked */
  const jv *pes = jv_get(doc, "pes"), *steps = jv_get(doc, "steps");
  fprintf(f, "<section id=\"load-time\"><h2>Average load over time</h2>\n"
             "<p>Average over the %s of the share of each bin spent computing (dynamic efficiency: "
             "useful computation / (%s &times; bin width))%s.</p>\n", pes ? "PEs" : "ranks", pes ? "PEs" : "ranks",
          jv_len(steps) ? "; dashed lines: load-balancing steps" : "");
  double H = 200;
  fprintf(f, "<svg id=\"load-time-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H + 40);
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, 100 - 25 * i);
  fputs("<polyline fill=\"none\" stroke=\"#3366cc\" stroke-width=\"1.5\" points=\"", f);
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
    fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#b2182b\" stroke-dasharray=\"4 3\"/>\n",
            LEFT + pw * t / T, LEFT + pw * t / T, H);
  }
  fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>\n", LEFT, LEFT, H);
  obs_svg_time_axis(f, LEFT, pw, H, 0, T);
  fputs("</svg></section>\n", f);
}

/* ---- communication matrix ---- */
static void comm_matrix(FILE *f, const jv *doc) {
  fputs("<section id=\"comm-matrix\"><h2>Communication matrix</h2>\n", f);
  const jv *cm = jv_get(doc, "comm_matrix");
  if (!cm) { missing(f, "communication matrix"); fputs("</section>\n", f); return; }
  const jv *bytes = jv_get(cm, "bytes");
  size_t G = jv_len(bytes);
  size_t np = jv_len(jv_get(doc, "ranks"));
  double mx = 0;
  for (size_t a = 0; a < G; a++)
    for (size_t b = 0; b < G; b++) { double x = jv_num(jv_at(jv_at(bytes, a), b), 0); if (x > mx) mx = x; }
  double side = 480, cell = G ? side / (double)G : 0;
  fprintf(f, "<p>Bytes sent from a %s (row) to another (column), point-to-point and inside collectives; "
             "darker is more (logarithmic scale, largest %.4g B).</p>\n", G < np ? "group of ranks" : "rank", mx);
  fprintf(f, "<svg id=\"comm-matrix-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          (int)side + 160, side + 40);
  for (size_t a = 0; a < G; a++)
    for (size_t b = 0; b < G; b++) {
      double x = jv_num(jv_at(jv_at(bytes, a), b), 0);
      double k = x > 0 && mx > 0 ? 0.15 + 0.85 * log1p(x) / log1p(mx) : 0;
      int v = (int)(255 - 220 * k);
      fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"rgb(255,%d,%d)\" stroke=\"#eee\" stroke-width=\"0.3\"><title>%zu -&gt; %zu: %.6g B</title></rect>\n",
              40 + cell * (double)b, cell * (double)a, cell, cell, v, v, a, b, x);
    }
  fprintf(f, "<text x=\"40\" y=\"%.0f\">destination &rarr;</text><text x=\"30\" y=\"12\" text-anchor=\"end\">src</text>\n", side + 16);
  fputs("</svg></section>\n", f);
}

/* ---- per-rank bars ---- */
static void rank_bars(FILE *f, const jv *doc) {
  const jv *ranks = jv_get(doc, "ranks");
  size_t np = jv_len(ranks);
  double T = jv_num(jv_get(doc, "simulated_time"), 0);
  size_t G = np < MAX_ROWS ? np : MAX_ROWS;
  fputs("<section id=\"rank-bars\"><h2>Time of each rank</h2>\n", f);
  int idx[NPARTS], n = parts_of(doc, idx);
  fprintf(f, "<p>Computing, communicating (its own messages moving), waiting (in MPI, none of its messages moving)%s "
             "and idle after finishing, per %s.</p>\n", n > 4 ? ", waiting for its PE, at balancing steps" : "",
          G < np ? "group of ranks (average)" : "rank");
  double bh = G <= 32 ? 14 : G <= 64 ? 7 : 4, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"rank-bars-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          bh * (double)G + (n > 4 ? 80 : 60));
  for (size_t g = 0; g < G; g++) {
    size_t lo = (g * np + G - 1) / G, hi = ((g + 1) * np + G - 1) / G;
    double v[NPARTS];
    rank_parts(ranks, lo, hi, T, v);
    double k = hi > lo ? (double)(hi - lo) : 1;
    for (int j = 0; j < NPARTS; j++) v[j] /= k;
    double y = bh * (double)g, x = LEFT;
    if (g % (size_t)ceil(12 / bh) == 0) {
      if (hi - lo > 1) fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%zu-%zu</text>\n", LEFT - 6, y + bh * 0.85, lo, hi - 1);
      else fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">rank %zu</text>\n", LEFT - 6, y + bh * 0.85, lo);
    }
    for (int q = 0; q < n; q++) {
      int j = idx[q];
      double w = T > 0 ? pw * v[j] / T : 0;
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s: %.6g s</title></rect>\n",
              x, y, w, bh - 1, PART_FILL[j], PART_NAME[j], v[j]);
      x += w;
    }
  }
  obs_svg_time_axis(f, LEFT, pw, bh * (double)G + 4, 0, T);
  for (int q = 0; q < n; q++)
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s</text>\n",
            LEFT + (q % 4) * 170, bh * (double)G + 30 + 20 * (q / 4), PART_FILL[idx[q]], LEFT + (q % 4) * 170 + 16,
            bh * (double)G + 40 + 20 * (q / 4), PART_NAME[idx[q]]);
  fputs("</svg></section>\n", f);
}

/* ---- critical path ---- */
static void critical_path(FILE *f, const jv *doc) {
  fputs("<section id=\"critical-path\"><h2>Critical path</h2>\n", f);
  const jv *cp = jv_get(doc, "critical_path");
  if (!cp) { missing(f, "critical path"); fputs("</section>\n", f); return; }
  double L = jv_num(jv_get(cp, "length"), 0), c = jv_num(jv_get(cp, "compute"), 0),
         t = jv_num(jv_get(cp, "transfer"), 0), w = jv_num(jv_get(cp, "wait"), 0),
         o = jv_num(jv_get(cp, "overhead"), 0), pe = jv_num(jv_get(cp, "pe_wait"), 0);
  char lb[32];
  obs_fmt_time(lb, sizeof lb, L);
  fprintf(f, "<p>The chain of computations and messages that fixed the makespan (%s), ending on rank %.0f: "
             "%.1f %% computation, %.1f %% transfers, %.1f %% MPI overheads, %.1f %% waiting, "
             "%.1f %% waiting for a PE.</p>\n",
          lb, jv_num(jv_get(cp, "last_rank"), -1), L > 0 ? 100 * c / L : 0, L > 0 ? 100 * t / L : 0,
          L > 0 ? 100 * o / L : 0, L > 0 ? 100 * w / L : 0, L > 0 ? 100 * pe / L : 0);
  /* rows: the ranks the path visits, in rank order (at most MAX_ROWS, else one row) */
  const jv *segs = jv_get(cp, "segments");
  size_t ns = jv_len(segs);
  int np = (int)jv_len(jv_get(doc, "ranks"));
  if (np <= 0) np = 1;
  int *row = xmalloc((size_t)np * sizeof *row);
  for (int i = 0; i < np; i++) row[i] = -1;
  for (size_t i = 0; i < ns; i++) {
    const jv *s = jv_at(segs, i);
    int a = (int)jv_num(jv_at(s, 2), -1), b = (int)jv_num(jv_at(s, 3), -1);
    if (a >= 0 && a < np) row[a] = 0;
    if (b >= 0 && b < np) row[b] = 0;
  }
  int nrows = 0;
  for (int i = 0; i < np; i++) if (row[i] == 0) row[i] = nrows++;
  int one_row = nrows > MAX_ROWS || nrows == 0;
  if (one_row) nrows = 1;
  double rh = nrows <= 16 ? 18 : 6, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"critical-path-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          W, rh * nrows + 60);
  for (int i = 0; i < np && !one_row; i++)
    if (row[i] >= 0 && (rh >= 18 || row[i] % 8 == 0))
      fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">rank %d</text>\n", LEFT - 6, rh * row[i] + rh * 0.75, i);
  size_t drawn = 0;
  for (size_t i = 0; i < ns && drawn < MAX_RECTS; i++, drawn++) {
    const jv *s = jv_at(segs, i);
    double a = jv_num(jv_at(s, 0), 0), e = jv_num(jv_at(s, 1), 0);
    int r = (int)jv_num(jv_at(s, 2), 0), p = (int)jv_num(jv_at(s, 3), -1);
    const char *what = jv_str(jv_at(s, 4), "");
    double x0 = L > 0 ? LEFT + pw * a / L : LEFT, x1 = L > 0 ? LEFT + pw * e / L : LEFT;
    int yr = one_row || r < 0 || r >= np ? 0 : row[r];
    if (!strcmp(what, "transfer")) {
      int ys = one_row || p < 0 || p >= np ? 0 : row[p];
      fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"><title>transfer %d -&gt; %d</title></line>\n",
              x0, rh * ys + rh / 2, x1 < x0 + 0.5 ? x0 + 0.5 : x1, rh * yr + rh / 2, CAT_FILL[OBS_CAT_P2P], p, r);
    } else {
      const char *fill = !strcmp(what, "compute") ? PART_FILL[0] : !strcmp(what, "overhead") ? PART_FILL[1]
                         : !strcmp(what, "pe_wait") ? PART_FILL[3] : PART_FILL[2];
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>rank %d %s %.6g s</title></rect>\n",
              x0, rh * yr + 2, x1 - x0 < 0.3 ? 0.3 : x1 - x0, rh - 4, fill, r, what, e - a);
    }
  }
  obs_svg_time_axis(f, LEFT, pw, rh * nrows + 4, 0, L);
  fputs("</svg>\n<table class=\"grid\"><tr><th>rank</th><th>computation (s)</th><th>transfers (s)</th>"
        "<th>MPI overheads (s)</th><th>waiting (s)</th><th>waiting for a PE (s)</th></tr>\n", f);
  const jv *pr = jv_get(cp, "ranks");
  for (size_t i = 0; i < jv_len(pr) && i < 64; i++) {
    const jv *x = jv_at(pr, i);
    fprintf(f, "<tr><td>%.0f</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td></tr>\n",
            jv_num(jv_get(x, "rank"), 0), jv_num(jv_get(x, "compute"), 0), jv_num(jv_get(x, "transfer"), 0),
            jv_num(jv_get(x, "overhead"), 0), jv_num(jv_get(x, "wait"), 0), jv_num(jv_get(x, "pe_wait"), 0));
  }
  if (jv_len(pr) > 64) fprintf(f, "<tr><td colspan=\"6\">(%zu more ranks)</td></tr>\n", jv_len(pr) - 64);
  fputs("</table></section>\n", f);
  free(row);
}

static const char *CSS =
    "body{font:14px/1.4 sans-serif;margin:24px auto;max-width:1000px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
    "h3{font-size:15px}svg.chart{display:block;margin:8px 0;font-size:11px;overflow:visible}svg text{fill:#333}"
    "table.kv th{text-align:left;padding-right:16px;font-weight:normal;color:#555}"
    "table.grid{border-collapse:collapse}table.grid td,table.grid th{border:1px solid #ddd;padding:2px 8px;text-align:right}"
    ".note{color:#777;font-style:italic}pre{margin:0;white-space:pre-wrap}";

static void head(FILE *f, const char *title, const jv *doc) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>psim report: ", f);
  obs_html_esc(f, title);
  fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>psim ", CSS);
  obs_html_esc(f, jv_str(jv_get(doc, "command"), "replay"));
  fputs(" report</h1>\n<p>", f);
  obs_html_esc(f, title);
  fputs("</p>\n", f);
}

static void tail(FILE *f) {
  fputs("<p class=\"note\">Written by psim; every chart is drawn from the result document, no script or "
        "external resource is used.</p>\n</body></html>\n", f);
}

int obs_write_report(FILE *f, const char *json_text, size_t len, const char *title, psim_err *err) {
  char msg[256];
  jv *doc = jv_parse(json_text, len, msg, sizeof msg);
  if (!doc) return psim_errf(err, 2, title, 0, "%s", msg);
  int sens = doc->type == JV_OBJ && !strcmp(jv_str(jv_get(doc, "command"), ""), "sensitivity");
  if (sens && jv_get(doc, "variants") && jv_get(doc, "base")) {
    /* psim sensitivity --json: its own page (no run to draw, one table and the tornado) */
    head(f, title, doc);
    obs_report_sensitivity(f, doc);
    tail(f);
    jv_free(doc);
    return 0;
  }
  if (doc->type != JV_OBJ || !jv_get(doc, "ranks") || !jv_get(doc, "simulated_time")) {
    jv_free(doc);
    return psim_errf(err, 2, title, 0,
                     "not a psim result (no \"ranks\" or \"simulated_time\"): write one with psim replay --json "
                     "--timeline, psim lb --json --timeline or psim sensitivity --json");
  }
  head(f, title, doc);
  double eff;
  summary(f, doc, &eff);
  /* psim lb's per-iteration views come first: they are what such a run is about */
  if (jv_get(doc, "iterations")) obs_report_lb(f, doc);
  gantt(f, doc);
  load_views(f, doc);
  comm_matrix(f, doc);
  rank_bars(f, doc);
  critical_path(f, doc);
  tail(f);
  jv_free(doc);
  return 0;
}
