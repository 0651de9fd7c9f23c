/* SMPI's mailbox mutexes, under smpi/async-small-thresh.
 *
 * With the threshold set, SimGrid 3.32's Request::start (src/smpi/mpi/smpi_request.cpp) posts a
 * send or a receive inside the receiving process's mailbox mutex: lock, one or two probes of
 * its mailboxes, the post, unlock, each a simcall after which the rank yields to every rank
 * ready at that date (one "turn": replay_rank_run). Two ranks posting to one receiver at one
 * date therefore take turns: the second one's lock waits until the first one unlocks, and
 * resumes, before the first goes on, in the turn that follows the unlock.
 *
 * Here: a post takes the receiver's mutex (replay_mtx_take) or queues for it; the send or
 * receive itself is made in the turn of its simcall, the last but one (replay_mtx_wait_post:
 * which message starts first at a date decides ties later on); the mutex is then held for the
 * turns left. The release is a token in the engine's ready queue, id np + rank, that counts
 * those turns down (a rank blocked in its wait right after posting still unlocks on time),
 * then hands the mutex to the first rank queued and wakes it. The probes read mailboxes that
 * only the mutex's holder can change, so they may be read at the lock. Not in psim lb's VP
 * mode, which has no actor turns. */
#include <stdlib.h>

#include "replay_internal.h"

void replay_mtx_init(replay *R) {
  if (R->vp || R->o->net.async_small_thresh <= 0) return;
  int n = R->np;
  R->mtx_owner = xmalloc((size_t)n * sizeof *R->mtx_owner);
  R->mtx_head = xmalloc((size_t)n * sizeof *R->mtx_head);
  R->mtx_tail = xmalloc((size_t)n * sizeof *R->mtx_tail);
  R->mtx_next = xmalloc((size_t)n * sizeof *R->mtx_next);
  R->mtx_held = xmalloc((size_t)n * sizeof *R->mtx_held);
  R->mtx_left = xcalloc((size_t)n, sizeof *R->mtx_left);
  for (int i = 0; i < n; i++) R->mtx_owner[i] = R->mtx_head[i] = R->mtx_tail[i] = R->mtx_held[i] = -1;
}

void replay_mtx_free(replay *R) {
  free(R->mtx_owner); free(R->mtx_head); free(R->mtx_tail);
  free(R->mtx_next); free(R->mtx_held); free(R->mtx_left);
}

/* Hands p's mutex to the first rank queued for it, which runs next turn. */
static void release(replay *R, int k) {
  int p = R->mtx_held[k];
  R->mtx_held[k] = -1;
  R->mtx_left[k] = 0;
  int w = R->mtx_head[p];
  R->mtx_owner[p] = w;
  if (w < 0) return;
  R->mtx_head[p] = R->mtx_next[w];
  if (R->mtx_head[p] < 0) R->mtx_tail[p] = -1;
  R->mtx_held[w] = p;
  replay_rank_wake(R, &R->ranks[w]);
}

int replay_mtx_take(replay *R, rank *k, int p) {
  if (!R->mtx_owner) return 1;
  if (R->mtx_owner[p] == k->id) return 2;          /* handed over by its last owner */
  if (R->mtx_held[k->id] >= 0) release(R, k->id);   /* an earlier post still counting down */
  if (R->mtx_owner[p] < 0) {
    R->mtx_owner[p] = k->id;
    R->mtx_held[k->id] = p;
    return 1;
  }
  R->mtx_next[k->id] = -1;
  if (R->mtx_tail[p] < 0) R->mtx_head[p] = k->id;
  else R->mtx_next[R->mtx_tail[p]] = k->id;
  R->mtx_tail[p] = k->id;
  k->state = RK_BLOCKED;
  return 0;
}

int replay_mtx_wait_post(replay *R, rank *k, int taken, int post) {
  int at = taken == 2 ? 2 : 1;   /* a rank handed the mutex resumes after its lock */
  if (!R->mtx_owner || post <= at) return 0;
  k->yields = (uint8_t)(post - at - 1);
  sim_make_ready(R->sim, k->id);
  return 1;
}

void replay_mtx_hold(replay *R, rank *k, int turns) {
  if (!R->mtx_owner || R->mtx_held[k->id] < 0) return;
  if (turns <= 1) { release(R, k->id); return; }
  R->mtx_left[k->id] = (uint8_t)(turns - 1);
  sim_make_ready(R->sim, R->np + k->id);
}

void replay_mtx_token(replay *R, int k) {
  if (R->mtx_held[k] < 0 || R->mtx_left[k] == 0) return;   /* released early */
  if (--R->mtx_left[k] == 0) release(R, k);
  else sim_make_ready(R->sim, R->np + k);
}
