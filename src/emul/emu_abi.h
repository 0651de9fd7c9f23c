/* psim run for programs built by a real MPICH mpicc (emu_abi.c; the library they call is
 * src/emul/abi/). Private to src/emul/. */
#ifndef PSIM_EMU_ABI_H
#define PSIM_EMU_ABI_H

#include <stddef.h>

#include "emul/emu.h"

/* 1: the image is an MPICH-ABI PIE executable psim run can load; 0: not an executable (a
 * psimcc shared object); -1 with err (code 2): an executable psim run cannot load, and why
 * (another MPI, not PIE, static TLS, or this psim is built with ASan). */
int emu_abi_detect(const char *path, const char *data, size_t len, psim_err *err);

typedef struct emu_abi emu_abi;
/* Loads psim's libmpich.so.12 (once per process), prepares the executable's patched image and
 * reads the libraries of `privatize` (comma-separated names or paths, may be NULL). The
 * copies are written in `dir` (and unlinked once loaded). */
int emu_abi_open(emu_abi **a, const char *path, const char *data, size_t len, const char *privatize,
                 const char *dir, psim_err *err);
/* Loads rank's copies (privatized libraries, then the executable). */
int emu_abi_load_rank(emu_abi *a, int rank, void **handle, emu_main_fn *main_fn, emu_getopt_vars *getopt_vars,
                      psim_err *err);
void emu_abi_free(emu_abi *a);
/* Does a constructor of the program communicate as the program is loaded (OpenCoarrays'
 * runtime duplicates MPI_COMM_WORLD there)? Loads rank 0's copy in a child process, where an
 * MPI call outside the simulation ends the child (emu_probing_ctors): 1 if one did. */
int emu_abi_probe_ctors(emu_abi *a);
/* The directory of the copies, when the object outlives the caller's (rank-time loading). */
void emu_abi_set_dir(emu_abi *a, const char *dir);
extern int emu_probing_ctors;

#endif
