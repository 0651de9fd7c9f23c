/* One TIT line -> one tit_action (see specs/simgrid-compat.md §1 for the actions).
 *
 * This is the replay's hot path: no allocation per line (v-collective arrays are kept per
 * rank), no copy, fields are walked in place and numbers parsed with an integer fast path
 * before psim_parse_double. Argument checks follow SimGrid's parsers (mandatory arguments,
 * optional trailing ones, extra fields ignored), with psim's stricter number and range checks
 * so that a bad trace gets a precise message instead of undefined behaviour. */
#include "tit_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes on LP64 (SimGrid's Datatype::decode order; specs/simgrid-compat.md §1). */
static const signed char dt_sizes[60] = {
    8, 4, 1, 2, 8, 4, 1, 8,          /* 0 double int char short long float byte long-long */
    1, 1, 2, 4, 8, 8, 16, 4,         /* 8 schar uchar ushort unsigned ulong ull long-double wchar */
    1, 1, 2, 4, 8, 1, 2, 4, 8,       /* 16 C bool, int8..int64, uint8..uint64 */
    8, 16, 32,                       /* 25 C complex float/double/long double */
    8, 8,                            /* 28 Aint Offset */
    8, 16, 16, 8, 8, 8, 16, 16,      /* 30 float_int long_int double_int short_int 2int 2float 2double 2long */
    4, 4, 8, 16, 8, 16, 32,          /* 38 REAL REAL4 REAL8 REAL16 COMPLEX8/16/32 */
    1, 2, 4, 8, 16,                  /* 45 INTEGER1..16 */
    32, 1, 8, 16, 32,                /* 50 long_double_int, C++ bool, C++ complex x3 */
    0, 0, 1, 8, 8};                  /* 55 UB LB PACKED PTR COUNT */

int tit_datatype_size(int code) {
  if (code < 0 || code >= (int)sizeof dt_sizes) return -1;
  return dt_sizes[code];
}

static const char *const kind_names[TIT_NKINDS] = {
    [TIT_INIT] = "init", [TIT_FINALIZE] = "finalize", [TIT_NOOP] = "comm_size",
    [TIT_SEND] = "send", [TIT_ISEND] = "isend", [TIT_RECV] = "recv", [TIT_IRECV] = "irecv",
    [TIT_SENDRECV] = "sendRecv", [TIT_WAIT] = "wait", [TIT_TEST] = "test",
    [TIT_WAITALL] = "waitall", [TIT_BARRIER] = "barrier", [TIT_BCAST] = "bcast",
    [TIT_REDUCE] = "reduce", [TIT_ALLREDUCE] = "allreduce", [TIT_ALLTOALL] = "alltoall",
    [TIT_ALLTOALLV] = "alltoallv", [TIT_GATHER] = "gather", [TIT_ALLGATHER] = "allgather",
    [TIT_GATHERV] = "gatherv", [TIT_ALLGATHERV] = "allgatherv", [TIT_SCATTER] = "scatter",
    [TIT_SCATTERV] = "scatterv", [TIT_REDUCESCATTER] = "reducescatter", [TIT_SCAN] = "scan",
    [TIT_EXSCAN] = "exscan", [TIT_COMPUTE] = "compute", [TIT_SLEEP] = "sleep",
    [TIT_LOCATION] = "location", [TIT_MIGRATE] = "migrate", [TIT_ITERATION] = "iteration"};

const char *tit_kind_name(tit_kind k) {
  if ((int)k < 0 || k >= TIT_NKINDS) return "?";
  return kind_names[k];
}

