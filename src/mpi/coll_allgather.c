/* Allgather and allgatherv algorithms (tags COLL_TAG_ALLGATHER, COLL_TAG_ALLGATHERV). bytes is
 * what each rank contributes, bytes2 (allgather) or counts2[i] (allgatherv) what is received
 * from rank i. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_ALLGATHER, TAGV = COLL_TAG_ALLGATHERV };

/* SimGrid 3.32's default (allgather__default = colls::iallgather + wait): for every other rank
 * in rank order, isend_init then irecv_init; startall; waitall. */
COLL_ALGO(coll_allgather_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  for (int i = 0; i < n; i++)
    if (i != r) {
      coll_isend(out, i, TAG, c->bytes);
      coll_irecv(out, i, TAG, c->bytes2);
    }
  coll_waitall(out);
  return 0;
}

/* SimGrid's ring: step i = 1..n-1, sendrecv of the own block to r+i, of r-i's block from r-i. */
COLL_ALGO(coll_allgather_ring) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  for (int i = 1; i < n; i++)
    coll_sendrecv(out, r, (r + i) % n, c->bytes, (r - i + n) % n, c->bytes2, TAG);
  return 0;
}

/* Pairwise: step i = 1..n-1, sendrecv with r XOR i (power-of-two sizes; otherwise, where
 * SimGrid refuses, the ring above). */
COLL_ALGO(coll_allgather_pair) {
  int n = c->size, r = c->rank;
  if (!coll_is_pof2(n)) return coll_allgather_ring(sel, c, out, err);
  for (int i = 1; i < n; i++) coll_sendrecv(out, r, r ^ i, c->bytes, r ^ i, c->bytes2, TAG);
  return 0;
}

/* Recursive doubling (MPICH) with its non-power-of-two fix-up (coll_rdb.c). */
COLL_ALGO(coll_allgather_rdb) {
  (void)sel; (void)err;
  coll_rdb_allgather(out, c->rank, c->size, 0, c->bytes2, c->size * c->bytes2, TAG);
  return 0;
}

/* Bruck: in step k (p = 2^k while p <= n/2) send the p blocks gathered so far to r-p and
 * receive p blocks from r+p; a last step moves the remaining n-p blocks. */
COLL_ALGO(coll_allgather_bruck) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, p = 1;
  for (; p <= n / 2; p <<= 1)
    coll_sendrecv(out, r, (r - p + n) % n, p * c->bytes2, (r + p) % n, p * c->bytes2, TAG);
  if (n - p > 0)
    coll_sendrecv(out, r, (r - p + n) % n, (n - p) * c->bytes2, (r + p) % n,
                  (n - p) * c->bytes2, TAG);
  return 0;
}

/* SimGrid 3.32's default allgatherv (colls::iallgatherv + waitall): as the default allgather,
 * receiving counts2[i] from rank i. */
COLL_ALGO(coll_allgatherv_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  for (int i = 0; i < n; i++)
    if (i != r) {
      coll_isend(out, i, TAGV, c->bytes);
      coll_irecv(out, i, TAGV, c->counts2[i]);
    }
  coll_waitall(out);
  return 0;
}

/* Ring for allgatherv: step i sends the own block to r+i, receives r-i's block. */
COLL_ALGO(coll_allgatherv_ring) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  for (int i = 1; i < n; i++) {
    int src = (r - i + n) % n;
    coll_sendrecv(out, r, (r + i) % n, c->bytes, src, c->counts2[src], TAGV);
  }
  return 0;
}
