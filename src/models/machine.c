/* CLUE's machine file (Kvasnicka et al., "Virtual Machines"; docs/models.md "Machine file
 * (CLUE)"): what a host costs, and what a message between two hosts costs, as a text file.
 *
 *     # comment
 *     host PATTERN KEY=VALUE...          factor=X  send=POINTS  recv=POINTS  pack=POINTS
 *     pair PATTERN PATTERN transmit=POINTS
 *     at DATE host|pair ...              the same, from simulated date DATE on
 *
 * PATTERN is a glob over the platform's host names (*, ?, [...]); POINTS is SIZE:TIME[,...]
 * (or a lone TIME: a constant)
 * with strictly increasing sizes, a piecewise-linear function of the message size: linear
 * between points, extrapolated from the first two (below) and the last two (above), never
 * below 0; one point is a constant. For each host, pair and setting, the line that applies at
 * date t is the last one, in order of date then of the file, with a date <= t that sets it.
 *
 * Loading parses and checks everything (errors name FILE:LINE and what was expected);
 * binding to a platform resolves the patterns once, so a lookup is a short scan. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/models_internal.h"

enum { FN_SEND = MACH_SEND, FN_RECV = MACH_RECV, FN_PACK = MACH_PACK, FN_TRANSMIT, FN_N };
enum { SET_FACTOR = 1 << FN_N };   /* bits 0..FN_N-1: which functions a line sets */

typedef struct mfn { int n; double *x, *y; } mfn;

typedef struct mrule {
  double date;
  long line;
  int pair;          /* 0: a host line, 1: a pair line */
  char *pat[2];
  int set;           /* 1 << FN_*, SET_FACTOR */
  double factor;
  mfn fn[FN_N];
} mrule;

struct machine {
  char *path;
  VEC(mrule) rules;
};

const char *machine_path(const machine *mf) { return mf->path; }

static void rule_free(mrule *r) {
  free(r->pat[0]);
  free(r->pat[1]);
  for (int k = 0; k < FN_N; k++) { free(r->fn[k].x); free(r->fn[k].y); }
}

void machine_free(machine *mf) {
  if (!mf) return;
  for (size_t i = 0; i < mf->rules.len; i++) rule_free(&mf->rules.data[i]);
  VEC_FREE(mf->rules);
  free(mf->path);
  free(mf);
}

static const char *FN_NAMES[FN_N] = {"send", "recv", "pack", "transmit"};

/* Parses "SIZE:TIME[,SIZE:TIME...]" into f. */
static int parse_points(mfn *f, const char *key, char *v, const char *path, long line, psim_err *err) {
  VEC(double) xs = {0}, ys = {0};
  char *save = NULL;
  size_t vlen = strlen(v);
  int rc = 0;
  for (char *pt = strtok_r(v, ",", &save); pt; pt = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(pt, ':');
    double x, y;
    int warned = 0;
    char why[256];
    if (!colon && !xs.len && pt + strlen(pt) == v + vlen) {
      /* a lone TIME: a constant (the same as 0:TIME) */
      if (psim_unit_time(pt, &y, &warned, why, sizeof why) < 0 || y < 0) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: expected a time (e.g. 20us) or SIZE:TIME points, got '%s'", key, pt);
        break;
      }
      VEC_PUSH(xs, 0.0);
      VEC_PUSH(ys, y);
      continue;
    }
    if (!colon) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: expected SIZE:TIME points separated by ',' (e.g. 0:20us,1MB:60us), got '%s'",
                     key, pt);
      break;
    }
    *colon = 0;
    if (psim_unit_size(pt, &x, &warned, why, sizeof why) < 0 || x < 0) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: expected a size (bytes, e.g. 1500 or 1MB) before ':', got '%s'", key, pt);
      break;
    }
    if (psim_unit_time(colon + 1, &y, &warned, why, sizeof why) < 0 || y < 0) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: expected a time (e.g. 20us) after '%s:', got '%s'", key, pt, colon + 1);
      break;
    }
    if (xs.len && x <= xs.data[xs.len - 1]) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: sizes must increase from point to point ('%s' after %.17g bytes)",
                     key, pt, xs.data[xs.len - 1]);
      break;
    }
    VEC_PUSH(xs, x);
    VEC_PUSH(ys, y);
  }
  if (rc == 0 && !xs.len)
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s: expected SIZE:TIME points (e.g. 0:20us,1MB:60us), got nothing", key);
  if (rc < 0) { VEC_FREE(xs); VEC_FREE(ys); return -1; }
  free(f->x);
  free(f->y);
  f->n = (int)xs.len;
  f->x = xs.data;
  f->y = ys.data;
  return 0;
}

static double fn_eval(const mfn *f, double s) {
  if (f->n == 1) return f->y[0];
  int i = 0;   /* the segment [x_i, x_i+1]: the first one reaching s, else the last */
  while (i < f->n - 2 && s > f->x[i + 1]) i++;
  double t = f->y[i] + (f->y[i + 1] - f->y[i]) * (s - f->x[i]) / (f->x[i + 1] - f->x[i]);
  return t > 0 ? t : 0;
}

