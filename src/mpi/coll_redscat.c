/* Reduce_scatter algorithms (tag COLL_TAG_REDUCE_SCATTER unless composed). counts2[i] is the
 * size of rank i's share of the result. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_REDUCE_SCATTER };

static double total(const coll_call *c) {
  double t = 0;
  for (int i = 0; i < c->size; i++) t += c->counts2[i];
  return t;
}

/* MPICH's pairwise exchange: step i = 1..n-1, send the share of r+i to r+i, receive the own
 * share's contribution from r-i. */
COLL_ALGO(coll_reduce_scatter_mpich_pair) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  for (int i = 1; i < n; i++) {
    int dst = (r + i) % n, src = (r - i + n) % n;
    coll_sendrecv(out, r, dst, c->counts2[dst], src, c->counts2[r], TAG);
    coll_combine(out, c, c->counts2[r]);
  }
  return 0;
}

/* Sum of the shares of the subtree [root, root+mask) clipped to n. */
static double held(const coll_call *c, int root, int mask) {
  double s = 0;
  for (int j = root; j < root + mask && j < c->size; j++) s += c->counts2[j];
  return s;
}

/* MPICH's recursive doubling: step i (mask 2^i) exchanges with r ^ mask everything but the
 * shares of the own (resp. the partner's) aligned subtree; ranks whose partner does not exist
 * (n not a power of two) get the data from a rank of their subtree that has it (the same
 * logarithmic fix-up as MPICH's allgather). */
COLL_ALGO(coll_reduce_scatter_mpich_rdb) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  double all = total(c);
  for (int mask = 1, i = 0; mask < n; mask <<= 1, i++) {
    int dst = r ^ mask;
    int dst_tree_root = (dst >> i) << i, my_tree_root = (r >> i) << i;
    double sbytes = all - held(c, my_tree_root, mask);
    double rbytes = all - held(c, dst_tree_root, mask);
    if (dst < n) {
      coll_sendrecv(out, r, dst, sbytes, dst, rbytes, TAG);
      coll_combine(out, c, rbytes);
    }
    if (dst_tree_root + mask > n) {
      int done = n - my_tree_root - mask;
      int k = 0;
      for (int j = mask; j; j >>= 1) k++;
      k--;
      for (int tmp = mask >> 1; tmp > 0; tmp >>= 1, k--) {
        int d = r ^ tmp;
        int tree_root = (r >> k) << k;
        if (d > r && r < tree_root + done && d >= tree_root + done)
          coll_send(out, d, TAG, rbytes);
        else if (d < r && d < tree_root + done && r >= tree_root + done)
          coll_recv(out, d, TAG, rbytes);
      }
    }
  }
  return 0;
}

/* SimGrid 3.32's default (reduce_scatter__default): when every share has the same size,
 * reduce__default of the whole buffer to rank 0 then colls::scatterv of the shares from 0;
 * otherwise reduce_scatter__mpich, which (replay passes MPI_OP_NULL, i.e. commutative) runs
 * mpich_pair above 524288 elements in total and mpich_rdb otherwise. */
COLL_ALGO(coll_reduce_scatter_default) {
  int n = c->size;
  int regular = 1;
  for (int i = 1; i < n; i++)
    if (c->counts2[i] != c->counts2[0]) regular = 0;
  if (!regular) {
    if (total(c) / coll_dtsize(c) > 524288) return coll_reduce_scatter_mpich_pair(sel, c, out, err);
    return coll_reduce_scatter_mpich_rdb(sel, c, out, err);
  }
  coll_call s = *c;
  s.kind = COLL_REDUCE;
  s.root = 0;
  s.bytes = s.bytes2 = total(c);
  if (coll_reduce_default(sel, &s, out, err)) return -1;
  s = *c;
  s.kind = COLL_SCATTERV;
  s.root = 0;
  s.counts = c->counts2;
  s.bytes2 = c->counts2[c->rank];
  return coll_scatterv_default(sel, &s, out, err);
}
