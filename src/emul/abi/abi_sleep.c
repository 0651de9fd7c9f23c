/* sleep(), usleep() and nanosleep() of a program loaded through psim's libmpich.so.12: simulated
 * time, as psimcc's --wrap=sleep,usleep,nanosleep makes them for programs it links
 * (src/emul/rt/rt_sleep.c says why; SMPI simulates them too). An mpicc binary cannot be
 * relinked, but its lookup scope (RTLD_DEEPBIND) has this library before libc, as for exit
 * (abi_exit.c): its calls bind here and go to psim's __wrap_* functions, which are the C
 * library's outside a rank. Before psim_abi_init has bound them (never, in practice), the C
 * library's next definition is called.
 *
 * No libc header declares these names here but time.h's struct timespec: this file defines
 * the C library's own functions. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <string.h>
#include <time.h>

#include "emul/abi/abi.h"

unsigned int sleep(unsigned int seconds);
int usleep(unsigned int usec);
int nanosleep(const struct timespec *req, struct timespec *rem);

unsigned int (*abi_psim_sleep)(unsigned int seconds);
int (*abi_psim_usleep)(unsigned int usec);
int (*abi_psim_nanosleep)(const struct timespec *req, struct timespec *rem);

/* the C library's definition of name (the next one after this library's) */
static void *libc_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

unsigned int sleep(unsigned int seconds) {
  unsigned int (*f)(unsigned int) = abi_psim_sleep;
  if (!f) { void *p = libc_fn("sleep"); memcpy(&f, &p, sizeof f); }
  return f ? f(seconds) : 0;
}

int usleep(unsigned int usec) {
  int (*f)(unsigned int) = abi_psim_usleep;
  if (!f) { void *p = libc_fn("usleep"); memcpy(&f, &p, sizeof f); }
  return f ? f(usec) : 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
  int (*f)(const struct timespec *, struct timespec *) = abi_psim_nanosleep;
  if (!f) { void *p = libc_fn("nanosleep"); memcpy(&f, &p, sizeof f); }
  return f ? f(req, rem) : 0;
}
