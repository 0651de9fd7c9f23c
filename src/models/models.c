/* Resource models: CPUs and networks on top of the kernel's sharing solver.
 *
 * Every host is one solver constraint of capacity speed x cores; a computation is a variable
 * bounded by one core's speed. Every link direction is one constraint of capacity = its
 * bandwidth (SHARED: flows share it; FATPIPE: each flow alone is limited by it).
 *
 * A message in the smpi model (specs/simgrid-compat.md §3): payload P = bytes + 16; first a
 * latency phase of lat_factor(P) x sum of latencies during which it takes no bandwidth; then P
 * bytes at bw_factor(P) x x, where x is its max-min share with consumption 1 on the route's
 * links, 0.05 on the reverse route's (cross-traffic), penalty L + sum weight_S / B_l, and bound
 * min(min_l B_l, gamma / 2L). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/models_internal.h"

/* A computation whose work is rescaled when its host's factor changes. */
typedef struct running_exec { activity *a; activity_done_fn done; } running_exec;
typedef VEC(running_exec) running_vec;
#include "cpu_internal.h"

typedef struct route_entry {
  uint64_t key;       /* src * nhosts + dst + 1; 0 = empty slot */
  int off, len;       /* links in m->route_links */
  double latency, min_bw;
} route_entry;

struct models {
  sim *sim;
  const platform *plat;
  net_config cfg;
  int nhosts;
  int host_cnst0, link_cnst0;       /* first solver constraint of hosts, of links */
  /* route cache: open addressing, cleared when full */
  route_entry *routes;
  size_t nroutes, route_cap;
  VEC(int) route_links;
  int *buf;
  int bufcap;
  /* per-host overheads when a host overrides smpi/os, or, ois */
  step_fn *host_ovh;  /* 3 per host, NULL when none overrides */
  star *star;         /* --network star */
  mach_bound *mach;   /* --machine */
  /* Performance factors (cpu/factor x the machine file's): a computation's flops are
   * multiplied by its host's factor. When the machine file changes a factor at some date, the
   * running computations of the host are tracked so that their work left is rescaled then. */
  double *factor;     /* per host, the factor in effect; NULL when all are cpu/factor */
  running_vec *running;   /* per host, NULL unless some factor changes during the run */
  cpu_state *cpu;     /* the CPU model (cpu_share.c), NULL when not configured */
  disks *disks;       /* the hosts' disks (disk.c) */
};

static void lat_done(sim *s, activity *a);
static void factor_change(sim *s, activity *a);
static void flow_done(sim *s, activity *a);
static void const_lat_done(sim *s, activity *a);
static const route_entry *route_get(models *m, int src, int dst, psim_err *err);

/* The links a flow src->dst uses: its route (consumption 1) and, with cross-traffic, the
 * reverse route (0.05: the acknowledgements flowing back). Calls f for each, in that order. */
static void flow_links(models *m, int src, int dst, void (*f)(models *m, int link, double coeff, void *arg),
                       void *arg) {
  psim_err e;
  e.code = 0;   /* the route is cached and was checked when the message started: no 2 kB clear */
  const route_entry *r = route_get(m, src, dst, &e);
  int off = r->off, len = r->len;
  for (int k = 0; k < len; k++) f(m, m->route_links.data[off + k], 1.0, arg);
  if (m->cfg.crosstraffic) {
    const route_entry *back = route_get(m, dst, src, &e);
    if (back)  /* no way back: no cross-traffic */
      for (int k = 0; k < back->len; k++) f(m, m->route_links.data[back->off + k], 0.05, arg);
  }
}

static void expand_link(models *m, int link, double coeff, void *arg) {
  lmm_expand(sim_lmm(m->sim), m->link_cnst0 + link, *(int *)arg, coeff);
}

static void touch_link(models *m, int link, double coeff, void *arg) {
  (void)coeff; (void)arg;
  lmm_touch_cnst(sim_lmm(m->sim), m->link_cnst0 + link);
}

