/* The replay fuzzer's minimized corpus (tests/fuzz/corpus/replay/: traces nobody checked, each
 * replayed twice on the embedded platform) through its harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_replay.c"
#include "unit/fuzz_corpus.h"

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("replay") > 100);
  if (g_path[0]) remove(g_path);   /* the harness's trace file */
  plat_free(g_plat);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
