/* Unit tests of the collectives (src/mpi/coll*.c).
 *
 * Every algorithm of every collective is built for all ranks of communicators of 1..17 ranks
 * (and 31, 32, 64, 100), several roots and sizes, and the programs are run by a small matching
 * simulation written here:
 *  - MPI matching: per (source, destination) FIFO queues, a send matches the oldest posted
 *    receive with the same tag and vice versa; the sizes of matched pairs must be equal;
 *  - rendez-vous semantics for every send (the strictest: a program that does not deadlock
 *    so cannot deadlock when small sends are detached), executed round-robin over the ranks;
 *  - at the end every rank must have run its whole program, every request must have been
 *    waited for and every message matched: no deadlock, nothing left over;
 *  - data flow: each rank carries the set of ranks whose data it causally has (a bitmask); a
 *    message carries its sender's set at posting time and adds it to the receiver's when the
 *    receive completes (blocking receive or wait). Then e.g. after a bcast every rank has the
 *    root's data, after an allreduce every rank has everybody's, after a scan rank r has
 *    ranks 0..r. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "psim/coll.h"

/* ------------------------------------------------------------------ simulation */

typedef struct {
  int rank, op;       /* the posting rank and its op index */
  int tag;
  double bytes;
  uint64_t *know;     /* sender's knowledge when posted (sends only) */
} post;

typedef struct {
  post *q;
  int n, cap, head;
} queue;

typedef struct {
  int posted, matched, waited;
  uint64_t *payload;  /* for receives: the matched message's knowledge */
} req;

typedef struct {
  int n, words;
  coll_prog *prog;
  int *pc;
  req **reqs;
  uint64_t *know;     /* n x words */
  queue *sends, *recvs; /* n x n, indexed src * n + dst */
  double *rbytes;     /* bytes received per rank */
  long nmsg;
  char why[256];
} sim;

static void q_push(queue *q, post p) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 8;
    q->q = realloc(q->q, (size_t)q->cap * sizeof *q->q);
  }
  q->q[q->n++] = p;
}

/* Removes and returns the index of the oldest entry with this tag, -1 when none. */
static int q_take(queue *q, int tag, post *out) {
  for (int i = q->head; i < q->n; i++)
    if (q->q[i].rank >= 0 && q->q[i].tag == tag) {
      *out = q->q[i];
      q->q[i].rank = -1;
      while (q->head < q->n && q->q[q->head].rank < 0) q->head++;
      return i;
    }
  return -1;
}

static int q_pending(const queue *q) {
  for (int i = q->head; i < q->n; i++)
    if (q->q[i].rank >= 0) return 1;
  return 0;
}

static void merge(sim *s, int r, const uint64_t *k) {
  for (int w = 0; w < s->words; w++) s->know[(size_t)r * s->words + w] |= k[w];
}

static int knows(const sim *s, int r, int who) {
  return (s->know[(size_t)r * s->words + who / 64] >> (who % 64)) & 1;
}

static int sim_fail(sim *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, sizeof s->why, fmt, ap);
  va_end(ap);
  return -1;
}

/* Posts op k of rank r (a send or a receive). Returns -1 on a size mismatch. */
static int post_op(sim *s, int r, int k) {
  coll_op *o = &s->prog[r].ops[k];
  int isrecv = o->kind == CO_IRECV || o->kind == CO_RECV;
  int src = isrecv ? o->peer : r, dst = isrecv ? r : o->peer;
  queue *mine = isrecv ? &s->recvs[src * s->n + dst] : &s->sends[src * s->n + dst];
  queue *other = isrecv ? &s->sends[src * s->n + dst] : &s->recvs[src * s->n + dst];
  req *me = &s->reqs[r][k];
  me->posted = 1;
  post p = {r, k, o->tag, o->bytes, NULL};
  if (!isrecv) {
    p.know = malloc((size_t)s->words * sizeof *p.know);
    memcpy(p.know, &s->know[(size_t)r * s->words], (size_t)s->words * sizeof *p.know);
  }
  post m;
  if (q_take(other, o->tag, &m) < 0) {
    q_push(mine, p);
    return 0;
  }
  if (m.bytes != p.bytes)
    return sim_fail(s, "size mismatch %d->%d tag %d: send %.0f, receive %.0f", src, dst, o->tag,
                isrecv ? m.bytes : p.bytes, isrecv ? p.bytes : m.bytes);
  post *snd = isrecv ? &m : &p, *rcv = isrecv ? &p : &m;
  s->reqs[snd->rank][snd->op].matched = 1;
  s->reqs[rcv->rank][rcv->op].matched = 1;
  s->reqs[rcv->rank][rcv->op].payload = snd->know;
  s->rbytes[rcv->rank] += p.bytes;
  s->nmsg++;
  return 0;
}

