/* Other tools' trace formats turned into TIT (see trace_foreign.h). Readers fill per-rank
 * action lists in memory; this file recognises the format, resolves ANY_SOURCE receives
 * (TIT replay, like SimGrid's, needs the source of every receive), checks the lists and
 * writes them as TIT text. Memory is O(actions): these formats are read whole anyway (a
 * Paraver file interleaves all tasks by time, a GOAL schedule is a graph). */
#include "trace_foreign.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX_MAX_RANKS (1L << 22)

static double g_ref_speed;

void tit_set_ref_speed(double flops) { g_ref_speed = flops > 0 && isfinite(flops) ? flops : 0; }
double tit_ref_speed(void) { return g_ref_speed > 0 ? g_ref_speed : TIT_DEFAULT_REF_SPEED; }
int tit_ref_speed_is_set(void) { return g_ref_speed > 0; }

static const char *g_counter;
static double g_scale = 1;

void tit_set_compute_counter(const char *name_or_type) { g_counter = name_or_type && *name_or_type ? name_or_type : NULL; }
const char *tit_compute_counter(void) { return g_counter; }
void tit_set_compute_scale(double factor) { g_scale = factor > 0 && isfinite(factor) ? factor : 1; }
double tit_compute_scale(void) { return g_scale; }

/* ------------------------------------------------------------------ helpers */

void fx_lines_open(fx_lines *L, const char *path) {
  memset(L, 0, sizeof *L);
  tit_io_init(&L->io, 1);
  L->st.path = path;
  L->st.end = TIT_IO_NOEND;
  L->path = path;
}

int fx_line(fx_lines *L, const char **l, size_t *n, psim_err *err) {
  int rc = tit_io_line(&L->io, &L->st, L->path, l, n, err);
  if (rc <= 0) return rc;
  L->line++;
  while (*n && ((*l)[*n - 1] == '\r' || (*l)[*n - 1] == ' ' || (*l)[*n - 1] == '\t')) (*n)--;
  return 1;
}

void fx_lines_close(fx_lines *L) {
  tit_io_release(&L->io, &L->st);
  tit_io_fini(&L->io);
}

int fx_split(const char *l, size_t n, char sep, const char **f, size_t *fl, int max) {
  int k = 0;
  const char *p = l, *e = l + n;
  while (k < max) {
    const char *q = memchr(p, sep, (size_t)(e - p));
    const char *fe = q ? q : e;
    f[k] = p;
    fl[k] = (size_t)(fe - p);
    k++;
    if (!q) break;
    p = q + 1;
  }
  return k;
}

int fx_long(const char *s, size_t n, long *v) {
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == n || n - i > 18) return -1;
  long x = 0;
  for (; i < n; i++) {
    if ((unsigned)(s[i] - '0') >= 10) return -1;
    x = x * 10 + (s[i] - '0');
  }
  *v = neg ? -x : x;
  return 0;
}

int fx_double(const char *s, size_t n, double *v) {
  if (n == 0 || n > 64) return -1;
  const char *q = psim_parse_double(s, s + n, v);
  return q == s + n && isfinite(*v) ? 0 : -1;
}

int fx_bad(psim_err *err, const char *file, long line, const char *what, const char *s, size_t n) {
  char shown[TIT_SHOW_BUF];
  return psim_errf(err, PSIM_EXIT_INPUT, file, line, "%s: got '%s'", what, tit_show(s, s + n, shown));
}

int fx_set_nranks(fx_trace *t, long n, long line, psim_err *err) {
  if (t->ranks)
    return psim_errf(err, PSIM_EXIT_INPUT, t->path, line, "%s trace: the number of tasks is given twice", t->format);
  if (n < 1 || n > FX_MAX_RANKS)
    return psim_errf(err, PSIM_EXIT_INPUT, t->path, line, "%s trace: %ld tasks, expected 1..%ld", t->format, n,
                     FX_MAX_RANKS);
  t->nranks = (int)n;
  t->ranks = xcalloc((size_t)n, sizeof *t->ranks);
  return 0;
}

fx_op *fx_push(fx_trace *t, int r, tit_kind k) {
  fx_ops *v = &t->ranks[r];
  VEC_RESERVE(*v, v->len + 1);
  fx_op *o = &v->data[v->len++];
  memset(o, 0, sizeof *o);
  o->kind = k;
  o->peer = o->root = -1;
  o->req = -1;
  o->count = -1;
  return o;
}