/* SimGrid touches each link as it expands the flow onto it (System::expand): the walk of one
 * link sees the flow on the links before it only, which decides the order of its modified set. */
static void expand_touch_link(models *m, int link, double coeff, void *arg) {
  expand_link(m, link, coeff, arg);
  touch_link(m, link, coeff, arg);
}

/* A solver variable for a flow src->dst over its links. `enabled_at_start`: the flow takes
 * bandwidth from its creation (no latency phase), and SimGrid's selective update is told of
 * each link as it is added; otherwise the flow was announced when its latency phase began
 * (flow_links with touch_link) and only its switching on is reported. */
static int flow_var(models *m, activity *a, int src, int dst, double penalty, double bound, int enabled_at_start) {
  lmm_system *l = sim_lmm(m->sim);
  int v = lmm_var_new(l, penalty, bound, a);
  sim_groupable(m->sim, a);   /* its share may be a group's (network/solver:groups) */
  if (enabled_at_start && lmm_touching(l)) {
    flow_links(m, src, dst, expand_touch_link, &v);
  } else {
    flow_links(m, src, dst, expand_link, &v);   /* no walk on: nothing to touch */
    if (!enabled_at_start) lmm_touch_var(l, v);
  }
  return v;
}

models *models_new(sim *s, const platform *p, const net_config *cfg, psim_err *err) {
  models *m = xcalloc(1, sizeof *m);
  m->sim = s;
  m->plat = p;
  m->cfg = *cfg;
  m->nhosts = plat_nhosts(p);
  lmm_system *l = sim_lmm(s);
  lmm_set_selective(l, cfg->model == NET_SMPI && !cfg->optim_full);
  lmm_set_sg_order(l, cfg->tie_simgrid);   /* only under the selective update */
  sim_set_groups(s, cfg->solver_groups ? SIM_GROUPS_MIN : 0);
  m->host_cnst0 = -1;
  for (int h = 0; h < m->nhosts; h++) {
    const plat_host *ph = plat_host_at(p, h);
    int c = lmm_cnst_new(l, ph->speed * (ph->cores > 0 ? ph->cores : 1), 0);
    if (h == 0) m->host_cnst0 = c;
  }
  m->link_cnst0 = -1;
  /* The constant model never shares links: no constraint for them (a million-host cluster
   * has two million link directions). */
  for (int i = 0; cfg->model == NET_SMPI && i < plat_nlinks(p); i++) {
    const plat_link *pl = plat_link_at(p, i);
    int c = lmm_cnst_new(l, pl->bandwidth, pl->sharing == PLAT_FATPIPE);
    if (i == 0) m->link_cnst0 = c;
  }
  if (cfg->model == NET_STAR) m->star = star_new(s, p, cfg, m);
  if (cfg->machine) {
    m->mach = mach_bind(cfg->machine, p);
    m->factor = xmalloc((size_t)m->nhosts * sizeof *m->factor);
    for (int h = 0; h < m->nhosts; h++) m->factor[h] = mach_factor(m->mach, h, 0) * cfg->cpu_factor;
    const double *dates;
    int nd = mach_factor_dates(m->mach, &dates);
    if (nd) m->running = xcalloc((size_t)m->nhosts, sizeof *m->running);
    /* daemons: a change after the application's end must not lengthen the run */
    for (int i = 0; i < nd; i++) sim_start_daemon(s, dates[i], factor_change, m, 0);
  }
  m->route_cap = 1024;
  m->routes = xcalloc(m->route_cap, sizeof *m->routes);
  m->bufcap = 64;
  m->buf = xmalloc((size_t)m->bufcap * sizeof *m->buf);
  /* Hosts may override the overheads with <prop id="smpi/os" .../>. */
  for (int h = 0; h < m->nhosts; h++) {
    const plat_host *ph = plat_host_at(p, h);
    const char *props[3] = {ph->prop_os, ph->prop_or, ph->prop_ois};
    for (int k = 0; k < 3; k++) {
      if (!props[k]) continue;
      if (!m->host_ovh) {
        m->host_ovh = xmalloc((size_t)m->nhosts * 3 * sizeof *m->host_ovh);
        for (int i = 0; i < m->nhosts; i++) {
          m->host_ovh[3 * i] = m->cfg.os;
          m->host_ovh[3 * i + 1] = m->cfg.or_;
          m->host_ovh[3 * i + 2] = m->cfg.ois;
        }
      }
      if (step_fn_parse(&m->host_ovh[3 * h + k], props[k], 1, err) < 0) {
        char msg[sizeof err->msg];
        memcpy(msg, err->msg, sizeof msg);
        int n = snprintf(err->msg, sizeof err->msg, "host %.200s: ", ph->name);
        if (n > 0 && (size_t)n < sizeof err->msg) snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%.1200s", msg);
        models_free(m);
        return NULL;
      }
    }
  }
  if (cfg->cpu.active) m->cpu = cpu_new(m, &cfg->cpu);
  m->disks = disks_new(s, p, cfg);
  return m;
}

