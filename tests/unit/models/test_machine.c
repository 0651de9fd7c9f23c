/* CLUE's machine file: the piecewise-linear functions (interpolation, extrapolation on both
 * sides, clamping at 0, constants), which line applies (patterns, later lines, dates), pairs in
 * both directions, and parse errors with their line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/models_internal.h"

static char path[64];

static machine *load(const char *text, psim_err *err) {
  snprintf(path, sizeof path, "/tmp/psim-machine-%d.txt", (int)getpid());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  psim_err_clear(err);
  machine *m = machine_load(path, err);
  remove(path);
  return m;
}

#define NEAR(x, y) assert_true(fabs((double)(x) - (double)(y)) <= 1e-15 + 1e-12 * fabs((double)(y)))

static void functions(void **st) {
  (void)st;
  psim_err err;
  /* node-0: send 100:1ms,200:3ms (2 ms per 100 B); recv 100:2ms,200:3ms; pack a constant */
  machine *m = load("host node-0 send=100:1ms,200:3ms recv=100:2ms,200:3ms pack=7us\n", &err);
  assert_non_null(m);
  platform *p = plat_flat_cluster(2, 1e9, 1, 1e6, 0);
  mach_bound *b = mach_bind(m, p);
  NEAR(mach_delay(b, 0, MACH_SEND, 150, 0), 2e-3);     /* interpolated */
  NEAR(mach_delay(b, 0, MACH_SEND, 300, 0), 5e-3);     /* extrapolated from the last two */
  NEAR(mach_delay(b, 0, MACH_SEND, 50, 0), 0);         /* below: 1 ms - 1 ms */
  NEAR(mach_delay(b, 0, MACH_SEND, 0, 0), 0);          /* below: -1 ms, clamped at 0 */
  NEAR(mach_delay(b, 0, MACH_RECV, 0, 0), 1e-3);       /* below: 2 ms - 1 ms */
  NEAR(mach_delay(b, 0, MACH_PACK, 1e9, 0), 7e-6);     /* a constant */
  NEAR(mach_delay(b, 1, MACH_SEND, 150, 0), 0);        /* node-1: no line */
  NEAR(mach_factor(b, 1, 0), 1);
  mach_unbind(b);
  plat_free(p);
  machine_free(m);
}

static void which_line(void **st) {
  (void)st;
  psim_err err;
  machine *m = load("# a comment\n"
                    "at 10s host node-? factor=4   # later date, earlier in the file\n"
                    "host node-* factor=2 send=0:1ms\n"
                    "host node-1 factor=3\n"
                    "pair node-0 node-[12] transmit=0:5ms\n"
                    "at 5 pair node-2 node-0 transmit=0:6ms\n", &err);
  assert_non_null(m);
  platform *p = plat_flat_cluster(3, 1e9, 1, 1e6, 0);
  mach_bound *b = mach_bind(m, p);
  NEAR(mach_factor(b, 0, 0), 2);
  NEAR(mach_factor(b, 1, 0), 3);       /* the later line, for factor only */
  NEAR(mach_delay(b, 1, MACH_SEND, 10, 0), 1e-3);
  NEAR(mach_factor(b, 1, 9.99), 3);
  NEAR(mach_factor(b, 1, 10), 4);      /* dates order the lines first */
  const double *d;
  assert_int_equal(mach_factor_dates(b, &d), 1);
  NEAR(d[0], 10);
  double t = -1;
  assert_int_equal(mach_transmit(b, 0, 1, 100, 0, &t), 1);
  NEAR(t, 5e-3);
  assert_int_equal(mach_transmit(b, 1, 0, 100, 0, &t), 1);   /* both directions */
  NEAR(t, 5e-3);
  assert_int_equal(mach_transmit(b, 1, 2, 100, 0, &t), 0);   /* no line for node-1/node-2 */
  assert_int_equal(mach_transmit(b, 0, 2, 100, 4.9, &t), 1);
  NEAR(t, 5e-3);
  assert_int_equal(mach_transmit(b, 0, 2, 100, 5, &t), 1);   /* the dated line from 5 s */
  NEAR(t, 6e-3);
  const char *pat = NULL;
  assert_int_equal(machine_unmatched(m, p, &pat), 0);
  mach_unbind(b);
  plat_free(p);
  machine_free(m);
}

static void errors(void **st) {
  (void)st;
  psim_err err;
  assert_null(load("host a factor=1\n\nhost b send=2:1ms,1:2ms\n", &err));
  assert_int_equal(err.code, 2);
  assert_int_equal(err.line, 3);
  assert_non_null(strstr(err.msg, "increase"));
  assert_null(load("pair a b\n", &err));
  assert_int_equal(err.line, 1);
  assert_non_null(strstr(err.msg, "transmit"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(functions),
      cmocka_unit_test(which_line),
      cmocka_unit_test(errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
