/* Scan and exscan (SimGrid 3.32's only algorithm, colls::scan / colls::exscan): irecv from
 * every lower rank, isend to every higher rank (all of size bytes), start all, then wait for
 * each in that order, one at a time (the replay's MPI_OP_NULL takes the non-commutative
 * branch: Request::wait on each). A rank waits for the first request that is not complete and
 * then finds the later ones complete: each of those waits is a simcall answered at once, a
 * turn given up, so the ranks that a late rank's messages release together go on in the order
 * of how many messages each still had to collect. With a commutative operator (a real program
 * under psim run), SMPI waits with Request::waitany instead, taking each request as it
 * completes: a waitall's semantics. Tags: SimGrid uses -888 for both; psim gives exscan its own. */
#include "mpi/coll_internal.h"

static void linear_scan(const coll_call *c, coll_prog *out, int tag) {
  int n = c->size, r = c->rank;
  if (n == 1) return;
  int first = out->n;
  for (int i = 0; i < r; i++) coll_irecv(out, i, tag, c->bytes);
  for (int i = r + 1; i < n; i++) coll_isend(out, i, tag, c->bytes);
  if (c->commutative) coll_waitall(out);
  else for (int i = 0; i < n - 1; i++) coll_wait(out, first + i);
  /* exscan's lowest contribution starts the result: one combination fewer */
  int folds = tag == COLL_TAG_EXSCAN ? r - 1 : r;
  if (folds > 0) coll_combine(out, c, folds * c->bytes);
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