static void complete(sim *s, int r, int k) {
  req *q = &s->reqs[r][k];
  q->waited = 1;
  if (q->payload) {
    merge(s, r, q->payload);
    free(q->payload);
    q->payload = NULL;
  }
}

/* Executes rank r's next op if it can. Returns 1 on progress, 0 when blocked or done, -1 on
 * an error. */
static int step(sim *s, int r) {
  coll_prog *p = &s->prog[r];
  if (s->pc[r] >= p->n) return 0;
  int k = s->pc[r];
  coll_op *o = &p->ops[k];
  switch (o->kind) {
  case CO_ISEND: case CO_IRECV: case CO_SEND: case CO_RECV:
    if (o->peer < 0 || o->peer >= s->n || o->peer == r)
      return sim_fail(s, "rank %d op %d: bad peer %d", r, k, o->peer);
    if (!(o->bytes >= 0)) return sim_fail(s, "rank %d op %d: bad size", r, k);
    if (o->kind == CO_ISEND || o->kind == CO_IRECV) {
      if (post_op(s, r, k)) return -1;
      s->pc[r]++;
      return 1;
    } else {
      int progressed = 0;
      if (!s->reqs[r][k].posted) {
        if (post_op(s, r, k)) return -1;
        progressed = 1;
      }
      if (s->reqs[r][k].matched) {
        complete(s, r, k);
        s->pc[r]++;
        return 1;
      }
      return progressed;
    }
  case CO_WAITALL:
    for (int i = 0; i < k; i++)
      if (s->reqs[r][i].posted && !s->reqs[r][i].waited && !s->reqs[r][i].matched) return 0;
    for (int i = 0; i < k; i++)
      if (s->reqs[r][i].posted && !s->reqs[r][i].waited) complete(s, r, i);
    s->pc[r]++;
    return 1;
  case CO_WAIT:
    if (o->peer < 0 || o->peer >= k || !s->reqs[r][o->peer].posted)
      return sim_fail(s, "rank %d op %d: wait on op %d which started nothing", r, k, o->peer);
    if (!s->reqs[r][o->peer].matched) return 0;
    complete(s, r, o->peer);
    s->pc[r]++;
    return 1;
  case CO_COMPUTE:
    s->pc[r]++;
    return 1;
  default:
    return sim_fail(s, "rank %d op %d: unknown kind %d", r, k, o->kind);
  }
}

static void sim_init(sim *s, int n) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->words = (n + 63) / 64;
  s->prog = calloc((size_t)n, sizeof *s->prog);
  s->pc = calloc((size_t)n, sizeof *s->pc);
  s->reqs = calloc((size_t)n, sizeof *s->reqs);
  s->know = calloc((size_t)n * s->words, sizeof *s->know);
  s->sends = calloc((size_t)n * n, sizeof *s->sends);
  s->recvs = calloc((size_t)n * n, sizeof *s->recvs);
  s->rbytes = calloc((size_t)n, sizeof *s->rbytes);
  for (int r = 0; r < n; r++) s->know[(size_t)r * s->words + r / 64] |= 1ull << (r % 64);
}

