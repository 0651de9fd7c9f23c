/* More datatype calls, built on the constructors of rt_dtype.c: MPI_Type_hindexed,
 * MPI_Type_create_hindexed_block, MPI_Type_create_subarray, names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

int MPI_Type_hindexed(int count, int bls[], MPI_Aint displs[], MPI_Datatype old, MPI_Datatype *newtype) {
  return MPI_Type_create_hindexed(count, bls, displs, old, newtype);
}

int MPI_Type_create_hindexed_block(int count, int bl, const MPI_Aint displs[], MPI_Datatype old,
                                   MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  int *b = xmalloc((size_t)(count ? count : 1) * sizeof *b);
  for (int i = 0; i < count; i++) b[i] = bl;
  int r = MPI_Type_create_hindexed(count, b, displs, old, newtype);
  free(b);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_HINDEXED_BLOCK, 2, count, 1);
  a->ints[0] = count;
  a->ints[1] = bl;
  if (count) memcpy(a->addrs, displs, (size_t)count * sizeof *displs);
  a->types[0] = old;
  return r;
}

/* The subarray as MPI defines it: the selected block, at its place in the full array, with
 * the full array's extent (lower bound 0). Built from the fastest dimension outwards: a
 * contiguous run, then one hvector per slower dimension, then moved to its start and resized. */
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                             int order, MPI_Datatype old, MPI_Datatype *newtype) {
  if (ndims <= 0) emu_fatal("MPI_Type_create_subarray: %d dimensions (MPI_ERR_ARG)", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) emu_fatal("MPI_Type_create_subarray: order %d (MPI_ERR_ARG)", order);
  for (int d = 0; d < ndims; d++)
    if (sizes[d] <= 0 || subsizes[d] < 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
      emu_fatal("MPI_Type_create_subarray: dimension %d: size %d, subsize %d, start %d (MPI_ERR_ARG)", d, sizes[d], subsizes[d], starts[d]);
  ptrdiff_t ext = rt_extent(old);
  /* dims from fastest to slowest */
  int *dim = xmalloc((size_t)ndims * sizeof *dim);
  for (int i = 0; i < ndims; i++) dim[i] = order == MPI_ORDER_C ? ndims - 1 - i : i;
  MPI_Datatype t, u;
  MPI_Type_contiguous(subsizes[dim[0]], old, &t);
  ptrdiff_t stride = ext * sizes[dim[0]], disp = (ptrdiff_t)starts[dim[0]] * ext;
  for (int i = 1; i < ndims; i++) {
    int d = dim[i];
    MPI_Type_create_hvector(subsizes[d], 1, stride, t, &u);
    MPI_Type_free(&t);
    t = u;
    disp += (ptrdiff_t)starts[d] * stride;
    stride *= sizes[d];
  }
  free(dim);
  int one = 1;
  MPI_Aint dd = disp;
  MPI_Type_create_hindexed(1, &one, &dd, t, &u);
  MPI_Type_free(&t);
  MPI_Type_create_resized(u, 0, stride, newtype);
  MPI_Type_free(&u);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1);
  a->ints[0] = ndims;
  for (int d = 0; d < ndims; d++) {
    a->ints[1 + d] = sizes[d];
    a->ints[1 + ndims + d] = subsizes[d];
    a->ints[1 + 2 * ndims + d] = starts[d];
  }
  a->ints[1 + 3 * ndims] = order;
  a->types[0] = old;
  return MPI_SUCCESS;
}