/* Every accepted name (SimGrid's registered actions, case-sensitive, plus psim's migrate). */
#define A(name, kind, usage) {name, sizeof(name) - 1, kind, usage}
static struct action_def {
  const char *name;
  size_t len;
  tit_kind kind;
  const char *usage;
} const actions[] = {
    A("init", TIT_INIT, "init [x]"),
    A("finalize", TIT_FINALIZE, "finalize"),
    A("comm_size", TIT_NOOP, "comm_size [...]"),
    A("comm_split", TIT_NOOP, "comm_split [...]"),
    A("comm_dup", TIT_NOOP, "comm_dup [...]"),
    A("send", TIT_SEND, "send dst tag count [dt]"),
    A("isend", TIT_ISEND, "isend dst tag count [dt]"),
    A("recv", TIT_RECV, "recv src tag count [dt]"),
    A("irecv", TIT_IRECV, "irecv src tag count [dt]"),
    A("sendRecv", TIT_SENDRECV, "sendRecv sendcount dst recvcount src [sdt rdt]"),
    A("wait", TIT_WAIT, "wait src dst tag"),
    A("test", TIT_TEST, "test src dst tag"),
    A("waitall", TIT_WAITALL, "waitall [n]"),
    A("barrier", TIT_BARRIER, "barrier"),
    A("bcast", TIT_BCAST, "bcast count [root] [dt]"),
    A("reduce", TIT_REDUCE, "reduce count flops [root] [dt]"),
    A("allreduce", TIT_ALLREDUCE, "allreduce count flops [dt]"),
    A("alltoall", TIT_ALLTOALL, "alltoall sendcount recvcount [sdt] [rdt]"),
    A("alltoallv", TIT_ALLTOALLV,
     "alltoallv sendbufsize sc_0..sc_{n-1} recvbufsize rc_0..rc_{n-1} [sdt rdt]"),
    A("gather", TIT_GATHER, "gather sendcount recvcount [root] [sdt] [rdt]"),
    A("allgather", TIT_ALLGATHER, "allgather sendcount recvcount [sdt] [rdt]"),
    A("gatherv", TIT_GATHERV, "gatherv sendcount rc_0..rc_{n-1} [root] [sdt] [rdt]"),
    A("allgatherv", TIT_ALLGATHERV, "allgatherv sendcount rc_0..rc_{n-1} [dt] [disp_0..disp_{n-1}]"),
    A("scatter", TIT_SCATTER, "scatter sendcount recvcount [root] [sdt] [rdt]"),
    A("scatterv", TIT_SCATTERV, "scatterv sc_0..sc_{n-1} recvcount [root] [sdt] [rdt]"),
    A("reducescatter", TIT_REDUCESCATTER, "reducescatter rc_0..rc_{n-1} flops [dt]"),
    A("scan", TIT_SCAN, "scan count flops [dt]"),
    A("exscan", TIT_EXSCAN, "exscan count flops [dt]"),
    A("compute", TIT_COMPUTE, "compute flops"),
    A("sleep", TIT_SLEEP, "sleep seconds"),
    A("location", TIT_LOCATION, "location file line"),
    A("migrate", TIT_MIGRATE, "migrate [bytes]"),
    A("iteration", TIT_ITERATION, "iteration"),
};
#define NACTIONS ((int)(sizeof actions / sizeof actions[0]))
#define ACTION_LIST                                                                           \
  "init, finalize, comm_size, comm_split, comm_dup, send, isend, recv, irecv, sendRecv, "     \
  "wait, test, waitall, barrier, bcast, reduce, allreduce, alltoall, alltoallv, gather, "     \
  "allgather, gatherv, allgatherv, scatter, scatterv, reducescatter, scan, exscan, compute, " \
  "sleep, location, migrate, iteration"

/* Index in actions[] of the name [s, s+n), or -1: dispatched on the length, then the first
 * letter, then one fixed-length comparison (which the compiler turns into word compares). */
