/* Internal representation of a platform, shared by the files of src/platform/.
 *
 * The model follows SimGrid's: a tree of zones; every zone numbers its own "vertices"
 * (hosts, routers and child zones, in creation order) and routes between them with its own
 * algorithm. Link and host indices are global. Everything is built at load time and then
 * read-only, so plat_route() can run from any thread without locks. */
#ifndef PSIM_PLAT_INTERNAL_H
#define PSIM_PLAT_INTERNAL_H

#include "psim/platform.h"

#include <stddef.h>

/* ---- string -> int map (open addressing; keys are borrowed, owned elsewhere) ---- */
/* A slot: the key (NULL: free), its value and its hash (whose low bits pick the slot): a probe
 * compares hashes and reads a key only when they match; growing needs no key. 16 bytes. */
typedef struct { const char *key; uint32_t tag; int val; } plat_map_slot;
typedef struct plat_map {
  plat_map_slot *slots;
  size_t cap, len;
} plat_map;
void plat_map_init(plat_map *m);
void plat_map_free(plat_map *m);
int plat_map_get(const plat_map *m, const char *key);         /* -1 when absent */
int plat_map_put(plat_map *m, const char *key, int val);       /* -1 when key already there */

typedef enum { PLAT_NP_HOST, PLAT_NP_ROUTER, PLAT_NP_ZONE } plat_np_kind;

/* A netpoint: anything a route can start or end at. */
typedef struct plat_np {
  const char *name;   /* owned by p->strings */
  plat_np_kind kind;
  int zone;           /* englobing zone (-1 for the root zone's own netpoint) */
  int local;          /* vertex number in that zone */
  int ref;            /* host index (HOST) or zone index (ZONE) */
  int has_coord;      /* Vivaldi coordinates given (coordinates="x y h") */
  double coord[3];
} plat_np;

typedef enum {
  PLAT_Z_FULL, PLAT_Z_FLOYD, PLAT_Z_DIJKSTRA, PLAT_Z_NONE, PLAT_Z_STAR,
  PLAT_Z_TORUS, PLAT_Z_FATTREE, PLAT_Z_DRAGONFLY
} plat_zone_kind;

/* A route stored in a routed zone: links live in p->route_links[off .. off+len). */
typedef struct plat_zroute { int off, len, gw_src, gw_dst; } plat_zroute;

/* A declared route between two vertices of a zone (before the zone is sealed). */
typedef struct plat_decl { int src, dst, route; long line; } plat_decl;

/* A bypass route of a zone (<bypassRoute>, <bypassZoneRoute>): one way, from netpoint src to
 * netpoint dst (hosts or routers of the zone; or zones, with the route's gateways). */
typedef struct plat_bypass { int src, dst, route; } plat_bypass;

/* Star zones (routing="Cluster", FLAT clusters): per-vertex links towards the centre. */
typedef struct plat_star_vert { int lim, up, down, loop, bb; } plat_star_vert;

typedef struct plat_ft_node { int id, level, position; int *label, *parents, *children; int nparents, nchildren; int lim, loop; } plat_ft_node;
typedef struct plat_ft_link { int up_link, down_link, up_node, down_node; } plat_ft_link;

/* Topology data of TORUS, FAT_TREE and DRAGONFLY clusters (vertex i < n is node i). */
typedef struct plat_cluster {
  int n;
  int *lim, *loop;                 /* per node, -1 when absent */
  /* TORUS */
  int ndims, *dims, *tl_up, *tl_down; /* tl_*[node*ndims + dim] */
  /* FAT_TREE */
  int levels, *ft_down, *ft_up, *ft_ports, ft_nnodes, ft_nlinks;
  plat_ft_node *ft_nodes;          /* compute nodes first, then switches by level */
  plat_ft_link *ft_links;
  /* DRAGONFLY */
  int G, C, B, N, nrouters;
  int *r_lim, *loc_up, *loc_down;  /* loc_*[router*N + node] */
  int *green_up, *black_up, *blue;  /* green[router*B + blade], black[router*C + chassis] */
} plat_cluster;