static const char *predefined_name(int dt) {
  static const char *names[PSIM_NUM_PREDEFINED_TYPES] = {
    [MPI_CHAR] = "MPI_CHAR", [MPI_SIGNED_CHAR] = "MPI_SIGNED_CHAR", [MPI_UNSIGNED_CHAR] = "MPI_UNSIGNED_CHAR",
    [MPI_BYTE] = "MPI_BYTE", [MPI_WCHAR] = "MPI_WCHAR", [MPI_SHORT] = "MPI_SHORT",
    [MPI_UNSIGNED_SHORT] = "MPI_UNSIGNED_SHORT", [MPI_INT] = "MPI_INT", [MPI_UNSIGNED] = "MPI_UNSIGNED",
    [MPI_LONG] = "MPI_LONG", [MPI_UNSIGNED_LONG] = "MPI_UNSIGNED_LONG", [MPI_LONG_LONG_INT] = "MPI_LONG_LONG_INT",
    [MPI_UNSIGNED_LONG_LONG] = "MPI_UNSIGNED_LONG_LONG", [MPI_FLOAT] = "MPI_FLOAT", [MPI_DOUBLE] = "MPI_DOUBLE",
    [MPI_LONG_DOUBLE] = "MPI_LONG_DOUBLE", [MPI_C_BOOL] = "MPI_C_BOOL", [MPI_INT8_T] = "MPI_INT8_T",
    [MPI_INT16_T] = "MPI_INT16_T", [MPI_INT32_T] = "MPI_INT32_T", [MPI_INT64_T] = "MPI_INT64_T",
    [MPI_UINT8_T] = "MPI_UINT8_T", [MPI_UINT16_T] = "MPI_UINT16_T", [MPI_UINT32_T] = "MPI_UINT32_T",
    [MPI_UINT64_T] = "MPI_UINT64_T", [MPI_AINT] = "MPI_AINT", [MPI_OFFSET] = "MPI_OFFSET", [MPI_COUNT] = "MPI_COUNT",
    [MPI_PACKED] = "MPI_PACKED", [MPI_C_FLOAT_COMPLEX] = "MPI_C_COMPLEX",   /* MPICH's name of it */
    [MPI_C_DOUBLE_COMPLEX] = "MPI_C_DOUBLE_COMPLEX", [MPI_FLOAT_INT] = "MPI_FLOAT_INT",
    [MPI_DOUBLE_INT] = "MPI_DOUBLE_INT", [MPI_LONG_INT] = "MPI_LONG_INT", [MPI_2INT] = "MPI_2INT",
    [MPI_SHORT_INT] = "MPI_SHORT_INT", [MPI_LONG_DOUBLE_INT] = "MPI_LONG_DOUBLE_INT", [MPI_UB] = "MPI_UB",
    [MPI_LB] = "MPI_LB", [MPI_C_LONG_DOUBLE_COMPLEX] = "MPI_C_LONG_DOUBLE_COMPLEX",
    [MPI_INTEGER] = "MPI_INTEGER", [MPI_REAL] = "MPI_REAL", [MPI_DOUBLE_PRECISION] = "MPI_DOUBLE_PRECISION",
    [MPI_COMPLEX] = "MPI_COMPLEX", [MPI_DOUBLE_COMPLEX] = "MPI_DOUBLE_COMPLEX", [MPI_LOGICAL] = "MPI_LOGICAL",
    [MPI_CHARACTER] = "MPI_CHARACTER", [MPI_2INTEGER] = "MPI_2INTEGER", [MPI_2REAL] = "MPI_2REAL",
    [MPI_2DOUBLE_PRECISION] = "MPI_2DOUBLE_PRECISION", [MPI_REAL4] = "MPI_REAL4", [MPI_REAL8] = "MPI_REAL8",
    [MPI_REAL16] = "MPI_REAL16", [MPI_COMPLEX8] = "MPI_COMPLEX8", [MPI_COMPLEX16] = "MPI_COMPLEX16",
    [MPI_COMPLEX32] = "MPI_COMPLEX32", [MPI_INTEGER1] = "MPI_INTEGER1", [MPI_INTEGER2] = "MPI_INTEGER2",
    [MPI_INTEGER4] = "MPI_INTEGER4", [MPI_INTEGER8] = "MPI_INTEGER8", [MPI_CXX_BOOL] = "MPI_CXX_BOOL",
    [MPI_CXX_FLOAT_COMPLEX] = "MPI_CXX_FLOAT_COMPLEX", [MPI_CXX_DOUBLE_COMPLEX] = "MPI_CXX_DOUBLE_COMPLEX",
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = "MPI_CXX_LONG_DOUBLE_COMPLEX",
  };
  return dt > 0 && dt < PSIM_NUM_PREDEFINED_TYPES && names[dt] ? names[dt] : "";
}

int MPI_Type_set_name(MPI_Datatype dt, const char *name) {
  snprintf(rt_type(dt)->name, MPI_MAX_OBJECT_NAME, "%s", name);
  return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype dt, char *name, int *resultlen) {
  rt_dtype *t = rt_type(dt);
  snprintf(name, MPI_MAX_OBJECT_NAME, "%s", t->name[0] || !t->predefined ? t->name : predefined_name(dt));
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype dt, MPI_Count *size) { *size = (MPI_Count)rt_type(dt)->size; return MPI_SUCCESS; }
