/* GOAL schedules (LogGOPSim; Schedgen writes them from MPI traces), read into TIT actions.
 *
 *   num_ranks N
 *   rank R {
 *     l1: send 192b to 1 tag 222      (optional "cpu C", "nic N" are ignored)
 *     l2: recv 8b from -1 tag -1      (-1: any source, any tag)
 *     l3: calc 27431000               (nanoseconds: Schedgen's default time unit)
 *     l1 requires l2                  (l1 starts after l2 has completed)
 *     l4 irequires l2                 (l4 starts after l2 has started)
 *   }
 * A rank's operations form a graph; TIT is one sequence per rank. Every send and receive is
 * posted as isend/irecv, and waited for just before the first operation that requires it, so
 * concurrency the graph allows stays possible. The order is topological and, among ready
 * operations, that of their definitions (Schedgen writes them in the traced program's order). */
#include "trace_foreign.h"

#include <stdlib.h>
#include <string.h>

typedef struct gnode {
  tit_kind kind;        /* TIT_COMPUTE, TIT_ISEND, TIT_IRECV */
  int peer, tag;
  double bytes, ns;
  long line;
} gnode;

typedef struct gedge {
  int from, to;         /* to requires from */
  int blocking;         /* requires (1) or irequires (0) */
} gedge;

typedef struct grank {
  VEC(gnode) nodes;
  VEC(gedge) edges;
  /* labels: open addressing over label text */
  char **keys;
  int *vals;
  size_t cap, used;
} grank;

static size_t hash(const char *s, size_t n) {
  size_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h;
}

static int *label_slot(grank *g, const char *s, size_t n, int insert) {
  if (insert && (g->used + 1) * 2 > g->cap) {
    size_t oc = g->cap, nc = oc ? oc * 2 : 64;
    char **ok = g->keys;
    int *ov = g->vals;
    g->keys = xcalloc(nc, sizeof *g->keys);
    g->vals = xcalloc(nc, sizeof *g->vals);
    g->cap = nc;
    for (size_t i = 0; i < oc; i++)
      if (ok[i]) {
        size_t j = hash(ok[i], strlen(ok[i])) & (nc - 1);
        while (g->keys[j]) j = (j + 1) & (nc - 1);
        g->keys[j] = ok[i];
        g->vals[j] = ov[i];
      }
    free(ok);
    free(ov);
  }
  if (!g->cap) return NULL;
  size_t j = hash(s, n) & (g->cap - 1);
  while (g->keys[j]) {
    if (strlen(g->keys[j]) == n && !memcmp(g->keys[j], s, n)) return insert ? NULL : &g->vals[j];
    j = (j + 1) & (g->cap - 1);
  }
  if (!insert) return NULL;
  g->keys[j] = xstrndup(s, n);
  g->used++;
  return &g->vals[j];
}

static void grank_clear(grank *g) {
  VEC_FREE(g->nodes);
  VEC_FREE(g->edges);
  for (size_t i = 0; i < g->cap; i++) free(g->keys[i]);
  free(g->keys);
  free(g->vals);
  memset(g, 0, sizeof *g);
}

/* words of a line */
static int words(const char *l, size_t n, const char **w, size_t *wl, int max) {
  int k = 0;
  const char *p = l, *e = l + n;
  while (p < e && k < max) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    if (p == e) break;
    const char *s = p;
    while (p < e && *p != ' ' && *p != '\t') p++;
    w[k] = s;
    wl[k] = (size_t)(p - s);
    k++;
  }
  return k;
}

static int is_word(const char *w, size_t n, const char *lit) { return strlen(lit) == n && !memcmp(w, lit, n); }

