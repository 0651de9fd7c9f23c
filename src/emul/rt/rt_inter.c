/* Inter-communicators, as far as psim goes: they can be created (MPI_Intercomm_create),
 * queried (MPI_Comm_remote_size, MPI_Comm_remote_group, MPI_Comm_test_inter, the local
 * group's size and rank), merged into an intra-communicator (MPI_Intercomm_merge) and freed.
 * Communication on one (point to point or collective) stops the run with an MPI error naming
 * it. That is what MPICH's test harness needs (util/mtest.c builds a "dup of WORLD by
 * MPI_Intercomm_merge" for the tests that loop over communicators), and what codes that only
 * merge their groups need.
 *
 * Both calls are collective over two groups that do not share a communicator: the two sides
 * meet in a table of pending creations keyed by (tag, world rank of the side's leader); a
 * member waits (blocked) until both leaders have registered. Time: a barrier on each local
 * group for the creation (no message between the leaders is modelled); the merge costs only
 * the wait for the other group. */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

struct rt_pending_inter {
  int merge;                 /* 0: an Intercomm_create side; 1: a merge */
  int tag, leader;           /* create: the tag and the world rank of this side's leader */
  int remote;                /* create: the other side's leader (-1 until registered) */
  int key;                   /* merge: the lower handle of the pair; tag = merge sequence */
  int size, joined, left;
  int high[2], arrived[2];
  rt_comm *local;
  rt_comm *result;
  VEC(int) waiters;          /* world ranks blocked on it */
};

static rt_pending_inter *pend_find(int merge, int a, int b, int only_open) {
  rt_world *w = rt_w();
  for (size_t i = 0; i < w->pending_inter.len; i++) {
    rt_pending_inter *p = w->pending_inter.data[i];
    if (p->merge == merge && p->tag == a && (merge ? p->key : p->leader) == b && (!only_open || p->joined < p->size)) return p;
  }
  return NULL;
}

static void pend_remove(rt_pending_inter *p) {
  rt_world *w = rt_w();
  for (size_t i = 0; i < w->pending_inter.len; i++)
    if (w->pending_inter.data[i] == p) {
      w->pending_inter.data[i] = w->pending_inter.data[--w->pending_inter.len];
      break;
    }
  VEC_FREE(p->waiters);
  free(p);
}

void rt_inters_free(rt_world *w) {
  for (size_t i = 0; i < w->pending_inter.len; i++) {
    VEC_FREE(w->pending_inter.data[i]->waiters);
    free(w->pending_inter.data[i]);
  }
  VEC_FREE(w->pending_inter);
}

static void wake_all(rt_pending_inter *p) {
  if (!p) return;
  for (size_t i = 0; i < p->waiters.len; i++) emu_wake(emu_current, &emu_current->ranks[p->waiters.data[i]]);
  p->waiters.len = 0;
}

static void wait_on(rt_pending_inter *p) {
  VEC_PUSH(p->waiters, rt_world_rank());
  emu_block();
}