/* One line's KEY=VALUE settings. */
static int parse_settings(mrule *r, char **tok, int ntok, const char *path, long line, psim_err *err) {
  if (ntok == 0)
    return psim_errf(err, PSIM_EXIT_INPUT, path, line, r->pair ? "expected transmit=POINTS after the two patterns"
                                                 : "expected KEY=VALUE after the pattern (factor, send, recv, pack)");
  for (int i = 0; i < ntok; i++) {
    char *eq = strchr(tok[i], '=');
    if (!eq || eq == tok[i] || !eq[1])
      return psim_errf(err, PSIM_EXIT_INPUT, path, line, "expected KEY=VALUE, got '%s'", tok[i]);
    *eq = 0;
    const char *key = tok[i];
    char *v = eq + 1;
    if (!r->pair && !strcmp(key, "factor")) {
      char *end;
      double x = strtod(v, &end);
      if (end == v || *end || !(x > 0) || x > 1e300)
        return psim_errf(err, PSIM_EXIT_INPUT, path, line, "factor: expected a positive number up to 1e300, got '%s'", v);
      if (r->set & SET_FACTOR)
        return psim_errf(err, PSIM_EXIT_INPUT, path, line, "factor given twice on one line (say it once)");
      r->factor = x;
      r->set |= SET_FACTOR;
      continue;
    }
    int k = -1;
    for (int j = 0; j < FN_N; j++)
      if (!strcmp(key, FN_NAMES[j])) k = j;
    if (k < 0 || (r->pair != (k == FN_TRANSMIT)))
      return psim_errf(err, PSIM_EXIT_INPUT, path, line, r->pair ? "unknown key '%s' for a pair (expected transmit)"
                                                   : "unknown key '%s' for a host (expected factor, send, recv or pack)",
                       key);
    if (r->set & (1 << k))   /* which one would win is not obvious: refuse */
      return psim_errf(err, PSIM_EXIT_INPUT, path, line, "%s given twice on one line (say it once)", key);
    if (parse_points(&r->fn[k], key, v, path, line, err) < 0) return -1;
    r->set |= 1 << k;
  }
  return 0;
}

static int parse_line(machine *mf, char *s, long line, psim_err *err) {
  char *hash = strchr(s, '#');
  if (hash) *hash = 0;
  char *tok[64];
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(s, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == 64) return psim_errf(err, PSIM_EXIT_INPUT, mf->path, line, "too many words (at most 64)");
    tok[n++] = t;
  }
  if (n == 0) return 0;
  mrule r = {0};
  r.line = line;
  int i = 0;
  if (!strcmp(tok[0], "at")) {
    int warned = 0;
    char why[256];
    if (n < 2 || psim_unit_time(tok[1], &r.date, &warned, why, sizeof why) < 0 || r.date < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, mf->path, line, "expected a date after 'at' (e.g. at 30s host NAME factor=2), got '%s'",
                       n < 2 ? "" : tok[1]);
    i = 2;
  }
  if (i >= n || (strcmp(tok[i], "host") && strcmp(tok[i], "pair")))
    return psim_errf(err, PSIM_EXIT_INPUT, mf->path, line, "expected 'host', 'pair' or 'at DATE' at the start of the line, got '%s'",
                     i < n ? tok[i] : "");
  r.pair = !strcmp(tok[i], "pair");
  i++;
  int npat = r.pair ? 2 : 1;
  for (int k = 0; k < npat; k++, i++) {
    if (i >= n || strchr(tok[i], '=')) {
      rule_free(&r);
      return psim_errf(err, PSIM_EXIT_INPUT, mf->path, line, r.pair ? "expected two host patterns after 'pair'"
                                                       : "expected a host pattern after 'host'");
    }
    r.pat[k] = xstrdup(tok[i]);
  }
  if (parse_settings(&r, tok + i, n - i, mf->path, line, err) < 0) { rule_free(&r); return -1; }
  VEC_PUSH(mf->rules, r);
  return 0;
}

/* Lines in order of date, then of the file: the order in which they take effect. */
static int cmp_rules(const void *x, const void *y) {
  const mrule *a = x, *b = y;
  if (a->date != b->date) return a->date < b->date ? -1 : 1;
  return (a->line > b->line) - (a->line < b->line);
}

machine *machine_load(const char *path, psim_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the machine file"); return NULL; }
  machine *mf = xcalloc(1, sizeof *mf);
  mf->path = xstrdup(path);
  char *buf = NULL;
  size_t cap = 0;
  long line = 0;
  ssize_t len;
  int rc = 0;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    line++;
    if (strlen(buf) != (size_t)len) { rc = psim_errf(err, PSIM_EXIT_INPUT, path, line, "unexpected NUL byte (not a text file?)"); break; }
    if ((rc = parse_line(mf, buf, line, err)) < 0) break;
  }
  free(buf);
  fclose(f);
  if (rc < 0) { machine_free(mf); return NULL; }
  if (mf->rules.len) qsort(mf->rules.data, mf->rules.len, sizeof *mf->rules.data, cmp_rules);
  return mf;
}

