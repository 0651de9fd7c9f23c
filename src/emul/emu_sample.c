/* PSIM_TASK("name", iterations) { block }: MPI-Sim's two versions of a program in one.
 *
 *  - `psim run --measure-tasks FILE`: the block runs; its CPU time (converted to flops with
 *    the host speed reference, as any measured computation) is charged as usual and summed per
 *    task name over every execution on every rank, with the iterations it declared. At the
 *    end FILE gets one line per task: NAME FLOPS_PER_ITERATION ITERATIONS. (The cost is
 *    measured even with --no-measure, which then does not charge it.)
 *  - `psim run --task-costs FILE`: the block is skipped and FLOPS_PER_ITERATION x iterations
 *    is injected as a computation. Nothing is measured, so with --no-measure the simulated time
 *    repeats exactly (the program's results may not be right: its block did not run).
 * Costs are in flops, not seconds, so a cost file measured once serves every platform.
 *
 * PSIM_SAMPLE lives in the runtime (src/emul/rt/rt_sample.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/emu.h"

typedef struct task {
  char *name;
  double flops, iters;       /* measured: totals over every execution */
  double cost;               /* loaded: flops per iteration */
} task;

struct emu_tasks {
  VEC(task) t;
  int inject;                /* --task-costs */
};

static task *find(struct emu_tasks *T, const char *name) {
  for (size_t i = 0; i < T->t.len; i++)
    if (!strcmp(T->t.data[i].name, name)) return &T->t.data[i];
  return NULL;
}

static task *add(struct emu_tasks *T, const char *name) {
  task z = {xstrdup(name), 0, 0, 0};
  VEC_PUSH(T->t, z);
  return &T->t.data[T->t.len - 1];
}

static void tasks_free(struct emu_tasks *T) {
  if (!T) return;
  for (size_t i = 0; i < T->t.len; i++) free(T->t.data[i].name);
  VEC_FREE(T->t);
  free(T);
}

int emu_tasks_load(emu_sim *S, psim_err *err) {
  const emu_opts *o = S->o;
  if (!o->measure_tasks && !o->task_costs) return 0;
  struct emu_tasks *T = xcalloc(1, sizeof *T);
  S->tasks = T;
  if (!o->task_costs) return 0;
  T->inject = 1;
  FILE *f = fopen(o->task_costs, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, o->task_costs, 0, "cannot open the task costs: %s", strerror(errno));
  char line[4096];
  long ln = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (!*p || *p == '#') continue;
    char name[4096], *end;
    int n = 0;
    if (sscanf(p, "%4095s%n", name, &n) != 1) continue;
    double cost = strtod(p + n, &end);
    if (end == p + n || !(cost >= 0)) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, o->task_costs, ln,
                       "expected 'NAME FLOPS_PER_ITERATION [ITERATIONS]' (as --measure-tasks writes)");
    }
    task *t = find(T, name);
    if (!t) t = add(T, name);
    t->cost = cost;
  }
  fclose(f);
  return 0;
}

int emu_tasks_finish(emu_sim *S, int write, psim_err *err) {
  struct emu_tasks *T = S->tasks;
  int rc = 0;
  if (T && write && S->o->measure_tasks) {
    FILE *f = fopen(S->o->measure_tasks, "w");
    if (!f) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, S->o->measure_tasks, 0, "cannot open for writing: %s", strerror(errno));
    } else {
      fprintf(f, "# psim task costs (--task-costs reads this): NAME FLOPS_PER_ITERATION ITERATIONS\n"
                 "# measured with a host speed reference of %.17g flop/s\n", S->o->host_speed_ref);
      for (size_t i = 0; i < T->t.len; i++) {
        const task *t = &T->t.data[i];
        fprintf(f, "%s %.17g %.17g\n", t->name, t->iters > 0 ? t->flops / t->iters : 0.0, t->iters);
      }
      if (fclose(f) != 0) rc = psim_errf(err, PSIM_EXIT_INPUT, S->o->measure_tasks, 0, "cannot write the task costs");
    }
  }
  tasks_free(T);
  S->tasks = NULL;
  return rc;
}

static void check_name(const char *name) {
  if (!name || !*name) emu_fatal("PSIM_TASK needs a non-empty name");
  for (const char *p = name; *p; p++)
    if (isspace((unsigned char)*p)) emu_fatal("PSIM_TASK name '%s' contains white space", name);
}

int emu_task_enter(const char *name, double iterations) {
  emu_sim *S = emu_current;
  emu_enter("PSIM_TASK");
  check_name(name);
  emu_rank *k = S->running;
  int run = 1;
  if (S->tasks && S->tasks->inject) {
    task *t = find(S->tasks, name);
    if (!t) emu_fatal("PSIM_TASK '%s' has no cost in %s", name, S->o->task_costs);
    if (iterations > 0) emu_compute(t->cost * iterations);
    run = 0;
  }
  emu_leave();   /* restarts the CPU clock: the block is measured from here */
  k->task_mark = emu_cpu_now();
  return run;
}

void emu_task_exit(const char *name, double iterations) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  double flops = (emu_cpu_now() - k->task_mark) * S->o->host_speed_ref;
  if (S->tasks && !S->tasks->inject) {
    task *t = find(S->tasks, name);
    if (!t) t = add(S->tasks, name);
    t->flops += flops;
    t->iters += iterations;
  }
  /* charges the block's measured time like any computation (nothing with --no-measure) */
  emu_enter("PSIM_TASK");
  emu_leave();
}
