/* exit() and _exit() of a program loaded through psim's libmpich.so.12. psimcc links programs
 * with --wrap=exit so that a rank's exit ends that rank only; an mpicc binary cannot be
 * relinked, but it is loaded with RTLD_DEEPBIND and its dependencies (this library among them)
 * come before libc in its lookup scope: its exit binds here and goes to psim's __wrap_exit
 * (src/emul/rt/rt_exit.c), which falls back to the C library's outside a rank.
 *
 * No libc header: this file defines the C library's own names. */
void exit(int status) __attribute__((noreturn));
void _exit(int status) __attribute__((noreturn));
void _Exit(int status) __attribute__((noreturn));

void (*abi_wrap_exit)(int status);
void (*abi_wrap__exit)(int status);

void exit(int status) {
  if (abi_wrap_exit) abi_wrap_exit(status);
  _Exit(status);
}

void _exit(int status) {
  if (abi_wrap__exit) abi_wrap__exit(status);
  _Exit(status);
}