static rt_comm *inter_new(const rt_comm *local, const rt_comm *remote) {
  rt_comm *c = rt_comm_new(rt_w(), local->size, local->world);
  c->inter = 1;
  c->rsize = remote->size;
  c->rworld = xmalloc((size_t)(remote->size ? remote->size : 1) * sizeof *c->rworld);
  memcpy(c->rworld, remote->world, (size_t)remote->size * sizeof *c->rworld);
  return c;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm *newintercomm) {
  emu_enter("MPI_Intercomm_create");
  rt_need_init();
  rt_comm *lc = rt_comm_get(local_comm);
  if (lc->inter) emu_fatal("MPI_Intercomm_create: the local communicator is an inter-communicator (MPI_ERR_COMM)");
  if (local_leader < 0 || local_leader >= lc->size) emu_fatal("MPI_Intercomm_create: local leader %d out of range (MPI_ERR_RANK)", local_leader);
  int me = rt_comm_rank(lc), lw = lc->world[local_leader];
  coll_call x;
  memset(&x, 0, sizeof x);
  x.kind = COLL_BARRIER;
  x.rank = me;
  x.size = lc->size;
  rt_coll_timing(lc, &x);
  rt_pending_inter *e = pend_find(0, tag, lw, 1);
  if (!e) {
    e = xcalloc(1, sizeof *e);
    e->tag = tag;
    e->leader = lw;
    e->remote = -1;
    e->size = lc->size;
    e->local = lc;
    VEC_PUSH(rt_w()->pending_inter, e);
  }
  e->joined++;
  if (me == local_leader) {
    rt_comm *pc = rt_comm_get(peer_comm);
    if (remote_leader < 0 || remote_leader >= pc->size) emu_fatal("MPI_Intercomm_create: remote leader %d out of range (MPI_ERR_RANK)", remote_leader);
    e->remote = pc->world[remote_leader];
    if (lc->local[e->remote] >= 0) emu_fatal("MPI_Intercomm_create: the remote leader is in the local group (MPI_ERR_COMM)");
    wake_all(e);
    wake_all(pend_find(0, tag, e->remote, 0));
  }
  /* the first member to see both sides registered makes both objects (the other side's
   * entry may be gone by the time this side's last member gets here) */
  while (!e->result) {
    rt_pending_inter *p = e->remote >= 0 ? pend_find(0, tag, e->remote, 0) : NULL;
    if (p && p->remote == lw) {
      e->result = inter_new(e->local, p->local);
      p->result = inter_new(p->local, e->local);
      e->result->partner = p->result;
      p->result->partner = e->result;
      wake_all(p);
      break;
    }
    wait_on(e);
  }
  *newintercomm = e->result->handle;
  if (++e->left == e->size) pend_remove(e);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  emu_enter("MPI_Intercomm_merge");
  rt_need_init();
  rt_comm *ic = rt_comm_get(intercomm);
  if (!ic->inter) emu_fatal("MPI_Intercomm_merge of an intra-communicator (MPI_ERR_COMM)");
  int me = rt_comm_rank(ic);
  int side = ic->handle < ic->partner->handle ? 0 : 1;
  int key = side ? ic->partner->handle : ic->handle;
  int seq = (int)ic->cseq[me]++;
  rt_pending_inter *m = pend_find(1, seq, key, 0);
  if (!m) {
    m = xcalloc(1, sizeof *m);
    m->merge = 1;
    m->tag = seq;
    m->key = key;
    m->size = ic->size + ic->rsize;
    VEC_PUSH(rt_w()->pending_inter, m);
  }
  m->high[side] = high != 0;
  if (m->arrived[side]++ == 0) wake_all(m);
  while (!m->arrived[0] || !m->arrived[1]) wait_on(m);
  if (!m->result) {
    /* the group that passed high = false first; on a tie, the lower handle's group */
    rt_comm *a = side == 0 ? ic : ic->partner, *b = side == 0 ? ic->partner : ic;
    if (m->high[0] && !m->high[1]) { rt_comm *t = a; a = b; b = t; }
    int n = a->size + b->size;
    int *wr = xmalloc((size_t)n * sizeof *wr);
    memcpy(wr, a->world, (size_t)a->size * sizeof *wr);
    memcpy(wr + a->size, b->world, (size_t)b->size * sizeof *wr);
    m->result = rt_comm_new(rt_w(), n, wr);
    free(wr);
  }
  *newintracomm = m->result->handle;
  if (++m->left == m->size) pend_remove(m);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size) {
  rt_comm *c = rt_comm_get(comm);
  if (!c->inter) emu_fatal("MPI_Comm_remote_size of an intra-communicator (MPI_ERR_COMM)");
  *size = c->rsize;
  return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  rt_comm *c = rt_comm_get(comm);
  if (!c->inter) emu_fatal("MPI_Comm_remote_group of an intra-communicator (MPI_ERR_COMM)");
  *group = rt_group_new(c->rsize, c->rworld);
  return MPI_SUCCESS;
}

void rt_no_inter(const rt_comm *c, const char *what) {
  if (c->inter) emu_fatal("%s on an inter-communicator: psim does not communicate on them (create, merge and free only; MPI_ERR_COMM)", what);
}
