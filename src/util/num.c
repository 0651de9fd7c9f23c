/* Number parsing for trace readers.
 *
 * Traces hold millions of numbers; strtod is correct but slow and needs a NUL-terminated
 * string. The fast path below is exact (the "Clinger fast path"): when the decimal mantissa
 * fits in 53 bits and the power of ten is at most 22, mantissa * 10^e (or / 10^-e) is one
 * correctly rounded IEEE operation on exact operands. Anything else goes to strtod. */
#include "psim/util.h"

#include <stdlib.h>
#include <string.h>

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char *slow_path(const char *s, const char *end, double *out) {
  char buf[128];
  size_t n = (size_t)(end - s);
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *e;
  double v = strtod(buf, &e);
  if (e == buf) return NULL;
  *out = v;
  return s + (e - buf);
}

const char *psim_parse_double(const char *s, const char *end, double *out) {
  const char *p = s;
  int neg = 0;
  if (p < end && (*p == '-' || *p == '+')) neg = (*p++ == '-');
  uint64_t mant = 0;
  int digits = 0, frac_digits = 0, any = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    if (digits < 19) { mant = mant * 10 + (uint64_t)(*p - '0'); if (mant) digits++; }
    else return slow_path(s, end, out);
    p++; any = 1;
  }
  if (p < end && *p == '.') {
    p++;
    while (p < end && *p >= '0' && *p <= '9') {
      if (digits < 19) { mant = mant * 10 + (uint64_t)(*p - '0'); if (mant) digits++; frac_digits++; }
      else return slow_path(s, end, out);
      p++; any = 1;
    }
  }
  if (!any) return slow_path(s, end, out); /* "inf", "nan", or not a number */
  int exp10 = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    int eneg = 0, edig = 0, ev = 0;
    if (q < end && (*q == '-' || *q == '+')) eneg = (*q++ == '-');
    while (q < end && *q >= '0' && *q <= '9') {
      if (ev < 10000) ev = ev * 10 + (*q - '0');
      q++; edig++;
    }
    if (edig) { exp10 = eneg ? -ev : ev; p = q; }
  }
  if (p < end && (*p == 'x' || *p == 'X' || (*p >= 'a' && *p <= 'z' && *p != 'e')))
    return slow_path(s, end, out); /* hex floats and the like: let strtod decide */
  int e = exp10 - frac_digits;
  if (mant >> 53) return slow_path(s, end, out);
  double v = (double)mant;
  if (mant == 0) v = 0.0;
  else if (e >= 0 && e <= 22) v *= pow10_exact[e];
  else if (e < 0 && e >= -22) v /= pow10_exact[-e];
  else return slow_path(s, end, out);
  *out = neg ? -v : v;
  return p;
}
