/* Wait groups (mpi_req_join, mpi_wgroup_rewait, mpi_req_leave; include/psim/mpi_layer.h): one
 * a rank, its base kept by the world.
 *
 * When a rendez-vous message ends, its two ends complete in the order their owners started
 * waiting on them: the older place first. A group's rewait must order its members exactly as
 * one mpi_req_rewait per member, in index order, would: behind every place given before, in
 * index order among themselves; and a member that leaves keeps the place it had. Each case
 * posts one 1 MB message (rendez-vous: above smpi/send-is-detached-thresh) and reads which end
 * completed first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "psim/mpi_layer.h"
#include "psim/platform.h"

enum { SEND_FIRST = 1, RECV_FIRST = 2 };

typedef struct {
  sim *s;
  platform *p;
  models *m;
  mpi_world *w;
  int host[4];
  int order[4], n;   /* 1 = a send completed, 2 = a receive */
} world;

static void on_done(void *ctx, mpi_req *r) {
  world *W = ctx;
  if (W->n < 4) W->order[W->n++] = r->is_send ? SEND_FIRST : RECV_FIRST;
}

static void no_run(void *ctx, int id) { (void)ctx; (void)id; }

static void open_world(world *W) {
  psim_err err = {0};
  net_config cfg;
  net_config_init(&cfg);
  W->n = 0;
  W->s = sim_new();
  W->p = plat_flat_cluster(4, 1e9, 1, 1.25e9, 1e-6);
  W->m = models_new(W->s, W->p, &cfg, &err);
  assert_non_null(W->m);
  for (int i = 0; i < 4; i++) W->host[i] = i;
  W->w = mpi_world_new(W->s, W->m, 4, W->host, on_done, W);
}

/* runs the message to its end and returns which end completed first */
static int first_end(world *W) {
  sim_run(W->s, no_run, W);
  assert_int_equal(W->n, 2);
  return W->order[0];
}

static void close_world(world *W, mpi_req *a, mpi_req *b) {
  mpi_req_release(W->w, a);
  mpi_req_release(W->w, b);
  mpi_world_free(W->w);
  models_free(W->m);
  plat_free(W->p);
  sim_free(W->s);
}

static mpi_req *isend(world *W, int src, int dst) {
  psim_err err = {0};
  mpi_req *q = mpi_isend(W->w, src, dst, 0, MPI_CTX_USER, 1e6, 0, &err);
  assert_non_null(q);
  assert_false(q->detached);
  return q;
}

static mpi_req *irecv(world *W, int dst, int src) {
  psim_err err = {0};
  mpi_req *q = mpi_irecv(W->w, dst, src, 0, MPI_CTX_USER, 1e6, &err);
  assert_non_null(q);
  return q;
}

/* The receiver's group is rewaited after the sender waited: the send is older. */
static void rewait_goes_behind_earlier_places(void **st) {
  (void)st;
  world W;
  open_world(&W);
  mpi_req *s = isend(&W, 0, 1), *r = irecv(&W, 1, 0);
  mpi_req_join(r, 3);
  mpi_wgroup_rewait(W.w, 1, 5);
  mpi_req_wait(s);
  mpi_wgroup_rewait(W.w, 1, 5);   /* a second round: behind the sender again */
  assert_int_equal(first_end(&W), SEND_FIRST);
  close_world(&W, s, r);
}

/* The sender waits after the group's last rewait: the receive is older. */
static void later_places_go_behind_the_group(void **st) {
  (void)st;
  world W;
  open_world(&W);
  mpi_req *s = isend(&W, 0, 1), *r = irecv(&W, 1, 0);
  mpi_req_wait(s);
  mpi_req_join(r, 0);
  mpi_wgroup_rewait(W.w, 1, 1);
  mpi_req_rewait(s);
  assert_int_equal(first_end(&W), RECV_FIRST);
  close_world(&W, s, r);
}

/* A message to oneself with both ends in one group: the lower index is the older place. */
static void index_order_within_a_group(void **st) {
  (void)st;
  for (int send_low = 0; send_low < 2; send_low++) {
    world W;
    open_world(&W);
    mpi_req *s = isend(&W, 2, 2), *r = irecv(&W, 2, 2);
    mpi_req_join(s, send_low ? 0 : 1);
    mpi_req_join(r, send_low ? 1 : 0);
    mpi_wgroup_rewait(W.w, 2, 2);
    assert_int_equal(first_end(&W), send_low ? SEND_FIRST : RECV_FIRST);
    close_world(&W, s, r);
  }
}

/* A member that leaves keeps its place: the group's later rounds do not move it. */
static void leaving_keeps_the_place(void **st) {
  (void)st;
  world W;
  open_world(&W);
  mpi_req *s = isend(&W, 0, 1), *r = irecv(&W, 1, 0);
  mpi_req_join(r, 7);
  mpi_wgroup_rewait(W.w, 1, 8);
  mpi_req_leave(r);
  assert_false(r->grouped);
  mpi_req_wait(s);
  mpi_wgroup_rewait(W.w, 1, 8);   /* r is no longer a member */
  mpi_req_wait(r);                    /* keeps the place it has */
  assert_int_equal(first_end(&W), RECV_FIRST);
  close_world(&W, s, r);
}

/* Each rank has its own group (the world keeps its base: issue 38, part 3, no pointer in the
 * request): the send is member 0 of rank 0's group, the receive member 0 of rank 1's. Rank
 * 0's group rewaited first gives the send place w+1, then rank 1's the receive w+2: the send
 * is older; the other way round, the receive is. One base shared by both (the ranks' rewaits
 * moving both members) would give them one place, and the receive would complete first both
 * times. Then a third rewait of rank 1's group after the sender's moves only the receive. */
static void each_rank_has_its_group(void **st) {
  (void)st;
  for (int send_group_first = 0; send_group_first < 2; send_group_first++) {
    world W;
    open_world(&W);
    mpi_req *s = isend(&W, 0, 1), *r = irecv(&W, 1, 0);
    mpi_req_join(s, 0);
    mpi_req_join(r, 0);
    mpi_wgroup_rewait(W.w, send_group_first ? 0 : 1, 1);
    mpi_wgroup_rewait(W.w, send_group_first ? 1 : 0, 1);
    assert_true(mpi_req_place(s) == (send_group_first ? 1u : 2u));
    assert_true(mpi_req_place(r) == (send_group_first ? 2u : 1u));
    assert_int_equal(first_end(&W), send_group_first ? SEND_FIRST : RECV_FIRST);
    close_world(&W, s, r);
  }
  world W;
  open_world(&W);
  mpi_req *s = isend(&W, 0, 1), *r = irecv(&W, 1, 0);
  mpi_req_join(s, 0);
  mpi_req_join(r, 4);
  mpi_wgroup_rewait(W.w, 1, 5);   /* r: 0 + 4 + 1 = 5 */
  mpi_wgroup_rewait(W.w, 0, 1);   /* s: 5 + 0 + 1 = 6 */
  mpi_wgroup_rewait(W.w, 1, 5);   /* r: 6 + 5 = 11; s keeps 6 */
  assert_true(mpi_req_place(s) == 6 && mpi_req_place(r) == 11);
  assert_int_equal(first_end(&W), SEND_FIRST);
  close_world(&W, s, r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rewait_goes_behind_earlier_places),
      cmocka_unit_test(later_places_go_behind_the_group),
      cmocka_unit_test(index_order_within_a_group),
      cmocka_unit_test(leaving_keeps_the_place),
      cmocka_unit_test(each_rank_has_its_group),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
