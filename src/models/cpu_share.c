/* CPU used by communication (DPS) and the CPU accounting of every host.
 *
 * DPS's rule: while a transfer flows (its data phase, after the latency), it takes the
 * fraction cpu/send-cost of its sending host's CPU and cpu/recv-cost of its receiving host's;
 * the CPU left over is shared evenly among the host's computations. psim applies it as a
 * change of the host's solver capacity: with D = nsend * send-cost + nrecv * recv-cost (in
 * cores: a cost is a fraction of ONE core, the protocol work of a transfer runs on one core)
 * the host offers cap0 * (1 - min(D, cores) / cores) to its computations, which share it by
 * max-min (each at most one core, weighted by nice when background processes compete). On a
 * single-core host this is exactly DPS's rule; on a multi-core host communication first takes
 * cores that computations leave idle, as an interrupt handler on an idle core would.
 *
 * Accounting, in CPU-seconds (one core busy for one second = 1): the application's
 * computations count flops / core speed (the CPU time they need, however slowed down);
 * communication counts min(D, cores) integrated over time; background processes the CPU they
 * actually got (background.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

cpu_state *cpu_new(models *m, const cpu_config *cfg) {
  cpu_state *st = xcalloc(1, sizeof *st);
  st->m = m;
  st->sim = models_sim(m);
  st->plat = models_plat(m);
  st->cfg = *cfg;
  st->nhosts = plat_nhosts(st->plat);
  st->h = xcalloc((size_t)st->nhosts, sizeof *st->h);
  lmm_system *l = sim_lmm(st->sim);
  for (int i = 0; i < st->nhosts; i++) {
    const plat_host *ph = plat_host_at(st->plat, i);
    st->h[i].cap0 = lmm_cnst_capacity(l, models_host_cnst(m, i));
    st->h[i].cores = ph->cores > 0 ? ph->cores : 1;
  }
  /* CFS: shares in proportion to weights; the solver's penalties are inverse weights, the
   * application at nice 0 keeping penalty 1 (results unchanged without the options). */
  st->app_penalty = 1024.0 / cpu_nice_weight(cfg->app_nice);
  st->stride = 1;
  return st;
}

void cpu_free(cpu_state *st) {
  if (!st) return;
  cpu_bg_free(st);
  for (int i = 0; i < st->nhosts; i++) VEC_FREE(st->h[i].samples);
  free(st->h);
  free(st);
}

double cpu_exec_penalty(cpu_state *st, int host, double flops) {
  const plat_host *ph = plat_host_at(st->plat, host);
  if (ph->speed > 0) st->h[host].app += flops / ph->speed;
  return st->app_penalty;
}

int cpu_comm_costs(const cpu_state *st) { return st->cfg.send_cost > 0 || st->cfg.recv_cost > 0; }

static double demand(const cpu_state *st, const cpu_host *h) {
  double d = h->nsend * st->cfg.send_cost + h->nrecv * st->cfg.recv_cost;
  return d < h->cores ? d : h->cores;
}

/* Brings host i's communication CPU-seconds up to now. */
static void comm_settle(cpu_state *st, int i) {
  cpu_host *h = &st->h[i];
  double now = sim_now(st->sim);
  if (h->nsend || h->nrecv) h->comm += demand(st, h) * (now - h->comm_since);
  h->comm_since = now;
}

static void comm_count(cpu_state *st, int i, int send, int delta) {
  cpu_host *h = &st->h[i];
  comm_settle(st, i);
  if (send) h->nsend += delta;
  else h->nrecv += delta;
  /* The capacity is recomputed from the counts, so it is exactly cap0 again when no
   * transfer flows (no rounding drift from adding and removing costs). */
  double cap = h->cap0 * (1.0 - demand(st, h) / h->cores);
  lmm_cnst_set_capacity(sim_lmm(st->sim), models_host_cnst(st->m, i), cap);
}

void cpu_comm(cpu_state *st, int src, int dst, int on) {
  int delta = on ? 1 : -1;
  if (st->cfg.send_cost > 0) comm_count(st, src, 1, delta);
  if (st->cfg.recv_cost > 0) comm_count(st, dst, 0, delta);
}

void models_comm_cpu(models *m, int src, int dst, int on) {
  cpu_state *st = models_cpu(m);
  if (st && cpu_comm_costs(st)) cpu_comm(st, src, dst, on);
}

int models_cpu_start(models *m, const int *rank_host, int np, psim_err *err) {
  cpu_state *st = models_cpu(m);
  if (!st || st->started) return 0;
  st->started = 1;
  for (int r = 0; r < np; r++) st->h[rank_host[r]].used = st->h[rank_host[r]].reported = 1;
  return cpu_bg_start(st, err);
}

static const char *background_kind(const cpu_config *c) {
  static const char *const names[8] = {"none", "constant", "trace", "constant+trace",
                                       "poisson", "constant+poisson", "trace+poisson",
                                       "constant+trace+poisson"};
  int k = (c->bg_count > 0) | (c->bg_trace[0] ? 2 : 0) | (c->poisson ? 4 : 0);
  return names[k];
}

cpu_report *models_cpu_report(models *m) {
  cpu_state *st = models_cpu(m);
  if (!st) return NULL;
  cpu_report *r = xcalloc(1, sizeof *r);
  r->cfg = st->cfg;
  r->background = background_kind(&st->cfg);
  for (int k = 0; k < 3; k++) {
    if (!st->cfg.la_custom_betas && st->cfg.la_period == 5.0) {
      static const char *const lbl[3] = {"1min", "5min", "15min"};
      snprintf(r->labels[k], sizeof r->labels[k], "%s", lbl[k]);
    } else if (!st->cfg.la_custom_betas) {
      static const int win[3] = {60, 300, 900};
      snprintf(r->labels[k], sizeof r->labels[k], "%dmin", win[k] / 60);
    } else {
      snprintf(r->labels[k], sizeof r->labels[k], "beta=%.6g", st->cfg.la_betas[k]);
    }
  }
  double *bg = xcalloc((size_t)st->nhosts, sizeof *bg);
  cpu_bg_used(st, bg);
  for (int i = 0; i < st->nhosts; i++) r->nhosts += st->h[i].reported;
  r->hosts = xcalloc((size_t)(r->nhosts ? r->nhosts : 1), sizeof *r->hosts);
  int j = 0;
  for (int i = 0; i < st->nhosts; i++) {
    cpu_host *h = &st->h[i];
    if (!h->reported) continue;
    comm_settle(st, i);
    cpu_host_report *o = &r->hosts[j++];
    o->name = xstrdup(plat_host_at(st->plat, i)->name);
    o->app = h->app;
    o->comm = h->comm;
    o->background = h->bg + bg[i];
    o->nsamples = (int)(h->samples.len / 4);
    if (o->nsamples) {
      o->samples = xmalloc(h->samples.len * sizeof *o->samples);
      memcpy(o->samples, h->samples.data, h->samples.len * sizeof *o->samples);
    }
  }
  free(bg);
  return r;
}

void cpu_report_free(cpu_report *r) {
  if (!r) return;
  for (int i = 0; i < r->nhosts; i++) {
    free(r->hosts[i].name);
    free(r->hosts[i].samples);
  }
  free(r->hosts);
  free(r);
}
