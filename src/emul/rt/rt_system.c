/* system() called by a rank (psimcc links with --wrap=system). Under psim run --threads the
 * ranks' output in their own code is kept per rank and passed on in the order of their turns
 * (emu_par.c), while a command's output goes straight to the process's stdout: the rank runs
 * the command in its turn, its own output passed on first, so that what the command prints
 * comes where it would with one thread (HPCG makes its report's directory with
 * system("mkdir -p ...")). With one thread this is the C library's system. */
#include <stdlib.h>

#include "emul/rt/rt.h"

int __wrap_system(const char *command);

int __wrap_system(const char *command) {
  emu_sim *S = emu_current;
  emu_rank *k = S && S->par ? emu_running() : NULL;
  if (k) {
    if (k->par_u) emu_par_own(k, 1);
    /* the program's fflush(stdout) before it reaches only psim's unbuffered stream: the real
     * one is flushed here, before the command writes to the same file */
    emu_par_flush(S);
  }
  return system(command);
}
