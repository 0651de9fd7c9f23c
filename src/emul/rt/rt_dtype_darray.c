/* MPI_Type_create_darray: the part of a distributed global array one process owns (MPI's
 * "distributed array datatype"). The processes form a grid of psizes, numbered in row-major
 * order whatever the array's order; along each dimension a process owns a block
 * (MPI_DISTRIBUTE_BLOCK, darg the block size or ceil(gsize / psize)), every psize-th block of
 * darg elements (MPI_DISTRIBUTE_CYCLIC, darg 1 by default) or all of it (MPI_DISTRIBUTE_NONE).
 * The type lists the owned elements at their places in the global array, in the array's
 * memory order, with the global array's extent (lower bound 0). Built from the fastest
 * dimension outwards: one hindexed of the owned runs per dimension, each resized to the extent
 * of its slice of the array. */
#include <stdlib.h>

#include "emul/rt/rt.h"

/* The global indices the process at coordinate c owns along one dimension, ascending; their
 * number in *n (the caller frees the array). */
static int *owned(int g, int distrib, int darg, int p, int c, int *n) {
  int *idx = xmalloc((size_t)(g ? g : 1) * sizeof *idx), k = 0;
  if (distrib == MPI_DISTRIBUTE_NONE) {
    for (int j = 0; j < g; j++) idx[k++] = j;
  } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
    long b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    for (long j = c * b; j < (long)g && j < (c + 1) * b; j++) idx[k++] = (int)j;
  } else {
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    for (int j = 0; j < g; j++) if ((j / b) % p == c) idx[k++] = j;
  }
  *n = k;
  return idx;
}

/* The process grid coordinate of `rank` along dimension d (row-major). */
static int coord(int ndims, const int psizes[], int rank, int d) {
  for (int i = ndims - 1; i > d; i--) rank /= psizes[i];
  return rank % psizes[d];
}

static void check(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                  const int dargs[], const int psizes[], int order) {
  if (ndims <= 0) emu_fatal("MPI_Type_create_darray: %d dimensions (MPI_ERR_ARG)", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) emu_fatal("MPI_Type_create_darray: order %d (MPI_ERR_ARG)", order);
  if (rank < 0 || rank >= size) emu_fatal("MPI_Type_create_darray: rank %d of %d (MPI_ERR_ARG)", rank, size);
  long procs = 1;
  for (int d = 0; d < ndims; d++) {
    int g = gsizes[d], p = psizes[d], a = dargs[d], ds = distribs[d];
    if (g <= 0 || p <= 0)
      emu_fatal("MPI_Type_create_darray: dimension %d: gsize %d, psize %d (MPI_ERR_ARG)", d, g, p);
    if (ds != MPI_DISTRIBUTE_BLOCK && ds != MPI_DISTRIBUTE_CYCLIC && ds != MPI_DISTRIBUTE_NONE)
      emu_fatal("MPI_Type_create_darray: dimension %d: distribution %d (MPI_ERR_ARG)", d, ds);
    if (ds == MPI_DISTRIBUTE_NONE && p != 1)
      emu_fatal("MPI_Type_create_darray: dimension %d: MPI_DISTRIBUTE_NONE over %d processes (MPI_ERR_ARG)", d, p);
    if (ds != MPI_DISTRIBUTE_NONE && a != MPI_DISTRIBUTE_DFLT_DARG &&
        (a <= 0 || (ds == MPI_DISTRIBUTE_BLOCK && (long)a * p < g)))
      emu_fatal("MPI_Type_create_darray: dimension %d: darg %d for %d elements over %d processes (MPI_ERR_ARG)", d, a, g, p);
    procs *= p;
  }
  if (procs != size) emu_fatal("MPI_Type_create_darray: a grid of %ld processes for size %d (MPI_ERR_ARG)", procs, size);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype old,
                           MPI_Datatype *newtype) {
  check(size, rank, ndims, gsizes, distribs, dargs, psizes, order);
  MPI_Datatype t = old, u;
  MPI_Aint stride = rt_extent(old);
  for (int i = 0; i < ndims; i++) {   /* fastest dimension first */
    int d = order == MPI_ORDER_C ? ndims - 1 - i : i, n, runs = 0;
    int *idx = owned(gsizes[d], distribs[d], dargs[d], psizes[d], coord(ndims, psizes, rank, d), &n);
    int *len = xmalloc((size_t)(n ? n : 1) * sizeof *len);
    MPI_Aint *at = xmalloc((size_t)(n ? n : 1) * sizeof *at);
    for (int j = 0; j < n; j++) {
      if (runs && idx[j] == idx[j - 1] + 1) { len[runs - 1]++; continue; }
      at[runs] = idx[j] * stride;
      len[runs++] = 1;
    }
    MPI_Type_create_hindexed(runs, len, at, t, &u);
    if (t != old) MPI_Type_free(&t);
    stride *= gsizes[d];
    MPI_Type_create_resized(u, 0, stride, &t);
    MPI_Type_free(&u);
    free(idx); free(len); free(at);
  }
  *newtype = t;
  rt_dtype_args *a = rt_type_record(t, MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1);
  a->ints[0] = size;
  a->ints[1] = rank;
  a->ints[2] = ndims;
  for (int d = 0; d < ndims; d++) {
    a->ints[3 + d] = gsizes[d];
    a->ints[3 + ndims + d] = distribs[d];
    a->ints[3 + 2 * ndims + d] = dargs[d];
    a->ints[3 + 3 * ndims + d] = psizes[d];
  }
  a->ints[3 + 4 * ndims] = order;
  a->types[0] = old;
  return MPI_SUCCESS;
}

/* The type map from the record (rt_type_walk): the owned indices of every dimension. */
void rt_darray_walk(const rt_dtype_args *a, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx) {
  int nd = a->ints[2];
  const int *in = a->ints;
  int **idx = xmalloc((size_t)nd * sizeof *idx), *cnt = xmalloc((size_t)nd * sizeof *cnt);
  for (int d = 0; d < nd; d++)
    idx[d] = owned(in[3 + d], in[3 + nd + d], in[3 + 2 * nd + d], in[3 + 3 * nd + d],
                   coord(nd, in + 3 + 3 * nd, in[1], d), &cnt[d]);
  rt_type_walk_grid(nd, in[3 + 4 * nd], in + 3, idx, cnt, a->types[0], disp, fn, ctx);
  for (int d = 0; d < nd; d++) free(idx[d]);
  free(idx);
  free(cnt);
}