#define EQ(lit) (memcmp(s, lit, sizeof(lit) - 1) == 0)
static inline int lookup(const char *s, size_t n) {
  switch (n) {
    case 4:
      switch (s[0]) {
        case 'i': return EQ("init") ? 0 : -1;
        case 's': return EQ("send") ? 5 : EQ("scan") ? 26 : -1;
        case 'r': return EQ("recv") ? 7 : -1;
        case 'w': return EQ("wait") ? 10 : -1;
        case 't': return EQ("test") ? 11 : -1;
      }
      return -1;
    case 5:
      switch (s[0]) {
        case 'i': return EQ("irecv") ? 8 : EQ("isend") ? 6 : -1;
        case 'b': return EQ("bcast") ? 14 : -1;
        case 's': return EQ("sleep") ? 29 : -1;
      }
      return -1;
    case 6:
      switch (s[0]) {
        case 'r': return EQ("reduce") ? 15 : -1;
        case 'g': return EQ("gather") ? 19 : -1;
        case 'e': return EQ("exscan") ? 27 : -1;
      }
      return -1;
    case 7:
      switch (s[0]) {
        case 'w': return EQ("waitall") ? 12 : -1;
        case 'c': return EQ("compute") ? 28 : -1;
        case 'b': return EQ("barrier") ? 13 : -1;
        case 'g': return EQ("gatherv") ? 21 : -1;
        case 's': return EQ("scatter") ? 23 : -1;
        case 'm': return EQ("migrate") ? 31 : -1;
      }
      return -1;
    case 8:
      switch (s[0]) {
        case 'f': return EQ("finalize") ? 1 : -1;
        case 'c': return EQ("comm_dup") ? 4 : -1;
        case 's': return EQ("sendRecv") ? 9 : EQ("scatterv") ? 24 : -1;
        case 'a': return EQ("alltoall") ? 17 : -1;
        case 'l': return EQ("location") ? 30 : -1;
      }
      return -1;
    case 9:
      switch (s[0]) {
        case 'c': return EQ("comm_size") ? 2 : -1;
        case 'i': return EQ("iteration") ? 32 : -1;
        case 'a': return EQ("allreduce") ? 16 : EQ("alltoallv") ? 18 : EQ("allgather") ? 20 : -1;
      }
      return -1;
    case 10:
      return EQ("allgatherv") ? 22 : EQ("comm_split") ? 3 : -1;
    case 13:
      return EQ("reducescatter") ? 25 : -1;
  }
  return -1;
}
#undef EQ

/* Walks the fields of one line. */
typedef struct tok {
  const char *p, *e;   /* the rest of the line */
  const char *file;
  long line;
  psim_err *err;
  int act;             /* index in actions[] */
} tok;

static inline int next(tok *t, const char **s, const char **se) {
  const char *p = t->p, *e = t->e;
  while (p < e && tit_is_blank(*p)) p++;
  if (p == e) {
    t->p = p;
    return 0;
  }
  const char *q = p;
  while (q < e && !tit_is_blank(*q)) q++;
  *s = p;
  *se = q;
  t->p = q;
  return 1;
}

static int count_fields(const tok *t) {
  int n = 0;
  const char *p = t->p, *e = t->e;
  for (;;) {
    while (p < e && tit_is_blank(*p)) p++;
    if (p == e) return n;
    n++;
    while (p < e && !tit_is_blank(*p)) p++;
  }
}

__attribute__((noinline, cold)) static int missing(tok *t, const char *what) {
  return psim_errf(t->err, PSIM_EXIT_INPUT, t->file, t->line,
                   "%s: missing argument %s; usage: <rank> %s", actions[t->act].name, what,
                   actions[t->act].usage);
}

/* Number in [s, se) with an integer fast path; 0 or -1 when it is not a finite number. */
static inline int parse_number(const char *s, const char *se, double *v) {
  const char *p = s;
  uint64_t x = 0;
  while (p < se && p - s < 18 && (unsigned)(*p - '0') < 10) x = x * 10 + (uint64_t)(*p++ - '0');
  if (p == se && p > s) {
    *v = (double)x;
    return 0;
  }
  const char *q = psim_parse_double(s, se, v);
  if (!q || q != se || !isfinite(*v)) return -1;
  return 0;
}

const char *tit_show(const char *s, const char *se, char *buf) {
  static const char hex[] = "0123456789abcdef";
  char *o = buf;
  for (const char *p = s; p < se && p - s < TIT_SHOW_MAX; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      *o++ = (char)c;
    } else {
      *o++ = '\\';
      *o++ = 'x';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    }
  }
  *o = 0;
  return buf;
}

