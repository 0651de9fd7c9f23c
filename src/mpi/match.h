/* Message matching queues (internal to src/mpi): for every rank, its posted receives and the
 * sends that arrived before a receive ("unexpected"). Matching is MPI's: the oldest candidate
 * with the same context, source (or any) and tag (or any).
 *
 * Requests with a concrete source and tag sit in hash buckets keyed by (rank, source, tag,
 * context), so matching is O(1) whatever the queue length: a root that posted 65535 receives
 * (a linear gather) does not scan them for every arriving send. Wildcard receives (only from
 * execution-driven programs) sit in a per-rank list and are compared by posting order. */
#ifndef PSIM_MPI_MATCH_H
#define PSIM_MPI_MATCH_H

#include "psim/mpi_layer.h"

typedef struct match_index match_index;

match_index *match_new(int nranks);
void match_free(match_index *m);
void match_post_recv(match_index *m, mpi_req *recv);    /* queue at recv->dst */
void match_post_send(match_index *m, mpi_req *send);    /* queue at send->dst */
/* The oldest posted receive matching send (removed), or NULL. */
mpi_req *match_take_recv(match_index *m, const mpi_req *send);
/* The oldest unexpected send matching recv (removed when take), or NULL. */
mpi_req *match_find_send(match_index *m, int dst, int src, int tag, int ctx, int take);
/* Removes a posted (unmatched) receive from its queue (MPI_Cancel); 0 when it is not queued. */
int match_remove_recv(match_index *m, mpi_req *recv);
/* The rank's posted receives, oldest first (iterate with ->onext). */
mpi_req *match_posted(const match_index *m, int rank);

/* a was posted before b. mpi_req.seq is the count of posts modulo 2^MPI_SEQ_BITS (it shares
 * its word with the flags): b's minus a's, modulo that, is under half of it when a is the
 * older of two requests posted less than 2^45 posts apart. */
static inline int match_posted_before(const mpi_req *a, const mpi_req *b) {
  const uint64_t mod = (uint64_t)1 << MPI_SEQ_BITS;
  uint64_t d = ((uint64_t)b->seq - (uint64_t)a->seq) & (mod - 1);
  return d != 0 && d < mod / 2;
}

#endif
