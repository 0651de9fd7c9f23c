/* Trace reader under a low open-file limit: thousands of per-rank files (plain and
 * compressed) and a many-rank shared file, read round-robin, with every rank's last action
 * still valid while the others are read. */
#include "tit_test_util.h"

#include <sys/resource.h>
#include <zstd.h>

#define NFILES 3000
#define NLINES 6

static char *g_dir;

static int setup(void **state) {
  (void)state;
  g_dir = tt_mkdtemp();
  struct rlimit rl;
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
  rl.rlim_cur = 256;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tt_rmdir(g_dir);
  return 0;
}

static int line_of(char *buf, size_t cap, int r, int i) {
  if (i == 0) return snprintf(buf, cap, "%d init\n", r);
  return snprintf(buf, cap, "%d compute %d%03d\n", r, r, i);
}

/* Reads all ranks round-robin, one action each per round, keeping every rank's last action
 * and checking them all after each round (their text must survive the other ranks' reads). */
static void read_round_robin(tit_source *s, int n) {
  tit_action *last = xcalloc((size_t)n, sizeof *last);
  psim_err err;
  psim_err_clear(&err);
  char want[64];
  for (int i = 0; i < NLINES; i++) {
    for (int r = 0; r < n; r++) {
      int rc = tit_next(s, r, &last[r], &err);
      if (rc != 1) fail_msg("rank %d action %d: rc %d: %s:%ld: %s", r, i, rc, err.file, err.line, err.msg);
    }
    for (int r = 0; r < n; r++) {
      int len = line_of(want, sizeof want, r, i);
      const char *t = strchr(want, ' ') + 1;
      len -= (int)(t - want) + 1;
      if (last[r].text_len != len || memcmp(last[r].text, t, (size_t)len) != 0)
        fail_msg("rank %d action %d: text '%.*s', expected '%.*s'", r, i, last[r].text_len,
                 last[r].text, len, t);
      if (i > 0) assert_int_equal((long)last[r].amount, r * 1000L + i);
    }
  }
  for (int r = 0; r < n; r++) assert_int_equal(tit_next(s, r, &last[0], &err), 0);
  free(last);
}

static void test_many_plain_files(void **state) {
  (void)state;
  char **paths = xcalloc(NFILES, sizeof *paths);
  char name[64], text[512];
  for (int r = 0; r < NFILES; r++) {
    size_t len = 0;
    for (int i = 0; i < NLINES; i++) len += (size_t)line_of(text + len, sizeof text - len, r, i);
    snprintf(name, sizeof name, "rank%d.txt", r);
    paths[r] = tt_write(g_dir, name, text, (long)len);
  }
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open((const char *const *)paths, NFILES, 0, &err);
  if (!s) fail_msg("%s", err.msg);
  assert_int_equal(tit_nranks(s), NFILES);
  read_round_robin(s, NFILES);
  tit_close(s);
  /* the same through a list file */
  char *list = tt_path(g_dir, "list");
  FILE *f = fopen(list, "w");
  for (int r = 0; r < NFILES; r++) fprintf(f, "rank%d.txt\n", r);
  fclose(f);
  s = tt_open1(g_dir, 0);
  read_round_robin(s, NFILES);
  tit_close(s);
  free(list);
  for (int r = 0; r < NFILES; r++) free(paths[r]);
  free(paths);
}

static void test_many_compressed_files(void **state) {
  (void)state;
  const int n = 400; /* more than the open-file LRU allows at once */
  char **paths = xcalloc((size_t)n, sizeof *paths);
  char name[64], text[512], z[1024];
  for (int r = 0; r < n; r++) {
    size_t len = 0;
    for (int i = 0; i < NLINES; i++) len += (size_t)line_of(text + len, sizeof text - len, r, i);
    size_t zl = ZSTD_compress(z, sizeof z, text, len, 1);
    assert_false(ZSTD_isError(zl));
    snprintf(name, sizeof name, "rank%d.zst", r);
    paths[r] = tt_write(g_dir, name, z, (long)zl);
  }
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open((const char *const *)paths, n, 0, &err);
  if (!s) fail_msg("%s", err.msg);
  read_round_robin(s, n);
  tit_close(s);
  for (int r = 0; r < n; r++) free(paths[r]);
  free(paths);
}

static void test_many_ranks_shared(void **state) {
  (void)state;
  /* interleaved: line i of every rank, then line i+1 ... */
  size_t cap = (size_t)NFILES * NLINES * 40, len = 0;
  char *buf = xmalloc(cap);
  for (int i = 0; i < NLINES; i++)
    for (int r = 0; r < NFILES; r++) len += (size_t)line_of(buf + len, cap - len, r, i);
  char *p = tt_write(g_dir, "shared.txt", buf, (long)len);
  tit_source *s = tt_open1(p, 0);
  assert_int_equal(tit_nranks(s), NFILES);
  read_round_robin(s, NFILES);
  tit_close(s);
  /* grouped by rank */
  len = 0;
  for (int r = 0; r < NFILES; r++)
    for (int i = 0; i < NLINES; i++) len += (size_t)line_of(buf + len, cap - len, r, i);
  free(p);
  p = tt_write(g_dir, "grouped.txt", buf, (long)len);
  s = tt_open1(p, NFILES);
  read_round_robin(s, NFILES);
  tit_close(s);
  free(p);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_many_plain_files),
      cmocka_unit_test(test_many_compressed_files),
      cmocka_unit_test(test_many_ranks_shared),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
