/* Crashes of user code: a rank that faults is reported with its rank, the signal and the last
 * MPI call it made; a fault on a stack guard page is reported as a stack overflow with advice.
 * The handler runs on an alternate stack (the faulting stack may be exhausted) and ends the
 * process: the simulation cannot continue once a rank's state is undefined. While ranks run,
 * the handlers they set for these signals are only theirs to see (rt_signal.c): one process's
 * handler cannot be every rank's, and PETSc's copies, each rank's, ended up setting SIG_DFL,
 * so that a crash killed psim without a word. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emul/emu.h"

static const int sigs[EMU_NSIGS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NSIGS EMU_NSIGS

int emu_crash_signal(int sig) {
  for (int i = 0; i < NSIGS; i++)
    if (sigs[i] == sig) return i;
  return -1;
}
/* Saved dispositions and the alternate stack: process-wide by nature (signals are). */
static struct sigaction saved[NSIGS];
static stack_t saved_alt;
static char *alt_stack;

static void on_fault(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  emu_sim *S = emu_current;
  emu_rank *k = S ? emu_running() : NULL;   /* the faulting thread's rank */
  char buf[1024];
  int n;
  if (!k) {
    n = snprintf(buf, sizeof buf, "psim: internal error: signal %d (%s) in the simulator\n", sig,
                 strsignal(sig));
    if (n > 0) (void)!write(2, buf, (size_t)n);
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if ((sig == SIGSEGV || sig == SIGBUS) && emu_fiber_in_guard(&k->fib, si->si_addr)) {
    n = snprintf(buf, sizeof buf,
                 "psim: rank %d overflowed its stack of %zu KiB (hit the guard page at %p)%s%s%s\n"
                 "psim: give ranks larger stacks with 'psim run --stack-size 64M ...', or move "
                 "large local arrays to the heap (malloc)\n",
                 k->id, S->o->stack_size >> 10, si->si_addr, k->call ? " in " : "",
                 k->call ? k->call : "", "");
  } else {
    char where[700] = "";
    if (k->call) snprintf(where, sizeof where, " inside %s", k->call);
    else if (k->file) snprintf(where, sizeof where, " (its last MPI call was at %s:%d)", k->file, k->line);
    n = snprintf(buf, sizeof buf,
                 "psim: rank %d crashed with signal %d (%s) at address %p, simulated time %.6f%s\n",
                 k->id, sig, strsignal(sig), si->si_addr, sim_now(S->sim), where);
  }
  emu_par_crash_flush(k);
  fflush(stdout);
  if (n > 0) (void)!write(2, buf, (size_t)n);
  _exit(PSIM_EXIT_APP);
}

void emu_signals_install(void) {
  size_t sz = 64 * 1024;
  alt_stack = xmalloc(sz);
  stack_t ss = {.ss_sp = alt_stack, .ss_size = sz, .ss_flags = 0};
  sigaltstack(&ss, &saved_alt);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NSIGS; i++) sigaction(sigs[i], &sa, &saved[i]);
}

void emu_signals_restore(void) {
  for (int i = 0; i < NSIGS; i++) sigaction(sigs[i], &saved[i], NULL);
  sigaltstack(&saved_alt, NULL);
  free(alt_stack);
  alt_stack = NULL;
}

/* libgfortran installs its own handlers for these signals when a Fortran main program starts
 * (_gfortran_set_options, before MPI_INIT): a crashing rank then printed libgfortran's
 * backtrace and ended the process with status 139, without psim's report. MPI_Init takes them
 * back from libgfortran; a handler the program installs itself is left alone. */
void emu_signals_reclaim(void) {
  if (!alt_stack) return;
  for (int i = 0; i < NSIGS; i++) {
    struct sigaction cur;
    if (sigaction(sigs[i], NULL, &cur) != 0) continue;
    void *h = cur.sa_flags & SA_SIGINFO ? (void *)cur.sa_sigaction : (void *)cur.sa_handler;
    if (!h || h == (void *)on_fault || h == (void *)SIG_DFL || h == (void *)SIG_IGN) continue;
    Dl_info di;
    if (!dladdr(h, &di) || !di.dli_fname || !strstr(di.dli_fname, "libgfortran")) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}
