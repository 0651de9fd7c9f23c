/* SimGrid platform XML (v4, 4.0, 4.1) reader, on expat.
 *
 * The document is streamed: elements create hosts, links, zones and routes as they open, a
 * zone's routing tables are computed when it closes. Any problem stops the parser and is
 * reported with the file, the line and what was expected; everything built so far is freed. */
#include "platform/plat_internal.h"

#include <expat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xlink { int up, down, split; } xlink;  /* an XML <link>: one or two plat_links */
typedef struct xctn { int xl, dir; } xctn;            /* dir: 0 NONE, 1 UP, 2 DOWN */

typedef struct xstate {
  platform *p;
  XML_Parser xp;
  const char *file;
  psim_err *err;
  char **warnings;
  size_t wlen;
  int failed;
  VEC(int) zstack;                /* open zones */
  VEC(char *) estack;             /* open element names */
  VEC(xlink) xlinks;
  plat_map xlink_map;
  int root_zone;
  int resources_seen;
  int cur_host;                   /* host whose <prop> children we accept, -1 */
  /* route being read */
  int in_route, r_src, r_dst, r_gws, r_gwd, r_sym, r_bypass;
  long r_line;
  VEC(xctn) ctns;
} xstate;

static long line_of(xstate *s) { return (long)XML_GetCurrentLineNumber(s->xp); }

