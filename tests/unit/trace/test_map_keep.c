/* A mapped shared trace gives its pages back (src/trace/tit_io.c, map_use; issue 38, part 3):
 * 6 000 ranks of 6 lines each (about 10 blocks of 64 KiB), one stream a rank over its run and
 * 8 slots, so that every refill is a copy from the mapping, as in a many-rank replay. With
 * 2 blocks allowed, the mapping's resident pages (its Rss in /proc/self/smaps) stay within 3
 * blocks whether the ranks read in rank order (the pages are given back) or scattered (the
 * refills outside the blocks kept are read with pread), and every line read is the file's. */
#include "tit_test_util.h"
#include "trace/tit_internal.h"

#include <fcntl.h>

#define NRANKS 6000
#define NLINES 6

static int line_of(char *buf, size_t cap, int r, int i) {
  return snprintf(buf, cap, "%d compute %d%03d\n", r, r, i);
}

/* The resident kB of the mapping that holds p (/proc/self/smaps), -1 when not found. */
static long mapping_rss_kb(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  long rss = -1;
  int in = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
      continue;
    }
    if (in && sscanf(line, "Rss: %ld kB", &rss) == 1) break;
  }
  fclose(f);
  return rss;
}

typedef struct {
  char *dir;
  tit_io io;
  tit_stream st[NRANKS];
  int next[NRANKS];   /* each rank's next line */
  long reads;
} fixture;

static fixture *open_fixture(void) {
  fixture *F = xcalloc(1, sizeof *F);
  F->dir = tt_mkdtemp();
  char *path = tt_path(F->dir, "trace.txt");
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  uint64_t off = 0;
  char buf[64];
  tit_io_init(&F->io, 8);
  for (int r = 0; r < NRANKS; r++) {
    uint64_t start = off;
    for (int i = 0; i < NLINES; i++) {
      int n = line_of(buf, sizeof buf, r, i);
      assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
      off += (uint64_t)n;
    }
    F->st[r] = (tit_stream){.path = path, .use_shared_fd = 1, .comp = TIT_COMP_NONE};
    tit_io_seek(&F->io, &F->st[r], start, off);
  }
  fclose(f);
  assert_true(off > 8 * TIT_MAP_BLOCK);
  F->io.shared_fd = open(path, O_RDONLY);
  assert_true(F->io.shared_fd >= 0);
  tit_io_map_shared(&F->io, "test_map_keep");
  assert_non_null(F->io.shared_map);
  assert_int_equal(F->io.map_keep, TIT_MAP_KEEP_BLOCKS);
  F->io.map_keep = 2;
  F->io.chunk = 128;
  return F;
}

static void close_fixture(fixture *F) {
  char *path = (char *)F->st[0].path;
  tit_io_fini(&F->io);
  free(path);
  tt_rmdir(F->dir);
  free(F);
}

/* Rank r's next line, checked against the file's; the mapping's resident pages checked too. */
static void read_next(fixture *F, int r) {
  psim_err err;
  psim_err_clear(&err);
  const char *line;
  size_t len;
  assert_int_equal(tit_io_line(&F->io, &F->st[r], "trace.txt", &line, &len, &err), 1);
  char want[64];
  int n = line_of(want, sizeof want, r, F->next[r]++) - 1;
  if ((int)len != n || memcmp(line, want, (size_t)n) != 0)
    fail_msg("rank %d: '%.*s', expected '%.*s'", r, (int)len, line, n, want);
  assert_true(F->io.map_nread <= F->io.map_keep);
  if (++F->reads % 8) return;   /* /proc/self/smaps is slow to read */
  long rss = mapping_rss_kb(F->io.shared_map);
  if (rss > (long)(3 * TIT_MAP_BLOCK / 1024))
    fail_msg("rank %d: %ld kB of the mapping resident, more than 3 blocks", r, rss);
}

/* Rank order, one line a rank a round: a block serves many copies, then the pages go back. */
static void test_rank_order_gives_pages_back(void **state) {
  (void)state;
  fixture *F = open_fixture();
  for (int i = 0; i < NLINES; i++)
    for (int r = 0; r < NRANKS; r++) read_next(F, r);
  assert_true(F->io.map_drops >= 4 * NLINES);   /* about 10 blocks a round, 2 at a time */
  assert_int_equal(F->io.map_preads, 0);
  close_fixture(F);
}

/* A scattered order (a stride prime to the rank count): few copies a block, so the refills
 * outside the blocks kept are read instead, and the pages go back less often. */
static void test_scattered_order_reads(void **state) {
  (void)state;
  fixture *F = open_fixture();
  for (int i = 0; i < NLINES; i++)
    for (int k = 0; k < NRANKS; k++) read_next(F, (int)((long)k * 2663 % NRANKS));
  assert_true(F->io.map_preads > NRANKS * NLINES / 2);   /* most refills */
  assert_true(F->io.map_drops < F->io.map_preads / 8);
  close_fixture(F);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rank_order_gives_pages_back),
      cmocka_unit_test(test_scattered_order_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
