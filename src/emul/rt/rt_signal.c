/* signal() and sigaction() called by a rank for the crash signals (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT): recorded as the rank's own, not installed. psimcc links programs with
 * -Wl,--wrap=signal,--wrap=sigaction; psim's MPI-ABI libraries define both for precompiled
 * programs and their privatized libraries (abi_signal.c), which land here.
 *
 * Why: the ranks are one process, so a handler one rank installs is every rank's, and psim's
 * own (emu_signal.c: the report naming the crashed rank) is gone. Debian's getdp, through
 * PETSc (one copy per rank, privatized because it calls MPI), pushed PETSc's handler once per
 * rank and popped it back to SIG_DFL; when MUMPS then crashed in rank 0, psim died of the
 * signal with no message at all (exit 139). A rank's view stays consistent: what it sets is
 * what it reads back (its old action); its handler is not called on a crash, which psim
 * reports instead, exit 4, as for a program without one. Other signals, and calls outside a
 * rank's own code, go to the C library. */
#include <signal.h>
#include <string.h>

#include "emul/rt/rt.h"

typedef void (*sighandler_fn)(int);
sighandler_fn __wrap_signal(int sig, sighandler_fn handler);
int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact);

/* The rank's slot for sig, or NULL when the C library's call applies. */
static struct sigaction *rank_slot(int sig) {
  int i = emu_crash_signal(sig);
  if (i < 0 || !rt_in_rank_code()) return NULL;
  return &emu_running()->sig_acts[i];
}

sighandler_fn __wrap_signal(int sig, sighandler_fn handler) {
  struct sigaction *s = rank_slot(sig);
  if (!s) return signal(sig, handler);
  sighandler_fn old = s->sa_flags & SA_SIGINFO ? (sighandler_fn)(void (*)(void))s->sa_sigaction : s->sa_handler;
  memset(s, 0, sizeof *s);
  s->sa_handler = handler;
  s->sa_flags = SA_RESTART;   /* what glibc's signal() sets */
  return old;
}

int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact) {
  struct sigaction *s = rank_slot(sig);
  if (!s) return sigaction(sig, act, oldact);
  struct sigaction old = *s;
  if (act) *s = *act;
  if (oldact) *oldact = old;
  return 0;
}