void fx_warn(fx_trace *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (size_t i = 0; i < t->warnings.len; i++)
    if (!strcmp(t->warnings.data[i], buf)) return;
  VEC_PUSH(t->warnings, xstrdup(buf));
}

void fx_free(fx_trace *t) {
  for (int r = 0; t->ranks && r < t->nranks; r++) free(t->ranks[r].data);
  free(t->ranks);
  for (size_t i = 0; i < t->warnings.len; i++) free(t->warnings.data[i]);
  VEC_FREE(t->warnings);
  memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ detection */

/* OTF2's anchor file starts with a one-byte string-length marker and the byte-order mark
 * ('B' or 'L') before the "OTF2" magic; it is binary, so it is looked at before the lines. */
static int is_otf2_anchor(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  unsigned char b[8];
  ssize_t k = read(fd, b, sizeof b);
  close(fd);
  return k >= 6 && (b[1] == 'B' || b[1] == 'L') && !memcmp(b + 2, "OTF2", 4);
}

fx_format fx_detect(const char *path) {
  if (is_otf2_anchor(path)) return FX_OTF2;
  fx_lines L;
  fx_lines_open(&L, path);
  psim_err err;
  psim_err_clear(&err);
  const char *l;
  size_t n;
  fx_format f = FX_NONE;
  /* The first line that is not blank (GOAL also allows comments before num_ranks). */
  for (int i = 0; i < 64 && fx_line(&L, &l, &n, &err) == 1; i++) {
    while (n && (*l == ' ' || *l == '\t')) l++, n--;
    if (!n) continue;
    if (n >= 9 && !memcmp(l, "#Paraver ", 9)) f = FX_PRV;
    else if (n >= 9 && !memcmp(l, "#DIMEMAS:", 9)) f = FX_DIM;
    else if (n >= 10 && !memcmp(l, "num_ranks", 9) && (l[9] == ' ' || l[9] == '\t')) f = FX_GOAL;
    else if (l[0] == '/' && n > 1 && l[1] == '/') continue;   /* a GOAL comment */
    else if (fx_dumpi_is_meta(l, n)) f = FX_DUMPI;
    else if (memchr(l, '=', n) && !memchr(l, ' ', n)) continue;   /* maybe a DUMPI .meta's other keys */
    break;
  }
  fx_lines_close(&L);
  return f;
}

char *fx_detect_dir(const char *dir, fx_format *f) {
  DIR *D = opendir(dir);
  if (!D) return NULL;
  char *found = NULL;
  int many = 0;
  struct dirent *e;
  while ((e = readdir(D)) != NULL) {
    size_t n = strlen(e->d_name);
    int meta = n > 5 && !strcmp(e->d_name + n - 5, ".meta"), anchor = n > 5 && !strcmp(e->d_name + n - 5, ".otf2");
    if (!meta && !anchor) continue;
    size_t sz = strlen(dir) + n + 2;
    char *p = xcalloc(sz, 1);
    snprintf(p, sz, "%s/%s", dir, e->d_name);
    fx_format g = fx_detect(p);
    if (g == (meta ? FX_DUMPI : FX_OTF2) && !found) { found = p; *f = g; continue; }
    if (g != FX_NONE) many = 1;
    free(p);
  }
  closedir(D);
  if (many) { free(found); found = NULL; }
  return found;
}

/* ------------------------------------------------------------------ ANY_SOURCE */

static int is_send(tit_kind k) { return k == TIT_SEND || k == TIT_ISEND; }
static int is_recv(tit_kind k) { return k == TIT_RECV || k == TIT_IRECV; }

/* TIT needs each receive's source: an ANY_SOURCE receive takes, in its rank's order, the
 * earliest send to it (in its sender's order) that no receive naming its source claims. This
 * is the matching of a run in which messages arrive in the order they were sent; the trace
 * does not say which one the traced run took, so the warning says the choice was made. */
static int resolve_any_source(fx_trace *t, psim_err *err) {
  long wild = 0;
  for (int r = 0; r < t->nranks; r++)
    for (size_t i = 0; i < t->ranks[r].len; i++)
      if (is_recv(t->ranks[r].data[i].kind) && t->ranks[r].data[i].peer < 0) wild++;
  if (!wild) return 0;
  /* claimed[s][i]: send i of rank s was matched */
  unsigned char **claimed = xcalloc((size_t)t->nranks, sizeof *claimed);
  size_t *scan = xcalloc((size_t)t->nranks, sizeof *scan);   /* first unclaimed candidate */
  for (int s = 0; s < t->nranks; s++) claimed[s] = xcalloc(t->ranks[s].len + 1, 1);
  int rc = 0;
  for (int d = 0; d < t->nranks && !rc; d++) {
    fx_ops *v = &t->ranks[d];
    /* receives naming their source first: they claim the oldest send of that source and tag */
    for (size_t i = 0; i < v->len; i++) {
      fx_op *o = &v->data[i];
      if (!is_recv(o->kind) || o->peer < 0) continue;
      fx_ops *sv = &t->ranks[o->peer];
      for (size_t j = 0; j < sv->len; j++) {
        fx_op *s = &sv->data[j];
        if (claimed[o->peer][j] || !is_send(s->kind) || s->peer != d || (o->tag >= 0 && s->tag != o->tag)) continue;
        claimed[o->peer][j] = 1;
        if (o->tag < 0) o->tag = s->tag;
        break;
      }
    }
    memset(scan, 0, (size_t)t->nranks * sizeof *scan);
    for (size_t i = 0; i < v->len && !rc; i++) {
      fx_op *o = &v->data[i];
      if (!is_recv(o->kind) || o->peer >= 0) continue;
      int best = -1;
      size_t bj = 0;
      for (int s = 0; s < t->nranks; s++) {
        fx_ops *sv = &t->ranks[s];
        for (size_t j = scan[s]; j < sv->len; j++) {
          fx_op *x = &sv->data[j];
          if (claimed[s][j] || !is_send(x->kind) || x->peer != d || (o->tag >= 0 && x->tag != o->tag)) continue;
          if (best < 0 || j < bj) { best = s; bj = j; }
          break;
        }
      }
      if (best < 0) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, t->path, 0,
                       "%s trace: rank %d: an ANY_SOURCE receive (tag %d) that no send to rank %d "
                       "can match (the trace is inconsistent or incomplete)",
                       t->format, d, o->tag, d);
        break;
      }
      claimed[best][bj] = 1;
      o->peer = best;
      if (o->tag < 0) o->tag = t->ranks[best].data[bj].tag;
    }
  }
  for (int s = 0; s < t->nranks; s++) free(claimed[s]);
  free(claimed);
  free(scan);
  if (!rc)
    fx_warn(t, "%ld ANY_SOURCE receives: each takes the earliest unmatched send to its rank "
               "(the trace does not record the order messages arrived in)", wild);
  return rc;
}

