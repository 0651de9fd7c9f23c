/* Measuring a program several times (emu_repeat.c, psim run --repeat): each burst is charged
 * the least of its measurements so far; a run whose calls differ from the stored ones is the
 * rank's own from there on. Values are hand-chosen measurements and their minima. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emul/emu.h"

static const char SEND[] = "MPI_Send", RECV[] = "MPI_Recv";

static void test_least_of_the_runs(void **state) {
  (void)state;
  emu_repeat *x = emu_repeat_new(2);
  emu_repeat_begin(x);   /* run 1: charged as measured */
  assert_true(emu_repeat_burst(x, 0, SEND, 3.0) == 3.0);
  assert_true(emu_repeat_burst(x, 0, RECV, 1.0) == 1.0);
  assert_true(emu_repeat_burst(x, 1, RECV, 5.0) == 5.0);
  emu_repeat_begin(x);   /* run 2: the least of runs 1 and 2 */
  assert_true(emu_repeat_burst(x, 0, SEND, 2.0) == 2.0);
  assert_true(emu_repeat_burst(x, 0, RECV, 1.5) == 1.0);
  assert_true(emu_repeat_burst(x, 1, RECV, 4.0) == 4.0);
  emu_repeat_begin(x);   /* run 3: runs 1..3 */
  assert_true(emu_repeat_burst(x, 0, SEND, 2.5) == 2.0);
  assert_true(emu_repeat_burst(x, 0, RECV, 0.5) == 0.5);
  assert_true(emu_repeat_burst(x, 1, RECV, 6.0) == 4.0);
  assert_int_equal(emu_repeat_diverged(x), 0);
  assert_int_equal(emu_repeat_bursts(x), 3);
  emu_repeat_free(x);
}

static void test_another_path(void **state) {
  (void)state;
  emu_repeat *x = emu_repeat_new(2);
  emu_repeat_begin(x);
  emu_repeat_burst(x, 0, SEND, 3.0);
  emu_repeat_burst(x, 0, SEND, 3.0);
  emu_repeat_burst(x, 1, RECV, 1.0);
  emu_repeat_begin(x);
  /* rank 0 ends its first burst with another call: its own measurements from there on */
  assert_true(emu_repeat_burst(x, 0, RECV, 9.0) == 9.0);
  assert_true(emu_repeat_burst(x, 0, SEND, 7.0) == 7.0);
  /* rank 1 makes one more call than in run 1: that burst is its own too */
  assert_true(emu_repeat_burst(x, 1, RECV, 0.5) == 0.5);
  assert_true(emu_repeat_burst(x, 1, RECV, 8.0) == 8.0);
  assert_int_equal(emu_repeat_diverged(x), 2);
  /* a NULL repeat (one run) and a rank out of range change nothing */
  assert_true(emu_repeat_burst(NULL, 0, SEND, 1.25) == 1.25);
  assert_true(emu_repeat_burst(x, 7, SEND, 1.25) == 1.25);
  emu_repeat_free(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_least_of_the_runs),
      cmocka_unit_test(test_another_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
