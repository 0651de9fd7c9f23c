/* Recursive-doubling allgather (MPICH), for any number of ranks.
 *
 * Step i (mask = 2^i) exchanges, with relative partner v ^ mask, everything each side's
 * aligned subtree of size mask holds. When n is not a power of two a partner may not exist;
 * then the ranks of the subtree that did get the partner's data forward it, inside their own
 * subtree, to those that did not (MPICH's logarithmic "nprocs_completed" fix-up). Sizes are
 * exact: what a subtree holds is the sum of its blocks, so sender and receiver always agree. */
#include "mpi/coll_internal.h"

/* Bytes held by the subtree [root, root+mask) clipped to n ranks and to the buffer. */
static double held(int n, double ss, double total, int root, int mask) {
  if (root >= n) return 0;
  int end = root + mask < n ? root + mask : n;
  double hi = end * ss < total ? end * ss : total;
  double lo = root * ss < total ? root * ss : total;
  return hi - lo;
}

void coll_rdb_allgather(coll_prog *out, int rank, int n, int base, double ss, double total,
                        int tag) {
  int v = (rank - base + n) % n;
  for (int mask = 1, i = 0; mask < n; mask <<= 1, i++) {
    int dv = v ^ mask;
    int dst_tree_root = (dv >> i) << i, my_tree_root = (v >> i) << i;
    double recvd = held(n, ss, total, dst_tree_root, mask);
    if (dv < n)
      coll_sendrecv(out, rank, (dv + base) % n, held(n, ss, total, my_tree_root, mask),
                    (dv + base) % n, recvd, tag);
    if (dst_tree_root + mask > n) {
      int done = n - my_tree_root - mask; /* ranks of my subtree that got the data */
      int k = 0;
      for (int j = mask; j; j >>= 1) k++;
      k--;
      for (int tmp = mask >> 1; tmp > 0; tmp >>= 1, k--) {
        int pv = v ^ tmp;
        int tree_root = (v >> k) << k;
        if (pv > v && v < tree_root + done && pv >= tree_root + done)
          coll_send(out, (pv + base) % n, tag, recvd);
        else if (pv < v && pv < tree_root + done && v >= tree_root + done)
          coll_recv(out, (pv + base) % n, tag, recvd);
      }
    }
  }
}
