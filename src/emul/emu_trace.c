/* --trace-tit DIR: records a run as a time-independent trace (specs/simgrid-compat.md §1)
 * that `psim replay DIR` replays to the same simulated time.
 *
 * One file per rank (DIR/rank-N.txt) and DIR/list naming them, as `psim gen` writes. What is
 * recorded, and why it replays to the same time:
 *  - computation as `compute FLOPS`, the flops the rank's host executed (measured CPU time x
 *    host speed ref, or declared), printed so that they read back exactly;
 *  - blocking sends and receives as `send`/`recv`, non-blocking ones as `isend`/`irecv` and
 *    their completion as `wait SRC DST TAG` (the key replay matches them by), or `waitall`
 *    when MPI_Waitall completes every request the rank has pending (replay's waitall waits
 *    for all of them);
 *  - receives from MPI_ANY_SOURCE / MPI_ANY_TAG with the source and tag that matched: the
 *    irecv line is a *hole* in the rank's output until the request completes (lines after it
 *    wait in memory, so the file keeps the program order);
 *  - the sleeps SMPI injects into test/testany/iprobe as `sleep`, since replay would not
 *    inject them (psim_sleep too);
 *  - collectives on MPI_COMM_WORLD (or a communicator with the same ranks in the same order)
 *    as their TIT action with the sizes the emulation used; on any other communicator as the
 *    point-to-point program of the algorithm (replay has no communicators), with the
 *    collective's negative system tags, which never match a user message;
 *  - MPI_Migrate as `migrate BYTES`, BYTES the rank's live heap (see emu_heap.c).
 * Ranks are world ranks everywhere. Datatype codes record the element size (6 byte, 3
 * short, 1 int, 0 double, 14 long double, 27 long double complex), so that every size replay
 * computes, and the element size collectives decide on, is the emulation's.
 *
 * Output is buffered per rank and appended to its file in chunks (the file is opened only
 * for that), so a 65536-rank run needs one descriptor, not one per rank. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emul/emu.h"

enum { FLUSH_AT = 16384 };

typedef struct trank {
  VEC(char) buf;             /* complete lines not yet written */
  VEC(char *) q;             /* lines waiting behind a hole (NULL = the hole itself) */
  size_t qhead;
  long qbase;                /* id of q.data[qhead] */
  long next_id;
  int npend;                 /* non-blocking requests replay will consider pending */
} trank;

struct emu_tracer {
  char *dir;
  trank *r;
  int np;
  int failed;                /* an append failed: reported at close */
  uint64_t rma;              /* one-sided messages the trace leaves out (emu_trace_rma) */
  char failed_path[4096];
};

static void rank_path(const emu_tracer *t, int i, char *out, size_t n) {
  snprintf(out, n, "%s/rank-%d.txt", t->dir, i);
}

static void flush_buf(emu_tracer *t, int i, int force) {
  trank *r = &t->r[i];
  if (!r->buf.len || (!force && r->buf.len < FLUSH_AT)) return;
  char path[4096];
  rank_path(t, i, path, sizeof path);
  FILE *f = fopen(path, "a");
  if (!f || fwrite(r->buf.data, 1, r->buf.len, f) != r->buf.len) {
    if (!t->failed) snprintf(t->failed_path, sizeof t->failed_path, "%s", path);
    t->failed = 1;
  }
  if (f && fclose(f) != 0) t->failed = 1;
  r->buf.len = 0;
}

static void buf_add(emu_tracer *t, int i, const char *s, size_t n) {
  trank *r = &t->r[i];
  if (r->buf.len + n > r->buf.cap) {
    r->buf.cap = 2 * (r->buf.len + n) + 256;
    r->buf.data = xrealloc(r->buf.data, r->buf.cap);
  }
  memcpy(r->buf.data + r->buf.len, s, n);
  r->buf.len += n;
  flush_buf(t, i, 0);
}

/* Moves the lines before the first unfilled hole to the buffer. */
static void drain(emu_tracer *t, int i) {
  trank *r = &t->r[i];
  while (r->qhead < r->q.len && r->q.data[r->qhead]) {
    char *s = r->q.data[r->qhead];
    buf_add(t, i, s, strlen(s));
    free(s);
    r->qhead++;
    r->qbase++;
  }
  if (r->qhead == r->q.len) { r->q.len = 0; r->qhead = 0; }
}

static char *vformat(int rank, const char *fmt, va_list ap) {
  char head[16], body[512];
  int h = snprintf(head, sizeof head, "%d ", rank);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(body, sizeof body, fmt, ap);
  char *s = xmalloc((size_t)h + (size_t)n + 2);
  memcpy(s, head, (size_t)h);
  if ((size_t)n < sizeof body) memcpy(s + h, body, (size_t)n + 1);
  else vsnprintf(s + h, (size_t)n + 1, fmt, ap2);   /* a long v-collective line */
  va_end(ap2);
  s[h + n] = '\n';
  s[h + n + 1] = 0;
  return s;
}

int emu_trace_on(const emu_rank *k) {
  return emu_current && emu_current->tit && k->trace_off == 0;
}

