/* Platform storage: creation helpers used by the loaders, read-only accessors, release. */
#include "platform/plat_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plat_quantity(plat_unit_fn fn, const char *v, int positive, double *out, int *warned, char *why,
                  size_t whylen) {
  if (fn(v, out, warned, why, whylen) < 0) return -1;
  const char *kind = fn == psim_unit_speed ? "speed" : fn == psim_unit_bandwidth ? "bandwidth" : "time";
  if (positive ? *out > 0 : *out >= 0) return 0;
  snprintf(why, whylen, "'%s' is not a %s %s: expected a value %s", v, positive ? "positive" : "non-negative", kind,
           positive ? "above zero" : "of zero or more");
  return -1;
}

/* ---- map ---- */
static uint32_t plat_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the key */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  /* The table takes the low bits, and FNV-1a's low bits only see the keys' low bits: generated
   * names (link_from_0_8182_9_UP...) then crowd a few runs of slots, and linear probing walked
   * them (60 % of building a 2.6 M-link fat tree). A final mix spreads every bit. */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)h;   /* tables stay far below 2^32 slots */
}

void plat_map_init(plat_map *m) { memset(m, 0, sizeof *m); }

void plat_map_free(plat_map *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

int plat_map_get(const plat_map *m, const char *key) {
  if (!m->cap) return -1;
  uint32_t h = plat_hash(key);
  for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    const plat_map_slot *e = &m->slots[i];
    if (!e->key) return -1;
    if (e->tag == h && strcmp(e->key, key) == 0) return e->val;
  }
}

/* Puts a key known to be absent, with its hash. */
static void map_insert(plat_map *m, uint32_t h, const char *key, int val) {
  size_t i = h & (m->cap - 1);
  while (m->slots[i].key) i = (i + 1) & (m->cap - 1);
  m->slots[i] = (plat_map_slot){key, h, val};
  m->len++;
}

static void map_grow(plat_map *m) {
  plat_map old = *m;
  m->cap = old.cap ? old.cap * 2 : 64;
  m->slots = xcalloc(m->cap, sizeof *m->slots);
  m->len = 0;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) map_insert(m, old.slots[i].tag, old.slots[i].key, old.slots[i].val);
  free(old.slots);
}

int plat_map_put(plat_map *m, const char *key, int val) {
  if ((m->len + 1) * 2 > m->cap) map_grow(m);
  uint32_t h = plat_hash(key);
  for (size_t i = h & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1))
    if (m->slots[i].tag == h && strcmp(m->slots[i].key, key) == 0) return -1;
  map_insert(m, h, key, val);
  return 0;
}

/* ---- construction ---- */
platform *plat_new(const char *name) {
  platform *p = xcalloc(1, sizeof *p);
  p->name = xstrdup(name ? name : "");
  plat_map_init(&p->host_map);
  plat_map_init(&p->link_map);
  plat_map_init(&p->np_map);
  p->loopback = -1;
  return p;
}

const char *plat_strdup(platform *p, const char *s) {
  char *c = xstrdup(s);
  VEC_PUSH(p->strings, c);
  return c;
}

int plat_add_link(platform *p, const char *name, double bw, double lat, plat_sharing sh) {
  if (plat_map_get(&p->link_map, name) >= 0) return -1;
  plat_link l = {plat_strdup(p, name), bw, lat, sh};
  VEC_PUSH(p->links, l);
  plat_map_put(&p->link_map, l.name, (int)p->links.len - 1);
  return (int)p->links.len - 1;
}

int plat_add_zone(platform *p, const char *name, plat_zone_kind kind, int parent) {
  plat_zone *z = xcalloc(1, sizeof *z);
  z->name = xstrdup(name);
  z->kind = kind;
  z->parent = parent;
  z->np = -1;
  z->backbone = -1;
  z->gateway = -1;
  VEC_PUSH(p->zones, z);
  int zi = (int)p->zones.len - 1;
  if (parent >= 0) p->zones.data[parent]->recursive = 1;
  return zi;
}

