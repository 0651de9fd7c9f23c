/* Random deadlock-free traces mixing every action kind (see include/psim/tools.h).
 *
 * The trace is built in rounds that every rank goes through in the same order; within a round
 * each rank has at most one partner, so whatever the protocol (detached or rendez-vous), every
 * blocking call finds its peer in the same round: no deadlock by construction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/tools.h"

typedef VEC(char) strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
  VEC_RESERVE(*b, b->len + (size_t)n);
  memcpy(b->data + b->len, tmp, (size_t)n);
  b->len += (size_t)n;
}

/* Message sizes straddling SMPI's factor thresholds and the detached/rendez-vous limit. */
static const double SIZES[] = {0, 1, 100, 300, 1000, 2000, 4000, 6000, 10000, 20000, 65535, 70000, 300000, 1e6};
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])

static double rsize(psim_rng *r) { return SIZES[psim_rng_next(r) % NSIZES]; }
static double rsmall(psim_rng *r) { return SIZES[psim_rng_next(r) % 9]; }

static const char *COLLS[] = {"barrier", "bcast", "reduce", "allreduce", "alltoall", "alltoallv",
                              "gather", "allgather", "gatherv", "allgatherv", "scatter",
                              "scatterv", "reducescatter", "scan", "exscan"};
#define NCOLLS (int)(sizeof COLLS / sizeof COLLS[0])

