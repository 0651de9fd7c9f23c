/* The report of a psim sensitivity document: the table of the DPS paper's Tables 2-4 (each
 * variant's predicted time and its difference from the base) and a tornado chart: one row per
 * factor, sorted by the largest change it causes, a bar per multiplier from the base line to
 * the relative change, left when the run gets faster, right when slower. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/util.h"

enum { W = OBS_W, MAX_FACTORS = 32, MAX_K = 16 };

static const char *factor_label(const char *name) {
  return !strcmp(name, "speed") ? "host speed" : name;
}

typedef struct sens_row {
  const char *name;
  int first;                 /* index of its first variant, to keep ties in document order */
  double mag;                /* largest |relative change| */
  int nk;
  double k[MAX_K], rel[MAX_K];
} sens_row;

static int row_cmp(const void *x, const void *y) {
  const sens_row *a = x, *b = y;
  if (a->mag != b->mag) return a->mag > b->mag ? -1 : 1;
  return (a->first > b->first) - (a->first < b->first);
}

void obs_report_sensitivity(FILE *f, const jv *doc) {
  const jv *vs = jv_get(doc, "variants");
  double base = jv_num(jv_get(doc, "base"), 0);
  size_t nv = jv_len(vs);
  char tb[32];
  obs_fmt_time(tb, sizeof tb, base);
  fputs("<section id=\"sensitivity\"><h2>Sensitivity</h2>\n<table class=\"kv\">\n<tr><th>platform</th><td>", f);
  obs_html_esc(f, jv_str(jv_get(doc, "platform"), "?"));
  fputs("</td></tr>\n<tr><th>network model</th><td>", f);
  obs_html_esc(f, jv_str(jv_get(doc, "network_model"), "?"));
  fprintf(f, "</td></tr>\n<tr><th>ranks</th><td>%.0f</td></tr>\n<tr><th>base prediction</th><td>%s (%.9g s)</td></tr>\n</table>\n",
          jv_num(jv_get(doc, "np"), 0), tb, base);

  /* group the variants by factor (a factor's multipliers may come in any order) */
  sens_row rows[MAX_FACTORS];
  int nr = 0;
  double top = 0;
  fputs("<table class=\"grid\"><tr><th>variant</th><th>predicted (s)</th><th>difference</th></tr>\n", f);
  fprintf(f, "<tr><td>base</td><td>%.6f</td><td></td></tr>\n", base);
  for (size_t i = 0; i < nv; i++) {
    const jv *v = jv_at(vs, i);
    const char *name = jv_str(jv_get(v, "factor"), "?");
    double k = jv_num(jv_get(v, "k"), NAN), t = jv_num(jv_get(v, "simulated_time"), NAN);
    double rel = jv_num(jv_get(v, "relative_difference"), NAN);
    fputs("<tr><td>", f);
    obs_html_esc(f, factor_label(name));
    if (isfinite(t)) fprintf(f, " &#215;%g</td><td>%.6f</td><td>%+.2f %%</td></tr>\n", k, t, 100 * rel);
    else fprintf(f, " &#215;%g</td><td>failed</td><td></td></tr>\n", k);
    if (!isfinite(rel) || !isfinite(k)) continue;
    int r = 0;
    while (r < nr && strcmp(rows[r].name, name)) r++;
    if (r == nr) {
      if (nr == MAX_FACTORS) continue;
      rows[nr++] = (sens_row){.name = name, .first = (int)i};
    }
    if (rows[r].nk == MAX_K) continue;
    rows[r].k[rows[r].nk] = k;
    rows[r].rel[rows[r].nk++] = rel;
    if (fabs(rel) > rows[r].mag) rows[r].mag = fabs(rel);
    if (fabs(rel) > top) top = fabs(rel);
  }
  fputs("</table>\n</section>\n", f);
  qsort(rows, (size_t)nr, sizeof *rows, row_cmp);

  fputs("<section id=\"tornado\"><h2>Tornado chart</h2>\n<p>Relative change of the predicted time when "
        "one factor is multiplied by k, the others left as they are; factors sorted by the largest "
        "change they cause. Left of the line: faster than the base; right: slower.</p>\n", f);
  double rh = 34, left = 140, pw = W - left - 60, mid = left + pw / 2, half = pw / 2 - 60;
  if (top <= 0) top = 1;
  fprintf(f, "<svg id=\"tornado-chart\" class=\"chart\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W,
          rh * (nr ? nr : 1) + 50);
  for (int r = 0; r < nr; r++) {
    const sens_row *x = &rows[r];
    double y = rh * r;
    fputs("<text x=\"", f);
    fprintf(f, "%.0f\" y=\"%.1f\" text-anchor=\"end\">", left - 8, y + rh / 2 + 4);
    obs_html_esc(f, factor_label(x->name));
    fputs("</text>\n", f);
    double bh = (rh - 6) / x->nk;
    for (int j = 0; j < x->nk; j++) {
      double w = half * fabs(x->rel[j]) / top, bx = x->rel[j] < 0 ? mid - w : mid, by = y + 3 + bh * j;
      /* multipliers below 1 in blue, above 1 in orange */
      fprintf(f, "<rect class=\"tornado-bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                 "<title>%s &#215;%g: %+.2f %%</title></rect>\n",
              bx, by, w < 0.5 ? 0.5 : w, bh - 1, x->k[j] < 1 ? "#4575b4" : "#f08a24", factor_label(x->name), x->k[j],
              100 * x->rel[j]);
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">&#215;%g: %+.2f %%</text>\n",
              x->rel[j] < 0 ? bx - 4 : bx + w + 4, by + bh / 2 + 3, x->rel[j] < 0 ? "end" : "start", x->k[j],
              100 * x->rel[j]);
    }
  }
  double yb = rh * (nr ? nr : 1);
  fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n", mid, mid, yb);
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", mid - half, yb, mid + half, yb);
  for (int i = -2; i <= 2; i++)
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.3g %%</text>\n",
            mid + half * i / 2, yb, mid + half * i / 2, yb + 4, mid + half * i / 2, yb + 16, 100 * top * i / 2);
  fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"#4575b4\"/><text x=\"%.0f\" y=\"%.0f\">k &lt; 1</text>"
             "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"#f08a24\"/><text x=\"%.0f\" y=\"%.0f\">k &gt; 1</text>\n",
          left, yb + 26, left + 16, yb + 36, left + 90, yb + 26, left + 106, yb + 36);
  if (!nr) fprintf(f, "<text x=\"%.0f\" y=\"20\">no variant ran</text>\n", left);
  fputs("</svg></section>\n", f);
}
