/* Livelocks: ranks that poll without end while every other rank waits.
 *
 * A rank that polls in vain (MPI_Test, MPI_Iprobe...) and does nothing else waits for the next
 * event (emu_poll_failed), and when no event is left the run ends as a deadlock (emu_sched.c,
 * EMU_IDLE_ROUNDS). A rank that passes time between its polls (usleep, a computation, SMPI's
 * injected test sleeps) always has an event of its own ahead: if what it waits for can never
 * come (every other rank is blocked waiting for it, or polls the same way), the simulated clock
 * runs on for ever and the run hangs until it is killed. OpenCoarrays' event wait did that
 * (usleep growing between MPI_Win_sync polls; docs/EMULATION.md, "Failures").
 *
 * Such a run is told from a slow one by what may still happen. A rank is *spinning* from its
 * failed poll on, until something moves in the MPI world: a message posted (the world's
 * message count), a poll that succeeds, a one-sided change (emu_wake_pollers), any other
 * MPI call of a spinning rank but those that only ask (MPI_Wtime...) and its own work
 * (psim_compute, the sleeps). The run is
 * *quiet* at a failed poll when every activity in the simulation's queue is a sleep or
 * computation that a spinning rank started (no message in flight, no computation or I/O of a
 * rank that is not spinning). Only the spinners' own code can then end the wait (a time-out,
 * a counter), and they only poll. After `run/spin-limit` quiet failed polls in a row
 * (default 2^20, under a second of psim's time), with every spinning rank seen polling in the
 * second half of that streak and every other unfinished rank blocked in MPI, the run stops and is
 * reported as a deadlock (exit 3) naming the spinners, their polls and what each rank waits
 * for. A rank still computing (a long declared computation, say) when the streak started has
 * not polled in it: the streak starts again instead, so the wait goes on until it sends. */
#include <stdio.h>
#include <string.h>

#include "emul/emu.h"

/* Something moved: every spinner stops being one, the streak starts again. */
void emu_spin_progress(emu_sim *S) {
  S->spin.epoch++;
  S->spin.streak++;
  S->spin.quiet = 0;
}

/* A spinning rank's MPI call that was not a failed poll (emu_leave): it may have changed what
 * the others wait for (a lock, an attribute, a one-sided operation on its own window...), so it
 * counts as something moving, but for the calls that only ask (a time-out loop reads the
 * clock: the loop is still the spin). Without this a long phase of computation, one-sided
 * traffic and empty flushes could pass for a livelock; a missed livelock only runs on, as
 * before. */
void emu_spin_call(emu_sim *S, const emu_rank *k) {
  if (!emu_spin_is(S, k) || !k->call) return;
  /* psim_compute, psim_sleep (usleep...), PSIM_SAMPLE: the rank's own work, not MPI */
  if (!strncmp(k->call, "psim_", 5) || !strncmp(k->call, "PSIM_", 5)) return;
  static const char *const ask[] = {"MPI_Wtime", "MPI_Wtick", "MPI_Comm_rank", "MPI_Comm_size",
                                    "MPI_Initialized", "MPI_Finalized"};
  for (size_t i = 0; i < sizeof ask / sizeof *ask; i++)
    if (!strcmp(k->call, ask[i])) return;
  emu_spin_progress(S);
}

int emu_spin_is(const emu_sim *S, const emu_rank *k) { return k->spin_epoch == S->spin.epoch; }

/* Is every unfinished rank either a spinner seen polling in the second half of this streak, or
 * blocked in MPI with nothing of its own queued (which quiet implies for a non-spinner)? A
 * spinner that polled only early in the streak may be in a long computation since: it could
 * still send when that ends. */
static int all_stuck(const emu_sim *S) {
  if (sim_nready(S->sim)) return 0;   /* a rank about to run may do anything */
  for (int i = 0; i < S->np; i++) {
    const emu_rank *k = &S->ranks[i];
    if (k->state == EK_DONE || k == S->running) continue;
    if (emu_spin_is(S, k)) {
      if (k->spin_streak != S->spin.streak || k->spin_at <= S->spin.quiet / 2) return 0;
    } else if (k->state != EK_BLOCKED) {
      return 0;
    }
  }
  return 1;
}

int emu_spin_poll(emu_sim *S, emu_rank *k) {
  uint64_t msgs = mpi_world_stats(S->world).messages;
  if (msgs != S->spin.msgs) { S->spin.msgs = msgs; emu_spin_progress(S); }
  k->spin_epoch = S->spin.epoch;
  k->spin_call = k->call;
  uint64_t limit = S->o->spin_limit;
  if (!limit || sim_pending(S->sim) != S->spin.nact) return 0;
  if (S->spin.quiet++ == 0) S->spin.since = sim_now(S->sim);
  k->spin_streak = S->spin.streak;
  k->spin_at = S->spin.quiet;
  if (S->spin.quiet < limit) return 0;
  if (!all_stuck(S)) {   /* someone may still move on its own: look again over a new streak */
    S->spin.streak++;
    S->spin.quiet = 0;
    return 0;
  }
  S->spin.found = 1;
  sim_stop(S->sim);
  return 1;
}

int emu_spin_act_begin(emu_sim *S, const emu_rank *k) {
  if (!emu_spin_is(S, k)) return 0;
  S->spin.nact++;
  return 1;
}

void emu_spin_act_end(emu_sim *S, int counted) {
  if (counted) S->spin.nact--;
}

/* The first line of the report of a livelock (deadlock_report's). */
int emu_spin_header(const emu_sim *S, char *buf, size_t cap) {
  int nspin = 0;
  for (int i = 0; i < S->np; i++)
    if (S->ranks[i].state != EK_DONE && emu_spin_is(S, &S->ranks[i])) nspin++;
  return snprintf(buf, cap,
                  "livelock at simulated time %.6f: %d of %d ranks cannot finish; %d of them %s in "
                  "vain without end (%llu polls since simulated time %.6f, while no message "
                  "moved and nothing but %s sleeps and computations was under way; "
                  "--cfg run/spin-limit:N sets how many polls tell it)\n",
                  sim_now(S->sim), S->np - S->nfinished, S->np, nspin, nspin == 1 ? "polls" : "poll",
                  (unsigned long long)S->spin.quiet, S->spin.since, nspin == 1 ? "its" : "their");
}