/* The rank's graph into actions (see the header comment). */
static int schedule(fx_trace *t, int r, grank *g, long line, psim_err *err) {
  size_t m = g->nodes.len;
  int *indeg = xcalloc(m + 1, sizeof *indeg);
  size_t *off = xcalloc(m + 2, sizeof *off);   /* successors: CSR over edges by `from` */
  int *succ = xcalloc(g->edges.len + 1, sizeof *succ);
  size_t *poff = xcalloc(m + 2, sizeof *poff);  /* blocking predecessors by `to` */
  int *pred = xcalloc(g->edges.len + 1, sizeof *pred);
  for (size_t i = 0; i < g->edges.len; i++) {
    indeg[g->edges.data[i].to]++;
    off[g->edges.data[i].from + 1]++;
    if (g->edges.data[i].blocking) poff[g->edges.data[i].to + 1]++;
  }
  for (size_t i = 0; i < m; i++) { off[i + 1] += off[i]; poff[i + 1] += poff[i]; }
  size_t *fill = xcalloc(m + 1, sizeof *fill), *pfill = xcalloc(m + 1, sizeof *pfill);
  for (size_t i = 0; i < g->edges.len; i++) {
    gedge *e = &g->edges.data[i];
    succ[off[e->from] + fill[e->from]++] = e->to;
    if (e->blocking) pred[poff[e->to] + pfill[e->to]++] = e->from;
  }
  /* ready operations, smallest definition index first: a binary min-heap */
  int *heap = xcalloc(m + 1, sizeof *heap);
  size_t hn = 0;
  long *action = xcalloc(m + 1, sizeof *action);   /* index of its action, -1 not yet */
  unsigned char *done = xcalloc(m + 1, 1);          /* completed (waited, or a calc) */
  for (size_t i = 0; i < m; i++) action[i] = -1;
#define PUSH(x) do { size_t c_ = hn++; heap[c_] = (x); \
    while (c_ && heap[(c_ - 1) / 2] > heap[c_]) { int t_ = heap[c_]; heap[c_] = heap[(c_ - 1) / 2]; heap[(c_ - 1) / 2] = t_; c_ = (c_ - 1) / 2; } } while (0)
  for (size_t i = 0; i < m; i++) if (!indeg[i]) PUSH((int)i);
  size_t emitted = 0;
  while (hn) {
    int x = heap[0];
    heap[0] = heap[--hn];
    for (size_t c = 0;;) {
      size_t a = 2 * c + 1, b = a + 1, s = c;
      if (a < hn && heap[a] < heap[s]) s = a;
      if (b < hn && heap[b] < heap[s]) s = b;
      if (s == c) break;
      int tmp = heap[c]; heap[c] = heap[s]; heap[s] = tmp;
      c = s;
    }
    for (size_t k = poff[x]; k < poff[x + 1]; k++) {
      int p = pred[k];
      if (!done[p]) {
        fx_push(t, r, TIT_WAIT)->req = action[p];
        done[p] = 1;
      }
    }
    gnode *nd = &g->nodes.data[x];
    fx_op *o = fx_push(t, r, nd->kind);
    o->peer = nd->peer;
    o->tag = nd->tag;
    o->bytes = nd->bytes;
    o->secs = nd->ns * 1e-9;
    action[x] = (long)t->ranks[r].len - 1;
    done[x] = nd->kind == TIT_COMPUTE;
    emitted++;
    for (size_t k = off[x]; k < off[x + 1]; k++)
      if (--indeg[succ[k]] == 0) PUSH(succ[k]);
  }
#undef PUSH
  int rc = 0;
  if (emitted != m) {
    size_t i = 0;
    while (i < m && action[i] >= 0) i++;
    rc = psim_errf(err, PSIM_EXIT_INPUT, t->path, i < m ? g->nodes.data[i].line : line,
                   "GOAL rank %d: the dependencies form a cycle (%zu of %zu operations can never start)", r, m - emitted, m);
  }
  free(indeg); free(off); free(succ); free(poff); free(pred); free(fill); free(pfill);
  free(heap); free(action); free(done);
  return rc;
}

