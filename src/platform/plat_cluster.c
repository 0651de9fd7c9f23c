/* <cluster> topologies: FLAT (a star zone), TORUS, FAT_TREE and DRAGONFLY.
 *
 * Link names, creation rules and routes reproduce SimGrid 3.32 exactly, quirks included,
 * because psim's timings are compared with SimGrid's: e.g. the fat tree's down path choice,
 * the torus limiter crossed at every hop, or the dragonfly's in-group hop that continues from
 * the chassis-0 router. Routes are computed arithmetically from small per-node tables. */
#include "platform/plat_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plat_cluster_free(plat_cluster *c) {
  if (!c) return;
  free(c->lim); free(c->loop);
  free(c->dims); free(c->tl_up); free(c->tl_down);
  free(c->ft_down); free(c->ft_up); free(c->ft_ports);
  for (int i = 0; i < c->ft_nnodes; i++) {
    free(c->ft_nodes[i].label); free(c->ft_nodes[i].parents); free(c->ft_nodes[i].children);
  }
  free(c->ft_nodes); free(c->ft_links);
  free(c->r_lim); free(c->loc_up); free(c->loc_down);
  free(c->green_up); free(c->black_up); free(c->blue);
  free(c);
}

/* "0-99,200" -> list of integers (clusters and cabinets). */
int plat_parse_radical(const char *s, plat_long_vec *out, char *why, size_t whylen) {
  const char *q = s;
  while (*q) {
    char *end;
    errno = 0;
    long a = strtol(q, &end, 10), b;
    if (end == q || errno) goto bad;
    q = end;
    if (*q == '-') {
      q++;
      b = strtol(q, &end, 10);
      if (end == q || b < a || b - a > 100000000) goto bad;
      q = end;
    } else {
      b = a;
    }
    for (long v = a; v <= b; v++) VEC_PUSH(*out, v);
    if (*q == ',') q++;
    else if (*q) goto bad;
  }
  if (out->len == 0) goto bad;
  return 0;
bad:
  snprintf(why, whylen, "bad radical '%s': expected comma-separated numbers or ranges, e.g. 0-99,200", s);
  return -1;
}

/* Positive integers separated by `sep`; returns the count or -1. */
static int parse_ints(const char *s, char sep, int *out, int max) {
  int n = 0;
  const char *q = s;
  for (;;) {
    char *end;
    long v = strtol(q, &end, 10);
    if (end == q || v <= 0 || v > 1000000 || n >= max) return -1;
    out[n++] = (int)v;
    q = end;
    if (*q == sep) { q++; continue; }
    if (*q == 0) return n;
    return -1;
  }
}

typedef struct bld { platform *p; const plat_cluster_args *a; char *why; size_t whylen; int failed; } bld;

static int mk_link(bld *b, const char *name, double bw, double lat, plat_sharing sh) {
  int l = plat_add_link(b->p, name, bw, lat, sh);
  if (l < 0 && !b->failed) {
    snprintf(b->why, b->whylen, "cluster '%s': link '%s' already exists (expected unique link names)", b->a->id, name);
    b->failed = 1;
  }
  return l;
}

/* A cluster link, split in _UP/_DOWN halves when the cluster is SPLITDUPLEX. `keep_policy`:
 * FLAT and TORUS links get the cluster's sharing policy, FAT_TREE and DRAGONFLY ones are SHARED. */
static void mk_pair(bld *b, const char *name, double bw, int keep_policy, int *up, int *down) {
  char nm[512];
  if (b->a->splitduplex) {
    size_t n = strlen(name);
    if (n + sizeof "_DOWN" > sizeof nm) {   /* a name cut short could collide: refuse it */
      if (!b->failed) snprintf(b->why, b->whylen, "cluster '%s': link name '%.40s...' is too long", b->a->id, name);
      b->failed = 1;
      *up = *down = -1;
      return;
    }
    memcpy(nm, name, n);
    memcpy(nm + n, "_UP", sizeof "_UP");
    *up = mk_link(b, nm, bw, b->a->lat, PLAT_SHARED);
    memcpy(nm + n, "_DOWN", sizeof "_DOWN");
    *down = mk_link(b, nm, bw, b->a->lat, PLAT_SHARED);
  } else {
    *up = *down = mk_link(b, name, bw, b->a->lat, keep_policy ? b->a->sharing : PLAT_SHARED);
  }
}

