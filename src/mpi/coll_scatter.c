/* Scatter and scatterv algorithms (tags COLL_TAG_SCATTER, COLL_TAG_SCATTERV). bytes
 * (scatter) or counts[i] (scatterv) is what the root sends to rank i, bytes2 what each rank
 * receives. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_SCATTER, TAGV = COLL_TAG_SCATTERV };

/* SimGrid 3.32's default (scatter__default = colls::iscatter + wait): a non-root irecvs from
 * the root and waits; the root isend_inits to every other rank in rank order, startall,
 * waitall. */
COLL_ALGO(coll_scatter_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (n == 1) return 0;
  if (r != root) {
    coll_irecv(out, root, TAG, c->bytes2);
    coll_waitall(out);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_isend(out, i, TAG, c->bytes);
  coll_waitall(out);
  return 0;
}

/* Open MPI's basic linear: the root sends (blocking) to each rank in rank order. */
COLL_ALGO(coll_scatter_ompi_basic_linear) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (r != root) {
    coll_recv(out, root, TAG, c->bytes2);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_send(out, i, TAG, c->bytes);
  return 0;
}

/* Binomial tree scatter (Open MPI's in-order binomial tree, SimGrid's ompi_binomial): with
 * relative rank v, receive the blocks of the subtree [v, min(v + lowbit(v), n)) from the parent
 * v - lowbit(v), then hand each child v + m its subtree's blocks, SMALLEST m first (the
 * in-order tree lists children by increasing mask). */
COLL_ALGO(coll_scatter_ompi_binomial) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  int v = (r - root + n) % n, mask = 1;
  while (mask < n) {
    if (v & mask) {
      int cnt = (v + mask < n ? v + mask : n) - v;
      coll_recv(out, (r - mask + n) % n, TAG, cnt * c->bytes2);
      break;
    }
    mask <<= 1;
  }
  for (int m = 1; m < mask; m <<= 1) {
    int child = v + m;
    if (child < n) {
      int cnt = (child + m < n ? child + m : n) - child;
      coll_send(out, (child + root) % n, TAG, cnt * c->bytes2);
    }
  }
  return 0;
}

/* SimGrid 3.32's scatterv (colls::iscatterv + wait): as the default scatter, the root sending
 * counts[i] to rank i. */
COLL_ALGO(coll_scatterv_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (n == 1) return 0;
  if (r != root) {
    coll_irecv(out, root, TAGV, c->bytes2);
    coll_waitall(out);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_isend(out, i, TAGV, c->counts[i]);
  coll_waitall(out);
  return 0;
}
