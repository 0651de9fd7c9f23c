/* Routing: sealing routed zones (tables computed once at load) and answering plat_route().
 *
 * plat_route() follows SimGrid's NetZoneImpl::get_global_route: find the deepest zone holding
 * both ends, ask it for the route between the two vertices that contain them (a child zone
 * answers with gateways), then recurse from the source to the first gateway and from the last
 * gateway to the destination. Queries never allocate nor modify the platform. */
#include "platform/plat_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rctx { int *buf; int cap; int n; double extra; } rctx;

static void put(rctx *c, int link) {
  if (c->n < c->cap) c->buf[c->n] = link;
  c->n++;
}

static void put_route(const platform *p, rctx *c, int r, int reversed) {
  const plat_zroute *zr = &p->routes.data[r];
  for (int i = 0; i < zr->len; i++) put(c, p->route_links.data[zr->off + (reversed ? zr->len - 1 - i : i)]);
}

/* ---------------------------------------------------------------- sealing */

/* SimGrid gives every zone made only of hosts/routers an implicit loopback for src == dst. */
static int needs_loopback(const plat_zone *z) { return !z->recursive; }

static int seal_full(platform *p, plat_zone *z, psim_err *err, const char *file) {
  int n = z->n;
  z->table = xmalloc((size_t)n * (size_t)n * sizeof(int));
  for (size_t i = 0; i < (size_t)n * (size_t)n; i++) z->table[i] = -1;
  for (size_t k = 0; k < z->decls.len; k++) {
    plat_decl *d = &z->decls.data[k];
    int *slot = &z->table[(size_t)d->src * n + d->dst];
    if (*slot >= 0)
      return psim_errf(err, PSIM_EXIT_INPUT, file, d->line,
                       "the route from '%s' to '%s' is declared twice (routes are symmetrical unless "
                       "symmetrical=\"NO\"): expected one route per pair",
                       p->nps.data[z->verts.data[d->src]].name, p->nps.data[z->verts.data[d->dst]].name);
    *slot = d->route;
  }
  if (needs_loopback(z)) {
    for (int i = 0; i < n; i++)
      if (z->table[(size_t)i * n + i] < 0) {
        int lb = plat_loopback_link(p);
        z->table[(size_t)i * n + i] = plat_add_route(p, &lb, 1, 0, -1, -1);
      }
  }
  return 0;
}

static int seal_floyd(platform *p, plat_zone *z, psim_err *err, const char *file) {
  int n = z->n;
  if (seal_full(p, z, err, file) < 0) return -1; /* table = direct edges, with loopbacks */
  size_t nn = (size_t)n * (size_t)n;
  unsigned long *cost = xmalloc(nn * sizeof *cost);
  z->pred = xmalloc(nn * sizeof(int));
  for (size_t i = 0; i < nn; i++) {
    int r = z->table[i];
    cost[i] = r >= 0 ? (unsigned long)p->routes.data[r].len : ULONG_MAX;
    z->pred[i] = r >= 0 ? (int)(i / (size_t)n) : -1;
  }
  /* Same loop order and strict comparison as SimGrid, so that ties pick the same paths. */
  for (int c = 0; c < n; c++)
    for (int a = 0; a < n; a++) {
      unsigned long ac = cost[(size_t)a * n + c];
      if (ac == ULONG_MAX) continue;
      for (int b = 0; b < n; b++) {
        unsigned long cb = cost[(size_t)c * n + b], *ab = &cost[(size_t)a * n + b];
        if (cb < ULONG_MAX && (*ab == ULONG_MAX || ac + cb < *ab)) {
          *ab = ac + cb;
          z->pred[(size_t)a * n + b] = z->pred[(size_t)c * n + b];
        }
      }
    }
  free(cost);
  return 0;
}

typedef struct dj_edge { int to, route, next; } dj_edge;
typedef struct heap_elt { unsigned long cost; int id; } heap_elt;

static int heap_less(heap_elt a, heap_elt b) { return a.cost < b.cost || (a.cost == b.cost && a.id < b.id); }

