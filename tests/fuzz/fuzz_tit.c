/* libFuzzer harness for the TIT trace reader.
 *
 * The first input byte chooses the layout: its low bits the --np given to tit_open (0 =
 * deduce), bit 7 per-rank files (the rest of the input is split on 0x01 bytes, one file per
 * rank) instead of one shared file. The input is written to temporary files and every rank is
 * read round-robin to its end or its first error. Errors are expected; crashes, hangs, leaks
 * and out-of-bounds reads are not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/trace.h"

#define MAXFILES 8
#define MAXREAD_RANKS 64

static char g_dir[256];

static void write_file(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(d, 1, n, f) != n) abort();
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/fuzz-tit-%ld", t && *t ? t : "/tmp", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_dir);
    if (system(cmd) != 0) abort();
  }
  if (size == 0) return 0;
  uint8_t mode = data[0];
  data++;
  size--;
  int nranks = mode & 7;
  if (nranks > 4) nranks = 0;
  if (nranks == 0) {
    /* Deducing millions of ranks from one line is legal but slow under ASan (hundreds of MB
     * of cursors): keep the fuzzer fast by fixing --np when a 5-digit number appears. */
    int digits = 0;
    for (size_t i = 0; i < size && nranks == 0; i++) {
      digits = (data[i] >= '0' && data[i] <= '9') ? digits + 1 : 0;
      if (digits >= 5) nranks = 4;
    }
  }
  char names[MAXFILES][300];
  const char *paths[MAXFILES];
  int npaths = 0;
  if (mode & 0x80) {
    size_t start = 0;
    for (size_t i = 0; i <= size && npaths < MAXFILES; i++) {
      if (i == size || data[i] == 0x01) {
        snprintf(names[npaths], sizeof names[npaths], "%s/r%d", g_dir, npaths);
        write_file(names[npaths], data + start, i - start);
        paths[npaths] = names[npaths];
        npaths++;
        start = i + 1;
      }
    }
  } else {
    snprintf(names[0], sizeof names[0], "%s/shared", g_dir);
    write_file(names[0], data, size);
    paths[0] = names[0];
    npaths = 1;
  }
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open(paths, npaths, nranks, &err);
  if (!s) {
    if (!err.code) abort(); /* a failure must say why */
    return 0;
  }
  int n = tit_nranks(s);
  if (n > MAXREAD_RANKS) n = MAXREAD_RANKS;
  int live = n;
  char done[MAXREAD_RANKS] = {0};
  tit_action a;
  volatile double sink = 0;
  while (live > 0) {
    for (int r = 0; r < n; r++) {
      if (done[r]) continue;
      psim_err_clear(&err);
      int rc = tit_next(s, r, &a, &err);
      if (rc == 1) {
        /* touch everything the action points to */
        for (int i = 0; i < a.text_len; i++) sink += a.text[i];
        for (int i = 0; a.counts && i < a.ncounts; i++) sink += a.counts[i];
        for (int i = 0; a.counts2 && i < a.ncounts; i++) sink += a.counts2[i];
        sink += (double)strlen(a.file) + a.bytes + a.bytes2 + a.amount;
        if (a.rank != r || a.line <= 0 || (int)a.kind < 0 || a.kind >= TIT_NKINDS) abort();
      } else {
        if (rc < 0 && (!err.code || err.line < 0)) abort();
        done[r] = 1;
        live--;
      }
    }
  }
  (void)sink;
  tit_close(s);
  return 0;
}