void models_free(models *m) {
  if (!m) return;
  free(m->routes);
  VEC_FREE(m->route_links);
  free(m->buf);
  free(m->host_ovh);
  star_free(m->star);
  mach_unbind(m->mach);
  free(m->factor);
  for (int h = 0; m->running && h < m->nhosts; h++) VEC_FREE(m->running[h]);
  free(m->running);
  cpu_free(m->cpu);
  disks_free(m->disks);
  free(m);
}

const net_config *models_config(const models *m) { return &m->cfg; }

/* A tracked computation ended: it leaves its host's list, then its caller hears of it. */
static void exec_done(sim *s, activity *a) {
  models *m = a->model;
  running_vec *v = &m->running[a->src];
  activity_done_fn done = NULL;
  for (size_t i = 0; i < v->len; i++)
    if (v->data[i].a == a) {
      done = v->data[i].done;
      v->data[i] = v->data[--v->len];
      break;
    }
  a->model = NULL;
  done(s, a);
}

/* A date at which the machine file changes some factors: the work left of every computation
 * running on a host whose factor changed is rescaled by new / old. */
static void factor_change(sim *s, activity *a) {
  models *m = a->data;
  for (int h = 0; h < m->nhosts; h++) {
    double f = mach_factor(m->mach, h, sim_now(s)) * m->cfg.cpu_factor;
    if (f == m->factor[h]) continue;
    running_vec *v = &m->running[h];
    for (size_t i = 0; i < v->len; i++) sim_scale_work(s, v->data[i].a, f / m->factor[h]);
    m->factor[h] = f;
  }
}

activity *models_exec(models *m, int host, double flops, activity_done_fn done, void *data, int tag) {
  lmm_system *l = sim_lmm(m->sim);
  const plat_host *ph = plat_host_at(m->plat, host);
  /* CLUE: computation time = flops / speed x performance factor */
  flops *= m->factor ? m->factor[host] : m->cfg.cpu_factor;
  activity *a = sim_start_work(m->sim, flops, -1, 1.0, done, data, tag);
  if (flops <= 0) return a;
  if (m->running) {
    running_exec r = {a, done};
    VEC_PUSH(m->running[host], r);
    a->done = exec_done;
    a->model = m;
    a->src = host;
  }
  int v = lmm_var_new(l, m->cpu ? cpu_exec_penalty(m->cpu, host, flops) : 1.0, ph->speed, a);
  lmm_expand(l, m->host_cnst0 + host, v, 1.0);
  lmm_touch_cnst(l, m->host_cnst0 + host);
  a->var = v;
  sim_cpu_work(m->sim, a, m->host_cnst0 + host);   /* SimGrid's order of one date's CPU ends */
  return a;
}

