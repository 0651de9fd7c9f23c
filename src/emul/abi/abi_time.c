/* gettimeofday() and clock_gettime() of a program loaded through psim's MPI libraries: the
 * simulated clock, as psimcc's --wrap=gettimeofday,clock_gettime makes them for programs it
 * links (src/emul/rt/rt_clock.c says why); the CPU-time clocks (clock_gettime's, clock,
 * getrusage) the rank's own CPU time. An mpicc binary cannot be relinked, but its lookup
 * scope (RTLD_DEEPBIND) has this library before libc, as for exit (abi_exit.c): its calls bind
 * here and go to psim's __wrap_* functions, which are the C library's outside a rank. Before
 * psim_abi_init has bound them, the C library's next definition is called. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "emul/abi/abi.h"

int (*abi_psim_gettimeofday)(struct timeval *tv, void *tz);
int (*abi_psim_clock_gettime)(int id, struct timespec *ts);
long (*abi_psim_clock)(void);
int (*abi_psim_getrusage)(int who, struct rusage *ru);

static void *libc_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  int (*f)(struct timeval *, void *) = abi_psim_gettimeofday;
  if (!f) { void *p = libc_fn("gettimeofday"); memcpy(&f, &p, sizeof f); }
  return f ? f(tv, tz) : -1;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  if (abi_psim_clock_gettime) return abi_psim_clock_gettime((int)id, ts);
  int (*f)(clockid_t, struct timespec *);
  void *p = libc_fn("clock_gettime");
  memcpy(&f, &p, sizeof f);
  return f ? f(id, ts) : -1;
}

clock_t clock(void) {
  long (*f)(void) = abi_psim_clock;   /* clock_t is long */
  if (!f) { void *p = libc_fn("clock"); memcpy(&f, &p, sizeof f); }
  return f ? (clock_t)f() : (clock_t)-1;
}

int getrusage(int who, struct rusage *ru) {
  int (*f)(int, struct rusage *) = abi_psim_getrusage;
  if (!f) { void *p = libc_fn("getrusage"); memcpy(&f, &p, sizeof f); }
  return f ? f(who, ru) : -1;
}