long machine_unmatched(const machine *mf, const platform *p, const char **pattern) {
  /* In the order of the file, so the first line reported is the first one written. */
  long best = 0;
  for (size_t i = 0; i < mf->rules.len; i++) {
    const mrule *r = &mf->rules.data[i];
    for (int k = 0; k < 1 + r->pair; k++) {
      int hit = 0;
      for (int h = 0; h < plat_nhosts(p) && !hit; h++) hit = fnmatch(r->pat[k], plat_host_at(p, h)->name, 0) == 0;
      if (!hit && (!best || r->line < best)) { best = r->line; *pattern = r->pat[k]; }
    }
  }
  return best;
}

/* ---- bound to a platform ---- */
struct mach_bound {
  const machine *mf;
  int nh;
  int *hoff, *hidx;        /* host h's host lines: hidx[hoff[h] .. hoff[h+1]) (ascending) */
  int npair, *pidx;        /* the pair lines */
  unsigned char *pm;       /* pm[h * npair + j]: bit 0 = h matches its first pattern, bit 1 its second */
  VEC(double) dates;
};

mach_bound *mach_bind(const machine *mf, const platform *p) {
  mach_bound *b = xcalloc(1, sizeof *b);
  b->mf = mf;
  b->nh = plat_nhosts(p);
  VEC(int) idx = {0};
  b->hoff = xmalloc(((size_t)b->nh + 1) * sizeof *b->hoff);
  for (size_t i = 0; i < mf->rules.len; i++)
    if (mf->rules.data[i].pair) b->npair++;
  b->pidx = xmalloc(((size_t)b->npair + 1) * sizeof *b->pidx);
  b->pm = xcalloc((size_t)b->nh * (size_t)b->npair + 1, 1);
  for (int h = 0; h < b->nh; h++) {
    const char *name = plat_host_at(p, h)->name;
    b->hoff[h] = (int)idx.len;
    int j = 0;
    for (size_t i = 0; i < mf->rules.len; i++) {
      const mrule *r = &mf->rules.data[i];
      if (!r->pair) {
        if (fnmatch(r->pat[0], name, 0) == 0) VEC_PUSH(idx, (int)i);
        continue;
      }
      b->pidx[j] = (int)i;
      b->pm[(size_t)h * (size_t)b->npair + (size_t)j] =
          (unsigned char)((fnmatch(r->pat[0], name, 0) == 0) | (fnmatch(r->pat[1], name, 0) == 0) << 1);
      j++;
    }
  }
  b->hoff[b->nh] = (int)idx.len;
  b->hidx = idx.data ? idx.data : xmalloc(sizeof(int));
  for (size_t i = 0; i < mf->rules.len; i++) {
    const mrule *r = &mf->rules.data[i];
    if (r->date > 0 && (r->set & SET_FACTOR) && (!b->dates.len || b->dates.data[b->dates.len - 1] != r->date))
      VEC_PUSH(b->dates, r->date);
  }
  return b;
}

void mach_unbind(mach_bound *b) {
  if (!b) return;
  free(b->hoff);
  free(b->hidx);
  free(b->pidx);
  free(b->pm);
  VEC_FREE(b->dates);
  free(b);
}

int mach_factor_dates(const mach_bound *b, const double **dates) {
  *dates = b->dates.data;
  return (int)b->dates.len;
}

/* Host h's line in effect at `now` that sets `bit`, or NULL. */
static const mrule *host_rule(const mach_bound *b, int h, int bit, double now) {
  for (int k = b->hoff[h + 1] - 1; k >= b->hoff[h]; k--) {
    const mrule *r = &b->mf->rules.data[b->hidx[k]];
    if (r->date <= now && (r->set & bit)) return r;
  }
  return NULL;
}

double mach_factor(const mach_bound *b, int h, double now) {
  const mrule *r = host_rule(b, h, SET_FACTOR, now);
  return r ? r->factor : 1.0;
}

double mach_delay(const mach_bound *b, int h, mach_delay_kind which, double bytes, double now) {
  const mrule *r = host_rule(b, h, 1 << (int)which, now);
  return r ? fn_eval(&r->fn[which], bytes) : 0.0;
}

int mach_transmit(const mach_bound *b, int src, int dst, double bytes, double now, double *t) {
  const unsigned char *ms = b->pm + (size_t)src * (size_t)b->npair, *md = b->pm + (size_t)dst * (size_t)b->npair;
  for (int j = b->npair - 1; j >= 0; j--) {
    const mrule *r = &b->mf->rules.data[b->pidx[j]];
    if (r->date > now) continue;
    /* a pair line covers both directions between its two sets of hosts */
    if (((ms[j] & 1) && (md[j] & 2)) || ((md[j] & 1) && (ms[j] & 2))) {
      *t = fn_eval(&r->fn[FN_TRANSMIT], bytes);
      return 1;
    }
  }
  return 0;
}