static void heap_push(heap_elt *h, int *len, heap_elt e) {
  int i = (*len)++;
  h[i] = e;
  while (i > 0 && heap_less(h[i], h[(i - 1) / 2])) {
    heap_elt t = h[i]; h[i] = h[(i - 1) / 2]; h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static heap_elt heap_pop(heap_elt *h, int *len) {
  heap_elt top = h[0];
  h[0] = h[--*len];
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < *len && heap_less(h[l], h[m])) m = l;
    if (r < *len && heap_less(h[r], h[m])) m = r;
    if (m == i) break;
    heap_elt t = h[i]; h[i] = h[m]; h[m] = t;
    i = m;
  }
  return top;
}

/* SimGrid's Dijkstra zone only knows the vertices named in routes (graph nodes numbered by first
 * appearance), weighs an edge by its number of links and breaks ties by node number. */
static int seal_dijkstra(platform *p, plat_zone *z, psim_err *err, const char *file) {
  int n = z->n;
  z->gnode = xmalloc((size_t)(n ? n : 1) * sizeof(int));
  for (int i = 0; i < n; i++) z->gnode[i] = -1;
  int *gverts = xmalloc((size_t)(n ? n : 1) * sizeof(int));
  int ng = 0;
  VEC(dj_edge) edges = {0};
  int *head = xmalloc((size_t)(n ? n : 1) * sizeof(int)), *tail = xmalloc((size_t)(n ? n : 1) * sizeof(int));
  for (int i = 0; i < n; i++) head[i] = tail[i] = -1;
  z->self_route = xmalloc((size_t)(n ? n : 1) * sizeof(int));
  for (int i = 0; i < n; i++) z->self_route[i] = -1;
  int rc = 0;
  for (size_t k = 0; k < z->decls.len; k++) {
    plat_decl *d = &z->decls.data[k];
    if (z->gnode[d->src] < 0) { gverts[ng] = d->src; z->gnode[d->src] = ng++; }
    if (z->gnode[d->dst] < 0) { gverts[ng] = d->dst; z->gnode[d->dst] = ng++; }
    int gs = z->gnode[d->src], gd = z->gnode[d->dst];
    for (int e = head[gs]; e >= 0; e = edges.data[e].next)
      if (edges.data[e].to == gd) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, file, d->line, "the route from '%s' to '%s' is declared twice: "
                       "expected one route per pair", p->nps.data[z->verts.data[d->src]].name,
                       p->nps.data[z->verts.data[d->dst]].name);
        goto out;
      }
    dj_edge e = {gd, d->route, -1};
    VEC_PUSH(edges, e);
    int ei = (int)edges.len - 1;
    if (tail[gs] >= 0) edges.data[tail[gs]].next = ei; else head[gs] = ei;
    tail[gs] = ei;
    if (gs == gd) z->self_route[gs] = d->route;
  }
  if (needs_loopback(z))
    for (int g = 0; g < ng; g++)
      if (z->self_route[g] < 0) {
        int lb = plat_loopback_link(p);
        z->self_route[g] = plat_add_route(p, &lb, 1, 0, -1, -1);
      }
  z->ng = ng;
  size_t nn = (size_t)ng * (size_t)ng;
  z->pred = xmalloc((nn ? nn : 1) * sizeof(int));
  z->pred_route = xmalloc((nn ? nn : 1) * sizeof(int));
  unsigned long *cost = xmalloc((size_t)(ng ? ng : 1) * sizeof *cost);
  char *done = xmalloc((size_t)(ng ? ng : 1));
  heap_elt *heap = xmalloc((edges.len + (size_t)ng + 1) * sizeof *heap);
  for (int s = 0; s < ng; s++) {
    int *pred = &z->pred[(size_t)s * ng], *prr = &z->pred_route[(size_t)s * ng];
    for (int v = 0; v < ng; v++) { cost[v] = ULONG_MAX; pred[v] = -1; prr[v] = -1; done[v] = 0; }
    cost[s] = 0;
    int hl = 0;
    heap_push(heap, &hl, (heap_elt){0, s});
    while (hl > 0) {
      heap_elt top = heap_pop(heap, &hl);
      int v = top.id;
      if (done[v]) continue;
      done[v] = 1;
      for (int e = head[v]; e >= 0; e = edges.data[e].next) {
        int u = edges.data[e].to;
        if (u == v) continue;
        unsigned long c = cost[v] + (unsigned long)p->routes.data[edges.data[e].route].len;
        if (c < cost[u]) {
          cost[u] = c;
          pred[u] = v;
          prr[u] = edges.data[e].route;
          heap_push(heap, &hl, (heap_elt){c, u});
        }
      }
    }
  }
  free(cost);
  free(done);
  free(heap);
