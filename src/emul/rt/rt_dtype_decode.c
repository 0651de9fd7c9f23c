/* Datatype decoding: every derived type remembers the arguments of the constructor the program
 * called (rt_type_record; MPI_Type_vector is built through MPI_Type_create_hvector, and records
 * after it, so the type is a vector), which MPI_Type_get_envelope and MPI_Type_get_contents give
 * back as MPI defines them; rt_type_walk replays them to list the type map's basic elements
 * (MPI_Pack_external converts each one). Also the parameterized Fortran 90 types
 * (MPI_Type_create_f90_real, _complex, _integer): one type per (p, r) and rank, kept for the
 * run, of the layout of the smallest kind that fits, whose envelope is MPI_COMBINER_F90_* with
 * (p, r) as contents, as MPICH reports them. */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

rt_dtype_args *rt_type_record(MPI_Datatype dt, int combiner, int ni, int na, int nt) {
  rt_dtype *t = rt_type(dt);
  free(t->args);
  /* one block: the record, its addresses, its integers, its types */
  size_t sz = sizeof(rt_dtype_args) + (size_t)na * sizeof(MPI_Aint) + (size_t)ni * sizeof(int) +
              (size_t)nt * sizeof(MPI_Datatype);
  rt_dtype_args *a = xcalloc(1, sz);
  a->ni = ni;
  a->na = na;
  a->nt = nt;
  a->addrs = (MPI_Aint *)(a + 1);
  a->ints = (int *)(a->addrs + na);
  a->types = (MPI_Datatype *)(a->ints + ni);
  t->args = a;
  t->combiner = combiner;
  return a;
}

int MPI_Type_get_envelope(MPI_Datatype dt, int *ni, int *na, int *nt, int *combiner) {
  rt_dtype *t = rt_type(dt);
  *ni = t->args ? t->args->ni : 0;
  *na = t->args ? t->args->na : 0;
  *nt = t->args ? t->args->nt : 0;
  *combiner = t->combiner ? t->combiner : MPI_COMBINER_NAMED;
  return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses, int max_datatypes,
                          int ints[], MPI_Aint addrs[], MPI_Datatype types[]) {
  rt_dtype *t = rt_type(dt);
  const rt_dtype_args *a = t->args;
  if (!t->combiner)
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_contents of a named datatype (MPI_ERR_TYPE)");
  if (max_integers < a->ni || max_addresses < a->na || max_datatypes < a->nt)
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG,
                         "MPI_Type_get_contents: arrays of %d, %d, %d for %d integers, %d addresses, "
                         "%d datatypes (MPI_ERR_ARG)", max_integers, max_addresses, max_datatypes,
                         a->ni, a->na, a->nt);
  if (a->ni) memcpy(ints, a->ints, (size_t)a->ni * sizeof *ints);
  if (a->na) memcpy(addrs, a->addrs, (size_t)a->na * sizeof *addrs);
  rt_world *w = rt_w();
  for (int i = 0; i < a->nt; i++) {
    types[i] = a->types[i];
    /* a derived type is a new handle of the program's, to free (the same object here: one
     * more reference, which revives a type the program had freed) */
    rt_dtype *o = w->types.data[types[i]];
    if (!o->predefined) { o->refs++; o->freed = 0; }
  }
  return MPI_SUCCESS;
}

/* ---- the type map, element by element ---- */

