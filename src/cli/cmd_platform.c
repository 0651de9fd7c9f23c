/* psim platform: print the embedded platform, or check and describe a platform file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/platform.h"

static const char *HELP =
    "usage: psim platform --default            print the embedded platform (SimGrid XML)\n"
    "       psim platform FILE [--route A B]   check FILE, list its hosts and links, or a route\n";

int cmd_platform(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(HELP, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--default")) { fputs(plat_default_xml(), stdout); return 0; }
  psim_err err;
  psim_err_clear(&err);
  char *warnings = NULL;
  platform *p = plat_load_xml(argv[1], &warnings, &err);
  if (warnings) { fputs(warnings, stderr); free(warnings); }
  if (!p) return cli_fail(&err);
  int rc = 0;
  if (argc >= 5 && !strcmp(argv[2], "--route")) {
    int a = plat_host_find(p, argv[3]), b = plat_host_find(p, argv[4]);
    if (a < 0 || b < 0) {
      fprintf(stderr, "psim platform: unknown host '%s'\n", a < 0 ? argv[3] : argv[4]);
      plat_free(p);
      return 2;
    }
    int buf[256];
    int n = plat_route(p, a, b, buf, 256, &err);
    if (n < 0) { rc = cli_fail(&err); plat_free(p); return rc; }
    double lat = 0, bw = 1e300;
    for (int i = 0; i < n && i < 256; i++) {
      const plat_link *l = plat_link_at(p, buf[i]);
      printf("%s  %.6g Bps  %.6g s%s\n", l->name, l->bandwidth, l->latency, l->sharing == PLAT_FATPIPE ? "  FATPIPE" : "");
      lat += l->latency;
      if (l->bandwidth < bw) bw = l->bandwidth;
    }
    printf("route %s -> %s: %d links, latency %.9g s, bottleneck %.6g Bps\n", argv[3], argv[4], n, lat, bw);
  } else {
    printf("%s: %d hosts, %d links\n", plat_name(p), plat_nhosts(p), plat_nlinks(p));
    for (int i = 0; i < plat_nhosts(p) && i < 20; i++) {
      const plat_host *h = plat_host_at(p, i);
      printf("  host %s  %.6g flop/s x %d cores\n", h->name, h->speed, h->cores);
    }
    if (plat_nhosts(p) > 20) printf("  ... (%d hosts)\n", plat_nhosts(p));
  }
  plat_free(p);
  return rc;
}
