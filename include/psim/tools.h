/* psim tools: workload generators and trace utilities. */
#ifndef PSIM_TOOLS_H
#define PSIM_TOOLS_H

#include "psim/util.h"

/* The replay benchmark's workload: a 2-D periodic stencil. Per iteration, each rank posts 4
 * irecv then 4 isend of `halo_bytes` to its north/south/west/east neighbours, waitall,
 * computes `flops`, then an allreduce of `allreduce_bytes` (0 = none). */
typedef struct gen_stencil_opts {
  int px, py;                 /* process grid; ranks = px * py */
  int iters;
  double halo_bytes, flops, allreduce_bytes;
  int compress;               /* 0 plain, 1 gzip, 2 zstd */
  int shared;                 /* 1: one shared file instead of one file per rank */
} gen_stencil_opts;

void gen_stencil_defaults(gen_stencil_opts *o);
/* Writes dir/rank-<i>.txt (or dir/trace.txt when shared) and dir/list. */
int gen_stencil(const gen_stencil_opts *o, const char *dir, psim_err *err);

/* Creates dir (and parents) when missing. */
int tools_mkdir_p(const char *dir, psim_err *err);

#endif

/* A random but deadlock-free mix of every replayable action, for differential tests against
 * SimGrid: rounds of point-to-point exchanges (send/recv, isend/irecv/wait, sendRecv, with
 * sizes around the protocol and factor thresholds), of collectives (every kind, random roots
 * and sizes) and of computations. Deterministic for a seed. */
typedef struct gen_mix_opts {
  int ranks, rounds;
  uint64_t seed;
  const char *collectives;   /* comma list of collective action names to use; NULL = all */
  int p2p_only, no_p2p;
} gen_mix_opts;

int gen_mix(const gen_mix_opts *o, const char *dir, psim_err *err);