static void mk_lim_loop(bld *b, long num, int *lim, int *loop) {
  char nm[512];
  *lim = *loop = -1;
  if (b->a->has_loopback) {
    snprintf(nm, sizeof nm, "%s_link_%ld_loopback", b->a->id, num);
    *loop = mk_link(b, nm, b->a->loopback_bw, b->a->loopback_lat, PLAT_FATPIPE);
  }
  if (b->a->has_limiter) {
    snprintf(nm, sizeof nm, "%s_link_%ld_limiter", b->a->id, num);
    *lim = mk_link(b, nm, b->a->limiter, 0, PLAT_SHARED);
  }
}

static int add_hosts(bld *b, int zi, const long *rad, int n) {
  char nm[512];
  for (int i = 0; i < n; i++) {
    snprintf(nm, sizeof nm, "%s%ld%s", b->a->prefix, rad[i], b->a->suffix);
    if (plat_add_host(b->p, nm, b->a->speed, b->a->cores, zi) < 0) {
      snprintf(b->why, b->whylen, "cluster '%s': host '%s' already exists (expected unique names)", b->a->id, nm);
      return -1;
    }
  }
  return 0;
}

static int add_router(bld *b, int zi) {
  char nm[512];
  if (b->a->router_id && b->a->router_id[0]) snprintf(nm, sizeof nm, "%s", b->a->router_id);
  else snprintf(nm, sizeof nm, "%s%s_router%s", b->a->prefix, b->a->id, b->a->suffix);
  int np = plat_add_np(b->p, nm, PLAT_NP_ROUTER, zi, -1);
  if (np < 0) {
    snprintf(b->why, b->whylen, "cluster '%s': router '%s' already exists (expected unique names)", b->a->id, nm);
    return -1;
  }
  b->p->zones.data[zi]->gateway = np;
  return 0;
}

static int build_flat(bld *b, int zi, const long *rad, int n) {
  plat_zone *z = b->p->zones.data[zi];
  char nm[512];
  if (b->a->has_bb) {
    snprintf(nm, sizeof nm, "%s_backbone", b->a->id);
    z->backbone = mk_link(b, nm, b->a->bb_bw, b->a->bb_lat, b->a->bb_sharing);
  }
  if (add_hosts(b, zi, rad, n) < 0) return -1;
  VEC_RESERVE(z->star, (size_t)n + 1);
  for (int i = 0; i < n; i++) {
    plat_star_vert v = {-1, -1, -1, -1, 1};
    snprintf(nm, sizeof nm, "%s_link_%ld", b->a->id, rad[i]);
    mk_pair(b, nm, b->a->bw, 1, &v.up, &v.down);
    mk_lim_loop(b, rad[i], &v.lim, &v.loop);
    VEC_PUSH(z->star, v);
  }
  if (add_router(b, zi) < 0) return -1;
  plat_star_vert r = {-1, -1, -1, -1, 1};
  VEC_PUSH(z->star, r);
  return b->failed ? -1 : 0;
}

static int build_torus(bld *b, plat_cluster *c, int n) {
  int dims[64];
  int nd = parse_ints(b->a->topo_parameters, ',', dims, 64);
  long prod = 1;
  for (int i = 0; i < nd; i++) prod *= dims[i];
  if (nd <= 0 || prod != n) {
    snprintf(b->why, b->whylen, "cluster '%s': bad TORUS topo_parameters '%s': expected dimensions X,Y,Z,... "
             "whose product is the number of hosts (%d)", b->a->id, b->a->topo_parameters, n);
    return -1;
  }
  c->ndims = nd;
  c->dims = xmalloc((size_t)nd * sizeof(int));
  memcpy(c->dims, dims, (size_t)nd * sizeof(int));
  c->tl_up = xmalloc((size_t)n * nd * sizeof(int));
  c->tl_down = xmalloc((size_t)n * nd * sizeof(int));
  char nm[512];
  for (int i = 0; i < n; i++) {
    mk_lim_loop(b, i, &c->lim[i], &c->loop[i]);
    int dp = 1;
    for (int j = 0; j < nd; j++) {
      int nb = ((i / dp) % dims[j] == dims[j] - 1) ? i - (dims[j] - 1) * dp : i + dp;
      snprintf(nm, sizeof nm, "%s_link_from_%d_to_%d", b->a->id, i, nb);
      mk_pair(b, nm, b->a->bw, 1, &c->tl_up[i * nd + j], &c->tl_down[i * nd + j]);
      dp *= dims[j];
    }
  }
  return b->failed ? -1 : 0;
}

