/* Matching queues (src/mpi/match.c, through mpi_isend, mpi_irecv, mpi_iprobe, mpi_cancel_recv)
 * and the requests' slab (psim_slab_init_owned).
 *
 * A bucket of the matching hash is a circular list through mpi_req.next whose key is read
 * from its requests (issue 38, part 3): these cases check MPI's order among receives of one
 * key, a cancel at the head, middle and tail of a bucket, wildcards against exact receives,
 * an eager message that arrives while others of its key wait unmatched (its queue link and
 * its peer share their bytes), contexts that differ only above their low 16 bits (the
 * buckets' keys held the context in 16 bits before: such sends matched the other context's
 * receives), and enough requests for several slab chunks (a request finds its world from its
 * address); a rank's lists in posting order (one pointer each: the oldest's oprev is the
 * newest) after removals at their head, middle and end, and wildcard receives, whose lists
 * exist only once one is posted; under the constant model, the requests' 88-byte layout
 * (order links shared with the transfer's start date and a receive's smpi/or; no owner; the
 * posting order in the flags' word, compared modulo 2^MPI_SEQ_BITS) and a message's end as a
 * kernel mark. */
#include <math.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "psim/mpi_layer.h"
#include "psim/platform.h"
#include "mpi/match.h"

enum { NMAX = 20000 };

typedef struct {
  sim *s;
  platform *p;
  models *m;
  mpi_world *w;
  int host[4];
  int ndone;
  mpi_req *done[NMAX];
} world;

static void on_done(void *ctx, mpi_req *r) {
  world *W = ctx;
  if (W->ndone < NMAX) W->done[W->ndone] = r;
  W->ndone++;
}

static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

static world *open_world_cfg(const net_config *cfg) {
  psim_err err = {0};
  world *W = test_calloc(1, sizeof *W);
  W->s = sim_new();
  W->p = plat_flat_cluster(4, 1e9, 1, 1.25e9, 1e-6);
  W->m = models_new(W->s, W->p, cfg, &err);
  assert_non_null(W->m);
  for (int i = 0; i < 4; i++) W->host[i] = i;
  W->w = mpi_world_new(W->s, W->m, 4, W->host, on_done, W);
  return W;
}

static world *open_world(double async_small) {
  net_config cfg;
  net_config_init(&cfg);
  cfg.async_small_thresh = async_small;
  return open_world_cfg(&cfg);
}

static void close_world(world *W) {
  mpi_world_free(W->w);
  models_free(W->m);
  plat_free(W->p);
  sim_free(W->s);
  test_free(W);
}

static mpi_req *isend(world *W, int src, int dst, int tag, int ctx, double bytes) {
  psim_err err = {0};
  mpi_req *q = mpi_isend(W->w, src, dst, tag, ctx, bytes, 0, &err);
  assert_non_null(q);
  return q;
}

static mpi_req *irecv(world *W, int dst, int src, int tag, int ctx) {
  psim_err err = {0};
  mpi_req *q = mpi_irecv(W->w, dst, src, tag, ctx, -1, &err);
  assert_non_null(q);
  return q;
}

/* Five receives of one key, the 1st, 3rd and 5th cancelled (head, middle, then tail of the
 * bucket): three sends of sizes 1, 2, 3 go to the 2nd, the 4th, and none (unexpected). */
static void test_bucket_order_and_cancel(void **state) {
  (void)state;
  world *W = open_world(0);
  mpi_req *r[5];
  for (int i = 0; i < 5; i++) r[i] = irecv(W, 1, 0, 7, MPI_CTX_USER);
  assert_int_equal(mpi_cancel_recv(W->w, r[0]), 1);
  assert_int_equal(mpi_cancel_recv(W->w, r[2]), 1);
  assert_int_equal(mpi_cancel_recv(W->w, r[4]), 1);
  assert_int_equal(mpi_cancel_recv(W->w, r[4]), 0);   /* not queued any more */
  mpi_req *s1 = isend(W, 0, 1, 7, MPI_CTX_USER, 1);
  mpi_req *s2 = isend(W, 0, 1, 7, MPI_CTX_USER, 2);
  mpi_req *s3 = isend(W, 0, 1, 7, MPI_CTX_USER, 3);
  sim_run(W->s, no_run, W);
  assert_true(r[1]->done && r[3]->done);
  assert_true(r[1]->bytes == 1 && r[3]->bytes == 2);
  assert_false(s3->matched);
  assert_ptr_equal(mpi_iprobe(W->w, 1, 0, 7, MPI_CTX_USER), s3);
  mpi_req *r5 = irecv(W, 1, 0, 7, MPI_CTX_USER);   /* takes s3 */
  sim_run(W->s, no_run, W);
  assert_true(r5->done && r5->bytes == 3);
  assert_null(mpi_iprobe(W->w, 1, 0, 7, MPI_CTX_USER));
  mpi_req *all[] = {r[0], r[1], r[2], r[3], r[4], r5, s1, s2, s3};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) mpi_req_release(W->w, all[i]);
  close_world(W);
}