static void sim_free(sim *s) {
  for (int r = 0; r < s->n; r++) {
    if (s->reqs[r])
      for (int k = 0; k < s->prog[r].n; k++) free(s->reqs[r][k].payload);
    free(s->reqs[r]);
    coll_prog_free(&s->prog[r]);
  }
  for (int i = 0; i < s->n * s->n; i++) {
    for (int j = 0; j < s->sends[i].n; j++)
      if (s->sends[i].q[j].rank >= 0) free(s->sends[i].q[j].know);
    free(s->sends[i].q);
    free(s->recvs[i].q);
  }
  free(s->prog); free(s->pc); free(s->reqs); free(s->know);
  free(s->sends); free(s->recvs); free(s->rbytes);
}

/* Runs the programs built in s->prog. Returns 0, or -1 with s->why. */
static int sim_run(sim *s) {
  for (int r = 0; r < s->n; r++) s->reqs[r] = calloc((size_t)s->prog[r].n + 1, sizeof **s->reqs);
  for (;;) {
    int progress = 0;
    for (int r = 0; r < s->n; r++) {
      int st;
      while ((st = step(s, r)) > 0) progress = 1;
      if (st < 0) return -1;
    }
    if (!progress) break;
  }
  for (int r = 0; r < s->n; r++)
    if (s->pc[r] < s->prog[r].n)
      return sim_fail(s, "deadlock: rank %d blocked at op %d of %d (kind %d, peer %d)", r, s->pc[r],
                  s->prog[r].n, s->prog[r].ops[s->pc[r]].kind, s->prog[r].ops[s->pc[r]].peer);
  for (int r = 0; r < s->n; r++)
    for (int k = 0; k < s->prog[r].n; k++)
      if (s->reqs[r][k].posted && !s->reqs[r][k].waited)
        return sim_fail(s, "rank %d never waits for the request of op %d", r, k);
  for (int i = 0; i < s->n * s->n; i++)
    if (q_pending(&s->sends[i]) || q_pending(&s->recvs[i]))
      return sim_fail(s, "unmatched message %d->%d", i / s->n, i % s->n);
  return 0;
}

/* ------------------------------------------------------------------ calls */

typedef struct {
  coll_kind kind;
  int n, root, dtsize;
  double bytes;
  int vary;            /* v-variants: irregular sizes (with zeros) instead of regular */
  double *m;           /* n x n matrix of sizes i -> j for the v-variants */
  double *cnt, *cnt2;  /* per-rank scratch */
} setup;

static void setup_sizes(setup *u) {
  int n = u->n;
  u->m = malloc((size_t)n * n * sizeof *u->m);
  u->cnt = malloc((size_t)n * sizeof *u->cnt);
  u->cnt2 = malloc((size_t)n * sizeof *u->cnt2);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      u->m[i * n + j] = u->vary ? (double)(((i * 7 + j * 3) % 5) * (long)u->bytes / 4) : u->bytes;
}

static void setup_free(setup *u) { free(u->m); free(u->cnt); free(u->cnt2); }

/* The call rank r makes (sizes consistent across ranks, as in a valid trace). */
static coll_call make_call(setup *u, int r) {
  int n = u->n;
  coll_call c = {.kind = u->kind, .rank = r, .size = n, .root = u->root, .bytes = u->bytes,
                 .bytes2 = u->bytes, .dtsize = u->dtsize};
  switch (u->kind) {
  case COLL_ALLTOALLV:
    for (int j = 0; j < n; j++) { u->cnt[j] = u->m[r * n + j]; u->cnt2[j] = u->m[j * n + r]; }
    c.counts = u->cnt; c.counts2 = u->cnt2;
    break;
  case COLL_GATHERV: case COLL_ALLGATHERV: case COLL_REDUCESCATTER:
    for (int j = 0; j < n; j++) u->cnt2[j] = u->m[j * n];
    c.counts2 = u->cnt2;
    c.bytes = u->cnt2[r];
    break;
  case COLL_SCATTERV:
    for (int j = 0; j < n; j++) u->cnt[j] = u->m[j * n];
    c.counts = u->cnt;
    c.bytes2 = u->cnt[r];
    break;
  default:
    break;
  }
  return c;
}

