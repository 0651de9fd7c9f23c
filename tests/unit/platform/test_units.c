/* Units of platform files (specs/simgrid-compat.md §2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "psim/util.h"

typedef int (*unit_fn)(const char *, double *, int *, char *, size_t);

static void ok(unit_fn f, const char *s, double want, int want_warn) {
  double v = -1;
  int w = -1;
  char why[256] = "";
  int rc = f(s, &v, &w, why, sizeof why);
  if (rc != 0) fail_msg("'%s' rejected: %s", s, why);
  if (fabs(v - want) > 1e-12 * fabs(want)) fail_msg("'%s' = %.17g, expected %.17g", s, v, want);
  assert_int_equal(w, want_warn);
}

static void bad(unit_fn f, const char *s) {
  double v;
  int w;
  char why[256] = "";
  assert_int_equal(f(s, &v, &w, why, sizeof why), -1);
  assert_true(why[0] != 0);
}

static void test_bandwidth(void **state) {
  (void)state;
  ok(psim_unit_bandwidth, "125MBps", 1.25e8, 0);
  ok(psim_unit_bandwidth, "10Gbps", 1.25e9, 0);
  ok(psim_unit_bandwidth, "1GiBps", 1073741824.0, 0);
  ok(psim_unit_bandwidth, "2.25GBps", 2.25e9, 0);
  ok(psim_unit_bandwidth, "41.279125MBps", 41279125.0, 0);
  ok(psim_unit_bandwidth, "252.75kBps", 252750.0, 0);
  ok(psim_unit_bandwidth, "1Kibps", 128.0, 0);
  ok(psim_unit_bandwidth, "8bps", 1.0, 0);
  ok(psim_unit_bandwidth, "1TBps", 1e12, 0);
  ok(psim_unit_bandwidth, "1e6", 1e6, 1);
  ok(psim_unit_bandwidth, "0", 0, 0);
  bad(psim_unit_bandwidth, "10GB");
  bad(psim_unit_bandwidth, "10 furlongs");
  bad(psim_unit_bandwidth, "fast");
  bad(psim_unit_bandwidth, "");
}

static void test_speed(void **state) {
  (void)state;
  ok(psim_unit_speed, "1Gf", 1e9, 0);
  ok(psim_unit_speed, "98.095Mf", 98.095e6, 0);
  ok(psim_unit_speed, "1.5Mf", 1.5e6, 0);
  ok(psim_unit_speed, "2gigaflops", 2e9, 0);
  ok(psim_unit_speed, "10flops", 10, 0);
  ok(psim_unit_speed, "1Gf,500Mf,100Mf", 1e9, 0);
  ok(psim_unit_speed, "100", 100, 1);
  bad(psim_unit_speed, "1Gflops");
  bad(psim_unit_speed, "1GiF");
  bad(psim_unit_speed, "1Gif");
}

static void test_time(void **state) {
  (void)state;
  ok(psim_unit_time, "50us", 5e-5, 0);
  ok(psim_unit_time, "1m", 60, 0);
  ok(psim_unit_time, "1.461517ms", 1.461517e-3, 0);
  ok(psim_unit_time, "2h", 7200, 0);
  ok(psim_unit_time, "1d", 86400, 0);
  ok(psim_unit_time, "1w", 604800, 0);
  ok(psim_unit_time, "3ns", 3e-9, 0);
  ok(psim_unit_time, "4ps", 4e-12, 0);
  ok(psim_unit_time, "0", 0, 0);
  ok(psim_unit_time, "0.5", 0.5, 1);
  bad(psim_unit_time, "5 minutes");
  bad(psim_unit_time, "1min");
}

static void test_size(void **state) {
  (void)state;
  ok(psim_unit_size, "1MiB", 1048576.0, 0);
  ok(psim_unit_size, "1kB", 1000.0, 0);
  ok(psim_unit_size, "16b", 2.0, 0);
  ok(psim_unit_size, "3GB", 3e9, 0);
  ok(psim_unit_size, "12", 12, 1);
  bad(psim_unit_size, "1MBps");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bandwidth), cmocka_unit_test(test_speed),
    cmocka_unit_test(test_time), cmocka_unit_test(test_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
