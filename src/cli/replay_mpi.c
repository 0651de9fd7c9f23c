/* psim replay spread over the processes of an MPI job (issue 38, part 2): the collectives
 * the replay layer's windows need (include/psim/replay.h, replay_par), over MPICH. Compiled
 * with MPI only in the MPI build (make mpi); the plain build gets the stub at the end. MPI is
 * started and ended by sweep_mpi.c's sweep_mpi_init/finalize (one place knows the launchers).
 * The calls go to the PMPI_ names, as in sweep_mpi.c: the psim binary exports MPI_* itself
 * (psim run's runtime). */
#include "cli/replay_mpi.h"

#ifdef PSIM_WITH_MPI
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Byte counts as MPI's ints: a window's messages for one process stay far below 2 GB (40
 * bytes a message); beyond, the run stops rather than truncate. */
static int as_int(size_t n) {
  if (n > INT_MAX) PMPI_Abort(MPI_COMM_WORLD, 2);
  return (int)n;
}

/* Waits for a non-blocking collective without spinning: a process that waits for the others
 * (the windows are not balanced: a reduction's root works alone) leaves its core to them,
 * which matters when the job has more processes than free cores. MPICH's blocking calls
 * poll the network at full speed. */
static void wait_nap(MPI_Request *q) {
  int done = 0;
  for (int spins = 0;; spins++) {
    PMPI_Test(q, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (spins < 100) continue;
    struct timespec ts = {0, 20000};   /* 20 us: a window's work lasts far longer */
    nanosleep(&ts, NULL);
  }
}

static char *alltoall(void *ctx, char *const *out, const size_t *outlen, size_t *inlen) {
  int K = *(int *)ctx;
  int *sc = xmalloc((size_t)K * 4 * sizeof *sc), *rc = sc + K, *sd = sc + 2 * K, *rd = sc + 3 * K;
  size_t total = 0;
  for (int p = 0; p < K; p++) sc[p] = as_int(outlen[p]);
  MPI_Request q;
  PMPI_Ialltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD, &q);
  wait_nap(&q);
  char *send = NULL;
  size_t st = 0;
  for (int p = 0; p < K; p++) st += outlen[p];
  send = xmalloc(st ? st : 1);
  st = 0;
  for (int p = 0; p < K; p++) {
    sd[p] = as_int(st);
    if (outlen[p]) memcpy(send + st, out[p], outlen[p]);
    st += outlen[p];
    rd[p] = as_int(total);
    total += (size_t)rc[p];
  }
  char *in = xmalloc(total ? total : 1);
  PMPI_Ialltoallv(send, sc, sd, MPI_BYTE, in, rc, rd, MPI_BYTE, MPI_COMM_WORLD, &q);
  wait_nap(&q);
  free(send);
  free(sc);
  *inlen = total;
  return in;
}

static void min(void *ctx, double *x, int n) {
  (void)ctx;
  MPI_Request q;
  PMPI_Iallreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &q);
  wait_nap(&q);
}

static char *gather(void *ctx, const void *buf, size_t len, size_t *total, size_t *lens) {
  int K = *(int *)ctx, me;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  int n = as_int(len);
  int *counts = xmalloc((size_t)K * 2 * sizeof *counts), *displs = counts + K;
  PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  size_t t = 0;
  if (me == 0)
    for (int p = 0; p < K; p++) {
      displs[p] = as_int(t);
      t += (size_t)counts[p];
      if (lens) lens[p] = (size_t)counts[p];
    }
  char *out = me == 0 ? xmalloc(t ? t : 1) : NULL;
  PMPI_Gatherv(buf, n, MPI_BYTE, out, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(counts);
  *total = t;
  return out;
}

int replay_mpi_par(replay_par *par, int nprocs, int me) {
  static int K;
  if (nprocs <= 1) return 0;
  K = nprocs;
  memset(par, 0, sizeof *par);
  par->nprocs = nprocs;
  par->me = me;
  par->ctx = &K;
  par->alltoall = alltoall;
  par->min = min;
  par->gather = gather;
  return 1;
}

#else /* the plain build: one process */

int replay_mpi_par(replay_par *par, int nprocs, int me) {
  (void)par;
  (void)nprocs;
  (void)me;
  return 0;
}

#endif