int tit_is_binary(const char *s, const char *se) {
  for (const char *p = s; p < se; p++)
    if ((unsigned char)*p < 0x20 && *p != '\t') return 1;
  return 0;
}

__attribute__((noinline, cold)) static int bad_number(tok *t, const char *what, const char *s, const char *se, const char *expected) {
  char shown[TIT_SHOW_BUF];
  return psim_errf(t->err, PSIM_EXIT_INPUT, t->file, t->line,
                   "%s: argument %s: expected %s, got '%s'; usage: <rank> %s",
                   actions[t->act].name, what, expected, tit_show(s, se, shown), actions[t->act].usage);
}

/* Plain decimal digits at the start of the rest of the line, read in the same pass that finds
 * the field: 1 with its value in *x when the field is nothing but up to `maxd` digits, 0
 * otherwise, -1 when no field is left. In both first cases [*s, *se) is the field and t has
 * moved past it. */
static inline __attribute__((always_inline)) int digits_field(tok *t, int maxd, uint64_t *x,
                                                              const char **s, const char **se) {
  const char *p = t->p, *e = t->e;
  while (p < e && tit_is_blank(*p)) p++;
  if (p == e) {
    t->p = p;
    return -1;
  }
  const char *b = p;
  uint64_t v = 0;
  while (p < e && p - b < maxd && (unsigned)(*p - '0') < 10) v = v * 10 + (uint64_t)(*p++ - '0');
  if (p > b && (p == e || tit_is_blank(*p))) {
    t->p = p;
    *s = b;
    *se = p;
    *x = v;
    return 1;
  }
  while (p < e && !tit_is_blank(*p)) p++;
  t->p = p;
  *s = b;
  *se = p;
  return 0;
}

/* A mandatory number: 1 when it was plain digits (an exact integer), 0 otherwise, -1 on error. */
static inline __attribute__((always_inline)) int num_arg(tok *t, const char *what, double *v) {
  const char *s, *se;
  uint64_t x;
  int r = digits_field(t, 18, &x, &s, &se);
  if (r > 0) {
    *v = (double)x;
    return 1;
  }
  if (r < 0) return missing(t, what);
  if (parse_number(s, se, v) < 0) return bad_number(t, what, s, se, "a number");
  return 0;
}

/* A non-negative amount (flops, seconds, count); counts are truncated as SimGrid does. Returns
 * as num_arg. */
static inline __attribute__((always_inline)) int amount_arg(tok *t, const char *what, double *v, int truncate) {
  const char *s, *se;
  uint64_t x;
  int r = digits_field(t, 18, &x, &s, &se);
  if (r > 0) { /* an integer: non-negative, nothing to truncate */
    *v = (double)x;
    return 1;
  }
  if (r < 0) return missing(t, what);
  if (parse_number(s, se, v) < 0 || *v < 0)
    return bad_number(t, what, s, se, "a non-negative number");
  if (truncate) *v = trunc(*v);
  return 0;
}

/* An integer field in [lo, hi] (numbers are truncated, as SimGrid's std::stoi would). */
static inline int int_field(tok *t, const char *what, const char *s, const char *se, long lo,
                            long hi, int is_rank, int *out) {
  if (se - s <= 9) { /* fast path: plain decimal digits */
    const char *p = s;
    long x = 0;
    while (p < se && (unsigned)(*p - '0') < 10) x = x * 10 + (*p++ - '0');
    if (p == se && p > s && x >= lo && x <= hi) {
      *out = (int)x;
      return 0;
    }
  }
  double v;
  if (parse_number(s, se, &v) < 0) return bad_number(t, what, s, se, "an integer");
  v = trunc(v);
  if (v < (double)lo || v > (double)hi) {
    if (is_rank)
      return psim_errf(t->err, PSIM_EXIT_INPUT, t->file, t->line,
                       "%s: argument %s: rank %.0f out of range, expected 0..%ld "
                       "(communicator of %ld ranks)%s",
                       actions[t->act].name, what, v, hi, hi + 1,
                       /* SMPI's tracer writes MPI_ANY_SOURCE as its value, -333 (smpi.h);
                        * SimGrid's replay cannot replay it either (it aborts) */
                       v == -333 ? "; -333 is how SMPI's tracer writes MPI_ANY_SOURCE, which "
                                   "trace replay does not support (nor does SimGrid's)" : "");
    return bad_number(t, what, s, se, "an integer in range");
  }
  *out = (int)v;
  return 0;
}

