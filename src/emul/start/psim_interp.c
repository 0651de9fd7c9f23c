/* Linked into every program psimcc builds: names psim-start (psim_start.c) as the program's
 * interpreter, so that the shared object psim run loads per rank can also be started directly
 * (a 1-rank job: MPI's singleton init). psim run ignores it (dlopen does not use PT_INTERP). */
#ifndef PSIM_START_PATH
#error "PSIM_START_PATH (psim-start's path) must be defined"
#endif
__attribute__((section(".interp"), used)) static const char psim_interp[] = PSIM_START_PATH;
