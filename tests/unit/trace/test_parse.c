/* Trace reader: every action, its arguments, datatypes and byte sizes, lexical rules, error
 * messages, and SimGrid's own case traces. */
#include "tit_test_util.h"

#include <math.h>

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

/* Parses text as a shared trace of nranks ranks and returns rank r's k-th action (0-based). */
static tit_action nth(const char *text, int nranks, int r, int k) {
  char *p = tt_write(g_dir, "t.txt", text, -1);
  tit_source *s = tt_open1(p, nranks);
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  for (int i = 0; i <= k; i++) {
    int rc = tit_next(s, r, &a, &err);
    if (rc != 1) fail_msg("'%s': action %d of rank %d: rc %d %s:%ld: %s", text, i, r, rc, err.file,
                          err.line, err.msg);
  }
  /* The pointers die with the source: keep only the fields. */
  a.text = NULL;
  a.file = NULL;
  a.counts = a.counts2 = NULL;
  tit_close(s);
  free(p);
  return a;
}

/* The first error met while opening and draining text: its line and message must match. */
static void expect_error(const char *text, int nranks, long line, const char *msg) {
  char *p = tt_write(g_dir, "e.txt", text, -1);
  psim_err err;
  psim_err_clear(&err);
  const char *cp = p;
  tit_source *s = tit_open(&cp, 1, nranks, &err);
  if (s) {
    tit_action a;
    int bad = 0;
    for (int r = 0; r < tit_nranks(s) && !bad; r++) {
      int rc;
      while ((rc = tit_next(s, r, &a, &err)) == 1) {}
      bad = rc < 0;
    }
    tit_close(s);
    if (!bad) fail_msg("'%s': no error, expected line %ld: %s", text, line, msg);
  }
  assert_int_equal(err.code, PSIM_EXIT_INPUT);
  if (err.line != line || !strstr(err.msg, msg))
    fail_msg("'%s': got %s:%ld: %s; expected line %ld: ...%s...", text, err.file, err.line,
             err.msg, line, msg);
  assert_string_equal(err.file, p);
  free(p);
}

#define BYTES(a) ((long)(a).bytes)
#define BYTES2(a) ((long)(a).bytes2)

