/* How busy the machine was while psim run measured (emu_busy.c): /proc/stat's first line read
 * into busy, steal and all ticks, and the other processes' share between two marks, from
 * hand-made accounting figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "psim/emul.h"

static void test_parse_stat(void **state) {
  (void)state;
  double busy, steal, all;
  /* user nice system idle iowait irq softirq steal guest guest_nice */
  assert_int_equal(emu_busy_parse_stat("cpu  7016 4 2595 19207 410 3 74 15 0 0\n", &busy, &steal, &all), 0);
  assert_true(busy == 7016 + 4 + 2595 + 3 + 74);   /* guest is in user already */
  assert_true(steal == 15);
  assert_true(all == busy + 15 + 19207 + 410);
  /* an old kernel's four columns */
  assert_int_equal(emu_busy_parse_stat("cpu 10 0 5 85", &busy, &steal, &all), 0);
  assert_true(busy == 15 && steal == 0 && all == 100);
  /* a CPU's own line, or anything else, is not the machine's */
  assert_int_equal(emu_busy_parse_stat("cpu0 10 0 5 85", &busy, &steal, &all), -1);
  assert_int_equal(emu_busy_parse_stat("intr 1 2 3", &busy, &steal, &all), -1);
}

static void test_share(void **state) {
  (void)state;
  /* 2 CPUs, 100 ticks a second, 2 s of wall time: 400 ticks. The CPUs were busy for 300 of them
   * (3 s), psim used 1.2 s: the others 1.8 s of 4, 45 %; the host took 20 ticks, 5 %. */
  emu_busy_mark a = {.busy = 1000, .steal = 10, .all = 5000, .tick = 0.01, .self = 0.5, .ok = 1};
  emu_busy_mark b = {.busy = 1300, .steal = 30, .all = 5400, .tick = 0.01, .self = 1.7, .ok = 1};
  double o, s;
  assert_int_equal(emu_busy_share(&a, &b, &o, &s), 0);
  assert_true(o > 0.45 - 1e-12 && o < 0.45 + 1e-12);
  assert_true(s > 0.05 - 1e-12 && s < 0.05 + 1e-12);
  /* psim's own time counted in finer units than the ticks can exceed the busy ticks: 0 */
  b.self = 4.0;
  assert_int_equal(emu_busy_share(&a, &b, &o, &s), 0);
  assert_true(o == 0);
  /* under 50 ticks of machine time, or a mark that could not read /proc/stat: unknown */
  b.all = a.all + 49;
  assert_int_equal(emu_busy_share(&a, &b, &o, &s), -1);
  b.all = a.all + 400, b.ok = 0;
  assert_int_equal(emu_busy_share(&a, &b, &o, &s), -1);
}

static void test_mark_reads_this_machine(void **state) {
  (void)state;
  emu_busy_mark a, b;
  emu_busy_mark_now(&a);
  volatile double x = 0;
  for (long i = 0; i < 50000000; i++) x += 1e-9 * (double)i;   /* psim's own work, ~50 ms */
  emu_busy_mark_now(&b);
  assert_true(x > 0);
  assert_int_equal(a.ok, 1);
  assert_true(b.all >= a.all && b.busy >= a.busy && b.self > a.self);
  assert_true(a.tick > 0 && a.tick <= 0.01);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_stat),
    cmocka_unit_test(test_share),
    cmocka_unit_test(test_mark_reads_this_machine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