/* A predefined type's basic elements: pairs and complex numbers are two. */
static void walk_named(MPI_Datatype dt, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx) {
  if (dt >= MPI_REAL4 && dt < PSIM_NUM_PREDEFINED_TYPES) dt = rt_type(dt)->base;   /* sized, C++: C's type */
  switch (dt) {
  case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: fn(ctx, disp, MPI_FLOAT); fn(ctx, disp + 4, MPI_FLOAT); return;
  case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: fn(ctx, disp, MPI_DOUBLE); fn(ctx, disp + 8, MPI_DOUBLE); return;
  case MPI_C_LONG_DOUBLE_COMPLEX:
    fn(ctx, disp, MPI_LONG_DOUBLE);
    fn(ctx, disp + (ptrdiff_t)sizeof(long double), MPI_LONG_DOUBLE);
    return;
  case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_2INT: case MPI_SHORT_INT:
  case MPI_LONG_DOUBLE_INT: case MPI_2INTEGER: case MPI_2REAL: case MPI_2DOUBLE_PRECISION: {
    static const int value[][2] = {
      {MPI_FLOAT_INT, MPI_FLOAT}, {MPI_DOUBLE_INT, MPI_DOUBLE}, {MPI_LONG_INT, MPI_LONG},
      {MPI_2INT, MPI_INT}, {MPI_SHORT_INT, MPI_SHORT}, {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE},
      {MPI_2INTEGER, MPI_INTEGER}, {MPI_2REAL, MPI_REAL}, {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION}};
    int v = 0;
    for (size_t i = 0; i < sizeof value / sizeof *value; i++) if (value[i][0] == dt) v = value[i][1];
    int fortran = dt == MPI_2INTEGER || dt == MPI_2REAL || dt == MPI_2DOUBLE_PRECISION;
    /* the index follows the value, at an int's alignment (C's pairs) */
    ptrdiff_t vsize = (ptrdiff_t)rt_type(v)->size, ioff = fortran || vsize >= (ptrdiff_t)sizeof(int) ? vsize : (ptrdiff_t)sizeof(int);
    fn(ctx, disp, v);
    fn(ctx, disp + ioff, fortran ? v : MPI_INT);
    return;
  }
  case MPI_LB: case MPI_UB: return;
  default: fn(ctx, disp, dt);
  }
}

void rt_type_walk_grid(int n, int order, const int *sizes, int *const *idx, const int *cnt,
                       MPI_Datatype old, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx) {
  ptrdiff_t ext = rt_extent(old);
  for (int d = 0; d < n; d++) if (cnt[d] == 0) return;
  int *pos = xcalloc((size_t)n, sizeof *pos);
  for (;;) {
    ptrdiff_t off = 0, stride = ext;
    for (int k = 0; k < n; k++) {   /* k-th fastest dimension */
      int d = order == MPI_ORDER_C ? n - 1 - k : k;
      off += (ptrdiff_t)idx[d][pos[d]] * stride;
      stride *= sizes[d];
    }
    rt_type_walk(old, disp + off, fn, ctx);
    int k = 0;
    for (; k < n; k++) {
      int d = order == MPI_ORDER_C ? n - 1 - k : k;
      if (++pos[d] < cnt[d]) break;
      pos[d] = 0;
    }
    if (k == n) break;
  }
  free(pos);
}

/* The subarray's elements: indices start[d] .. start[d] + sub[d] - 1 of each dimension. */
static void walk_subarray(const rt_dtype_args *a, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx) {
  int n = a->ints[0];
  const int *sub = a->ints + 1 + n, *start = a->ints + 1 + 2 * n;
  int **idx = xmalloc((size_t)n * sizeof *idx);
  for (int d = 0; d < n; d++) {
    idx[d] = xmalloc((size_t)(sub[d] ? sub[d] : 1) * sizeof **idx);
    for (int j = 0; j < sub[d]; j++) idx[d][j] = start[d] + j;
  }
  rt_type_walk_grid(n, a->ints[1 + 3 * n], a->ints + 1, idx, sub, a->types[0], disp, fn, ctx);
  for (int d = 0; d < n; d++) free(idx[d]);
  free(idx);
}

