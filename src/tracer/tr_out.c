/* The tracer's output and clock: the time outside MPI calls as `compute`, action lines in
 * program order (with holes for receives whose source is known only at completion), one
 * file per rank. The conventions are psim run's recorder's (src/emul/emu_trace.c), so that
 * both write the same lines for the same calls. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <zlib.h>
#include <zstd.h>

#include "tracer.h"

tr_state tr;

enum { FLUSH_AT = 1 << 16 };

static clockid_t clock_id = CLOCK_MONOTONIC;
/* The rank's file: plain, or compressed as PSIMTRACE_COMPRESS says (gzip: rank-N.txt.gz,
 * zstd: rank-N.txt.zst), which psim's trace reader recognises by their magic bytes. */
enum { Z_PLAIN, Z_GZIP, Z_ZSTD };
static int zkind;
static FILE *out;
static gzFile gz;
static ZSTD_CCtx *zc;
static char *zbuf;
static size_t zcap;
static char *buf;                   /* complete lines not yet written */
static size_t blen, bcap;
static char **q;                    /* lines behind a hole (NULL = the hole itself) */
static size_t qhead, qlen, qcap;
static long qbase, next_id;
static char dir[4096];
static int write_failed;
static char head[16];               /* "RANK " */
static int hlen;

const char *tr_dir(void) { return dir; }

double tr_now(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int tr_enter(void) {
  if (!tr.on || tr.depth) return 0;   /* a nested call (the MPI's own) goes to PMPI alone */
  tr.depth = 1;
  double t = tr_now();
  tr.t_enter = t;
  tr.carry += t - tr.t_leave;
  return 1;
}

void tr_leave(void) {
  tr.depth = 0;
  tr.t_leave = tr_now();
  if (tr.own_from > 0) tr.own += tr.t_leave - tr.own_from, tr.own_from = 0;
  if (tr.polling) {   /* the whole call, the tracer's own time in it too */
    tr.polled += tr.t_leave - tr.t_enter;
    tr.polling = 0;
  }
}

/* n bytes of p through the rank's compressor (mode: ZSTD_e_continue, or ZSTD_e_end to close
 * the frame) into its file. */
static void zstd_write(const char *p, size_t n, ZSTD_EndDirective mode) {
  ZSTD_inBuffer in = {p, n, 0};
  size_t left;
  do {
    ZSTD_outBuffer o = {zbuf, zcap, 0};
    left = ZSTD_compressStream2(zc, &o, &in, mode);
    if (ZSTD_isError(left)) { write_failed = 1; return; }
    if (o.pos && fwrite(zbuf, 1, o.pos, out) != o.pos) { write_failed = 1; return; }
  } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
}

static void flush_buf(int force) {
  if (!blen || (!force && blen < FLUSH_AT)) return;
  if (zkind == Z_GZIP) {
    if (gz && gzwrite(gz, buf, (unsigned)blen) != (int)blen) write_failed = 1;
  } else if (zkind == Z_ZSTD) {
    if (out && zc) zstd_write(buf, blen, ZSTD_e_continue);
  } else if (out && fwrite(buf, 1, blen, out) != blen) {
    write_failed = 1;
  }
  blen = 0;
}

static void buf_add(const char *s, size_t n) {
  if (blen + n > bcap) {
    bcap = 2 * (blen + n) + 4096;
    char *nb = realloc(buf, bcap);
    if (!nb) { write_failed = 1; return; }
    buf = nb;
  }
  memcpy(buf + blen, s, n);
  blen += n;
  flush_buf(0);
}

static void q_push(char *s) {
  if (qlen == qcap) {
    qcap = qcap ? 2 * qcap : 64;
    char **nq = realloc(q, qcap * sizeof *q);
    if (!nq) { write_failed = 1; free(s); return; }
    q = nq;
  }
  q[qlen++] = s;
}

/* Moves the lines before the first unfilled hole to the buffer. */
static void drain(void) {
  while (qhead < qlen && q[qhead]) {
    buf_add(q[qhead], strlen(q[qhead]));
    free(q[qhead]);
    qhead++;
    qbase++;
  }
  if (qhead == qlen) qhead = qlen = 0;
}

/* The line's "RANK " prefix, formatted once (head, hlen). */
static int head_len(void) {
  if (!hlen) hlen = snprintf(head, sizeof head, "%d ", tr.rank);
  return hlen;
}

/* A line queued behind a hole (an MPI_Irecv's, filled at its wait): HPCG's every line is one,
 * so the prefix is copied, not formatted again. */
static char *vformat(const char *fmt, va_list ap) {
  char body[512];
  va_list ap2;
  va_copy(ap2, ap);
  int h = head_len();
  int n = vsnprintf(body, sizeof body, fmt, ap);
  char *s = n < 0 ? NULL : malloc((size_t)h + (size_t)n + 2);
  if (s) {
    memcpy(s, head, (size_t)h);
    if ((size_t)n < sizeof body) memcpy(s + h, body, (size_t)n + 1);
    else vsnprintf(s + h, (size_t)n + 1, fmt, ap2);   /* a long v-collective line */
    s[h + n] = '\n';
    s[h + n + 1] = 0;
  }
  va_end(ap2);
  return s;
}

static int reserve(size_t n) {
  if (n <= bcap) return 0;
  size_t nc = 2 * n + 4096;
  char *nb = realloc(buf, nc);
  if (!nb) { write_failed = 1; return -1; }
  buf = nb;
  bcap = nc;
  return 0;
}

/* A line straight into the buffer (no hole pending): the common case, without the
 * allocation of a queued line, since this is the cost of every traced call. */
static void put_direct(const char *fmt, va_list ap) {
  int h = head_len();
  if (reserve(blen + (size_t)h + 256) < 0) return;
  memcpy(buf + blen, head, (size_t)h);
  va_list ap2;
  va_copy(ap2, ap);
  size_t room = bcap - blen - (size_t)h;
  int n = vsnprintf(buf + blen + h, room, fmt, ap);
  if (n >= 0 && (size_t)n + 1 >= room) {   /* a long v-collective line */
    if (reserve(blen + (size_t)h + (size_t)n + 2) == 0) vsnprintf(buf + blen + h, (size_t)n + 1, fmt, ap2);
    else n = -1;
  }
  va_end(ap2);
  if (n < 0) { write_failed = 1; return; }
  blen += (size_t)h + (size_t)n;
  buf[blen++] = '\n';
  flush_buf(0);
}

static void putv(const char *fmt, va_list ap) {
  if (qhead == qlen) {
    put_direct(fmt, ap);
  } else {
    char *s = vformat(fmt, ap);
    if (s) q_push(s);
    else write_failed = 1;
  }
  next_id++;
}

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  putv(fmt, ap);
  va_end(ap);
}

