/* sleep(), usleep() and nanosleep() called by a rank are simulated time. psimcc links programs
 * with -Wl,--wrap=sleep,--wrap=usleep,--wrap=nanosleep, so the program's own calls land here.
 *
 * Why: a rank that sleeps for real uses no CPU, so its measured computation is nothing and,
 * without this, the sleep took no simulated time at all (and, worse, the wall time of the
 * whole simulation, since ranks run one at a time). The program meant the rank to be idle for
 * that long: MPICH's tests sleep a receiver to make messages arrive unexpected
 * (pt2pt/eagerdt's MTestSleep(2) ended at 0.11 s under psim run, 2.11 s under SMPI). SMPI
 * simulates these calls too (smpicc's smpi_helpers.h maps them to smpi_sleep, smpi_usleep,
 * smpi_nanosleep: the computation so far ends, then the actor sleeps that long), whatever
 * smpi/simulate-computation says; here they are psim_sleep, which likewise ends the burst of
 * computation first and is recorded as `sleep` by --trace-tit.
 *
 * Outside a rank (no simulation running, or psim's own code on the rank's stack) they are the
 * C library's (psim itself is not linked with --wrap: its calls are the C library's). Like SMPI's, they are never interrupted: sleep and usleep return 0, nanosleep
 * 0 without writing the remaining time. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "emul/rt/rt.h"

unsigned int __wrap_sleep(unsigned int seconds);
int __wrap_usleep(useconds_t usec);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);

/* A thread of the program's own calling sleep meanwhile (emu_current is process-wide) is not
 * on a rank's stack: it sleeps for real, as it would outside psim. */
int rt_in_rank_code(void) {
  const emu_rank *k = emu_current ? emu_running() : NULL;
  if (!k || k->depth) return 0;
  const char *fp = __builtin_frame_address(0);
  return fp >= k->fib.map && fp < k->fib.map + k->fib.map_len;
}

unsigned int __wrap_sleep(unsigned int seconds) {
  if (!rt_in_rank_code()) return sleep(seconds);
  psim_sleep((double)seconds);
  return 0;
}

int __wrap_usleep(useconds_t usec) {
  if (!rt_in_rank_code()) return usleep(usec);
  psim_sleep((double)usec / 1e6);
  return 0;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem) {
  if (!rt_in_rank_code()) return nanosleep(req, rem);
  /* what the C library refuses, refused alike (psim_sleep would stop the run) */
  if (!req || req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000L) {
    errno = EINVAL;
    return -1;
  }
  psim_sleep((double)req->tv_sec + (double)req->tv_nsec / 1e9);
  return 0;
}
