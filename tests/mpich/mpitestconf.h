/* The configuration header MPICH's test suite expects from its configure script, written for
 * psim's MPI subset (tests/mpich/run_mpich.sh builds test/mpi/util/mtest.c with it). */
#ifndef PSIM_MPITESTCONF_H
#define PSIM_MPITESTCONF_H
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define STDC_HEADERS 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_INT64_T 1
#define HAVE_MPI_INIT_THREAD 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#define HAVE_PTHREAD_H 1
/* the harness's own helpers for what psim does not provide (see psim_mtest_shim.h) */
#include "psim_mtest_shim.h"
#endif
