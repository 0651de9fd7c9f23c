/* Reduction operations, applied to packed data element by element of the type's base
 * (a derived type made of one predefined type reduces like that type). */
#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "emul/rt/rt.h"

#define ARITH(T)                                                                           \
  static void arith_##T(MPI_Op op, const T *a, T *b, size_t n) {                           \
    switch (op) {                                                                          \
    case MPI_SUM: for (size_t i = 0; i < n; i++) b[i] = a[i] + b[i]; break;                \
    case MPI_PROD: for (size_t i = 0; i < n; i++) b[i] = a[i] * b[i]; break;               \
    case MPI_MAX: for (size_t i = 0; i < n; i++) if (a[i] > b[i]) b[i] = a[i]; break;      \
    case MPI_MIN: for (size_t i = 0; i < n; i++) if (a[i] < b[i]) b[i] = a[i]; break;      \
    case MPI_LAND: for (size_t i = 0; i < n; i++) b[i] = a[i] && b[i]; break;              \
    case MPI_LOR: for (size_t i = 0; i < n; i++) b[i] = a[i] || b[i]; break;               \
    case MPI_LXOR: for (size_t i = 0; i < n; i++) b[i] = !a[i] != !b[i]; break;            \
    default: emu_fatal("operation %d is not defined on this datatype (MPI_ERR_OP)", op);   \
    }                                                                                      \
  }
#define INTEGER(T)                                                                         \
  static void int_##T(MPI_Op op, const T *a, T *b, size_t n) {                             \
    switch (op) {                                                                          \
    case MPI_BAND: for (size_t i = 0; i < n; i++) b[i] = a[i] & b[i]; break;               \
    case MPI_BOR: for (size_t i = 0; i < n; i++) b[i] = a[i] | b[i]; break;                \
    case MPI_BXOR: for (size_t i = 0; i < n; i++) b[i] = a[i] ^ b[i]; break;               \
    default: arith_##T(op, a, b, n);                                                       \
    }                                                                                      \
  }
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef long long llong;
typedef unsigned long long ullong;
typedef long double ldouble;
ARITH(char) INTEGER(char) ARITH(schar) INTEGER(schar) ARITH(uchar) INTEGER(uchar)
ARITH(short) INTEGER(short) ARITH(ushort) INTEGER(ushort) ARITH(int) INTEGER(int)
ARITH(unsigned) INTEGER(unsigned) ARITH(long) INTEGER(long) ARITH(ulong) INTEGER(ulong)
ARITH(llong) INTEGER(llong) ARITH(ullong) INTEGER(ullong) ARITH(wchar_t) INTEGER(wchar_t)
ARITH(int8_t) INTEGER(int8_t) ARITH(int16_t) INTEGER(int16_t) ARITH(int32_t) INTEGER(int32_t)
ARITH(int64_t) INTEGER(int64_t) ARITH(uint8_t) INTEGER(uint8_t) ARITH(uint16_t) INTEGER(uint16_t)
ARITH(uint32_t) INTEGER(uint32_t) ARITH(uint64_t) INTEGER(uint64_t)
ARITH(float) ARITH(double) ARITH(ldouble)

static void bool_op(MPI_Op op, const bool *a, bool *b, size_t n) {
  switch (op) {
  case MPI_LAND: for (size_t i = 0; i < n; i++) b[i] = a[i] && b[i]; break;
  case MPI_LOR: for (size_t i = 0; i < n; i++) b[i] = a[i] || b[i]; break;
  case MPI_LXOR: for (size_t i = 0; i < n; i++) b[i] = a[i] != b[i]; break;
  default: emu_fatal("operation %d is not defined on MPI_C_BOOL (MPI_ERR_OP)", op);
  }
}

#define CPLX(T)                                                                            \
  static void cplx_##T(MPI_Op op, const T *a, T *b, size_t n) {                            \
    if (op == MPI_SUM) for (size_t i = 0; i < n; i++) b[i] = a[i] + b[i];                  \
    else if (op == MPI_PROD) for (size_t i = 0; i < n; i++) b[i] = a[i] * b[i];            \
    else emu_fatal("operation %d is not defined on complex types (MPI_ERR_OP)", op);       \
  }
typedef float complex fcplx;
typedef double complex dcplx;
typedef long double complex ldcplx;
CPLX(fcplx) CPLX(dcplx) CPLX(ldcplx)