static int coll_enabled(const gen_mix_opts *o, const char *name) {
  if (!o->collectives) return 1;
  size_t n = strlen(name);
  for (const char *p = o->collectives; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && !strncmp(p, name, n)) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static void collective(strbuf *b, int n, const char *c, psim_rng *r) {
  int root = (int)(psim_rng_next(r) % (uint64_t)n);
  double sz = rsmall(r), flops = (double)(psim_rng_next(r) % 3) * 1e6;
  double *m = xmalloc((size_t)n * (size_t)n * sizeof *m);
  for (int i = 0; i < n * n; i++) m[i] = rsmall(r);
  for (int i = 0; i < n; i++) {
    strbuf *x = &b[i];
    if (!strcmp(c, "barrier")) sb_printf(x, "%d barrier\n", i);
    else if (!strcmp(c, "bcast")) sb_printf(x, "%d bcast %.0f %d\n", i, sz, root);
    else if (!strcmp(c, "reduce")) sb_printf(x, "%d reduce %.0f %.0f %d\n", i, sz, flops, root);
    else if (!strcmp(c, "allreduce")) sb_printf(x, "%d allreduce %.0f %.0f\n", i, sz, flops);
    else if (!strcmp(c, "alltoall")) sb_printf(x, "%d alltoall %.0f %.0f\n", i, sz, sz);
    else if (!strcmp(c, "gather")) sb_printf(x, "%d gather %.0f %.0f %d\n", i, sz, sz, root);
    else if (!strcmp(c, "allgather")) sb_printf(x, "%d allgather %.0f %.0f\n", i, sz, sz);
    else if (!strcmp(c, "scatter")) sb_printf(x, "%d scatter %.0f %.0f %d\n", i, sz, sz, root);
    else if (!strcmp(c, "scan")) sb_printf(x, "%d scan %.0f %.0f\n", i, sz, flops);
    else if (!strcmp(c, "exscan")) sb_printf(x, "%d exscan %.0f %.0f\n", i, sz, flops);
    else if (!strcmp(c, "alltoallv")) {
      double ss = 0, rs = 0;
      for (int j = 0; j < n; j++) { ss += m[i * n + j]; rs += m[j * n + i]; }
      sb_printf(x, "%d alltoallv %.0f", i, ss);
      for (int j = 0; j < n; j++) sb_printf(x, " %.0f", m[i * n + j]);
      sb_printf(x, " %.0f", rs);
      for (int j = 0; j < n; j++) sb_printf(x, " %.0f", m[j * n + i]);
      sb_printf(x, "\n");
    } else if (!strcmp(c, "gatherv") || !strcmp(c, "allgatherv")) {
      sb_printf(x, "%d %s %.0f", i, c, m[i]);
      for (int j = 0; j < n; j++) sb_printf(x, " %.0f", m[j]);
      if (c[0] == 'g') sb_printf(x, " %d", root);
      sb_printf(x, "\n");
    } else if (!strcmp(c, "scatterv")) {
      sb_printf(x, "%d scatterv", i);
      for (int j = 0; j < n; j++) sb_printf(x, " %.0f", m[j]);
      sb_printf(x, " %.0f %d\n", m[i], root);
    } else if (!strcmp(c, "reducescatter")) {
      sb_printf(x, "%d reducescatter", i);
      for (int j = 0; j < n; j++) sb_printf(x, " %.0f", m[j]);
      sb_printf(x, " %.0f\n", flops);
    }
  }
  free(m);
}

static void p2p_round(strbuf *b, int n, psim_rng *r, int *perm) {
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(psim_rng_next(r) % (uint64_t)(i + 1));
    int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  int tag = (int)(psim_rng_next(r) % 4);
  for (int p = 0; p + 1 < n; p += 2) {
    int a = perm[p], c = perm[p + 1];
    double sz = rsize(r);
    switch (psim_rng_next(r) % 5) {
    case 0: /* blocking both sides */
      sb_printf(&b[a], "%d send %d %d %.0f\n", a, c, tag, sz);
      sb_printf(&b[c], "%d recv %d %d %.0f\n", c, a, tag, sz);
      break;
    case 1: /* nonblocking both sides, compute in between */
      sb_printf(&b[a], "%d isend %d %d %.0f\n%d compute 2e6\n%d wait %d %d %d\n", a, c, tag, sz, a, a, a, c, tag);
      sb_printf(&b[c], "%d irecv %d %d %.0f\n%d compute 1e6\n%d wait %d %d %d\n", c, a, tag, sz, c, c, a, c, tag);
      break;
    case 2: /* isend + blocking recv, with a test and a waitall */
      sb_printf(&b[a], "%d isend %d %d %.0f\n%d waitall\n", a, c, tag, sz, a);
      sb_printf(&b[c], "%d irecv %d %d %.0f\n%d test %d %d %d\n%d compute 5e5\n%d wait %d %d %d\n", c, a, tag, sz, c, a, c, tag, c, c, a, c, tag);
      break;
    case 3: /* exchange with sendRecv */
      sb_printf(&b[a], "%d sendRecv %.0f %d %.0f %d 6 6\n", a, sz, c, sz, c);
      sb_printf(&b[c], "%d sendRecv %.0f %d %.0f %d 6 6\n", c, sz, a, sz, a);
      break;
    default: /* typed message: doubles (code 0) */
      sb_printf(&b[a], "%d send %d %d %.0f 0\n", a, c, tag, sz / 8);
      sb_printf(&b[c], "%d recv %d %d %.0f 0\n", c, a, tag, sz / 8);
      break;
    }
  }
}

int gen_mix(const gen_mix_opts *o, const char *dir, psim_err *err) {
  int n = o->ranks;
  if (n < 1 || o->rounds < 0) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "mix: need at least 1 rank");
  if (tools_mkdir_p(dir, err) < 0) return -1;
  psim_rng r;
  psim_rng_seed(&r, o->seed);
  strbuf *b = xcalloc((size_t)n, sizeof *b);
  int *perm = xmalloc((size_t)n * sizeof *perm);
  int colls[NCOLLS], ncolls = 0;
  for (int i = 0; i < NCOLLS; i++) if (coll_enabled(o, COLLS[i])) colls[ncolls++] = i;
  for (int i = 0; i < n; i++) sb_printf(&b[i], "%d init\n", i);
  for (int k = 0; k < o->rounds; k++) {
    int kind = (int)(psim_rng_next(&r) % 3);
    if (o->p2p_only) kind = 0;
    if (o->no_p2p && kind == 0) kind = 1;
    if (kind == 1 && ncolls == 0) kind = 2;
    if (kind == 0) p2p_round(b, n, &r, perm);
    else if (kind == 1) collective(b, n, COLLS[colls[psim_rng_next(&r) % (uint64_t)ncolls]], &r);
    else
      for (int i = 0; i < n; i++)
        sb_printf(&b[i], "%d compute %.0f\n", i, (double)(1 + psim_rng_next(&r) % 50) * 1e5);
  }
  int rc = 0;
  char path[4096];
  snprintf(path, sizeof path, "%s/list", dir);
  FILE *list = fopen(path, "w");
  if (!list) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing");
  for (int i = 0; i < n && !rc; i++) {
    sb_printf(&b[i], "%d finalize\n", i);
    snprintf(path, sizeof path, "%s/rank-%d.txt", dir, i);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(b[i].data, 1, b[i].len, f) != b[i].len) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot write");
    if (f && fclose(f) != 0 && !rc) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot write (disk full?)");
    fprintf(list, "rank-%d.txt\n", i);
  }
  if (list && (ferror(list) | fclose(list)) && !rc) {
    snprintf(path, sizeof path, "%s/list", dir);
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot write the list file (disk full?)");
  }
  for (int i = 0; i < n; i++) VEC_FREE(b[i]);
  free(b);
  free(perm);
  return rc;
}
