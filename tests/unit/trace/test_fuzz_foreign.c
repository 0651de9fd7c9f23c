/* The foreign-format fuzzers' corpora (tests/fuzz/corpus/{prv,dim,goal}/) through their
 * harnesses, and hand-checked conversions of the corpus's small traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "fuzz/fuzz_foreign.h"

static const char *g_prefix, *g_ext;
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_foreign(g_prefix, g_ext, data, size); }

#include "unit/fuzz_corpus.h"

static void corpus(const char *name, const char *prefix, const char *ext, int min) {
  g_prefix = prefix;
  g_ext = ext;
  assert_true(fuzz_corpus_run(name) >= min);
}

static void test_corpora(void **state) {
  (void)state;
  corpus("prv", "#Paraver (01/01/2020 at 00:00):1000_ns:", ".prv", 3);
  corpus("dim", "#DIMEMAS:", ".dim", 3);
  corpus("goal", "num_ranks ", ".goal", 3);
}

/* Writes text to a file of the harness's directory and opens it. */
static tit_source *open_text(const char *name, const char *text, psim_err *err) {
  char path[400];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  const char *p[1] = {path};
  psim_err_clear(err);
  return tit_open(p, 1, 0, err);
}

/* GOAL: rank 0's ANY_SOURCE receive takes rank 1's send (tag 3); calc 2000 ns at 1e9 flop/s
 * is 2000 flops, after the wait for the receive it requires. */
static void test_goal_hand(void **state) {
  (void)state;
  psim_err err;
  tit_set_ref_speed(1e9);
  tit_source *s = open_text("h.goal", "num_ranks 2\nrank 0 {\nl1: recv 8b from -1 tag -1\nl2: calc 2000\nl2 requires l1\n}\n"
                                      "rank 1 {\nl1: send 8b to 0 tag 3\n}\n", &err);
  assert_non_null(s);
  assert_string_equal(tit_format(s), "GOAL");
  tit_action a;
  tit_kind want[] = {TIT_INIT, TIT_IRECV, TIT_WAIT, TIT_COMPUTE, TIT_FINALIZE};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(tit_next(s, 0, &a, &err), 1);
    assert_int_equal(a.kind, want[i]);
    if (a.kind == TIT_IRECV) { assert_int_equal(a.peer, 1); assert_int_equal(a.tag, 3); assert_true(a.bytes == 8); }
    if (a.kind == TIT_WAIT) { assert_int_equal(a.peer, 1); assert_int_equal(a.peer2, 0); assert_int_equal(a.tag, 3); }
    if (a.kind == TIT_COMPUTE) assert_true(fabs(a.amount - 2000) < 1e-6);
  }
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  tit_close(s);
  /* a cycle is an error naming the file and the line of an operation in it */
  s = open_text("c.goal", "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl1 requires l2\nl2 requires l1\n}\n", &err);
  assert_null(s);
  assert_int_equal(err.code, 2);
  assert_non_null(strstr(err.msg, "cycle"));
  assert_int_equal(err.line, 3);
}

/* Paraver: task 1 runs from 0 to 10 (10 ns of compute), sends 8 B to task 2 (tag 5) in
 * MPI_Send [10, 11]; task 2 waits in MPI_Recv [11, 13]: compute 11 ns before it. */
static void test_prv_hand(void **state) {
  (void)state;
  psim_err err;
  tit_set_ref_speed(1e9);
  tit_source *s = open_text("h.prv", "#Paraver (01/01/2020 at 00:00):1000_ns:1(1):1:2(1:1,1:1),1\nc:1:1:2:1:2\n"
                                     "1:1:1:1:1:0:10:1\n1:2:1:2:1:0:11:1\n2:1:1:1:1:10:50000001:1\n"
                                     "3:1:1:1:1:10:11:2:1:2:1:12:13:8:5\n2:1:1:1:1:11:50000001:0\n"
                                     "2:2:1:2:1:11:50000001:2\n2:2:1:2:1:13:50000001:0\n", &err);
  assert_non_null(s);
  tit_action a;
  assert_int_equal(tit_next(s, 0, &a, &err), 1);   /* init */
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_COMPUTE);
  assert_true(fabs(a.amount - 10) < 1e-6);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_SEND);
  assert_int_equal(a.peer, 1);
  assert_int_equal(a.tag, 5);
  assert_true(a.bytes == 8);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(a.kind, TIT_COMPUTE);
  assert_true(fabs(a.amount - 11) < 1e-6);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(a.kind, TIT_RECV);
  assert_int_equal(a.peer, 0);
  tit_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpora), cmocka_unit_test(test_goal_hand),
                                     cmocka_unit_test(test_prv_hand)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  if (g_dir[0]) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
  }
  return rc;
}