static void ft_connect(bld *b, plat_cluster *c, int parent, int pport, int child, int cport, int *uid) {
  char nm[512];
  plat_ft_link l = {-1, -1, parent, child};
  snprintf(nm, sizeof nm, "link_from_%d_%d_%d", c->ft_nodes[child].id, c->ft_nodes[parent].id, *uid);
  mk_pair(b, nm, b->a->bw, 0, &l.up_link, &l.down_link);
  (*uid)++;
  c->ft_links[c->ft_nlinks] = l;
  c->ft_nodes[parent].children[pport] = c->ft_nlinks;
  c->ft_nodes[child].parents[cport] = c->ft_nlinks;
  c->ft_nlinks++;
}

static int build_fattree(bld *b, plat_cluster *c, int n) {
  const char *tp = b->a->topo_parameters;
  char part[4][256];
  int np = 0;
  const char *q = tp;
  for (;;) {
    const char *e = strchr(q, ';');
    size_t len = e ? (size_t)(e - q) : strlen(q);
    if (np >= 4 || len >= sizeof part[0]) { np = 5; break; }
    memcpy(part[np], q, len);
    part[np++][len] = 0;
    if (!e) break;
    q = e + 1;
  }
  int L = 0, down[32], up[32], ports[32];
  if (np != 4 || parse_ints(part[0], ',', &L, 1) != 1 || L > 32 || parse_ints(part[1], ',', down, 32) != L ||
      parse_ints(part[2], ',', up, 32) != L || parse_ints(part[3], ',', ports, 32) != L)
    goto bad;
  long prod = 1;
  for (int i = 0; i < L; i++) prod *= down[i];
  if (prod != n) goto bad;
  c->levels = L;
  c->ft_down = xmalloc((size_t)L * sizeof(int)); memcpy(c->ft_down, down, (size_t)L * sizeof(int));
  c->ft_up = xmalloc((size_t)L * sizeof(int)); memcpy(c->ft_up, up, (size_t)L * sizeof(int));
  c->ft_ports = xmalloc((size_t)L * sizeof(int)); memcpy(c->ft_ports, ports, (size_t)L * sizeof(int));
  long by_level[33];
  by_level[0] = n;
  long total = n;
  for (int i = 0; i < L; i++) {
    long k = 1;
    for (int j = 0; j <= i; j++) k *= up[j];
    for (int j = i + 1; j < L; j++) k *= down[j];
    by_level[i + 1] = k;
    total += k;
    if (total > 10000000) {
      snprintf(b->why, b->whylen, "cluster '%s': FAT_TREE topo_parameters '%s' describe more than "
               "10,000,000 hosts and switches, more than psim builds", b->a->id, tp);
      return -1;
    }
  }
  /* Millions of links take seconds and gigabytes to build (about 150 bytes each): say so first
   * rather than leave the user before a silent wait. */
  long cables = 0;
  for (int i = 0; i < L; i++) cables += by_level[i] * up[i] * ports[i];
  long nlinks = cables * (b->a->splitduplex ? 2 : 1);
  if (nlinks > 4000000 && b->a->note) {
    char msg[512];
    snprintf(msg, sizeof msg, "cluster '%s': FAT_TREE topo_parameters '%s' describe %ld switches and "
             "%ld links: building them needs about %.1f GB of memory and takes a while",
             b->a->id, tp, total - n, nlinks, nlinks * 150e-9);
    b->a->note(b->a->note_ctx, msg);
  }
  c->ft_nodes = xcalloc((size_t)total, sizeof *c->ft_nodes);
  c->ft_nnodes = (int)total;
  long nl = 0;
  /* compute nodes, then switches; switch ids count down from 2n as in SimGrid */
  int k = 0, id = 2 * n;
  for (int lvl = 0; lvl <= L; lvl++)
    for (long j = 0; j < by_level[lvl]; j++, k++) {
      plat_ft_node *nd = &c->ft_nodes[k];
      nd->level = lvl;
      nd->position = (int)j;
      nd->label = xcalloc((size_t)L, sizeof(int));
      nd->lim = nd->loop = -1;
      if (lvl == 0) {
        nd->id = (int)j;
        mk_lim_loop(b, j, &c->lim[j], &c->loop[j]);
        nd->lim = c->lim[j];
        nd->loop = c->loop[j];
        nd->nparents = up[0] * ports[0];
      } else {
        nd->id = --id;
        if (b->a->has_limiter) {
          char nm[512];
          snprintf(nm, sizeof nm, "%s_link_%d_limiter", b->a->id, nd->id);
          nd->lim = mk_link(b, nm, b->a->limiter, 0, PLAT_SHARED);
        }
        nd->nchildren = down[lvl - 1] * ports[lvl - 1];
        nd->nparents = lvl < L ? up[lvl] * ports[lvl] : 0;
      }
      nd->parents = xmalloc((size_t)(nd->nparents ? nd->nparents : 1) * sizeof(int));
      nd->children = xmalloc((size_t)(nd->nchildren ? nd->nchildren : 1) * sizeof(int));
      for (int x = 0; x < nd->nparents; x++) nd->parents[x] = -1;
      for (int x = 0; x < nd->nchildren; x++) nd->children[x] = -1;
      nl += nd->nparents;
    }
  if (b->failed) return -1;
  /* labels: mixed-radix counters, children counts below the level, parent counts above */
  k = 0;
  int cur[32], maxl[32];
  for (int lvl = 0; lvl <= L; lvl++) {
    for (int j = 0; j < L; j++) { cur[j] = 0; maxl[j] = j + 1 > lvl ? down[j] : up[j]; }
    for (long j = 0; j < by_level[lvl]; j++, k++) {
      memcpy(c->ft_nodes[k].label, cur, (size_t)L * sizeof(int));
      for (int pos = 0; pos < L; pos++) {
        if (++cur[pos] < maxl[pos]) break;
        cur[pos] = 0;
      }
    }
  }
  c->ft_links = xcalloc((size_t)(nl ? nl : 1), sizeof *c->ft_links);
  int uid = 0;
  long base = 0;
  for (int lvl = 0; lvl < L; lvl++) {
    long pbase = base + by_level[lvl];
    /* A child's parents are the nodes one level up whose label equals the child's everywhere
     * but at position lvl (SimGrid's relation). Labels are mixed-radix counters of the node's
     * index in its level (position 0 fastest, radix up[x] below the level, down[x] above), so
     * those parents are found from the child's label directly, in increasing index order, the
     * order of a scan of the whole level: the links, their names and ids are those of the scan,
     * without its cost (the scan made a large fat tree quadratic to build: 2.6 M links took 12 s). */
    long stride[32], s = 1;
    for (int x = 0; x < L; x++) { stride[x] = s; s *= x <= lvl ? up[x] : down[x]; }
    for (long j = 0; j < by_level[lvl]; j++) {
      int child = (int)(base + j);
      const int *cl = c->ft_nodes[child].label;
      long first = 0;
      for (int x = 0; x < L; x++)
        if (x != lvl) first += cl[x] * stride[x];
      for (long t = 0; t < up[lvl]; t++) {
        int parent = (int)(pbase + first + t * stride[lvl]);
        for (int pt = 0; pt < ports[lvl]; pt++)
          ft_connect(b, c, parent, cl[lvl] + pt * down[lvl], child,
                     c->ft_nodes[parent].label[lvl] + pt * up[lvl], &uid);
      }
    }
    base = pbase;
  }
  return b->failed ? -1 : 0;
bad:
  snprintf(b->why, b->whylen, "cluster '%s': bad FAT_TREE topo_parameters '%s': expected "
           "'levels;down_1,...;up_1,...;parallel_1,...' (e.g. 2;4,4;1,2;1,2) with prod(down) = hosts (%d)",
           b->a->id, tp, n);
  return -1;
}