static inline __attribute__((always_inline)) int int_arg(tok *t, const char *what, long lo, long hi, int is_rank, int *out) {
  const char *s, *se;
  uint64_t x;
  int r = digits_field(t, 9, &x, &s, &se);
  if (r > 0 && (long)x >= lo && (long)x <= hi) {
    *out = (int)x;
    return 0;
  }
  if (r < 0) return missing(t, what);
  return int_field(t, what, s, se, lo, hi, is_rank, out);
}

/* Optional trailing argument: 0 absent, 1 present, -1 error. */
static inline int opt_int(tok *t, const char *what, long lo, long hi, int is_rank, int *out) {
  const char *s, *se;
  if (!next(t, &s, &se)) return 0;
  return int_field(t, what, s, se, lo, hi, is_rank, out) < 0 ? -1 : 1;
}

static int dt_field(tok *t, const char *what, const char *s, const char *se, int *size) {
  double v;
  if (parse_number(s, se, &v) < 0 || v != trunc(v) || tit_datatype_size((int)(v < 0 || v > 99 ? -1 : v)) < 0) {
    char shown[TIT_SHOW_BUF];
    return psim_errf(t->err, PSIM_EXIT_INPUT, t->file, t->line,
                     "%s: argument %s: unknown datatype code '%s', expected 0..59; usage: <rank> %s",
                     actions[t->act].name, what, tit_show(s, se, shown), actions[t->act].usage);
  }
  *size = tit_datatype_size((int)v);
  return 0;
}

/* count elements of dt bytes into *bytes. A count that parses may still overflow once
 * multiplied (1e308 doubles): an infinite message would be simulated as if it were finite. */
__attribute__((noinline, cold)) static int too_many_bytes(tok *t, const char *what, double count, int dt) {
  return psim_errf(t->err, PSIM_EXIT_INPUT, t->file, t->line,
                   "%s: argument %s: %g elements of %d bytes (its datatype) overflow the byte count; "
                   "expected fewer elements; usage: <rank> %s",
                   actions[t->act].name, what, count, dt, actions[t->act].usage);
}

static inline int bytes_of(tok *t, const char *what, double count, int dt, double *bytes) {
  double b = count * dt;
  if (__builtin_expect(isinf(b), 0)) return too_many_bytes(t, what, count, dt);
  *bytes = b;
  return 0;
}

/* Optional datatype code: leaves *size (the default) when absent. */
static inline int opt_dt(tok *t, const char *what, int *size) {
  const char *s, *se;
  if (!next(t, &s, &se)) return 0;
  return dt_field(t, what, s, se, size) < 0 ? -1 : 1;
}

/* n counts into dst (element counts, truncated; sizes applied by the caller). */
static int counts_arg(tok *t, const char *prefix, int n, double *dst) {
  for (int i = 0; i < n; i++) {
    const char *s, *se;
    char what[96];
    if (!next(t, &s, &se)) {
      snprintf(what, sizeof what, "%s_%d (%d values expected, one per rank)", prefix, i, n);
      return missing(t, what);
    }
    if (parse_number(s, se, &dst[i]) < 0 || dst[i] < 0) {
      snprintf(what, sizeof what, "%s_%d", prefix, i);
      return bad_number(t, what, s, se, "a non-negative number");
    }
    dst[i] = trunc(dst[i]);
  }
  return 0;
}

