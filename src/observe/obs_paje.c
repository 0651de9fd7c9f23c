/* Paje trace writer (the format SimGrid's tracing writes, read by PajeNG and ViTE).
 *
 * Paje readers want events in date order, but an action is reported when it ends, long after
 * it started, and a message when it arrives, possibly long after its transfer started (no
 * observer sees a transfer start, so no safe "nothing earlier can come" date exists while the
 * run goes on). So events are sorted: in memory by (date, sequence), spilled as sorted runs to
 * a temporary file when the buffer is full, and merged when the run ends. Ties keep the order
 * the events were produced in, so the output is deterministic. */
#include <stdlib.h>
#include <string.h>

#include "psim/observe.h"

enum { EV_PUSH, EV_POP, EV_LSTART, EV_LEND };

typedef struct pev {
  double t;
  uint64_t seq;
  int kind, rank, peer, value;
  long key;
  double bytes;
} pev;

struct obs_paje {
  FILE *f;
  const platform *plat;
  const int *rank_host;
  int np;
  VEC(pev) buf;
  uint64_t seq;
  long nlinks;
  FILE *spill;          /* sorted runs of SPILL_EVENTS events (the last one shorter) */
  size_t nruns, last_run_len;
  int no_spill;         /* tmpfile() failed: keep everything in memory */
};

enum { SPILL_EVENTS = 1 << 20, MERGE_CHUNK = 4096 };

static const char *HEADER =
    "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 2\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 4\n%       Alias string\n%       Type string\n%       StartContainerType string\n"
    "%       EndContainerType string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 5\n%       Alias string\n%       Type string\n%       Name string\n%       Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 7\n%       Time date\n%       Type string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajePushState 12\n%       Time date\n%       Type string\n%       Container string\n%       Value string\n%EndEventDef\n"
    "%EventDef PajePopState 13\n%       Time date\n%       Type string\n%       Container string\n%EndEventDef\n"
    "%EventDef PajeStartLink 15\n%       Time date\n%       Type string\n%       Container string\n%       Value string\n"
    "%       StartContainer string\n%       Key string\n%       Size double\n%EndEventDef\n"
    "%EventDef PajeEndLink 16\n%       Time date\n%       Type string\n%       Container string\n%       Value string\n"
    "%       EndContainer string\n%       Key string\n%EndEventDef\n";

/* State values: every state name a rank can be in, with a colour (r g b in [0,1]). */
static const tit_kind STATE_KINDS[] = {
    TIT_COMPUTE, TIT_SLEEP, TIT_SEND, TIT_RECV, TIT_SENDRECV, TIT_WAIT, TIT_TEST,
    TIT_BARRIER, TIT_BCAST, TIT_REDUCE, TIT_ALLREDUCE, TIT_ALLTOALL, TIT_ALLTOALLV, TIT_GATHER,
    TIT_ALLGATHER, TIT_GATHERV, TIT_ALLGATHERV, TIT_SCATTER, TIT_SCATTERV, TIT_REDUCESCATTER,
    TIT_SCAN, TIT_EXSCAN, TIT_MIGRATE, TIT_LOCATION, TIT_NOOP, TIT_ITERATION};
static const char *const CAT_COLOR[OBS_NCATS] = {"0.2 0.7 0.2", "0.2 0.4 0.9", "0.9 0.3 0.2",
                                                 "0.9 0.6 0.1", "0.6 0.6 0.6"};

static void time_out(FILE *f, double t) { obs_json_number(f, t); }