int plat_add_np(platform *p, const char *name, plat_np_kind kind, int zone, int ref) {
  const char *nm = plat_strdup(p, name);
  if (plat_map_get(&p->np_map, nm) >= 0) return -1;
  plat_np np = {nm, kind, zone, -1, ref, 0, {0, 0, 0}};
  if (zone >= 0) {
    plat_zone *z = p->zones.data[zone];
    np.local = (int)z->verts.len;
    VEC_PUSH(z->verts, (int)p->nps.len);
  }
  VEC_PUSH(p->nps, np);
  plat_map_put(&p->np_map, nm, (int)p->nps.len - 1);
  return (int)p->nps.len - 1;
}

int plat_add_host(platform *p, const char *name, double speed, int cores, int zone) {
  if (plat_map_get(&p->np_map, name) >= 0) return -1;
  int hi = (int)p->hosts.len;
  int np = plat_add_np(p, name, PLAT_NP_HOST, zone, hi);
  plat_host h = {p->nps.data[np].name, speed, cores, NULL, NULL, NULL, 0, 0, NULL};
  VEC_PUSH(p->hosts, h);
  VEC_PUSH(p->host_np, np);
  plat_map_put(&p->host_map, h.name, hi);
  return np;
}

int plat_add_route(platform *p, const int *links, int n, int reversed, int gw_src, int gw_dst) {
  plat_zroute r = {(int)p->route_links.len, n, gw_src, gw_dst};
  VEC_RESERVE(p->route_links, p->route_links.len + (size_t)n);
  for (int i = 0; i < n; i++) p->route_links.data[p->route_links.len++] = links[reversed ? n - 1 - i : i];
  VEC_PUSH(p->routes, r);
  return (int)p->routes.len - 1;
}

int plat_loopback_link(platform *p) {
  /* SimGrid's network model owns one loopback shared by every zone (network/loopback-bw 10GBps). */
  if (p->loopback < 0) p->loopback = plat_add_link(p, "__loopback__", 1e10, 0, PLAT_FATPIPE);
  return p->loopback;
}

void plat_zone_free(plat_zone *z) {
  if (!z) return;
  free(z->name);
  VEC_FREE(z->verts);
  VEC_FREE(z->decls);
  VEC_FREE(z->bypass);
  VEC_FREE(z->star);
  free(z->table);
  free(z->pred);
  free(z->pred_route);
  free(z->gnode);
  free(z->self_route);
  if (z->cl) plat_cluster_free(z->cl);
  free(z);
}

void plat_free(platform *p) {
  if (!p) return;
  for (size_t i = 0; i < p->zones.len; i++) plat_zone_free(p->zones.data[i]);
  for (size_t i = 0; i < p->strings.len; i++) free(p->strings.data[i]);
  VEC_FREE(p->zones);
  VEC_FREE(p->strings);
  VEC_FREE(p->hosts);
  VEC_FREE(p->host_np);
  VEC_FREE(p->links);
  VEC_FREE(p->nps);
  VEC_FREE(p->routes);
  VEC_FREE(p->route_links);
  VEC_FREE(p->config_keys);
  VEC_FREE(p->config_vals);
  VEC_FREE(p->config_lines);
  plat_map_free(&p->host_map);
  plat_map_free(&p->link_map);
  plat_map_free(&p->np_map);
  free(p->name);
  free(p);
}

/* ---- queries ---- */
const char *plat_name(const platform *p) { return p->name; }
int plat_nhosts(const platform *p) { return (int)p->hosts.len; }
const plat_host *plat_host_at(const platform *p, int i) {
  return (i >= 0 && (size_t)i < p->hosts.len) ? &p->hosts.data[i] : NULL;
}
int plat_host_find(const platform *p, const char *name) { return plat_map_get(&p->host_map, name); }
int plat_nlinks(const platform *p) { return (int)p->links.len; }
const plat_link *plat_link_at(const platform *p, int i) {
  return (i >= 0 && (size_t)i < p->links.len) ? &p->links.data[i] : NULL;
}
int plat_link_find(const platform *p, const char *name) { return plat_map_get(&p->link_map, name); }
int plat_nconfig(const platform *p) { return (int)p->config_keys.len; }
void plat_config_at(const platform *p, int i, const char **key, const char **value) {
  *key = p->config_keys.data[i];
  *value = p->config_vals.data[i];
}
long plat_config_line(const platform *p, int i) { return p->config_lines.data[i]; }