/* An exact receive posted between two wildcard ones: each send goes to the oldest receive
 * that matches it, whichever list it is in. */
static void test_wildcards_in_posting_order(void **state) {
  (void)state;
  world *W = open_world(0);
  mpi_req *w1 = irecv(W, 2, MPI_L_ANY, 5, MPI_CTX_USER);
  mpi_req *ex = irecv(W, 2, 0, 5, MPI_CTX_USER);
  mpi_req *w2 = irecv(W, 2, 1, MPI_L_ANY, MPI_CTX_USER);
  mpi_req *s1 = isend(W, 0, 2, 5, MPI_CTX_USER, 10);   /* w1 (older than ex) */
  mpi_req *s2 = isend(W, 0, 2, 5, MPI_CTX_USER, 20);   /* ex */
  mpi_req *s3 = isend(W, 1, 2, 9, MPI_CTX_USER, 30);   /* w2 */
  sim_run(W->s, no_run, W);
  assert_true(w1->done && w1->bytes == 10 && w1->src == 0);
  assert_true(ex->done && ex->bytes == 20);
  assert_true(w2->done && w2->bytes == 30 && w2->tag == 9);
  mpi_req *all[] = {w1, ex, w2, s1, s2, s3};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) mpi_req_release(W->w, all[i]);
  close_world(W);
}

/* The posting order kept in MPI_SEQ_BITS (it shares a word with the flags): the order of two
 * requests across the count's wrap is the order of their posts, and the flags next to it
 * are untouched by it. The owner is the sender of a send, the receiver of a receive. */
static void test_posting_order_wraps(void **state) {
  (void)state;
  const uint64_t top = ((uint64_t)1 << MPI_SEQ_BITS) - 1;
  mpi_req a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.done = b.grouped = 1;
  a.seq = 5;
  b.seq = 9;
  assert_true(match_posted_before(&a, &b) && !match_posted_before(&b, &a));
  assert_false(match_posted_before(&a, &a));
  a.seq = top;   /* the last count before the wrap ... */
  b.seq = 0;     /* ... and the next post's */
  assert_true(match_posted_before(&a, &b) && !match_posted_before(&b, &a));
  assert_true(a.done && !a.grouped && b.grouped && !b.done);
  world *W = open_world(0);
  mpi_req *r = irecv(W, 2, 1, 5, MPI_CTX_USER), *r2 = irecv(W, 2, 1, 6, MPI_CTX_USER);
  assert_true(match_posted_before(r, r2) && !match_posted_before(r2, r));   /* both queued */
  mpi_req *q = isend(W, 1, 2, 5, MPI_CTX_USER, 10), *q2 = isend(W, 1, 2, 6, MPI_CTX_USER, 20);
  assert_int_equal(mpi_req_owner(r), 2);
  assert_int_equal(mpi_req_owner(q), 1);
  sim_run(W->s, no_run, W);
  assert_true(r->done && q->done && r2->done && q2->done && r2->bytes == 20);
  mpi_req *all[] = {r, r2, q, q2};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) mpi_req_release(W->w, all[i]);
  close_world(W);
}

/* Contexts 1 and 65537 (the same low 16 bits): a send on one never matches a receive on the
 * other. Before, the buckets' keys kept 16 bits of the context, and the send to context 65537
 * completed the receive of context 1. */
static void test_contexts_past_16_bits(void **state) {
  (void)state;
  world *W = open_world(0);
  mpi_req *r1 = irecv(W, 1, 0, 3, 1);
  mpi_req *s = isend(W, 0, 1, 3, 65537, 8);
  sim_run(W->s, no_run, W);
  assert_false(r1->done);
  assert_false(s->matched);
  assert_null(mpi_iprobe(W->w, 1, 0, 3, 1));
  assert_ptr_equal(mpi_iprobe(W->w, 1, 0, 3, 65537), s);
  mpi_req *r2 = irecv(W, 1, 0, 3, 65537);
  sim_run(W->s, no_run, W);
  assert_true(r2->done && r2->bytes == 8);
  assert_false(r1->done);
  assert_int_equal(mpi_cancel_recv(W->w, r1), 1);
  mpi_req_release(W->w, r1);
  mpi_req_release(W->w, r2);
  mpi_req_release(W->w, s);
  close_world(W);
}

/* smpi/async-small-thresh: three small messages flow at once, unreceived, queued in one
 * bucket while in flight; each arrives unmatched (it stays queued, its link intact), then
 * three receives take them in order. */