/* Who must rank r know of after the collective? */
static int must_know(const setup *u, int r, int who) {
  switch (u->kind) {
  case COLL_BCAST: case COLL_SCATTER: case COLL_SCATTERV: return who == u->root;
  case COLL_REDUCE: case COLL_GATHER: case COLL_GATHERV: return r == u->root;
  case COLL_SCAN: return who <= r;
  case COLL_EXSCAN: return who < r;
  default: return 1; /* barrier, all*, alltoall*, reduce_scatter */
  }
}

/* Minimum bytes rank r must receive. */
static double min_recv(const setup *u, int r) {
  int n = u->n;
  double t = 0;
  for (int i = 0; i < n; i++) {
    if (i == r) continue;
    switch (u->kind) {
    case COLL_ALLTOALL: case COLL_ALLGATHER: t += u->bytes; break;
    case COLL_ALLTOALLV: t += u->m[i * n + r]; break;
    case COLL_ALLGATHERV: t += u->m[i * n]; break;
    case COLL_GATHER: if (r == u->root) t += u->bytes; break;
    case COLL_GATHERV: if (r == u->root) t += u->m[i * n]; break;
    default: break;
    }
  }
  if ((u->kind == COLL_SCATTER || u->kind == COLL_BCAST) && r != u->root) t = u->bytes;
  if (u->kind == COLL_SCATTERV && r != u->root) t = u->m[r * n];
  return t;
}

/* Builds and runs algorithm `algo` for setup u (`reps` collectives back to back); checks
 * everything. */
static void check_algo(setup *u, const char *algo, int reps) {
  coll_selector sel;
  coll_selector_init(&sel);
  psim_err e;
  psim_err_clear(&e);
  assert_int_equal(coll_selector_set(&sel, coll_kind_name(u->kind), algo, &e), 0);
  assert_string_equal(coll_selector_name(&sel, u->kind), algo);
  setup_sizes(u);
  sim s;
  sim_init(&s, u->n);
  for (int r = 0; r < u->n; r++)
    for (int k = 0; k < reps; k++) {
      coll_call c = make_call(u, r);
      if (coll_build(&sel, &c, &s.prog[r], &e)) fail_msg("build %s/%s: %s", coll_kind_name(u->kind), algo, e.msg);
    }
  int rc = sim_run(&s);
  if (rc)
    fail_msg("%s:%s n=%d root=%d bytes=%.0f vary=%d reps=%d: %s", coll_kind_name(u->kind), algo,
             u->n, u->root, u->bytes, u->vary, reps, s.why);
  for (int r = 0; r < u->n; r++) {
    for (int w = 0; w < u->n; w++)
      if (must_know(u, r, w) && !knows(&s, r, w))
        fail_msg("%s:%s n=%d root=%d: rank %d ends without data from rank %d",
                 coll_kind_name(u->kind), algo, u->n, u->root, r, w);
    if (s.rbytes[r] < reps * min_recv(u, r) - 1e-6)
      fail_msg("%s:%s n=%d root=%d: rank %d received %.0f bytes, needs %.0f",
               coll_kind_name(u->kind), algo, u->n, u->root, r, s.rbytes[r], reps * min_recv(u, r));
  }
  sim_free(&s);
  setup_free(u);
}

static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 64, 100};

/* Every algorithm of kind k on every size, a few roots, small and large messages, regular and
 * irregular v-sizes, one and two collectives back to back. */
