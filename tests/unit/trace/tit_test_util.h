/* Helpers shared by the trace reader tests: scratch directories and files. */
#ifndef TIT_TEST_UTIL_H
#define TIT_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "psim/trace.h"

/* A fresh directory under $TMPDIR, removed (with its files) by tt_rmdir. */
static inline char *tt_mkdtemp(void) {
  const char *t = getenv("TMPDIR");
  char buf[512];
  snprintf(buf, sizeof buf, "%s/psim-tit-test-XXXXXX", t && *t ? t : "/tmp");
  char *d = mkdtemp(buf);
  assert_non_null(d);
  return xstrdup(d);
}

static inline void tt_rmdir(char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
  free(dir);
}

static inline char *tt_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* Writes n bytes (n < 0: strlen) to dir/name and returns the path (to free). */
static inline char *tt_write(const char *dir, const char *name, const void *data, long n) {
  char *p = tt_path(dir, name);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  size_t len = n < 0 ? strlen(data) : (size_t)n;
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
  return p;
}

/* Opens one path, failing the test with the error message when it cannot. */
static inline tit_source *tt_open1(const char *path, int nranks) {
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open(&path, 1, nranks, &err);
  if (!s) fail_msg("tit_open(%s): %s:%ld: %s", path, err.file, err.line, err.msg);
  return s;
}

/* Reads every rank to its end; returns the number of actions (fails on any error). */
static inline long tt_drain(tit_source *s) {
  long n = 0;
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  for (int r = 0; r < tit_nranks(s); r++) {
    int rc;
    while ((rc = tit_next(s, r, &a, &err)) == 1) {
      assert_int_equal(a.rank, r);
      n++;
    }
    if (rc < 0) fail_msg("rank %d: %s:%ld: %s", r, err.file, err.line, err.msg);
  }
  return n;
}

#endif
