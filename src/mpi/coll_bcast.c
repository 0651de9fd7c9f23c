/* Broadcast algorithms (tag COLL_TAG_BCAST). */
#include <math.h>

#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_BCAST };

/* SimGrid 3.32's default (bcast__default = bcast__binomial_tree, from MPICH). With relative
 * rank v = (r - root) mod n: receive (blocking) from v - lowbit(v), then send (blocking) to
 * v + m for the masks m below lowbit(v), largest first. On 3 ranks the root sends to 2 before
 * 1, as expected/bcast.log shows. */
COLL_ALGO(coll_bcast_binomial_tree) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  int v = (r - root + n) % n, mask = 1;
  while (mask < n) {
    if (v & mask) {
      coll_recv(out, (r - mask + n) % n, TAG, c->bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) coll_send(out, (r + mask) % n, TAG, c->bytes);
  return 0;
}

/* Flat tree: the root isends to every other rank in rank order and waits for all. */
COLL_ALGO(coll_bcast_flattree) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (r != c->root) {
    coll_recv(out, c->root, TAG, c->bytes);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (i != r) coll_isend(out, i, TAG, c->bytes);
  coll_waitall(out);
  return 0;
}

/* Size of chunk i when `total` bytes are cut into n chunks of ceil(total/n) (MPICH's
 * scatter_size): the last chunks may be short or empty. */
static double chunk(double total, double ss, int i) {
  double b = total - i * ss;
  return b <= 0 ? 0 : (b < ss ? b : ss);
}

/* Bytes held by the binomial subtree of relative rank v whose lowest set bit is `mask`:
 * chunks v .. min(v+mask, n)-1. */
static double subtree(double total, double ss, int v, int mask, int n) {
  int end = v + mask < n ? v + mask : n;
  double hi = end * ss < total ? end * ss : total;
  double lo = v * ss;
  return hi > lo ? hi - lo : 0;
}

/* MPICH's scatter_for_bcast: a binomial scatter of the buffer cut in n chunks; empty pieces
 * are not sent. */
static void scatter_for_bcast(const coll_call *c, double ss, coll_prog *out) {
  int n = c->size, r = c->rank, root = c->root;
  int v = (r - root + n) % n, mask = 1;
  while (mask < n) {
    if (v & mask) {
      double b = subtree(c->bytes, ss, v, mask, n);
      if (b > 0) coll_recv(out, (r - mask + n) % n, TAG, b);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) {
      double b = subtree(c->bytes, ss, v + mask, mask, n);
      if (b > 0) coll_send(out, (r + mask) % n, TAG, b);
    }
}

/* Scatter then ring allgather (MPICH's long-message broadcast, SimGrid's
 * scatter_LR_allgather): n-1 ring steps, each forwarding to the right the chunk received from
 * the left in the previous step (sendrecv, zero-byte chunks included). */
COLL_ALGO(coll_bcast_scatter_LR_allgather) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (n == 1) return 0;
  double ss = ceil(c->bytes / n);
  scatter_for_bcast(c, ss, out);
  int left = (r - 1 + n) % n, right = (r + 1) % n;
  int v = (r - root + n) % n, j = v, jnext = (v - 1 + n) % n;
  for (int i = 1; i < n; i++) {
    coll_sendrecv(out, r, right, chunk(c->bytes, ss, j), left, chunk(c->bytes, ss, jnext), TAG);
    j = jnext;
    jnext = (jnext - 1 + n) % n;
  }
  return 0;
}

/* Scatter then recursive-doubling allgather (MPICH's medium-message broadcast). */
COLL_ALGO(coll_bcast_scatter_rdb_allgather) {
  (void)sel; (void)err;
  int n = c->size;
  if (n == 1) return 0;
  double ss = ceil(c->bytes / n);
  scatter_for_bcast(c, ss, out);
  coll_rdb_allgather(out, c->rank, n, c->root, ss, c->bytes, TAG);
  return 0;
}
