/* Routes, link names and characteristics against SimGrid 3.32's own answers
 * (tests/data/platforms/expected/, produced with libsimgrid), plus explicit checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psim/platform.h"

static const char *env(const char *k, const char *dflt) {
  const char *v = getenv(k);
  return v && *v ? v : dflt;
}

static platform *load(const char *dir_env, const char *dflt, const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", env(dir_env, dflt), rel);
  psim_err err;
  platform *p = plat_load_xml(path, NULL, &err);
  if (!p) fail_msg("%s: %s (line %ld)", path, err.msg, err.line);
  return p;
}

static int route_names(const platform *p, const char *a, const char *b, char *out, size_t n) {
  int buf[512];
  psim_err err;
  int src = plat_host_find(p, a), dst = plat_host_find(p, b);
  assert_true(src >= 0 && dst >= 0);
  int len = plat_route(p, src, dst, buf, 512, &err);
  if (len < 0) fail_msg("no route %s -> %s: %s", a, b, err.msg);
  out[0] = 0;
  for (int i = 0; i < len; i++) {
    size_t l = strlen(out);
    snprintf(out + l, n - l, "%s%s", i ? " " : "", plat_link_at(p, buf[i])->name);
  }
  return len;
}

/* Compares a platform with a SimGrid dump (see tests/data/platforms/expected/README). */
static void check_against(const char *xml_env, const char *xml_dflt, const char *xml_rel, const char *expected) {
  platform *p = load(xml_env, xml_dflt, xml_rel);
  char path[1024];
  snprintf(path, sizeof path, "%s/platforms/expected/%s", env("PSIM_TESTDATA", "tests/data"), expected);
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  char line[65536], got[65536];
  int nroutes = 0, nlinks = 0, nhosts = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *save = NULL, *kind = strtok_r(line, " ", &save);
    if (!kind) continue;
    if (strcmp(kind, "LINK") == 0) {
      char *name = strtok_r(NULL, " ", &save);
      double bw = atof(strtok_r(NULL, " ", &save)), lat = atof(strtok_r(NULL, " ", &save));
      int sh = atoi(strtok_r(NULL, " ", &save));
      int l = plat_link_find(p, name);
      if (l < 0) fail_msg("%s: link %s missing", expected, name);
      const plat_link *lk = plat_link_at(p, l);
      assert_float_equal(lk->bandwidth, bw, bw * 1e-12);
      assert_float_equal(lk->latency, lat, 1e-18);
      assert_int_equal(lk->sharing, sh == 0 ? PLAT_FATPIPE : PLAT_SHARED);
      nlinks++;
    } else if (strcmp(kind, "HOST") == 0) {
      char *name = strtok_r(NULL, " ", &save);
      double speed = atof(strtok_r(NULL, " ", &save));
      int cores = atoi(strtok_r(NULL, " ", &save));
      int h = plat_host_find(p, name);
      if (h < 0) fail_msg("%s: host %s missing", expected, name);
      assert_float_equal(plat_host_at(p, h)->speed, speed, speed * 1e-12);
      assert_int_equal(plat_host_at(p, h)->cores, cores);
      nhosts++;
    } else if (strcmp(kind, "ROUTE") == 0) {
      char *a = strtok_r(NULL, " ", &save), *b = strtok_r(NULL, " ", &save), *rest = strtok_r(NULL, "", &save);
      route_names(p, a, b, got, sizeof got);
      if (strcmp(got, rest ? rest : "") != 0)
        fail_msg("%s: route %s -> %s\n  simgrid: %s\n  psim:    %s", expected, a, b, rest ? rest : "", got);
      nroutes++;
    } else if (strcmp(kind, "LATENCY") == 0) {   /* links' latencies and any other (Vivaldi) */
      char *a = strtok_r(NULL, " ", &save), *b = strtok_r(NULL, " ", &save);
      double want = atof(strtok_r(NULL, " ", &save)), extra;
      int buf[512];
      psim_err err;
      int len = plat_route_lat(p, plat_host_find(p, a), plat_host_find(p, b), buf, 512, &extra, &err);
      assert_true(len >= 0 && len <= 512);
      double lat = 0;
      for (int i = 0; i < len; i++) lat += plat_link_at(p, buf[i])->latency;
      lat += extra;
      if (fabs(lat - want) > 1e-15 * want) fail_msg("%s: latency %s -> %s: simgrid %.17g, psim %.17g", expected, a, b, want, lat);
    }
  }
  fclose(f);
  assert_int_equal(nhosts, plat_nhosts(p));
  /* SimGrid always has __loopback__; psim creates it only when a zone needs it. */
  assert_true(nlinks == plat_nlinks(p) || nlinks + 1 == plat_nlinks(p));
  assert_true(nroutes > 0);
  plat_free(p);
}

static void test_small_platform_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/small_platform.xml", "small_platform.txt");
}
static void test_routers_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/small_platform_with_routers.xml",
                "small_platform_with_routers.txt");
}
static void test_backbone_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_backbone.xml", "cluster_backbone.txt");
}
static void test_fat_tree_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_fat_tree.xml", "cluster_fat_tree.txt");
}
static void test_torus_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_torus.xml", "cluster_torus.txt");
}
static void test_dragonfly_simgrid(void **s) {
  (void)s;
  check_against("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_dragonfly.xml",
                "cluster_dragonfly.txt");
}
static void test_fixtures_simgrid(void **s) {
  (void)s;
  static const char *names[] = {"dijkstra", "dragonfly_plain", "fattree3", "fattree_limiter", "flat_limiter",
                                "multizone", "torus_limiter", "bypass", "dijkstra_zones", "vivaldi", "vivaldi_peers"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char xml[256], exp[256];
    snprintf(xml, sizeof xml, "platforms/%s.xml", names[i]);
    snprintf(exp, sizeof exp, "%s.txt", names[i]);
    check_against("PSIM_TESTDATA", "tests/data", xml, exp);
  }
}

