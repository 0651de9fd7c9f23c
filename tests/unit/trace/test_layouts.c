/* Trace reader layouts: list files, directories, per-rank files, gzip and zstd, and the
 * errors about files. */
#include "tit_test_util.h"

#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

static char *g_dir;

static int setup(void **state) {
  (void)state;
  g_dir = tt_mkdtemp();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tt_rmdir(g_dir);
  return 0;
}

static char *write_gz(const char *dir, const char *name, const char *text) {
  char *p = tt_path(dir, name);
  gzFile f = gzopen(p, "wb");
  assert_non_null(f);
  assert_int_equal(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
  gzclose(f);
  return p;
}

static char *write_zst(const char *dir, const char *name, const char *text) {
  size_t n = strlen(text), cap = ZSTD_compressBound(n);
  char *buf = xmalloc(cap);
  size_t z = ZSTD_compress(buf, cap, text, n, 3);
  assert_false(ZSTD_isError(z));
  char *p = tt_write(dir, name, buf, (long)z);
  free(buf);
  return p;
}

static void expect_open_error(const char *const *paths, int n, int nranks, const char *file,
                              long line, const char *msg) {
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open(paths, n, nranks, &err);
  if (s) {
    tit_close(s);
    fail_msg("opened; expected %s", msg);
  }
  assert_int_equal(err.code, PSIM_EXIT_INPUT);
  if (!strstr(err.msg, msg) || err.line != line || (file && strcmp(err.file, file) != 0))
    fail_msg("got %s:%ld: %s; expected %s:%ld: ...%s...", err.file, err.line, err.msg,
             file ? file : "?", line, msg);
}

static const char *RANK0 = "0 init\n0 send 1 0 5\n0 compute 10\n0 finalize\n";
static const char *RANK1 = "1 init\n1 recv 0 0 5\n1 finalize\n";

/* The two-rank trace above, read back. */
static void check_two(tit_source *s) {
  assert_int_equal(tit_nranks(s), 2);
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_SEND);
  assert_int_equal((long)a.bytes, 5);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(a.kind, TIT_RECV);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_FINALIZE);
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 1, &a, &err), 0);
  assert_int_equal(err.code, 0);
}

static void test_per_rank_files(void **state) {
  (void)state;
  char *f0 = tt_write(g_dir, "r0.txt", RANK0, -1);
  char *f1 = tt_write(g_dir, "r1.txt", RANK1, -1);
  const char *pp[2] = {f0, f1};
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open(pp, 2, 0, &err);
  assert_non_null(s);
  check_two(s);
  tit_close(s);
  s = tit_open(pp, 2, 2, &err);
  assert_non_null(s);
  check_two(s);
  tit_close(s);
  expect_open_error(pp, 2, 3, "", 0, "2 trace files for 3 ranks");
  /* another rank's line is skipped and counted; a bad rank field is an error */
  char *g0 = tt_write(g_dir, "g0.txt", "0 init\n1 compute 5\n0 compute 6\n", -1);
  char *g1 = tt_write(g_dir, "g1.txt", "1 init\nzz compute 5\n", -1);
  const char *gg[2] = {g0, g1};
  s = tit_open(gg, 2, 0, &err);
  assert_non_null(s);
  tit_action a;
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal((long)a.amount, 6);
  assert_int_equal(a.line, 3);
  assert_int_equal(tit_skipped_lines(s), 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 1, &a, &err), -1);
  assert_int_equal(err.line, 2);
  assert_string_equal(err.file, g1);
  assert_non_null(strstr(err.msg, "expected a rank number as the first field, got 'zz'"));
  tit_close(s);
  char *h1 = tt_write(g_dir, "h1.txt", "1 init\n7 compute 5\n", -1);
  const char *hh[2] = {g0, h1};
  psim_err_clear(&err);
  s = tit_open(hh, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 1, &a, &err), -1);
  assert_int_equal(err.line, 2);
  assert_non_null(strstr(err.msg, "rank 7 out of range"));
  tit_close(s);
  /* missing per-rank file */
  char *missing = tt_path(g_dir, "nope.txt");
  const char *mm[2] = {f0, missing};
  expect_open_error(mm, 2, 0, missing, 0, "cannot read the trace file of rank 1");
  /* files out of order: the first action of a per-rank file belongs to another rank */
  const char *sw[2] = {f1, f0};
  psim_err_clear(&err);
  s = tit_open(sw, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tit_ranks_present(s, NULL), 2);
  assert_int_equal(tit_next(s, 0, &a, &err), -1);
  assert_string_equal(err.file, f1);
  assert_int_equal(err.line, 1);
  assert_non_null(strstr(err.msg, "holds the lines of rank 1, but was given for rank 0"));
  assert_non_null(strstr(err.msg, "this one in position 2"));
  tit_close(s);
  /* a per-rank file without any action (comments only) */
  char *e1 = tt_write(g_dir, "e1.txt", "# nothing\n\n", -1);
  const char *ee[2] = {f0, e1};
  psim_err_clear(&err);
  s = tit_open(ee, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tit_next(s, 1, &a, &err), -1);
  assert_string_equal(err.file, e1);
  assert_non_null(strstr(err.msg, "no action in the trace file of rank 1"));
  tit_close(s);
  free(e1);
  free(missing);
  free(f0);
  free(f1);
  free(g0);
  free(g1);
  free(h1);
}

