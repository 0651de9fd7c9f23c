/* getopt(), getopt_long() and getopt_long_only() of a program loaded through psim's
 * libmpich.so.12. An mpicc binary keeps its own copies of optarg, optind, opterr and optopt
 * (copy relocations, in its .bss), which the loader would make the C library share; each
 * rank's copy of the program is loaded as a library, so the C library's getopt updates its own
 * variables and the program read NULL in optarg (NetPIPE's NPmpich2 crashed in atoi). The
 * program's calls bind here (its lookup scope has this library before libc, as for exit:
 * abi_exit.c) and go to psim's psim_abi_getopt (emu_abi.c), which copies the rank's variables
 * into the C library's before the call and back after it. Before psim_abi_init has bound it,
 * the C library's own is called. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <getopt.h>
#include <string.h>

#include "emul/abi/abi.h"

int (*abi_psim_getopt)(int kind, int argc, char *const *argv, const char *opts, const struct option *longopts,
                       int *longind);

/* kind: 0 getopt, 1 getopt_long, 2 getopt_long_only */
static int call(int kind, int argc, char *const *argv, const char *opts, const struct option *longopts, int *longind) {
  if (abi_psim_getopt) return abi_psim_getopt(kind, argc, argv, opts, longopts, longind);
  static const char *const names[] = {"getopt", "getopt_long", "getopt_long_only"};
  void *p = dlsym(RTLD_NEXT, names[kind]);
  if (!p) return -1;
  if (kind == 0) {
    int (*f)(int, char *const *, const char *);
    memcpy(&f, &p, sizeof f);
    return f(argc, argv, opts);
  }
  int (*f)(int, char *const *, const char *, const struct option *, int *);
  memcpy(&f, &p, sizeof f);
  return f(argc, argv, opts, longopts, longind);
}

int getopt(int argc, char *const argv[], const char *opts) { return call(0, argc, argv, opts, NULL, NULL); }

int getopt_long(int argc, char *const argv[], const char *opts, const struct option *longopts, int *longind) {
  return call(1, argc, argv, opts, longopts, longind);
}

int getopt_long_only(int argc, char *const argv[], const char *opts, const struct option *longopts, int *longind) {
  return call(2, argc, argv, opts, longopts, longind);
}