void emu_trace_line(emu_rank *k, const char *fmt, ...) {
  emu_tracer *t = emu_current->tit;
  if (!t || k->trace_off) return;
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(k->id, fmt, ap);
  va_end(ap);
  trank *r = &t->r[k->id];
  if (r->qhead == r->q.len) {   /* no hole pending: straight to the buffer */
    buf_add(t, k->id, s, strlen(s));
    free(s);
  } else {
    VEC_PUSH(r->q, s);
  }
  r->next_id++;
}

long emu_trace_hole(emu_rank *k) {
  emu_tracer *t = emu_current->tit;
  if (!t || k->trace_off) return 0;
  trank *r = &t->r[k->id];
  if (r->qhead == r->q.len) r->qbase = r->next_id;
  VEC_PUSH(r->q, NULL);
  return ++r->next_id;   /* ids start at 1; 0 means "not traced" */
}

void emu_trace_fill(emu_rank *k, long id, const char *fmt, ...) {
  emu_tracer *t = emu_current->tit;
  if (!t || id <= 0) return;
  trank *r = &t->r[k->id];
  long at = id - 1 - r->qbase + (long)r->qhead;
  if (at < (long)r->qhead || at >= (long)r->q.len || r->q.data[at]) return;
  va_list ap;
  va_start(ap, fmt);
  r->q.data[at] = vformat(k->id, fmt, ap);
  va_end(ap);
  drain(t, k->id);
}

int *emu_trace_npend(emu_rank *k) {
  emu_tracer *t = emu_current->tit;
  return t ? &t->r[k->id].npend : NULL;
}

void emu_trace_compute(emu_rank *k, double flops) {
  if (flops > 0) emu_trace_line(k, "compute %.17g", flops);
}

void emu_trace_sleep(emu_rank *k, double seconds) {
  if (seconds > 0) emu_trace_line(k, "sleep %.17g", seconds);
}

int emu_trace_dtcode(size_t size) {
  switch (size) {
  case 2: return 3;
  case 4: return 1;
  case 8: return 0;
  case 16: return 14;
  case 32: return 27;
  default: return 6;
  }
}

static int mkdir_p(const char *dir) {
  char p[4096];
  snprintf(p, sizeof p, "%s", dir);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0777) < 0 && errno != EEXIST) return -1;
    *s = '/';
  }
  if (mkdir(p, 0777) < 0 && errno != EEXIST) return -1;
  return 0;
}

int emu_trace_open(emu_sim *S, psim_err *err) {
  const char *dir = S->o->trace_tit;
  if (mkdir_p(dir) < 0)
    return psim_errf(err, PSIM_EXIT_INPUT, dir, 0, "--trace-tit: cannot create the directory: %s", strerror(errno));
  emu_tracer *t = xcalloc(1, sizeof *t);
  t->dir = xstrdup(dir);
  t->np = S->np;
  t->r = xcalloc((size_t)S->np, sizeof *t->r);
  char path[4096];
  snprintf(path, sizeof path, "%s/list", dir);
  FILE *list = fopen(path, "w");
  if (!list) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--trace-tit: cannot open for writing: %s", strerror(errno));
    free(t->r); free(t->dir); free(t);
    return -1;
  }
  for (int i = 0; i < S->np; i++) {
    fprintf(list, "rank-%d.txt\n", i);
    rank_path(t, i, path, sizeof path);
    FILE *f = fopen(path, "w");   /* truncate what an earlier run left */
    if (f) fclose(f);
  }
  if (fclose(list) != 0) t->failed = 1;
  S->tit = t;
  /* `init` first: replay's default datatype then is MPI_BYTE, though every line has a code */
  for (int i = 0; i < S->np; i++) {
    char l[32];
    int n = snprintf(l, sizeof l, "%d init\n", i);
    buf_add(t, i, l, (size_t)n);
  }
  return 0;
}

void emu_trace_rma(emu_sim *S) {
  if (S->tit) S->tit->rma++;
}

int emu_trace_close(emu_sim *S, psim_err *err) {
  emu_tracer *t = S->tit;
  if (!t) return 0;
  /* TIT has no one-sided actions: the trace is not the run, and nobody should learn that from
   * a replay that disagrees (NWChem's Global Arrays: 0.3 % shorter) */
  if (t->rma)
    fprintf(stderr, "psim: warning: --trace-tit: the trace leaves out the run's one-sided "
            "communication (%llu messages of MPI_Put, MPI_Get, accumulates and window locks: TIT "
            "has no such actions); its replay does not time them\n", (unsigned long long)t->rma);
  S->tit = NULL;
  for (int i = 0; i < t->np; i++) {
    trank *r = &t->r[i];
    /* a receive that never completed (freed, or the run failed): its posted form */
    for (size_t j = r->qhead; j < r->q.len; j++) {
      char *s = r->q.data[j] ? r->q.data[j] : NULL;
      if (s) { buf_add(t, i, s, strlen(s)); free(s); }
    }
    r->q.len = r->qhead = 0;
    flush_buf(t, i, 1);
    VEC_FREE(r->buf);
    VEC_FREE(r->q);
  }
  int rc = 0;
  if (t->failed)
    rc = psim_errf(err, PSIM_EXIT_INPUT, t->failed_path, 0, "--trace-tit: cannot write the trace");
  free(t->r);
  free(t->dir);
  free(t);
  return rc;
}