/* MINLOC/MAXLOC on packed (value, index) pairs; ties keep the smaller index. The index is an
 * int (I), but of the value's type in Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION. */
#define PAIR(T) PAIR_OF(T, int, T)
#define PAIR_OF(T, I, NAME)                                                                \
  static void pair_##NAME(MPI_Op op, const char *a, char *b, size_t n) {                   \
    const size_t rec = sizeof(T) + sizeof(I);                                              \
    for (size_t i = 0; i < n; i++, a += rec, b += rec) {                                   \
      T va, vb;                                                                            \
      I ia, ib;                                                                            \
      memcpy(&va, a, sizeof va); memcpy(&ia, a + sizeof(T), sizeof ia);                    \
      memcpy(&vb, b, sizeof vb); memcpy(&ib, b + sizeof(T), sizeof ib);                    \
      int take;                                                                            \
      if (op == MPI_MINLOC) take = va < vb || (va == vb && ia < ib);                       \
      else if (op == MPI_MAXLOC) take = va > vb || (va == vb && ia < ib);                  \
      else { emu_fatal("only MINLOC/MAXLOC apply to pair types (MPI_ERR_OP)"); }           \
      if (take) memcpy(b, a, rec);                                                         \
    }                                                                                      \
  }
PAIR(float) PAIR(double) PAIR(long) PAIR(int) PAIR(short) PAIR(ldouble)
PAIR_OF(float, float, 2float) PAIR_OF(double, double, 2double)

static size_t base_size(int base) {
  switch (base) {
  case MPI_FLOAT_INT: return sizeof(float) + sizeof(int);
  case MPI_DOUBLE_INT: return sizeof(double) + sizeof(int);
  case MPI_LONG_INT: return sizeof(long) + sizeof(int);
  case MPI_2INT: return 2 * sizeof(int);
  case MPI_SHORT_INT: return sizeof(short) + sizeof(int);
  case MPI_LONG_DOUBLE_INT: return sizeof(long double) + sizeof(int);
  case MPI_2INTEGER: return 2 * sizeof(int);
  case MPI_2REAL: return 2 * sizeof(float);
  case MPI_2DOUBLE_PRECISION: return 2 * sizeof(double);
  default: return rt_w()->types.data[base]->size;
  }
}

/* A user operation sees its datatype's layout (holes, strides, lb), not packed bytes: both
 * operands are unpacked into scratch buffers laid out as count elements of dt, the function
 * runs on them, and the result is packed back. */
static void user_noncontig(MPI_User_function *fn, const rt_dtype *t, MPI_Datatype dt,
                           const void *in, void *inout, int count) {
  ptrdiff_t ext = t->ub - t->lb;
  ptrdiff_t lo = t->true_lb, hi = t->true_ub;
  if (ext >= 0) hi += (ptrdiff_t)(count - 1) * ext;
  else lo += (ptrdiff_t)(count - 1) * ext;
  size_t span = hi > lo ? (size_t)(hi - lo) : 1;
  size_t plen = t->size * (size_t)count;
  char *ba = xcalloc(1, span), *bb = xcalloc(1, span);
  rt_unpack(in, plen, ba - lo, count, dt);
  rt_unpack(inout, plen, bb - lo, count, dt);
  int len = count;
  MPI_Datatype d = dt;
  fn(ba - lo, bb - lo, &len, &d);
  rt_pack(bb - lo, count, dt, inout);
  free(ba);
  free(bb);
}

