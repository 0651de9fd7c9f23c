/* Replays the XML fuzzer's minimized corpus (tests/fuzz/corpus/xml/) through the fuzz harness,
 * so every input that once mattered keeps being checked in normal and sanitizer builds.
 * Errors are fine (the harness checks that each one says why); crashes are not. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fuzz/fuzz_xml.c"

static void test_corpus(void **state) {
  (void)state;
  char dir[1024];
  const char *src = getenv("PSIM_SRC");
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/xml", src && *src ? src : ".");
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open the fuzz corpus %s", dir);
  struct dirent *de;
  int n = 0;
  uint8_t *buf = malloc(1 << 20);
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    n++;
  }
  free(buf);
  closedir(d);
  assert_true(n > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
