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
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">iteration</text>\n", x0 - 6, y + 16);
}

double *obs_jv_numbers(const jv *v, size_t *n) {
  *n = jv_len(v);
  double *x = xmalloc((*n ? *n : 1) * sizeof *x);
  for (size_t i = 0; i < *n; i++) x[i] = jv_num(jv_at(v, i), NAN);
  return x;
}
