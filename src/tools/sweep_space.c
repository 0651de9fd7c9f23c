/* The parameter space of psim sweep: values, ranges, configurations, substitution
 * (include/psim/sweep.h). */
#include "psim/sweep.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef VEC(char *) strvec;

int sweep_number(const char *text, double *out) {
  char *end;
  /* decimal only: strtod's hex, inf and nan are values as written, not numbers */
  if (!*text || text[strspn(text, "0123456789+-.eE")]) return -1;
  double x = strtod(text, &end);
  if (*end || !isfinite(x)) return -1;
  *out = x;
  return 0;
}

static int is_name_char(int c) { return isalnum(c) || c == '_' || c == '-' || c == '.'; }

/* A number with no fraction or exponent in its text and an integral value. */
static int integral_text(const char *t, double x) {
  return !strpbrk(t, ".eEnN") && x == floor(x) && fabs(x) < 1e15;
}

static void push_number(strvec *out, double x, int integral) {
  char buf[64];
  if (integral) snprintf(buf, sizeof buf, "%.0f", x);
  else snprintf(buf, sizeof buf, "%.15g", x);
  VEC_PUSH(*out, xstrdup(buf));
}

/* Expands a range item "A..B[*K|+S]" into out. */
static int expand_range(const char *name, const char *item, const char *dots, strvec *out, psim_err *err) {
  char a_text[128];
  size_t alen = (size_t)(dots - item);
  if (alen == 0 || alen >= sizeof a_text)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': expected a number before '..' (A..B, A..B+STEP or A..B*FACTOR)", name, item);
  memcpy(a_text, item, alen);
  a_text[alen] = 0;
  double a, b, step = 1;
  if (sweep_number(a_text, &a) < 0)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': '%s' is not a number (A..B, A..B+STEP or A..B*FACTOR)", name, item, a_text);
  const char *bt = dots + 2;
  char *end;
  b = strtod(bt, &end);
  if (end == bt || !isfinite(b) || isspace((unsigned char)*bt))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': expected a number after '..' (A..B, A..B+STEP or A..B*FACTOR)", name, item);
  char op = *end;
  char b_text[128];
  snprintf(b_text, sizeof b_text, "%.*s", (int)(end - bt), bt);
  const char *st = "1";
  if (op == '*' || op == '+') {
    st = end + 1;
    if (sweep_number(st, &step) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': expected a number after '%c'", name, item, op);
  } else if (op) {
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': unexpected '%s' after the end (A..B, A..B+STEP or A..B*FACTOR)", name, item, end);
  } else {
    op = '+';
  }
  if (b < a)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': the end %s is below the start %s", name, item, b_text, a_text);
  if (op == '*' && !(step > 1))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': the factor after '*' must be above 1", name, item);
  if (op == '*' && !(a > 0))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': a geometric range (*FACTOR) must start above 0", name, item);
  if (op == '+' && !(step > 0))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: bad range '%s': the step after '+' must be above 0", name, item);
  int integral = integral_text(a_text, a) && integral_text(b_text, b) && integral_text(st, step);
  double tol = 1e-9 * fmax(fabs(a), fabs(b));
  size_t before = out->len;
  for (size_t i = 0;; i++) {
    /* from the start each time (no accumulated rounding); rounded again when printed */
    double x = op == '*' ? a * pow(step, (double)i) : a + step * (double)i;
    if (integral) x = round(x);
    if (x > b + tol) break;
    if (out->len - before >= SWEEP_MAX_VALUES)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %s: range '%s' has more than %d values", name, item, SWEEP_MAX_VALUES);
    push_number(out, x, integral);
  }
  return 0;
}

static void free_values(strvec *v) {
  for (size_t i = 0; i < v->len; i++) free(v->data[i]);
  VEC_FREE(*v);
}

int sweep_space_add(sweep_space *s, const char *arg, psim_err *err) {
  const char *eq = strchr(arg, '=');
  size_t nlen = eq ? (size_t)(eq - arg) : 0;
  if (!eq || nlen == 0)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary expects NAME=VALUES (e.g. hosts=4,8,16 or hosts=4..64*2), got '%s'", arg);
  for (size_t i = 0; i < nlen; i++)
    if (!is_name_char((unsigned char)arg[i]))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary: bad parameter name '%.*s' (letters, digits, '_', '-', '.')", (int)nlen, arg);
  if (sweep_space_find(s, arg, nlen) >= 0)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary: parameter '%.*s' given twice", (int)nlen, arg);
  strvec vals = {0};
  char *copy = xstrdup(eq + 1);
  int rc = 0;
  for (char *item = copy, *next; item && rc == 0; item = next) {
    next = strchr(item, ',');
    if (next) *next++ = 0;
    const char *dots = strstr(item, "..");
    if (!*item)
      rc = psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--vary %.*s: empty value in '%s'", (int)nlen, arg, eq + 1);
    else if (dots) {
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)nlen, arg);
      rc = expand_range(name, item, dots, &vals, err);
    } else
      VEC_PUSH(vals, xstrdup(item));
  }
  free(copy);
  if (rc < 0) { free_values(&vals); return -1; }
  sweep_param p = {xstrndup(arg, nlen), vals.data, vals.len};
  VEC_PUSH(s->params, p);
  return 0;
}