out:
  free(gverts);
  free(head);
  free(tail);
  VEC_FREE(edges);
  return rc;
}

int plat_zone_seal(platform *p, int zi, psim_err *err, const char *file) {
  plat_zone *z = p->zones.data[zi];
  if (z->sealed) return 0;
  z->sealed = 1;
  z->n = (int)z->verts.len;
  int rc = 0;
  switch (z->kind) {
  case PLAT_Z_FULL: rc = seal_full(p, z, err, file); break;
  case PLAT_Z_FLOYD: rc = seal_floyd(p, z, err, file); break;
  case PLAT_Z_DIJKSTRA: rc = seal_dijkstra(p, z, err, file); break;
  default: break;
  }
  VEC_FREE(z->decls);
  return rc;
}

/* ---------------------------------------------------------------- queries */

static int global_route(const platform *p, int src, int dst, rctx *c, psim_err *err, int depth);

static int no_route(const platform *p, int s, int d, psim_err *err) {
  /* found when a message needs it, long after loading: the file is all we can still name */
  return psim_errf(err, PSIM_EXIT_INPUT, p->name, 0,
                   "no route from '%s' to '%s' in the platform: expected a <route> (or <zoneRoute>) joining them",
                   p->nps.data[s].name, p->nps.data[d].name);
}

/* StarZone: the source's links towards the centre then the destination's links from it,
 * each link at most once (so the backbone is crossed once). */
static void star_route(const plat_zone *z, int s, int d, rctx *c) {
  const plat_star_vert *vs = &z->star.data[s], *vd = &z->star.data[d];
  if (s == d && vs->loop >= 0) { put(c, vs->loop); return; }
  int seq[6] = {vs->lim, vs->up, vs->bb ? z->backbone : -1, vd->bb ? z->backbone : -1, vd->down, vd->lim};
  int seen[6], ns = 0;
  for (int i = 0; i < 6; i++) {
    if (seq[i] < 0) continue;
    int dup = 0;
    for (int j = 0; j < ns; j++) dup |= seen[j] == seq[i];
    if (dup) continue;
    seen[ns++] = seq[i];
    put(c, seq[i]);
  }
}

/* SimGrid's VivaldiZone: a star route, plus (sqrt(dx^2 + dy^2) + |h_s| + |h_d|) / 1000 s of
 * latency from the two vertices' coordinates. A child zone has none (the format gives zones no
 * coordinates), so a route between two child zones stops here, as SimGrid 3.32 does (it would
 * take the routers named router_ZONE as gateways, then fail on the zone's coordinates). */
static int vivaldi_route(const platform *p, const plat_zone *z, int s, int d, rctx *c, psim_err *err) {
  const plat_np *a = &p->nps.data[z->verts.data[s]], *b = &p->nps.data[z->verts.data[d]];
  star_route(z, s, d, c);
  const plat_np *miss = !a->has_coord ? a : !b->has_coord ? b : NULL;
  if (miss)
    return psim_errf(err, PSIM_EXIT_INPUT, p->name, 0, "%s '%s' of Vivaldi zone '%s' has no coordinates "
                     "(expected coordinates=\"x y height\"; SimGrid stops there too)",
                     miss->kind == PLAT_NP_ZONE ? "zone" : miss->kind == PLAT_NP_HOST ? "host" : "router", miss->name,
                     z->name);
  double dx = a->coord[0] - b->coord[0], dy = a->coord[1] - b->coord[1];
  c->extra += (sqrt(dx * dx + dy * dy) + fabs(a->coord[2]) + fabs(b->coord[2])) / 1000.0;
  return 0;
}

