/* Sequential kernel models of psim forecast: the model file (read, written), kernel times, and
 * the weighted least-squares fit of psim calibrate --kernels. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/forecast.h"

static const char *const NAMES[FC_NKERNELS] = {"dgemm", "dtrsm", "add"};
static const char VARS[] = "mnk";

const char *fc_kernel_name(int kernel) { return NAMES[kernel]; }

double fc_kernel_flops(int kernel, double m, double n, double k) {
  switch (kernel) {
  case FC_DGEMM: return 2.0 * m * n * k;
  case FC_DTRSM: return m * n * n;
  default: return m * n;
  }
}

double fc_kernel_time(const fc_kernels *km, int kernel, double m, double n, double k) {
  if (m <= 0 || n <= 0 || (kernel == FC_DGEMM && k <= 0)) return 0;
  if (km->rate > 0) return fc_kernel_flops(kernel, m, n, k) / km->rate;
  const fc_poly *p = &km->k[kernel];
  double x[3] = {m, n, k}, t = 0;
  for (int i = 0; i < p->nterms; i++) {
    double v = p->t[i].c;
    for (int j = 0; j < 3; j++)
      for (int e = 0; e < p->t[i].e[j]; e++) v *= x[j];
    t += v;
  }
  return t > 0 ? t : 0;   /* a fitted polynomial can dip below 0 far outside its data */
}

void fc_kernels_rate(fc_kernels *km, double rate) {
  memset(km, 0, sizeof *km);
  km->rate = rate;
  snprintf(km->source, sizeof km->source, "constant rate %.6g flop/s", rate);
}

/* "m*n^2*k" or "1" -> exponents; the variables allowed are the kernel's (k only for dgemm). */
static int parse_monomial(const char *s, int kernel, unsigned char e[3]) {
  memset(e, 0, 3);
  if (!strcmp(s, "1")) return 0;
  while (*s) {
    const char *v = strchr(VARS, *s);
    if (!v || !*s) return -1;
    int var = (int)(v - VARS);
    if (var == 2 && kernel != FC_DGEMM) return -1;
    s++;
    int pow = 1;
    if (*s == '^') {
      if (!isdigit((unsigned char)s[1]) || (s[2] && s[2] != '*')) return -1;
      pow = s[1] - '0';
      s += 2;
    }
    if (e[var] + pow > 9) return -1;
    e[var] = (unsigned char)(e[var] + pow);
    if (*s == '*') {
      s++;
      if (!*s) return -1;
    } else if (*s) {
      return -1;
    }
  }
  return 0;
}

static void format_monomial(char *b, size_t n, const unsigned char e[3]) {
  size_t used = 0;
  b[0] = 0;
  for (int j = 0; j < 3; j++) {
    if (!e[j]) continue;
    used += (size_t)snprintf(b + used, used < n ? n - used : 0, "%s%c", used ? "*" : "", VARS[j]);
    if (e[j] > 1) used += (size_t)snprintf(b + used, used < n ? n - used : 0, "^%d", e[j]);
  }
  if (!used) snprintf(b, n, "1");
}

int fc_kernels_parse(const char *name, const char *text, size_t len, fc_kernels *km, psim_err *err) {
  memset(km, 0, sizeof *km);
  snprintf(km->source, sizeof km->source, "%s", name);
  for (int i = 0; i < FC_NKERNELS; i++) km->k[i].fit_rms_rel = km->k[i].fit_max_rel = -1;
  long lineno = 0;
  int terms = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char line[512];
    lineno++;
    if (l >= sizeof line) return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "line too long");
    memcpy(line, p, l);
    line[l] = 0;
    p += l + (nl ? 1 : 0);
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char w[4][128];
    int nw = sscanf(line, "%127s %127s %127s %127s", w[0], w[1], w[2], w[3]);
    if (nw <= 0) continue;
    char *e;
    if (!strcmp(w[0], "rate")) {
      errno = 0;
      double r = nw == 2 ? strtod(w[1], &e) : 0;
      if (nw != 2 || *e || errno || !(r > 0) || !isfinite(r))
        return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "expected 'rate FLOPS' with a positive number");
      km->rate = r;
      continue;
    }
    int kernel = -1;
    for (int i = 0; i < FC_NKERNELS; i++)
      if (!strcmp(w[0], NAMES[i])) kernel = i;
    if (kernel < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, name, lineno,
                       "unknown kernel '%s' (expected dgemm, dtrsm, add or rate)", w[0]);
    if (nw != 3)
      return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "expected '%s MONOMIAL COEFFICIENT', e.g. '%s %s 1e-10'",
                       w[0], w[0], kernel == FC_DGEMM ? "m*n*k" : "m*n");
    fc_poly *poly = &km->k[kernel];
    fc_term t;
    if (parse_monomial(w[1], kernel, t.e))
      return psim_errf(err, PSIM_EXIT_INPUT, name, lineno,
                       "bad monomial '%s': products of %s with optional ^POWER, or 1", w[1],
                       kernel == FC_DGEMM ? "m, n, k" : "m, n");
    errno = 0;
    t.c = strtod(w[2], &e);
    if (*e || errno || !isfinite(t.c))
      return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "bad coefficient '%s' (expected a number, seconds)", w[2]);
    for (int i = 0; i < poly->nterms; i++)
      if (!memcmp(poly->t[i].e, t.e, 3))
        return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "%s: monomial '%s' given twice", w[0], w[1]);
    if (poly->nterms == FC_MAXTERMS)
      return psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "%s: more than %d terms", w[0], FC_MAXTERMS);
    poly->t[poly->nterms++] = t;
    terms++;
  }
  if (km->rate > 0) {
    if (terms) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "give either 'rate' or kernel terms, not both");
    return 0;
  }
  for (int i = 0; i < FC_NKERNELS; i++)
    if (!km->k[i].nterms)
      return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "no model for kernel '%s' (every one of dgemm, dtrsm, add is needed, or 'rate FLOPS')", NAMES[i]);
  return 0;
}