activity *models_sleep(models *m, int host, double t, activity_done_fn done, void *data, int tag) {
  return sim_start_sleep(m->sim, t, host >= 0 ? m->host_cnst0 + host : -1, done, data, tag);
}

void models_wait_blocked(models *m, int host) {
  if (host >= 0) lmm_touch_cnst(sim_lmm(m->sim), m->host_cnst0 + host);
}

/* Looks the route src->dst up, computing and caching it on first use. */
static const route_entry *route_get(models *m, int src, int dst, psim_err *err) {
  uint64_t key = (uint64_t)src * (uint64_t)m->nhosts + (uint64_t)dst + 1;
  size_t mask = m->route_cap - 1;
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
  while (m->routes[i].key) {
    if (m->routes[i].key == key) return &m->routes[i];
    i = (i + 1) & mask;
  }
  double extra;   /* a Vivaldi zone's latency, beyond the links' */
  int n = plat_route_lat(m->plat, src, dst, m->buf, m->bufcap, &extra, err);
  if (n < 0) return NULL;
  if (n > m->bufcap) {
    m->bufcap = n;
    m->buf = xrealloc(m->buf, (size_t)n * sizeof *m->buf);
    n = plat_route_lat(m->plat, src, dst, m->buf, m->bufcap, &extra, err);
  }
  if (m->nroutes * 2 >= m->route_cap) {
    /* Grow up to a bound; beyond it, start afresh (routes are cheap to recompute). */
    if (m->route_cap < (1u << 17)) {
      route_entry *old = m->routes;
      size_t oldcap = m->route_cap;
      m->route_cap *= 2;
      m->routes = xcalloc(m->route_cap, sizeof *m->routes);
      mask = m->route_cap - 1;
      for (size_t j = 0; j < oldcap; j++) {
        if (!old[j].key) continue;
        size_t k = (size_t)((old[j].key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
        while (m->routes[k].key) k = (k + 1) & mask;
        m->routes[k] = old[j];
      }
      free(old);
    } else {
      memset(m->routes, 0, m->route_cap * sizeof *m->routes);
      m->route_links.len = 0;
      m->nroutes = 0;
    }
    i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    while (m->routes[i].key) i = (i + 1) & mask;
  }
  route_entry *e = &m->routes[i];
  e->key = key;
  e->off = (int)m->route_links.len;
  e->len = n;
  e->latency = 0;
  e->min_bw = INFINITY;
  for (int k = 0; k < n; k++) {
    const plat_link *pl = plat_link_at(m->plat, m->buf[k]);
    e->latency += pl->latency;
    if (pl->bandwidth < e->min_bw) e->min_bw = pl->bandwidth;
    VEC_PUSH(m->route_links, m->buf[k]);
  }
  e->latency += extra;
  m->nroutes++;
  return e;
}

/* The constant model's time for a message along route r. */
static double const_time(const route_entry *r, double bytes) {
  return r->latency + (r->len && bytes > 0 ? bytes / r->min_bw : 0);
}

double models_const_time(models *m, int src, int dst, double bytes, psim_err *err) {
  const route_entry *r = route_get(m, src, dst, err);
  return r ? const_time(r, bytes) : -1;
}

/* mark (nonzero): a plain constant-model message ends as a mark of mobj (sim_start_mark);
 * transfer then returns mobj, not an activity (models_transfer_mark only tests it). */
static activity *transfer(models *m, int src, int dst, double bytes, int written, activity_done_fn done,
                          void *data, int tag, void *mobj, int mark, psim_err *err);

activity *models_transfer(models *m, int src, int dst, double bytes, activity_done_fn done,
                          void *data, int tag, psim_err *err) {
  return transfer(m, src, dst, bytes, 0, done, data, tag, NULL, 0, err);
}

activity *models_transfer_written(models *m, int src, int dst, double bytes, activity_done_fn done,
                                  void *data, int tag, psim_err *err) {
  return transfer(m, src, dst, bytes, 1, done, data, tag, NULL, 0, err);
}

int models_transfer_mark(models *m, int src, int dst, double bytes, int written, void *obj, int mark,
                         activity_done_fn done, void *data, int tag, psim_err *err) {
  return transfer(m, src, dst, bytes, written, done, data, tag, obj, mark, err) ? 0 : -1;
}

static activity *transfer(models *m, int src, int dst, double bytes, int written, activity_done_fn done,
                          void *data, int tag, void *mobj, int mark, psim_err *err) {
  double t;
  /* CLUE: a pair line's transmission time replaces the network model for that pair */
  if (m->mach && mach_transmit(m->mach, src, dst, bytes, sim_now(m->sim), &t))
    return sim_start_timer(m->sim, t, done, data, tag);
  if (m->star) return star_transfer(m->star, src, dst, bytes, done, data, tag);
  const route_entry *r = route_get(m, src, dst, err);
  if (!r) return NULL;
  const net_config *c = &m->cfg;
  if (c->model == NET_CONSTANT) {
    if (m->cpu && cpu_comm_costs(m->cpu) && r->len && bytes > 0) {
      /* The data phase costs CPU: the latency, then the bytes, as two timers. */
      double xfer = bytes / r->min_bw;
      int lat = r->latency > 0;
      activity *a = sim_start_timer(m->sim, lat ? r->latency : xfer, lat ? const_lat_done : flow_done, data, tag);
      a->then = done;
      a->next_work = xfer;
      a->src = src;
      a->dst = dst;
      a->model = m;
      if (!lat) cpu_comm(m->cpu, src, dst, 1);
      return a;
    }
    if (mark) {   /* no event at all: the heap entry points at the caller's object */
      sim_start_mark(m->sim, const_time(r, bytes), mobj, mark);
      return mobj;
    }
    return sim_start_event(m->sim, const_time(r, bytes), done, data, tag);   /* 88 bytes a message in flight */
  }
  /* SimGrid's network model refuses an empty route without latency (network_cm02.cpp: "no
   * connecting path"): a TORUS cluster without a loopback gives one between two ranks of one
   * host (FAT_TREE and DRAGONFLY ones go through the host's switch). Simulating it would give
   * the message infinite bandwidth. */
  if (r->len == 0 && r->latency <= 0) {
    psim_errf(err, PSIM_EXIT_INPUT, NULL, 0,
              "no connecting path from host '%s' to host '%s': the platform's route is empty "
              "(a TORUS cluster needs loopback_bw and loopback_lat for ranks that share a "
              "host); SimGrid refuses it too",
              plat_host_at(m->plat, src)->name, plat_host_at(m->plat, dst)->name);
    return NULL;
  }
  double size = bytes + c->envelope;
  double lat = r->latency;
  /* a message inside a host: its own factors when the platform has them (net_config.c) */
  int lo = src == dst && c->lo_factors;
  const step_fn *latf = lo ? &c->lo_lat_factor : written && c->wr_factors ? &c->wr_lat_factor : &c->lat_factor;
  const step_fn *bwfs = lo ? &c->lo_bw_factor : written && c->wr_factors ? &c->wr_bw_factor : &c->bw_factor;
  double lat_time = step_fn_eval(latf, size) * lat;
  double bwf = step_fn_eval(bwfs, size);
  double bound = r->min_bw;
  if (c->tcp_gamma > 0 && lat > 0 && c->tcp_gamma / (2 * lat) < bound) bound = c->tcp_gamma / (2 * lat);
  double penalty = lat;
  int off = r->off, len = r->len;   /* r may move when the cache grows: copy first */
  for (int k = 0; k < len; k++)
    if (c->weight_s > 0) penalty += c->weight_s / plat_link_at(m->plat, m->route_links.data[off + k])->bandwidth;
  if (len == 0) /* no link at all: only the latency counts */
    return sim_start_timer(m->sim, lat_time, done, data, tag);
  if (lat_time > 0) {
    /* The flow takes no bandwidth during its latency: it joins the solver only afterwards,
     * so latency-bound messages never enlarge the components the solver works on. */
    /* SimGrid creates the flow's variable now, switched off, on every link: the links are
     * touched for its selective update. */
    if (lmm_touching(sim_lmm(m->sim))) flow_links(m, src, dst, touch_link, NULL);
    activity *a = sim_start_timer(m->sim, lat_time, lat_done, data, tag);
    a->then = done;
    a->next_work = size;
    a->next_penalty = penalty;
    a->next_bound = bound;
    a->scale = bwf;
    a->src = src;
    a->dst = dst;
    a->model = m;
    (void)off; (void)len;
    return a;
  }
  activity *a = sim_start_work(m->sim, size, -1, bwf, done, data, tag);
  a->var = flow_var(m, a, src, dst, 1.0, bound, 1);
  if (m->cpu && cpu_comm_costs(m->cpu)) {   /* its data phase costs CPU from now on */
    a->then = done;
    a->done = flow_done;
    a->src = src;
    a->dst = dst;
    a->model = m;
    cpu_comm(m->cpu, src, dst, 1);
  }
  return a;
}

/* End of a message's latency phase: it now competes for bandwidth. */
static void lat_done(sim *s, activity *a) {
  models *m = a->model;
  int v = flow_var(m, a, a->src, a->dst, a->next_penalty, a->next_bound, 0);
  a->done = a->then;
  if (m->cpu && cpu_comm_costs(m->cpu)) {   /* the data phase costs CPU: flow_done ends it */
    a->done = flow_done;
    cpu_comm(m->cpu, a->src, a->dst, 1);
  }
  sim_continue_work(s, a, a->next_work, v, a->scale);
}

/* The constant model's latency is paid: the bytes take their time, costing CPU. */
static void const_lat_done(sim *s, activity *a) {
  models *m = a->model;
  activity *b = sim_start_timer(s, a->next_work, flow_done, a->data, a->tag);
  b->then = a->then;
  b->src = a->src;
  b->dst = a->dst;
  b->model = m;
  cpu_comm(m->cpu, a->src, a->dst, 1);
}

/* End of a data phase that cost CPU: give it back, then the driver's callback. */
static void flow_done(sim *s, activity *a) {
  models *m = a->model;
  cpu_comm(m->cpu, a->src, a->dst, 0);
  activity_done_fn d = a->then;
  a->then = NULL;
  a->done = d;
  d(s, a);
}

/* ---- for the CPU model (cpu_internal.h) ---- */
sim *models_sim(models *m) { return m->sim; }
const platform *models_plat(const models *m) { return m->plat; }
int models_host_cnst(const models *m, int host) { return m->host_cnst0 + host; }
cpu_state *models_cpu(models *m) { return m->cpu; }
disks *models_disks(const models *m) { return m->disks; }

double models_overhead(const models *m, int host, overhead_kind k, double bytes) {
  const step_fn *f;
  if (m->host_ovh) f = &m->host_ovh[3 * host + (int)k];
  else f = k == OVH_SEND ? &m->cfg.os : k == OVH_RECV ? &m->cfg.or_ : &m->cfg.ois;
  return step_fn_eval(f, bytes);
}

double models_send_delay(const models *m, int host, double bytes) {
  if (!m->mach) return 0;
  double now = sim_now(m->sim);
  return mach_delay(m->mach, host, MACH_SEND, bytes, now) + mach_delay(m->mach, host, MACH_PACK, bytes, now);
}

double models_recv_delay(const models *m, int host, double bytes) {
  return m->mach ? mach_delay(m->mach, host, MACH_RECV, bytes, sim_now(m->sim)) : 0;
}
