/* Short computations carried over (emu_sched.c, emu_carry_add): measured bursts under
 * --cpu-threshold add up and are charged once their sum passes it; none is lost. Values are
 * hand-derived: sums of the bursts given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emul/emu.h"

static void test_small_bursts_add_up(void **state) {
  (void)state;
  double carry = 0, charged = 0;
  /* 10 bursts of 0.3 us under a 1 us threshold: charged as 1.2 us (after the 4th), 1.2 us
   * (after the 8th), 0.6 us left over */
  for (int i = 0; i < 10; i++) {
    double c = emu_carry_add(&carry, 0.3e-6, 1e-6);
    if (i == 3 || i == 7) assert_true(c > 1.19e-6 && c < 1.21e-6);
    else assert_true(c == 0);
    charged += c;
  }
  assert_true(charged > 2.39e-6 && charged < 2.41e-6);
  assert_true(carry > 0.59e-6 && carry < 0.61e-6);
  /* the rank's end flushes what is left (threshold 0) */
  double last = emu_carry_add(&carry, 0, 0);
  assert_true(last > 0.59e-6 && last < 0.61e-6);
  assert_true(carry == 0);
}

static void test_long_burst_takes_the_carry(void **state) {
  (void)state;
  double carry = 0;
  assert_true(emu_carry_add(&carry, 0.5e-6, 1e-6) == 0);
  /* a burst over the threshold is charged at once, with what was carried */
  double c = emu_carry_add(&carry, 5e-6, 1e-6);
  assert_true(c > 5.49e-6 && c < 5.51e-6);
  assert_true(carry == 0);
  /* threshold 0 (SMPI's "every burst"): every burst charged as it is */
  assert_true(emu_carry_add(&carry, 0.25e-6, 0) == 0.25e-6);
  assert_true(carry == 0);
  /* nothing, nothing charged */
  assert_true(emu_carry_add(&carry, 0, 1e-6) == 0);
  assert_true(carry == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_small_bursts_add_up),
    cmocka_unit_test(test_long_burst_takes_the_carry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