void rt_reduce(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count) {
  rt_dtype *t = rt_type(dt);
  rt_world *w = rt_w();
  if (op <= 0 || (size_t)op >= w->ops.len) emu_fatal("invalid operation %d (MPI_ERR_OP)", op);
  if (count <= 0) return;
  if (op >= PSIM_NUM_PREDEFINED_OPS) {
    int len = count;
    MPI_Datatype d = dt;
    if (t->contig) {   /* packed = the caller's layout */
      w->ops.data[op].fn((void *)in, inout, &len, &d);
      return;
    }
    user_noncontig(w->ops.data[op].fn, t, dt, in, inout, count);
    return;
  }
  if (op == MPI_REPLACE) { memcpy(inout, in, t->size * (size_t)count); return; }
  if (op == MPI_NO_OP) return;
  /* a type of size 0 (MPI_Type_contiguous(0, ...)) has no element to combine, whatever the
   * count: nothing to do (MPICH's rma/badrma accumulates count 1 of one) */
  if (t->size == 0) return;
  if (t->base <= 0) emu_fatal("reduction on a datatype mixing several basic types (MPI_ERR_TYPE)");
  size_t n = t->size * (size_t)count / base_size(t->base);
  const void *a = in;
  void *b = inout;
  switch (t->base) {
  case MPI_CHAR: case MPI_CHARACTER: int_char(op, a, b, n); break;
  case MPI_SIGNED_CHAR: int_schar(op, a, b, n); break;
  case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED: int_uchar(op, a, b, n); break;
  case MPI_WCHAR: int_wchar_t(op, a, b, n); break;
  case MPI_SHORT: int_short(op, a, b, n); break;
  case MPI_UNSIGNED_SHORT: int_ushort(op, a, b, n); break;
  case MPI_INT: case MPI_INTEGER: case MPI_LOGICAL: int_int(op, a, b, n); break;
  case MPI_UNSIGNED: int_unsigned(op, a, b, n); break;
  case MPI_LONG: int_long(op, a, b, n); break;
  case MPI_UNSIGNED_LONG: int_ulong(op, a, b, n); break;
  case MPI_LONG_LONG_INT: int_llong(op, a, b, n); break;
  case MPI_UNSIGNED_LONG_LONG: int_ullong(op, a, b, n); break;
  case MPI_INT8_T: int_int8_t(op, a, b, n); break;
  case MPI_INT16_T: int_int16_t(op, a, b, n); break;
  case MPI_INT32_T: int_int32_t(op, a, b, n); break;
  case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: int_int64_t(op, a, b, n); break;
  case MPI_UINT8_T: int_uint8_t(op, a, b, n); break;
  case MPI_UINT16_T: int_uint16_t(op, a, b, n); break;
  case MPI_UINT32_T: int_uint32_t(op, a, b, n); break;
  case MPI_UINT64_T: int_uint64_t(op, a, b, n); break;
  case MPI_FLOAT: case MPI_REAL: arith_float(op, a, b, n); break;
  case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: arith_double(op, a, b, n); break;
  case MPI_LONG_DOUBLE: arith_ldouble(op, a, b, n); break;
  case MPI_C_BOOL: bool_op(op, a, b, n); break;
  case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: cplx_fcplx(op, a, b, n); break;
  case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: cplx_dcplx(op, a, b, n); break;
  case MPI_C_LONG_DOUBLE_COMPLEX: cplx_ldcplx(op, a, b, n); break;
  case MPI_FLOAT_INT: pair_float(op, a, b, n); break;
  case MPI_DOUBLE_INT: pair_double(op, a, b, n); break;
  case MPI_LONG_INT: pair_long(op, a, b, n); break;
  case MPI_2INT: case MPI_2INTEGER: pair_int(op, a, b, n); break;
  case MPI_SHORT_INT: pair_short(op, a, b, n); break;
  case MPI_LONG_DOUBLE_INT: pair_ldouble(op, a, b, n); break;
  case MPI_2REAL: pair_2float(op, a, b, n); break;
  case MPI_2DOUBLE_PRECISION: pair_2double(op, a, b, n); break;
  default: emu_fatal("reduction not supported on datatype %d (MPI_ERR_TYPE)", t->base);
  }
}

int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op) {
  rt_live_call("MPI_Op_create");
  rt_world *w = rt_w();
  VEC_PUSH(w->ops, ((rt_uop){fn, commute}));
  *op = (int)w->ops.len - 1;
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op) {
  rt_live_call("MPI_Op_free");
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute) {
  rt_live_call("MPI_Op_commutative");
  rt_world *w = rt_w();
  if (op <= 0 || (size_t)op >= w->ops.len) emu_fatal("invalid operation %d (MPI_ERR_OP)", op);
  *commute = w->ops.data[op].commute;
  return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op) {
  /* on the caller's layout: pack both, reduce, unpack */
  size_t l1, l2;
  void *a = rt_pack_alloc(inbuf, count, dt, &l1);
  void *b = rt_pack_alloc(inoutbuf, count, dt, &l2);
  rt_reduce(op, dt, a, b, count);
  rt_unpack(b, l2, inoutbuf, count, dt);
  free(a);
  free(b);
  return MPI_SUCCESS;
}