void rt_type_walk(MPI_Datatype dt, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx) {
  rt_dtype *t = rt_type_inflight(dt);
  const rt_dtype_args *a = t->args;
  if (!t->combiner) { walk_named(dt, disp, fn, ctx); return; }
  const int *in = a->ints;
  ptrdiff_t ext = a->nt ? rt_extent(a->types[0]) : 0;
  switch (t->combiner) {
  case MPI_COMBINER_DUP: case MPI_COMBINER_RESIZED:
    rt_type_walk(a->types[0], disp, fn, ctx);
    return;
  case MPI_COMBINER_F90_REAL: case MPI_COMBINER_F90_COMPLEX: case MPI_COMBINER_F90_INTEGER:
    walk_named(t->base, disp, fn, ctx);
    return;
  case MPI_COMBINER_CONTIGUOUS:
    for (int i = 0; i < in[0]; i++) rt_type_walk(a->types[0], disp + i * ext, fn, ctx);
    return;
  case MPI_COMBINER_VECTOR: case MPI_COMBINER_HVECTOR: {
    ptrdiff_t stride = t->combiner == MPI_COMBINER_VECTOR ? in[2] * ext : a->addrs[0];
    for (int i = 0; i < in[0]; i++)
      for (int j = 0; j < in[1]; j++) rt_type_walk(a->types[0], disp + i * stride + j * ext, fn, ctx);
    return;
  }
  case MPI_COMBINER_INDEXED: case MPI_COMBINER_HINDEXED: case MPI_COMBINER_INDEXED_BLOCK:
  case MPI_COMBINER_HINDEXED_BLOCK:
    for (int i = 0; i < in[0]; i++) {
      int c = t->combiner;
      int bl = c == MPI_COMBINER_INDEXED_BLOCK || c == MPI_COMBINER_HINDEXED_BLOCK ? in[1] : in[1 + i];
      ptrdiff_t d = c == MPI_COMBINER_INDEXED ? in[1 + in[0] + i] * ext
                  : c == MPI_COMBINER_INDEXED_BLOCK ? in[2 + i] * ext : a->addrs[i];
      for (int j = 0; j < bl; j++) rt_type_walk(a->types[0], disp + d + j * ext, fn, ctx);
    }
    return;
  case MPI_COMBINER_STRUCT:
    for (int i = 0; i < in[0]; i++) {
      ptrdiff_t e = rt_extent(a->types[i]);
      for (int j = 0; j < in[1 + i]; j++) rt_type_walk(a->types[i], disp + a->addrs[i] + j * e, fn, ctx);
    }
    return;
  case MPI_COMBINER_SUBARRAY:
    walk_subarray(a, disp, fn, ctx);
    return;
  case MPI_COMBINER_DARRAY:
    rt_darray_walk(a, disp, fn, ctx);
    return;
  default:
    emu_fatal("datatype %d: combiner %d cannot be walked (psim bug)", dt, t->combiner);
  }
}

/* ---- MPI_Type_create_f90_* ---- */

/* The type already made for (combiner, p, r), or a new one of base's layout. */
static int f90_type(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype) {
  rt_world *w = rt_w();
  int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
  for (size_t i = PSIM_NUM_PREDEFINED_TYPES; i < w->types.len; i++) {
    rt_dtype *t = w->types.data[i];
    if (t && t->combiner == combiner && t->args->ints[0] == p && (ni == 1 || t->args->ints[1] == r)) {
      *newtype = (MPI_Datatype)i;
      return MPI_SUCCESS;
    }
  }
  MPI_Type_contiguous(1, base, newtype);
  rt_dtype *t = rt_type(*newtype);
  t->predefined = t->committed = 1;   /* as named types: not to be freed */
  rt_dtype_args *a = rt_type_record(*newtype, combiner, ni, 0, 0);
  a->ints[0] = p;
  if (ni == 2) a->ints[1] = r;
  return MPI_SUCCESS;
}

/* IEEE single (6 digits, range 37) then double (15, 307); MPI_UNDEFINED: no requirement. */
static int f90_real(const char *call, int combiner, int p, int r, MPI_Datatype *newtype) {
  int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r, cplx = combiner == MPI_COMBINER_F90_COMPLEX;
  MPI_Datatype base = MPI_DATATYPE_NULL;
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) base = MPI_DATATYPE_NULL;
  else if (pp <= 6 && rr <= 37) base = cplx ? MPI_COMPLEX : MPI_REAL;
  else if (pp <= 15 && rr <= 307) base = cplx ? MPI_DOUBLE_COMPLEX : MPI_DOUBLE_PRECISION;
  if (base == MPI_DATATYPE_NULL) {
    *newtype = MPI_DATATYPE_NULL;
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "%s(p=%d, r=%d): no such kind (MPI_ERR_ARG)", call, p, r);
  }
  return f90_type(combiner, p, r, base, newtype);
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
  return f90_real("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
  return f90_real("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

/* 1-, 2-, 4- and 8-byte integers, as selected_int_kind chooses them. */
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) {
  static const struct { int range; MPI_Datatype type; } ints[] = {
    {2, MPI_INT8_T}, {4, MPI_INT16_T}, {9, MPI_INTEGER}, {18, MPI_INT64_T}};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    if (r <= ints[i].range) return f90_type(MPI_COMBINER_F90_INTEGER, r, 0, ints[i].type, newtype);
  *newtype = MPI_DATATYPE_NULL;
  return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_f90_integer(r=%d): no such kind (MPI_ERR_ARG)", r);
}
