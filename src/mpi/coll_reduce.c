/* Reduce algorithms (tag COLL_TAG_REDUCE). In replay the reduction's flops are executed by
 * the caller after the communication, so no CO_COMPUTE is emitted here; under psim run each
 * contribution received is marked where the algorithm receives it (coll_combine), so that the
 * driver knows how much each rank combines. */
#include "mpi/coll_internal.h"

enum { TAG = COLL_TAG_REDUCE };

/* SimGrid 3.32's default: reduce__default with MPI_OP_NULL (what replay passes) skips the
 * non-commutative branch and runs colls::ireduce + wait: a non-root isends its buffer to the
 * root and waits; the root irecv_inits one request per other rank in rank order, startall,
 * waitall. With a real operator that is not commutative, or a derived datatype (psim run
 * knows both), it runs reduce__ompi_basic_linear instead, which folds the contributions in a
 * fixed order: blocking sends to the root, which receives them one at a time from the highest
 * rank down, the messages of coll_reduce_flat_tree. (MPICH's coll10, a non-commutative user
 * operator, ended 0.00511 s early at 4 ranks on small_platform; redscat2, whose reduce_scatter
 * reduces to rank 0 first, 0.10 s early.) */
COLL_ALGO(coll_reduce_default) {
  if (c->has_op && (c->derived || !c->commutative)) return coll_reduce_flat_tree(sel, c, out, err);
  (void)sel; (void)err;
  coll_linear_fanin(out, c, TAG, c->bytes, c->bytes);
  if (c->rank == c->root) coll_combine(out, c, (c->size - 1) * c->bytes);
  return 0;
}

/* Binomial tree (MPICH): with relative rank v, receive (blocking) from v|m for increasing
 * masks m while bit m of v is clear, then send the partial result to v & ~m. */
COLL_ALGO(coll_reduce_binomial) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  int v = (r - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (!(v & mask)) {
      int src = v | mask;
      if (src < n) {
        coll_recv(out, (src + root) % n, TAG, c->bytes);
        coll_combine(out, c, c->bytes);
      }
    } else {
      coll_send(out, ((v & ~mask) + root) % n, TAG, c->bytes);
      break;
    }
  }
  return 0;
}

/* Flat tree (SimGrid's flat_tree; its reduce__ompi_basic_linear sends the same messages in the
 * same order): every rank sends (blocking) to the root, which receives them one by one from
 * the highest rank down to rank 0 (the reduction folds from the top). */
COLL_ALGO(coll_reduce_flat_tree) {
  (void)sel; (void)err;
  int n = c->size, r = c->rank, root = c->root;
  if (r != root) {
    coll_send(out, root, TAG, c->bytes);
    return 0;
  }
  for (int i = n - 1; i >= 0; i--)
    if (i != root) {
      coll_recv(out, i, TAG, c->bytes);
      coll_combine(out, c, c->bytes);
    }
  return 0;
}
