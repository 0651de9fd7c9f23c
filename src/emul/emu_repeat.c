/* Measuring a program several times (psim run --repeat K, docs/EMULATION.md "Reproducible
 * predictions").
 *
 * A burst's CPU time is disturbed by whatever else the machine does: an interrupt, another
 * process evicting the caches, a neighbour on the VM's host. Such disturbances only ever add
 * time. A program that takes the same path every run makes the same MPI calls in the same
 * order, so the i-th burst of rank r is the same code in every run, and the least of its K
 * measurements is the least disturbed one, as the best of K real runs is the one people quote.
 * Run k charges each burst the least of its measurements in runs 1..k, so the last run's
 * prediction is made of the best measurement of every burst.
 *
 * The path is checked, not assumed: each burst is stored with the MPI call that ended it (the
 * call's name, a string constant of psim's runtime, compared by address). Where a run's call
 * differs from the one stored, the rank has taken another path (a time-dependent choice, a
 * random seed): its later bursts are each run's own, and the run says how many ranks did. */
#include <stdlib.h>

#include "emul/emu.h"

typedef struct rep_rank {
  double *best;        /* the least measurement of each burst so far */
  const char **call;   /* the call that ended it */
  size_t len, cap, next;
  int diverged;        /* 1: a run took another path; nothing is stored from then on */
} rep_rank;

struct emu_repeat {
  int np, runs;
  rep_rank *r;
};

emu_repeat *emu_repeat_new(int np) {
  emu_repeat *x = xcalloc(1, sizeof *x);
  x->np = np;
  x->r = xcalloc((size_t)(np > 0 ? np : 1), sizeof *x->r);
  return x;
}

void emu_repeat_free(emu_repeat *x) {
  if (!x) return;
  for (int i = 0; i < x->np; i++) free(x->r[i].best), free(x->r[i].call);
  free(x->r);
  free(x);
}

void emu_repeat_begin(emu_repeat *x) {
  for (int i = 0; i < x->np; i++) x->r[i].next = 0;
  x->runs++;
}

double emu_repeat_burst(emu_repeat *x, int rank, const char *call, double seconds) {
  if (!x || rank < 0 || rank >= x->np) return seconds;
  rep_rank *r = &x->r[rank];
  if (r->diverged) return seconds;
  size_t i = r->next++;
  if (i < r->len) {
    if (r->call[i] != call) {   /* another path: this burst is not the stored one */
      r->diverged = 1;
      return seconds;
    }
    if (seconds < r->best[i]) r->best[i] = seconds;
    return r->best[i];
  }
  if (x->runs > 1) {   /* longer than the first run: another path too */
    r->diverged = 1;
    return seconds;
  }
  if (r->len == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 256;
    r->best = xrealloc(r->best, r->cap * sizeof *r->best);
    r->call = xrealloc(r->call, r->cap * sizeof *r->call);
  }
  r->best[r->len] = seconds;
  r->call[r->len++] = call;
  return seconds;
}

int emu_repeat_diverged(const emu_repeat *x) {
  int n = 0;
  for (int i = 0; x && i < x->np; i++) n += x->r[i].diverged;
  return n;
}

long emu_repeat_bursts(const emu_repeat *x) {
  long n = 0;
  for (int i = 0; x && i < x->np; i++) n += (long)x->r[i].len;
  return n;
}
