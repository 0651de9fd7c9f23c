/* Drawing helpers shared by the report's sections (see obs_report_draw.h). */
#include <math.h>
#include <stdlib.h>

#include "obs_report_draw.h"
#include "psim/util.h"

void obs_html_esc(FILE *f, const char *s) {
  for (; s && *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else if (*s == '"') fputs("&quot;", f);
    else fputc(*s, f);
  }
}

void obs_fmt_time(char *b, size_t n, double t) {
  if (t == 0) snprintf(b, n, "0 s");
  else if (fabs(t) >= 1) snprintf(b, n, "%.4g s", t);
  else if (fabs(t) >= 1e-3) snprintf(b, n, "%.4g ms", t * 1e3);
  else snprintf(b, n, "%.4g us", t * 1e6);
}

void obs_fmt_bytes(char *b, size_t n, double x) {
  const char *u[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int i = 0;
  while (x >= 1000 && i < 5) { x /= 1000; i++; }
  snprintf(b, n, i ? "%.3g %s" : "%.0f %s", x, u[i]);
}

void obs_svg_time_axis(FILE *f, double x0, double w, double y, double t0, double t1) {
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x0, y, x0 + w, y);
  for (int i = 0; i <= 5; i++) {
    double x = x0 + w * i / 5;
    char b[32];
    obs_fmt_time(b, sizeof b, t0 + (t1 - t0) * i / 5);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            x, y, x, y + 4, x, y + 16, b);
  }
  fprintf(f, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">time (simulated s)</text>\n", x0 - 6, y + 16);
}

void obs_svg_ylabel(FILE *f, double x, double ymid, const char *text) {
  fprintf(f, "<text class=\"axis-label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
          x, ymid, text);
}

void obs_ramp(double k, const int lo[3], const int hi[3], char *out, size_t n) {
  if (!(k >= 0)) k = 0;
  if (k > 1) k = 1;
  snprintf(out, n, "rgb(%d,%d,%d)", (int)lround(lo[0] + k * (hi[0] - lo[0])), (int)lround(lo[1] + k * (hi[1] - lo[1])),
           (int)lround(lo[2] + k * (hi[2] - lo[2])));
}

double obs_scale_pos(double v, double lo, double hi, int logscale) {
  if (!(hi > lo)) return v > 0;
  if (logscale) return v > 0 ? (log(v > lo ? v : lo) - log(lo)) / (log(hi) - log(lo)) : 0;
  return (v - lo) / (hi - lo);
}

void obs_svg_colour_scale(FILE *f, double x, double y, double w, double lo, double hi, int logscale,
                          const int c0[3], const int c1[3], const char *title, const char *unit) {
  fprintf(f, "<g class=\"legend colour-scale\" data-min=\"%.6g\" data-max=\"%.6g\" data-log=\"%d\">\n", lo, hi, logscale);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", x, y - 4, title, logscale ? " (log scale)" : "");
  enum { STEPS = 40 };
  for (int i = 0; i < STEPS; i++) {
    char c[32];
    obs_ramp((i + 0.5) / STEPS, c0, c1, c, sizeof c);
    fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" fill=\"%s\"/>", x + w * i / STEPS, y, w / STEPS + 0.3, c);
  }
  fprintf(f, "\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"none\" stroke=\"#999\" stroke-width=\"0.5\"/>\n", x, y, w);
  for (int i = 0; i <= 4; i++) {
    double k = i / 4.0, v = logscale && lo > 0 ? exp(log(lo) + k * (log(hi) - log(lo))) : lo + k * (hi - lo);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" "
               "text-anchor=\"middle\">%.3g%s%s</text>\n", x + w * k, y + 10, x + w * k, y + 13, x + w * k, y + 24, v,
            *unit ? " " : "", unit);
  }
  fputs("</g>\n", f);
}

void obs_svg_iter_axis(FILE *f, double x0, double w, double y, int n) {
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x0, y, x0 + w, y);
  if (n <= 0) return;
  /* ticks at round iteration numbers: 1, 2 or 5 times a power of ten, about 5 of them */
  double step = pow(10, floor(log10(n / 5.0 > 1 ? n / 5.0 : 1)));
  if (n / step > 25) step *= 5;
  else if (n / step > 10) step *= 2;
  for (double it = step; it <= n + 1e-9; it += step) {
    double x = x0 + w * (it - 0.5) / n;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
            x, y, x, y + 4, x, y + 16, it);
  }
  fprintf(f, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">iteration</text>\n", x0 - 6, y + 16);
}

double *obs_jv_numbers(const jv *v, size_t *n) {
  *n = jv_len(v);
  double *x = xmalloc((*n ? *n : 1) * sizeof *x);
  for (size_t i = 0; i < *n; i++) x[i] = jv_num(jv_at(v, i), NAN);
  return x;
}
