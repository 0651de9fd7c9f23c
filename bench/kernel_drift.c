/* How three kinds of code slow down beside other processes (issue 34, "Reproducible
 * predictions"; docs/models.md): what psim run's measurement of a rank's computation can
 * and cannot be made immune to. One thread runs, in turn and for SECONDS, three kernels and
 * times each with its thread CPU clock, as psim run times a burst:
 *   C  a chain of 4 M dependent multiply-adds in registers (latency-bound)
 *   T  8 independent chains of 1 M multiply-adds each (throughput-bound: what a core shared
 *      with another thread, SMT or a VM's neighbour, gives less of)
 *   L  16 sweeps of 1 MiB (cache-resident)
 *   M  a read of every cache line of 64 MiB (memory-bound)
 * and prints, for each window of WINDOW seconds, each kernel's median and least time (ms)
 * and the share of the machine's CPUs other processes used in that window (/proc/stat less
 * this process's own CPU time, as psim run's busy line computes it). A thread's CPU clock
 * stops while it waits for a CPU, so what moves is what runs beside it.
 *   cc -O2 -o kernel_drift bench/kernel_drift.c && ./kernel_drift [SECONDS [WINDOW]]
 * Run it on a quiet machine, then beside a load (e.g. a build), and compare the windows. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double clk(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;
static double *big, *mid;
enum { BIG = 64 << 20, MID = 1 << 20 };

static void kc(void) {
  double a = 1.0, d = 1.0;
  for (long i = 0; i < 2000000; i++) a = a * 1.0000001 + 1e-9, d = d * 0.9999999 + 1e-9;
  sink = a + d;
}
static void kt(void) {
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (long i = 0; i < 1000000; i++)
    for (int j = 0; j < 8; j++) a[j] = a[j] * 0.9999999 + 1e-9;
  sink = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}
static void kl(void) {
  double s = 0;
  for (int r = 0; r < 16; r++)
    for (size_t i = 0; i < MID / 8; i++) s += mid[i];
  sink = s;
}
static void km(void) {
  double s = 0;
  for (size_t i = 0; i < BIG / 8; i += 8) s += big[i];
  sink = s;
}

/* machine busy ticks and all ticks (/proc/stat's first line), this process's CPU seconds */
static void mark(double *busy, double *all, double *self) {
  unsigned long long v[8] = {0};
  FILE *f = fopen("/proc/stat", "r");
  if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) != 8)
    memset(v, 0, sizeof v);
  if (f) fclose(f);
  *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]);
  *all = *busy + (double)(v[3] + v[4] + v[7]);
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  *self = (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 60, win = argc > 2 ? atof(argv[2]) : 5;
  big = malloc(BIG), mid = malloc(MID);
  if (!big || !mid) return 1;
  for (size_t i = 0; i < BIG / 8; i++) big[i] = (double)i;
  for (size_t i = 0; i < MID / 8; i++) mid[i] = (double)i;
  void (*k[4])(void) = {kc, kt, kl, km};
  const char *name[4] = {"C", "T", "L", "M"};
  size_t cap = 4096;
  double *t[4];
  for (int j = 0; j < 4; j++) t[j] = malloc(cap * sizeof *t[j]);
  double hz = (double)sysconf(_SC_CLK_TCK), w0 = clk(CLOCK_MONOTONIC), end = w0 + secs;
  printf("%8s  %17s  %17s  %17s  %17s  %s\n", "window_s", "C med/min ms", "T med/min ms", "L med/min ms",
         "M med/min ms", "others %");
  while (clk(CLOCK_MONOTONIC) < end) {
    double b0, a0, s0, b1, a1, s1, ws = clk(CLOCK_MONOTONIC);
    size_t n = 0;
    mark(&b0, &a0, &s0);
    while (clk(CLOCK_MONOTONIC) - ws < win && n < cap) {
      for (int j = 0; j < 4; j++) {
        double c0 = clk(CLOCK_THREAD_CPUTIME_ID);
        k[j]();
        t[j][n] = 1e3 * (clk(CLOCK_THREAD_CPUTIME_ID) - c0);
      }
      n++;
    }
    mark(&b1, &a1, &s1);
    double others = a1 > a0 ? ((b1 - b0) / hz - (s1 - s0)) / ((a1 - a0) / hz) : 0;
    printf("%8.0f", ws - w0);
    for (int j = 0; j < 4; j++) {
      qsort(t[j], n, sizeof *t[j], cmp);
      printf("  %s %6.3f %6.3f", name[j], t[j][n / 2], t[j][0]);
    }
    printf("  %5.1f\n", 100 * (others < 0 ? 0 : others));
    fflush(stdout);
  }
  return 0;
}
