/* psim MPI semantics: point-to-point messages between ranks, as SimGrid/SMPI executes them.
 *
 * Matching is MPI's: a receive matches the oldest pending send with the same context, source
 * (or any) and tag (or any); messages between two ranks never overtake. Protocol (SMPI):
 *  - a send smaller than smpi/send-is-detached-thresh is *detached*: the sender's request
 *    completes as soon as it is posted; larger sends (and synchronous ones) complete when the
 *    last byte arrives (rendez-vous);
 *  - either way the bytes start moving only when the receive is posted, except messages
 *    smaller than smpi/async-small-thresh, which start at once (true eager);
 *  - the receiver of a detached message pays smpi/or after it arrives.
 * Time passes only in the models: this layer decides when transfers start and which requests
 * they complete. Drivers (trace replay, execution-driven ranks) call it and are told of every
 * completion through the on_done callback.
 *
 * Ownership: the world owns every request; a driver holds a request from mpi_isend/mpi_irecv
 * until it calls mpi_req_release (after completion, or to abandon a detached send). */
#ifndef PSIM_MPI_LAYER_H
#define PSIM_MPI_LAYER_H

#include "psim/models.h"

enum { MPI_L_ANY = -1 };            /* wildcard source or tag */
/* send flags (buffered: detached at any size; written: data the sender wrote since they last
 * moved, which take the platform's written factors as a collective's messages do; at rest: a
 * collective's message of data nobody wrote since they last moved, which takes the
 * point-to-point factors) */
enum { MPI_F_SSEND = 1, MPI_F_BUFFERED = 2, MPI_F_WRITTEN = 4, MPI_F_AT_REST = 8 };
enum { MPI_CTX_USER = 0, MPI_CTX_COLL = 1 }; /* contexts of MPI_COMM_WORLD */

typedef struct mpi_req mpi_req;
typedef struct mpi_world mpi_world;
struct mpi_req {
  /* No owner: it is is_send ? src : dst (mpi_req_owner; issue 38, part 3: 88 bytes, not 96,
   * with the flags in seq's word below). */
  int src, dst, tag, ctx;
  double bytes;         /* send: its size; receive: the size asked (-1: any), then the size got */
  double posted;        /* date posted */
  double xfer_end;      /* date the last byte arrived (-1 before) */
  /* A request waits in a matching queue only until it matches: its queue link and its peer
   * share their bytes (issue 38), so read peer only when `matched` is set. */
  union {
    mpi_req *peer;      /* once matched: the matched send (for a receive) or receive (for a
                           send), NULL again once its transfer ended */
    mpi_req *next;      /* before: next in its bucket, a circular list whose newest request
                           points at its oldest (or next in the wildcard list) */
  };
  /* The order links serve only while it is queued, so they share their bytes (issue 38, part
   * 3: 104 bytes, not 120) with what comes later: the transfer's start date once it is not
   * queued (an eager send, queued while its bytes move, started at its post: xs_at says so),
   * and a receive's smpi/or once its message arrived. Read them with mpi_req_xfer_start and
   * mpi_req_or_due. */
  union {
    mpi_req *oprev;     /* matching: the rank's posted or unexpected requests, in order */
    double xstart_;     /* xs_at == MPI_XS_OWN: the date the bytes started moving */
  };
  union {
    mpi_req *onext;     /* (onext NULL after the newest; the oldest's oprev is the newest) */
    double or_due_;     /* finished: smpi/or still to pay by its owner when its wait or test
                           returns the request (SMPI's Request::finish_wait), 0 otherwise */
  };
  uint64_t wseq;        /* order in which its owner started waiting on it (0: not waited);
                           in its owner's wait group (grouped), its index in it + 1 */
  void *user;           /* the driver's */
  /* The posting order and the flags share one word (issue 38, part 3: a word of flags of
   * their own cost 8 bytes with the padding). seq is the matcher's count of posts modulo
   * 2^MPI_SEQ_BITS, and match.c compares two requests' by their distance modulo that: right
   * while they were posted less than 2^45 (3.5e13) posts apart, about 40 days of posts at ten
   * million a second. */
  uint64_t seq : 46,    /* posting order, to pick the oldest of several candidates */
      is_send : 1, done : 1, detached : 1, matched : 1, released : 1, busy : 1,
      arrived : 1, waited : 1,
      taken : 1,        /* the driver's wait returned it (SMPI's finish_wait) */
      shadow : 1,       /* a send whose sender is in another process (mpi_world_split) */
      remote : 1,       /* a send whose receiver is in another process */
      written : 1,      /* a send of MPI_F_WRITTEN */
      at_rest : 1,      /* a collective's send of MPI_F_AT_REST */
      xs_at : 2,        /* where its transfer's start date is (MPI_XS_*; mpi_req_xfer_start) */
      finished : 1,     /* a receive whose message arrived: or_due_ holds its smpi/or */
      grouped : 1;      /* a member of its owner's wait group (mpi_req_join) */
  /* no pointer to its world: the world's slab finds it from the request's address (issue 38:
   * with the peer's union above, 120 bytes, not 136; with the order links', 104; with no
   * pointer to its wait group, whose base the world keeps per rank, 96; no owner, 88) */
};
enum { MPI_SEQ_BITS = 46 };

