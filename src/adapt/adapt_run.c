/* psim lb: a trace's ranks as VPs on PEs with balancing steps (see include/psim/adapt.h).
 *
 * The replay driver schedules VPs on PEs and stops them at balancing steps (replay_vp); this
 * file supplies the platform side (which host each PE is), the initial mapping, the
 * measurements (communication graph, per-iteration loads) and the strategy at each step. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/adapt_internal.h"

void adapt_opts_init(adapt_opts *o, const platform *p, int nvp) {
  memset(o, 0, sizeof *o);
  replay_opts_init(&o->base, p, nvp);
  o->npes = 1;
  o->balancer = LB_NONE;
  o->period = 0;
  o->initial = ADAPT_INIT_BLOCK;
  o->vp_memory = 1e6;
  o->alpha = 3.5e-5;
  o->beta = 8.5e-9;
  o->seed = 1;
}

/* Communication since the last step, per (sender, receiver): open addressing on the pair. */
typedef struct comm_slot { int64_t key; double msgs, bytes; } comm_slot;

typedef struct adapt_ctx {
  const adapt_opts *o;
  adapt_result *res;
  int nvp, npes;
  int *vp_pe;
  double *speed;
  int record_comm;
  comm_slot *comm;
  size_t ncomm, comm_cap;
  VEC(lb_edge) edges;
  VEC(double) loads;      /* iteration x VP */
  VEC(int) pe_of;
  VEC(double) arr_last;   /* per iteration: the latest arrival at its migrate */
  char *pe_out;           /* --pe-events: removed PEs (flags set by the driver) */
} adapt_ctx;

static void comm_add(adapt_ctx *C, int a, int b, double bytes) {
  if (C->ncomm * 2 >= C->comm_cap) {
    size_t cap = C->comm_cap ? 2 * C->comm_cap : 1024;
    comm_slot *n = xmalloc(cap * sizeof *n);
    for (size_t i = 0; i < cap; i++) n[i].key = -1;
    for (size_t i = 0; i < C->comm_cap; i++) {
      if (C->comm[i].key < 0) continue;
      size_t j = (size_t)((uint64_t)C->comm[i].key * 0x9E3779B97F4A7C15ULL >> 17) & (cap - 1);
      while (n[j].key >= 0) j = (j + 1) & (cap - 1);
      n[j] = C->comm[i];
    }
    free(C->comm);
    C->comm = n;
    C->comm_cap = cap;
  }
  int64_t key = (int64_t)a * C->nvp + b;
  size_t j = (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ULL >> 17) & (C->comm_cap - 1);
  while (C->comm[j].key >= 0 && C->comm[j].key != key) j = (j + 1) & (C->comm_cap - 1);
  if (C->comm[j].key < 0) { C->comm[j] = (comm_slot){key, 0, 0}; C->ncomm++; }
  C->comm[j].msgs += 1;
  C->comm[j].bytes += bytes;
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  (void)recv;
  adapt_ctx *C = ctx;
  if (send->src != send->dst) comm_add(C, send->src, send->dst, send->bytes);
}

