/* MPICH's test harness (test/mpi/util/mtest.c, mtest_common.c) refers to a few MPI functions
 * outside psim's subset, for test configurations psim cannot run (inter-communicators). Here they are made of psim's calls where the harness's use allows,
 * or stop the test with a clear message when reached, so that the harness links and every
 * test that does not need them runs. Only the harness is built
 * with PSIM_MTEST_HARNESS: a test (or any user program) calling them itself still fails to
 * build, as psim's runtime does not declare them (docs/MPI_SUBSET.md). */
#ifndef PSIM_MTEST_SHIM_H
#define PSIM_MTEST_SHIM_H
#ifdef PSIM_MTEST_HARNESS
#include <mpi.h>
#include <stdio.h>

static inline int psim_mtest_unsupported(const char *what) {
  fprintf(stderr, "psim: %s is not supported by psim (MPICH test harness)\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}
/* The harness's only inter-communicators left (run_mpich.sh removes MTestGetIntercomm's) make
 * the intra-communicator "dup of WORLD created by MPI_Intercomm_merge": the halves of
 * MPI_COMM_WORLD joined, the `high` half last. psim makes that communicator directly, as a
 * split of MPI_COMM_WORLD ordered by (high, rank); the inter-communicator in between is a dup
 * of the local half, which the harness frees. Valid only for that use: the local groups
 * partition MPI_COMM_WORLD. */
static inline int psim_mtest_icreate(MPI_Comm local, MPI_Comm *inter) { return MPI_Comm_dup(local, inter); }
static inline int psim_mtest_imerge(int high, MPI_Comm *out) {
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return MPI_Comm_split(MPI_COMM_WORLD, 0, high ? n + r : r, out);
}
#define MPI_Intercomm_create(a, b, c, d, e, f) psim_mtest_icreate((a), (f))
#define MPI_Intercomm_merge(a, b, c) psim_mtest_imerge((b), (c))
#define MPI_Comm_remote_size(a, b) psim_mtest_unsupported("MPI_Comm_remote_size")
/* MTestIsBasicDtype only asks whether a type is predefined */
#define MPI_COMBINER_NAMED 1
static inline int psim_mtest_type_get_envelope(MPI_Datatype t, int *ni, int *na, int *nt, int *comb) {
  *ni = *na = *nt = 0;
  *comb = t > 0 && t < PSIM_NUM_PREDEFINED_TYPES ? MPI_COMBINER_NAMED : 0;
  return MPI_SUCCESS;
}
#define MPI_Type_get_envelope psim_mtest_type_get_envelope
#endif
#endif
