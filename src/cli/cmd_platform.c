/* psim platform: print the embedded platform, or check and describe a platform file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/platform.h"

static const char *HELP =
    "usage: psim platform --default                    print the embedded platform (SimGrid XML)\n"
    "       psim platform FILE [--all]                 check FILE, list its hosts and links\n"
    "       psim platform FILE|--default --route A B   the links from host A to host B\n"
    "\n"
    "options:\n"
    "  --all          list every host and link (default: the first 20 of each)\n"
    "  --route A B    the route from host A to host B: its links, latency and bottleneck\n"
    "\n"
    "example:\n"
    "  psim platform --default > cluster.xml\n"
    "  psim platform cluster.xml --route node-0 node-1\n";

static const char *sharing_name(const plat_link *l) { return l->sharing == PLAT_FATPIPE ? "  FATPIPE" : ""; }

static int show_route(platform *p, const char *from, const char *to) {
  int a = plat_host_find(p, from), b = plat_host_find(p, to);
  if (a < 0 || b < 0) {
    fprintf(stderr, "psim platform: unknown host '%s' (expected a host of %s)\n", a < 0 ? from : to, plat_name(p));
    return PSIM_EXIT_INPUT;
  }
  psim_err err;
  psim_err_clear(&err);
  int buf[256];
  double extra;
  int n = plat_route_lat(p, a, b, buf, 256, &extra, &err);
  if (n < 0) return cli_fail(&err);
  double lat = 0, bw = 1e300;
  for (int i = 0; i < n && i < 256; i++) {
    const plat_link *l = plat_link_at(p, buf[i]);
    printf("%s  %.6g Bps  %.6g s%s\n", l->name, l->bandwidth, l->latency, sharing_name(l));
    lat += l->latency;
    if (l->bandwidth < bw) bw = l->bandwidth;
  }
  if (extra > 0) printf("(Vivaldi coordinates)  %.6g s\n", extra);
  lat += extra;
  printf("route %s -> %s: %d links, latency %.9g s, bottleneck %.6g Bps\n", from, to, n, lat, bw);
  return 0;
}

static void describe(platform *p, int all) {
  int nh = plat_nhosts(p), nl = plat_nlinks(p), max = all ? nh + nl : 20;
  printf("%s: %d hosts, %d links\n", plat_name(p), nh, nl);
  for (int i = 0; i < nh && i < max; i++) {
    const plat_host *h = plat_host_at(p, i);
    printf("  host %s  %.6g flop/s x %d cores\n", h->name, h->speed, h->cores);
  }
  if (nh > max) printf("  ... (%d hosts; --all lists them all)\n", nh);
  for (int i = 0; i < nl && i < max; i++) {
    const plat_link *l = plat_link_at(p, i);
    printf("  link %s  %.6g Bps  %.6g s%s\n", l->name, l->bandwidth, l->latency, sharing_name(l));
  }
  if (nl > max) printf("  ... (%d links; --all lists them all)\n", nl);
}

int cmd_platform(int argc, char **argv) {
  const char *file = NULL, *from = NULL, *to = NULL;
  int def = 0, all = 0;
  if (argc < 2) { fputs(HELP, stderr); return PSIM_EXIT_USAGE; }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(HELP, stdout); return 0; }
    else if (!strcmp(a, "--default")) def = 1;
    else if (!strcmp(a, "--all")) all = 1;
    else if (!strcmp(a, "--route")) {
      if (i + 2 >= argc || argv[i + 1][0] == '-' || argv[i + 2][0] == '-')
        return cli_usage("platform", "--route needs two hosts: --route A B");
      from = argv[++i];
      to = argv[++i];
    } else if (a[0] == '-' && a[1]) return cli_usage("platform", "unknown option '%s'", a);
    else if (file) return cli_usage("platform", "one platform file at a time (got '%s' and '%s')", file, a);
    else file = a;
  }
  if (def && file) return cli_usage("platform", "give a platform FILE or --default, not both");
  if (!def && !file) return cli_usage("platform", "no platform given (a FILE or --default)");
  if (def && all) return cli_usage("platform", "--all lists a FILE's hosts and links (--default prints XML)");
  if (def && !from) { fputs(plat_default_xml(), stdout); return 0; }
  platform *p;
  if (def) p = plat_default();
  else {
    psim_err err;
    psim_err_clear(&err);
    char *warnings = NULL;
    p = plat_load_xml(file, &warnings, &err);
    if (warnings) { fputs(warnings, stderr); free(warnings); }
    if (!p) return cli_fail(&err);
  }
  int rc = 0;
  if (from) rc = show_route(p, from, to);
  else describe(p, all);
  plat_free(p);
  return rc;
}