static int floyd_emit(const platform *p, const plat_zone *z, int s, int d, rctx *c, int *prev_gw, int *first,
                      psim_err *err, int depth) {
  int n = z->n, pr = z->pred[(size_t)s * n + d];
  if (pr < 0) return -1;
  if (pr != s && floyd_emit(p, z, s, pr, c, prev_gw, first, err, depth) < 0) return -1;
  const plat_zroute *r = &p->routes.data[z->table[(size_t)pr * n + d]];
  if (z->recursive) {
    if (*first < 0) *first = r->gw_src;
    if (*prev_gw >= 0 && r->gw_src >= 0 && *prev_gw != r->gw_src &&
        global_route(p, *prev_gw, r->gw_src, c, err, depth + 1) < 0)
      return -1;
    *prev_gw = r->gw_dst;
  }
  put_route(p, c, z->table[(size_t)pr * n + d], 0);
  return 0;
}

static int dijkstra_emit(const platform *p, const plat_zone *z, int gs, int gv, rctx *c) {
  if (gv == gs) return 0;
  int pr = z->pred[(size_t)gs * z->ng + gv];
  if (pr < 0) return -1;
  if (dijkstra_emit(p, z, gs, pr, c) < 0) return -1;
  /* SimGrid prepends the links one by one while walking back: each hop's list ends up reversed. */
  put_route(p, c, z->pred_route[(size_t)gs * z->ng + gv], 1);
  return 0;
}

/* Route between vertices s and d of zone z; gws and gwd receive the gateways (zone routes). */
static int local_route(const platform *p, const plat_zone *z, int s, int d, rctx *c, int *gws, int *gwd,
                       psim_err *err, int depth) {
  int sn = z->verts.data[s], dn = z->verts.data[d];
  *gws = *gwd = -1;
  switch (z->kind) {
  case PLAT_Z_FULL: {
    int r = z->table[(size_t)s * z->n + d];
    if (r < 0) return no_route(p, sn, dn, err);
    *gws = p->routes.data[r].gw_src;
    *gwd = p->routes.data[r].gw_dst;
    put_route(p, c, r, 0);
    return 0;
  }
  case PLAT_Z_FLOYD: {
    int prev = -1, first = -1, mark = c->n;
    if (floyd_emit(p, z, s, d, c, &prev, &first, err, depth) < 0) {
      c->n = mark;
      return err && err->code ? -1 : no_route(p, sn, dn, err);
    }
    *gws = first;
    *gwd = prev;
    return 0;
  }
  case PLAT_Z_DIJKSTRA: {
    int gs = z->gnode[s], gd = z->gnode[d];
    if (gs < 0 || gd < 0) return no_route(p, sn, dn, err);
    if (gs == gd) {
      if (z->self_route[gs] < 0) return no_route(p, sn, dn, err);
      put_route(p, c, z->self_route[gs], 0);
      *gws = p->routes.data[z->self_route[gs]].gw_src;
      *gwd = p->routes.data[z->self_route[gs]].gw_dst;
      return 0;
    }
    int mark = c->n;
    if (dijkstra_emit(p, z, gs, gd, c) < 0) { c->n = mark; return no_route(p, sn, dn, err); }
    if (z->recursive) {
      /* between zones, as SimGrid's DijkstraZone: the first hop's gw_src, the last hop's
       * gw_dst; the zone a path crosses must be entered and left by the same gateway (SimGrid
       * 3.32 cannot route inside it: it stops on a null gateway) */
      int v = gd, r = z->pred_route[(size_t)gs * z->ng + gd];
      *gwd = p->routes.data[r].gw_dst;
      for (;;) {
        *gws = p->routes.data[r].gw_src;
        v = z->pred[(size_t)gs * z->ng + v];
        if (v == gs) break;
        int rp = z->pred_route[(size_t)gs * z->ng + v];
        int in = p->routes.data[rp].gw_dst;
        if (in != *gws)
          return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "the route from '%s' to '%s' enters a zone by '%s' and "
                           "leaves it by '%s': SimGrid's Dijkstra routing needs one gateway there",
                           p->nps.data[sn].name, p->nps.data[dn].name, in >= 0 ? p->nps.data[in].name : "(none)",
                           *gws >= 0 ? p->nps.data[*gws].name : "(none)");
        r = rp;
      }
    }
    return 0;
  }
  case PLAT_Z_STAR:
    if (z->vivaldi) return vivaldi_route(p, z, s, d, c, err);
    star_route(z, s, d, c);
    return 0;
  case PLAT_Z_TORUS: case PLAT_Z_FATTREE: case PLAT_Z_DRAGONFLY:
    plat_cluster_route(p, z, s, d, c->buf, c->cap, &c->n);
    return 0;
  case PLAT_Z_NONE: default: return no_route(p, sn, dn, err);
  }
}