static void test_p2p(void **state) {
  (void)state;
  tit_action a = nth("0 send 1 42 1 1\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_SEND);
  assert_int_equal(a.peer, 1);
  assert_int_equal(a.tag, 42);
  assert_int_equal(BYTES(a), 4); /* 1 MPI_INT */
  a = nth("0 init 1\n0 send 1 0 10\n", 2, 0, 1);
  assert_int_equal(BYTES(a), 80); /* init x: MPI_DOUBLE */
  a = nth("0 init\n0 send 1 0 10\n", 2, 0, 1);
  assert_int_equal(BYTES(a), 10); /* bare init: MPI_BYTE */
  a = nth("0 send 1 0 10\n", 2, 0, 0);
  assert_int_equal(BYTES(a), 10); /* no init: MPI_BYTE */
  a = nth("0 isend 1 7 1e6\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_ISEND);
  assert_int_equal(BYTES(a), 1000000);
  a = nth("0 send 1 0 2.9 3\n", 2, 0, 0); /* counts truncated, then x sizeof(short) */
  assert_int_equal(BYTES(a), 4);
  a = nth("1 recv 0 3 -1\n", 2, 1, 0);
  assert_int_equal(a.kind, TIT_RECV);
  assert_int_equal(a.peer, 0);
  assert_int_equal(a.tag, 3);
  assert_int_equal(BYTES(a), -1);
  a = nth("1 irecv 0 3 5 0\n", 2, 1, 0);
  assert_int_equal(a.kind, TIT_IRECV);
  assert_int_equal(BYTES(a), 40);
  a = nth("0 init 1\n0 irecv 1 2 -5 1\n", 2, 0, 1);
  assert_int_equal(BYTES(a), -1);
  a = nth("0 sendRecv 10 1 20 1\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_SENDRECV);
  assert_int_equal(a.peer, 1);
  assert_int_equal(a.peer2, 1);
  assert_int_equal(BYTES(a), 10);
  assert_int_equal(BYTES2(a), 20);
  a = nth("0 sendRecv 10 1 20 0 1 0\n", 2, 0, 0);
  assert_int_equal(a.peer2, 0);
  assert_int_equal(BYTES(a), 40);
  assert_int_equal(BYTES2(a), 160);
  a = nth("0 wait 1 0 5\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_WAIT);
  assert_int_equal(a.peer, 1);
  assert_int_equal(a.peer2, 0);
  assert_int_equal(a.tag, 5);
  a = nth("0 test 0 1 2\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_TEST);
  assert_int_equal(a.peer2, 1);
  a = nth("0 waitall\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_WAITALL);
  a = nth("0 waitall 3\n", 2, 0, 0);
  assert_int_equal(a.kind, TIT_WAITALL);
}

static void test_collectives(void **state) {
  (void)state;
  tit_action a = nth("0 barrier\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_BARRIER);
  a = nth("0 bcast 5e4\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_BCAST);
  assert_int_equal(BYTES(a), 50000);
  assert_int_equal(a.root, 0);
  a = nth("0 bcast 5e4 2\n", 3, 0, 0);
  assert_int_equal(a.root, 2);
  a = nth("0 init 1\n0 bcast 5e4 1 0\n", 3, 0, 1);
  assert_int_equal(a.root, 1);
  assert_int_equal(BYTES(a), 400000);
  a = nth("0 bcast 5e4 0 3\n", 3, 0, 0);
  assert_int_equal(BYTES(a), 100000);
  a = nth("0 reduce 10 5e8\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_REDUCE);
  assert_int_equal(BYTES(a), 10);
  assert_true(a.amount == 5e8);
  a = nth("0 reduce 10 5e8 2 4\n", 3, 0, 0);
  assert_int_equal(a.root, 2);
  assert_int_equal(BYTES(a), 80);
  a = nth("0 allreduce 5e4 5e8\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_ALLREDUCE);
  assert_int_equal(BYTES(a), 50000);
  assert_true(a.amount == 5e8);
  a = nth("0 allreduce 5 1 1\n", 3, 0, 0);
  assert_int_equal(BYTES(a), 20);
  a = nth("0 scan 5 1\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_SCAN);
  assert_int_equal(BYTES(a), 5);
  a = nth("0 exscan 5 1 0\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_EXSCAN);
  assert_int_equal(BYTES(a), 40);
  a = nth("0 alltoall 500 400\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_ALLTOALL);
  assert_int_equal(BYTES(a), 500);
  assert_int_equal(BYTES2(a), 400);
  a = nth("0 alltoall 500 400 1 0\n", 3, 0, 0);
  assert_int_equal(BYTES(a), 2000);
  assert_int_equal(BYTES2(a), 3200);
  a = nth("0 allgather 3 4 1\n", 3, 0, 0);
  assert_int_equal(a.kind, TIT_ALLGATHER);
  assert_int_equal(BYTES(a), 12);
  assert_int_equal(BYTES2(a), 4);
  a = nth("0 gather 68 68 0 0 0\n", 4, 0, 0);
  assert_int_equal(a.kind, TIT_GATHER);
  assert_int_equal(BYTES(a), 544);
  assert_int_equal(BYTES2(a), 544);
  a = nth("0 gather 68 68 3\n", 4, 0, 0);
  assert_int_equal(a.root, 3);
  assert_int_equal(BYTES(a), 68);
  a = nth("0 scatter 2 3 1 1 3\n", 4, 0, 0);
  assert_int_equal(a.kind, TIT_SCATTER);
  assert_int_equal(a.root, 1);
  assert_int_equal(BYTES(a), 8);
  assert_int_equal(BYTES2(a), 6);
}

static void test_vcollectives(void **state) {
  (void)state;
  char *p = tt_write(g_dir, "v.txt",
                     "0 alltoallv 100 1 40 30 1000 1 80 100\n"
                     "0 alltoallv 100 1 40 30 1000 1 80 100 1 3\n"
                     "0 gatherv 5 1 2 3 2 1 0\n"
                     "0 gatherv 5 1 2 3\n"
                     "0 allgatherv 5 1 2 3\n"
                     "0 allgatherv 5 1 2 3 1 0\n"
                     "0 allgatherv 5 1 2 3 0 0 0\n" /* displacements only */
                     "0 scatterv 1 2 3 4 1 1 0\n"
                     "0 reducescatter 1 2 3 7e6\n"
                     "0 reducescatter 1 2 3 7e6 1\n"
                     "0 compute 1\n",
                     -1);
  tit_source *s = tt_open1(p, 3);
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_ALLTOALLV);
  assert_int_equal(a.ncounts, 3);
  assert_non_null(a.counts);
  assert_non_null(a.counts2);
  assert_int_equal((long)a.counts[1], 40);
  assert_int_equal((long)a.counts2[2], 100);
  assert_int_equal(BYTES(a), 100);
  assert_int_equal(BYTES2(a), 1000);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal((long)a.counts[1], 160);  /* int */
  assert_int_equal((long)a.counts2[2], 200); /* short */
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_GATHERV);
  assert_int_equal(a.root, 2);
  assert_int_equal(BYTES(a), 20);
  assert_int_equal((long)a.counts2[0], 8);
  assert_int_equal((long)a.counts2[2], 24);
  assert_null(a.counts);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.root, 0);
  assert_int_equal((long)a.counts2[2], 3);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_ALLGATHERV);
  assert_int_equal(BYTES(a), 5);
  assert_int_equal((long)a.counts2[1], 2);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  /* SimGrid uses the first code for both sides */
  assert_int_equal(BYTES(a), 20);
  assert_int_equal((long)a.counts2[1], 8);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(BYTES(a), 5);
  assert_int_equal((long)a.counts2[1], 2);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_SCATTERV);
  assert_int_equal((long)a.counts[0], 4);
  assert_int_equal((long)a.counts[2], 12);
  assert_int_equal(BYTES2(a), 32);
  assert_int_equal(a.root, 1);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_REDUCESCATTER);
  assert_int_equal((long)a.counts2[2], 3);
  assert_true(a.amount == 7e6);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal((long)a.counts2[2], 12);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_COMPUTE);
  assert_null(a.counts2);
  assert_int_equal(a.ncounts, 0);
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  tit_close(s);
  free(p);
}

static void test_misc_actions(void **state) {
  (void)state;
  tit_action a = nth("0 compute 1e9\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_COMPUTE);
  assert_true(a.amount == 1e9);
  a = nth("0 compute 12.5\n", 1, 0, 0);
  assert_true(a.amount == 12.5); /* flops are not truncated */
  a = nth("0 sleep 0.25\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_SLEEP);
  assert_true(a.amount == 0.25);
  a = nth("0 migrate\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_MIGRATE);
  assert_int_equal(BYTES(a), -1);
  a = nth("0 migrate 1e9\n", 1, 0, 0);
  assert_int_equal(BYTES(a), 1000000000);
  a = nth("0 location foo.c 12\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_LOCATION);
  a = nth("0 finalize\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_FINALIZE);
  a = nth("0 comm_size 32\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_NOOP);
  a = nth("0 comm_split\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_NOOP);
  a = nth("0 comm_dup x y\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_NOOP);
  a = nth("0 init\n", 1, 0, 0);
  assert_int_equal(a.kind, TIT_INIT);
  assert_string_equal(tit_kind_name(TIT_SENDRECV), "sendRecv");
  assert_string_equal(tit_kind_name(TIT_REDUCESCATTER), "reducescatter");
  assert_int_equal(tit_datatype_size(0), 8);
  assert_int_equal(tit_datatype_size(1), 4);
  assert_int_equal(tit_datatype_size(6), 1);
  assert_int_equal(tit_datatype_size(59), 8);
  assert_int_equal(tit_datatype_size(60), -1);
  assert_int_equal(tit_datatype_size(-1), -1);
}

static void test_lexical(void **state) {
  (void)state;
  /* comments, blank lines, tabs and runs of blanks, CRLF, no final newline */
  char *p = tt_write(g_dir, "lex.txt",
                     "# version: 1.0\r\n"
                     "\r\n"
                     "   \t\n"
                     "  0\t init \r\n"
                     "1 init\n"
                     "0   send\t\t1   7  \t 3 1  \r\n"
                     "#0 compute 5\n"
                     "1 recv 0 7 3 1\n"
                     "0 compute 5",
                     -1);
  tit_source *s = tt_open1(p, 0);
  assert_int_equal(tit_nranks(s), 2);
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_INIT);
  assert_int_equal(a.line, 4);
  assert_string_equal(a.file, p);
  assert_int_equal(a.text_len, 4);
  assert_memory_equal(a.text, "init", 4);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_SEND);
  assert_int_equal(a.line, 6);
  assert_int_equal(BYTES(a), 12);
  assert_int_equal(a.text_len, (int)strlen("send\t\t1   7  \t 3 1"));
  assert_memory_equal(a.text, "send\t\t1   7  \t 3 1", a.text_len);
  assert_int_equal(tit_next(s, 0, &a, &err), 1);
  assert_int_equal(a.kind, TIT_COMPUTE); /* the last line, without a newline */
  assert_int_equal(a.line, 9);
  assert_true(a.amount == 5);
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  assert_int_equal(tit_next(s, 0, &a, &err), 0);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(tit_next(s, 1, &a, &err), 1);
  assert_int_equal(a.kind, TIT_RECV);
  assert_int_equal(a.line, 8);
  assert_int_equal(tit_next(s, 1, &a, &err), 0);
  assert_int_equal(err.code, 0);
  tit_close(s);
  free(p);
  /* a file of only a last line without newline, and CR only */
  tit_action b = nth("0 compute 7", 1, 0, 0);
  assert_true(b.amount == 7);
  b = nth("0 compute 8\r", 1, 0, 0);
  assert_true(b.amount == 8);
}

static void test_interleaved(void **state) {
  (void)state;
  /* Many ranks interleaved line by line, with other ranks' long lines between: runs. */
  size_t cap = 1 << 20, len = 0;
  char *buf = xmalloc(cap);
  const int R = 7, L = 300;
  for (int i = 0; i < L; i++)
    for (int r = 0; r < R; r++) {
      len += (size_t)snprintf(buf + len, cap - len, "%d compute %d\n", r, i);
      if (r == 3 && i % 17 == 0) {
        memset(buf + len, '#', 700); /* a long comment splits the runs */
        len += 700;
        buf[len++] = '\n';
      }
    }
  char *p = tt_write(g_dir, "inter.txt", buf, (long)len);
  free(buf);
  tit_source *s = tt_open1(p, 0);
  assert_int_equal(tit_nranks(s), R);
  tit_action a;
  psim_err err;
  psim_err_clear(&err);
  /* read in a scrambled rank order */
  int next[7] = {0};
  for (int step = 0; step < R * L; step++) {
    int r = (step * 3) % R;
    if (next[r] == L) r = 0;
    while (next[r] == L) r++;
    assert_int_equal(tit_next(s, r, &a, &err), 1);
    assert_int_equal((long)a.amount, next[r]);
    next[r]++;
  }
  for (int r = 0; r < R; r++) assert_int_equal(tit_next(s, r, &a, &err), 0);
  tit_close(s);
  free(p);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("0 init\n0 frobnicate 3\n", 1, 2, "action frobnicate is unknown; expected one of init");
  expect_error("0 init\n0 Send 1 0 1\n", 2, 2, "action Send is unknown");
  expect_error("0 sendrecv 1 1 1 1\n", 2, 1, "action sendrecv is unknown");
  expect_error("0 allReduce 1 1\n", 2, 1, "action allReduce is unknown");
  expect_error("0 send 1 0\n", 2, 1, "send: missing argument count; usage: <rank> send dst tag count [dt]");
  expect_error("\n0 send\n", 2, 2, "missing argument dst");
  expect_error("0 recv 1\n", 2, 1, "missing argument tag");
  expect_error("0 compute\n", 1, 1, "compute: missing argument flops");
  expect_error("0 compute abc\n", 1, 1, "argument flops: expected a non-negative number, got 'abc'");
  expect_error("0 compute 1e9x\n", 1, 1, "got '1e9x'");
  expect_error("0 compute -5\n", 1, 1, "expected a non-negative number, got '-5'");
  expect_error("0 compute nan\n", 1, 1, "got 'nan'");
  expect_error("0 compute inf\n", 1, 1, "got 'inf'");
  expect_error("0 sleep\n", 1, 1, "missing argument seconds");
  expect_error("0 send 2 0 1\n", 2, 1, "argument dst: rank 2 out of range, expected 0..1");
  expect_error("0 send -1 0 1\n", 2, 1, "argument dst: rank -1 out of range");
  expect_error("0 recv 5 0 1\n", 2, 1, "argument src: rank 5 out of range");
  expect_error("0 send x 0 1\n", 2, 1, "argument dst: expected an integer, got 'x'");
  expect_error("0 send 1 t 1\n", 2, 1, "argument tag: expected an integer, got 't'");
  expect_error("0 bcast 1 3\n", 3, 1, "argument root: rank 3 out of range");
  expect_error("0 reduce 1 1 -1\n", 3, 1, "argument root: rank -1 out of range");
  expect_error("0 gatherv 1 1 1 1 9\n", 3, 1, "argument root: rank 9 out of range");
  expect_error("0 send 1 0 1 60\n", 2, 1, "argument dt: unknown datatype code '60', expected 0..59");
  expect_error("0 send 1 0 1 -1\n", 2, 1, "unknown datatype code '-1'");
  expect_error("0 send 1 0 1 1.5\n", 2, 1, "unknown datatype code '1.5'");
  expect_error("0 alltoall 1 1 0 x\n", 2, 1, "argument rdt: unknown datatype code 'x'");
  expect_error("0 sendRecv 1 1 1\n", 2, 1, "sendRecv: missing argument src; usage: <rank> sendRecv sendcount dst recvcount src [sdt rdt]");
  expect_error("0 alltoallv 10 1 2 10 1\n", 2, 1, "missing argument rc_1 (2 values expected, one per rank)");
  expect_error("0 alltoallv 10 1 2 10 1 -2\n", 2, 1, "argument rc_1: expected a non-negative number, got '-2'");
  expect_error("0 reducescatter 1 2\n", 2, 1, "missing argument flops");
  expect_error("0 scatterv 1\n", 2, 1, "missing argument sc_1");
  expect_error("0 wait 1 0\n", 2, 1, "wait: missing argument tag; usage: <rank> wait src dst tag");
  expect_error("0 location foo.c\n", 1, 1, "location: missing argument line");
  expect_error("0 migrate -3\n", 1, 1, "argument bytes: expected a non-negative number");
  /* rank field */
  expect_error("0 init\nx init\n", 1, 2, "expected a rank number as the first field, got 'x'");
  expect_error("0 init\n0.5 init\n", 1, 2, "expected a rank number as the first field, got '0.5'");
  expect_error("0 init\n3 init\n", 2, 2, "rank 3 out of range, expected 0..1 (2 ranks)");
  expect_error("0 init\n-1 init\n", 2, 2, "rank -1 out of range");
  expect_error("0\n", 1, 1, "missing action name after the rank");
  /* an empty trace cannot tell its number of ranks */
  expect_error("# nothing\n\n", 0, 0, "no action found");
}

static const char *shared_dir(void) {
  const char *s = getenv("PSIM_SHARED");
  return s && *s ? s : "/work/shared";
}

static void test_simgrid_cases(void **state) {
  (void)state;
  static const struct { const char *file; int np; long actions; } cases[] = {
      {"traces/actions_bcast.txt", 3, 0},       {"traces/actions_barrier.txt", 3, 0},
      {"traces/actions_with_isend.txt", 3, 24}, {"traces/actions_allreduce.txt", 3, 0},
      {"traces/actions_alltoall.txt", 3, 0},    {"extra/traces/actions_allgatherv.txt", 4, 12},
      {"extra/traces/actions_alltoallv.txt", 3, 9},
      {"extra/traces/actions_bcast_reduce_datatypes.txt", 3, 21},
      {"extra/traces/actions_gather.txt", 4, 12}, {"extra/traces/actions_reducescatter.txt", 4, 12},
      {"extra/traces/actions_waitall.txt", 3, 0},
  };
  char path[1024];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(path, sizeof path, "%s/cases/simgrid/%s", shared_dir(), cases[i].file);
    tit_source *s = tt_open1(path, 0);
    assert_int_equal(tit_nranks(s), cases[i].np);
    long n = tt_drain(s);
    assert_true(n > 0);
    if (cases[i].actions) assert_int_equal(n, cases[i].actions);
    tit_close(s);
    if (!strstr(path, "v.txt") && !strstr(path, "reducescatter")) {
      s = tt_open1(path, cases[i].np + 2); /* extra ranks have no actions */
      assert_int_equal(tt_drain(s), n);
      tit_close(s);
    }
  }
  /* split case: one file per rank */
  char p0[1024], p1[1024];
  snprintf(p0, sizeof p0, "%s/cases/simgrid/traces/actions0.txt", shared_dir());
  snprintf(p1, sizeof p1, "%s/cases/simgrid/traces/actions1.txt", shared_dir());
  const char *pp[2] = {p0, p1};
  psim_err err;
  psim_err_clear(&err);
  tit_source *s = tit_open(pp, 2, 0, &err);
  assert_non_null(s);
  assert_int_equal(tit_nranks(s), 2);
  assert_int_equal(tt_drain(s), 12);
  assert_int_equal(tit_skipped_lines(s), 0);
  tit_close(s);
  /* the 32-rank list file (entries relative to the list's directory), init 1 -> doubles */
  snprintf(path, sizeof path, "%s/cases/simgrid/extra/traces/smpi_replay.txt", shared_dir());
  s = tt_open1(path, 0);
  assert_int_equal(tit_nranks(s), 32);
  tit_action a;
  long bcasts = 0;
  for (int r = 0; r < 32; r++) {
    int rc;
    while ((rc = tit_next(s, r, &a, &err)) == 1) {
      if (a.kind == TIT_BCAST && a.text_len == 7) { /* "bcast 1" */
        assert_int_equal(BYTES(a), 8);
        bcasts++;
      }
    }
    assert_int_equal(rc, 0);
  }
  assert_true(bcasts > 0);
  tit_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_p2p),          cmocka_unit_test(test_collectives),
      cmocka_unit_test(test_vcollectives), cmocka_unit_test(test_misc_actions),
      cmocka_unit_test(test_lexical),      cmocka_unit_test(test_interleaved),
      cmocka_unit_test(test_errors),       cmocka_unit_test(test_simgrid_cases),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
