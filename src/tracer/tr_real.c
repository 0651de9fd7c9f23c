/* The MPI's own PMPI_ functions (tr_real.h says why), found when the
 * library is loaded: the program is linked with the MPI, which is then already there. */
#ifdef TR_REAL_PMPI
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tracer.h"

/* the names, before tr_real.h's macros turn them into the pointers */
#define TR_REAL_NAME(f) #f,
static const char *const real_names[] = {TR_REAL_CALLS(TR_REAL_NAME)};
#undef TR_REAL_NAME

#define TR_REAL_DEF(f) __typeof__(&f) tr_real_##f;
TR_REAL_CALLS(TR_REAL_DEF)
#undef TR_REAL_DEF

__attribute__((constructor)) static void find_real(void) {
  int i = 0;
  /* dlsym's object pointer stored into the function pointer, as POSIX's dlsym page does */
#define TR_REAL_FIND(f)                                                                      \
  {                                                                                          \
    void *p = dlsym(RTLD_NEXT, real_names[i++]);                                             \
    if (!p) {                                                                                \
      fprintf(stderr, "psimtrace: the MPI has no %s (libpsimtrace.so is MPICH's, "               \
              "libpsimtrace-ompi.so Open MPI's)\n", real_names[i - 1]);                       \
      abort();                                                                               \
    }                                                                                        \
    *(void **)&tr_real_##f = p;                                                              \
  }
  TR_REAL_CALLS(TR_REAL_FIND)
#undef TR_REAL_FIND
}
#endif
