/* libFuzzer harness for the DUMPI reader (src/trace/trace_dumpi.c): the input is the binary
 * file of rank 0 of a one-rank trace whose .meta this harness writes, opened through tit_open
 * (detection of the .meta, the reader, the conversion, the TIT index), every action then read.
 * Errors are expected and must say why; crashes, hangs and leaks are not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/trace.h"

static char g_ddir[256];

static int fuzz_dumpi(const uint8_t *data, size_t size) {
  if (!g_ddir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(g_ddir, sizeof g_ddir, "%s/fuzz-dumpi-%ld", t && *t ? t : "/tmp", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_ddir);
    if (system(cmd) != 0) abort();
  }
  char meta[300], bin[300];
  snprintf(meta, sizeof meta, "%s/t.meta", g_ddir);
  snprintf(bin, sizeof bin, "%s/t-0000.bin", g_ddir);
  FILE *f = fopen(meta, "w");
  if (!f) abort();
  fputs("hostname=fuzz\nnumprocs=1\nfileprefix=t\nversion=1\nsubversion=1\n", f);
  fclose(f);
  f = fopen(bin, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  psim_err err;
  psim_err_clear(&err);
  const char *paths[1] = {meta};
  tit_source *s = tit_open(paths, 1, 0, &err);
  if (!s) {
    if (!err.code) abort();
    return 0;
  }
  tit_action a;
  int rc;
  while ((rc = tit_next(s, 0, &a, &err)) == 1)
    if (a.rank != 0 || a.kind >= TIT_NKINDS) abort();
  if (rc < 0) abort();   /* converted TIT must always parse */
  tit_close(s);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_dumpi(data, size); }
