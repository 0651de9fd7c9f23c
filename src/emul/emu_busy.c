/* How busy the machine was while psim run measured the program (issue 34, "Reproducible
 * predictions"; docs/models.md).
 *
 * psim run charges each rank the CPU time its code used. Other processes do not add to that
 * time by taking turns on the CPU (a thread's CPU clock stops while it waits), but they do
 * when they run beside it: on another core they share the memory bandwidth and the last
 * cache level, and a rank's code that streams memory runs slower (measured here: a sweep of
 * 64 MiB took 13-19 % longer with other engineers' builds on the other core, a loop of
 * multiply-adds and a sweep of 1 MiB within 1 %). A prediction measured on a busy machine is
 * then a prediction for that busy machine, and the user must know it.
 *
 * So the run reads the machine's CPU accounting (/proc/stat's first line, in clock ticks)
 * before and after, and psim's own CPU time (getrusage: every thread, and children waited
 * for): what the machine's CPUs did beyond psim's own work is the other processes' share.
 * The VM's host taking a CPU away (steal) is reported apart. The figures are a rate over the
 * whole run, in clock ticks (10 ms here), so a run of a fraction of a second says little:
 * emu_busy_share returns -1 below 50 ticks of machine time. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emul/emu.h"

int emu_busy_parse_stat(const char *line, double *busy, double *steal, double *all) {
  unsigned long long v[10] = {0};
  if (strncmp(line, "cpu ", 4) != 0) return -1;   /* "cpu0 ..." is one CPU's */
  int n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
  if (n < 4) return -1;
  /* user nice system idle iowait irq softirq steal guest guest_nice: guest time is in user
   * already; idle and iowait are the CPUs doing nothing */
  *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]);
  *steal = (double)v[7];
  *all = *busy + *steal + (double)(v[3] + v[4]);
  return 0;
}

static double self_cpu(void) {
  struct rusage s, c;
  if (getrusage(RUSAGE_SELF, &s) || getrusage(RUSAGE_CHILDREN, &c)) return 0;
  return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec) +
         1e-6 * (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec + c.ru_stime.tv_usec);
}

void emu_busy_mark_now(emu_busy_mark *m) {
  memset(m, 0, sizeof *m);
  FILE *f = fopen("/proc/stat", "r");
  char line[512];
  if (f && fgets(line, sizeof line, f) && emu_busy_parse_stat(line, &m->busy, &m->steal, &m->all) == 0) m->ok = 1;
  if (f) fclose(f);
  long hz = sysconf(_SC_CLK_TCK);
  m->tick = hz > 0 ? 1.0 / (double)hz : 0.01;
  m->self = self_cpu();
}

int emu_busy_share(const emu_busy_mark *a, const emu_busy_mark *b, double *others, double *steal) {
  if (!a->ok || !b->ok) return -1;
  double all = b->all - a->all;   /* CPU ticks of the whole machine over the run */
  if (!(all >= 50)) return -1;
  double busy = (b->busy - a->busy) * a->tick, self = b->self - a->self;
  double o = (busy - self) / (all * a->tick);
  *others = o < 0 ? 0 : o > 1 ? 1 : o;
  *steal = (b->steal - a->steal) / all;
  return 0;
}
