/* Platform file contents: hosts, properties, config, warnings, hostfiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/platform.h"

static void path_of(char *buf, size_t n, const char *env, const char *dflt, const char *rel) {
  const char *d = getenv(env);
  snprintf(buf, n, "%s/%s", d && *d ? d : dflt, rel);
}

static void test_small_platform(void **s) {
  (void)s;
  char path[1024];
  path_of(path, sizeof path, "PSIM_SHARED", "../shared", "cases/simgrid/small_platform.xml");
  psim_err err;
  char *w = NULL;
  platform *p = plat_load_xml(path, &w, &err);
  assert_non_null(p);
  assert_null(w);
  assert_int_equal(plat_nhosts(p), 7);
  assert_string_equal(plat_host_at(p, 0)->name, "Tremblay"); /* document order */
  assert_float_equal(plat_host_at(p, 0)->speed, 98.095e6, 1e-3);
  assert_int_equal(plat_host_at(p, 0)->cores, 1);
  assert_null(plat_host_at(p, 0)->prop_os);
  assert_int_equal(plat_host_find(p, "Boivin"), 6);
  assert_int_equal(plat_host_find(p, "Nobody"), -1);
  const plat_link *l9 = plat_link_at(p, plat_link_find(p, "9"));
  assert_float_equal(l9->bandwidth, 7.20975e6, 1e-6);
  assert_float_equal(l9->latency, 1.461517e-3, 1e-15);
  assert_int_equal(l9->sharing, PLAT_SHARED);
  assert_int_equal(plat_link_at(p, plat_link_find(p, "loopback"))->sharing, PLAT_FATPIPE);
  assert_int_equal(plat_nconfig(p), 0);
  assert_string_equal(plat_name(p), path);
  plat_free(p);
}

static void test_props_config_warnings(void **s) {
  (void)s;
  char path[1024];
  path_of(path, sizeof path, "PSIM_TESTDATA", "tests/data", "platforms/props.xml");
  psim_err err;
  char *w = NULL;
  platform *p = plat_load_xml(path, &w, &err);
  if (!p) fail_msg("%s", err.msg);
  assert_int_equal(plat_nconfig(p), 2);
  const char *k, *v;
  plat_config_at(p, 0, &k, &v);
  assert_string_equal(k, "smpi/os");
  assert_string_equal(v, "0:1e-6:1e-10");
  plat_config_at(p, 1, &k, &v);
  assert_string_equal(k, "network/TCP-gamma");
  const plat_host *a = plat_host_at(p, 0);
  assert_int_equal(a->cores, 4);
  assert_string_equal(a->prop_os, "0:2e-6:0");
  assert_string_equal(a->prop_or, "0:3e-6:0");
  assert_string_equal(a->prop_ois, "0:4e-6:0");
  assert_null(plat_host_at(p, 1)->prop_os);
  assert_float_equal(plat_host_at(p, 1)->speed, 2e6, 0);
  /* unit-less speed (line 15) and bandwidth (line 16) are accepted with warnings; latency 0 is not warned */
  assert_non_null(w);
  assert_non_null(strstr(w, "props.xml:15: warning"));
  assert_non_null(strstr(w, "props.xml:16: warning"));
  assert_null(strstr(w, "latency"));
  /* a -> a has no route but the zone adds the implicit loopback */
  int buf[4];
  assert_int_equal(plat_route(p, 0, 0, buf, 4, &err), 1);
  assert_string_equal(plat_link_at(p, buf[0])->name, "__loopback__");
  free(w);
  plat_free(p);
}

static void test_hostfile(void **s) {
  (void)s;
  char path[1024];
  path_of(path, sizeof path, "PSIM_TESTDATA", "tests/data", "platforms/props.xml");
  psim_err err;
  platform *p = plat_load_xml(path, NULL, &err);
  assert_non_null(p);
  int *h = NULL;
  path_of(path, sizeof path, "PSIM_TESTDATA", "tests/data", "platforms/props.hosts");
  int n = plat_hostfile_load(p, path, &h, &err);
  assert_int_equal(n, 6);
  int want[] = {0, 1, 1, 1, 0, 0};
  for (int i = 0; i < 6; i++) assert_int_equal(h[i], want[i]);
  free(h);
  path_of(path, sizeof path, "PSIM_TESTDATA", "tests/data", "platforms/bad.hosts");
  assert_int_equal(plat_hostfile_load(p, path, &h, &err), -1);
  assert_null(h);
  assert_int_equal(err.line, 2);
  assert_non_null(strstr(err.msg, "unknown host 'nobody'"));
  path_of(path, sizeof path, "PSIM_TESTDATA", "tests/data", "platforms/bad2.hosts");
  assert_int_equal(plat_hostfile_load(p, path, &h, &err), -1);
  assert_int_equal(err.line, 1);
  assert_int_equal(plat_hostfile_load(p, "/nonexistent", &h, &err), -1);
  plat_free(p);
}

static void test_shared_hostfile(void **s) {
  (void)s;
  char path[1024];
  path_of(path, sizeof path, "PSIM_SHARED", "../shared", "cases/simgrid/extra/platforms/cluster_dragonfly.xml");
  psim_err err;
  platform *p = plat_load_xml(path, NULL, &err);
  assert_non_null(p);
  int *h;
  path_of(path, sizeof path, "PSIM_SHARED", "../shared", "cases/simgrid/extra/hostfiles/cluster_dragonfly");
  int n = plat_hostfile_load(p, path, &h, &err);
  assert_true(n > 0);
  assert_string_equal(plat_host_at(p, h[0])->name, "node-0.simgrid.org");
  free(h);
  plat_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_small_platform), cmocka_unit_test(test_props_config_warnings),
    cmocka_unit_test(test_hostfile), cmocka_unit_test(test_shared_hostfile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