static int zone_depth(const platform *p, int z) {
  int d = 0;
  for (; z >= 0; z = p->zones.data[z]->parent) d++;
  return d;
}

/* The vertex of zone `common` that contains netpoint np. */
static int vertex_in(const platform *p, int np, int common) {
  int z = p->nps.data[np].zone;
  if (z == common) return p->nps.data[np].local;
  while (p->zones.data[z]->parent != common) z = p->zones.data[z]->parent;
  return p->nps.data[p->zones.data[z]->np].local;
}

static int find_bypass(const plat_zone *z, int src, int dst) {
  for (size_t i = 0; i < z->bypass.len; i++)
    if (z->bypass.data[i].src == src && z->bypass.data[i].dst == dst) return z->bypass.data[i].route;
  return -1;
}

/* SimGrid's NetZoneImpl::get_bypass_route, on `common`, the deepest zone holding src and dst:
 * when both are directly in it, the bypass declared from src to dst; otherwise one declared
 * between the zones on their ways up to `common` (path_s[i] towards path_d[j], the pairs
 * nearest to the ends first: for each m, (i, m) then (m, i) for i < m, then (m, m)), followed
 * by the routes from src to its gateway and from the other gateway to dst. Returns 1 when a
 * bypass was emitted, 0 when there is none, -1 on error. */
static int bypass_route(const platform *p, int common, int src, int dst, rctx *c, psim_err *err, int depth) {
  const plat_zone *z = p->zones.data[common];
  int zs = p->nps.data[src].zone, zd = p->nps.data[dst].zone;
  if (zs == common && zd == common) {
    int r = find_bypass(z, src, dst);
    if (r < 0) return 0;
    put_route(p, c, r, 0);
    return 1;
  }
  enum { MAXD = 64 };
  int ps[MAXD], pd[MAXD], ns = 0, nd = 0;
  for (int q = zs; q >= 0; q = p->zones.data[q]->parent) {
    if (ns == MAXD) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "zones nested deeper than %d", MAXD);
    ps[ns++] = q;
  }
  for (int q = zd; q >= 0; q = p->zones.data[q]->parent) {
    if (nd == MAXD) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "zones nested deeper than %d", MAXD);
    pd[nd++] = q;
  }
  while (ns > 1 && nd > 1 && ps[ns - 1] == pd[nd - 1]) { ns--; nd--; }
  int r = -1, ks = -1, kd = -1, top = ns > nd ? ns : nd;
#define TRY(i, j)                                                                  \
  if (r < 0 && (i) < ns && (j) < nd) {                                             \
    ks = p->zones.data[ps[i]]->np, kd = p->zones.data[pd[j]]->np;                  \
    r = find_bypass(z, ks, kd);                                                    \
  }
  for (int m = 0; m < top && r < 0; m++) {
    for (int i = 0; i < m && r < 0; i++) {
      TRY(i, m)
      TRY(m, i)
    }
    TRY(m, m)
  }
