/* A run as each rank's MPI calls with their messages attached: what the writers of formats
 * that describe calls and the messages inside them need (Paraver: obs_prv.c, OTF2:
 * obs_otf2.c). Internal to src/observe/.
 *
 * The run reports an action when it ends and a message when its last byte arrives, and under
 * psim run an action carries only its kind and its MPI call's name (no peer, tag or size:
 * src/emul/emu_observe.c). So everything is kept until the end of the run, then each message
 * is given to the calls it belongs to by its dates (obs_calls_attach):
 *   - its send: the send-like call (send, isend, sendrecv) of the sender during which it was
 *     posted;
 *   - its receive's posting: the receive-like call (recv, irecv, sendrecv) of the receiver
 *     during which the receive was posted; a message that arrived before any receive was
 *     posted (the run does not say which receive took it later) goes to the receiver's first
 *     receive-like call, ending after its arrival, that no other message took;
 *   - the completion of an irecv (isend): the first wait-like call (wait, waitall, test) after
 *     the posting that ends after the message arrived (for a detached send, after it was
 *     posted): a wait that ended after the arrival gave no time to it, so the replay of the
 *     written trace waits the same;
 *   - a collective's messages: the collective call during which they were sent / the first
 *     one ending after they arrived (their bytes, when the action gives no sizes).
 * A replay's actions also give peers and tags, which must then agree. */
#ifndef PSIM_OBS_CALLS_H
#define PSIM_OBS_CALLS_H

#include "psim/observe.h"

/* What a call does with messages. */
enum { OC_NONE, OC_SEND, OC_ISEND, OC_RECV, OC_IRECV, OC_SENDRECV, OC_DONE, OC_COLL, OC_MPI,
       OC_COMPUTE, OC_SLEEP };

typedef struct obs_call {
  double start, end;
  tit_kind kind;
  int role;              /* OC_* */
  int name;              /* index in obs_calls.names (its MPI function), -1: compute, sleep */
  int known;             /* a replay's action: peer, tag, root and sizes below are the trace's */
  int peer, tag, root;   /* point-to-point: the peer (a receive's source) and tag; root */
  int peer2;             /* sendrecv: its source (peer is its destination) */
  /* collectives: the trace's sizes (known only): b1 the send size, b2 the receive size, as
   * tit_action's bytes and bytes2, or for the v-kinds the sums of the counts (reducescatter:
   * b1 the sum, b2 this rank's count) */
  double b1, b2;
  double moved_sent, moved_recvd;   /* collectives: the bytes of the messages inside it */
  int used;              /* while attaching: 1 its send is known, 2 its receive */
} obs_call;

typedef struct obs_cmsg {
  int src, dst, tag, detached;
  int coll;                      /* a collective's message (odd contexts: MPI_CTX_COLL and
                                    psim run's communicators' collectives) */
  double bytes;
  double posted, xstart, xend;   /* the send's posting, the transfer's start and end */
  double rposted;                /* the receive's posting, -1 unknown (it arrived first) */
  uint64_t sseq, rseq;           /* posting orders */
  long scall, rcall, ccall, sdone;   /* call indices (sender, receiver, receiver, sender), -1 */
} obs_cmsg;

typedef VEC(obs_call) obs_call_vec;

/* A rank's message events, for formats that put them inside the calls (OTF2). */
enum { OE_SEND, OE_ISEND, OE_IRECV_POST, OE_ISEND_DONE, OE_RECV, OE_IRECV_DONE };
typedef struct obs_mev {
  long call;
  double t;      /* inside the call's [start, end] */
  int what;      /* OE_* */
  long msg;      /* index in msgs */
} obs_mev;
typedef VEC(obs_mev) obs_mev_vec;

typedef struct obs_calls {
  int np;
  obs_call_vec *rank;          /* per rank, in date order */
  VEC(obs_cmsg) msgs;           /* in arrival order */
  VEC(char *) names;           /* MPI function names */
  double end;                  /* the run's end (the end callback), or the last call's end */
  obs_mev_vec *ev;             /* per rank, after obs_calls_attach: its message events sorted by
                                  call, date, then OE_* order */
} obs_calls;

void obs_calls_init(obs_calls *c, int np);
replay_observer obs_calls_observer(obs_calls *c);
/* At the end of the run: the messages' calls, the ranks' events. */
void obs_calls_attach(obs_calls *c);
void obs_calls_free(obs_calls *c);
/* The collective kind's MPI function ("MPI_Bcast"...), a point-to-point kind's, ... */
const char *obs_call_name(const obs_calls *c, const obs_call *k);


#endif
