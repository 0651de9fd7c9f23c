/* Internals of the collectives (src/mpi/coll*.c): how algorithms emit point-to-point
 * operations, and the table of algorithms the selector chooses from.
 *
 * Every algorithm is a function that appends ONE rank's operations for one call to a coll_prog.
 * Algorithms compose: SimGrid's default allreduce is literally "reduce to 0, then binomial bcast
 * from 0", and is written here as two calls. Blocking sendrecv (SimGrid's Request::sendrecv:
 * isend_init + irecv_init + startall + waitall, or a local copy when both peers are self) is
 * coll_sendrecv(). */
#ifndef PSIM_COLL_INTERNAL_H
#define PSIM_COLL_INTERNAL_H

#include "psim/coll.h"

/* System tags, one per collective kind: SimGrid's COLL_TAG_* values, so that traces of our
 * programs read like SimGrid's. They live in the collectives' own context and never match
 * user messages. */
enum {
  COLL_TAG_REDUCE = -112, COLL_TAG_SCATTER = -223, COLL_TAG_SCATTERV = -334,
  COLL_TAG_GATHER = -445, COLL_TAG_ALLGATHER = -556, COLL_TAG_ALLGATHERV = -667,
  COLL_TAG_BARRIER = -778, COLL_TAG_SCAN = -888, COLL_TAG_REDUCE_SCATTER = -889,
  COLL_TAG_EXSCAN = -890, COLL_TAG_ALLTOALLV = -1000, COLL_TAG_ALLTOALL = -1112,
  COLL_TAG_GATHERV = -2223, COLL_TAG_BCAST = -3334, COLL_TAG_ALLREDUCE = -4445
};

/* SimGrid's send-is-detached threshold is irrelevant here: programs only say isend/send, the
 * MPI layer decides detached vs rendez-vous from the size. */

void coll_emit(coll_prog *p, coll_opkind k, int peer, int tag, double bytes);
static inline void coll_isend(coll_prog *p, int peer, int tag, double b) { coll_emit(p, CO_ISEND, peer, tag, b); }
static inline void coll_irecv(coll_prog *p, int peer, int tag, double b) { coll_emit(p, CO_IRECV, peer, tag, b); }
static inline void coll_send(coll_prog *p, int peer, int tag, double b) { coll_emit(p, CO_SEND, peer, tag, b); }
static inline void coll_recv(coll_prog *p, int peer, int tag, double b) { coll_emit(p, CO_RECV, peer, tag, b); }
static inline void coll_waitall(coll_prog *p) { coll_emit(p, CO_WAITALL, -1, 0, 0); }
/* waits for the request started by op number `op` of this program */
static inline void coll_wait(coll_prog *p, int op) { coll_emit(p, CO_WAIT, op, 0, 0); }
/* The sends from op `from` on send blocks of the caller's own send buffer as they lie, with no
 * copy by the MPI first (coll_op.user): MPICH's alltoall and alltoallv (pairwise, scattered,
 * their ring), Open MPI's linear and pairwise ones. Bruck's rotations are copies. */
void coll_mark_user(coll_prog *p, int from);
/* The rank applies the call's operator to `bytes` it has just received (CO_COMBINE): nothing
 * for a call without a real operator (replay), so replayed programs stay SimGrid's. */
void coll_combine(coll_prog *p, const coll_call *c, double bytes);
/* MPI_Sendrecv as SimGrid does it: isend, irecv, waitall; nothing at all when both peers are
 * the caller itself (SimGrid copies locally). */
void coll_sendrecv(coll_prog *p, int me, int dst, double sbytes, int src, double rbytes, int tag);

/* Recursive-doubling allgather with MPICH's non-power-of-two fix-up (coll_rdb.c), shared by
 * allgather rdb and bcast scatter_rdb_allgather. Appends rank `rank`'s part of an allgather
 * over n ranks where relative rank v = (rank - base) mod n owns bytes [v*ss, (v+1)*ss) of a
 * `total`-byte buffer (clipped: the last blocks may be short or empty). Plain allgather:
 * ss = block, total = n * block. */
void coll_rdb_allgather(coll_prog *out, int rank, int n, int base, double ss, double total,
                        int tag);

/* Element size used by decisions that SimGrid takes on element counts (call->dtsize, 1 when
 * unknown). */