/* Receives naming any tag take their send's tag; a tag TIT cannot hold is an error. */
static int check(fx_trace *t, psim_err *err) {
  for (int r = 0; r < t->nranks; r++) {
    fx_ops *v = &t->ranks[r];
    for (size_t i = 0; i < v->len; i++) {
      fx_op *o = &v->data[i];
      if ((is_send(o->kind) || is_recv(o->kind)) && (o->peer < 0 || o->peer >= t->nranks))
        return psim_errf(err, PSIM_EXIT_INPUT, t->path, 0, "%s trace: rank %d: peer %d out of range 0..%d",
                         t->format, r, o->peer, t->nranks - 1);
      if ((is_send(o->kind) || is_recv(o->kind)) && o->tag < 0) o->tag = 0;
      if (o->kind == TIT_WAIT && (o->req < 0 || (size_t)o->req >= i))
        return psim_errf(err, PSIM_EXIT_INPUT, t->path, 0, "%s trace: rank %d: a wait without its request",
                         t->format, r);
    }
  }
  return 0;
}

int fx_read(const char *path, fx_format f, fx_trace *t, psim_err *err) {
  memset(t, 0, sizeof *t);
  t->path = path;
  int rc;
  if (g_counter && f != FX_PRV)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--compute-counter %s: psim reads counters from Paraver "
                     "traces only (Extrae's counter events); this is %s", g_counter,
                     f == FX_DIM ? "a Dimemas trace" : f == FX_GOAL ? "a GOAL schedule" : f == FX_DUMPI ? "a DUMPI trace"
                     : f == FX_OTF2 ? "an OTF2 archive" : "not a trace psim reads");
  switch (f) {
  case FX_PRV: t->format = "Paraver"; rc = fx_prv_read(path, t, err); break;
  case FX_DIM: t->format = "Dimemas"; rc = fx_dim_read(path, t, err); break;
  case FX_GOAL: t->format = "GOAL"; rc = fx_goal_read(path, t, err); break;
  case FX_DUMPI: t->format = "DUMPI"; rc = fx_dumpi_read(path, t, err); break;
  case FX_OTF2: t->format = "OTF2"; rc = fx_otf2_read(path, t, err); break;
  default: rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "not a trace format psim reads");
  }
  if (!rc && !t->ranks) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "%s trace: no task found", t->format);
  if (!rc) rc = resolve_any_source(t, err);
  if (!rc) rc = check(t, err);
  if (rc) fx_free(t);
  return rc ? -1 : 0;
}