/* A shared file opened for more ranks than it holds, or with a gap: those ranks are counted. */
static void test_ranks_present(void **state) {
  (void)state;
  char *f = tt_write(g_dir, "gap.txt", "0 init\n2 init\n0 compute 1\n", -1);
  int missing = 7;
  tit_source *s = tt_open1(f, 0);
  assert_int_equal(tit_nranks(s), 3);
  assert_int_equal(tit_ranks_present(s, &missing), 2);
  assert_int_equal(missing, 1);
  tit_close(s);
  s = tt_open1(f, 5);
  assert_int_equal(tit_ranks_present(s, &missing), 2);
  assert_int_equal(missing, 1);
  tit_close(s);
  char *g = tt_write(g_dir, "full.txt", "0 init\n1 init\n", -1);
  s = tt_open1(g, 0);
  assert_int_equal(tit_ranks_present(s, &missing), 2);
  assert_int_equal(missing, -1);
  tit_close(s);
  s = tt_open1(g, 4);
  assert_int_equal(tit_ranks_present(s, &missing), 2);
  assert_int_equal(missing, 2);
  tit_close(s);
  free(f);
  free(g);
}

static void test_list_files(void **state) {
  (void)state;
  char *sub = tt_path(g_dir, "sub");
  assert_int_equal(mkdir(sub, 0755), 0);
  free(tt_write(sub, "a0.txt", RANK0, -1));
  free(tt_write(sub, "a1.txt", RANK1, -1));
  /* relative to the list's directory, blank lines and CRLF ignored */
  char *list = tt_write(sub, "trace.list", "a0.txt\r\n\n  a1.txt  \n", -1);
  tit_source *s = tt_open1(list, 0);
  check_two(s);
  tit_close(s);
  /* a directory with a single *.list file */
  s = tt_open1(sub, 0);
  check_two(s);
  tit_close(s);
  /* a directory with `list` (psim gen), absolute paths allowed */
  char *abs0 = tt_path(sub, "a0.txt");
  char text[2048];
  snprintf(text, sizeof text, "%s\na1.txt\n", abs0);
  free(tt_write(sub, "list", text, -1));
  s = tt_open1(sub, 2);
  check_two(s);
  tit_close(s);
  /* a one-line list names a shared file */
  char *shared = tt_write(sub, "shared.txt", "0 init\n1 init\n0 send 1 0 5\n1 recv 0 0 5\n0 compute 1\n0 finalize\n1 finalize\n", -1);
  char *l1 = tt_write(g_dir, "one.list", "sub/shared.txt\n", -1);
  s = tt_open1(l1, 0);
  check_two(s);
  tit_close(s);
  /* relative to the current directory, as SimGrid opens them */
  char cwd[1024];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(g_dir), 0);
  char *l2 = tt_write(sub, "cwd.list", "sub/a0.txt\nsub/a1.txt\n", -1);
  s = tt_open1(l2, 0);
  check_two(s);
  tit_close(s);
  assert_int_equal(chdir(cwd), 0);
  /* bad entry: names the list file and line */
  char *bad = tt_write(sub, "bad.list", "a0.txt\n\nmissing.txt\n", -1);
  const char *pb = bad;
  expect_open_error(&pb, 1, 0, bad, 3, "trace file 'missing.txt' listed here cannot be read");
  /* directory without list / with two */
  char *empty = tt_path(g_dir, "emptydir");
  assert_int_equal(mkdir(empty, 0755), 0);
  const char *pe = empty;
  expect_open_error(&pe, 1, 0, empty, 0, "directory holds no list file");
  free(tt_write(empty, "x.list", "a\n", -1));
  free(tt_write(empty, "y.list", "b\n", -1));
  expect_open_error(&pe, 1, 0, empty, 0, "several *.list files");
  /* missing file */
  char *nope = tt_path(g_dir, "nope");
  const char *pn = nope;
  expect_open_error(&pn, 1, 0, nope, 0, "cannot open trace: No such file");
  expect_open_error(NULL, 0, 0, "", 0, "no trace file given");
  free(nope);
  free(empty);
  free(bad);
  free(l1);
  free(l2);
  free(shared);
  free(abs0);
  free(list);
  free(sub);
}