__attribute__((format(printf, 2, 3))) static void fail(xstate *s, const char *fmt, ...) {
  if (s->failed) return;
  s->failed = 1;
  char msg[1400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psim_errf(s->err, PSIM_EXIT_INPUT, s->file, line_of(s), "%s", msg);
  XML_StopParser(s->xp, XML_FALSE);
}

static void warn(xstate *s, const char *msg) {
  if (!s->warnings) return;
  char line[1024];
  int n = snprintf(line, sizeof line, "%s:%ld: warning: %s\n", s->file, line_of(s), msg);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  *s->warnings = xrealloc(*s->warnings, s->wlen + (size_t)n + 1);
  memcpy(*s->warnings + s->wlen, line, (size_t)n + 1);
  s->wlen += (size_t)n;
}

/* A note about a cluster about to be built: printed at once (the warnings are printed after
 * the load, and this one is about the wait before it ends). */
static void cluster_note(void *ctx, const char *msg) {
  xstate *s = ctx;
  fprintf(stderr, "%s:%ld: note: %s\n", s->file, line_of(s), msg);
}

static const char *attr(const char **atts, const char *name) {
  for (int i = 0; atts[i]; i += 2)
    if (strcmp(atts[i], name) == 0) return atts[i + 1];
  return NULL;
}

static const char *need(xstate *s, const char *el, const char **atts, const char *name) {
  const char *v = attr(atts, name);
  if (!v) fail(s, "<%s> needs the attribute '%s'", el, name);
  return v;
}

/* Units and signs: `positive` for speeds and bandwidths of resources that must carry work,
 * else the value may be zero (latencies; optional cluster values, where zero means absent). */
enum { NONNEG = 0, POSITIVE = 1 };

static int unit(xstate *s, plat_unit_fn fn, const char *el, const char *name, const char *v, int positive,
                double *out) {
  char why[512];
  int warned = 0;
  if (plat_quantity(fn, v, positive, out, &warned, why, sizeof why) < 0) {
    fail(s, "<%s %s=\"%s\">: %s", el, name, v, why);
    return -1;
  }
  if (warned) {
    char msg[700];
    snprintf(msg, sizeof msg, "<%s %s=\"%s\">: value without unit, taken in the base unit (deprecated)", el, name, v);
    warn(s, msg);
  }
  return 0;
}

static int parse_sharing(xstate *s, const char *el, const char *name, const char *v, int *split, plat_sharing *sh) {
  *split = 0;
  if (!v || strcmp(v, "SHARED") == 0) *sh = PLAT_SHARED;
  else if (strcmp(v, "FATPIPE") == 0) *sh = PLAT_FATPIPE;
  else if (strcmp(v, "SPLITDUPLEX") == 0) { *sh = PLAT_SHARED; *split = 1; }
  else {
    fail(s, "<%s %s=\"%s\">: unknown sharing policy (expected SHARED, SPLITDUPLEX or FATPIPE)", el, name, v);
    return -1;
  }
  return 0;
}

static int cur_zone(xstate *s) { return s->zstack.len ? s->zstack.data[s->zstack.len - 1] : -1; }

static int in_zone(xstate *s, const char *el) {
  int z = cur_zone(s);
  if (z < 0) { fail(s, "<%s> must be inside a <zone>", el); return -1; }
  return z;
}

static void star_vertex(xstate *s, int z) {
  plat_zone *zz = s->p->zones.data[z];
  if (zz->kind != PLAT_Z_STAR) return;
  plat_star_vert v = {-1, -1, -1, -1, 1};
  while (zz->star.len < zz->verts.len) VEC_PUSH(zz->star, v);
}

static int yes_no(xstate *s, const char *el, const char *v, int dflt) {
  if (!v) return dflt;
  if (strcmp(v, "YES") == 0 || strcmp(v, "yes") == 0) return 1;
  if (strcmp(v, "NO") == 0 || strcmp(v, "no") == 0) return 0;
  fail(s, "<%s symmetrical=\"%s\">: expected YES or NO", el, v);
  return -1;
}

/* ------------------------------------------------------------ elements */

static void el_zone(xstate *s, const char *el, const char **atts) {
  const char *id = need(s, el, atts, "id"), *routing = need(s, el, atts, "routing");
  if (!id || !routing) return;
  plat_zone_kind k;
  if (strcmp(routing, "Full") == 0) k = PLAT_Z_FULL;
  else if (strcmp(routing, "Floyd") == 0) k = PLAT_Z_FLOYD;
  else if (strcmp(routing, "Dijkstra") == 0 || strcmp(routing, "DijkstraCache") == 0) k = PLAT_Z_DIJKSTRA;
  else if (strcmp(routing, "None") == 0) k = PLAT_Z_NONE;
  else if (strcmp(routing, "Cluster") == 0 || strcmp(routing, "Vivaldi") == 0) k = PLAT_Z_STAR;
  else {
    fail(s, "<%s id=\"%s\" routing=\"%s\">: unknown routing (expected Full, Floyd, Dijkstra, DijkstraCache, "
         "Cluster, Vivaldi or None)", el, id, routing);
    return;
  }
  int parent = cur_zone(s);
  if (parent < 0 && s->root_zone >= 0) { fail(s, "<%s id=\"%s\">: a platform has one root zone", el, id); return; }
  int zi = plat_add_zone(s->p, id, k, parent);
  int np = plat_add_np(s->p, id, PLAT_NP_ZONE, parent, zi);
  if (np < 0) { fail(s, "<%s id=\"%s\">: the id is already used (expected unique names)", el, id); return; }
  s->p->zones.data[zi]->np = np;
  s->p->zones.data[zi]->vivaldi = strcmp(routing, "Vivaldi") == 0;
  if (parent >= 0) star_vertex(s, parent);
  else s->root_zone = zi;
  VEC_PUSH(s->zstack, zi);
  s->resources_seen = 1;
}

/* speed="s0,s1,...": the host runs at its power state `pstate` (0 when absent), as SimGrid's. */
static int host_speed(xstate *s, const char *el, const char *sp, const char *pstate, double *speed) {
  long k = 0;
  if (pstate) {
    char *end;
    k = strtol(pstate, &end, 10);
    if (end == pstate || *end || k < 0) {
      fail(s, "<%s pstate=\"%s\">: expected a power state number (0, 1, ...)", el, pstate);
      return -1;
    }
  }
  const char *p = sp;
  for (long i = 0; i < k && p; i++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  if (!p) {
    fail(s, "<%s pstate=\"%s\">: speed=\"%s\" has no power state %ld (expected one speed per state, "
            "separated by commas)", el, pstate, sp, k);
    return -1;
  }
  while (*p == ' ') p++;
  return unit(s, psim_unit_speed, el, "speed", p, POSITIVE, speed);   /* reads up to the next comma */
}

/* coordinates="x y h" (SimGrid's Vivaldi: three numbers separated by single spaces; the
 * latency between two netpoints of a Vivaldi zone grows by (sqrt(dx^2 + dy^2) + |h1| + |h2|) ms). */
static int coordinates(xstate *s, const char *el, int np, const char *v) {
  if (!v || !*v) return 0;
  double c[3];
  const char *q = v;
  for (int i = 0; i < 3; i++) {
    char *end;
    c[i] = strtod(q, &end);
    if (end == q || !isfinite(c[i]) || (i < 2 ? *end != ' ' : *end != 0)) {
      fail(s, "<%s coordinates=\"%s\">: expected three numbers separated by spaces (x y height)", el, v);
      return -1;
    }
    q = end + 1;
  }
  plat_np *n = &s->p->nps.data[np];
  n->has_coord = 1;
  memcpy(n->coord, c, sizeof c);
  return 0;
}

static void el_host(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id"), *sp = need(s, el, atts, "speed"), *core = attr(atts, "core");
  if (z < 0 || !id || !sp) return;
  if (s->p->zones.data[z]->cl) { fail(s, "<%s id=\"%s\">: hosts cannot be added to a cluster", el, id); return; }
  double speed;
  if (host_speed(s, el, sp, attr(atts, "pstate"), &speed) < 0) return;
  int cores = 1;
  if (core) {
    char *end;
    long c = strtol(core, &end, 10);
    if (*end || c <= 0 || c > 1000000) { fail(s, "<%s core=\"%s\">: expected a positive integer", el, core); return; }
    cores = (int)c;
  }
  int np = plat_add_host(s->p, id, speed, cores, z);
  if (np < 0) {
    fail(s, "<%s id=\"%s\">: the id is already used (expected unique names)", el, id);
    return;
  }
  if (coordinates(s, el, np, attr(atts, "coordinates")) < 0) return;
  star_vertex(s, z);
  s->cur_host = (int)s->p->hosts.len - 1;
  s->resources_seen = 1;
}

static void el_prop(xstate *s, const char *el, const char **atts) {
  const char *id = need(s, el, atts, "id"), *value = need(s, el, atts, "value");
  if (!id || !value) return;
  const char *parent = s->estack.len >= 2 ? s->estack.data[s->estack.len - 2] : "";
  /* psim's own configuration, which SimGrid must not see: SimGrid stops on a <config> key it
   * does not know, but keeps a zone's or a cluster's <prop> as a property nobody reads. So
   * <prop id="psim/KEY" value="V"/> there is psim's --cfg KEY:V, in the file's order with
   * <config> (psim calibrate --machine writes psim run's poll costs this way). */
  int psim_own = (!strcmp(parent, "zone") || !strcmp(parent, "cluster")) && !strncmp(id, "psim/", 5) && id[5];
  if (strcmp(parent, "config") == 0 || psim_own) {
    VEC_PUSH(s->p->config_keys, plat_strdup(s->p, psim_own ? id + 5 : id));
    VEC_PUSH(s->p->config_vals, plat_strdup(s->p, value));
    VEC_PUSH(s->p->config_lines, line_of(s));
  } else if (strcmp(parent, "host") == 0 && s->cur_host >= 0) {
    plat_host *h = &s->p->hosts.data[s->cur_host];
    const char **slot = strcmp(id, "smpi/os") == 0    ? &h->prop_os
                        : strcmp(id, "smpi/or") == 0  ? &h->prop_or
                        : strcmp(id, "smpi/ois") == 0 ? &h->prop_ois
                                                      : NULL;
    if (!slot) return;
    /* Checked here, where the file and the line are known (the model reads it much later). */
    step_fn f;
    psim_err perr;
    psim_err_clear(&perr);
    if (step_fn_parse(&f, value, 1, &perr) < 0) {
      fail(s, "<%s id=\"%s\" value=\"%s\"> of host '%s': %s", el, id, value, h->name, perr.msg);
      return;
    }
    *slot = plat_strdup(s->p, value);
  }
  /* other properties (zone, link, cluster) do not influence the model */
}

static int new_xlink(xstate *s, const char *el, const char *id, double bw, double lat, int split, plat_sharing sh) {
  xlink x;
  x.split = split;
  char nm[600];
  if (split) {
    snprintf(nm, sizeof nm, "%s_UP", id);
    x.up = plat_add_link(s->p, nm, bw, lat, PLAT_SHARED);
    snprintf(nm, sizeof nm, "%s_DOWN", id);
    x.down = x.up < 0 ? -1 : plat_add_link(s->p, nm, bw, lat, PLAT_SHARED);
  } else {
    x.up = x.down = plat_add_link(s->p, id, bw, lat, sh);
  }
  const char *key = plat_strdup(s->p, id);
  if (x.up < 0 || x.down < 0 || plat_map_put(&s->xlink_map, key, (int)s->xlinks.len) < 0) {
    fail(s, "<%s id=\"%s\">: the link id is already used (expected unique names)", el, id);
    return -1;
  }
  VEC_PUSH(s->xlinks, x);
  return 0;
}

static void el_link(xstate *s, const char *el, const char **atts) {
  const char *id = need(s, el, atts, "id"), *bw = need(s, el, atts, "bandwidth"), *lat = attr(atts, "latency");
  if (in_zone(s, el) < 0 || !id || !bw) return;
  double b, l = 0;
  int split;
  plat_sharing sh;
  if (unit(s, psim_unit_bandwidth, el, "bandwidth", bw, POSITIVE, &b) < 0) return;
  if (lat && unit(s, psim_unit_time, el, "latency", lat, NONNEG, &l) < 0) return;
  if (parse_sharing(s, el, "sharing_policy", attr(atts, "sharing_policy"), &split, &sh) < 0) return;
  new_xlink(s, el, id, b, l, split, sh);
  s->resources_seen = 1;
}

static void el_backbone(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id"), *bw = need(s, el, atts, "bandwidth"), *lat = need(s, el, atts, "latency");
  if (z < 0 || !id || !bw || !lat) return;
  if (s->p->zones.data[z]->kind != PLAT_Z_STAR) { fail(s, "<%s> is only allowed in a zone with routing=\"Cluster\"", el); return; }
  if (s->p->zones.data[z]->vivaldi) {
    warn(s, "<backbone> in a Vivaldi zone is ignored, as SimGrid 3.32 does");
    return;
  }
  double b, l;
  if (unit(s, psim_unit_bandwidth, el, "bandwidth", bw, POSITIVE, &b) < 0 || unit(s, psim_unit_time, el, "latency", lat, NONNEG, &l) < 0)
    return;
  if (new_xlink(s, el, id, b, l, 0, PLAT_SHARED) < 0) return;
  s->p->zones.data[z]->backbone = s->xlinks.data[s->xlinks.len - 1].up;
}

static void el_host_link(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id"), *up = need(s, el, atts, "up"), *down = need(s, el, atts, "down");
  if (z < 0 || !id || !up || !down) return;
  plat_zone *zz = s->p->zones.data[z];
  int np = plat_map_get(&s->p->np_map, id);
  int lu = plat_link_find(s->p, up), ld = plat_link_find(s->p, down);
  if (zz->kind != PLAT_Z_STAR) { fail(s, "<%s> is only allowed in a zone with routing=\"Cluster\"", el); return; }
  if (zz->vivaldi) {   /* SimGrid 3.32 reads host links of Cluster zones only (sg_platf_new_zone_seal) */
    warn(s, "<host_link> in a Vivaldi zone is ignored, as SimGrid 3.32 does (use <peer> for a host's links)");
    return;
  }
  if (np < 0 || s->p->nps.data[np].zone != z) { fail(s, "<%s id=\"%s\">: unknown host (expected a host of zone '%s')", el, id, zz->name); return; }
  if (lu < 0 || ld < 0) { fail(s, "<%s id=\"%s\">: unknown link '%s' (expected a declared link)", el, id, lu < 0 ? up : down); return; }
  zz->star.data[s->p->nps.data[np].local].up = lu;
  zz->star.data[s->p->nps.data[np].local].down = ld;
}

static void el_router(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id");
  if (z < 0 || !id) return;
  int np = plat_add_np(s->p, id, PLAT_NP_ROUTER, z, -1);
  if (np < 0) {
    fail(s, "<%s id=\"%s\">: the id is already used (expected unique names)", el, id);
    return;
  }
  if (coordinates(s, el, np, attr(atts, "coordinates")) < 0) return;
  star_vertex(s, z);
}

/* <disk> of a host: storage for the host's I/O. psim run's MPI-IO (src/emul/rt/rt_file*.c)
 * times its reads and writes on the host's first disk, as SMPI does (src/models/disk.c);
 * further disks are checked and ignored. */
static void el_disk(xstate *s, const char *el, const char **atts) {
  const char *parent = s->estack.len >= 2 ? s->estack.data[s->estack.len - 2] : "";
  if (strcmp(parent, "host") != 0) { fail(s, "<%s> must be inside a <host>", el); return; }
  const char *rb = need(s, el, atts, "read_bw"), *wb = need(s, el, atts, "write_bw"), *id = attr(atts, "id");
  double r, w;
  if (!rb || !wb || unit(s, psim_unit_bandwidth, el, "read_bw", rb, POSITIVE, &r) < 0 ||
      unit(s, psim_unit_bandwidth, el, "write_bw", wb, POSITIVE, &w) < 0)
    return;
  if (s->cur_host < 0) return;
  plat_host *h = &s->p->hosts.data[s->cur_host];
  if (h->disk_read_bw > 0) return;   /* not its first */
  h->disk_read_bw = r;
  h->disk_write_bw = w;
  h->disk_name = plat_strdup(s->p, id ? id : "disk");
}

/* <peer> (Vivaldi zones only, as SimGrid's sg_platf_new_peer): a host of one core with its
 * coordinates and two private links, link_ID_UP (bw_out) and link_ID_DOWN (bw_in), of no
 * latency: SimGrid 3.32 ignores the lat attribute. */
static void el_peer(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id"), *sp = need(s, el, atts, "speed");
  const char *bi = need(s, el, atts, "bw_in"), *bo = need(s, el, atts, "bw_out"), *lat = attr(atts, "lat");
  if (z < 0 || !id || !sp || !bi || !bo) return;
  plat_zone *zz = s->p->zones.data[z];
  if (!zz->vivaldi) { fail(s, "<%s> is only allowed in a zone with routing=\"Vivaldi\"", el); return; }
  double speed, bin, bout, l = 0;
  if (host_speed(s, el, sp, NULL, &speed) < 0 || unit(s, psim_unit_bandwidth, el, "bw_in", bi, POSITIVE, &bin) < 0 ||
      unit(s, psim_unit_bandwidth, el, "bw_out", bo, POSITIVE, &bout) < 0 ||
      (lat && unit(s, psim_unit_time, el, "lat", lat, NONNEG, &l) < 0))
    return;
  if (l > 0) warn(s, "<peer lat=...> is ignored, as SimGrid 3.32 does (its links have no latency)");
  int np = plat_add_host(s->p, id, speed, 1, z);
  if (np < 0) { fail(s, "<%s id=\"%s\">: the id is already used (expected unique names)", el, id); return; }
  if (coordinates(s, el, np, attr(atts, "coordinates")) < 0) return;
  star_vertex(s, z);
  char nm[600];
  snprintf(nm, sizeof nm, "link_%s_UP", id);
  int lu = plat_add_link(s->p, nm, bout, 0, PLAT_SHARED);
  snprintf(nm, sizeof nm, "link_%s_DOWN", id);
  int ld = lu < 0 ? -1 : plat_add_link(s->p, nm, bin, 0, PLAT_SHARED);
  if (lu < 0 || ld < 0) { fail(s, "<%s id=\"%s\">: its link name %s is already used", el, id, nm); return; }
  zz = s->p->zones.data[z];
  zz->star.data[s->p->nps.data[np].local].up = lu;
  zz->star.data[s->p->nps.data[np].local].down = ld;
  s->resources_seen = 1;
}

static int np_named(xstate *s, const char *el, const char *what, const char *name, int want_zone) {
  int np = plat_map_get(&s->p->np_map, name);
  int z = cur_zone(s);
  if (np < 0 || (want_zone >= 0 && (s->p->nps.data[np].kind == PLAT_NP_ZONE) != want_zone) ||
      (want_zone >= 0 && s->p->nps.data[np].zone != z)) {
    if (want_zone == -2)   /* a bypass names any node of the platform */
      fail(s, "<%s %s=\"%s\">: unknown node (expected a host, router or zone declared before)", el, what, name);
    else
      fail(s, "<%s %s=\"%s\">: unknown %s (expected %s declared before in zone '%s')", el, what, name,
           want_zone == 1 ? "zone" : want_zone == 0 ? "host or router" : "gateway",
           want_zone == 1 ? "a child zone" : want_zone == 0 ? "a host or router" : "a host or router",
           z >= 0 ? s->p->zones.data[z]->name : "");
    return -1;
  }
  return np;
}

/* <bypassRoute> and <bypassZoneRoute> (SimGrid's NetZoneImpl::add_bypass_route): one way, no
 * symmetrical attribute, at least one link, one per (src, dst) in a zone; SimGrid's DTD takes
 * the first in a zone of hosts only, the second in a zone of zones only. Their names may be
 * any node; the route is looked up when the zone is the common ancestor (plat_route.c). */
static void el_bypass(xstate *s, const char *el, const char **atts, int zone_route) {
  int z = in_zone(s, el);
  const char *src = need(s, el, atts, "src"), *dst = need(s, el, atts, "dst");
  if (z < 0 || !src || !dst) return;
  const plat_zone *zz = s->p->zones.data[z];
  if (zz->cl) { fail(s, "<%s> cannot be in a cluster", el); return; }
  if (zz->recursive != zone_route) {
    fail(s, "<%s> in zone '%s': expected %s", el, zz->name,
         zone_route ? "a zone of zones (use <bypassRoute> between hosts)"
                    : "a zone of hosts and routers (use <bypassZoneRoute> between zones)");
    return;
  }
  if (attr(atts, "symmetrical")) {
    fail(s, "<%s symmetrical=...>: a bypass route is one way (declare the other direction too)", el);
    return;
  }
  s->r_gws = s->r_gwd = -1;
  if ((s->r_src = np_named(s, el, "src", src, -2)) < 0 || (s->r_dst = np_named(s, el, "dst", dst, -2)) < 0) return;
  if (zone_route) {
    const char *gs = need(s, el, atts, "gw_src"), *gd = need(s, el, atts, "gw_dst");
    if (!gs || !gd || (s->r_gws = np_named(s, el, "gw_src", gs, -2)) < 0 ||
        (s->r_gwd = np_named(s, el, "gw_dst", gd, -2)) < 0)
      return;
  }
  for (size_t i = 0; i < zz->bypass.len; i++)
    if (zz->bypass.data[i].src == s->r_src && zz->bypass.data[i].dst == s->r_dst) {
      fail(s, "<%s src=\"%s\" dst=\"%s\">: a bypass route between them already exists in zone '%s'", el, src,
           dst, zz->name);
      return;
    }
  s->r_sym = 0;
  s->r_bypass = 1;
  s->in_route = 1;
  s->r_line = line_of(s);
  s->ctns.len = 0;
}

static void el_route(xstate *s, const char *el, const char **atts, int zone_route) {
  int z = in_zone(s, el);
  const char *src = need(s, el, atts, "src"), *dst = need(s, el, atts, "dst");
  if (z < 0 || !src || !dst) return;
  s->r_gws = s->r_gwd = -1;
  s->r_bypass = 0;
  if (zone_route) {
    const char *gs = need(s, el, atts, "gw_src"), *gd = need(s, el, atts, "gw_dst");
    if (!gs || !gd) return;
    if ((s->r_src = np_named(s, el, "src", src, 1)) < 0 || (s->r_dst = np_named(s, el, "dst", dst, 1)) < 0 ||
        (s->r_gws = np_named(s, el, "gw_src", gs, -1)) < 0 || (s->r_gwd = np_named(s, el, "gw_dst", gd, -1)) < 0)
      return;
  } else {
    if ((s->r_src = np_named(s, el, "src", src, 0)) < 0 || (s->r_dst = np_named(s, el, "dst", dst, 0)) < 0) return;
  }
  if ((s->r_sym = yes_no(s, el, attr(atts, "symmetrical"), 1)) < 0) return;
  s->in_route = 1;
  s->r_line = line_of(s);
  s->ctns.len = 0;
}

static void el_link_ctn(xstate *s, const char *el, const char **atts) {
  const char *id = need(s, el, atts, "id"), *dir = attr(atts, "direction");
  if (!id) return;
  if (!s->in_route) { fail(s, "<%s> must be inside a <route>, <zoneRoute> or bypass route", el); return; }
  xctn c = {plat_map_get(&s->xlink_map, id), 0};
  if (!dir || strcmp(dir, "NONE") == 0) c.dir = 0;
  else if (strcmp(dir, "UP") == 0) c.dir = 1;
  else if (strcmp(dir, "DOWN") == 0) c.dir = 2;
  else { fail(s, "<%s id=\"%s\" direction=\"%s\">: expected UP, DOWN or NONE", el, id, dir); return; }
  if (c.xl < 0) {
    /* a half of a split-duplex link may also be named directly ("l_UP") */
    int l = plat_link_find(s->p, id);
    if (l < 0) { fail(s, "<%s id=\"%s\">: unknown link (expected a link declared before)", el, id); return; }
    xlink x = {l, l, 0};
    VEC_PUSH(s->xlinks, x);
    c.xl = (int)s->xlinks.len - 1;
  }
  if (s->xlinks.data[c.xl].split && c.dir == 0) {
    fail(s, "<%s id=\"%s\">: the link is SPLITDUPLEX, expected direction=\"UP\" or \"DOWN\"", el, id);
    return;
  }
  VEC_PUSH(s->ctns, c);
}

static void end_route(xstate *s) {
  s->in_route = 0;
  int z = cur_zone(s), n = (int)s->ctns.len;
  int *fw = xmalloc((size_t)(n ? n : 1) * sizeof(int)), *bw = xmalloc((size_t)(n ? n : 1) * sizeof(int));
  for (int i = 0; i < n; i++) {
    const xlink *x = &s->xlinks.data[s->ctns.data[i].xl];
    int up = s->ctns.data[i].dir != 2; /* NONE only happens on non-split links */
    fw[i] = up ? x->up : x->down;
    bw[i] = up ? x->down : x->up;   /* the way back crosses the other half */
  }
  plat_zone *zz = s->p->zones.data[z];
  if (s->r_bypass) {
    if (n == 0) fail(s, "bypass route from '%s' to '%s' without links: expected at least one <link_ctn>",
                     s->p->nps.data[s->r_src].name, s->p->nps.data[s->r_dst].name);
    else VEC_PUSH(zz->bypass, ((plat_bypass){s->r_src, s->r_dst, plat_add_route(s->p, fw, n, 0, s->r_gws, s->r_gwd)}));
    free(fw);
    free(bw);
    return;
  }
  plat_decl d = {s->p->nps.data[s->r_src].local, s->p->nps.data[s->r_dst].local,
                 plat_add_route(s->p, fw, n, 0, s->r_gws, s->r_gwd), s->r_line};
  VEC_PUSH(zz->decls, d);
  if (s->r_sym && d.src != d.dst) {
    plat_decl r = {d.dst, d.src, plat_add_route(s->p, bw, n, 1, s->r_gwd, s->r_gws), s->r_line};
    VEC_PUSH(zz->decls, r);
  }
  free(fw);
  free(bw);
}

static void el_cluster(xstate *s, const char *el, const char **atts) {
  plat_cluster_args a;
  memset(&a, 0, sizeof a);
  a.id = need(s, el, atts, "id");
  a.prefix = attr(atts, "prefix");
  a.suffix = attr(atts, "suffix");
  if (!a.prefix) a.prefix = "";
  if (!a.suffix) a.suffix = "";
  a.radical = need(s, el, atts, "radical");
  const char *sp = need(s, el, atts, "speed"), *bw = need(s, el, atts, "bw"), *lat = need(s, el, atts, "lat");
  if (s->failed) return;
  int parent = cur_zone(s);
  if (parent < 0 && s->root_zone >= 0) { fail(s, "<%s id=\"%s\">: a platform has one root zone", el, a.id); return; }
  if (parent >= 0 && s->p->zones.data[parent]->cl) { fail(s, "<%s> cannot be nested in a cluster", el); return; }
  a.topology = attr(atts, "topology");
  a.topo_parameters = attr(atts, "topo_parameters");
  a.router_id = attr(atts, "router_id");
  const char *core = attr(atts, "core");
  a.cores = 1;
  if (core) {
    char *end;
    long c = strtol(core, &end, 10);
    if (*end || c <= 0 || c > 1000000) { fail(s, "<%s core=\"%s\">: expected a positive integer", el, core); return; }
    a.cores = (int)c;
  }
  if (unit(s, psim_unit_speed, el, "speed", sp, POSITIVE, &a.speed) < 0 || unit(s, psim_unit_bandwidth, el, "bw", bw, POSITIVE, &a.bw) < 0 ||
      unit(s, psim_unit_time, el, "lat", lat, NONNEG, &a.lat) < 0)
    return;
  const char *v;
  if ((v = attr(atts, "bb_bw")) && unit(s, psim_unit_bandwidth, el, "bb_bw", v, NONNEG, &a.bb_bw) < 0) return;
  if ((v = attr(atts, "bb_lat")) && unit(s, psim_unit_time, el, "bb_lat", v, NONNEG, &a.bb_lat) < 0) return;
  if ((v = attr(atts, "limiter_link")) && unit(s, psim_unit_bandwidth, el, "limiter_link", v, NONNEG, &a.limiter) < 0) return;
  if ((v = attr(atts, "loopback_bw")) && unit(s, psim_unit_bandwidth, el, "loopback_bw", v, NONNEG, &a.loopback_bw) < 0) return;
  if ((v = attr(atts, "loopback_lat")) && unit(s, psim_unit_time, el, "loopback_lat", v, NONNEG, &a.loopback_lat) < 0) return;
  a.has_bb = a.bb_bw > 0 || a.bb_lat > 0;
  a.has_limiter = a.limiter > 0;
  a.has_loopback = a.loopback_bw > 0 || a.loopback_lat > 0;
  int split;
  const char *pol = attr(atts, "sharing_policy");
  if (parse_sharing(s, el, "sharing_policy", pol ? pol : "SPLITDUPLEX", &split, &a.sharing) < 0) return;
  a.splitduplex = split;
  if (parse_sharing(s, el, "bb_sharing_policy", attr(atts, "bb_sharing_policy"), &split, &a.bb_sharing) < 0) return;
  if (split) { fail(s, "<%s bb_sharing_policy=\"SPLITDUPLEX\">: expected SHARED or FATPIPE", el); return; }
  a.note = cluster_note;
  a.note_ctx = s;
  char why[1024];
  int zi = plat_cluster_build(s->p, parent, &a, why, sizeof why);
  if (zi < 0) { fail(s, "%s", why); return; }
  if (parent >= 0) star_vertex(s, parent);
  else s->root_zone = zi;
  s->resources_seen = 1;
}

static void el_cabinet(xstate *s, const char *el, const char **atts) {
  int z = in_zone(s, el);
  const char *id = need(s, el, atts, "id"), *prefix = need(s, el, atts, "prefix"), *suffix = need(s, el, atts, "suffix"),
             *radical = need(s, el, atts, "radical"), *sp = need(s, el, atts, "speed"), *bw = need(s, el, atts, "bw"),
             *lat = need(s, el, atts, "lat");
  if (z < 0 || s->failed) return;
  plat_zone *zz = s->p->zones.data[z];
  if (zz->kind != PLAT_Z_STAR) { fail(s, "<%s> is only allowed in a zone with routing=\"Cluster\"", el); return; }
  if (zz->vivaldi) {   /* SimGrid 3.32 builds the cabinets of Cluster zones only */
    warn(s, "<cabinet> in a Vivaldi zone is ignored (no host is created), as SimGrid 3.32 does");
    return;
  }
  double speed, b, l;
  if (unit(s, psim_unit_speed, el, "speed", sp, POSITIVE, &speed) < 0 || unit(s, psim_unit_bandwidth, el, "bw", bw, POSITIVE, &b) < 0 ||
      unit(s, psim_unit_time, el, "lat", lat, NONNEG, &l) < 0)
    return;
  (void)id;
  /* the cluster's parser: a reversed range ("5-1") used to give no host at all, and a huge one
   * (0-99999999999) to run until memory ran out */
  plat_long_vec rad = {0};
  char why[512];
  if (plat_parse_radical(radical, &rad, why, sizeof why) < 0) {
    fail(s, "<%s radical=\"%s\">: %s", el, radical, why);
    VEC_FREE(rad);
    return;
  }
  for (size_t k = 0; k < rad.len && !s->failed; k++) {
    char nm[600], ln[700];
    snprintf(nm, sizeof nm, "%s%ld%s", prefix, rad.data[k], suffix);
    if (plat_add_host(s->p, nm, speed, 1, z) < 0) { fail(s, "<%s>: host '%s' already exists", el, nm); break; }
    star_vertex(s, z);
    snprintf(ln, sizeof ln, "link_%s", nm);
    if (new_xlink(s, el, ln, b, l, 1, PLAT_SHARED) < 0) break;
    zz->star.data[zz->star.len - 1].up = s->xlinks.data[s->xlinks.len - 1].up;
    zz->star.data[zz->star.len - 1].down = s->xlinks.data[s->xlinks.len - 1].down;
  }
  VEC_FREE(rad);
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **atts) {
  xstate *s = ud;
  if (s->failed) return;
  VEC_PUSH(s->estack, xstrdup(el));
  const char *parent = s->estack.len >= 2 ? s->estack.data[s->estack.len - 2] : NULL;
  if (strcmp(el, "platform") == 0) {
    const char *v = attr(atts, "version");
    if (parent) fail(s, "<platform> must be the document element");
    else if (v && strcmp(v, "4") && strcmp(v, "4.0") && strcmp(v, "4.1"))
      fail(s, "<platform version=\"%s\">: unsupported version (expected 4.1)", v);
    return;
  }
  if (!parent) { fail(s, "unexpected <%s>: expected <platform>", el); return; }
  /* Time-varying speeds, bandwidths, latencies and failures (SimGrid's profiles): psim would
   * simulate the resource as constant, so it says so instead. */
  static const char *const profiles[] = {"speed_file", "bandwidth_file", "latency_file", "state_file",
                                         "availability_file", NULL};
  for (const char *const *a = profiles; *a; a++)
    if (attr(atts, *a)) {
      fail(s, "<%s %s=\"%s\">: time-varying profiles are not modelled (psim would take the resource as "
              "constant): expected a platform without %s", el, *a, attr(atts, *a), *a);
      return;
    }
  if (strcmp(el, "config") == 0) {
    if (s->resources_seen) fail(s, "<config> must come before every zone, host and link");
  } else if (strcmp(el, "prop") == 0) el_prop(s, el, atts);
  else if (strcmp(el, "zone") == 0 || strcmp(el, "AS") == 0) el_zone(s, el, atts);
  else if (strcmp(el, "host") == 0) el_host(s, el, atts);
  else if (strcmp(el, "link") == 0) el_link(s, el, atts);
  else if (strcmp(el, "backbone") == 0) el_backbone(s, el, atts);
  else if (strcmp(el, "host_link") == 0) el_host_link(s, el, atts);
  else if (strcmp(el, "router") == 0) el_router(s, el, atts);
  else if (strcmp(el, "peer") == 0) el_peer(s, el, atts);
  else if (strcmp(el, "disk") == 0) el_disk(s, el, atts);
  else if (strcmp(el, "route") == 0) el_route(s, el, atts, 0);
  else if (strcmp(el, "zoneRoute") == 0 || strcmp(el, "ASroute") == 0) el_route(s, el, atts, 1);
  else if (strcmp(el, "bypassRoute") == 0) el_bypass(s, el, atts, 0);
  else if (strcmp(el, "bypassZoneRoute") == 0 || strcmp(el, "bypassASroute") == 0) el_bypass(s, el, atts, 1);
  else if (strcmp(el, "link_ctn") == 0) el_link_ctn(s, el, atts);
  else if (strcmp(el, "cluster") == 0) el_cluster(s, el, atts);
  else if (strcmp(el, "cabinet") == 0) el_cabinet(s, el, atts);
  else
    fail(s, "unknown element <%s> (expected platform, config, prop, zone, host, link, router, route, zoneRoute, "
         "bypassRoute, bypassZoneRoute, link_ctn, cluster, cabinet, backbone, host_link, peer or disk)", el);
}

static void XMLCALL on_end(void *ud, const XML_Char *el) {
  xstate *s = ud;
  if (s->failed) return;
  if (s->estack.len) free(s->estack.data[--s->estack.len]);
  if (strcmp(el, "zone") == 0 || strcmp(el, "AS") == 0) {
    int z = cur_zone(s);
    s->zstack.len--;
    if (plat_zone_seal(s->p, z, s->err, s->file) < 0) { s->failed = 1; XML_StopParser(s->xp, XML_FALSE); }
  } else if (strcmp(el, "route") == 0 || strcmp(el, "zoneRoute") == 0 || strcmp(el, "ASroute") == 0 ||
             strcmp(el, "bypassRoute") == 0 || strcmp(el, "bypassZoneRoute") == 0 || strcmp(el, "bypassASroute") == 0) {
    end_route(s);
  } else if (strcmp(el, "host") == 0) {
    s->cur_host = -1;
  }
}

static platform *load(const char *name, const char *file, const char *xml, size_t len, char **warnings,
                      psim_err *err) {
  psim_err local;
  if (!err) err = &local;
  psim_err_clear(err);
  if (warnings) *warnings = NULL;
  xstate s;
  memset(&s, 0, sizeof s);
  s.p = plat_new(name);
  s.file = file;
  s.err = err;
  s.warnings = warnings;
  s.root_zone = -1;
  s.cur_host = -1;
  plat_map_init(&s.xlink_map);
  s.xp = XML_ParserCreate(NULL);
  XML_SetUserData(s.xp, &s);
  XML_SetElementHandler(s.xp, on_start, on_end);
  if (XML_Parse(s.xp, xml, (int)len, XML_TRUE) == XML_STATUS_ERROR && !s.failed) {
    s.failed = 1;
    psim_errf(err, PSIM_EXIT_INPUT, file, (long)XML_GetCurrentLineNumber(s.xp), "malformed XML: %s",
              XML_ErrorString(XML_GetErrorCode(s.xp)));
  }
  if (!s.failed && s.root_zone < 0) {
    s.failed = 1;
    psim_errf(err, PSIM_EXIT_INPUT, file, 0, "the platform has no zone nor cluster: expected <zone> or <cluster>");
  }
  if (!s.failed && s.p->hosts.len == 0) {
    s.failed = 1;
    psim_errf(err, PSIM_EXIT_INPUT, file, 0, "the platform has no host: expected at least one <host> or <cluster>");
  }
  XML_ParserFree(s.xp);
  for (size_t i = 0; i < s.estack.len; i++) free(s.estack.data[i]);
  VEC_FREE(s.estack);
  VEC_FREE(s.zstack);
  VEC_FREE(s.xlinks);
  VEC_FREE(s.ctns);
  plat_map_free(&s.xlink_map);
  if (s.failed) {
    plat_free(s.p);
    if (warnings) { free(*warnings); *warnings = NULL; }
    return NULL;
  }
  return s.p;
}

platform *plat_load_xml_mem(const char *name, const char *xml, size_t len, char **warnings, psim_err *err) {
  if (len > (size_t)2147483647) {
    psim_errf(err, PSIM_EXIT_INPUT, name, 0, "platform too large");
    return NULL;
  }
  return load(name, name, xml, len, warnings, err);
}

platform *plat_load_xml(const char *path, char **warnings, psim_err *err) {
  if (err) psim_err_clear(err);
  if (warnings) *warnings = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the platform file: expected a readable SimGrid XML file");
    return NULL;
  }
  VEC(char) buf = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    VEC_RESERVE(buf, buf.len + n);
    memcpy(buf.data + buf.len, chunk, n);
    buf.len += n;
  }
  int bad = ferror(f);
  fclose(f);
  platform *p = NULL;
  if (bad) psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot read the platform file");
  else p = plat_load_xml_mem(path, buf.data ? buf.data : "", buf.len, warnings, err);
  VEC_FREE(buf);
  return p;
}
