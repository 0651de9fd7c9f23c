/* MPI_Init and MPI_Finalize of the tracer: the reference speed, the rank's file, the common
 * start, and the warning about what the trace could not represent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracer.h"

/* psim calibrate's measurement (src/emul/emu_calibrate.c, compiled into this library) and
 * the clock it reads. */
double emu_calibrate(double seconds);
double emu_cpu_now(void);

double emu_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "1.5e9", "1.5e9f", "1.5Gf" (SimGrid's speed units): flop/s, or 0 */
static double parse_speed(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || !(v > 0)) return 0;
  switch (*end) {
  case 'k': v *= 1e3; break;
  case 'M': v *= 1e6; break;
  case 'G': v *= 1e9; break;
  case 'T': v *= 1e12; break;
  default: break;
  }
  return v;
}

/* The platform's smpi/host-speed (what `psim calibrate --machine` writes: the worth of a
 * measured second), else its first host or cluster speed. */
static double platform_speed(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  const char *p = strstr(text, "\"smpi/host-speed\"");
  if (p && (p = strstr(p, "value=\""))) return parse_speed(p + 7);
  p = strstr(text, " speed=\"");
  return p ? parse_speed(p + 8) : 0;
}

double tr_speed(void) {
  const char *s = getenv("PSIMTRACE_SPEED");
  if (s && *s) return parse_speed(s);
  s = getenv("PSIMTRACE_PLATFORM");
  if (s && *s) {
    double v = platform_speed(s);
    if (!(v > 0)) fprintf(stderr, "psimtrace: %s: no smpi/host-speed or speed; measuring\n", s);
    else return v;
  }
  const char *c = getenv("PSIMTRACE_CALIBRATE");
  double secs = c && *c ? atof(c) : 0.3;
  return emu_calibrate(secs > 0 ? secs : 0.3);
}

/* Seconds this thread has been runnable but waiting for a CPU (the second field of Linux's
 * /proc/thread-self/schedstat, nanoseconds), or -1 when the kernel does not say. */
static double run_delay(void) {
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  unsigned long long run, wait;
  int n = f ? fscanf(f, "%llu %llu", &run, &wait) : 0;
  if (f) fclose(f);
  return n == 2 ? 1e-9 * (double)wait : -1;
}

static void start(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &tr.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &tr.size);
  const char *m = getenv("PSIMTRACE_MIN_COMPUTE");
  tr.min_compute = m && *m ? atof(m) : 1e-6;
  /* one reference for every rank: rank 0 measures (or reads) it while the others wait */
  double sp = 0;
  if (tr.rank == 0) sp = tr_speed();
  PMPI_Bcast(&sp, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  tr.speed = sp;
  int ok = sp > 0 && tr_open() == 0, all = 0;
  if (tr.rank == 0 && !(sp > 0)) fprintf(stderr, "psimtrace: bad PSIMTRACE_SPEED; not tracing\n");
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  /* replay starts every rank at 0: start the recorded clocks together too */
  PMPI_Barrier(MPI_COMM_WORLD);
  tr.t_start = tr.t_leave = tr_now();
  tr.delay0 = run_delay();
  tr.on = all;
  if (!all && ok) tr_close();
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

static const char *const opaque_names[] = {
#define TR_NAME(n) #n,
  TR_OPAQUE_CALLS(TR_NAME)
#undef TR_NAME
};

/* Rank 0 names what the trace could not represent (summed over the ranks) and the run's
 * time, the figure the replay predicts. */
static void report(double elapsed) {
  uint64_t sum[TRC_N];
  double tmax = 0, d1 = run_delay();
  /* A rank that waited for a CPU (other processes on its core) lost that time inside an MPI
   * call, which the trace cannot tell from the call's own, or inside a computation, which it
   * records as work: either way the recorded run is not the program's alone. */
  struct { double d; int rank; } delay = {tr.delay0 >= 0 && d1 >= 0 ? d1 - tr.delay0 : -1, tr.rank}, most;
  /* the run without the tracer: each rank's time less its tracer's own work, the slowest */
  double own = tr.own, less = elapsed - tr.own, most_own = 0, less_max = 0;
  PMPI_Reduce(&own, &most_own, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&less, &less_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(tr.count, sum, TRC_N, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&delay, &most, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
  if (tr.rank != 0) return;
  uint64_t opaque = 0;
  for (int i = 0; i < TRC_OTHER_COMM_COLL; i++) opaque += sum[i];
  if (opaque) {
    fprintf(stderr, "psimtrace: warning: %llu calls TIT cannot represent, recorded as `sleep` of "
            "the time they took:", (unsigned long long)opaque);
    for (int i = 0; i < TRC_OTHER_COMM_COLL; i++)
      if (sum[i]) fprintf(stderr, " %s %llu", opaque_names[i], (unsigned long long)sum[i]);
    fputc('\n', stderr);
  }
  if (sum[TRC_OTHER_COMM_COLL])
    fprintf(stderr, "psimtrace: warning: %llu collectives on communicators other than "
            "MPI_COMM_WORLD (TIT has no communicators), recorded as `sleep` of the time they took\n",
            (unsigned long long)sum[TRC_OTHER_COMM_COLL]);
  if (sum[TRC_OTHER_COMM_P2P])
    fprintf(stderr, "psimtrace: warning: %llu point-to-point calls on communicators other than "
            "MPI_COMM_WORLD, recorded with MPI_COMM_WORLD's ranks and their own tags (they may "
            "match other messages in a replay)\n", (unsigned long long)sum[TRC_OTHER_COMM_P2P]);
  if (sum[TRC_UNTRACED_WAIT])
    fprintf(stderr, "psimtrace: warning: %llu waits or tests on requests of calls TIT cannot "
            "represent, recorded as `sleep` of the time they took\n",
            (unsigned long long)sum[TRC_UNTRACED_WAIT]);
  fprintf(stderr, "psimtrace: %d ranks traced in %s at %.6g flop/s; MPI_Init to MPI_Finalize: %.6f s\n",
          tr.size, tr_dir(), tr.speed, tmax);
  fprintf(stderr, "psimtrace: the tracer's own work (its lines) in that time: at most %.6f s a rank; "
          "the run less it: %.6f s (what a replay predicts)\n", most_own, less_max);
  if (most.d >= 0 && tmax > 0)
    fprintf(stderr, "psimtrace: the ranks waited for a CPU (runnable, other processes on their cores) at most "
            "%.6f s, %.1f %% of the run (rank %d)%s\n", most.d, 100 * most.d / tmax, most.rank,
            most.d > 0.01 * tmax ? ": the recorded time holds it, a replay does not; trace on a quiet machine" : "");
}

int MPI_Finalize(void) {
  if (tr_enter()) {
    double elapsed = tr.t_enter - tr.t_start;
    tr_req_finish();
    tr_line("finalize");
    tr.on = 0;
    tr_close();
    report(elapsed);
    tr_leave();
  }
  return PMPI_Finalize();
}
