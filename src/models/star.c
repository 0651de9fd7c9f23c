/* DPS's star network (Schaeli et al., section 3.3; docs/models.md "Star network (DPS)").
 *
 * Every host has one full-duplex port to a crossbar that is never a bottleneck. A port has a
 * bandwidth b and a latency l: by default those of the host's access link, the first link of
 * the route from the host to the next host in platform order (the last host: to the first),
 * overridden for all hosts by star/bandwidth and star/latency. A message of s bytes from src
 * to dst waits l = max(l_src, l_dst) (taking no bandwidth), then flows at
 *     min(b_src / n_out(src), b_dst / n_in(dst))
 * where n_out, n_in count the flowing transfers of each port. Each port's bandwidth is split
 * EQUALLY among its transfers: a share one transfer cannot use (it is slower at its other end)
 * is not given to the others, which is what makes this model differ from max-min. Alone a
 * message takes l + s / min(b_src, b_dst). Messages within a host are instantaneous.
 *
 * The rates are set directly on the kernel's activities (sim_set_rate): no solver variable.
 * When a transfer starts or ends, only the transfers of its two ports change rate. */
#include <math.h>
#include <stdlib.h>

#include "models/models_internal.h"

/* A flowing transfer: its activity, its ports, its slots in their lists. */
typedef struct flow {
  star *st;
  activity *a;
  int src, dst;
  size_t iout, iin;
  activity_done_fn done;   /* the caller's */
  double bytes;
} flow;

typedef VEC(flow *) flow_vec;

typedef struct port {
  double bw, lat;
  flow_vec out, in;
} port;

struct star {
  sim *sim;
  models *owner;      /* told of each data phase: the CPU it costs (cpu/send-cost, recv-cost) */
  int nhosts;
  port *ports;
  psim_slab flows;
};

star *star_new(sim *s, const platform *p, const net_config *c, models *owner) {
  star *st = xcalloc(1, sizeof *st);
  st->sim = s;
  st->owner = owner;
  st->nhosts = plat_nhosts(p);
  st->ports = xcalloc((size_t)st->nhosts, sizeof *st->ports);
  psim_slab_init(&st->flows, sizeof(flow));
  int cap = 64, *buf = xmalloc((size_t)cap * sizeof *buf);
  for (int h = 0; h < st->nhosts; h++) {
    port *pt = &st->ports[h];
    /* A host without a link to another (a one-host platform) only talks to itself: its
     * messages are instantaneous and the port never used; INFINITY keeps that visible. */
    pt->bw = INFINITY;
    pt->lat = 0;
    if (st->nhosts > 1) {
      psim_err e;
      psim_err_clear(&e);
      int n = plat_route(p, h, (h + 1) % st->nhosts, buf, cap, &e);
      if (n > cap) {
        cap = n;
        buf = xrealloc(buf, (size_t)cap * sizeof *buf);
        n = plat_route(p, h, (h + 1) % st->nhosts, buf, cap, &e);
      }
      if (n > 0) {
        const plat_link *l = plat_link_at(p, buf[0]);
        pt->bw = l->bandwidth;
        pt->lat = l->latency;
      }
    }
    if (c->star_bw >= 0) pt->bw = c->star_bw;
    if (c->star_lat >= 0) pt->lat = c->star_lat;
  }
  free(buf);
  return st;
}

void star_free(star *st) {
  if (!st) return;
  for (int h = 0; h < st->nhosts; h++) {
    VEC_FREE(st->ports[h].out);
    VEC_FREE(st->ports[h].in);
  }
  free(st->ports);
  psim_slab_destroy(&st->flows);
  free(st);
}

void star_port(const star *st, int h, double *bandwidth, double *latency) {
  *bandwidth = st->ports[h].bw;
  *latency = st->ports[h].lat;
}

static double share(const star *st, const flow *f) {
  const port *ps = &st->ports[f->src], *pd = &st->ports[f->dst];
  double out = ps->bw / (double)ps->out.len, in = pd->bw / (double)pd->in.len;
  return out < in ? out : in;
}

/* f at its share, when that changed (an unchanged rate keeps its predicted date). */
static void set_share(star *st, flow *f) {
  double r = share(st, f);
  if (r != f->a->rate) sim_set_rate(st->sim, f->a, r);
}

/* Every transfer of host h's outgoing port, and of host g's incoming port, at its new share. */
static void rerate(star *st, int h, int g) {
  port *ps = &st->ports[h], *pd = &st->ports[g];
  for (size_t i = 0; i < ps->out.len; i++) set_share(st, ps->out.data[i]);
  for (size_t i = 0; i < pd->in.len; i++)
    if (pd->in.data[i]->src != h)   /* already done as part of h's outgoing port */
      set_share(st, pd->in.data[i]);
}

static void list_remove(flow_vec *v, size_t i, int out) {
  flow *last = v->data[--v->len];
  if (i == v->len) return;
  v->data[i] = last;
  if (out) last->iout = i;
  else last->iin = i;
}

/* The last byte arrived: the transfer leaves its ports, whose other transfers speed up. */
static void flow_done(sim *s, activity *a) {
  flow *f = a->model;
  star *st = f->st;
  port *ps = &st->ports[f->src], *pd = &st->ports[f->dst];
  list_remove(&ps->out, f->iout, 1);
  list_remove(&pd->in, f->iin, 0);
  rerate(st, f->src, f->dst);
  models_comm_cpu(st->owner, f->src, f->dst, 0);
  activity_done_fn done = f->done;
  psim_slab_free(&st->flows, f);
  a->model = NULL;
  done(s, a);
}

/* The latency is paid: the transfer joins its ports and everyone there is re-rated. */
static void flow_start(sim *s, activity *a) {
  flow *f = a->model;
  star *st = f->st;
  f->a = a;
  port *ps = &st->ports[f->src], *pd = &st->ports[f->dst];
  f->iout = ps->out.len;
  VEC_PUSH(ps->out, f);
  f->iin = pd->in.len;
  VEC_PUSH(pd->in, f);
  a->done = flow_done;
  sim_continue_work(s, a, f->bytes, -1, 1);
  rerate(st, f->src, f->dst);
  models_comm_cpu(st->owner, f->src, f->dst, 1);
}

activity *star_transfer(star *st, int src, int dst, double bytes, activity_done_fn done, void *data, int tag) {
  if (src == dst) return sim_start_timer(st->sim, 0, done, data, tag);
  const port *ps = &st->ports[src], *pd = &st->ports[dst];
  double lat = ps->lat > pd->lat ? ps->lat : pd->lat;
  if (!(bytes > 0)) return sim_start_timer(st->sim, lat, done, data, tag);
  flow *f = psim_slab_alloc(&st->flows);
  f->st = st;
  f->a = NULL;
  f->src = src;
  f->dst = dst;
  f->done = done;
  f->bytes = bytes;
  activity *a = sim_start_timer(st->sim, lat, flow_start, data, tag);
  a->model = f;
  return a;
}