/* The computation since the last written action, unless shorter than min_compute: then it
 * waits for the next one (a poll loop writes one compute line, not one per MPI_Iprobe); the
 * same for the time of probes and tests that found nothing. */
static void put_compute(void) {
  if (tr.carry >= tr.min_compute && tr.carry > 0) {
    double flops = tr.carry * tr.speed;
    tr.carry = 0;
    /* whole flops (a flop is a fraction of a nanosecond; the smallest line is min_compute's
     * microsecond, thousands of them): an integer is formatted in a tenth of %.17g's time,
     * which was a fifth of the tracer's own work in HPCG */
    if (flops < 9e18) put("compute %llu", (unsigned long long)llround(flops));
    else put("compute %.17g", flops);
  }
  if (tr.polled >= tr.min_compute && tr.polled > 0) {
    double s = tr.polled;
    tr.polled = 0;
    put("sleep %.17g", s);
  }
}

void tr_polled(void) { tr.polling = 1; }

/* The tracer's own work in this call begins (its lines, after the MPI's call returned):
 * MPI_Finalize's report subtracts it from the recorded time. */
static void own_begins(void) {
  if (tr.depth && !(tr.own_from > 0)) tr.own_from = tr_now();
}

void tr_line(const char *fmt, ...) {
  own_begins();
  put_compute();
  va_list ap;
  va_start(ap, fmt);
  putv(fmt, ap);
  va_end(ap);
}

long tr_hole(void) {
  own_begins();
  put_compute();
  if (qhead == qlen) qbase = next_id;
  q_push(NULL);
  return ++next_id;   /* ids start at 1 */
}

void tr_fill(long id, const char *fmt, ...) {
  own_begins();
  long at = id - 1 - qbase + (long)qhead;
  if (id <= 0 || at < (long)qhead || at >= (long)qlen || q[at]) return;
  va_list ap;
  va_start(ap, fmt);
  q[at] = vformat(fmt, ap);
  va_end(ap);
  if (!q[at]) write_failed = 1;
  drain();
}

void tr_opaque(int c) {
  tr.count[c]++;
  double dt = tr_now() - tr.t_enter;
  if (dt > 0) tr_line("sleep %.17g", dt);
}

int tr_dtcode(int size) {
  switch (size) {   /* emu_trace_dtcode's codes: the element size is what replay uses */
  case 2: return 3;
  case 4: return 1;
  case 8: return 0;
  case 16: return 14;
  case 32: return 27;
  default: return 6;
  }
}