static int edge_cmp(const void *x, const void *y) {
  const lb_edge *a = x, *b = y;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

static void on_iteration(void *ctx, int vp, int it, int pe, double load, double now) {
  adapt_ctx *C = ctx;
  size_t need = (size_t)it * (size_t)C->nvp;
  while (C->loads.len < need) {
    VEC_PUSH(C->loads, NAN);
    VEC_PUSH(C->pe_of, -1);
  }
  while (C->arr_last.len < (size_t)it) VEC_PUSH(C->arr_last, 0);
  if (now > C->arr_last.data[it - 1]) C->arr_last.data[it - 1] = now;
  C->loads.data[need - (size_t)C->nvp + (size_t)vp] = load;
  C->pe_of.data[need - (size_t)C->nvp + (size_t)vp] = pe;
}

static void max_avg(const double *L, int n, double *max, double *avg) {
  *max = 0;
  *avg = 0;
  for (int p = 0; p < n; p++) { if (L[p] > *max) *max = L[p]; *avg += L[p]; }
  *avg /= n;
}

/* --pe-events: the balancer runs over the PEs still in the pool. The VPs of removed PEs first
 * go, heaviest first, each to the least loaded remaining PE (their work rescaled to its
 * speed); then the balancer sees only the remaining PEs. With no removed PE, the plain call. */
static int balance_without(adapt_ctx *C, const lb_situation *s, int *new_pe, psim_err *err) {
  int npe = s->npe, nvp = s->nvp, navail = 0;
  for (int p = 0; p < npe; p++) navail += !C->pe_out[p];
  if (navail == npe) return lb_balance(C->o->balancer, s, new_pe, err);
  int *avail = xmalloc((size_t)navail * sizeof *avail), *compact = xmalloc((size_t)npe * sizeof *compact);
  double *speed = xmalloc((size_t)navail * sizeof *speed), *L = xcalloc((size_t)navail, sizeof *L);
  double *load = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *load);
  int *cur = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *cur), *out = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *out);
  for (int p = 0, q = 0; p < npe; p++) {
    compact[p] = C->pe_out[p] ? -1 : q;
    if (!C->pe_out[p]) { avail[q] = p; speed[q] = s->pe_speed ? s->pe_speed[p] : 1; q++; }
  }
  for (int v = 0; v < nvp; v++) {
    load[v] = s->vp_load[v];
    cur[v] = compact[s->vp_pe[v]];
    if (cur[v] >= 0) L[cur[v]] += load[v];
  }
  int *order = lb_order_desc(s);
  for (int i = 0; i < nvp; i++) {
    int v = order[i];
    if (cur[v] >= 0) continue;
    double work = s->vp_load[v] * (s->pe_speed ? s->pe_speed[s->vp_pe[v]] : 1);
    int best = 0;
    for (int q = 1; q < navail; q++)
      if (L[q] + work / speed[q] < L[best] + work / speed[best]) best = q;
    cur[v] = best;
    load[v] = work / speed[best];
    L[best] += load[v];
  }
  free(order);
  lb_situation cs = *s;
  cs.npe = navail;
  cs.pe_speed = speed;
  cs.vp_load = load;
  cs.vp_pe = cur;
  int rc = lb_balance(C->o->balancer, &cs, out, err);
  if (rc == 0)
    for (int v = 0; v < nvp; v++) new_pe[v] = avail[out[v]];
  free(avail); free(compact); free(speed); free(L); free(load); free(cur); free(out);
  return rc;
}

static int on_step(void *ctx, int step, double now, const double *loads, const double *bytes,
                   int *new_pe, psim_err *err) {
  adapt_ctx *C = ctx;
  lb_situation s;
  lb_situation_init(&s);
  s.npe = C->npes;
  s.nvp = C->nvp;
  s.pe_speed = C->speed;
  s.vp_load = loads;
  s.vp_pe = C->vp_pe;
  s.alpha = C->o->alpha;
  s.beta = C->o->beta;
  s.seed = C->o->seed;
  s.step = (uint64_t)step;
  if (C->record_comm) {
    /* a deterministic edge order (sender, receiver): the hash order is not meaningful */
    C->edges.len = 0;
    for (size_t i = 0; i < C->comm_cap; i++) {
      if (C->comm[i].key < 0) continue;
      lb_edge e = {(int)(C->comm[i].key / C->nvp), (int)(C->comm[i].key % C->nvp), C->comm[i].msgs,
                   C->comm[i].bytes};
      VEC_PUSH(C->edges, e);
      C->comm[i].key = -1;
    }
    C->ncomm = 0;
    if (C->edges.len) qsort(C->edges.data, C->edges.len, sizeof *C->edges.data, edge_cmp);
    s.edges = C->edges.data;
    s.nedges = (int)C->edges.len;
  }
  if (C->pe_out && balance_without(C, &s, new_pe, err) < 0) return -1;
  if (!C->pe_out && lb_balance(C->o->balancer, &s, new_pe, err) < 0) return -1;
  double *L = xmalloc((size_t)C->npes * sizeof *L);
  adapt_step st = {0};
  st.time = now;
  st.resume = now;
  lb_pe_loads(&s, C->vp_pe, L);
  max_avg(L, C->npes, &st.max_before, &st.avg_before);
  lb_pe_loads(&s, new_pe, L);
  max_avg(L, C->npes, &st.max_after, &st.avg_after);
  free(L);
  for (int v = 0; v < C->nvp; v++)
    if (new_pe[v] != C->vp_pe[v]) { st.migrations++; st.bytes += bytes[v]; }
  VEC_PUSH(C->res->steps, st);
  C->res->lb_steps++;
  C->res->migrations += st.migrations;
  C->res->bytes_migrated += st.bytes;
  return 0;
}

