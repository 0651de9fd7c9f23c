/* Barrier algorithms (zero-byte messages, tag COLL_TAG_BARRIER), after Open MPI's tuned
 * module as SimGrid ships them in src/smpi/colls/barrier/barrier-ompi.cpp. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_BARRIER };

/* SimGrid 3.32's default (barrier__default = barrier__ompi_basic_linear). Non-roots: blocking
 * send to 0 then blocking receive from 0. Rank 0: irecv from 1..n-1, waitall, then isend to
 * 1..n-1, waitall. (expected/barrier.log: the root leaves last of the sends it posts.) */
COLL_ALGO(coll_barrier_ompi_basic_linear) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  if (r > 0) {
    coll_send(out, 0, TAG, 0);
    coll_recv(out, 0, TAG, 0);
    return 0;
  }
  for (int i = 1; i < n; i++) coll_irecv(out, i, TAG, 0);
  coll_waitall(out);
  for (int i = 1; i < n; i++) coll_isend(out, i, TAG, 0);
  coll_waitall(out);
  return 0;
}

/* Recursive doubling among the largest power of two p <= n; ranks >= p first sendrecv with
 * rank - p (which only receives), and are released by a final send from it. */
COLL_ALGO(coll_barrier_ompi_recursivedoubling) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  int p = coll_pof2_floor(n);
  if (p != n) {
    if (r >= p)
      coll_sendrecv(out, r, r - p, 0, r - p, 0, TAG);
    else if (r < n - p)
      coll_recv(out, r + p, TAG, 0);
  }
  if (r < p)
    for (int mask = 1; mask < p; mask <<= 1) {
      int peer = r ^ mask;
      if (peer < p) coll_sendrecv(out, r, peer, 0, peer, 0, TAG);
    }
  if (p != n && r < n - p) coll_send(out, r + p, TAG, 0);
  return 0;
}

/* Dissemination (Bruck): ceil(log2 n) rounds; in round k send to r+2^k, receive from r-2^k. */
COLL_ALGO(coll_barrier_ompi_bruck) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  for (int d = 1; d < n; d <<= 1)
    coll_sendrecv(out, r, (r + d) % n, 0, (r - d + n) % n, 0, TAG);
  return 0;
}

/* Tree: fan-in up a binomial tree (children send to parents), then fan-out down it. */
COLL_ALGO(coll_barrier_ompi_tree) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, depth = 1;
  while (depth < n) depth <<= 1;
  for (int jump = 1; jump < depth; jump <<= 1) {
    int peer = r ^ jump;
    if (!(peer & (jump - 1)) && peer < n) {
      if (peer > r) coll_recv(out, peer, TAG, 0);
      else if (peer < r) coll_send(out, peer, TAG, 0);
    }
  }
  depth >>= 1;
  for (int jump = depth; jump > 0; jump >>= 1) {
    int peer = r ^ jump;
    if (!(peer & (jump - 1)) && peer < n) {
      if (peer > r) coll_send(out, peer, TAG, 0);
      else if (peer < r) coll_recv(out, peer, TAG, 0);
    }
  }
  return 0;
}

/* Double ring: a token goes twice around the ring 0 -> 1 -> ... -> n-1 -> 0. */
COLL_ALGO(coll_barrier_ompi_doublering) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  int left = (r - 1 + n) % n, right = (r + 1) % n;
  for (int round = 0; round < 2; round++) {
    if (r > 0) coll_recv(out, left, TAG, 0);
    coll_send(out, right, TAG, 0);
    if (r == 0) coll_recv(out, left, TAG, 0);
  }
  return 0;
}