static void check_kind(coll_kind k) {
  char list[1024];
  coll_algorithms(k, list, sizeof list);
  char *save = NULL;
  for (char *a = strtok_r(list, ", ", &save); a; a = strtok_r(NULL, ", ", &save))
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int n = sizes[i];
      int roots[3] = {0, n - 1, n / 2};
      double bytes[3] = {1000, 100000, 0};
      for (int ri = 0; ri < 3; ri++)
        for (int bi = 0; bi < 3; bi++)
          for (int vary = 0; vary < 2; vary++) {
            if (n > 32 && (ri > 0 || bi == 2)) continue; /* keep the big sizes quick */
            setup u = {.kind = k, .n = n, .root = roots[ri], .bytes = bytes[bi], .vary = vary,
                       .dtsize = vary ? 8 : 1};
            check_algo(&u, a, (n <= 17 && ri == 0 && bi == 0) ? 2 : 1);
          }
    }
}

static void test_barrier(void **st) { (void)st; check_kind(COLL_BARRIER); }
static void test_bcast(void **st) { (void)st; check_kind(COLL_BCAST); }
static void test_reduce(void **st) { (void)st; check_kind(COLL_REDUCE); }
static void test_allreduce(void **st) { (void)st; check_kind(COLL_ALLREDUCE); }
static void test_alltoall(void **st) { (void)st; check_kind(COLL_ALLTOALL); }
static void test_alltoallv(void **st) { (void)st; check_kind(COLL_ALLTOALLV); }
static void test_gather(void **st) { (void)st; check_kind(COLL_GATHER); }
static void test_allgather(void **st) { (void)st; check_kind(COLL_ALLGATHER); }
static void test_gatherv(void **st) { (void)st; check_kind(COLL_GATHERV); }
static void test_allgatherv(void **st) { (void)st; check_kind(COLL_ALLGATHERV); }
static void test_scatter(void **st) { (void)st; check_kind(COLL_SCATTER); }
static void test_scatterv(void **st) { (void)st; check_kind(COLL_SCATTERV); }
static void test_reduce_scatter(void **st) { (void)st; check_kind(COLL_REDUCESCATTER); }
static void test_scan(void **st) { (void)st; check_kind(COLL_SCAN); }
static void test_exscan(void **st) { (void)st; check_kind(COLL_EXSCAN); }

/* Large alltoall blocks exercise the decision table's pairwise branch (and its ring fallback
 * for non-powers of two, where SimGrid aborts); large irregular reduce_scatter the mpich_pair
 * branch. */
static void test_default_branches(void **st) {
  (void)st;
  for (int n = 1; n <= 17; n++) {
    setup u = {.kind = COLL_ALLTOALL, .n = n, .bytes = 600000, .dtsize = 1};
    check_algo(&u, "default", 1);
    setup v = {.kind = COLL_REDUCESCATTER, .n = n, .bytes = 400000, .vary = 1, .dtsize = 1};
    check_algo(&v, "default", 1);
  }
}

/* ------------------------------------------------------------------ exact programs */

static coll_prog build1(const char *coll, const char *algo, coll_call c) {
  coll_selector s;
  coll_selector_init(&s);
  psim_err e;
  psim_err_clear(&e);
  if (algo) assert_int_equal(coll_selector_set(&s, coll, algo, &e), 0);
  coll_prog p = {0};
  assert_int_equal(coll_build(&s, &c, &p, &e), 0);
  return p;
}

#define OP(p, i, k, pe) do { assert_int_equal((p).ops[i].kind, k); assert_int_equal((p).ops[i].peer, pe); } while (0)

/* Which sends carry the caller's own blocks as they lie (coll_op.user; psim run gives them the
 * factors of data at rest when the program did not write its buffer): every send of the
 * alltoall algorithms MPICH and Open MPI send straight from the send buffer (pair, ring,
 * basic_linear, alltoallv's default and ring), none of Bruck's (rotated copies) nor a bcast's
 * or allreduce's; receives never. */
static int user_sends(coll_prog p, int *sends) {
  int u = 0;
  *sends = 0;
  for (int i = 0; i < p.n; i++) {
    if (p.ops[i].kind == CO_ISEND || p.ops[i].kind == CO_SEND) (*sends)++, u += p.ops[i].user;
    else assert_int_equal(p.ops[i].user, 0);
  }
  coll_prog_free(&p);
  return u;
}