static void on_resumed(void *ctx, int step, double now) {
  adapt_ctx *C = ctx;
  (void)step;
  C->res->steps.data[C->res->steps.len - 1].resume = now;
}

/* Reads the initial mapping: one PE per line (VP order), '#' comments. */
static int read_mapping(const char *path, int nvp, int npes, int *map, psim_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open: %s", strerror(errno));
  char buf[256];
  long ln = 0;
  int n = 0;
  while (fgets(buf, sizeof buf, f)) {
    ln++;
    char *h = strchr(buf, '#');
    if (h) *h = 0;
    char *p = buf, *end;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '\n' || *p == '\r') continue;
    long pe = strtol(p, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
    if (end == p || *end || pe < 0 || pe >= npes) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected a PE number in 0..%d (one per line, in VP order)", npes - 1);
    }
    if (n >= nvp) { fclose(f); return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "more lines than the %d VPs", nvp); }
    map[n++] = (int)pe;
  }
  fclose(f);
  if (n != nvp) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "%d PEs given for %d VPs", n, nvp);
  return 0;
}

int adapt_run(tit_source *src, const adapt_opts *o, adapt_result *res, psim_err *err) {
  memset(res, 0, sizeof *res);
  const platform *plat = o->base.plat;
  int nvp = o->base.np, npes = o->npes;
  res->npes = npes;
  res->nvp = nvp;
  if (npes < 1) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--pes must be at least 1");
  /* PEs are the platform's cores, host after host */
  int *pe_host = xmalloc((size_t)npes * sizeof *pe_host);
  int p = 0;
  long cores = 0;
  for (int h = 0; h < plat_nhosts(plat); h++) {
    int c = plat_host_at(plat, h)->cores;
    if (c < 1) c = 1;
    cores += c;
    for (int k = 0; k < c && p < npes; k++) pe_host[p++] = h;
  }
  if (p < npes) {
    free(pe_host);
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--pes %d: the platform %s has only %ld cores", npes,
                     plat_name(plat), cores);
  }
  adapt_ctx C = {0};
  C.o = o;
  C.res = res;
  C.nvp = nvp;
  C.npes = npes;
  C.vp_pe = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *C.vp_pe);
  C.speed = xmalloc((size_t)npes * sizeof *C.speed);
  double fastest = 0;
  for (int q = 0; q < npes; q++)
    if (plat_host_at(plat, pe_host[q])->speed > fastest) fastest = plat_host_at(plat, pe_host[q])->speed;
  for (int q = 0; q < npes; q++) C.speed[q] = plat_host_at(plat, pe_host[q])->speed / fastest;
  int rc = 0;
  if (o->initial == ADAPT_INIT_FILE) {
    if (read_mapping(o->initial_file, nvp, npes, C.vp_pe, err) < 0) { rc = -1; goto out; }
  } else {
    for (int v = 0; v < nvp; v++)
      C.vp_pe[v] = o->initial == ADAPT_INIT_ROUND_ROBIN ? v % npes : (int)((long)v * npes / nvp);
  }
  C.record_comm = o->balancer == LB_GREEDY_COMM || o->balancer == LB_REFINE_COMM;
  replay_vp vp = {0};
  vp.npes = npes;
  vp.pe_host = pe_host;
  vp.vp_pe = C.vp_pe;
  vp.period = o->balancer == LB_NONE ? 0 : o->period;
  vp.lb_cost = o->lb_cost;
  vp.vp_memory = o->vp_memory;
  vp.ctx = &C;
  vp.iteration = o->keep_loads ? on_iteration : NULL;
  vp.step = on_step;
  vp.resumed = on_resumed;
  if (o->pe_events && o->pe_events->n) {
    C.pe_out = xcalloc((size_t)npes, 1);
    vp.pe_events = o->pe_events;
    vp.pe_out = C.pe_out;
    /* an event leaving no PE is bad input, found before the run */
    int *home = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *home);
    memcpy(home, C.vp_pe, (size_t)nvp * sizeof *home);
    int *maps = dyn_events_maps(o->pe_events, nvp, home, npes, DYN_POLICY_LEAST, "--pe-events", err);
    free(home);
    if (!maps) { rc = -1; goto out; }
    free(maps);
  }
  replay_opts ro = o->base;
  ro.vp = &vp;
  /* the comm graph comes from the observers' message callback, after the caller's ones */
  replay_observer *obs = xmalloc(((size_t)ro.nobservers + 1) * sizeof *obs);
  if (ro.nobservers) memcpy(obs, ro.observers, (size_t)ro.nobservers * sizeof *obs);
  int nobs = ro.nobservers;
  if (C.record_comm) obs[nobs++] = (replay_observer){.ctx = &C, .message = on_message};
  ro.observers = obs;
  ro.nobservers = nobs;
  rc = replay_run(src, &ro, &res->run, err);
  free(obs);
  res->final_pe = xmalloc((size_t)(nvp ? nvp : 1) * sizeof *res->final_pe);
  memcpy(res->final_pe, C.vp_pe, (size_t)nvp * sizeof *res->final_pe);
  if (o->keep_loads) {
    res->iterations = nvp ? (int)(C.loads.len / (size_t)nvp) : 0;
    res->loads = C.loads.data;
    res->pe_of = C.pe_of.data;
    C.loads.data = NULL;
    C.pe_of.data = NULL;
    int n = res->iterations;
    res->it_end = xcalloc((size_t)(n ? n : 1), sizeof *res->it_end);
    for (int i = 0; i < n && (size_t)i < C.arr_last.len; i++) res->it_end[i] = C.arr_last.data[i];
  }
