/* psim collectives: each MPI collective is compiled, for one rank, into a short program of
 * point-to-point operations that the MPI semantics layer then executes like any other sends and
 * receives. One implementation serves trace replay and execution-driven runs.
 *
 * The algorithms are selected per collective, by SimGrid's names where they exist
 * (`--cfg smpi/bcast:binomial_tree`); "default" reproduces SimGrid 3.32's default selector
 * exactly, message by message, so that simulated times match SimGrid's.
 *
 * Ownership: a coll_prog is owned by the caller; coll_build appends to it (it may be reused
 * after coll_prog_reset), coll_prog_free releases it. */
#ifndef PSIM_COLL_H
#define PSIM_COLL_H

#include <stdint.h>

#include "psim/util.h"

typedef enum {
  COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_ALLTOALL, COLL_ALLTOALLV,
  COLL_GATHER, COLL_ALLGATHER, COLL_GATHERV, COLL_ALLGATHERV, COLL_SCATTER, COLL_SCATTERV,
  COLL_REDUCESCATTER, COLL_SCAN, COLL_EXSCAN,
  COLL_NKINDS
} coll_kind;

const char *coll_kind_name(coll_kind k);          /* "barrier", "bcast", ... (SimGrid's names) */
int coll_kind_from_name(const char *name);        /* -1 when unknown */

typedef enum {
  CO_ISEND,    /* start a send of `bytes` to `peer`: MPI_Isend (costs ois) */
  CO_IRECV,    /* start a receive of `bytes` from `peer` */
  CO_SEND,     /* blocking send: MPI_Send (costs os; returns at once when detached) */
  CO_RECV,     /* blocking receive */
  CO_WAITALL,  /* wait for every request this program started and has not waited for yet */
  CO_WAIT,     /* wait for the request started by op number `peer` of this program */
  CO_COMPUTE,  /* compute `flops` (e.g. a reduction's local operation, when modelled) */
  CO_COMBINE,  /* apply the call's operator to `bytes` just received, into the rank's own data:
                  emitted only for calls with a real operator (coll_call.has_op: psim run),
                  whose driver adds them up and charges them at the operator's measured cost
                  after the program, as SimGrid's replay computes a reduction's comp (a
                  replayed trace has no operator: its comp field says the flops). */
} coll_opkind;

typedef struct coll_op {
  uint8_t kind;     /* coll_opkind */
  uint8_t user;     /* a send of a block of the caller's own send buffer, as it lies (no copy
                       by the MPI first: MPICH's alltoall), which psim run can tell written or
                       at rest (emu_written.c); 0 for data the MPI copied or combined */
  int32_t peer;     /* rank in the communicator (or op index for CO_WAIT) */
  int32_t tag;      /* system tag: one per collective kind, never matches user messages */
  double bytes;     /* message size in bytes (CO_*SEND/RECV) */
  double flops;     /* CO_COMPUTE */
} coll_op;

typedef struct coll_prog {
  coll_op *ops;
  int n, cap;
} coll_prog;

void coll_prog_reset(coll_prog *p);
void coll_prog_free(coll_prog *p);

/* One call of a collective by one rank. Sizes are in bytes, with the meanings of tit_action
 * (include/psim/trace.h): bytes/bytes2 = send/receive size per peer, counts/counts2 = per-rank
 * send/receive sizes of the v-variants (size entries). */
typedef struct coll_call {
  coll_kind kind;
  int rank, size, root;
  double bytes, bytes2;
  const double *counts, *counts2;
  /* Bytes per element of the call's datatype (0 = unknown, taken as 1). Only used where
   * SimGrid decides on element counts rather than bytes (reduce_scatter's mpich choice,
   * allreduce lr's "count < size" fallback). */
  int dtsize;
  /* The reduction's operator is commutative (psim run with a real MPI_Op). A replayed trace has
   * no operator: SimGrid's replay passes MPI_OP_NULL, which takes the non-commutative branches. */
  int commutative;
  /* SimGrid's default selector decides on the operator and datatype of a reduction
   * (reduce__default: a real operator, MPI_OP_NULL aside, that is not commutative, or a derived
   * datatype, takes reduce__ompi_basic_linear). has_op: the call has a real operator (psim run;
   * a replayed trace has none: MPI_OP_NULL); derived: its datatype is one the program built
   * (SimGrid's DT_FLAG_DERIVED), not a predefined one. */
  int has_op, derived;
} coll_call;

/* Which algorithm runs each collective. coll_selector_init sets SimGrid 3.32's defaults. An
 * index into the collective's table, or -COLL_SEL_MPICH / -COLL_SEL_OMPI: that MPI's decision
 * among the table's algorithms, call by call (smpi/coll-selector; src/mpi/coll_select.c). */
typedef struct coll_selector {
  int algo[COLL_NKINDS];
} coll_selector;

/* smpi/coll-selector: SimGrid's default selector, MPICH's decisions or Open MPI's. */
enum { COLL_SEL_DEFAULT = 0, COLL_SEL_MPICH = 1, COLL_SEL_OMPI = 2 };
/* Selects "default" (or "smpi"), "mpich" or "ompi" for every collective not given an
 * algorithm of its own (smpi/<collective>:<algorithm>, before or after). -1 with err otherwise. */
int coll_selector_use(coll_selector *s, const char *name, psim_err *err);
/* COLL_SEL_MPICH or COLL_SEL_OMPI when some collective follows that MPI's decisions, else
 * COLL_SEL_DEFAULT; and its name for smpi/coll-selector ("default", "mpich", "ompi"). */
int coll_selector_mode(const coll_selector *s);
const char *coll_selector_mode_name(int mode);

void coll_selector_init(coll_selector *s);
/* Selects algorithm `algo` ("binomial_tree", "rdb", "ring", "default", ...) for collective
 * `coll` ("bcast", "allreduce", ...). Returns -1 with err listing the valid names otherwise. */
int coll_selector_set(coll_selector *s, const char *coll, const char *algo, psim_err *err);
/* Name of the algorithm selected for k ("default" included). */
const char *coll_selector_name(const coll_selector *s, coll_kind k);
/* The algorithm that runs k: the selected one, or for "default" SimGrid's default algorithm
 * ("binomial_tree" for bcast, "ompi" for alltoall, "linear" for the non-blocking linear ones,
 * "reduce+bcast" for allreduce, "reduce+scatterv|mpich" for reduce_scatter). */
const char *coll_selector_algorithm(const coll_selector *s, coll_kind k);
/* Writes the list of algorithms known for collective k, comma-separated. */
void coll_algorithms(coll_kind k, char *buf, size_t n);

/* Appends rank c->rank's program for call c to out. Returns 0, or -1 with err filled (root
 * out of range, an algorithm that cannot run with this communicator size...). */
int coll_build(const coll_selector *s, const coll_call *c, coll_prog *out, psim_err *err);

#endif
