/* PSIM_SAMPLE(n) { block }: the DPS paper's "measure the first n, reuse the mean". Each rank
 * keeps, per call site, how many times the block ran and the flops it measured; after n runs
 * the block is skipped and the mean is injected as a computation. The block must not make MPI
 * calls (it is a computation). */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

typedef struct site { const char *file; int line, runs; double flops; } site;
typedef struct sites { int n, cap; site *s; } sites;

static site *find(emu_rank *k, const char *file, int line) {
  sites *ss = k->sample;
  if (!ss) ss = k->sample = xcalloc(1, sizeof *ss);
  for (int i = 0; i < ss->n; i++)
    if (ss->s[i].line == line && (ss->s[i].file == file || !strcmp(ss->s[i].file, file))) return &ss->s[i];
  if (ss->n == ss->cap) { ss->cap = ss->cap ? 2 * ss->cap : 4; ss->s = xrealloc(ss->s, (size_t)ss->cap * sizeof *ss->s); }
  ss->s[ss->n] = (site){file, line, 0, 0};
  return &ss->s[ss->n++];
}

void emu_sample_free(emu_rank *k) {
  sites *ss = k->sample;
  if (ss) free(ss->s);
  free(ss);
  k->sample = NULL;
}

int psim_sample_enter(const char *file, int line, int n) {
  emu_enter("PSIM_SAMPLE");
  emu_rank *k = emu_self();
  site *s = find(k, file, line);
  int run = s->runs < n;
  if (!run && s->runs > 0) emu_compute(s->flops / s->runs);
  emu_leave();   /* restarts the CPU clock: the block's time is measured from here */
  return run;
}

void psim_sample_exit(const char *file, int line) {
  emu_sim *S = emu_current;
  emu_rank *k = emu_running();
  double burst = emu_burst(k);
  site *s = find(k, file, line);
  s->runs++;
  s->flops += burst * S->o->host_speed_ref;
  emu_enter("PSIM_SAMPLE");   /* charges the block's measured time, like any computation */
  emu_leave();
}

/* PSIM_TASK: the driver keeps the task table (src/emul/emu_sample.c). */
int psim_task_enter(const char *name, double iterations) { return emu_task_enter(name, iterations); }
void psim_task_exit(const char *name, double iterations) { emu_task_exit(name, iterations); }