int sweep_space_finish(sweep_space *s, psim_err *err) {
  size_t total = s->params.len ? 1 : 0;
  for (size_t i = 0; i < s->params.len; i++) {
    const sweep_param *p = &s->params.data[i];
    if (s->zip) {
      if (p->n != s->params.data[0].n)
        return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--zip: parameter '%s' has %zu values but '%s' has %zu; zipped parameters need as many values each",
                         p->name, p->n, s->params.data[0].name, s->params.data[0].n);
      total = p->n;
    } else {
      if (p->n && total > SWEEP_MAX_CONFIGS / p->n)
        return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "the sweep has more than %zu configurations", SWEEP_MAX_CONFIGS);
      total *= p->n;
    }
  }
  s->total = total;
  return 0;
}

void sweep_space_free(sweep_space *s) {
  for (size_t i = 0; i < s->params.len; i++) {
    sweep_param *p = &s->params.data[i];
    for (size_t j = 0; j < p->n; j++) free(p->values[j]);
    free(p->values);
    free(p->name);
  }
  VEC_FREE(s->params);
}

void sweep_space_config(const sweep_space *s, size_t i, size_t *idx) {
  for (size_t k = s->params.len; k-- > 0;) {
    size_t n = s->params.data[k].n;
    if (s->zip) { idx[k] = i; continue; }
    idx[k] = i % n;
    i /= n;
  }
}

const char *sweep_value(const sweep_space *s, const size_t *idx, size_t p) {
  return s->params.data[p].values[idx[p]];
}

int sweep_space_find(const sweep_space *s, const char *name, size_t n) {
  for (size_t i = 0; i < s->params.len; i++)
    if (strlen(s->params.data[i].name) == n && !memcmp(s->params.data[i].name, name, n)) return (int)i;
  return -1;
}

char *sweep_subst(const sweep_space *s, const size_t *idx, const char *tmpl, char *used, psim_err *err) {
  VEC(char) out = {0};
  for (const char *p = tmpl; *p;) {
    if (*p == '{') {
      const char *q = p + 1;
      while (is_name_char((unsigned char)*q)) q++;
      if (*q == '}' && q > p + 1) {
        int k = sweep_space_find(s, p + 1, (size_t)(q - p - 1));
        if (k < 0) {
          VEC_FREE(out);
          psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "'%s': {%.*s} is not a parameter (define it with --vary %.*s=...)", tmpl,
                    (int)(q - p - 1), p + 1, (int)(q - p - 1), p + 1);
          return NULL;
        }
        if (used) used[k] = 1;
        const char *v = sweep_value(s, idx, (size_t)k);
        size_t n = strlen(v);
        VEC_RESERVE(out, out.len + n);
        memcpy(out.data + out.len, v, n);
        out.len += n;
        p = q + 1;
        continue;
      }
    }
    VEC_PUSH(out, *p);
    p++;
  }
  VEC_PUSH(out, '\0');
  return out.data;
}

int sweep_probes(long lo, long hi, int k, long *out) {
  int n = 0;
  if (k < 1) k = 1;
  long gap = hi - lo;
  if (gap <= 1) return 0;
  if ((long)k > gap - 1) k = (int)(gap - 1);
  for (int j = 1; j <= k; j++) {
    long x = lo + (long)((double)gap * j / (k + 1) + 0.5);
    if (x <= lo) x = lo + 1;
    if (x >= hi) x = hi - 1;
    if (n == 0 || x > out[n - 1]) out[n++] = x;
  }
  return n;
}