static void test_eager_arrivals_stay_queued(void **state) {
  (void)state;
  world *W = open_world(65536);
  mpi_req *s[3];
  for (int i = 0; i < 3; i++) s[i] = isend(W, 0, 3, 4, MPI_CTX_USER, 100 * (i + 1));
  sim_run(W->s, no_run, W);
  for (int i = 0; i < 3; i++) assert_true(s[i]->arrived && !s[i]->matched);
  /* queued, their order links in use: the start date is the post's (0), not those bytes */
  for (int i = 0; i < 3; i++) assert_true(mpi_req_xfer_start(s[i]) == 0 && s[i]->xfer_end > 0);
  assert_true(mpi_req_or_due(s[0]) == 0);
  mpi_req *r[3];
  for (int i = 0; i < 3; i++) r[i] = irecv(W, 3, 0, 4, MPI_CTX_USER);
  sim_run(W->s, no_run, W);
  for (int i = 0; i < 3; i++) assert_true(r[i]->done && r[i]->bytes == 100 * (i + 1));
  for (int i = 0; i < 3; i++) { mpi_req_release(W->w, r[i]); mpi_req_release(W->w, s[i]); }
  close_world(W);
}

/* 2 x 6000 requests (several slab chunks of 512 KiB) in 600 keys: every transfer's end finds
 * its world and completes both ends. */
static void test_many_requests(void **state) {
  (void)state;
  world *W = open_world(0);
  enum { N = 6000 };
  static mpi_req *r[N], *s[N];
  for (int i = 0; i < N; i++) r[i] = irecv(W, 1 + i % 3, 0, i % 200, MPI_CTX_USER);
  for (int i = 0; i < N; i++) s[i] = isend(W, 0, 1 + i % 3, i % 200, MPI_CTX_USER, 1 + i);
  sim_run(W->s, no_run, W);
  assert_int_equal(W->ndone, 2 * N);
  for (int i = 0; i < N; i++) {
    assert_true(r[i]->done);
    assert_true(r[i]->bytes == 1 + i);   /* its key's sends in order */
  }
  for (int i = 0; i < N; i++) { mpi_req_release(W->w, r[i]); mpi_req_release(W->w, s[i]); }
  close_world(W);
}

/* Unexpected sends of tags 1-4 to rank 1 taken out of order (2: the middle, 1: the oldest,
 * 4: the newest): a wildcard probe, which walks the rank's list in posting order, finds 3; a
 * send posted after that finds its place behind it. The posted receives' list, after cancels
 * at its head, middle and end, is described in order. */
static void test_order_lists(void **state) {
  (void)state;
  world *W = open_world(0);
  mpi_req *s[6];
  for (int i = 1; i <= 4; i++) s[i] = isend(W, 0, 1, i, MPI_CTX_USER, 10 * i);
  mpi_req *r2 = irecv(W, 1, 0, 2, MPI_CTX_USER), *r1 = irecv(W, 1, 0, 1, MPI_CTX_USER);
  mpi_req *r4 = irecv(W, 1, 0, 4, MPI_CTX_USER);
  assert_ptr_equal(mpi_iprobe(W->w, 1, MPI_L_ANY, MPI_L_ANY, MPI_CTX_USER), s[3]);
  s[5] = isend(W, 2, 1, 5, MPI_CTX_USER, 50);
  assert_ptr_equal(mpi_iprobe(W->w, 1, MPI_L_ANY, 5, MPI_CTX_USER), s[5]);
  mpi_req *r3 = irecv(W, 1, 0, 3, MPI_CTX_USER);
  assert_ptr_equal(mpi_iprobe(W->w, 1, MPI_L_ANY, MPI_L_ANY, MPI_CTX_USER), s[5]);
  mpi_req *r5 = irecv(W, 1, MPI_L_ANY, MPI_L_ANY, MPI_CTX_USER);   /* the first wildcard */
  assert_null(mpi_iprobe(W->w, 1, MPI_L_ANY, MPI_L_ANY, MPI_CTX_USER));
  sim_run(W->s, no_run, W);
  assert_true(r1->bytes == 10 && r2->bytes == 20 && r3->bytes == 30 && r4->bytes == 40 && r5->bytes == 50);
  mpi_req *q[6];
  for (int i = 0; i < 6; i++) q[i] = irecv(W, 2, i == 4 ? MPI_L_ANY : 0, 10 + i, MPI_CTX_USER);
  assert_int_equal(mpi_cancel_recv(W->w, q[0]), 1);   /* the oldest */
  assert_int_equal(mpi_cancel_recv(W->w, q[2]), 1);   /* one in the middle */
  assert_int_equal(mpi_cancel_recv(W->w, q[5]), 1);   /* the newest */
  mpi_req *q6 = irecv(W, 2, 0, 16, MPI_CTX_USER);
  char buf[512];
  mpi_describe_pending(W->w, 2, buf, sizeof buf);
  assert_string_equal(buf, "receive from 0 tag 11 (no matching send); receive from 0 tag 13 (no matching send); "
                           "receive from any tag 14 (no matching send); receive from 0 tag 16 (no matching send)");
  assert_int_equal(mpi_cancel_recv(W->w, q[4]), 1);   /* the wildcard list's only one */
  assert_int_equal(mpi_cancel_recv(W->w, q[4]), 0);
  assert_int_equal(mpi_cancel_recv(W->w, q6), 1);      /* the newest, then the oldest */
  assert_int_equal(mpi_cancel_recv(W->w, q[1]), 1);
  mpi_describe_pending(W->w, 2, buf, sizeof buf);
  assert_string_equal(buf, "receive from 0 tag 13 (no matching send)");
  mpi_req *all[] = {r1, r2, r3, r4, r5, s[1], s[2], s[3], s[4], s[5], q[0], q[1], q[2], q[3], q[4], q[5], q6};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) mpi_req_release(W->w, all[i]);
  close_world(W);
}

