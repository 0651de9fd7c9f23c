/* Dimemas traces (.dim), read into TIT actions.
 *
 * Records: `1:task:thread:seconds` CPU burst (compute), `2:task:thread:dst:dst_thread:size:tag:
 * comm:sync` send (sync bit 1: immediate), `3:task:thread:src:src_thread:size:tag:comm:type`
 * receive (type 0 recv, 1 irecv, 2 wait for an earlier irecv of the same source and tag),
 * `10:task:thread:glop:comm:is_root:root_thread:bytes_sent:bytes_recv:sync` global operation,
 * `d:1:id:ntasks:task...` communicator. Tasks are 0-based. `20:` (Paraver events kept by
 * prv2dim), `0:` and the `s:` offset index carry nothing to replay. The comm field of sends
 * and receives is not a communicator in prv2dim's output (a per-message id), and tasks are
 * MPI_COMM_WORLD ranks, so it is not used. */
#include "trace_foreign.h"

#include <stdlib.h>
#include <string.h>

typedef struct glop_ref {
  size_t op;     /* index in the task's actions */
  int is_root;
} glop_ref;

typedef struct dtask {
  VEC(glop_ref) glops;
  VEC(long) irecvs;   /* irecv actions not yet waited */
} dtask;

/* Dimemas's global operation codes. */
static int glop_kind(long g, tit_kind *k) {
  static const tit_kind tab[] = {TIT_BARRIER, TIT_BCAST, TIT_GATHER, TIT_GATHER, TIT_SCATTER,
                                 TIT_SCATTER, TIT_ALLGATHER, TIT_ALLGATHER, TIT_ALLTOALL,
                                 TIT_ALLTOALL, TIT_REDUCE, TIT_ALLREDUCE, TIT_REDUCESCATTER,
                                 TIT_SCAN};
  if (g < 0 || g >= (long)(sizeof tab / sizeof *tab)) return -1;
  *k = tab[g];
  return 0;
}

static int header(fx_trace *t, const char *l, size_t n, psim_err *err) {
  /* #DIMEMAS:"name":1,offset:ntasks(threads,...),ncomms[,...] -- the name may hold ':' */
  const char *p = l + 9, *e = l + n;
  if (p < e && *p == '"') {
    const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
    if (!q) return fx_bad(err, t->path, 1, "Dimemas header: unterminated trace name", l, n);
    p = q + 1;
  }
  const char *f[4];
  size_t fl[4];
  int nf = fx_split(p, (size_t)(e - p), ':', f, fl, 4);
  if (nf < 3) return fx_bad(err, t->path, 1, "Dimemas header: expected #DIMEMAS:name:1,offset:ntasks(...)", l, n);
  const char *par = memchr(f[2], '(', fl[2]);
  size_t tl = par ? (size_t)(par - f[2]) : fl[2];
  const char *comma = memchr(f[2], ',', tl);
  if (comma) tl = (size_t)(comma - f[2]);
  long nt;
  if (fx_long(f[2], tl, &nt) < 0) return fx_bad(err, t->path, 1, "Dimemas header: expected the number of tasks", f[2], tl);
  return fx_set_nranks(t, nt, 1, err);
}

static int field(fx_trace *t, const char *s, size_t n, long lo, long hi, long line, const char *what, long *v,
                 psim_err *err) {
  if (fx_long(s, n, v) < 0 || *v < lo || *v > hi) {
    char w[160];
    snprintf(w, sizeof w, "Dimemas record: expected %s in %ld..%ld", what, lo, hi);
    return fx_bad(err, t->path, line, w, s, n);
  }
  return 0;
}