/* SimGrid's linear fan-in (default gather and reduce): every other rank isends `send_bytes`
 * to the root and waits; the root posts an irecv of `recv_bytes` from each other rank in rank
 * order, then waits for all. */
void coll_linear_fanin(coll_prog *out, const coll_call *c, int tag, double send_bytes, double recv_bytes);

double coll_dtsize(const coll_call *c);
/* Largest power of two <= n (n >= 1). */
int coll_pof2_floor(int n);
static inline int coll_is_pof2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* An algorithm: appends c->rank's program. `sel` is the selector in force (composite
 * algorithms such as allreduce redbcast call the selected reduce and bcast, as SimGrid does).
 * May fail only on impossible arguments. */
typedef int (*coll_algo_fn)(const coll_selector *sel, const coll_call *c, coll_prog *out,
                            psim_err *err);
#define COLL_ALGO(fn) int fn(const coll_selector *sel, const coll_call *c, coll_prog *out, psim_err *err)

typedef struct coll_algo {
  const char *name;
  coll_algo_fn fn;
} coll_algo;

/* The algorithms of each collective, "default" first (index 0). Defined in coll_select.c. */
const coll_algo *coll_algos(coll_kind k, int *n);

/* ---- algorithms (one file per collective family) ---- */
/* coll_barrier.c */
COLL_ALGO(coll_barrier_ompi_basic_linear);
COLL_ALGO(coll_barrier_ompi_recursivedoubling);
COLL_ALGO(coll_barrier_ompi_bruck);
COLL_ALGO(coll_barrier_ompi_tree);
COLL_ALGO(coll_barrier_ompi_doublering);
/* coll_bcast.c */
COLL_ALGO(coll_bcast_binomial_tree);
COLL_ALGO(coll_bcast_flattree);
COLL_ALGO(coll_bcast_scatter_LR_allgather);
COLL_ALGO(coll_bcast_scatter_rdb_allgather);
/* coll_reduce.c */
COLL_ALGO(coll_reduce_default);
COLL_ALGO(coll_reduce_binomial);
COLL_ALGO(coll_reduce_flat_tree);
/* coll_allreduce.c */
COLL_ALGO(coll_allreduce_default);
COLL_ALGO(coll_allreduce_lr);
COLL_ALGO(coll_allreduce_rdb);
COLL_ALGO(coll_allreduce_rab_rdb);
COLL_ALGO(coll_allreduce_redbcast);
/* coll_allreduce_ompi.c: Open MPI's decision (SimGrid's allreduce__ompi) */
COLL_ALGO(coll_allreduce_ompi);
/* coll_alltoall.c */
COLL_ALGO(coll_alltoall_default);
COLL_ALGO(coll_alltoall_basic_linear);
COLL_ALGO(coll_alltoall_pair);
COLL_ALGO(coll_alltoall_bruck);
COLL_ALGO(coll_alltoall_ring);
COLL_ALGO(coll_alltoallv_default);
COLL_ALGO(coll_alltoallv_ring);
/* coll_gather.c */
COLL_ALGO(coll_gather_default);
COLL_ALGO(coll_gather_ompi_basic_linear);
COLL_ALGO(coll_gather_ompi_binomial);
COLL_ALGO(coll_gatherv_default);
/* coll_allgather.c */
COLL_ALGO(coll_allgather_default);
COLL_ALGO(coll_allgather_ring);
COLL_ALGO(coll_allgather_rdb);
COLL_ALGO(coll_allgather_bruck);
COLL_ALGO(coll_allgather_pair);
COLL_ALGO(coll_allgatherv_default);
COLL_ALGO(coll_allgatherv_ring);
/* coll_scatter.c */
COLL_ALGO(coll_scatter_default);
COLL_ALGO(coll_scatter_ompi_basic_linear);
COLL_ALGO(coll_scatter_ompi_binomial);
COLL_ALGO(coll_scatterv_default);
/* coll_redscat.c */
COLL_ALGO(coll_reduce_scatter_default);
COLL_ALGO(coll_reduce_scatter_mpich_pair);
COLL_ALGO(coll_reduce_scatter_mpich_rdb);
/* coll_scan.c */
COLL_ALGO(coll_scan_default);
COLL_ALGO(coll_exscan_default);

#endif
