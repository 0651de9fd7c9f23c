/* The psim lb fuzzer's minimized corpus (tests/fuzz/corpus/lb/: traces nobody checked, run as
 * VPs on fewer PEs with each balancer, twice) through its harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_lb.c"
#include "unit/fuzz_corpus.h"

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("lb") > 100);
  if (g_lbpath[0]) remove(g_lbpath);   /* the harness's trace file */
  plat_free(g_lbplat);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
