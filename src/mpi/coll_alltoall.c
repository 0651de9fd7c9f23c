/* Alltoall and alltoallv algorithms (tags COLL_TAG_ALLTOALL, COLL_TAG_ALLTOALLV). bytes is
 * the size sent to each peer, bytes2 the size received from each. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_ALLTOALL, TAGV = COLL_TAG_ALLTOALLV };

/* Open MPI's basic linear: irecv from r+1, r+2, ... (mod n), then isend to r-1, r-2, ...
 * (mod n), start all, wait all. */
COLL_ALGO(coll_alltoall_basic_linear) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  for (int i = (r + 1) % n; i != r; i = (i + 1) % n) coll_irecv(out, i, TAG, c->bytes2);
  int first = out->n;
  for (int i = (r + n - 1) % n; i != r; i = (i + n - 1) % n) coll_isend(out, i, TAG, c->bytes);
  coll_mark_user(out, first);
  coll_waitall(out);
  return 0;
}

/* Ring: in step i = 1..n-1, sendrecv to r+i and from r-i. */
COLL_ALGO(coll_alltoall_ring) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, first = out->n;
  for (int i = 1; i < n; i++)
    coll_sendrecv(out, r, (r + i) % n, c->bytes, (r - i + n) % n, c->bytes2, TAG);
  coll_mark_user(out, first);
  return 0;
}

/* Pairwise exchange: in step i = 1..n-1, sendrecv with r XOR i. Only defined for a power of
 * two number of ranks: SimGrid 3.32 throws ("alltoall pair algorithm can't be used with non
 * power of two number of processes!") and aborts the simulation. psim instead runs the ring
 * exchange (step i: to r+i, from r-i), which is MPICH's pairwise algorithm for the
 * non-power-of-two case: same n-1 steps of one message each way, every rank busy in every
 * step. */
COLL_ALGO(coll_alltoall_pair) {
  int n = c->size, r = c->rank;
  if (!coll_is_pof2(n)) return coll_alltoall_ring(sel, c, out, err);
  int first = out->n;
  for (int i = 1; i < n; i++) coll_sendrecv(out, r, r ^ i, c->bytes, r ^ i, c->bytes2, TAG);
  coll_mark_user(out, first);
  return 0;
}

/* Bruck (MPICH, as in SimGrid): local rotations (self sendrecv: no message), then for each
 * power of two p < n one sendrecv to r+p from r-p carrying the blocks whose index has bit p
 * set, then local inverse rotation. */
COLL_ALGO(coll_alltoall_bruck) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  for (int p = 1; p < n; p <<= 1) {
    /* blocks b in [1, n) with bit p set: p per full period of 2p, plus the tail */
    int nb = (n / (2 * p)) * p + (n % (2 * p) > p ? n % (2 * p) - p : 0);
    coll_sendrecv(out, r, (r + p) % n, nb * c->bytes, (r - p + n) % n, nb * c->bytes, TAG);
  }
  return 0;
}

/* Open MPI 4's fixed decision (coll_tuned_decision_fixed.c), as SimGrid 3.32's alltoall__ompi
 * and hence its default: algorithm by communicator size and per-peer block size.
 * 1 linear, 2 pairwise, 3 modified bruck, 4 linear_sync, 5 two_proc; SimGrid runs 1, 4 and 5
 * as basic_linear, 2 as pair, 3 as bruck. */
