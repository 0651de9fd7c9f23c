/* Shared body of the foreign-format fuzz harnesses (fuzz_prv.c, fuzz_dim.c, fuzz_goal.c): the
 * input, after the format's first-line prefix, is written to a file and opened through
 * tit_open (detection, the reader, the conversion, the TIT index), then every rank is read to
 * its end. Errors are expected and must say why; crashes, hangs and leaks are not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/trace.h"

static char g_dir[256];

static int fuzz_foreign(const char *prefix, const char *ext, const uint8_t *data, size_t size) {
  if (!g_dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/fuzz-foreign-%ld", t && *t ? t : "/tmp", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_dir);
    if (system(cmd) != 0) abort();
  }
  /* Paraver's and Dimemas's headers give the task count: keep it small for speed */
  for (size_t i = 0, digits = 0; i < size; i++) {
    digits = data[i] >= '0' && data[i] <= '9' ? digits + 1 : 0;
    if (digits >= 6) return 0;
  }
  char path[300];
  snprintf(path, sizeof path, "%s/t%s", g_dir, ext);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fputs(prefix, f);
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  psim_err err;
  psim_err_clear(&err);
  const char *paths[1] = {path};
  tit_source *s = tit_open(paths, 1, 0, &err);
  if (!s) {
    if (!err.code) abort();
    return 0;
  }
  tit_action a;
  for (int r = 0; r < tit_nranks(s) && r < 64; r++) {
    int rc;
    while ((rc = tit_next(s, r, &a, &err)) == 1)
      if (a.rank != r || a.kind >= TIT_NKINDS) abort();
    if (rc < 0) abort();   /* converted TIT must always parse */
  }
  tit_close(s);
  return 0;
}
