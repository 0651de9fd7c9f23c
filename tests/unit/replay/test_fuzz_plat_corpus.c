/* The platform-and-replay fuzzer's minimized corpus (tests/fuzz/corpus/plat_replay/: platforms
 * nobody checked, under a fixed 4-rank trace) through its harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_plat_replay.c"
#include "unit/fuzz_corpus.h"

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("plat_replay") > 100);
  if (g_trace[0]) remove(g_trace);   /* the harness's trace file */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