static void test_compressed(void **state) {
  (void)state;
  const char *shared = "0 init\n1 init\n0 send 1 0 5\n1 recv 0 0 5\n0 compute 1\n0 finalize\n1 finalize";
  char *gz = write_gz(g_dir, "s.gz", shared);
  tit_source *s = tt_open1(gz, 0);
  check_two(s);
  tit_close(s);
  char *zs = write_zst(g_dir, "s.zst", shared);
  s = tt_open1(zs, 0);
  check_two(s);
  tit_close(s);
  /* per-rank, mixed plain / gzip / zstd, and a list of compressed files */
  char *z0 = write_zst(g_dir, "r0.zst", RANK0);
  char *g1 = write_gz(g_dir, "r1.gz", RANK1);
  const char *pp[2] = {z0, g1};
  psim_err err;
  psim_err_clear(&err);
  s = tit_open(pp, 2, 0, &err);
  assert_non_null(s);
  check_two(s);
  tit_close(s);
  char *list = tt_write(g_dir, "c.list", "r0.zst\nr1.gz\n", -1);
  s = tt_open1(list, 0);
  check_two(s);
  tit_close(s);
  /* concatenated gzip members, and a large compressed file (several buffers) */
  size_t cap = 4 << 20, len = 0;
  char *big = xmalloc(cap);
  for (int i = 0; len + 64 < cap; i++) len += (size_t)snprintf(big + len, cap - len, "0 compute %d\n", i);
  char *bg = write_gz(g_dir, "big.gz", big);
  char *bz = write_zst(g_dir, "big.zst", big);
  long expect = 0;
  for (size_t i = 0; i < len; i++) expect += big[i] == '\n';
  s = tt_open1(bg, 1);
  assert_int_equal(tt_drain(s), expect);
  tit_close(s);
  s = tt_open1(bz, 1);
  assert_int_equal(tt_drain(s), expect);
  tit_close(s);
  const char *pz[2] = {bz, bg};
  char *b1 = tt_write(g_dir, "b1.txt", "1 init\n", -1);
  (void)pz;
  const char *pbig[2] = {bz, b1};
  s = tit_open(pbig, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tt_drain(s), expect + 1);
  tit_close(s);
  free(big);
  FILE *f = fopen(gz, "ab"); /* append a second member */
  gzFile g = gzdopen(fileno(f), "ab");
  gzwrite(g, "\n0 compute 99\n", 14);
  gzclose(g);
  s = tt_open1(gz, 0);
  tit_action a;
  long n = 0;
  while (tit_next(s, 0, &a, &err) == 1) n++;
  assert_int_equal(n, 5);
  assert_int_equal((long)a.amount, 99);
  tit_close(s);
  /* truncated / corrupt data */
  struct stat sb;
  assert_int_equal(stat(bz, &sb), 0);
  assert_int_equal(truncate(bz, sb.st_size / 2), 0);
  const char *pt = bz;
  expect_open_error(&pt, 1, 1, bz, 0, "truncated zstd data");
  assert_int_equal(stat(bg, &sb), 0);
  assert_int_equal(truncate(bg, sb.st_size / 2), 0);
  pt = bg;
  expect_open_error(&pt, 1, 1, bg, 0, "truncated gzip data");
  char junk[64] = {0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x', 'y', 'z'};
  char *jg = tt_write(g_dir, "junk.gz", junk, sizeof junk);
  pt = jg;
  expect_open_error(&pt, 1, 1, jg, 0, "corrupt gzip data");
  /* per-rank truncated file: error at tit_next, naming the file */
  const char *pj[2] = {jg, b1};
  s = tit_open(pj, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tit_next(s, 0, &a, &err), -1);
  assert_string_equal(err.file, jg);
  assert_non_null(strstr(err.msg, "corrupt gzip data"));
  tit_close(s);
  free(jg);
  free(b1);
  free(bg);
  free(bz);
  free(list);
  free(z0);
  free(g1);
  free(gz);
  free(zs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_per_rank_files),
      cmocka_unit_test(test_ranks_present),
      cmocka_unit_test(test_list_files),
      cmocka_unit_test(test_compressed),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
