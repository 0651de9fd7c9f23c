/* The parameter space of psim sweep (src/tools/sweep_space.c): values and ranges, the order of
 * configurations, substitution, and the probes of psim plan's search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/sweep.h"

/* The values of "NAME=SPEC" joined by spaces, or "ERROR: message". */
static void values_of(const char *arg, char *out, size_t n) {
  sweep_space s = {0};
  psim_err e;
  psim_err_clear(&e);
  if (sweep_space_add(&s, arg, &e) < 0) {
    snprintf(out, n, "ERROR: %s", e.msg);
    sweep_space_free(&s);
    return;
  }
  size_t k = 0;
  out[0] = 0;
  const sweep_param *p = &s.params.data[0];
  for (size_t j = 0; j < p->n && k < n; j++) k += (size_t)snprintf(out + k, n - k, "%s%s", j ? " " : "", p->values[j]);
  sweep_space_free(&s);
}

static void ranges(void **state) {
  (void)state;
  char b[2048];
  values_of("h=4..64*2", b, sizeof b);
  assert_string_equal(b, "4 8 16 32 64");
  values_of("h=4..63*2", b, sizeof b);
  assert_string_equal(b, "4 8 16 32");
  values_of("l=1e-6..1e-4*10", b, sizeof b);
  assert_string_equal(b, "1e-06 1e-05 0.0001");
  values_of("x=0.1..0.5+0.1", b, sizeof b);   /* 0.1 + 4 x 0.1 is above 0.5 by 1e-16 */
  assert_string_equal(b, "0.1 0.2 0.3 0.4 0.5");
  values_of("x=1..4,16,1Gbps", b, sizeof b);
  assert_string_equal(b, "1 2 3 4 16 1Gbps");
  values_of("x=-2..2", b, sizeof b);
  assert_string_equal(b, "-2 -1 0 1 2");
  values_of("x=3..3*2", b, sizeof b);
  assert_string_equal(b, "3");
  values_of("x=1e3..4e3+1e3", b, sizeof b);   /* exponents: not integers as written */
  assert_string_equal(b, "1000 2000 3000 4000");
  values_of("x=1..3e6", b, sizeof b);
  assert_non_null(strstr(b, "more than 1000000 values"));
  values_of("x=4..2", b, sizeof b);
  assert_string_equal(b, "ERROR: --vary x: bad range '4..2': the end 2 is below the start 4");
  values_of("x=..2", b, sizeof b);
  assert_non_null(strstr(b, "expected a number before '..'"));
  values_of("x=1..2*1", b, sizeof b);
  assert_non_null(strstr(b, "the factor after '*' must be above 1"));
  values_of("x=1..2+-1", b, sizeof b);
  assert_non_null(strstr(b, "the step after '+' must be above 0"));
  values_of("x=0x10..0x20", b, sizeof b);
  assert_non_null(strstr(b, "is not a number"));
  values_of("a b=1", b, sizeof b);
  assert_non_null(strstr(b, "bad parameter name"));
}

static void configurations(void **state) {
  (void)state;
  sweep_space s = {0};
  psim_err e;
  psim_err_clear(&e);
  assert_int_equal(sweep_space_add(&s, "a=1,2", &e), 0);
  assert_int_equal(sweep_space_add(&s, "b=x,y,z", &e), 0);
  assert_int_equal(sweep_space_finish(&s, &e), 0);
  assert_int_equal(s.total, 6);
  const char *want[6] = {"1x", "1y", "1z", "2x", "2y", "2z"};
  size_t idx[2];
  for (size_t i = 0; i < 6; i++) {
    sweep_space_config(&s, i, idx);
    char *t = sweep_subst(&s, idx, "{a}{b}", NULL, &e);
    assert_string_equal(t, want[i]);
    free(t);
  }
  /* zipped: pairs; unequal lengths refused */
  s.zip = 1;
  assert_int_equal(sweep_space_finish(&s, &e), -1);
  assert_non_null(strstr(e.msg, "has 3 values but 'a' has 2"));
  sweep_space_free(&s);
  sweep_space z = {0};
  z.zip = 1;
  psim_err_clear(&e);
  assert_int_equal(sweep_space_add(&z, "a=1,2", &e), 0);
  assert_int_equal(sweep_space_add(&z, "b=x,y", &e), 0);
  assert_int_equal(sweep_space_finish(&z, &e), 0);
  assert_int_equal(z.total, 2);
  sweep_space_config(&z, 1, idx);
  assert_string_equal(sweep_value(&z, idx, 0), "2");
  assert_string_equal(sweep_value(&z, idx, 1), "y");
  sweep_space_free(&z);
}

static void substitution(void **state) {
  (void)state;
  sweep_space s = {0};
  psim_err e;
  psim_err_clear(&e);
  assert_int_equal(sweep_space_add(&s, "hosts=8", &e), 0);
  assert_int_equal(sweep_space_add(&s, "bw=10Gbps", &e), 0);
  assert_int_equal(sweep_space_finish(&s, &e), 0);
  size_t idx[2] = {0, 0};
  char used[2] = {0, 0};
  char *t = sweep_subst(&s, idx, "flat:{hosts},1Gf,{bw},1us {} {not a name} {{hosts}}", used, &e);
  assert_string_equal(t, "flat:8,1Gf,10Gbps,1us {} {not a name} {8}");
  assert_int_equal(used[0], 1);
  assert_int_equal(used[1], 1);
  free(t);
  assert_null(sweep_subst(&s, idx, "x{speed}", NULL, &e));
  assert_non_null(strstr(e.msg, "{speed} is not a parameter"));
  sweep_space_free(&s);
}

static void probes(void **state) {
  (void)state;
  long p[8];
  assert_int_equal(sweep_probes(1, 32, 1, p), 1);
  assert_int_equal(p[0], 17);
  assert_int_equal(sweep_probes(1, 2, 1, p), 0);
  assert_int_equal(sweep_probes(1, 3, 4, p), 1);   /* only 2 lies strictly between */
  assert_int_equal(p[0], 2);
  assert_int_equal(sweep_probes(0, 100, 3, p), 3);
  assert_int_equal(p[0], 25);
  assert_int_equal(p[1], 50);
  assert_int_equal(p[2], 75);
  /* always strictly inside and increasing, for every interval and width */
  for (long lo = 1; lo < 20; lo++)
    for (long hi = lo + 2; hi < 60; hi++)
      for (int k = 1; k <= 8; k++) {
        int n = sweep_probes(lo, hi, k, p);
        assert_true(n >= 1 && n <= k);
        for (int j = 0; j < n; j++) {
          assert_true(p[j] > lo && p[j] < hi);
          if (j) assert_true(p[j] > p[j - 1]);
        }
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ranges),
      cmocka_unit_test(configurations),
      cmocka_unit_test(substitution),
      cmocka_unit_test(probes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
