/* Allreduce algorithms (tag COLL_TAG_ALLREDUCE unless composed of other collectives). */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_ALLREDUCE };

static coll_call sub(const coll_call *c, coll_kind k, int root) {
  coll_call s = *c;
  s.kind = k;
  s.root = root;
  s.bytes2 = c->bytes;
  return s;
}

/* SimGrid 3.32's default (allreduce__default for non-derived types): reduce__default to root
 * 0, then bcast__default (binomial tree) from 0; each keeps its own tag. expected/allreduce.log
 * shows exactly this: rank 0 finishes first, the others one binomial step later. For a derived
 * datatype (psim run only) it is Open MPI's decision instead (coll_allreduce_ompi.c). */
COLL_ALGO(coll_allreduce_default) {
  if (c->has_op && c->derived) return coll_allreduce_ompi(sel, c, out, err);
  coll_call s = sub(c, COLL_REDUCE, 0);
  if (coll_reduce_default(sel, &s, out, err)) return -1;
  s = sub(c, COLL_BCAST, 0);
  return coll_bcast_binomial_tree(sel, &s, out, err);
}

/* Reduce then bcast with the algorithms the selector has for them (SimGrid's redbcast calls
 * colls::reduce and colls::bcast). */
COLL_ALGO(coll_allreduce_redbcast) {
  coll_selector def;
  if (!sel) {
    coll_selector_init(&def);
    sel = &def;
  }
  coll_call s = sub(c, COLL_REDUCE, 0);
  if (coll_build(sel, &s, out, err)) return -1;
  s = sub(c, COLL_BCAST, 0);
  return coll_build(sel, &s, out, err);
}

/* Logical ring (SimGrid's lr, by Patarasuk & Yuan): the buffer is cut into n blocks of
 * floor(count/n) elements; n-1 sendrecv steps of ring reduce-scatter then n-1 of ring
 * allgather, each to the right neighbour and from the left one. Fewer elements than ranks:
 * redbcast instead (as SimGrid; with the default reduce and bcast, the default allreduce of a
 * predefined datatype); a remainder of count % n elements is reduced afterwards by the
 * default allreduce. */
COLL_ALGO(coll_allreduce_lr) {
  int n = c->size, r = c->rank;
  double dts = coll_dtsize(c);
  double count = (double)(long long)(c->bytes / dts);
  if (count < n) return coll_allreduce_redbcast(sel, c, out, err);
  double per = (double)(long long)(count / n);
  double rem = count - per * n;
  double blk = per * dts;
  int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int i = 0; i < 2 * (n - 1); i++) {
    coll_sendrecv(out, r, right, blk, left, blk, TAG);
    if (i < n - 1) coll_combine(out, c, blk);   /* the reduce-scatter half */
  }
  if (rem > 0) {
    coll_call s = *c;
    s.bytes = rem * dts;
    return coll_allreduce_default(sel, &s, out, err);
  }
  return 0;
}

/* Real rank of "new rank" nr in the power-of-two group of the rdb-style algorithms: the first
 * 2*rem ranks pair up (even ones drop out), the others shift down by rem. */
static int real_rank(int nr, int rem) { return nr < rem ? nr * 2 + 1 : nr + rem; }

/* Folds the non-power-of-two ranks in: ranks < 2*rem that are even send their data to rank+1
 * (which combines it with its own) and sit out. Returns the rank's new rank, -1 when it sits
 * out. */
static int fold_in(coll_prog *out, const coll_call *c, int r, int rem, double bytes) {
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      coll_send(out, r + 1, TAG, bytes);
      return -1;
    }
    coll_recv(out, r - 1, TAG, bytes);
    coll_combine(out, c, bytes);
    return r / 2;
  }
  return r - rem;
}

/* Gives the result back to the ranks that sat out. */
static void fold_out(coll_prog *out, int r, int rem, double bytes) {
  if (r < 2 * rem) {
    if (r % 2) coll_send(out, r - 1, TAG, bytes);
    else coll_recv(out, r + 1, TAG, bytes);
  }
}

/* Recursive doubling (MPICH, SimGrid's rdb): fold to the largest power of two p <= n, log2 p
 * sendrecv steps of the whole buffer with newrank ^ mask, unfold. */
COLL_ALGO(coll_allreduce_rdb) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  int p = coll_pof2_floor(n), rem = n - p;
  int nr = fold_in(out, c, r, rem, c->bytes);
  if (nr >= 0)
    for (int mask = 1; mask < p; mask <<= 1) {
      int dst = real_rank(nr ^ mask, rem);
      coll_sendrecv(out, r, dst, c->bytes, dst, c->bytes, TAG);
      coll_combine(out, c, c->bytes);
    }
  fold_out(out, r, rem, c->bytes);
  return 0;
}

/* Rabenseifner (MPICH, SimGrid's rab_rdb): fold to a power of two p, reduce-scatter by
 * recursive halving, allgather by recursive doubling, unfold. The buffer is cut in p blocks of
 * floor(count/p) elements, the last one taking the rest. */
COLL_ALGO(coll_allreduce_rab_rdb) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  int p = coll_pof2_floor(n), rem = n - p;
  double dts = coll_dtsize(c);
  double count = (double)(long long)(c->bytes / dts);
  double base = (double)(long long)(count / p) * dts;
  double last = c->bytes - base * (p - 1);
  /* bytes of blocks [a, b): all are `base` except the last one */
#define SUM(a, b) ((b) > (a) ? ((b) - (a)) * base + ((b) == p ? last - base : 0) : 0)
  int nr = fold_in(out, c, r, rem, c->bytes);
  if (nr >= 0) {
    int send_idx = 0, recv_idx = 0, last_idx = p, mask = 1;
    while (mask < p) {
      int nd = nr ^ mask, dst = real_rank(nd, rem);
      double sc, rc;
      if (nr < nd) {
        send_idx = recv_idx + p / (mask * 2);
        sc = SUM(send_idx, last_idx);
        rc = SUM(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + p / (mask * 2);
        sc = SUM(send_idx, recv_idx);
        rc = SUM(recv_idx, last_idx);
      }
      coll_sendrecv(out, r, dst, sc, dst, rc, TAG);
      coll_combine(out, c, rc);   /* reduce-scatter: the received half is reduced */
      send_idx = recv_idx;
      mask <<= 1;
      if (mask < p) last_idx = recv_idx + p / mask;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      int nd = nr ^ mask, dst = real_rank(nd, rem);
      double sc, rc;
      if (nr < nd) {
        if (mask != p / 2) last_idx = last_idx + p / (mask * 2);
        recv_idx = send_idx + p / (mask * 2);
        sc = SUM(send_idx, recv_idx);
        rc = SUM(recv_idx, last_idx);
      } else {
        recv_idx = send_idx - p / (mask * 2);
        sc = SUM(send_idx, last_idx);
        rc = SUM(recv_idx, send_idx);
      }
      coll_sendrecv(out, r, dst, sc, dst, rc, TAG);
      if (nr > nd) send_idx = recv_idx;
    }
  }
#undef SUM
  fold_out(out, r, rem, c->bytes);
  return 0;
}