typedef struct plat_zone {
  char *name;
  plat_zone_kind kind;
  int parent, np, recursive, sealed;
  VEC(int) verts;                  /* global netpoint ids, index = local id */
  VEC(plat_decl) decls;
  VEC(plat_bypass) bypass;         /* consulted first when the zone is the common ancestor */
  int n;                           /* table dimension (vertices at seal time) */
  int *table;                      /* FULL: route id [s*n+d]; FLOYD: edge route id */
  int *pred;                       /* FLOYD: predecessor [s*n+d]; DIJKSTRA: [gs*ng+gv] */
  int *pred_route;                 /* DIJKSTRA: route of the edge pred -> v */
  int *gnode, ng, *self_route;     /* DIJKSTRA: local -> graph node, self edges */
  VEC(plat_star_vert) star;        /* STAR */
  int backbone;                    /* STAR: -1 when none */
  plat_cluster *cl;                /* TORUS, FATTREE, DRAGONFLY */
  int gateway;                     /* cluster router netpoint, -1 */
  int vivaldi;                     /* STAR zone with SimGrid's Vivaldi latencies (plat_route.c) */
} plat_zone;

struct platform {
  char *name;
  VEC(plat_host) hosts;
  VEC(int) host_np;                /* host index -> netpoint */
  VEC(plat_link) links;
  VEC(plat_np) nps;
  VEC(plat_zone *) zones;
  VEC(plat_zroute) routes;
  VEC(int) route_links;
  VEC(char *) strings;             /* every owned string */
  VEC(const char *) config_keys;
  VEC(const char *) config_vals;
  VEC(long) config_lines;
  plat_map host_map, link_map, np_map;
  int loopback;                    /* the shared __loopback__ link, -1 until needed */
};

/* plat_core.c */
platform *plat_new(const char *name);
const char *plat_strdup(platform *p, const char *s);
int plat_add_link(platform *p, const char *name, double bw, double lat, plat_sharing sh); /* -1 if dup */
int plat_add_zone(platform *p, const char *name, plat_zone_kind kind, int parent);       /* zone index */
int plat_add_np(platform *p, const char *name, plat_np_kind kind, int zone, int ref);      /* -1 if dup */
int plat_add_host(platform *p, const char *name, double speed, int cores, int zone);       /* np, -1 dup */
int plat_add_route(platform *p, const int *links, int n, int reversed, int gw_src, int gw_dst);
int plat_loopback_link(platform *p);
void plat_zone_free(plat_zone *z);
/* A resource's value in SimGrid units: parse (one of psim_unit_speed, _bandwidth, _time),
 * then refuse a negative value, and zero too when `positive` (speeds and bandwidths: SimGrid
 * aborts on them, and a resource without capacity would stall the run into a "deadlock").
 * 0, or -1 with why filled. */
typedef int (*plat_unit_fn)(const char *, double *, int *, char *, size_t);
int plat_quantity(plat_unit_fn fn, const char *v, int positive, double *out, int *warned, char *why,
                  size_t whylen);

/* plat_route.c */
int plat_zone_seal(platform *p, int zone, psim_err *err, const char *file);

/* plat_cluster.c */
typedef struct plat_cluster_args {
  const char *id, *prefix, *suffix, *radical, *topology, *topo_parameters, *router_id;
  double speed, bw, lat, bb_bw, bb_lat, limiter, loopback_bw, loopback_lat;
  int cores, has_bb, has_limiter, has_loopback;
  plat_sharing sharing, bb_sharing;
  int splitduplex;
  /* Called before building something large, which takes a while (NULL: nothing said). */
  void (*note)(void *ctx, const char *msg);
  void *note_ctx;
} plat_cluster_args;
/* A radical, "0-99,200": the numbers in *out (appended), or -1 with why filled. Ranges are
 * bounded (at most 1e8 numbers each, and in increasing order). */
typedef VEC(long) plat_long_vec;
int plat_parse_radical(const char *s, plat_long_vec *out, char *why, size_t whylen);
/* Creates the cluster zone under `parent`; returns the zone index or -1 with why filled. */
int plat_cluster_build(platform *p, int parent, const plat_cluster_args *a, char *why, size_t whylen);
/* Local route in a TORUS/FATTREE/DRAGONFLY zone between vertices s and d. */
void plat_cluster_route(const platform *p, const plat_zone *z, int s, int d, int *buf, int cap, int *n);
void plat_cluster_free(plat_cluster *c);

#endif
