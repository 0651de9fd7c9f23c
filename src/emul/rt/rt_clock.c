/* gettimeofday() and clock_gettime() called by a rank read the simulated clock, as MPI_Wtime
 * does. psimcc links programs with -Wl,--wrap=gettimeofday,--wrap=clock_gettime, and psim's
 * libmpich.so.12 defines both for MPICH-built programs (abi_time.c): the program's own calls
 * land here.
 *
 * Why: benchmarks time themselves with the C library's clocks as often as with MPI_Wtime
 * (NetPIPE's NPmpich2 reads gettimeofday around its ping-pongs). Read for real, they measure
 * the simulator, not the simulated machine: NetPIPE reported 0.4 us per message on a platform
 * whose route takes 20 us. SMPI maps them to its simulated clock too (smpi_helpers.h:
 * smpi_gettimeofday, smpi_clock_gettime, whatever the clock id); so does psim, the computation
 * since the rank's last call included (rt_wtime ends the burst, as any MPI call does). The
 * date starts at 0 at the start of the simulation, as SMPI's. The CPU-time clocks stay the C
 * library's (below).
 *
 * Outside a rank (psim's own code, before or after the simulation, another thread) they are
 * the C library's. */
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

#include "emul/rt/rt.h"

int __wrap_gettimeofday(struct timeval *tv, void *tz);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

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

int __wrap_clock_gettime(clockid_t id, struct timespec *ts) {
  /* A CPU-time clock is the program measuring its own work, which psim measures with the same
   * clock (its measured computation): left to the C library (SMPI maps those too; a program
   * spinning until it has used 0.05 s of CPU then waited for a simulated clock that only its
   * own reads moved). */
  if (!rt_in_rank_code() || id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0)
    return clock_gettime(id, ts);
  double t = rt_wtime("clock_gettime");
  ts->tv_sec = (time_t)t;
  ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
  return 0;
}
