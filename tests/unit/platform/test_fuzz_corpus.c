/* The XML fuzzer's minimized corpus (tests/fuzz/corpus/xml/) through its harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_xml.c"
#include "unit/fuzz_corpus.h"

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("xml") > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