static void test_user_blocks(void **st) {
  (void)st;
  double counts[4] = {8, 8, 8, 8};
  coll_call a2a = {.kind = COLL_ALLTOALL, .rank = 1, .size = 4, .bytes = 64, .bytes2 = 64};
  coll_call a2av = {.kind = COLL_ALLTOALLV, .rank = 1, .size = 4, .bytes = 32, .bytes2 = 32, .counts = counts, .counts2 = counts};
  int n;
  const char *direct[] = {"pair", "ring", "basic_linear"};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(user_sends(build1("alltoall", direct[i], a2a), &n), 3);
    assert_int_equal(n, 3);
  }
  assert_int_equal(user_sends(build1("alltoall", "bruck", a2a), &n), 0);
  assert_int_equal(n, 2);   /* two rounds of rotated blocks at 4 ranks */
  assert_int_equal(user_sends(build1("alltoallv", NULL, a2av), &n), 3);
  assert_int_equal(n, 3);
  assert_int_equal(user_sends(build1("alltoallv", "ring", a2av), &n), 3);
  assert_int_equal(user_sends(build1("bcast", NULL, (coll_call){.kind = COLL_BCAST, .rank = 0, .size = 3, .bytes = 5e4}), &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(user_sends(build1("allreduce", NULL, (coll_call){.kind = COLL_ALLREDUCE, .rank = 0, .size = 4, .bytes = 8}), &n), 0);
  assert_true(n > 0);
}

/* expected/bcast.log: on 3 ranks the root sends to 2 before 1; non-roots receive first. */
static void test_default_bcast_order(void **st) {
  (void)st;
  coll_prog p = build1("bcast", NULL, (coll_call){.kind = COLL_BCAST, .rank = 0, .size = 3, .bytes = 5e4});
  assert_int_equal(p.n, 2);
  OP(p, 0, CO_SEND, 2); OP(p, 1, CO_SEND, 1);
  assert_true(p.ops[0].bytes == 5e4);
  coll_prog_free(&p);
  p = build1("bcast", NULL, (coll_call){.kind = COLL_BCAST, .rank = 2, .size = 8, .bytes = 10});
  assert_int_equal(p.n, 2);
  OP(p, 0, CO_RECV, 0); OP(p, 1, CO_SEND, 3);
  coll_prog_free(&p);
}

/* ompi_basic_linear: root irecvs from all, waits, isends to all, waits. */
static void test_default_barrier_order(void **st) {
  (void)st;
  coll_prog p = build1("barrier", NULL, (coll_call){.kind = COLL_BARRIER, .rank = 0, .size = 3});
  assert_int_equal(p.n, 6);
  OP(p, 0, CO_IRECV, 1); OP(p, 1, CO_IRECV, 2); OP(p, 2, CO_WAITALL, -1);
  OP(p, 3, CO_ISEND, 1); OP(p, 4, CO_ISEND, 2); OP(p, 5, CO_WAITALL, -1);
  coll_prog_free(&p);
  p = build1("barrier", NULL, (coll_call){.kind = COLL_BARRIER, .rank = 2, .size = 3});
  assert_int_equal(p.n, 2);
  OP(p, 0, CO_SEND, 0); OP(p, 1, CO_RECV, 0);
  coll_prog_free(&p);
}

/* allreduce default = linear reduce to 0 (own tag) then binomial bcast from 0 (own tag). */
static void test_default_allreduce_order(void **st) {
  (void)st;
  coll_prog p = build1("allreduce", NULL, (coll_call){.kind = COLL_ALLREDUCE, .rank = 0, .size = 3, .bytes = 5e4});
  assert_int_equal(p.n, 5);
  OP(p, 0, CO_IRECV, 1); OP(p, 1, CO_IRECV, 2); OP(p, 2, CO_WAITALL, -1);
  OP(p, 3, CO_SEND, 2); OP(p, 4, CO_SEND, 1);
  assert_int_not_equal(p.ops[0].tag, p.ops[3].tag);
  coll_prog_free(&p);
  p = build1("allreduce", NULL, (coll_call){.kind = COLL_ALLREDUCE, .rank = 1, .size = 3, .bytes = 5e4});
  assert_int_equal(p.n, 3);
  OP(p, 0, CO_ISEND, 0); OP(p, 1, CO_WAITALL, -1); OP(p, 2, CO_RECV, 0);
  coll_prog_free(&p);
}

/* alltoall default: basic_linear for 3 x 500 B (irecv r+1.., isend r-1..), pair for 4 ranks
 * and 600 kB blocks, the ring fallback for 3 ranks and 600 kB, bruck for 16 ranks and 100 B. */
static void test_default_alltoall_decision(void **st) {
  (void)st;
  coll_prog p = build1("alltoall", NULL, (coll_call){.kind = COLL_ALLTOALL, .rank = 1, .size = 3, .bytes = 500, .bytes2 = 500});
  assert_int_equal(p.n, 5);
  OP(p, 0, CO_IRECV, 2); OP(p, 1, CO_IRECV, 0); OP(p, 2, CO_ISEND, 0); OP(p, 3, CO_ISEND, 2);
  OP(p, 4, CO_WAITALL, -1);
  coll_prog_free(&p);
  p = build1("alltoall", NULL, (coll_call){.kind = COLL_ALLTOALL, .rank = 1, .size = 4, .bytes = 6e5, .bytes2 = 6e5});
  assert_int_equal(p.n, 9);
  OP(p, 0, CO_ISEND, 0); OP(p, 1, CO_IRECV, 0); OP(p, 3, CO_ISEND, 3); OP(p, 6, CO_ISEND, 2);
  coll_prog_free(&p);
  p = build1("alltoall", NULL, (coll_call){.kind = COLL_ALLTOALL, .rank = 1, .size = 3, .bytes = 6e5, .bytes2 = 6e5});
  assert_int_equal(p.n, 6);
  OP(p, 0, CO_ISEND, 2); OP(p, 1, CO_IRECV, 0); OP(p, 3, CO_ISEND, 0); OP(p, 4, CO_IRECV, 2);
  coll_prog_free(&p);
  p = build1("alltoall", NULL, (coll_call){.kind = COLL_ALLTOALL, .rank = 0, .size = 16, .bytes = 100, .bytes2 = 100});
  assert_int_equal(p.n, 12); /* 4 bruck steps */
  OP(p, 0, CO_ISEND, 1); OP(p, 1, CO_IRECV, 15);
  assert_true(p.ops[0].bytes == 800); /* blocks 1,3,5,...,15 */
  coll_prog_free(&p);
}

/* reduce_scatter default: regular shares -> reduce to 0 + scatterv; irregular -> mpich. */
static void test_default_reduce_scatter(void **st) {
  (void)st;
  double reg[3] = {10, 10, 10}, irr[3] = {10, 20, 30};
  coll_prog p = build1("reduce_scatter", NULL, (coll_call){.kind = COLL_REDUCESCATTER, .rank = 1, .size = 3, .counts2 = reg});
  assert_int_equal(p.n, 4);
  OP(p, 0, CO_ISEND, 0); assert_true(p.ops[0].bytes == 30);
  OP(p, 2, CO_IRECV, 0); assert_true(p.ops[2].bytes == 10);
  coll_prog_free(&p);
  p = build1("reduce_scatter", NULL, (coll_call){.kind = COLL_REDUCESCATTER, .rank = 1, .size = 3, .counts2 = irr});
  OP(p, 0, CO_ISEND, 0); assert_true(p.ops[0].bytes == 40); /* rdb: all but own share */
  OP(p, 1, CO_IRECV, 0); assert_true(p.ops[1].bytes == 50); /* all but rank 0's */
  coll_prog_free(&p);
}

/* ------------------------------------------------------------------ names and errors */

static void test_names(void **st) {
  (void)st;
  for (int k = 0; k < COLL_NKINDS; k++) {
    assert_int_equal(coll_kind_from_name(coll_kind_name((coll_kind)k)), k);
    char list[1024];
    coll_algorithms((coll_kind)k, list, sizeof list);
    assert_true(!strncmp(list, "default", 7));
  }
  assert_int_equal(coll_kind_from_name("reducescatter"), COLL_REDUCESCATTER);
  assert_int_equal(coll_kind_from_name("nope"), -1);
  coll_selector s;
  coll_selector_init(&s);
  for (int k = 0; k < COLL_NKINDS; k++) assert_string_equal(coll_selector_name(&s, (coll_kind)k), "default");
  psim_err e;
  psim_err_clear(&e);
  assert_int_equal(coll_selector_set(&s, "allreduce", "rdb", &e), 0);
  assert_string_equal(coll_selector_name(&s, COLL_ALLREDUCE), "rdb");
  assert_int_equal(coll_selector_set(&s, "allreduce", "bogus", &e), -1);
  assert_non_null(strstr(e.msg, "bogus"));
  assert_non_null(strstr(e.msg, "rab_rdb"));
  assert_non_null(strstr(e.msg, "lr"));
  assert_string_equal(coll_selector_name(&s, COLL_ALLREDUCE), "rdb"); /* unchanged */
  psim_err_clear(&e);
  assert_int_equal(coll_selector_set(&s, "allreduced", "rdb", &e), -1);
  assert_non_null(strstr(e.msg, "allreduce"));
  psim_err_clear(&e);
  assert_int_equal(coll_selector_set(&s, "bcast", "scatter_LR_allgather", &e), 0);
  assert_int_equal(coll_selector_set(&s, "barrier", "ompi_bruck", &e), 0);
  assert_int_equal(coll_selector_set(&s, "alltoall", "pair", &e), 0);
}

static void test_errors(void **st) {
  (void)st;
  coll_selector s;
  coll_selector_init(&s);
  psim_err e;
  psim_err_clear(&e);
  coll_prog p = {0};
  coll_call c = {.kind = COLL_BCAST, .rank = 0, .size = 4, .root = 4, .bytes = 1};
  assert_int_equal(coll_build(&s, &c, &p, &e), -1);
  assert_non_null(strstr(e.msg, "root"));
  psim_err_clear(&e);
  c = (coll_call){.kind = COLL_GATHERV, .rank = 0, .size = 4};
  assert_int_equal(coll_build(&s, &c, &p, &e), -1);
  psim_err_clear(&e);
  c = (coll_call){.kind = COLL_BARRIER, .rank = 5, .size = 4};
  assert_int_equal(coll_build(&s, &c, &p, &e), -1);
  psim_err_clear(&e);
  c = (coll_call){.kind = COLL_REDUCE, .rank = 0, .size = 4, .bytes = -1};
  assert_int_equal(coll_build(&s, &c, &p, &e), -1);
  assert_int_equal(p.n, 0);
  coll_prog_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_default_bcast_order),
    cmocka_unit_test(test_default_barrier_order),
    cmocka_unit_test(test_default_allreduce_order),
    cmocka_unit_test(test_default_alltoall_decision),
    cmocka_unit_test(test_default_reduce_scatter),
    cmocka_unit_test(test_default_branches),
    cmocka_unit_test(test_barrier),
    cmocka_unit_test(test_bcast),
    cmocka_unit_test(test_reduce),
    cmocka_unit_test(test_allreduce),
    cmocka_unit_test(test_alltoall),
    cmocka_unit_test(test_alltoallv),
    cmocka_unit_test(test_gather),
    cmocka_unit_test(test_allgather),
    cmocka_unit_test(test_gatherv),
    cmocka_unit_test(test_allgatherv),
    cmocka_unit_test(test_scatter),
    cmocka_unit_test(test_scatterv),
    cmocka_unit_test(test_reduce_scatter),
    cmocka_unit_test(test_scan),
    cmocka_unit_test(test_exscan),
    cmocka_unit_test(test_user_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
