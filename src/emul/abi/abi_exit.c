/* exit() and _exit() of a program loaded through psim's libmpich.so.12. psimcc links programs
 * with --wrap=exit so that a rank's exit ends that rank only; an mpicc binary cannot be
 * relinked, but it is loaded with RTLD_DEEPBIND and its dependencies (this library among them)
 * come before libc in its lookup scope: its exit binds here and goes to psim's psim_abi_exit
 * (emu_abi.c), which falls back to the C library's outside a rank.
 *
 * Only the headers of dlsym and memcpy: this file defines the C library's own names. */
#include <dlfcn.h>
#include <string.h>

void exit(int status) __attribute__((noreturn));
void _exit(int status) __attribute__((noreturn));
void _Exit(int status) __attribute__((noreturn));

void (*abi_psim_exit)(int status, int underscore);
int (*abi_psim_atexit)(void (*fn)(void *), void *arg);

/* psim's psim_abi_exit (emu_abi.c) ends the calling rank as psimcc's --wrap=exit does, and is
 * the C library's exit outside a rank. */
void exit(int status) {
  if (abi_psim_exit) abi_psim_exit(status, 0);
  _Exit(status);
}

void _exit(int status) {
  if (abi_psim_exit) abi_psim_exit(status, 1);
  _Exit(status);
}

/* The program's exit handlers (its atexit: glibc's calls this one; its C++ function-local
 * statics' destructors) registered as a rank runs its main are the rank's own, run when it
 * ends (psim's psim_abi_atexit, emu_sched.c's emu_rank_atexit); the others the C library's,
 * found past this library. */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
  if (abi_psim_atexit && abi_psim_atexit(fn, arg)) return 0;
  static int (*next)(void (*)(void *), void *, void *);
  if (!next) {
    void *f = dlsym(RTLD_NEXT, "__cxa_atexit");
    memcpy(&next, &f, sizeof f);
  }
  return next(fn, arg, dso);
}
