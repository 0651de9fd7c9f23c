/* Replays a fuzzer's minimized corpus (tests/fuzz/corpus/NAME/) through its harness, included
 * just before this header (fuzz/fuzz_NAME.c: LLVMFuzzerTestOneInput), so that every input that
 * once mattered keeps being checked in normal builds and under the sanitizer pass of `make
 * check`. Errors are fine (each harness checks that an error says why); crashes are not. */
#ifndef PSIM_TEST_FUZZ_CORPUS_H
#define PSIM_TEST_FUZZ_CORPUS_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs every file of the corpus; returns how many (the caller asserts there are some). */
static int fuzz_corpus_run(const char *name) {
  char dir[1024];
  const char *src = getenv("PSIM_SRC");
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", src && *src ? src : ".", name);
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open the fuzz corpus %s", dir);
  int n = 0;
  uint8_t *buf = malloc(1 << 20);
  struct dirent *de;
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
  return n;
}

#endif
