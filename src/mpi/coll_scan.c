/* Scan and exscan (SimGrid 3.32's only algorithm, colls::scan / colls::exscan): irecv from
 * every lower rank, isend to every higher rank (all of size bytes), start all, wait for all
 * (in order: replay's MPI_OP_NULL takes the non-commutative branch; waiting in order or all at
 * once ends at the same time). Tags: SimGrid uses -888 for both; psim gives exscan its own. */
#include "mpi/coll_internal.h"

static void linear_scan(const coll_call *c, coll_prog *out, int tag) {
  int n = c->size, r = c->rank;
  if (n == 1) return;
  for (int i = 0; i < r; i++) coll_irecv(out, i, tag, c->bytes);
  for (int i = r + 1; i < n; i++) coll_isend(out, i, tag, c->bytes);
  coll_waitall(out);
}

COLL_ALGO(coll_scan_default) {
  (void)sel; (void)err;
  linear_scan(c, out, COLL_TAG_SCAN);
  return 0;
}

COLL_ALGO(coll_exscan_default) {
  (void)sel; (void)err;
  linear_scan(c, out, COLL_TAG_EXSCAN);
  return 0;
}
