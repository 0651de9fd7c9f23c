/* SimGrid 3.32's allreduce__ompi: Open MPI's decision among allreduce algorithms, on the
 * communicator size and the bytes of the call (count x datatype size), and on whether the
 * operator commutes. SimGrid's default allreduce runs it for a derived datatype
 * (allreduce__default: "have mpi_ireduce and iallreduce handle derived datatypes correctly"),
 * which only psim run knows of (coll_call.derived): MPICH's allred3 and allred4 (a
 * non-commutative operator on a matrix type) ended 0.04 s late on 10 ranks on MPI_COMM_WORLD.
 *
 * The thresholds are SimGrid's (src/smpi/colls/smpi_openmpi_selector.cpp). Its algorithms 1 and
 * 2 (basic_linear, nonoverlapping) are both redbcast; 3 is rdb, 4 lr, 6 rab_rdb; 5,
 * ompi_ring_segmented, runs lr whenever count < size x segcount (segcount = min(count, 1 MiB /
 * datatype size)), which holds at every size the table chooses it for (at most 16 KiB), so it
 * is lr here. */
#include "mpi/coll_internal.h"

enum { BASIC_LINEAR = 1, NONOVERLAPPING, RECURSIVE_DOUBLING, RING, SEGMENTED_RING, RABENSEIFNER };

/* Open MPI's choice for a non-commutative operator */
static int noncommutative_alg(int n, double b) {
  if (n < 4) return b < 131072 ? RECURSIVE_DOUBLING : BASIC_LINEAR;
  if (n < 8) return RECURSIVE_DOUBLING;
  if (n < 16) return b < 1048576 ? RECURSIVE_DOUBLING : NONOVERLAPPING;
  if (n < 128) return RECURSIVE_DOUBLING;
  if (n < 256) return b < 131072 ? NONOVERLAPPING : b < 524288 ? RECURSIVE_DOUBLING : NONOVERLAPPING;
  if (n < 512) return b < 4096 ? NONOVERLAPPING : b < 524288 ? RECURSIVE_DOUBLING : NONOVERLAPPING;
  return b < 2048 ? NONOVERLAPPING : RECURSIVE_DOUBLING;
}

/* Open MPI's choice for a commutative one */
static int commutative_alg(int n, double b) {
  if (n < 4) {
    if (b < 8) return RING;
    if (b < 4096) return RECURSIVE_DOUBLING;
    if (b < 8192) return RING;
    if (b < 16384) return RECURSIVE_DOUBLING;
    if (b < 65536) return RING;
    if (b < 262144) return SEGMENTED_RING;
    return RABENSEIFNER;
  }
  if (n < 8) return b < 16 ? RING : b < 8192 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 16) return b < 8192 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 32) return b < 64 ? SEGMENTED_RING : b < 4096 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 64) return b < 128 ? SEGMENTED_RING : RABENSEIFNER;
  if (n < 128) return b < 262144 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 256) return b < 131072 ? NONOVERLAPPING : b < 262144 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 512) return b < 4096 ? NONOVERLAPPING : RABENSEIFNER;
  if (n < 2048) return b < 2048 ? NONOVERLAPPING : b < 16384 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  if (n < 4096) {
    if (b < 2048) return NONOVERLAPPING;
    if (b < 4096) return SEGMENTED_RING;
    return b < 16384 ? RECURSIVE_DOUBLING : RABENSEIFNER;
  }
  if (b < 2048) return NONOVERLAPPING;
  if (b < 16384) return SEGMENTED_RING;
  return b < 32768 ? RECURSIVE_DOUBLING : RABENSEIFNER;
}

COLL_ALGO(coll_allreduce_ompi) {
  int alg = c->has_op && !c->commutative ? noncommutative_alg(c->size, c->bytes)
                                         : commutative_alg(c->size, c->bytes);
  switch (alg) {
  case RECURSIVE_DOUBLING: return coll_allreduce_rdb(sel, c, out, err);
  case RING: case SEGMENTED_RING: return coll_allreduce_lr(sel, c, out, err);
  case RABENSEIFNER: return coll_allreduce_rab_rdb(sel, c, out, err);
  default: return coll_allreduce_redbcast(sel, c, out, err);
  }
}