out:
  VEC_FREE(C.arr_last);
  free(C.pe_out);
  VEC_FREE(C.loads);
  VEC_FREE(C.pe_of);
  VEC_FREE(C.edges);
  free(C.comm);
  free(C.speed);
  free(C.vp_pe);
  free(pe_host);
  return rc;
}

void adapt_result_free(adapt_result *r) {
  replay_result_free(&r->run);
  VEC_FREE(r->steps);
  free(r->final_pe);
  free(r->loads);
  free(r->pe_of);
  free(r->it_end);
  memset(r, 0, sizeof *r);
}

void adapt_write_loads_csv(FILE *f, const adapt_result *r) {
  fputs("iteration", f);
  for (int p = 0; p < r->npes; p++) fprintf(f, ",pe%d", p);
  for (int v = 0; v < r->nvp; v++) fprintf(f, ",vp%d", v);
  fputc('\n', f);
  double *pe = xmalloc((size_t)(r->npes ? r->npes : 1) * sizeof *pe);
  for (int it = 0; it < r->iterations; it++) {
    const double *L = r->loads + (size_t)it * (size_t)r->nvp;
    adapt_pe_loads(r, it, pe);
    fprintf(f, "%d", it + 1);
    for (int p = 0; p < r->npes; p++) fprintf(f, ",%.9g", pe[p]);
    for (int v = 0; v < r->nvp; v++) fprintf(f, ",%.9g", L[v]);
    fputc('\n', f);
  }
  free(pe);
}

void adapt_pe_loads(const adapt_result *r, int it, double *pe) {
  const double *L = r->loads + (size_t)it * (size_t)r->nvp;
  const int *P = r->pe_of + (size_t)it * (size_t)r->nvp;
  for (int p = 0; p < r->npes; p++) pe[p] = 0;
  for (int v = 0; v < r->nvp; v++) if (P[v] >= 0 && P[v] < r->npes) pe[P[v]] += L[v];
}