int fx_goal_read(const char *path, fx_trace *t, psim_err *err) {
  fx_lines L;
  fx_lines_open(&L, path);
  const char *l, *w[12];
  size_t n, wl[12];
  int rc, cur = -1;
  unsigned char *seen = NULL;
  grank g = {0};
  const long BIG = 2147483647L;
  while ((rc = fx_line(&L, &l, &n, err)) == 1) {
    int nw = words(l, n, w, wl, 12);
    if (!nw || (wl[0] >= 2 && w[0][0] == '/' && w[0][1] == '/')) continue;
    long v;
    if (!t->ranks) {
      if (nw != 2 || !is_word(w[0], wl[0], "num_ranks") || fx_long(w[1], wl[1], &v) < 0) {
        rc = fx_bad(err, path, L.line, "GOAL: expected 'num_ranks N' first", l, n);
        break;
      }
      if ((rc = fx_set_nranks(t, v, L.line, err)) < 0) break;
      seen = xcalloc((size_t)t->nranks, 1);
      continue;
    }
    if (cur < 0) {
      if (nw != 3 || !is_word(w[0], wl[0], "rank") || !is_word(w[2], wl[2], "{") || fx_long(w[1], wl[1], &v) < 0 || v < 0 ||
          v >= t->nranks) {
        char what[96];
        snprintf(what, sizeof what, "GOAL: expected 'rank R {' with R in 0..%d", t->nranks - 1);
        rc = fx_bad(err, path, L.line, what, l, n);
        break;
      }
      if (seen[v]) { rc = psim_errf(err, PSIM_EXIT_INPUT, path, L.line, "GOAL: rank %ld is defined twice", v); break; }
      seen[v] = 1;
      cur = (int)v;
      continue;
    }
    if (nw == 1 && is_word(w[0], wl[0], "}")) {
      rc = schedule(t, cur, &g, L.line, err);
      grank_clear(&g);
      cur = -1;
      if (rc < 0) break;
      continue;
    }
    if (nw == 3 && (is_word(w[1], wl[1], "requires") || is_word(w[1], wl[1], "irequires"))) {
      int *a = label_slot(&g, w[0], wl[0], 0), *b = label_slot(&g, w[2], wl[2], 0);
      if (!a || !b) {
        rc = fx_bad(err, path, L.line, "GOAL: dependency on a label not defined before it in this rank", a ? w[2] : w[0], a ? wl[2] : wl[0]);
        break;
      }
      gedge e = {*b, *a, w[1][0] == 'r'};
      if (*a == *b) { rc = fx_bad(err, path, L.line, "GOAL: an operation requires itself", l, n); break; }
      VEC_PUSH(g.edges, e);
      continue;
    }
    if (nw < 3 || wl[0] < 2 || w[0][wl[0] - 1] != ':') {
      rc = fx_bad(err, path, L.line, "GOAL: expected 'label: send|recv|calc ...', 'A requires B' or '}'", l, n);
      break;
    }
    gnode nd = {.line = L.line, .peer = -1, .tag = -1};
    int ok = 1;
    if (is_word(w[1], wl[1], "calc")) {
      double ns;
      ok = fx_double(w[2], wl[2], &ns) == 0 && ns >= 0;
      nd.kind = TIT_COMPUTE;
      nd.ns = ns;
      for (int i = 3; ok && i + 1 < nw; i += 2) ok = is_word(w[i], wl[i], "cpu");
    } else if (is_word(w[1], wl[1], "send") || is_word(w[1], wl[1], "recv")) {
      int snd = w[1][0] == 's';
      long size, peer, tag;
      ok = nw >= 7 && wl[2] > 1 && w[2][wl[2] - 1] == 'b' && fx_long(w[2], wl[2] - 1, &size) == 0 && size >= 0 &&
           is_word(w[3], wl[3], snd ? "to" : "from") && fx_long(w[4], wl[4], &peer) == 0 &&
           peer >= (snd ? 0 : -1) && peer < t->nranks && is_word(w[5], wl[5], "tag") &&
           fx_long(w[6], wl[6], &tag) == 0 && tag >= (snd ? 0 : -1) && tag <= BIG;
      for (int i = 7; ok && i < nw; i += 2) ok = i + 1 < nw && (is_word(w[i], wl[i], "cpu") || is_word(w[i], wl[i], "nic"));
      if (ok) {
        nd.kind = snd ? TIT_ISEND : TIT_IRECV;
        nd.bytes = (double)size;
        nd.peer = (int)peer;
        nd.tag = (int)tag;
      }
    } else ok = 0;
    if (!ok) {
      char what[128];
      snprintf(what, sizeof what, "GOAL: expected 'send Nb to R tag T', 'recv Nb from R tag T' (R in %s..%d) or 'calc N'", "0", t->nranks - 1);
      rc = fx_bad(err, path, L.line, what, l, n);
      break;
    }
    int *slot = label_slot(&g, w[0], wl[0] - 1, 1);
    if (!slot) { rc = fx_bad(err, path, L.line, "GOAL: label defined twice in this rank", w[0], wl[0]); break; }
    *slot = (int)g.nodes.len;
    VEC_PUSH(g.nodes, nd);
  }
  fx_lines_close(&L);
  if (rc == 0 && cur >= 0) rc = psim_errf(err, PSIM_EXIT_INPUT, path, L.line, "GOAL: rank %d's block is not closed (truncated schedule?)", cur);
  if (rc == 0 && !t->ranks) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "GOAL: no num_ranks line");
  for (int r = 0; rc == 0 && r < t->nranks; r++)
    if (!seen[r]) fx_warn(t, "rank %d has no block in the schedule: it does nothing", r);
  grank_clear(&g);
  free(seen);
  return rc < 0 ? -1 : 0;
}