/* v-collective counts into bytes (bytes_of for each, named prefix_i). */
static int scale(tok *t, const char *prefix, double *v, int n, int size) {
  for (int i = 0; i < n; i++) {
    double b = v[i] * size;
    if (__builtin_expect(isinf(b), 0)) {
      char what[48];
      snprintf(what, sizeof what, "%s_%d", prefix, i);
      return too_many_bytes(t, what, v[i], size);
    }
    v[i] = b;
  }
  return 0;
}

static double *counts_storage(tit_rank_state *rs, int nranks) {
  if (rs->ncounts < 2 * nranks) {
    free(rs->counts);
    rs->counts = xmalloc(sizeof(double) * 2 * (size_t)nranks);
    rs->ncounts = 2 * nranks;
  }
  return rs->counts;
}

void tit_rank_state_free(tit_rank_state *rs) {
  free(rs->counts);
  rs->counts = NULL;
  rs->ncounts = 0;
}

int tit_parse_rank(const char *p, const char *e, long *out) {
  int neg = 0;
  if (p < e && *p == '-') {
    neg = 1;
    p++;
  }
  if (p == e || e - p > 10) return -1;
  long v = 0;
  for (; p < e; p++) {
    if ((unsigned)(*p - '0') >= 10) return -1;
    v = v * 10 + (*p - '0');
  }
  *out = neg ? -v : v;
  return 0;
}