int fc_kernels_load(const char *path, fc_kernels *km, psim_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the kernel model file: %s", strerror(errno));
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size < 0 || size > (1L << 24) || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot read the kernel model file (not a regular file of at most 16 MiB)");
  }
  char *text = xmalloc((size_t)size + 1);
  size_t got = fread(text, 1, (size_t)size, f);
  fclose(f);
  int rc = fc_kernels_parse(path, text, got, km, err);
  free(text);
  return rc;
}

void fc_kernels_write_poly(FILE *f, int kernel, const fc_poly *p) {
  for (int i = 0; i < p->nterms; i++) {
    char mono[64];
    format_monomial(mono, sizeof mono, p->t[i].e);
    fprintf(f, "%-6s %-8s %.9g\n", NAMES[kernel], mono, p->t[i].c);
  }
}

void fc_poly_format(char *buf, size_t n, const fc_poly *p) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < p->nterms && used < n; i++) {
    char mono[64];
    format_monomial(mono, sizeof mono, p->t[i].e);
    double c = p->t[i].c;
    used += (size_t)snprintf(buf + used, n - used, "%s%.4g%s%s", i ? (c < 0 ? " - " : " + ") : "",
                             i && c < 0 ? -c : c,
                             strcmp(mono, "1") ? " " : "", strcmp(mono, "1") ? mono : "");
  }
}

/* Householder QR least squares of the weighted, column-scaled system. */
int fc_fit(fc_poly *p, const double *x, const double *y, int npts) {
  int nc = p->nterms;
  if (nc <= 0 || npts < nc) return -1;
  double *a = xmalloc(sizeof(double) * (size_t)npts * (size_t)nc), *b = xmalloc(sizeof(double) * (size_t)npts);
  double scale[FC_MAXTERMS];
  for (int i = 0; i < npts; i++) {
    for (int j = 0; j < nc; j++) {
      double v = 1;
      for (int d = 0; d < 3; d++)
        for (int e = 0; e < p->t[j].e[d]; e++) v *= x[i * 3 + d];
      a[(size_t)i * (size_t)nc + (size_t)j] = v / y[i];
    }
    b[i] = 1;
  }
  for (int j = 0; j < nc; j++) {
    double s = 0;
    for (int i = 0; i < npts; i++) s += a[(size_t)i * (size_t)nc + (size_t)j] * a[(size_t)i * (size_t)nc + (size_t)j];
    scale[j] = s > 0 ? sqrt(s) : 1;
    for (int i = 0; i < npts; i++) a[(size_t)i * (size_t)nc + (size_t)j] /= scale[j];
  }
  int rc = 0;
  for (int j = 0; j < nc && !rc; j++) {
    double norm = 0;
    for (int i = j; i < npts; i++) norm += a[(size_t)i * (size_t)nc + (size_t)j] * a[(size_t)i * (size_t)nc + (size_t)j];
    norm = sqrt(norm);
    if (norm < 1e-12) { rc = -1; break; }
    double ajj = a[(size_t)j * (size_t)nc + (size_t)j], alpha = ajj > 0 ? -norm : norm;
    /* v = x - alpha e1, stored in place; beta = 1 / (v^T v / 2) */
    a[(size_t)j * (size_t)nc + (size_t)j] = ajj - alpha;
    double vtv = 0;
    for (int i = j; i < npts; i++) vtv += a[(size_t)i * (size_t)nc + (size_t)j] * a[(size_t)i * (size_t)nc + (size_t)j];
    for (int c = j + 1; c <= nc; c++) {
      double dot = 0;
      for (int i = j; i < npts; i++)
        dot += a[(size_t)i * (size_t)nc + (size_t)j] * (c < nc ? a[(size_t)i * (size_t)nc + (size_t)c] : b[i]);
      double f = 2 * dot / vtv;
      for (int i = j; i < npts; i++) {
        double *dst = c < nc ? &a[(size_t)i * (size_t)nc + (size_t)c] : &b[i];
        *dst -= f * a[(size_t)i * (size_t)nc + (size_t)j];
      }
    }
    a[(size_t)j * (size_t)nc + (size_t)j] = alpha;   /* R's diagonal */
  }
  if (!rc) {
    double coef[FC_MAXTERMS];
    for (int j = nc - 1; j >= 0; j--) {
      double s = b[j];
      for (int c = j + 1; c < nc; c++) s -= a[(size_t)j * (size_t)nc + (size_t)c] * coef[c];
      coef[j] = s / a[(size_t)j * (size_t)nc + (size_t)j];
    }
    for (int j = 0; j < nc; j++) p->t[j].c = coef[j] / scale[j];
    double ss = 0, mx = 0;
    for (int i = 0; i < npts; i++) {
      fc_kernels km;
      memset(&km, 0, sizeof km);
      km.k[0] = *p;
      double r = fabs(fc_kernel_time(&km, 0, x[i * 3], x[i * 3 + 1], x[i * 3 + 2] > 0 ? x[i * 3 + 2] : 1) - y[i]) / y[i];
      ss += r * r;
      if (r > mx) mx = r;
    }
    p->fit_rms_rel = sqrt(ss / npts);
    p->fit_max_rel = mx;
  }
  free(a);
  free(b);
  return rc;
}
