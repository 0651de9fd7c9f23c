/* psim platform layer: hosts, links, routes.
 *
 * A platform is loaded once (from SimGrid XML v4.1, or built in) and is read-only afterwards,
 * so several simulations may share it. Ownership: plat_load_xml()/plat_default() allocate,
 * plat_free() releases everything, including every string and route returned by queries. */
#ifndef PSIM_PLATFORM_H
#define PSIM_PLATFORM_H

#include "psim/util.h"

typedef enum { PLAT_SHARED = 0, PLAT_FATPIPE = 1 } plat_sharing;

/* One direction of a physical link. A SPLITDUPLEX link of the XML is two plat_links named
 * "<id>_UP" and "<id>_DOWN"; SHARED and FATPIPE links are one plat_link used both ways. */
typedef struct plat_link {
  const char *name;
  double bandwidth;   /* bytes/s */
  double latency;     /* seconds */
  plat_sharing sharing;
} plat_link;

typedef struct plat_host {
  const char *name;
  double speed;       /* flop/s per core (of its power state: pstate, 0 by default) */
  int cores;
  /* Per-host overrides of smpi/os, smpi/or, smpi/ois (NULL when absent). */
  const char *prop_os, *prop_or, *prop_ois;
  /* Its first <disk> (the one SMPI's MPI-IO uses: the host's get_disks().front()): bandwidths
   * in bytes/s, both 0 when the host has none (src/models/disk.c). */
  double disk_read_bw, disk_write_bw;
  const char *disk_name;
} plat_host;

typedef struct platform platform;

/* Loads a SimGrid platform file. On error returns NULL and fills err with the file, the line
 * and what was expected (malformed XML, unknown element or attribute value, a unit that does
 * not parse, an unknown host/link/zone in a route, ...). Warnings (such as unit-less values)
 * are appended to `warnings` when it is not NULL (one per line, caller frees). */
platform *plat_load_xml(const char *path, char **warnings, psim_err *err);
/* Same, from a string in memory; `name` is used as the file name in errors and plat_name(). */
platform *plat_load_xml_mem(const char *name, const char *xml, size_t len, char **warnings, psim_err *err);

/* The embedded default: a described 64-node cluster (see docs). Never fails. */
platform *plat_default(void);
/* The XML text plat_default() is built from (for `psim platform --default`). */
const char *plat_default_xml(void);
/* A flat cluster of n hosts (speed flop/s, one core each), private links of bw bytes/s and
 * lat seconds, SPLITDUPLEX, no backbone. Used by generators and tests. */
platform *plat_flat_cluster(int n, double speed, int cores, double bw, double lat);

/* A platform file, or "flat:N[,SPEED[,BW[,LAT]]]" for a generated flat cluster of N hosts. */
platform *plat_open(const char *spec, char **warnings, psim_err *err);

void plat_free(platform *p);

/* What-if scaling (sensitivity analysis): multiplies every host's speed, every link's
 * bandwidth and latency (loopback links included) by the given factors. */
void plat_scale(platform *p, double speed, double bandwidth, double latency);

/* Human-readable description of where the platform came from ("file.xml" or "built-in ..."). */
const char *plat_name(const platform *p);

int plat_nhosts(const platform *p);
const plat_host *plat_host_at(const platform *p, int i);
int plat_host_find(const platform *p, const char *name);   /* -1 when absent */

int plat_nlinks(const platform *p);
const plat_link *plat_link_at(const platform *p, int i);
int plat_link_find(const platform *p, const char *name);   /* -1 when absent */

/* The route from host src to host dst, as link indices written to buf (at most cap of them).
 * Returns the route's length (which may exceed cap: call again with a larger buffer), or -1
 * with err filled when no route exists. The platform is not modified: safe from any thread. */
int plat_route(const platform *p, int src, int dst, int *buf, int cap, psim_err *err);
/* The same, and in *extra the latency the route has beyond its links' (SimGrid's Vivaldi
 * zones: the distance between coordinates, in seconds; 0 elsewhere). */
int plat_route_lat(const platform *p, int src, int dst, int *buf, int cap, double *extra, psim_err *err);

/* Properties of <config> (in document order), e.g. "smpi/os" -> "0:1e-6:1e-10". */
int plat_nconfig(const platform *p);
void plat_config_at(const platform *p, int i, const char **key, const char **value);
/* The line of the file where property i is written (for errors about its value). */
long plat_config_line(const platform *p, int i);

/* A hostfile: one host name per line, `name:N` = N consecutive entries. Returns the number of
 * entries and an array of host indices (caller frees), or -1 with err naming file and line. */
int plat_hostfile_load(const platform *p, const char *path, int **hosts, psim_err *err);

#endif
