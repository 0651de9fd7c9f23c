/* exit() and _exit() called by a rank. psimcc links programs with -Wl,--wrap=exit,--wrap=_exit,
 * so the program's own calls (including those in archives it links) land here instead of
 * ending the psim process with every other rank. exit(0) ends the calling rank as returning 0
 * from main does; any other status stops the run, reported with the rank, the status and
 * where it was called (emu_rank_called_exit). Outside a rank (no simulation running, or psim's
 * own code) they are the C library's. */
#include <stdlib.h>
#include <unistd.h>

#include "emul/rt/rt.h"

void __wrap_exit(int status) __attribute__((noreturn));
int __wrap_atexit(void (*fn)(void));
void __wrap__exit(int status) __attribute__((noreturn));

void __wrap_exit(int status) {
  if (emu_current && emu_running() && !emu_running()->depth)
    emu_rank_called_exit(status, "exit", __builtin_return_address(0));
  exit(status);
}

void __wrap__exit(int status) {
  if (emu_current && emu_running() && !emu_running()->depth)
    emu_rank_called_exit(status, "_exit", __builtin_return_address(0));
  _exit(status);
}

/* atexit from the rank's main: the rank's own handler, run when the rank ends (psimcc links
 * with --wrap=atexit; emu_rank_atexit). */
int __wrap_atexit(void (*fn)(void)) {
  if (emu_rank_atexit(NULL, fn, NULL)) return 0;
  return atexit(fn);   /* psim's own atexit: the C library's */
}

/* The same for a precompiled program's __cxa_atexit (its atexit, its C++ local statics'
 * destructors), called by psim's MPI libraries (abi_exit.c). */
int psim_abi_atexit(void (*fn)(void *), void *arg);
int psim_abi_atexit(void (*fn)(void *), void *arg) { return emu_rank_atexit(fn, NULL, arg); }
