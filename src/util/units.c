/* Units of SimGrid platform files (specs/simgrid-compat.md §2).
 *
 * A value is a number immediately followed by a unit: the unit is a prefix (decimal or, for
 * bytes and bits, binary) glued to a base symbol. We split the suffix into prefix + base and
 * look both up in small tables, rather than listing every combination. */
#include "psim/util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *name; double mult; } unit_entry;

static const unit_entry decimal_prefixes[] = {
  {"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}, {"Z", 1e21}, {"Y", 1e24},
  {NULL, 0}};
static const unit_entry binary_prefixes[] = {
  {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
  {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}, {"Zi", 1180591620717411303424.0},
  {"Yi", 1208925819614629174706176.0}, {NULL, 0}};
static const unit_entry long_prefixes[] = {
  {"", 1}, {"kilo", 1e3}, {"mega", 1e6}, {"giga", 1e9}, {"tera", 1e12}, {"peta", 1e15}, {"exa", 1e18},
  {"zetta", 1e21}, {"yotta", 1e24}, {NULL, 0}};

/* Does `suffix` equal prefix+base for some prefix of `table`? */
static int match_prefixed(const char *suffix, const unit_entry *table, const char *base, double *mult) {
  size_t sl = strlen(suffix), bl = strlen(base);
  if (sl < bl || strcmp(suffix + sl - bl, base) != 0) return 0;
  for (const unit_entry *u = table; u->name; u++) {
    size_t pl = strlen(u->name);
    if (pl == sl - bl && strncmp(suffix, u->name, pl) == 0) { *mult = u->mult; return 1; }
  }
  return 0;
}

/* Parses the leading number; returns the suffix (unit) start, or NULL. */
static const char *leading_number(const char *s, double *v) {
  while (*s == ' ' || *s == '\t') s++;
  char *end = NULL;
  *v = strtod(s, &end);
  if (end == s || !isfinite(*v)) return NULL;
  return end;
}

typedef int (*unit_matcher)(const char *suffix, double *mult);

static int parse_with(const char *s, double *out, int *warned, char *why, size_t whylen,
                      unit_matcher match, const char *kind, const char *expected) {
  double v = 0, mult = 1;
  if (warned) *warned = 0;
  if (!s) s = "";
  const char *u = leading_number(s, &v);
  if (!u) {
    if (why) snprintf(why, whylen, "'%s' is not a %s: expected a number followed by a unit (%s)", s, kind, expected);
    return -1;
  }
  /* Trailing blanks are tolerated, nothing else. */
  char suffix[32];
  size_t n = strlen(u);
  while (n > 0 && (u[n - 1] == ' ' || u[n - 1] == '\t')) n--;
  if (n >= sizeof suffix) goto bad_unit;
  memcpy(suffix, u, n);
  suffix[n] = 0;
  if (n == 0) {
    /* Unit-less: SimGrid accepts it (deprecated) in the base unit; zero is unambiguous. */
    if (v != 0 && warned) *warned = 1;
    *out = v;
    return 0;
  }
  if (!match(suffix, &mult)) goto bad_unit;
  /* A finite number may still overflow with its prefix (1e300YBps): an infinite bandwidth
   * or speed would silently remove the resource from the model. */
  if (!isfinite(v * mult)) {
    if (why) snprintf(why, whylen, "'%s' is too large: expected a %s below %g in the base unit", s, kind, DBL_MAX);
    return -1;
  }
  *out = v * mult;
  return 0;
bad_unit:
  if (why) snprintf(why, whylen, "'%s': unknown %s unit '%.*s' (expected %s)", s, kind, (int)n, u, expected);
  return -1;
}

static int match_speed(const char *suffix, double *mult) {
  return match_prefixed(suffix, decimal_prefixes, "f", mult) ||
         match_prefixed(suffix, long_prefixes, "flops", mult);
}

static int match_bandwidth(const char *suffix, double *mult) {
  if (match_prefixed(suffix, decimal_prefixes, "Bps", mult) || match_prefixed(suffix, binary_prefixes, "Bps", mult))
    return 1;
  if (match_prefixed(suffix, decimal_prefixes, "bps", mult) || match_prefixed(suffix, binary_prefixes, "bps", mult)) {
    *mult /= 8; /* bits */
    return 1;
  }
  return 0;
}

static int match_size(const char *suffix, double *mult) {
  if (match_prefixed(suffix, decimal_prefixes, "B", mult) || match_prefixed(suffix, binary_prefixes, "B", mult))
    return 1;
  if (match_prefixed(suffix, decimal_prefixes, "b", mult) || match_prefixed(suffix, binary_prefixes, "b", mult)) {
    *mult /= 8;
    return 1;
  }
  return 0;
}

static int match_time(const char *suffix, double *mult) {
  static const unit_entry t[] = {{"w", 604800}, {"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1},
                                 {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {NULL, 0}};
  for (const unit_entry *u = t; u->name; u++)
    if (strcmp(suffix, u->name) == 0) { *mult = u->mult; return 1; }
  return 0;
}

int psim_unit_speed(const char *s, double *out, int *warned, char *why, size_t whylen) {
  /* A comma list gives the power states; the first one is the nominal speed. */
  char first[128];
  const char *comma = s ? strchr(s, ',') : NULL;
  if (comma) {
    size_t n = (size_t)(comma - s);
    if (n >= sizeof first) n = sizeof first - 1;
    memcpy(first, s, n);
    first[n] = 0;
    s = first;
  }
  return parse_with(s, out, warned, why, whylen, match_speed, "speed", "f or flops with a decimal prefix, e.g. 1Gf");
}

int psim_unit_bandwidth(const char *s, double *out, int *warned, char *why, size_t whylen) {
  return parse_with(s, out, warned, why, whylen, match_bandwidth, "bandwidth",
                    "Bps or bps with a decimal (k M G ...) or binary (Ki Mi Gi ...) prefix, e.g. 125MBps");
}

int psim_unit_time(const char *s, double *out, int *warned, char *why, size_t whylen) {
  return parse_with(s, out, warned, why, whylen, match_time, "time", "w d h m s ms us ns ps, e.g. 50us");
}

int psim_unit_size(const char *s, double *out, int *warned, char *why, size_t whylen) {
  return parse_with(s, out, warned, why, whylen, match_size, "size",
                    "B or b with a decimal or binary prefix, e.g. 1MiB");
}
