/* Built-in platforms: the documented default cluster (parsed from embedded XML, so that
 * `psim platform --default` prints exactly what is simulated) and flat clusters built directly
 * in memory for generators and tests. */
#include "platform/plat_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char default_xml[] =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "  <!-- psim's default: 64 single-core nodes of 10 Gflop/s, each with a private 10 Gb/s\n"
    "       SPLITDUPLEX link (1 us) to a shared 100 Gb/s backbone (1 us). -->\n"
    "  <cluster id=\"default\" prefix=\"node-\" radical=\"0-63\" suffix=\"\" speed=\"10Gf\" core=\"1\"\n"
    "           bw=\"10Gbps\" lat=\"1us\" bb_bw=\"100Gbps\" bb_lat=\"1us\"/>\n"
    "</platform>\n";

const char *plat_default_xml(void) { return default_xml; }

platform *plat_default(void) {
  psim_err err;
  platform *p = plat_load_xml_mem("built-in default platform", default_xml, strlen(default_xml), NULL, &err);
  if (!p) { /* the embedded text is fixed: failing here is a bug, not an input error */
    fprintf(stderr, "psim: internal error in the default platform: %s\n", err.msg);
    abort();
  }
  return p;
}

platform *plat_flat_cluster(int n, double speed, int cores, double bw, double lat) {
  if (n < 1) n = 1;
  char name[128], radical[64];
  snprintf(name, sizeof name, "built-in flat cluster of %d hosts", n);
  snprintf(radical, sizeof radical, "0-%d", n - 1);
  platform *p = plat_new(name);
  plat_cluster_args a;
  memset(&a, 0, sizeof a);
  a.id = "cluster";
  a.prefix = "node-";
  a.suffix = "";
  a.radical = radical;
  a.topology = "FLAT";
  a.speed = speed;
  a.cores = cores > 0 ? cores : 1;
  a.bw = bw;
  a.lat = lat;
  a.splitduplex = 1;
  a.sharing = PLAT_SHARED;
  char why[512];
  if (plat_cluster_build(p, -1, &a, why, sizeof why) < 0) {
    fprintf(stderr, "psim: internal error building a flat cluster: %s\n", why);
    abort();
  }
  return p;
}

/* "flat:N[,SPEED[,BW[,LAT]]]" (SimGrid units, defaults 1Gf, 10Gbps, 1us): a generated flat
 * cluster without XML, for what-ifs and very large runs; anything else is an XML file. */
platform *plat_open(const char *spec, char **warnings, psim_err *err) {
  if (strncmp(spec, "flat:", 5)) return plat_load_xml(spec, warnings, err);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec + 5);
  char *field[4] = {buf, NULL, NULL, NULL};
  for (int i = 1; i < 4; i++) {
    char *c = field[i - 1] ? strchr(field[i - 1], ',') : NULL;
    if (!c) break;
    *c = 0;
    field[i] = c + 1;
  }
  char *end;
  long n = strtol(field[0], &end, 10);
  if (end == field[0] || *end || n < 1 || n > 100000000)
    return psim_errf(err, PSIM_EXIT_INPUT, spec, 0, "expected flat:N[,SPEED[,BW[,LAT]]] with N a number of hosts"), NULL;
  double v[3] = {1e9, 1.25e9, 1e-6};
  plat_unit_fn parse[3] = {psim_unit_speed, psim_unit_bandwidth, psim_unit_time};
  for (int i = 0; i < 3; i++) {
    if (!field[i + 1]) break;
    char why[256];
    int warned = 0;
    /* as in XML: speed and bandwidth positive, latency zero or more */
    if (plat_quantity(parse[i], field[i + 1], i < 2, &v[i], &warned, why, sizeof why) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, spec, 0, "%s", why), NULL;
  }
  return plat_flat_cluster((int)n, v[0], 1, v[1], v[2]);
}