/* The rank that posted r. */
static inline int mpi_req_owner(const mpi_req *r) { return r->is_send ? r->src : r->dst; }

/* mpi_req.xs_at: no start yet (-1), the post date, xstart_. */
enum { MPI_XS_NONE = 0, MPI_XS_POSTED = 1, MPI_XS_OWN = 2 };
/* The date r's bytes started moving (a receive: its message's), -1 before. */
static inline double mpi_req_xfer_start(const mpi_req *r) {
  return r->xs_at == MPI_XS_OWN ? r->xstart_ : r->xs_at == MPI_XS_POSTED ? r->posted : -1;
}
/* An observed message's start (mpi_world_observe): its transfer's, else its post date. */
static inline double mpi_req_start_or_post(const mpi_req *r) {
  double t = mpi_req_xfer_start(r);
  return t >= 0 ? t : r->posted;
}
/* smpi/or still to pay by r's owner when its wait or test returns r (SMPI's
 * Request::finish_wait): a receive's of a detached message, once arrived; 0 otherwise.
 * mpi_req_or_paid: the driver paid it (it is 0 from then on). */
static inline double mpi_req_or_due(const mpi_req *r) { return r->finished ? r->or_due_ : 0; }
static inline void mpi_req_or_paid(mpi_req *r) {
  if (r->finished) r->or_due_ = 0;
}

typedef void (*mpi_done_fn)(void *ctx, mpi_req *r);

/* The owner of r starts waiting on it. When a message ends, its two ends complete in the order
 * their owners started waiting (SimGrid answers a communication's waiters in that order), which
 * decides the order in which the ranks run next. */
void mpi_req_wait(mpi_req *r);
/* The owner of r waits on it anew (SMPI's waitall is a loop of waitany: each waitany registers
 * the rank again, behind those already waiting): r's place among its waiters is now. */
void mpi_req_rewait(mpi_req *r);

/* Wait groups: a waitall's requests, which its owner waits on anew all at once at each round
 * of SMPI's loop of waitany. One mpi_req_rewait per request made every round cost as many
 * steps as the waitall has requests, so a linear collective's root (one request per other
 * rank, one round per request) cost O(ranks^2). A rank has one group (a waitall's: a rank is in
 * one at a time), whose base the world keeps (issue 38, part 3: 8 bytes a rank, not a pointer
 * in every request): member r's place is the base + its index + 1, and mpi_wgroup_rewait gives
 * every member of rank's group a new place at once, in index order, behind every place given
 * before; the places are only ever compared, so this orders the ends of a message exactly as
 * mpi_req_rewait on each member still waiting, in index order, would. mpi_req_join makes r
 * (waited or not) member `index` of its owner's group, whose base is that of the owner's last
 * mpi_wgroup_rewait (0 before any): a driver rewaits the group after its joins, before any
 * message can end; mpi_req_leave turns a member back into a plain waited request, keeping its
 * place. mpi_req_wait keeps a member's place; mpi_req_rewait takes it out of its group. */
void mpi_req_join(mpi_req *r, int index);
void mpi_wgroup_rewait(mpi_world *w, int rank, int n);
void mpi_req_leave(mpi_req *r);
/* r's place among the waiters of its communication (0: not waited). */
uint64_t mpi_req_place(const mpi_req *r);

/* rank_host[r] = host of rank r (borrowed, must outlive the world). */
mpi_world *mpi_world_new(sim *s, models *m, int nranks, const int *rank_host, mpi_done_fn on_done,
                         void *ctx);
void mpi_world_free(mpi_world *w);

/* Observation: called when a message's last byte arrives, with the send request (its peer is
 * the matched receive when there is one; an eager message may arrive before being received). */
typedef void (*mpi_transfer_fn)(void *ctx, const mpi_req *send, const mpi_req *recv);
void mpi_world_observe(mpi_world *w, mpi_transfer_fn fn, void *ctx);


