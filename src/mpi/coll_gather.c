/* Gather and gatherv algorithms (tags COLL_TAG_GATHER, COLL_TAG_GATHERV). bytes is what each
 * rank sends, bytes2 (gather) or counts2[i] (gatherv) what the root receives from rank i. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_GATHER, TAGV = COLL_TAG_GATHERV };

/* SimGrid 3.32's default (gather__default = colls::igather + wait): a non-root isends to the
 * root and waits; the root irecv_inits from every other rank in rank order, startall,
 * waitall. */
COLL_ALGO(coll_gather_default) {
  (void)sel; (void)err;
  coll_linear_fanin(out, c, TAG, c->bytes, c->bytes2);
  return 0;
}

/* Open MPI's basic linear: blocking sends to the root, which receives them one at a time in
 * rank order. */
COLL_ALGO(coll_gather_ompi_basic_linear) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (r != root) {
    coll_send(out, root, TAG, c->bytes);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_recv(out, i, TAG, c->bytes2);
  return 0;
}

/* Binomial tree gather: with relative rank v, receive from the children v + m (m = 1, 2, 4...
 * below lowbit(v)) the blocks of their subtrees, then send the whole subtree
 * [v, min(v + lowbit(v), n)) to the parent v - lowbit(v). */
COLL_ALGO(coll_gather_ompi_binomial) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  int v = (r - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      int cnt = (v + mask < n ? v + mask : n) - v;
      coll_send(out, (r - mask + n) % n, TAG, cnt * c->bytes);
      return 0;
    }
    int child = v + mask;
    if (child < n) {
      int cnt = (child + mask < n ? child + mask : n) - child;
      coll_recv(out, (child + root) % n, TAG, cnt * c->bytes);
    }
  }
  return 0;
}

/* SimGrid 3.32's gatherv (colls::igatherv + wait): as the default gather, with the root
 * receiving counts2[i] from rank i. */
COLL_ALGO(coll_gatherv_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (n == 1) return 0;
  if (r != root) {
    coll_isend(out, root, TAGV, c->bytes);
    coll_waitall(out);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_irecv(out, i, TAGV, c->counts2[i]);
  coll_waitall(out);
  return 0;
}