static int build_dragonfly(bld *b, plat_cluster *c, int n) {
  const char *tp = b->a->topo_parameters;
  int G, gl, C, cl, B, bl, N;
  char tail;
  if (sscanf(tp, "%d,%d;%d,%d;%d,%d;%d%c", &G, &gl, &C, &cl, &B, &bl, &N, &tail) != 7 || G <= 0 || gl <= 0 ||
      C <= 0 || cl <= 0 || B <= 0 || bl <= 0 || N <= 0 || (long)G * C * B * N != n || G > C * B) {
    snprintf(b->why, b->whylen, "cluster '%s': bad DRAGONFLY topo_parameters '%s': expected "
             "'groups,links;chassis,links;routers,links;nodes' (e.g. 3,4;4,3;5,1;2) with "
             "groups*chassis*routers*nodes = hosts (%d)", b->a->id, tp, n);
    return -1;
  }
  c->G = G; c->C = C; c->B = B; c->N = N;
  int R = c->nrouters = G * C * B;
  for (int i = 0; i < n; i++) mk_lim_loop(b, i, &c->lim[i], &c->loop[i]);
  c->r_lim = xmalloc((size_t)R * sizeof(int));
  char nm[512];
  for (int r = 0; r < R; r++) {
    c->r_lim[r] = -1;
    if (b->a->has_limiter) {
      snprintf(nm, sizeof nm, "%s_link_%d_limiter", b->a->id, 2 * n - 1 - r);
      c->r_lim[r] = mk_link(b, nm, b->a->limiter, 0, PLAT_SHARED);
    }
  }
  c->loc_up = xmalloc((size_t)R * N * sizeof(int));
  c->loc_down = xmalloc((size_t)R * N * sizeof(int));
  c->green_up = xmalloc((size_t)R * B * sizeof(int));
  c->black_up = xmalloc((size_t)R * C * sizeof(int));
  c->blue = xmalloc((size_t)R * sizeof(int));
  for (int i = 0; i < R * B; i++) c->green_up[i] = -1;
  for (int i = 0; i < R * C; i++) c->black_up[i] = -1;
  for (int i = 0; i < R; i++) c->blue[i] = -1;
  int uid = 0;
  double bw = b->a->bw;
  for (int r = 0; r < R; r++)
    for (int j = 0; j < N; j++) {
      snprintf(nm, sizeof nm, "local_link_from_router_%d_to_node_%d_%d", r, j, uid++);
      mk_pair(b, nm, bw, 0, &c->loc_up[r * N + j], &c->loc_down[r * N + j]);
    }
  for (int i = 0; i < G * C; i++)
    for (int j = 0; j < B; j++)
      for (int k = j + 1; k < B; k++) {
        snprintf(nm, sizeof nm, "green_link_in_chassis_%d_between_routers_%d_and_%d_%d", i % C, j, k, uid++);
        mk_pair(b, nm, bw * bl, 0, &c->green_up[(i * B + j) * B + k], &c->green_up[(i * B + k) * B + j]);
      }
  for (int g = 0; g < G; g++)
    for (int j = 0; j < C; j++)
      for (int k = j + 1; k < C; k++)
        for (int l = 0; l < B; l++) {
          snprintf(nm, sizeof nm, "black_link_in_group_%d_between_chassis_%d_and_%d_blade_%d_%d", g, j, k, l, uid++);
          mk_pair(b, nm, bw * cl, 0, &c->black_up[(g * C * B + j * B + l) * C + k],
                  &c->black_up[(g * C * B + k * B + l) * C + j]);
        }
  for (int i = 0; i < G; i++)
    for (int j = i + 1; j < G; j++) {
      int ri = i * B * C + j, rj = j * B * C + i;
      snprintf(nm, sizeof nm, "blue_link_between_group_%d_and_%d_routers_%d_and_%d_%d", i, j, ri, rj, uid++);
      mk_pair(b, nm, bw * gl, 0, &c->blue[ri], &c->blue[rj]);
    }
  return b->failed ? -1 : 0;
}