#undef TRY
  if (r < 0) return 0;
  const plat_zroute *zr = &p->routes.data[r];
  if (src != ks) {
    if (zr->gw_src < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "the bypass route from '%s' to '%s' needs gateways "
                       "(expected a <bypassZoneRoute> with gw_src and gw_dst)", p->nps.data[ks].name, p->nps.data[kd].name);
    if (global_route(p, src, zr->gw_src, c, err, depth + 1) < 0) return -1;
  }
  put_route(p, c, r, 0);
  if (dst != kd) {
    if (zr->gw_dst < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "the bypass route from '%s' to '%s' needs gateways "
                       "(expected a <bypassZoneRoute> with gw_src and gw_dst)", p->nps.data[ks].name, p->nps.data[kd].name);
    if (global_route(p, zr->gw_dst, dst, c, err, depth + 1) < 0) return -1;
  }
  return 1;
}

static int global_route(const platform *p, int src, int dst, rctx *c, psim_err *err, int depth) {
  if (depth > 64) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "routing loop between '%s' and '%s'",
                                   p->nps.data[src].name, p->nps.data[dst].name);
  int zs = p->nps.data[src].zone, zd = p->nps.data[dst].zone;
  int ds = zone_depth(p, zs), dd = zone_depth(p, zd);
  while (ds > dd) { zs = p->zones.data[zs]->parent; ds--; }
  while (dd > ds) { zd = p->zones.data[zd]->parent; dd--; }
  while (zs != zd) { zs = p->zones.data[zs]->parent; zd = p->zones.data[zd]->parent; }
  const plat_zone *common = p->zones.data[zs];
  if (common->bypass.len) {
    int b = bypass_route(p, zs, src, dst, c, err, depth);
    if (b != 0) return b < 0 ? -1 : 0;
  }
  int vs = vertex_in(p, src, zs), vd = vertex_in(p, dst, zs);
  int s_direct = p->nps.data[src].zone == zs, d_direct = p->nps.data[dst].zone == zs;
  int gws, gwd;
  if (s_direct && d_direct) return local_route(p, common, vs, vd, c, &gws, &gwd, err, depth);
  /* The gateways are only known from the middle part, which comes second in the route: ask for
   * it once without output (no allocation), then emit the three parts in order. */
  rctx mid = {NULL, 0, 0, 0};
  if (local_route(p, common, vs, vd, &mid, &gws, &gwd, err, depth) < 0) return -1;
  if (!s_direct && gws < 0) gws = -2;
  if (!d_direct && gwd < 0) gwd = -2;
  if (s_direct) gws = src;
  if (d_direct) gwd = dst;
  if (gws == -2 || gwd == -2)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "bad gateways for the route from '%s' to '%s': "
                     "expected a zoneRoute with gw_src and gw_dst", p->nps.data[src].name, p->nps.data[dst].name);
  if (src != gws && global_route(p, src, gws, c, err, depth + 1) < 0) return -1;
  if (local_route(p, common, vs, vd, c, &gws, &gwd, err, depth) < 0) return -1;
  if (d_direct) gwd = dst;
  if (gwd != dst && global_route(p, gwd, dst, c, err, depth + 1) < 0) return -1;
  return 0;
}

int plat_route_lat(const platform *p, int src, int dst, int *buf, int cap, double *extra, psim_err *err) {
  if (err && err->code) psim_err_clear(err); /* psim_errf keeps the first error: start afresh */
  if (extra) *extra = 0;
  if (src < 0 || dst < 0 || (size_t)src >= p->hosts.len || (size_t)dst >= p->hosts.len)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "plat_route: host index out of range (%d, %d; %zu hosts)",
                     src, dst, p->hosts.len);
  rctx c = {buf, buf ? cap : 0, 0, 0};
  if (global_route(p, p->host_np.data[src], p->host_np.data[dst], &c, err, 0) < 0) return -1;
  if (extra) *extra = c.extra;
  return c.n;
}

int plat_route(const platform *p, int src, int dst, int *buf, int cap, psim_err *err) {
  return plat_route_lat(p, src, dst, buf, cap, NULL, err);
}