int tit_parse_action(const char *p, const char *e, int nranks, tit_rank_state *rs, tit_action *a,
                     const char *file, long line, psim_err *err) {
  tok t = {p, e, file, line, err, 0};
  const char *s, *se;
  a->text = p;
  a->text_len = (int)(e - p);
  a->file = file;
  a->line = line;
  a->peer = a->peer2 = a->root = a->tag = 0;
  a->bytes = a->bytes2 = a->amount = 0;
  a->counts = a->counts2 = NULL;
  a->ncounts = 0;
  a->dtsize = 0;
  if (!next(&t, &s, &se))
    return psim_errf(err, PSIM_EXIT_INPUT, file, line, "missing action name after the rank");
  int i = lookup(s, (size_t)(se - s));
  if (i < 0) {
    char shown[TIT_SHOW_BUF];
    return psim_errf(err, PSIM_EXIT_INPUT, file, line,
                     "action %s is unknown; expected one of " ACTION_LIST, tit_show(s, se, shown));
  }
  t.act = i;
  tit_kind k = actions[i].kind;
  a->kind = k;
  const long maxr = nranks - 1;
  int dt = rs->dt_size ? rs->dt_size : 1, dt2, r; /* 0: no init yet, MPI_BYTE */
  double v, v2;
  /* v-collective arrays live only while their action is current. */
  if (rs->counts && k != TIT_ALLTOALLV && k != TIT_GATHERV && k != TIT_ALLGATHERV &&
      k != TIT_SCATTERV && k != TIT_REDUCESCATTER)
    tit_rank_state_free(rs);

  switch (k) {
    case TIT_INIT:
      /* Any argument selects MPI_DOUBLE (MPE convention), none MPI_BYTE (TAU). */
      rs->dt_size = next(&t, &s, &se) ? 8 : 1;
      return 0;
    case TIT_FINALIZE: case TIT_NOOP: case TIT_WAITALL: case TIT_BARRIER:
      return 0;
    case TIT_SEND: case TIT_ISEND: case TIT_RECV: case TIT_IRECV: {
      int recv = (k == TIT_RECV || k == TIT_IRECV);
      if (int_arg(&t, recv ? "src" : "dst", 0, maxr, 1, &a->peer) < 0) return -1;
      if (int_arg(&t, "tag", INT32_MIN, INT32_MAX, 0, &a->tag) < 0) return -1;
      int exact = recv ? num_arg(&t, "count", &v) : amount_arg(&t, "count", &v, 1);
      if (exact < 0) return -1;
      if (opt_dt(&t, "dt", &dt) < 0) return -1;
      /* plain digits: a non-negative integer already; a negative receive count: probe */
      if (!exact && v < 0) {
        a->bytes = -1;
        return 0;
      }
      return bytes_of(&t, "count", exact ? v : trunc(v), dt, &a->bytes);
    }
    case TIT_SENDRECV:
      dt2 = dt;
      if (amount_arg(&t, "sendcount", &v, 1) < 0) return -1;
      if (int_arg(&t, "dst", 0, maxr, 1, &a->peer) < 0) return -1;
      if (amount_arg(&t, "recvcount", &v2, 1) < 0) return -1;
      if (int_arg(&t, "src", 0, maxr, 1, &a->peer2) < 0) return -1;
      if (opt_dt(&t, "sdt", &dt) < 0 || opt_dt(&t, "rdt", &dt2) < 0) return -1;
      if (bytes_of(&t, "sendcount", v, dt, &a->bytes) < 0) return -1;
      return bytes_of(&t, "recvcount", v2, dt2, &a->bytes2);
    case TIT_WAIT: case TIT_TEST:
      /* Keys of pending requests, not checked against the communicator (SimGrid treats an
       * unknown key as an already completed request). */
      if (int_arg(&t, "src", INT32_MIN, INT32_MAX, 0, &a->peer) < 0) return -1;
      if (int_arg(&t, "dst", INT32_MIN, INT32_MAX, 0, &a->peer2) < 0) return -1;
      return int_arg(&t, "tag", INT32_MIN, INT32_MAX, 0, &a->tag);
    case TIT_BCAST:
      if (amount_arg(&t, "count", &v, 1) < 0) return -1;
      if (opt_int(&t, "root", 0, maxr, 1, &a->root) < 0) return -1;
      if (opt_dt(&t, "dt", &dt) < 0) return -1;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return bytes_of(&t, "count", v, dt, &a->bytes);
    case TIT_REDUCE:
      if (amount_arg(&t, "count", &v, 1) < 0) return -1;
      if (amount_arg(&t, "flops", &a->amount, 0) < 0) return -1;
      if (opt_int(&t, "root", 0, maxr, 1, &a->root) < 0) return -1;
      if (opt_dt(&t, "dt", &dt) < 0) return -1;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return bytes_of(&t, "count", v, dt, &a->bytes);
    case TIT_ALLREDUCE: case TIT_SCAN: case TIT_EXSCAN:
      if (amount_arg(&t, "count", &v, 1) < 0) return -1;
      if (amount_arg(&t, "flops", &a->amount, 0) < 0) return -1;
      if (opt_dt(&t, "dt", &dt) < 0) return -1;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return bytes_of(&t, "count", v, dt, &a->bytes);
    case TIT_ALLTOALL: case TIT_ALLGATHER: case TIT_GATHER: case TIT_SCATTER:
      dt2 = dt;
      if (amount_arg(&t, "sendcount", &v, 1) < 0) return -1;
      if (amount_arg(&t, "recvcount", &v2, 1) < 0) return -1;
      if ((k == TIT_GATHER || k == TIT_SCATTER) && opt_int(&t, "root", 0, maxr, 1, &a->root) < 0)
        return -1;
      if (opt_dt(&t, "sdt", &dt) < 0 || opt_dt(&t, "rdt", &dt2) < 0) return -1;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      if (bytes_of(&t, "sendcount", v, dt, &a->bytes) < 0) return -1;
      return bytes_of(&t, "recvcount", v2, dt2, &a->bytes2);
    case TIT_ALLTOALLV: {
      double *c = counts_storage(rs, nranks), *c2 = c + nranks;
      dt2 = dt;
      if (amount_arg(&t, "sendbufsize", &v, 1) < 0) return -1;
      if (counts_arg(&t, "sc", nranks, c) < 0) return -1;
      if (amount_arg(&t, "recvbufsize", &v2, 1) < 0) return -1;
      if (counts_arg(&t, "rc", nranks, c2) < 0) return -1;
      /* SimGrid reads the datatypes only when both are given. */
      if (count_fields(&t) >= 2 && (opt_dt(&t, "sdt", &dt) < 0 || opt_dt(&t, "rdt", &dt2) < 0))
        return -1;
      if (scale(&t, "sc", c, nranks, dt) < 0 || scale(&t, "rc", c2, nranks, dt2) < 0) return -1;
      if (bytes_of(&t, "sendbufsize", v, dt, &a->bytes) < 0 || bytes_of(&t, "recvbufsize", v2, dt2, &a->bytes2) < 0)
        return -1;
      a->counts = c;
      a->counts2 = c2;
      a->ncounts = nranks;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return 0;
    }
    case TIT_GATHERV: case TIT_ALLGATHERV: {
      double *c2 = counts_storage(rs, nranks) + nranks;
      dt2 = dt;
      if (amount_arg(&t, "sendcount", &v, 1) < 0) return -1;
      if (counts_arg(&t, "rc", nranks, c2) < 0) return -1;
      if (k == TIT_GATHERV) {
        if (opt_int(&t, "root", 0, maxr, 1, &a->root) < 0) return -1;
        if (opt_dt(&t, "sdt", &dt) < 0 || opt_dt(&t, "rdt", &dt2) < 0) return -1;
      } else {
        /* SimGrid: one datatype code (used for both sides) optionally followed by n
         * displacements; 3..n trailing fields are displacements alone. */
        int rest = count_fields(&t);
        if (rest == 1 || rest == 2 || rest > nranks) {
          if (opt_dt(&t, "dt", &dt) < 0) return -1;
          dt2 = dt;
        }
      }
      if (scale(&t, "rc", c2, nranks, dt2) < 0 || bytes_of(&t, "sendcount", v, dt, &a->bytes) < 0) return -1;
      a->counts2 = c2;
      a->ncounts = nranks;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return 0;
    }
    case TIT_SCATTERV: {
      double *c = counts_storage(rs, nranks);
      dt2 = dt;
      if (counts_arg(&t, "sc", nranks, c) < 0) return -1;
      if (amount_arg(&t, "recvcount", &v2, 1) < 0) return -1;
      if (opt_int(&t, "root", 0, maxr, 1, &a->root) < 0) return -1;
      if (opt_dt(&t, "sdt", &dt) < 0 || opt_dt(&t, "rdt", &dt2) < 0) return -1;
      if (scale(&t, "sc", c, nranks, dt) < 0 || bytes_of(&t, "recvcount", v2, dt2, &a->bytes2) < 0) return -1;
      a->counts = c;
      a->ncounts = nranks;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return 0;
    }
    case TIT_REDUCESCATTER: {
      double *c2 = counts_storage(rs, nranks) + nranks;
      if (counts_arg(&t, "rc", nranks, c2) < 0) return -1;
      if (amount_arg(&t, "flops", &a->amount, 0) < 0) return -1;
      if (opt_dt(&t, "dt", &dt) < 0) return -1;
      if (scale(&t, "rc", c2, nranks, dt) < 0) return -1;
      a->counts2 = c2;
      a->ncounts = nranks;
      a->dtsize = dt;   /* the (send) element size collectives decide on */
      return 0;
    }
    case TIT_COMPUTE:
      return amount_arg(&t, "flops", &a->amount, 0) < 0 ? -1 : 0;
    case TIT_SLEEP:
      return amount_arg(&t, "seconds", &a->amount, 0) < 0 ? -1 : 0;
    case TIT_LOCATION:
      if (!next(&t, &s, &se)) return missing(&t, "file");
      return int_arg(&t, "line", INT32_MIN, INT32_MAX, 0, &r);
    case TIT_MIGRATE:
      a->bytes = -1;
      if (next(&t, &s, &se)) {
        if (parse_number(s, se, &v) < 0 || v < 0)
          return bad_number(&t, "bytes", s, se, "a non-negative number");
        a->bytes = trunc(v);
      }
      return 0;
    case TIT_ITERATION:
      return 0;
    case TIT_NKINDS:
      break;
  }
  return psim_errf(err, PSIM_EXIT_INPUT, file, line, "internal error: unhandled action");
}