static int cmp_ev(const void *a, const void *b) {
  const pev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_ev(obs_paje *w, const pev *e) {
  FILE *f = w->f;
  switch (e->kind) {
  case EV_PUSH:
    fputs("12 ", f); time_out(f, e->t);
    fprintf(f, " STATE r%d %s\n", e->rank, obs_state_name((tit_kind)e->value));
    break;
  case EV_POP:
    fputs("13 ", f); time_out(f, e->t);
    fprintf(f, " STATE r%d\n", e->rank);
    break;
  case EV_LSTART:
    fputs("15 ", f); time_out(f, e->t);
    fprintf(f, " LINK 0 %s r%d m%ld ", e->value ? "coll" : "p2p", e->rank, e->key);
    obs_json_number(f, e->bytes);
    fputc('\n', f);
    break;
  case EV_LEND:
    fputs("16 ", f); time_out(f, e->t);
    fprintf(f, " LINK 0 %s r%d m%ld\n", e->value ? "coll" : "p2p", e->peer, e->key);
    break;
  }
}

static void spill(obs_paje *w) {
  if (!w->spill && !(w->spill = tmpfile())) { w->no_spill = 1; return; }
  qsort(w->buf.data, w->buf.len, sizeof *w->buf.data, cmp_ev);
  fwrite(w->buf.data, sizeof *w->buf.data, w->buf.len, w->spill);
  w->nruns++;
  w->last_run_len = w->buf.len;
  w->buf.len = 0;
}

static void push_ev(obs_paje *w, pev e) {
  e.seq = w->seq++;
  VEC_PUSH(w->buf, e);
  if (w->buf.len >= SPILL_EVENTS && !w->no_spill) spill(w);
}

/* Merges the spilled runs and the in-memory buffer (sorted) into the output. */
typedef struct run_cursor { long off, left; pev ev[MERGE_CHUNK]; int n, i; } run_cursor;

static int cursor_fill(obs_paje *w, run_cursor *c) {
  if (c->i < c->n) return 1;
  if (c->left <= 0) return 0;
  long k = c->left < MERGE_CHUNK ? c->left : MERGE_CHUNK;
  fseek(w->spill, c->off * (long)sizeof(pev), SEEK_SET);
  c->n = (int)fread(c->ev, sizeof(pev), (size_t)k, w->spill);
  c->i = 0;
  c->off += c->n;
  c->left = c->n > 0 ? c->left - c->n : 0;
  return c->n > 0;
}

static void write_all(obs_paje *w) {
  qsort(w->buf.data, w->buf.len, sizeof *w->buf.data, cmp_ev);
  size_t nr = w->spill ? w->nruns : 0, bi = 0;
  run_cursor *cs = nr ? xcalloc(nr, sizeof *cs) : NULL;
  for (size_t r = 0; r < nr; r++) {
    cs[r].off = (long)(r * SPILL_EVENTS);
    cs[r].left = r + 1 == nr ? (long)w->last_run_len : SPILL_EVENTS;
  }
  /* Linear choice among the run heads: there are few runs (one per 2^20 events). */
  for (;;) {
    const pev *best = bi < w->buf.len ? &w->buf.data[bi] : NULL;
    run_cursor *bc = NULL;
    for (size_t r = 0; r < nr; r++) {
      if (!cursor_fill(w, &cs[r])) continue;
      const pev *e = &cs[r].ev[cs[r].i];
      if (!best || cmp_ev(e, best) < 0) { best = e; bc = &cs[r]; }
    }
    if (!best) break;
    write_ev(w, best);
    if (bc) bc->i++; else bi++;
  }
  free(cs);
  w->buf.len = 0;
}

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len,
                      double start, double end) {
  (void)text; (void)len;
  obs_paje *w = ctx;
  if (rank < 0 || rank >= w->np) return;
  if (a->kind == TIT_INIT || a->kind == TIT_FINALIZE) return;
  push_ev(w, (pev){.t = start, .kind = EV_PUSH, .rank = rank, .value = (int)a->kind});
  push_ev(w, (pev){.t = end, .kind = EV_POP, .rank = rank});
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  (void)recv;
  obs_paje *w = ctx;
  if (send->src < 0 || send->src >= w->np || send->dst < 0 || send->dst >= w->np) return;
  long key = w->nlinks++;
  int coll = send->ctx == MPI_CTX_COLL;
  double t0 = mpi_req_start_or_post(send);
  push_ev(w, (pev){.t = t0, .kind = EV_LSTART, .rank = send->src, .value = coll, .key = key,
                   .bytes = send->bytes});
  push_ev(w, (pev){.t = send->xfer_end, .kind = EV_LEND, .peer = send->dst, .value = coll, .key = key});
}

static void on_end(void *ctx, double time) {
  obs_paje *w = ctx;
  write_all(w);
  /* Ranks first, then hosts: a container is destroyed after its children. */
  for (int i = 0; i < w->np; i++) {
    fputs("7 ", w->f); time_out(w->f, time);
    fprintf(w->f, " RANK r%d\n", i);
  }
  int nh = plat_nhosts(w->plat);
  char *used = xcalloc((size_t)nh + 1, 1);
  for (int i = 0; i < w->np; i++) used[w->rank_host[i]] = 1;
  for (int h = 0; h < nh; h++)
    if (used[h]) { fputs("7 ", w->f); time_out(w->f, time); fprintf(w->f, " HOST h%d\n", h); }
  free(used);
}

/* Host names may hold spaces or quotes: Paje strings are double-quoted, without escapes. */
static void paje_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

obs_paje *obs_paje_new(FILE *f, const platform *plat, const int *rank_host, int np) {
  obs_paje *w = xcalloc(1, sizeof *w);
  w->f = f;
  w->plat = plat;
  w->rank_host = rank_host;
  w->np = np;
  fputs(HEADER, f);
  fputs("0 HOST 0 \"HOST\"\n0 RANK HOST \"RANK\"\n2 STATE RANK \"MPI_STATE\"\n"
        "4 LINK 0 RANK RANK \"MPI_LINK\"\n", f);
  for (size_t i = 0; i < sizeof STATE_KINDS / sizeof *STATE_KINDS; i++) {
    const char *n = obs_state_name(STATE_KINDS[i]);
    fprintf(f, "5 %s STATE \"%s\" \"%s\"\n", n, n, CAT_COLOR[obs_category(STATE_KINDS[i])]);
  }
  fputs("5 p2p LINK \"p2p\" \"0.2 0.4 0.9\"\n5 coll LINK \"coll\" \"0.9 0.6 0.1\"\n", f);
  int nh = plat_nhosts(plat);
  char *used = xcalloc((size_t)nh + 1, 1);
  for (int i = 0; i < np; i++) used[rank_host[i]] = 1;
  for (int h = 0; h < nh; h++) {
    if (!used[h]) continue;
    fprintf(f, "6 0 h%d HOST 0 ", h);
    paje_string(f, plat_host_at(plat, h)->name);
    fputc('\n', f);
  }
  free(used);
  for (int i = 0; i < np; i++) fprintf(f, "6 0 r%d RANK h%d \"rank-%d\"\n", i, rank_host[i], i);
  return w;
}

replay_observer obs_paje_observer(obs_paje *w) {
  return (replay_observer){.ctx = w, .action = on_action, .message = on_message, .end = on_end};
}

void obs_paje_free(obs_paje *w) {
  if (!w) return;
  VEC_FREE(w->buf);
  if (w->spill) fclose(w->spill);
  free(w);
}