int plat_cluster_build(platform *p, int parent, const plat_cluster_args *a, char *why, size_t whylen) {
  plat_long_vec rad = {0};
  if (plat_parse_radical(a->radical, &rad, why, whylen) < 0) { VEC_FREE(rad); return -1; }
  const char *topo = a->topology ? a->topology : "FLAT";
  plat_zone_kind kind;
  if (strcmp(topo, "FLAT") == 0) kind = PLAT_Z_STAR;
  else if (strcmp(topo, "TORUS") == 0) kind = PLAT_Z_TORUS;
  else if (strcmp(topo, "FAT_TREE") == 0) kind = PLAT_Z_FATTREE;
  else if (strcmp(topo, "DRAGONFLY") == 0) kind = PLAT_Z_DRAGONFLY;
  else {
    snprintf(why, whylen, "cluster '%s': unknown topology '%s' (expected FLAT, TORUS, FAT_TREE or DRAGONFLY)",
             a->id, topo);
    VEC_FREE(rad);
    return -1;
  }
  if (kind != PLAT_Z_STAR && (!a->topo_parameters || !a->topo_parameters[0])) {
    snprintf(why, whylen, "cluster '%s': topology %s needs a topo_parameters attribute", a->id, topo);
    VEC_FREE(rad);
    return -1;
  }
  int zi = plat_add_zone(p, a->id, kind, parent);
  if (plat_add_np(p, a->id, PLAT_NP_ZONE, parent, zi) < 0) {
    snprintf(why, whylen, "cluster '%s': the name is already used (expected a unique id)", a->id);
    VEC_FREE(rad);
    return -1;
  }
  p->zones.data[zi]->np = (int)p->nps.len - 1;
  bld b = {p, a, why, whylen, 0};
  int n = (int)rad.len, rc;
  if (kind == PLAT_Z_STAR) {
    rc = build_flat(&b, zi, rad.data, n);
  } else {
    plat_cluster *c = xcalloc(1, sizeof *c);
    p->zones.data[zi]->cl = c;
    c->n = n;
    c->lim = xmalloc((size_t)n * sizeof(int));
    c->loop = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) c->lim[i] = c->loop[i] = -1;
    rc = add_hosts(&b, zi, rad.data, n);
    if (rc == 0) {
      if (kind == PLAT_Z_TORUS) rc = build_torus(&b, c, n);
      else if (kind == PLAT_Z_FATTREE) rc = build_fattree(&b, c, n);
      else rc = build_dragonfly(&b, c, n);
    }
    if (rc == 0) rc = add_router(&b, zi);
  }
  VEC_FREE(rad);
  if (rc == 0) p->zones.data[zi]->sealed = 1;
  return rc < 0 ? -1 : zi;
}