void tr_amount(double bytes, int esize, double *n, int *code) {
  *code = tr_dtcode(esize);
  double csz = *code == 6 ? 1 : (double)esize;
  *n = bytes / csz;
  if (fmod(bytes, csz) != 0) { *code = 6; *n = bytes; }
}

int tr_type_size(MPI_Datatype dt) {
  int s = 0;
  if (dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &s) != MPI_SUCCESS) return 0;
  return s;
}

int tr_world_rank(MPI_Comm comm, int r) {
  if (comm == MPI_COMM_WORLD || r < 0) return r;
  MPI_Group g, w;
  int out = r;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &w);
  PMPI_Group_translate_ranks(g, 1, &r, w, &out);
  PMPI_Group_free(&g);
  PMPI_Group_free(&w);
  return out;
}

int tr_world_shaped(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 1;
  int res = MPI_UNEQUAL;
  PMPI_Comm_compare(comm, MPI_COMM_WORLD, &res);
  return res == MPI_IDENT || res == MPI_CONGRUENT;
}

static int mkdir_p(const char *d) {
  char p[4096];
  snprintf(p, sizeof p, "%s", d);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0777) < 0 && errno != EEXIST) return -1;
    *s = '/';
  }
  if (mkdir(p, 0777) < 0 && errno != EEXIST) return -1;
  return 0;
}

int tr_open(void) {
  const char *d = getenv("PSIMTRACE_DIR");
  snprintf(dir, sizeof dir, "%s", d && *d ? d : "psimtrace");
  const char *c = getenv("PSIMTRACE_CLOCK");
  if (c && !strcmp(c, "cpu")) clock_id = CLOCK_THREAD_CPUTIME_ID;
  if (mkdir_p(dir) < 0) {
    fprintf(stderr, "psimtrace: cannot create %s: %s; not tracing\n", dir, strerror(errno));
    return -1;
  }
  const char *z = getenv("PSIMTRACE_COMPRESS");
  zkind = !z || !*z || !strcmp(z, "none") ? Z_PLAIN : !strcmp(z, "gzip") ? Z_GZIP : !strcmp(z, "zstd") ? Z_ZSTD : -1;
  if (zkind < 0) {
    if (tr.rank == 0) fprintf(stderr, "psimtrace: PSIMTRACE_COMPRESS=%s: not gzip, zstd or none; writing plain text\n", z);
    zkind = Z_PLAIN;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/rank-%d.txt%s", dir, tr.rank, zkind == Z_GZIP ? ".gz" : zkind == Z_ZSTD ? ".zst" : "");
  if (zkind == Z_GZIP) {
    gz = gzopen(path, "wb6");
  } else {
    out = fopen(path, "w");
    if (out && zkind == Z_ZSTD) {
      zc = ZSTD_createCCtx();
      zcap = ZSTD_CStreamOutSize();
      zbuf = malloc(zcap);
      if (!zc || !zbuf) { fclose(out); out = NULL; errno = ENOMEM; }
    }
  }
  if (!out && !gz) {
    fprintf(stderr, "psimtrace: cannot open %s: %s; not tracing\n", path, strerror(errno));
    return -1;
  }
  /* `init` first, as psim run writes: replay's default datatype is then MPI_BYTE */
  tr_line("init");
  return 0;
}

void tr_close(void) {
  /* a receive that never completed (freed): its posted form was filled by tr_req_finish */
  for (size_t j = qhead; j < qlen; j++)
    if (q[j]) { buf_add(q[j], strlen(q[j])); free(q[j]); }
  qhead = qlen = 0;
  flush_buf(1);
  if (zc && out) zstd_write(NULL, 0, ZSTD_e_end);
  ZSTD_freeCCtx(zc);
  free(zbuf);
  zc = NULL;
  zbuf = NULL;
  if (gz && gzclose(gz) != Z_OK) write_failed = 1;
  gz = NULL;
  if (out && fclose(out) != 0) write_failed = 1;
  out = NULL;
  free(buf);
  free(q);
  buf = NULL;
  q = NULL;
  if (write_failed) fprintf(stderr, "psimtrace: rank %d: writing the trace in %s failed\n", tr.rank, dir);
  if (tr.rank != 0) return;
  char path[4200];
  snprintf(path, sizeof path, "%s/list", dir);
  FILE *l = fopen(path, "w");
  if (!l) { fprintf(stderr, "psimtrace: cannot write %s: %s\n", path, strerror(errno)); return; }
  for (int i = 0; i < tr.size; i++)
    fprintf(l, "rank-%d.txt%s\n", i, zkind == Z_GZIP ? ".gz" : zkind == Z_ZSTD ? ".zst" : "");
  if (fclose(l) != 0) fprintf(stderr, "psimtrace: cannot write %s\n", path);
}
