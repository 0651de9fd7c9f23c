/* Replays the trace fuzzer's minimized corpus (tests/fuzz/corpus/tit/) through the fuzz
 * harness itself, so that every input that once found a bug keeps being checked in normal
 * builds (and under the sanitizer pass of `make check`). Errors are fine; crashes are not. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fuzz/fuzz_tit.c"

static char *corpus_dir(void) {
  char buf[1024];
  const char *src = getenv("PSIM_SRC");
  const char *data = getenv("PSIM_TESTDATA");
  if (src && *src)
    snprintf(buf, sizeof buf, "%s/tests/fuzz/corpus/tit", src);
  else if (data && *data)
    snprintf(buf, sizeof buf, "%s/../fuzz/corpus/tit", data);
  else
    snprintf(buf, sizeof buf, "tests/fuzz/corpus/tit");
  return strdup(buf);
}

static void test_corpus(void **state) {
  (void)state;
  char *dir = corpus_dir();
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open the fuzz corpus %s", dir);
  struct dirent *de;
  int n = 0;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    uint8_t *buf = malloc(1 << 20);
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    n++;
  }
  closedir(d);
  free(dir);
  assert_true(n > 0);
  if (g_dir[0]) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