static void test_small_platform_explicit(void **s) {
  (void)s;
  platform *p = load("PSIM_SHARED", "../shared", "cases/simgrid/small_platform.xml");
  char got[4096];
  assert_int_equal(route_names(p, "Tremblay", "Fafard", got, sizeof got), 6);
  assert_string_equal(got, "4 3 2 0 1 8");
  assert_int_equal(route_names(p, "Fafard", "Tremblay", got, sizeof got), 6);
  assert_string_equal(got, "8 1 0 2 3 4");
  route_names(p, "Tremblay", "Jupiter", got, sizeof got);
  assert_string_equal(got, "9");
  route_names(p, "Tremblay", "Tremblay", got, sizeof got);
  assert_string_equal(got, "loopback");
  route_names(p, "Jacquelin", "Jacquelin", got, sizeof got); /* implicit loopback */
  assert_string_equal(got, "__loopback__");
  const plat_link *lb = plat_link_at(p, plat_link_find(p, "__loopback__"));
  assert_float_equal(lb->bandwidth, 1e10, 0);
  assert_int_equal(lb->sharing, PLAT_FATPIPE);
  /* a small buffer gets the length, and the prefix */
  int buf[2];
  psim_err err;
  assert_int_equal(plat_route(p, plat_host_find(p, "Tremblay"), plat_host_find(p, "Fafard"), buf, 2, &err), 6);
  assert_string_equal(plat_link_at(p, buf[0])->name, "4");
  assert_int_equal(plat_route(p, 0, 1, NULL, 0, &err), 1);
  assert_int_equal(plat_route(p, 0, 99, buf, 2, &err), -1);
  plat_free(p);
}

static void test_cluster_names(void **s) {
  (void)s;
  platform *p = load("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_backbone.xml");
  char got[4096];
  route_names(p, "node-0.simgrid.org", "node-2.simgrid.org", got, sizeof got);
  assert_string_equal(got, "cluster0_link_0_UP cluster0_backbone cluster0_link_2_DOWN");
  const plat_link *bb = plat_link_at(p, plat_link_find(p, "cluster0_backbone"));
  assert_float_equal(bb->bandwidth, 2.25e9, 1);
  assert_float_equal(bb->latency, 500e-6, 1e-15);
  plat_free(p);
  p = load("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_torus.xml");
  route_names(p, "node-0.simgrid.org", "node-11.simgrid.org", got, sizeof got);
  assert_string_equal(got, "bob_cluster_link_from_2_to_0_DOWN bob_cluster_link_from_2_to_5_UP "
                           "bob_cluster_link_from_5_to_11_UP");
  plat_free(p);
  p = load("PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_fat_tree.xml");
  route_names(p, "node-0.simgrid.org", "node-10.simgrid.org", got, sizeof got);
  assert_string_equal(got, "link_from_0_31_0_UP link_from_31_27_17_UP link_from_29_27_24_DOWN "
                           "link_from_10_29_10_DOWN");
  plat_free(p);
}

static void test_default_and_flat(void **s) {
  (void)s;
  platform *p = plat_default();
  assert_int_equal(plat_nhosts(p), 64);
  assert_string_equal(plat_host_at(p, 5)->name, "node-5");
  assert_float_equal(plat_host_at(p, 5)->speed, 1e10, 0);
  char got[1024];
  route_names(p, "node-1", "node-63", got, sizeof got);
  assert_string_equal(got, "default_link_1_UP default_backbone default_link_63_DOWN");
  const plat_link *l = plat_link_at(p, plat_link_find(p, "default_link_1_UP"));
  assert_float_equal(l->bandwidth, 1.25e9, 0);
  assert_float_equal(l->latency, 1e-6, 1e-18);
  assert_float_equal(plat_link_at(p, plat_link_find(p, "default_backbone"))->bandwidth, 1.25e10, 0);
  assert_non_null(strstr(plat_default_xml(), "radical=\"0-63\""));
  plat_free(p);

  clock_t t0 = clock();
  p = plat_flat_cluster(1000000, 1e9, 2, 1e9, 2e-6);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  assert_int_equal(plat_nhosts(p), 1000000);
  assert_int_equal(plat_host_at(p, 999999)->cores, 2);
  int buf[8];
  psim_err err;
  assert_int_equal(plat_route(p, 3, 999999, buf, 8, &err), 2);
  assert_string_equal(plat_link_at(p, buf[0])->name, "cluster_link_3_UP");
  assert_string_equal(plat_link_at(p, buf[1])->name, "cluster_link_999999_DOWN");
  assert_float_equal(plat_link_at(p, buf[1])->latency, 2e-6, 0);
  if (secs > 20) fail_msg("building 1e6 hosts took %.1f s", secs);
  plat_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_small_platform_simgrid), cmocka_unit_test(test_routers_simgrid),
    cmocka_unit_test(test_backbone_simgrid), cmocka_unit_test(test_fat_tree_simgrid),
    cmocka_unit_test(test_torus_simgrid), cmocka_unit_test(test_dragonfly_simgrid),
    cmocka_unit_test(test_fixtures_simgrid), cmocka_unit_test(test_small_platform_explicit),
    cmocka_unit_test(test_cluster_names), cmocka_unit_test(test_default_and_flat),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