static int ompi_alltoall_decision(int n, double s) {
  if (n == 2) {
    if (s < 2) return 2;
    if (s < 4) return 5;
    if (s < 16) return 2;
    if (s < 64) return 5;
    if (s < 256) return 2;
    if (s < 4096) return 5;
    if (s < 32768) return 2;
    if (s < 262144) return 4;
    if (s < 1048576) return 5;
    return 2;
  }
  if (n < 8) {
    if (s < 8192) return 4;
    if (s < 16384) return 1;
    if (s < 65536) return 4;
    if (s < 524288) return 1;
    if (s < 1048576) return 2;
    return 1;
  }
  if (n < 16) return s < 262144 ? 4 : 1;
  if (n < 32) {
    if (s < 4) return 4;
    if (s < 512) return 3;
    if (s < 8192) return 4;
    if (s < 32768) return 1;
    if (s < 262144) return 4;
    if (s < 524288) return 1;
    return 4;
  }
  if (n < 64) {
    if (s < 512) return 3;
    if (s < 524288) return 1;
    return 4;
  }
  if (n < 128) {
    if (s < 1024) return 3;
    if (s < 2048) return 1;
    if (s < 4096) return 4;
    if (s < 262144) return 1;
    return 2;
  }
  if (n < 256) {
    if (s < 1024) return 3;
    if (s < 2048) return 4;
    if (s < 262144) return 1;
    return 2;
  }
  if (n < 512) {
    if (s < 1024) return 3;
    if (s < 8192) return 4;
    if (s < 32768) return 1;
    return 2;
  }
  if (n < 1024) {
    if (s < 512) return 3;
    if (s < 8192) return 4;
    if (s < 16384) return 1;
    if (s < 131072) return 4;
    if (s < 262144) return 1;
    return 2;
  }
  if (n < 2048) {
    if (s < 512) return 3;
    if (s < 1024) return 4;
    if (s < 2048) return 1;
    if (s < 16384) return 4;
    if (s < 262144) return 1;
    return 4;
  }
  if (n < 4096) {
    if (s < 1024) return 3;
    if (s < 4096) return 4;
    if (s < 8192) return 1;
    if (s < 131072) return 4;
    return 1;
  }
  if (s < 2048) return 3;
  if (s < 8192) return 4;
  if (s < 16384) return 1;
  if (s < 32768) return 4;
  if (s < 65536) return 1;
  return 4;
}

/* SimGrid 3.32's default (alltoall__default = alltoall__ompi). The size SimGrid decides on is
 * sendcount x sizeof(sendtype) = bytes. Where the table picks pairwise for a non-power-of-two
 * size (3..7 ranks with 512 KiB..1 MiB blocks), SimGrid aborts; psim runs the ring fallback
 * of coll_alltoall_pair (documented there). */
COLL_ALGO(coll_alltoall_default) {
  switch (ompi_alltoall_decision(c->size, c->bytes)) {
  case 2: return coll_alltoall_pair(sel, c, out, err);
  case 3: return coll_alltoall_bruck(sel, c, out, err);
  default: return coll_alltoall_basic_linear(sel, c, out, err);
  }
}

/* SimGrid 3.32's default alltoallv (colls::ialltoallv + wait): irecv from every other rank in
 * rank order (size counts2[i]), then isend to every other rank in rank order (counts[i]),
 * start all, wait all. */
COLL_ALGO(coll_alltoallv_default) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank;
  if (n == 1) return 0;
  for (int i = 0; i < n; i++)
    if (i != r) coll_irecv(out, i, TAGV, c->counts2[i]);
  int first = out->n;
  for (int i = 0; i < n; i++)
    if (i != r) coll_isend(out, i, TAGV, c->counts[i]);
  coll_mark_user(out, first);
  coll_waitall(out);
  return 0;
}

/* SimGrid's alltoallv ring: step i = 1..n-1 exchanges with r XOR i when n is a power of two,
 * else sends to r+i and receives from r-i. Also psim's alltoallv "pair" (SimGrid's refuses
 * non-powers of two; psim falls back to the ring steps). */
COLL_ALGO(coll_alltoallv_ring) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, x = coll_is_pof2(n), first = out->n;
  for (int i = 1; i < n; i++) {
    int dst = x ? r ^ i : (r + i) % n, src = x ? r ^ i : (r - i + n) % n;
    coll_sendrecv(out, r, dst, c->counts[dst], src, c->counts2[src], TAGV);
  }
  coll_mark_user(out, first);
  return 0;
}
