/* The trace fuzzer's minimized corpus (tests/fuzz/corpus/tit/) through its harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_tit.c"
#include "unit/fuzz_corpus.h"

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("tit") > 100);
  if (g_dir[0]) {   /* the harness's temporary files */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
