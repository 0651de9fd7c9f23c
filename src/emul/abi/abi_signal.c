/* signal() and sigaction() of a program loaded through psim's MPI-ABI libraries, and of its
 * privatized libraries (emu_abi.c's stub_syms): psim's __wrap_signal and __wrap_sigaction
 * (src/emul/rt/rt_signal.c says why: a rank's handlers for the crash signals are its own
 * view, psim's report stays the process's handler), which are the C library's for other
 * signals and outside a rank. Before psim_abi_init has bound them, the C library's next
 * definition is called.
 *
 * This file defines the C library's own functions: signal.h is included for the types. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "emul/abi/abi.h"

typedef void (*abi_sighandler)(int);

abi_sighandler (*abi_psim_signal)(int sig, abi_sighandler handler);
int (*abi_psim_sigaction)(int sig, const struct sigaction *act, struct sigaction *oldact);

abi_sighandler signal(int sig, abi_sighandler handler) {
  abi_sighandler (*f)(int, abi_sighandler) = abi_psim_signal;
  if (!f) { void *p = dlsym(RTLD_NEXT, "signal"); memcpy(&f, &p, sizeof f); }
  return f ? f(sig, handler) : SIG_ERR;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact) {
  int (*f)(int, const struct sigaction *, struct sigaction *) = abi_psim_sigaction;
  if (!f) { void *p = dlsym(RTLD_NEXT, "sigaction"); memcpy(&f, &p, sizeof f); }
  return f ? f(sig, act, oldact) : -1;
}