/* ------------------------------------------------------------------ TIT text */

static void write_rank(const fx_trace *t, FILE *f, int r, double speed) {
  const fx_ops *v = &t->ranks[r];
  long open_reqs = 0;
  fprintf(f, "%d init\n", r);   /* MPI_BYTE: every size below is in bytes */
  for (size_t i = 0; i < v->len; i++) {
    const fx_op *o = &v->data[i];
    double b = o->bytes < 0 ? 0 : o->bytes, b2 = o->bytes2 < 0 ? 0 : o->bytes2;
    int root = o->root < 0 ? 0 : o->root;
    switch (o->kind) {
    case TIT_COMPUTE:
      fprintf(f, "%d compute %.17g\n", r, (o->count >= 0 ? o->count : o->secs * speed) * g_scale);
      break;
    case TIT_SLEEP: fprintf(f, "%d sleep %.17g\n", r, o->secs); break;
    case TIT_SEND: case TIT_ISEND:
      fprintf(f, "%d %s %d %d %.0f\n", r, o->kind == TIT_SEND ? "send" : "isend", o->peer, o->tag, b);
      open_reqs += o->kind == TIT_ISEND;
      break;
    case TIT_RECV: case TIT_IRECV:
      fprintf(f, "%d %s %d %d %.0f\n", r, o->kind == TIT_RECV ? "recv" : "irecv", o->peer, o->tag, b);
      open_reqs += o->kind == TIT_IRECV;
      break;
    case TIT_WAIT: {
      const fx_op *q = &v->data[o->req];
      if (q->kind == TIT_ISEND) fprintf(f, "%d wait %d %d %d\n", r, r, q->peer, q->tag);
      else fprintf(f, "%d wait %d %d %d\n", r, q->peer, r, q->tag);
      open_reqs--;
      break;
    }
    case TIT_WAITALL: fprintf(f, "%d waitall\n", r); open_reqs = 0; break;
    case TIT_BARRIER: fprintf(f, "%d barrier\n", r); break;
    case TIT_BCAST: fprintf(f, "%d bcast %.0f %d\n", r, b, root); break;
    case TIT_REDUCE: fprintf(f, "%d reduce %.0f 0 %d\n", r, b, root); break;
    case TIT_ALLREDUCE: fprintf(f, "%d allreduce %.0f 0\n", r, b); break;
    case TIT_SCAN: fprintf(f, "%d scan %.0f 0\n", r, b); break;
    case TIT_EXSCAN: fprintf(f, "%d exscan %.0f 0\n", r, b); break;
    case TIT_ALLTOALL: fprintf(f, "%d alltoall %.0f %.0f\n", r, b, b2); break;
    case TIT_ALLGATHER: fprintf(f, "%d allgather %.0f %.0f\n", r, b, b2); break;
    case TIT_GATHER: fprintf(f, "%d gather %.0f %.0f %d\n", r, b, b2, root); break;
    case TIT_SCATTER: fprintf(f, "%d scatter %.0f %.0f %d\n", r, b, b2, root); break;
    case TIT_REDUCESCATTER:
      fprintf(f, "%d reducescatter", r);
      for (int k = 0; k < t->nranks; k++) fprintf(f, " %.0f", b2);
      fputs(" 0\n", f);
      break;
    default: break;   /* readers push nothing else */
    }
  }
  if (open_reqs > 0) fprintf(f, "%d waitall\n", r);   /* requests the trace never completed */
  fprintf(f, "%d finalize\n", r);
}

int fx_write_tit(const fx_trace *t, FILE *f, int rank, double speed) {
  for (int r = 0; r < t->nranks; r++)
    if (rank < 0 || r == rank) write_rank(t, f, r, speed);
  return ferror(f) ? -1 : 0;
}
