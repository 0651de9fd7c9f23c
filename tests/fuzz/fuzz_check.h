/* What a replay's outcome must satisfy, whatever its input (the replay fuzzers): it ran, or it
 * failed saying why (err.code 2: bad input; 3: a deadlock, with its report); every date is
 * finite and non-negative, no rank ends after the run, and each rank's time splits exactly
 * into computing, communicating and waiting (compute + comm + wait + move = finish). */
#ifndef PSIM_FUZZ_CHECK_H
#define PSIM_FUZZ_CHECK_H

#include <math.h>
#include <stdlib.h>

#include "psim/replay.h"

static void fuzz_check_result(const replay_result *res, int rc, const psim_err *err) {
  if (rc != 0) {
    if (err->code != 2 && err->code != 3) abort();
    if (err->code == 3 && (!res->deadlock || !*res->deadlock)) abort();   /* who waits for what */
    if (err->code != 3) return;
  }
  if (!(res->simulated_time >= 0) || !isfinite(res->simulated_time)) abort();
  for (int r = 0; r < res->np; r++) {
    const rank_stats *k = &res->ranks[r];
    if (!(k->finish >= 0) || !isfinite(k->finish) || k->finish > res->simulated_time * (1 + 1e-12) + 1e-15)
      abort();
    if (!(k->compute >= 0 && k->comm >= 0 && k->wait >= 0)) abort();
    double sum = k->compute + k->comm + k->wait + k->move;
    if (fabs(sum - k->finish) > 1e-9 * (k->finish > 1 ? k->finish : 1)) abort();
  }
}

#endif