int fx_dim_read(const char *path, fx_trace *t, psim_err *err) {
  fx_lines L;
  fx_lines_open(&L, path);
  const char *l, *f[16];
  size_t n, fl[16];
  int rc, first = 1;
  dtask *T = NULL;
  VEC(int) comm_size = {0};
  long other_threads = 0, sub_comm = 0;
  const long BIG = 2147483647L;
  while ((rc = fx_line(&L, &l, &n, err)) == 1) {
    if (first) {
      first = 0;
      if ((rc = header(t, l, n, err)) < 0) break;
      T = xcalloc((size_t)t->nranks, sizeof *T);
      continue;
    }
    if (!n || l[0] == '#') continue;
    int nf = fx_split(l, n, ':', f, fl, 16);
    long type, task = 0, thr = 0, v[8];
    if (!strncmp(l, "d:", 2)) {
      long id, cnt;
      if (nf < 4 || field(t, f[2], fl[2], 0, 1000000, L.line, "a communicator id", &id, err) ||
          field(t, f[3], fl[3], 0, t->nranks, L.line, "a number of tasks", &cnt, err)) { rc = -1; break; }
      while (comm_size.len <= (size_t)id) VEC_PUSH(comm_size, 0);
      comm_size.data[id] = (int)cnt;
      continue;
    }
    if (!strncmp(l, "s:", 2)) continue;
    if (fx_long(f[0], fl[0], &type) < 0) { rc = fx_bad(err, path, L.line, "Dimemas: unknown record type", f[0], fl[0]); break; }
    if (type == 20 || type == 0) continue;
    static const int want[] = {[1] = 4, [2] = 9, [3] = 9, [10] = 10};
    if (type != 1 && type != 2 && type != 3 && type != 10) { rc = fx_bad(err, path, L.line, "Dimemas: unknown record type", f[0], fl[0]); break; }
    if (nf != want[type]) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, L.line, "Dimemas record %ld: %d fields, expected %d", type, nf, want[type]);
      break;
    }
    if (field(t, f[1], fl[1], 0, t->nranks - 1, L.line, "a task", &task, err) ||
        field(t, f[2], fl[2], 0, BIG, L.line, "a thread", &thr, err)) { rc = -1; break; }
    if (thr != 0) { other_threads++; continue; }
    int r = (int)task;
    if (type == 1) {
      double s;
      if (fx_double(f[3], fl[3], &s) < 0 || s < 0) { rc = fx_bad(err, path, L.line, "Dimemas CPU burst: expected seconds", f[3], fl[3]); break; }
      fx_push(t, r, TIT_COMPUTE)->secs = s;   /* zero bursts too: they are records of the trace */
      continue;
    }
    if (type == 2 || type == 3) {
      if (field(t, f[3], fl[3], type == 3 ? -1 : 0, t->nranks - 1, L.line, "a peer task", &v[0], err) ||
          field(t, f[5], fl[5], 0, 1L << 50, L.line, "a size in bytes", &v[1], err) ||
          field(t, f[6], fl[6], -1, BIG, L.line, "a tag", &v[2], err) ||
          field(t, f[8], fl[8], 0, type == 3 ? 2 : 3, L.line, type == 3 ? "a receive type" : "a synchronism", &v[3], err)) { rc = -1; break; }
      if (type == 3 && v[3] == 2) {   /* wait: the oldest pending irecv of that source and tag */
        dtask *D = &T[r];
        size_t k = 0;
        for (; k < D->irecvs.len; k++) {
          fx_op *q = &t->ranks[r].data[D->irecvs.data[k]];
          if (q->peer == (int)v[0] && q->tag == (int)v[2]) break;
        }
        if (k == D->irecvs.len) {
          rc = psim_errf(err, PSIM_EXIT_INPUT, path, L.line, "Dimemas wait of task %d for a receive from %ld tag %ld that no irecv posted", r, v[0], v[2]);
          break;
        }
        fx_push(t, r, TIT_WAIT)->req = D->irecvs.data[k];
        memmove(D->irecvs.data + k, D->irecvs.data + k + 1, (D->irecvs.len - k - 1) * sizeof(long));
        D->irecvs.len--;
        continue;
      }
      tit_kind k = type == 2 ? ((v[3] & 2) ? TIT_ISEND : TIT_SEND) : (v[3] == 1 ? TIT_IRECV : TIT_RECV);
      fx_op *o = fx_push(t, r, k);
      o->peer = (int)v[0];
      o->bytes = (double)v[1];
      o->tag = (int)v[2];
      if (k == TIT_IRECV) VEC_PUSH(T[r].irecvs, (long)t->ranks[r].len - 1);
      continue;
    }
    /* type 10: global operation */
    tit_kind k;
    long g, comm, is_root;
    if (field(t, f[3], fl[3], 0, BIG, L.line, "a global operation", &g, err) ||
        field(t, f[4], fl[4], 0, 1000000, L.line, "a communicator", &comm, err) ||
        field(t, f[5], fl[5], 0, 1, L.line, "a root flag", &is_root, err) ||
        field(t, f[7], fl[7], 0, 1L << 50, L.line, "bytes sent", &v[0], err) ||
        field(t, f[8], fl[8], 0, 1L << 50, L.line, "bytes received", &v[1], err)) { rc = -1; break; }
    if (glop_kind(g, &k) < 0) { rc = fx_bad(err, path, L.line, "Dimemas global operation: unknown code (0..13)", f[3], fl[3]); break; }
    int cs = (size_t)comm < comm_size.len ? comm_size.data[comm] : 0;
    if (cs != t->nranks) { sub_comm++; continue; }
    fx_op *o = fx_push(t, r, k);
    o->bytes = (double)v[0];
    o->bytes2 = (double)v[1];
    if (k == TIT_ALLTOALL || k == TIT_SCATTER) o->bytes /= t->nranks;   /* totals -> per peer */
    if (k == TIT_ALLTOALL || k == TIT_GATHER || k == TIT_ALLGATHER) o->bytes2 /= t->nranks;
    glop_ref gr = {t->ranks[r].len - 1, (int)is_root};
    VEC_PUSH(T[r].glops, gr);
  }
  fx_lines_close(&L);
  if (rc == 0 && first) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "empty Dimemas trace");
  if (rc == 0) {
    /* Roots: the k-th global operation of every task is the same call; its root is the task
     * that flags itself root there, and its message the root's. */
    size_t nops = T[0].glops.len;
    for (int r = 1; r < t->nranks && rc == 0; r++)
      if (T[r].glops.len != nops)
        rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "Dimemas trace: task %d has %zu global operations, task 0 has %zu: collectives must be called by every task",
                       r, T[r].glops.len, nops);
    for (size_t i = 0; i < nops && rc == 0; i++) {
      int root = 0;
      tit_kind k0 = t->ranks[0].data[T[0].glops.data[i].op].kind;
      for (int r = 0; r < t->nranks; r++) {
        if (t->ranks[r].data[T[r].glops.data[i].op].kind != k0) {
          rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "Dimemas trace: global operation %zu is a %s on task 0 but a %s on task %d", i + 1,
                         tit_kind_name(k0), tit_kind_name(t->ranks[r].data[T[r].glops.data[i].op].kind), r);
          break;
        }
        if (T[r].glops.data[i].is_root) root = r;
      }
      /* every task replays the root's message: a task's record gives what it sent and
       * received (a Bcast's other tasks send nothing, as Extrae records them), TIT the
       * message of the call (a Bcast's or Scatter's send size, a Gather's receive size) */
      const fx_op *ro = &t->ranks[root].data[T[root].glops.data[i].op];
      for (int r = 0; rc == 0 && r < t->nranks; r++) {
        fx_op *o = &t->ranks[r].data[T[r].glops.data[i].op];
        o->root = root;
        if ((k0 == TIT_BCAST || k0 == TIT_SCATTER) && ro->bytes > 0) o->bytes = ro->bytes;
        if (k0 == TIT_GATHER && ro->bytes2 > 0) o->bytes2 = ro->bytes2;
      }
    }
    if (other_threads) fx_warn(t, "%ld records of threads other than 0: not replayed (TIT ranks have one thread)", other_threads);
    if (sub_comm) fx_warn(t, "%ld global operations on communicators smaller than MPI_COMM_WORLD: not replayed", sub_comm);
  }
  for (int r = 0; T && r < t->nranks; r++) {
    VEC_FREE(T[r].glops);
    VEC_FREE(T[r].irecvs);
  }
  free(T);
  VEC_FREE(comm_size);
  return rc < 0 ? -1 : 0;
}
