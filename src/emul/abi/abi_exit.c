/* exit() and _exit() of a program loaded through psim's libmpich.so.12. psimcc links programs
 * with --wrap=exit so that a rank's exit ends that rank only; an mpicc binary cannot be
 * relinked, but it is loaded with RTLD_DEEPBIND and its dependencies (this library among them)
 * come before libc in its lookup scope: its exit binds here and goes to psim's psim_abi_exit
 * (emu_abi.c), which falls back to the C library's outside a rank.
 *
 * No libc header: this file defines the C library's own names. */
void exit(int status) __attribute__((noreturn));
void _exit(int status) __attribute__((noreturn));
void _Exit(int status) __attribute__((noreturn));

void (*abi_psim_exit)(int status, int underscore);

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
