/* gettimeofday() and clock_gettime() called by a rank read the simulated clock, as MPI_Wtime
 * does. psimcc links programs with -Wl,--wrap=gettimeofday,--wrap=clock_gettime (and clock,
 * getrusage: the CPU-time clocks, below), and psim's MPI libraries define them for precompiled
 * programs (abi_time.c): the program's own calls land here.
 *
 * Why: benchmarks time themselves with the C library's clocks as often as with MPI_Wtime
 * (NetPIPE's NPmpich2 reads gettimeofday around its ping-pongs). Read for real, they measure
 * the simulator, not the simulated machine: NetPIPE reported 0.4 us per message on a platform
 * whose route takes 20 us. SMPI maps them to its simulated clock too (smpi_helpers.h:
 * smpi_gettimeofday, smpi_clock_gettime, whatever the clock id); so does psim, the computation
 * since the rank's last call included (rt_wtime ends the burst, as any MPI call does). The
 * date starts at 0 at the start of the simulation, as SMPI's. The CPU-time clocks are the
 * rank's own (below).
 *
 * Outside a rank (psim's own code, before or after the simulation, another thread) they are
 * the C library's. */
#include <stddef.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "emul/rt/rt.h"

int __wrap_gettimeofday(struct timeval *tv, void *tz);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
clock_t __wrap_clock(void);
int __wrap_getrusage(int who, struct rusage *ru);

int __wrap_gettimeofday(struct timeval *tv, void *tz) {
  if (!rt_in_rank_code()) return gettimeofday(tv, tz);
  double t = rt_wtime("gettimeofday");
  if (tv) {
    tv->tv_sec = (time_t)t;
    tv->tv_usec = (suseconds_t)((t - (double)tv->tv_sec) * 1e6);
  }
  if (tz) ((struct timezone *)tz)->tz_minuteswest = ((struct timezone *)tz)->tz_dsttime = 0;
  return 0;
}

/* The CPU-time clocks (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, clock, getrusage) are
 * the program measuring its own work: they read the CPU time of the rank's own code
 * (emu_rank_cpu: the measured bursts, the one under way included), not the simulated clock
 * (SMPI maps them to it; a program spinning until it has used 0.05 s of CPU then waited for a
 * simulated clock that only its own reads moved), nor the C library's, which counts every rank
 * and psim (one thread runs them all: LAMMPS at 4 ranks printed "287.1% CPU use"). Under
 * --no-measure, and outside a rank, the C library's. */
static int rank_cpu(struct timespec *ts) {
  if (!rt_in_rank_code()) return 0;   /* psim's own code, or a thread the program started */
  double c = emu_rank_cpu();
  if (c < 0) return 0;
  ts->tv_sec = (time_t)c;
  ts->tv_nsec = (long)((c - (double)ts->tv_sec) * 1e9);
  return 1;
}

int __wrap_clock_gettime(clockid_t id, struct timespec *ts) {
  if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID)
    return rank_cpu(ts) ? 0 : clock_gettime(id, ts);
  if (!rt_in_rank_code() || id < 0) return clock_gettime(id, ts);
  double t = rt_wtime("clock_gettime");
  ts->tv_sec = (time_t)t;
  ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
  return 0;
}

clock_t __wrap_clock(void) {
  struct timespec ts;
  if (!rank_cpu(&ts)) return clock();
  return (clock_t)((double)ts.tv_sec * CLOCKS_PER_SEC + (double)ts.tv_nsec * (CLOCKS_PER_SEC / 1e9));
}

/* The rank's user time; its system time 0 (psim's is not the rank's); the other fields the C
 * library's (the process's: its peak memory is every rank's). */
int __wrap_getrusage(int who, struct rusage *ru) {
  struct timespec ts;
  int rc = getrusage(who, ru);
  if (rc == 0 && (who == RUSAGE_SELF || who == RUSAGE_THREAD) && rank_cpu(&ts)) {
    ru->ru_utime.tv_sec = ts.tv_sec;
    ru->ru_utime.tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
    ru->ru_stime.tv_sec = 0;
    ru->ru_stime.tv_usec = 0;
  }
  return rc;
}