/* The constant model (issue 38, part 3): a message's end is a mark of its send (the world
 * took the kernel's first mark kind), and a request's order links share their bytes with its
 * transfer's start date (once out of its queue) and a receive's smpi/or (once arrived).
 * Rank 0 sends 1000 bytes (detached) and 1e6 bytes (rendez-vous) to rank 1 at date 0; rank 1
 * posts both receives at date 1. The route is two links of 1 us, 1.25e9 B/s: the messages
 * take 2e-6 + 1000 / 1.25e9 = 2.8e-6 s and 2e-6 + 8e-4 s from date 1. smpi/or is 2e-6 s. */
static world *const_world;
static mpi_req *late_r[2];
static void post_late(sim *s, activity *a) {
  (void)s;
  (void)a;
  late_r[0] = irecv(const_world, 1, 0, 1, MPI_CTX_USER);
  late_r[1] = irecv(const_world, 1, 0, 2, MPI_CTX_USER);
}
static void other_mark(sim *s, void *obj) { (void)s; (void)obj; }

static void test_constant_model_layout(void **state) {
  (void)state;
  net_config cfg;
  net_config_init(&cfg);
  cfg.model = NET_CONSTANT;
  psim_err err = {0};
  assert_int_equal(net_config_set(&cfg, "smpi/or", "0:2e-6:0", &err), 1);
  world *W = const_world = open_world_cfg(&cfg);
  assert_int_equal(sim_mark_kind(W->s, other_mark), 2);   /* kind 1: the world's */
  assert_int_equal(sizeof(mpi_req), 88);
  mpi_req *s1 = isend(W, 0, 1, 1, MPI_CTX_USER, 1000), *s2 = isend(W, 0, 1, 2, MPI_CTX_USER, 1e6);
  /* both queued unexpected (s1's links point at s2): no start, no smpi/or, though s1 is done */
  assert_true(s1->done && s1->detached && !s2->detached);
  assert_true(mpi_req_xfer_start(s1) == -1 && mpi_req_xfer_start(s2) == -1);
  assert_true(mpi_req_or_due(s1) == 0);
  sim_start_timer(W->s, 1, post_late, NULL, 0);
  sim_run(W->s, no_run, W);
  mpi_req *r1 = late_r[0], *r2 = late_r[1];
  assert_true(r1->done && r2->done && s2->done);
  /* started at the receives' post (1), after the sends' own (0): both kinds of date */
  assert_true(mpi_req_xfer_start(s1) == 1 && mpi_req_xfer_start(s2) == 1);
  assert_true(mpi_req_xfer_start(r1) == 1 && mpi_req_xfer_start(r2) == 1);
  assert_true(fabs(r1->xfer_end - (1 + 2.8e-6)) < 1e-12 && fabs(s1->xfer_end - r1->xfer_end) == 0);
  assert_true(fabs(r2->xfer_end - (1 + 2e-6 + 8e-4)) < 1e-12);
  assert_true(mpi_req_or_due(r1) == 2e-6);   /* a detached message's */
  assert_true(mpi_req_or_due(r2) == 0);
  mpi_req_or_paid(r1);
  assert_true(mpi_req_or_due(r1) == 0 && mpi_req_xfer_start(r1) == 1);
  mpi_req *all[] = {s1, s2, r1, r2};
  for (int i = 0; i < 4; i++) mpi_req_release(W->w, all[i]);
  close_world(W);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bucket_order_and_cancel),
      cmocka_unit_test(test_wildcards_in_posting_order),
      cmocka_unit_test(test_posting_order_wraps),
      cmocka_unit_test(test_contexts_past_16_bits),
      cmocka_unit_test(test_eager_arrivals_stay_queued),
      cmocka_unit_test(test_many_requests),
      cmocka_unit_test(test_order_lists),
      cmocka_unit_test(test_constant_model_layout),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