/* ---------------------------------------------------------------- routes */

typedef struct out { int *buf, cap, *n; } out;
static void emit(out *o, int l) {
  if (l < 0) return;
  if (*o->n < o->cap) o->buf[*o->n] = l;
  (*o->n)++;
}

static void torus_route(const plat_cluster *c, int s, int d, out *o) {
  emit(o, c->lim[s]);
  int nd = c->ndims, cur = s;
  while (cur != d) {
    int dp = 1, next = cur, link = -1;
    for (int j = 0; j < nd; j++) {
      int dim = c->dims[j];
      int my = (s / dp) % dim, tg = (d / dp) % dim; /* SimGrid decides with the source's coords */
      if ((cur / dp) % dim != (d / dp) % dim) {
        if ((tg > my && tg <= my + dim / 2) || (my > dim / 2 && (my + dim / 2) % dim >= tg)) {
          next = ((cur / dp) % dim == dim - 1) ? cur + dp - dp * dim : cur + dp;
          link = c->tl_up[cur * nd + j];
        } else {
          next = ((cur / dp) % dim == 0) ? cur - dp + dp * dim : cur - dp;
          link = c->tl_down[next * nd + j];
        }
        break;
      }
      dp *= dim;
    }
    emit(o, link);
    emit(o, c->lim[next]);
    cur = next;
  }
}

