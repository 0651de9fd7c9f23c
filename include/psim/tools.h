/* psim tools: workload generators and trace utilities. */
#ifndef PSIM_TOOLS_H
#define PSIM_TOOLS_H

#include <stdio.h>

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

/* An Ondes3D-like iterative workload for load balancing (psim lb): a 2-D domain of nx x ny
 * cells split over a px x py grid of VPs (rank = y * px + x; non-divisible sizes give some
 * VPs one more row or column). Per iteration each VP exchanges halos with its (up to 4,
 * non-periodic) neighbours: irecv all, isend all, waitall; then computes the cost of its
 * cells; then `migrate BYTES` (BYTES = its cells x cell_bytes). A cell costs cell_flops, times
 * a factor of the absorbing border layer (`border` cells thick: border_cost at the corners,
 * half-way on the sides), times front_cost when a circular front expanding from the source at
 * front_speed cells per iteration crosses it (a band of front_width cells), or wake_cost once
 * the front has passed, times 1 +- noise (a hash of seed, cell and iteration). Deterministic
 * for a seed. With `profile` (a CSV of `psim trace aggregate`), compute comes from it. */
typedef struct gen_stencil2d_opts {
  int px, py, nx, ny, iters;
  double cell_flops;
  int border;
  double border_cost;
  double front_speed, front_width, front_cost, wake_cost;
  double src_x, src_y;       /* the source, in cells; < 0: drawn from the seed */
  double noise;
  uint64_t seed;
  double halo_bytes_per_cell, cell_bytes;
  const char *profile;
} gen_stencil2d_opts;

void gen_stencil2d_defaults(gen_stencil2d_opts *o);
int gen_stencil2d(const gen_stencil2d_opts *o, const char *dir, psim_err *err);

/* ---- trace tools (psim trace ...) ---- */
/* Copies IN to the directory OUT (one file per rank + list), keeping every k-th migrate of
 * each rank and dropping the others. */
int trace_lb_period(const char *const *in, int nin, int k, const char *out, psim_err *err);
/* Prints ranks, actions by kind, total flops and bytes, migrate points. */
int trace_stats(const char *const *in, int nin, FILE *f, psim_err *err);
/* Spatial aggregation of a trace of a fx x fy grid of ranks (rank = y * fx + x) to a tx x ty
 * grid: per iteration (iterations end at migrates), each coarse cell's compute is the
 * area-weighted sum of the fine ranks' compute it intersects, over the unit square. Writes
 * CSV `iteration,rank,flops` (coarse ranks). */
int trace_aggregate(const char *const *in, int nin, int fx, int fy, int tx, int ty, FILE *f,
                    psim_err *err);

#endif
