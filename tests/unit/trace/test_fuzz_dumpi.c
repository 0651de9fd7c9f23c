/* The DUMPI reader (src/trace/trace_dumpi.c) through its fuzz harness: the seed corpus
 * (tests/fuzz/corpus/dumpi/: rank 0 of SST/macro's testbgp trace and its first 700 bytes),
 * every truncation of that rank file at a step of 61 bytes, and 300 single-byte corruptions
 * (fixed seed). The harness aborts on an error without a code or on converted TIT that does
 * not parse; this test also checks what a cut file says and what the whole file converts to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/fuzz_dumpi.c"
#include "unit/fuzz_corpus.h"

static uint8_t *load(size_t *n) {
  char p[1024];
  const char *src = getenv("PSIM_SRC");
  snprintf(p, sizeof p, "%s/tests/fuzz/corpus/dumpi/testbgp-0000.bin", src && *src ? src : ".");
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  uint8_t *b = malloc(1 << 16);
  *n = fread(b, 1, 1 << 16, f);
  fclose(f);
  assert_int_equal(*n, 13819);
  return b;
}

static tit_source *open_meta(psim_err *err) {
  char meta[300];
  snprintf(meta, sizeof meta, "%s/t.meta", g_ddir);
  const char *p[1] = {meta};
  psim_err_clear(err);
  return tit_open(p, 1, 0, err);
}

static void test_corpus(void **state) {
  (void)state;
  assert_true(fuzz_corpus_run("dumpi") >= 2);
}

static void test_truncated_and_flipped(void **state) {
  (void)state;
  size_t n;
  uint8_t *b = load(&n);
  for (size_t k = 0; k < n; k += 61) {
    fuzz_dumpi(b, k);
    psim_err err;
    tit_source *s = open_meta(&err);
    assert_null(s);   /* a cut file lacks its index: always an error naming the rank file */
    assert_int_equal(err.code, PSIM_EXIT_INPUT);
    assert_non_null(strstr(err.file, "t-0000.bin"));
  }
  unsigned seed = 12345;
  for (int i = 0; i < 300; i++) {
    uint8_t *c = malloc(n);
    memcpy(c, b, n);
    seed = seed * 1103515245u + 12345u;
    size_t at = (seed >> 8) % n;
    c[at] ^= (uint8_t)(1u << ((seed >> 4) & 7));
    fuzz_dumpi(c, n);
    free(c);
  }
  free(b);
}

/* Rank 0 alone: its 84 Isends and Irecvs name ranks 1..6 of a 7-rank communicator, which a
 * one-rank trace does not have, so they are not replayed; its 7 Alltoalls and 3 Barriers are
 * on communicators of 7 ranks in the file, which is not MPI_COMM_WORLD (1 rank) here: also not
 * replayed. What remains is init, compute between the calls, finalize. */
static void test_whole_rank(void **state) {
  (void)state;
  size_t n;
  uint8_t *b = load(&n);
  fuzz_dumpi(b, n);
  psim_err err;
  tit_source *s = open_meta(&err);
  assert_non_null(s);
  assert_string_equal(tit_format(s), "DUMPI");
  assert_int_equal(tit_nranks(s), 1);
  tit_action a;
  int sends = 0, computes = 0;
  while (tit_next(s, 0, &a, &err) == 1) {
    sends += a.kind == TIT_ISEND || a.kind == TIT_IRECV;
    computes += a.kind == TIT_COMPUTE;
  }
  assert_int_equal(sends, 0);
  assert_true(computes > 100);
  tit_close(s);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus),
      cmocka_unit_test(test_truncated_and_flipped),
      cmocka_unit_test(test_whole_rank),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
