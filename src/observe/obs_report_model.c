/* The report's sections for the model features (issue 10), each drawn only when the document
 * has its section:
 *   "cpu_model" + "hosts": CPU-seconds per host, stacked: the application, its communication,
 *                          the background processes;
 *   "loadavg":             each host's load average (1, 5, 15 min) over simulated time;
 *   "iterations" (array):  dynamic efficiency per iteration, with the hosts allocated;
 *   "host_events":         a table of the hosts removed and added (also markers on the
 *                          timeline, obs_report_tl.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/observe.h"

enum { W = OBS_W, LEFT = OBS_LEFT, RIGHT = OBS_RIGHT, MAX_HOSTS = 64, MAX_CURVES = 8 };


static void host_cpu(FILE *f, const jv *doc) {
  const jv *hosts = jv_get(doc, "hosts"), *cm = jv_get(doc, "cpu_model");
  size_t n = jv_len(hosts);
  if (!n) return;
  static const char *const KEY[3] = {"cpu_app", "cpu_comm", "cpu_background"};
  static const char *const NAME[3] = {"application (compute)", "communication (send/receive CPU)", "background processes"};
  static const char *const COL[3] = {"#2e9e44", "#2f6fd6", "#7f7f7f"};
  fputs("<section id=\"host-cpu\"><h2>CPU use per host</h2>\n<p>CPU-seconds each host gave to the application, to its "
        "communication and to background processes", f);
  if (cm) {
    fprintf(f, " (send cost %.4g, receive cost %.4g, application nice %.0f, background: ", jv_num(jv_get(cm, "send_cost"), 0),
            jv_num(jv_get(cm, "recv_cost"), 0), jv_num(jv_get(cm, "app_nice"), 0));
    obs_html_esc(f, jv_str(jv_get(cm, "background"), "none"));
    fputc(')', f);
  }
  size_t G = n < MAX_HOSTS ? n : MAX_HOSTS;
  fprintf(f, "%s.</p>\n", G < n ? "; hosts are summed in blocks" : "");
  double mx = 0;
  double *v = xcalloc(G * 3, sizeof *v);
  for (size_t g = 0; g < G; g++) {
    size_t lo = g * n / G, hi = (g + 1) * n / G;
    double s = 0;
    for (size_t i = lo; i < hi; i++)
      for (int k = 0; k < 3; k++) v[g * 3 + k] += jv_num(jv_get(jv_at(hosts, i), KEY[k]), 0);
    for (int k = 0; k < 3; k++) s += v[g * 3 + k];
    if (s > mx) mx = s;
  }
  if (!(mx > 0)) mx = 1;
  double bh = G <= 16 ? 16 : 7, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"host-cpu-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          bh * (double)G + 70);
  for (size_t g = 0; g < G; g++) {
    size_t lo = g * n / G, hi = (g + 1) * n / G;
    double x = LEFT, y = bh * (double)g;
    if (bh >= 16 || g % 2 == 0) {
      fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 6, y + bh * 0.75);
      obs_html_esc(f, jv_str(jv_get(jv_at(hosts, lo), "host"), "?"));
      if (hi - lo > 1) fprintf(f, " (+%zu)", hi - lo - 1);
      fputs("</text>", f);
    }
    for (int k = 0; k < 3; k++) {
      double w = pw * v[g * 3 + k] / mx;
      fprintf(f, "<rect class=\"cpu-%d\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>%s: %.6g s</title></rect>",
              k, x, y, w, bh - 2, COL[k], NAME[k], v[g * 3 + k]);
      x += w;
    }
    fputc('\n', f);
  }
  double y = bh * (double)G + 2;
  fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", LEFT, y, LEFT + pw, y);
  for (int k = 0; k <= 4; k++)
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.4g</text>\n",
            LEFT + pw * k / 4, y, LEFT + pw * k / 4, y + 4, LEFT + pw * k / 4, y + 16, mx * k / 4);
  fprintf(f, "<text class=\"axis-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">CPU-seconds</text>\n", LEFT - 6, y + 16);
  obs_svg_ylabel(f, 12, bh * (double)G / 2, "host");
  fputs("<g class=\"legend\">", f);
  for (int k = 0; k < 3; k++)
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s</text>", LEFT + k * 260,
            y + 30, COL[k], LEFT + k * 260 + 16, y + 40, NAME[k]);
  fputs("</g>\n</svg></section>\n", f);
  free(v);
}

static void loadavg(FILE *f, const jv *doc) {
  const jv *la = jv_get(doc, "loadavg"), *hosts = jv_get(la, "hosts"), *labels = jv_get(la, "labels");
  if (!jv_len(hosts)) return;
  size_t nh = jv_len(hosts), shown = nh < MAX_CURVES ? nh : MAX_CURVES;
  double T = 0, mx = 1;
  for (size_t h = 0; h < shown; h++) {
    const jv *s = jv_get(jv_at(hosts, h), "samples");
    for (size_t i = 0; i < jv_len(s); i++) {
      const jv *p = jv_at(s, i);
      if (jv_num(jv_at(p, 0), 0) > T) T = jv_num(jv_at(p, 0), 0);
      for (int k = 1; k <= 3; k++) if (jv_num(jv_at(p, (size_t)k), 0) > mx) mx = jv_num(jv_at(p, (size_t)k), 0);
    }
  }
  mx = ceil(mx);
  fprintf(f, "<section id=\"loadavg\"><h2>Load average</h2>\n<p>Each host's load average (runnable processes, "
             "exponentially averaged as Unix does, every %.4g s)%s: solid 1 min, dashed 5 min, dotted 15 min.</p>\n",
          jv_num(jv_get(la, "period"), 0), shown < nh ? " for the first hosts" : "");
  double H = 200, pw = W - LEFT - RIGHT;
  fprintf(f, "<svg id=\"loadavg-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          H + 60 + 18.0 * (double)((shown + 3) / 4));
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, mx * (4 - i) / 4);
  static const char *const DASH[3] = {"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 2\""};
  static const char *const HOSTCOL[MAX_CURVES] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999933"};
  for (size_t h = 0; h < shown; h++) {
    const jv *s = jv_get(jv_at(hosts, h), "samples");
    for (int k = 1; k <= 3; k++) {
      fprintf(f, "<polyline class=\"loadavg-curve\" fill=\"none\" stroke=\"%s\"%s stroke-width=\"1.3\" points=\"", HOSTCOL[h], DASH[k - 1]);
      for (size_t i = 0; i < jv_len(s); i++) {
        const jv *p = jv_at(s, i);
        fprintf(f, "%.1f,%.1f ", LEFT + (T > 0 ? pw * jv_num(jv_at(p, 0), 0) / T : 0), H * (1 - jv_num(jv_at(p, (size_t)k), 0) / mx));
      }
      fputs("\"/>\n", f);
    }
  }
  obs_svg_ylabel(f, 40, H / 2, "load average (processes)");
  obs_svg_time_axis(f, LEFT, pw, H, 0, T);
  fputs("<g class=\"legend\">", f);
  for (size_t h = 0; h < shown; h++) {
    double x = LEFT + (double)(h % 4) * 200, y = H + 36 + 18 * (double)(h / 4);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"3\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">", x, y, HOSTCOL[h], x + 18, y + 5);
    obs_html_esc(f, jv_str(jv_get(jv_at(hosts, h), "host"), "?"));
    fputs("</text>", f);
  }
  fprintf(f, "<text x=\"%d\" y=\"%.0f\">lines: %s solid, %s dashed, %s dotted</text>", LEFT,
          H + 54 + 18 * (double)((shown - 1) / 4), jv_str(jv_at(labels, 0), "1min"), jv_str(jv_at(labels, 1), "5min"),
          jv_str(jv_at(labels, 2), "15min"));
  fputs("</g>\n</svg></section>\n", f);
}

static void iterations(FILE *f, const jv *doc) {
  const jv *it = jv_get(doc, "iterations");
  size_t n = jv_len(it);
  if (!it || it->type != JV_ARR || !n) return;
  double Tm = 0;
  for (size_t i = 0; i < n; i++) if (jv_num(jv_get(jv_at(it, i), "end"), 0) > Tm) Tm = jv_num(jv_get(jv_at(it, i), "end"), 0);
  fputs("<section id=\"dyn-efficiency\"><h2>Dynamic efficiency per iteration</h2>\n<p>Useful computation of each "
        "iteration divided by (hosts allocated &times; its duration); the step line is the hosts allocated", f);
  const jv *ps = jv_get(doc, "processor_seconds");
  if (ps) fprintf(f, "; %.6g processor-seconds in all", jv_num(ps, 0));
  fputs(".</p>\n", f);
  double H = 200, pw = W - LEFT - RIGHT, hmax = 1;
  for (size_t i = 0; i < n; i++) if (jv_num(jv_get(jv_at(it, i), "hosts_allocated"), 0) > hmax) hmax = jv_num(jv_get(jv_at(it, i), "hosts_allocated"), 0);
  fprintf(f, "<svg id=\"dyn-efficiency-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, H + 60);
  for (int i = 0; i <= 4; i++)
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>"
               "<text x=\"%d\" y=\"%.1f\">%.3g</text>\n",
            LEFT, H * i / 4, W - RIGHT, H * i / 4, LEFT - 6, H * i / 4 + 4, 100 - 25 * i, W - RIGHT + 4, H * i / 4 + 4, hmax * (4 - i) / 4);
  fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", obs_state_colour(OBS_ST_COMPUTE));
  for (size_t i = 0; i < n; i++) {
    const jv *x = jv_at(it, i);
    double e = jv_num(jv_get(x, "efficiency"), 0), t = (jv_num(jv_get(x, "start"), 0) + jv_num(jv_get(x, "end"), 0)) / 2;
    fprintf(f, "%.1f,%.1f ", LEFT + (Tm > 0 ? pw * t / Tm : 0), H * (1 - (e > 1 ? 1 : e < 0 ? 0 : e)));
  }
  fputs("\"/>\n<polyline fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 2\" points=\"", f);
  for (size_t i = 0; i < n; i++) {
    const jv *x = jv_at(it, i);
    double h = jv_num(jv_get(x, "hosts_allocated"), 0), y = H * (1 - h / hmax);
    fprintf(f, "%.1f,%.1f %.1f,%.1f ", LEFT + (Tm > 0 ? pw * jv_num(jv_get(x, "start"), 0) / Tm : 0), y,
            LEFT + (Tm > 0 ? pw * jv_num(jv_get(x, "end"), 0) / Tm : 0), y);
  }
  fputs("\"/>\n", f);
  for (size_t i = 0; i < jv_len(jv_get(doc, "host_events")) && Tm > 0; i++) {
    double t = jv_num(jv_get(jv_at(jv_get(doc, "host_events"), i), "date"), 0);
    fprintf(f, "<line class=\"host-event\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#b2182b\" stroke-dasharray=\"3 3\"/>\n",
            LEFT + pw * t / Tm, LEFT + pw * t / Tm, H);
  }
  obs_svg_ylabel(f, 40, H / 2, "efficiency (%)");
  obs_svg_time_axis(f, LEFT, pw, H, 0, Tm);
  fprintf(f, "<g class=\"legend\"><rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"3\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">efficiency "
             "of the iteration</text><rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"2\" fill=\"#555\"/><text x=\"%d\" y=\"%.0f\">hosts "
             "allocated (right scale)</text><rect x=\"%d\" y=\"%.0f\" width=\"2\" height=\"10\" fill=\"#b2182b\"/><text x=\"%d\" y=\"%.0f\">"
             "host event</text></g>\n", LEFT, H + 36, obs_state_colour(OBS_ST_COMPUTE), LEFT + 18, H + 41, LEFT + 230, H + 36,
          LEFT + 248, H + 41, LEFT + 460, H + 32, LEFT + 466, H + 41);
  fputs("</svg></section>\n", f);
}

static void host_events(FILE *f, const jv *doc) {
  const jv *ev = jv_get(doc, "host_events");
  if (!jv_len(ev)) return;
  fputs("<section id=\"host-events\"><h2>Host events</h2>\n<p>Hosts removed from or added to the run (dashed lines "
        "on the timeline), and the ranks they moved.</p>\n<table class=\"grid\"><tr><th>date (s)</th><th>iteration</th>"
        "<th>action</th><th>hosts</th><th>ranks moved</th><th>bytes moved</th><th>moves done at (s)</th></tr>\n", f);
  for (size_t i = 0; i < jv_len(ev); i++) {
    const jv *e = jv_at(ev, i), *hs = jv_get(e, "hosts"), *mv = jv_get(e, "moves"), *it = jv_get(e, "iteration");
    double bytes = 0, end = 0;
    for (size_t k = 0; k < jv_len(mv); k++) {
      bytes += jv_num(jv_get(jv_at(mv, k), "bytes"), 0);
      if (jv_num(jv_get(jv_at(mv, k), "end"), 0) > end) end = jv_num(jv_get(jv_at(mv, k), "end"), 0);
    }
    fprintf(f, "<tr><td>%.9g</td><td>", jv_num(jv_get(e, "date"), 0));
    if (it && it->type == JV_NUM) fprintf(f, "%.0f", it->num); else fputs("-", f);
    fputs("</td><td>", f);
    obs_html_esc(f, jv_str(jv_get(e, "action"), "?"));
    fputs("</td><td style=\"text-align:left\">", f);
    for (size_t k = 0; k < jv_len(hs) && k < 8; k++) { if (k) fputs(", ", f); obs_html_esc(f, jv_str(jv_at(hs, k), "?")); }
    if (jv_len(hs) > 8) fprintf(f, " (+%zu)", jv_len(hs) - 8);
    fprintf(f, "</td><td>%zu</td><td>%.6g</td><td>", jv_len(mv), bytes);
    if (jv_len(mv)) fprintf(f, "%.9g", end); else fputs("-", f);
    fputs("</td></tr>\n", f);
  }
  fputs("</table></section>\n", f);
}

void obs_report_model(FILE *f, const jv *doc) {
  host_cpu(f, doc);
  loadavg(f, doc);
  iterations(f, doc);
  host_events(f, doc);
}