static int ft_in_subtree(const plat_cluster *c, const plat_ft_node *root, const plat_ft_node *node) {
  if (root->level <= node->level) return 0;
  for (int i = 0; i < node->level; i++)
    if (root->label[i] != node->label[i]) return 0;
  for (int i = root->level; i < c->levels; i++)
    if (root->label[i] != node->label[i]) return 0;
  return 1;
}

static void fattree_route(const plat_cluster *c, int s, int d, out *o) {
  const plat_ft_node *src = &c->ft_nodes[s], *dst = &c->ft_nodes[d], *cur = src;
  while (!ft_in_subtree(c, cur, dst)) {
    int dd = dst->position;
    for (int i = 0; i < cur->level; i++) dd /= c->ft_up[i]; /* 3.32 ignores the parallel ports here */
    dd %= c->ft_up[cur->level] * c->ft_ports[cur->level];
    emit(o, cur->lim);
    const plat_ft_link *l = &c->ft_links[cur->parents[dd]];
    emit(o, l->up_link);
    cur = &c->ft_nodes[l->up_node];
  }
  /* Down: SimGrid's loop does not stop after descending, it goes on scanning the next ports
   * of the new node; reproduced as is since it selects which parallel cable is used. */
  while (cur != dst) {
    int d0 = src->position % c->ft_ports[cur->level - 1];
    for (int i = d0 * c->ft_down[cur->level - 1]; i < cur->nchildren; i++) {
      if (i % c->ft_down[cur->level - 1] == dst->label[cur->level - 1]) {
        const plat_ft_link *l = &c->ft_links[cur->children[i]];
        emit(o, l->down_link);
        emit(o, cur->lim);
        cur = &c->ft_nodes[l->down_node];
        if (cur->level == 0) break; /* compute nodes have no children: the scan ends there */
      }
    }
  }
  emit(o, cur->lim);
}

static void dragonfly_route(const plat_cluster *c, int s, int d, out *o) {
  int C = c->C, B = c->B, N = c->N;
  int mg = s / (C * B * N), mc = (s / (B * N)) % C, mb = (s / N) % B, mn = s % N;
  int tg = d / (C * B * N), tc = (d / (B * N)) % C, tb = (d / N) % B, tn = d % N;
  int my = (mg * C + mc) * B + mb, target = (tg * C + tc) * B + tb, cur = my;
  emit(o, c->lim[s]);
  emit(o, c->loc_up[my * N + mn]);
  if (target != my) {
    if (tg != mg) {
      if (cur % B != tg) {
        emit(o, c->r_lim[cur]);
        emit(o, c->green_up[cur * B + tg]);
        cur = (mg * C + mc) * B + tg;
      }
      if ((cur / B) % C != 0) {
        emit(o, c->r_lim[cur]);
        emit(o, c->black_up[cur * C + 0]);
        cur = mg * C * B + tg;
      }
      emit(o, c->blue[cur]);
      emit(o, c->r_lim[cur]);
      cur = tg * C * B + mg;
    }
    if (cur % B != tb) {
      emit(o, c->r_lim[cur]);
      emit(o, c->green_up[cur * B + tb]);
      cur = tg * C * B + tb; /* SimGrid continues from the chassis-0 router of that blade */
    }
    if ((cur / B) % C != tc) {
      emit(o, c->r_lim[cur]);
      emit(o, c->black_up[cur * C + tc]);
    }
  }
  emit(o, c->r_lim[target]);
  emit(o, c->loc_down[target * N + tn]);
  emit(o, c->lim[d]);
}

void plat_cluster_route(const platform *p, const plat_zone *z, int s, int d, int *buf, int cap, int *n) {
  (void)p;
  const plat_cluster *c = z->cl;
  /* The cluster's router is a gateway only: no links inside the cluster. */
  if (s >= c->n || d >= c->n) return;
  out o = {buf, cap, n};
  if (s == d && c->loop[s] >= 0) { emit(&o, c->loop[s]); return; }
  if (z->kind == PLAT_Z_TORUS) torus_route(c, s, d, &o);
  else if (z->kind == PLAT_Z_FATTREE) fattree_route(c, s, d, &o);
  else dragonfly_route(c, s, d, &o);
}