/* Posts a send / receive; the request may already be done on return (on_done was called). */
mpi_req *mpi_isend(mpi_world *w, int src, int dst, int tag, int ctx, double bytes, int flags,
                   psim_err *err);
mpi_req *mpi_irecv(mpi_world *w, int dst, int src, int tag, int ctx, double bytes, psim_err *err);
/* MPI_Iprobe: the oldest matching pending send not yet received by dst, or NULL. */
const mpi_req *mpi_iprobe(mpi_world *w, int dst, int src, int tag, int ctx);
void mpi_req_release(mpi_world *w, mpi_req *r);
/* MPI_Cancel of a receive: one no send has matched yet leaves the queue and is done (on_done
 * is not called); returns 1, or 0 when it already matched (it then completes normally). */
int mpi_cancel_recv(mpi_world *w, mpi_req *r);

/* Counters for reports and benchmarks. */
typedef struct mpi_stats {
  uint64_t messages;    /* transfers started */
  double bytes;
} mpi_stats;
mpi_stats mpi_world_stats(const mpi_world *w);
int mpi_rank_host(const mpi_world *w, int rank);
models *mpi_models(mpi_world *w);

/* Time accounting: a rank is *busy with its own messages* while at least one message it sends
 * or receives is in flight (from the start of its latency phase to its last byte), while it
 * pays the receive overhead (smpi/or) of a detached message, and while a driver says so
 * (mpi_rank_busy(+1) ... (-1) around the send overheads smpi/os, smpi/ois it sleeps).
 * mpi_rank_busy_time(w, r) is the total time rank r has been busy up to now (the union of
 * those intervals): a driver takes its difference over an MPI call to split the call's time
 * into communicating (busy) and waiting (not busy). O(1), no allocation. */
void mpi_rank_busy(mpi_world *w, int r, int delta);
double mpi_rank_busy_time(const mpi_world *w, int r);

/* ---- A world spread over processes (issue 38, part 2: psim replay under mpirun) ----
 * Each process runs the ranks whose proc_of[] is `me`. A send to a rank elsewhere goes out
 * (out(ctx, its process, message)) as MPI_WIRE_SEND at its post date; the receiver's process
 * gives it to mpi_wire_in, which matches it there and dates its transfer from the later of
 * the two posts (only under the constant model, whose time is known in advance: a window
 * protocol guarantees that the message comes in before that date passes); the sender's
 * process learns the transfer's dates (MPI_WIRE_STARTED) for its busy time and, for a
 * rendez-vous send, its completion. Busy time is then kept as changes and reads of every
 * rank, settled at the end in date order (a change may come in for a date already passed).
 * Not for eager messages (smpi/async-small-thresh), wildcard receives or observers. */
enum { MPI_WIRE_SEND = 1, MPI_WIRE_STARTED = 2 };
typedef struct mpi_wire {
  int kind;
  int src, dst, tag, ctx;
  int detached;
  double bytes;
  double date, date2;   /* SEND: its post; STARTED: the transfer's start and end */
  uint64_t id;          /* the sender's request, as its process knows it */
} mpi_wire;
typedef void (*mpi_wire_fn)(void *ctx, int proc, const mpi_wire *m);
/* proc_of: the process of each rank (borrowed); ranks whose process is not `me` are not run. */
void mpi_world_split(mpi_world *w, const int *proc_of, int me, mpi_wire_fn out, void *ctx);
/* A message from another process. Returns 0, or -1 with err (no route). */
int mpi_wire_in(mpi_world *w, const mpi_wire *m, psim_err *err);
/* In a split world, instead of mpi_rank_busy_time: rank r's account at now; close: it ends
 * an interval of d seconds in MPI (its comm and wait get their shares at the end), open: one
 * begins. mpi_busy_settle gives each rank with an account its comm and wait (put), once. */
void mpi_busy_read(mpi_world *w, int r, double d, int close, int open);
void mpi_busy_settle(mpi_world *w, void (*put)(void *ctx, int r, double comm, double wait), void *ctx);
/* Folds into the ranks' figures the logged changes and reads dated before horizon, which the
 * caller knows final (no change dated earlier can come any more): the log stays small. */
void mpi_busy_fold(mpi_world *w, double horizon);
size_t mpi_busy_pending(const mpi_world *w);   /* entries logged and not folded */
/* The date of the last message end or request completion of a split world (its deadlock
 * date, with the drivers' own). */
double mpi_world_last_date(const mpi_world *w);

/* Describes what rank r's pending receives/sends wait for (for deadlock reports). */
void mpi_describe_pending(const mpi_world *w, int r, char *buf, size_t n);

#endif
