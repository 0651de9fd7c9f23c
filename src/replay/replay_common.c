/* What the two drivers share (see include/psim/replay.h): trace replay (replay_run) and psim
 * run (src/emul's emu_run) place their ranks by the same rule and total their results the
 * same way, so that a program and its recorded trace are compared on equal terms. */
#include "psim/replay.h"

int *replay_place_ranks(const platform *p, const int *hostfile, int nhostfile, int np) {
  int nh = plat_nhosts(p);
  int *host = xmalloc((size_t)np * sizeof *host);
  for (int i = 0; i < np; i++) host[i] = hostfile ? hostfile[i % nhostfile] : i % nh;
  return host;
}

void replay_result_close(replay_result *res, double now, const mpi_world *w) {
  for (int i = 0; i < res->np; i++) {
    const rank_stats *st = &res->ranks[i];
    if (st->finish > res->simulated_time) res->simulated_time = st->finish;
    res->actions += st->actions;
  }
  /* a deadlock: the run ends at the date it was found (the last event) */
  if (res->deadlock && now > res->simulated_time) res->simulated_time = now;
  mpi_stats ms = mpi_world_stats(w);
  res->messages = ms.messages;
  res->bytes = ms.bytes;
}
