/* Datatypes: every type is flattened to the byte runs of one element (offsets from the
 * element's start), with MPI's lower bound and extent. Messages and collective contributions
 * travel *packed* (the runs concatenated), so sender and receiver may use different types with
 * the same signature, and reductions work on packed base elements. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <complex.h>

#include "emul/rt/rt.h"

typedef struct { float v; int i; } p_float_int;
typedef struct { double v; int i; } p_double_int;
typedef struct { long v; int i; } p_long_int;
typedef struct { int v; int i; } p_2int;
typedef struct { short v; int i; } p_short_int;
typedef struct { long double v; int i; } p_ldouble_int;

static rt_dtype *new_type(void) {
  rt_dtype *t = xcalloc(1, sizeof *t);
  t->lb = t->true_lb = PTRDIFF_MAX;
  t->ub = t->true_ub = PTRDIFF_MIN;
  t->base = 0;
  return t;
}

static void add_run(rt_dtype *t, ptrdiff_t off, size_t len) {
  if (!len) return;
  if (t->nblocks) {
    rt_block *b = &t->blocks[t->nblocks - 1];
    if (b->off + (ptrdiff_t)b->len == off) { b->len += len; goto bounds; }
  }
  if ((t->nblocks & (t->nblocks - 1)) == 0)
    t->blocks = xrealloc(t->blocks, (size_t)(t->nblocks ? 2 * t->nblocks : 1) * sizeof *t->blocks);
  t->blocks[t->nblocks++] = (rt_block){off, len};
bounds:
  t->size += len;
  if (off < t->true_lb) t->true_lb = off;
  if (off + (ptrdiff_t)len > t->true_ub) t->true_ub = off + (ptrdiff_t)len;
}

/* Appends n basic elements of `size` bytes to the type signature (runs of one size merged). */
static void add_sig(rt_dtype *t, size_t size, size_t n) {
  if (t->nsig && t->sig[t->nsig - 1].size == size) { t->sig[t->nsig - 1].n += n; return; }
  if ((t->nsig & (t->nsig - 1)) == 0)
    t->sig = xrealloc(t->sig, (size_t)(t->nsig ? 2 * t->nsig : 1) * sizeof *t->sig);
  t->sig[t->nsig++] = (rt_sig){size, n};
}

/* Appends a copy of type o displaced by disp bytes. */
static void add_copy(rt_dtype *t, const rt_dtype *o, ptrdiff_t disp) {
  for (int b = 0; b < o->nblocks; b++) add_run(t, disp + o->blocks[b].off, o->blocks[b].len);
  for (int s = 0; s < o->nsig; s++) add_sig(t, o->sig[s].size, o->sig[s].n);
  if (o->nblocks == 0 && o->size == 0) { /* markers (MPI_LB/MPI_UB) and empty types */ }
  if (disp + o->lb < t->lb) t->lb = disp + o->lb;
  if (disp + o->ub > t->ub) t->ub = disp + o->ub;
  if (t->base == 0) t->base = o->base;
  else if (o->size && t->base != o->base) t->base = -1;
}

static void finish(rt_dtype *t) {
  if (t->lb == PTRDIFF_MAX) t->lb = t->ub = 0;
  if (t->true_lb == PTRDIFF_MAX) t->true_lb = t->true_ub = 0;
  t->contig = t->lb == 0 && (t->nblocks == 0 || (t->nblocks == 1 && t->blocks[0].off == 0)) &&
              (ptrdiff_t)t->size == t->ub - t->lb;
}

static rt_dtype *prim(int code, size_t size, size_t align_extent) {
  rt_dtype *t = new_type();
  add_run(t, 0, size);
  add_sig(t, size, 1);
  t->lb = 0;
  t->ub = (ptrdiff_t)align_extent;
  t->base = code;
  t->predefined = t->committed = 1;
  finish(t);
  return t;
}

/* A MINLOC/MAXLOC pair: the value, and at ioff its index (an int, but Fortran's pairs'
 * index has the value's type: extent - ioff bytes). */
static rt_dtype *pair(int code, size_t vsize, size_t ioff, size_t extent) {
  rt_dtype *t = new_type();
  add_run(t, 0, vsize);
  add_run(t, (ptrdiff_t)ioff, code == MPI_2REAL || code == MPI_2DOUBLE_PRECISION ? vsize : sizeof(int));
  add_sig(t, t->size, 1);   /* one element, as MPI_Get_elements counts a pair */
  t->lb = 0;
  t->ub = (ptrdiff_t)extent;
  t->base = code;
  t->predefined = t->committed = 1;
  finish(t);
  return t;
}

void rt_dtypes_init(rt_world *w) {
  static const struct { int code; size_t size; } sz[] = {
    {MPI_CHAR, 1}, {MPI_SIGNED_CHAR, 1}, {MPI_UNSIGNED_CHAR, 1}, {MPI_BYTE, 1},
    {MPI_WCHAR, sizeof(wchar_t)}, {MPI_SHORT, sizeof(short)}, {MPI_UNSIGNED_SHORT, sizeof(short)},
    {MPI_INT, sizeof(int)}, {MPI_UNSIGNED, sizeof(int)}, {MPI_LONG, sizeof(long)},
    {MPI_UNSIGNED_LONG, sizeof(long)}, {MPI_LONG_LONG_INT, sizeof(long long)},
    {MPI_UNSIGNED_LONG_LONG, sizeof(long long)}, {MPI_FLOAT, sizeof(float)},
    {MPI_DOUBLE, sizeof(double)}, {MPI_LONG_DOUBLE, sizeof(long double)}, {MPI_C_BOOL, sizeof(_Bool)},
    {MPI_INT8_T, 1}, {MPI_INT16_T, 2}, {MPI_INT32_T, 4}, {MPI_INT64_T, 8}, {MPI_UINT8_T, 1},
    {MPI_UINT16_T, 2}, {MPI_UINT32_T, 4}, {MPI_UINT64_T, 8}, {MPI_AINT, sizeof(MPI_Aint)},
    {MPI_OFFSET, sizeof(MPI_Offset)}, {MPI_COUNT, sizeof(MPI_Count)}, {MPI_PACKED, 1},
    {MPI_C_FLOAT_COMPLEX, sizeof(float complex)}, {MPI_C_DOUBLE_COMPLEX, sizeof(double complex)},
    {MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex)},
    {MPI_INTEGER, sizeof(int)}, {MPI_REAL, sizeof(float)}, {MPI_DOUBLE_PRECISION, sizeof(double)},
    {MPI_COMPLEX, sizeof(float complex)}, {MPI_DOUBLE_COMPLEX, sizeof(double complex)},
    {MPI_LOGICAL, sizeof(int)}, {MPI_CHARACTER, 1},
  };
  for (int i = 0; i < PSIM_NUM_PREDEFINED_TYPES; i++) VEC_PUSH(w->types, NULL);
  for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
    w->types.data[sz[i].code] = prim(sz[i].code, sz[i].size, sz[i].size);
  w->types.data[MPI_FLOAT_INT] = pair(MPI_FLOAT_INT, sizeof(float), offsetof(p_float_int, i), sizeof(p_float_int));
  w->types.data[MPI_DOUBLE_INT] = pair(MPI_DOUBLE_INT, sizeof(double), offsetof(p_double_int, i), sizeof(p_double_int));
  w->types.data[MPI_LONG_INT] = pair(MPI_LONG_INT, sizeof(long), offsetof(p_long_int, i), sizeof(p_long_int));
  w->types.data[MPI_2INT] = pair(MPI_2INT, sizeof(int), offsetof(p_2int, i), sizeof(p_2int));
  w->types.data[MPI_SHORT_INT] = pair(MPI_SHORT_INT, sizeof(short), offsetof(p_short_int, i), sizeof(p_short_int));
  w->types.data[MPI_2INTEGER] = pair(MPI_2INTEGER, sizeof(int), sizeof(int), 2 * sizeof(int));
  w->types.data[MPI_2REAL] = pair(MPI_2REAL, sizeof(float), sizeof(float), 2 * sizeof(float));
  w->types.data[MPI_2DOUBLE_PRECISION] = pair(MPI_2DOUBLE_PRECISION, sizeof(double), sizeof(double), 2 * sizeof(double));
  w->types.data[MPI_LONG_DOUBLE_INT] = pair(MPI_LONG_DOUBLE_INT, sizeof(long double), offsetof(p_ldouble_int, i), sizeof(p_ldouble_int));
  rt_dtype *lb = new_type(), *ub = new_type();
  lb->predefined = ub->predefined = lb->committed = ub->committed = 1;
  finish(lb);
  finish(ub);
  lb->explicit_lb = ub->explicit_ub = 1;
  w->types.data[MPI_LB] = lb;
  /* the sized Fortran types and C++'s: C's layouts under their own handles (base: C's type) */
  static const struct { int code, twin; size_t size; } sized[] = {
    {MPI_REAL4, MPI_FLOAT, 4}, {MPI_REAL8, MPI_DOUBLE, 8}, {MPI_REAL16, MPI_REAL16, 16},
    {MPI_COMPLEX8, MPI_C_FLOAT_COMPLEX, 8}, {MPI_COMPLEX16, MPI_C_DOUBLE_COMPLEX, 16},
    {MPI_COMPLEX32, MPI_COMPLEX32, 32}, {MPI_INTEGER1, MPI_INT8_T, 1}, {MPI_INTEGER2, MPI_INT16_T, 2},
    {MPI_INTEGER4, MPI_INT32_T, 4}, {MPI_INTEGER8, MPI_INT64_T, 8}, {MPI_CXX_BOOL, MPI_C_BOOL, sizeof(_Bool)},
    {MPI_CXX_FLOAT_COMPLEX, MPI_C_FLOAT_COMPLEX, sizeof(float complex)},
    {MPI_CXX_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX, sizeof(double complex)},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex)}};
  for (size_t i = 0; i < sizeof sized / sizeof *sized; i++)
    w->types.data[sized[i].code] = prim(sized[i].twin, sized[i].size, sized[i].size);
  w->types.data[MPI_UB] = ub;
}

/* not inlined: its return address names the MPI call (rt_live) */
__attribute__((noinline)) rt_dtype *rt_type(MPI_Datatype dt) {
  rt_live(__builtin_return_address(0));
  rt_world *w = rt_w();
  if (dt <= 0 || (size_t)dt >= w->types.len || !w->types.data[dt] || w->types.data[dt]->freed)
    emu_fatal("invalid datatype %d (MPI_ERR_TYPE)", dt);
  return w->types.data[dt];
}

/* A type a pending operation uses: MPI lets the program free it before the operation
 * completes (the type lives on until then), so moving the data accepts a freed type. */
rt_dtype *rt_type_inflight(MPI_Datatype dt) {
  rt_world *w = rt_w();
  if (dt <= 0 || (size_t)dt >= w->types.len || !w->types.data[dt])
    emu_fatal("invalid datatype %d (MPI_ERR_TYPE)", dt);
  return w->types.data[dt];
}

size_t rt_pack_size(MPI_Datatype dt, int count) { return rt_type_inflight(dt)->size * (size_t)(count < 0 ? 0 : count); }
ptrdiff_t rt_extent(MPI_Datatype dt) { rt_dtype *t = rt_type_inflight(dt); return t->ub - t->lb; }

void rt_pack(const void *buf, int count, MPI_Datatype dt, void *out) {
  rt_dtype *t = rt_type_inflight(dt);
  char *o = out;
  const char *in = buf;
  if (t->contig) { if (count > 0 && t->size) memcpy(o, in, t->size * (size_t)count); return; }
  /* gathering a non-contiguous type is work a real MPI does on the rank's core (a contiguous
   * one's copy here is psim's way of moving the data, which the network model times) */
  emu_work w;
  emu_work_begin(&w);
  ptrdiff_t ext = t->ub - t->lb;
  for (int i = 0; i < count; i++, in += ext)
    for (int b = 0; b < t->nblocks; b++) {
      memcpy(o, in + t->blocks[b].off, t->blocks[b].len);
      o += t->blocks[b].len;
    }
  emu_work_end(&w);
}

size_t rt_unpack(const void *inp, size_t len, void *buf, int count, MPI_Datatype dt) {
  rt_dtype *t = rt_type_inflight(dt);
  const char *in = inp;
  char *o = buf;
  if (t->contig) {
    size_t n = t->size * (size_t)(count < 0 ? 0 : count);
    if (n > len) n = len;
    if (n) memcpy(o, in, n);
    return n;
  }
  emu_work w;   /* scattering into a non-contiguous type: the rank's work (rt_pack) */
  emu_work_begin(&w);
  ptrdiff_t ext = t->ub - t->lb;
  size_t used = 0;
  for (int i = 0; i < count && used < len; i++, o += ext)
    for (int b = 0; b < t->nblocks && used < len; b++) {
      size_t n = t->blocks[b].len;
      if (n > len - used) n = len - used;
      memcpy(o + t->blocks[b].off, in + used, n);
      used += n;
    }
  emu_work_end(&w);
  return used;
}

void *rt_pack_alloc(const void *buf, int count, MPI_Datatype dt, size_t *len) {
  *len = rt_pack_size(dt, count);
  void *p = xmalloc(*len ? *len : 1);
  /* A large block comes fresh from mmap: packing into it would also measure the page faults
   * of its first touch (PTRANS's 32 MB block: 13 ms of packing where the copy takes 4), a cost
   * of psim's buffer that a real MPI, packing into its reused transfer cells, does not have.
   * The pages are touched first, outside the measured packing (rt_pack). */
  if (*len >= ((size_t)1 << 20) && !rt_type_inflight(dt)->contig) memset(p, 0, *len);
  rt_pack(buf, count, dt, p);
  return p;
}

static int add_type(rt_dtype *t, MPI_Datatype *out) {
  finish(t);
  t->refs = 1;
  rt_world *w = rt_w();
  VEC_PUSH(w->types, t);
  *out = (int)w->types.len - 1;
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype dt, int *size) { *size = (int)rt_type(dt)->size; return MPI_SUCCESS; }

int MPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent) {
  rt_dtype *t = rt_type(dt);
  *lb = t->lb;
  *extent = t->ub - t->lb;
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent) {
  rt_dtype *t = rt_type(dt);
  *lb = t->true_lb;
  *extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

int MPI_Type_extent(MPI_Datatype dt, MPI_Aint *extent) { *extent = rt_extent(dt); return MPI_SUCCESS; }
int MPI_Type_lb(MPI_Datatype dt, MPI_Aint *lb) { *lb = rt_type(dt)->lb; return MPI_SUCCESS; }
int MPI_Type_ub(MPI_Datatype dt, MPI_Aint *ub) { *ub = rt_type(dt)->ub; return MPI_SUCCESS; }

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  rt_dtype *o = rt_type(old), *t = new_type();
  ptrdiff_t ext = o->ub - o->lb;
  for (int i = 0; i < count; i++) add_copy(t, o, i * ext);
  add_type(t, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
  a->ints[0] = count;
  a->types[0] = old;
  return MPI_SUCCESS;
}

int MPI_Type_create_hvector(int count, int bl, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  RT_CHECK_COUNT(bl);
  rt_dtype *o = rt_type(old), *t = new_type();
  ptrdiff_t ext = o->ub - o->lb;
  for (int i = 0; i < count; i++)
    for (int j = 0; j < bl; j++) add_copy(t, o, i * stride + j * ext);
  add_type(t, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_HVECTOR, 2, 1, 1);
  a->ints[0] = count;
  a->ints[1] = bl;
  a->addrs[0] = stride;
  a->types[0] = old;
  return MPI_SUCCESS;
}

int MPI_Type_hvector(int count, int bl, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *newtype) {
  return MPI_Type_create_hvector(count, bl, stride, old, newtype);
}

int MPI_Type_vector(int count, int bl, int stride, MPI_Datatype old, MPI_Datatype *newtype) {
  MPI_Type_create_hvector(count, bl, (MPI_Aint)stride * rt_extent(old), old, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_VECTOR, 3, 0, 1);
  a->ints[0] = count;
  a->ints[1] = bl;
  a->ints[2] = stride;
  a->types[0] = old;
  return MPI_SUCCESS;
}

int MPI_Type_create_hindexed(int count, const int bls[], const MPI_Aint displs[], MPI_Datatype old,
                             MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  rt_dtype *o = rt_type(old), *t = new_type();
  ptrdiff_t ext = o->ub - o->lb;
  for (int i = 0; i < count; i++)
    for (int j = 0; j < bls[i]; j++) add_copy(t, o, displs[i] + j * ext);
  add_type(t, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_HINDEXED, count + 1, count, 1);
  a->ints[0] = count;
  for (int i = 0; i < count; i++) { a->ints[1 + i] = bls[i]; a->addrs[i] = displs[i]; }
  a->types[0] = old;
  return MPI_SUCCESS;
}

int MPI_Type_indexed(int count, const int bls[], const int displs[], MPI_Datatype old,
                     MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  MPI_Aint *d = xmalloc((size_t)(count ? count : 1) * sizeof *d);
  for (int i = 0; i < count; i++) d[i] = (MPI_Aint)displs[i] * rt_extent(old);
  int r = MPI_Type_create_hindexed(count, bls, d, old, newtype);
  free(d);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_INDEXED, 2 * count + 1, 0, 1);
  a->ints[0] = count;
  for (int i = 0; i < count; i++) { a->ints[1 + i] = bls[i]; a->ints[1 + count + i] = displs[i]; }
  a->types[0] = old;
  return r;
}

int MPI_Type_create_indexed_block(int count, int bl, const int displs[], MPI_Datatype old,
                                  MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  int *b = xmalloc((size_t)(count ? count : 1) * sizeof *b);
  for (int i = 0; i < count; i++) b[i] = bl;
  int r = MPI_Type_indexed(count, b, displs, old, newtype);
  free(b);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_INDEXED_BLOCK, count + 2, 0, 1);
  a->ints[0] = count;
  a->ints[1] = bl;
  if (count) memcpy(a->ints + 2, displs, (size_t)count * sizeof *displs);
  a->types[0] = old;
  return r;
}

int MPI_Type_create_struct(int count, const int bls[], const MPI_Aint displs[],
                           const MPI_Datatype types[], MPI_Datatype *newtype) {
  RT_CHECK_COUNT(count);
  rt_dtype *t = new_type();
  ptrdiff_t xlb = PTRDIFF_MAX, xub = PTRDIFF_MIN;
  for (int i = 0; i < count; i++) {
    rt_dtype *o = rt_type(types[i]);
    if (o->explicit_lb) { if (displs[i] < xlb) xlb = displs[i]; continue; }
    if (o->explicit_ub) { if (displs[i] > xub) xub = displs[i]; continue; }
    ptrdiff_t ext = o->ub - o->lb;
    for (int j = 0; j < bls[i]; j++) add_copy(t, o, displs[i] + j * ext);
  }
  if (xlb != PTRDIFF_MAX) t->lb = xlb;
  if (xub != PTRDIFF_MIN) t->ub = xub;
  if (t->lb == PTRDIFF_MAX) t->lb = xlb != PTRDIFF_MAX ? xlb : 0;
  if (t->ub == PTRDIFF_MIN) t->ub = t->lb;
  add_type(t, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_STRUCT, count + 1, count, count);
  a->ints[0] = count;
  for (int i = 0; i < count; i++) { a->ints[1 + i] = bls[i]; a->addrs[i] = displs[i]; a->types[i] = types[i]; }
  return MPI_SUCCESS;
}

int MPI_Type_struct(int count, int bls[], MPI_Aint displs[], MPI_Datatype types[], MPI_Datatype *newtype) {
  return MPI_Type_create_struct(count, bls, displs, types, newtype);
}

int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
  rt_dtype *o = rt_type(old), *t = new_type();
  add_copy(t, o, 0);
  t->lb = lb;
  t->ub = lb + extent;
  add_type(t, newtype);
  rt_dtype_args *a = rt_type_record(*newtype, MPI_COMBINER_RESIZED, 0, 2, 1);
  a->addrs[0] = lb;
  a->addrs[1] = extent;
  a->types[0] = old;
  return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype) {
  rt_dtype *o = rt_type(old), *t = new_type();
  add_copy(t, o, 0);
  t->lb = o->lb;
  t->ub = o->ub;
  add_type(t, newtype);
  rt_type_record(*newtype, MPI_COMBINER_DUP, 0, 0, 1)->types[0] = old;
  rt_attr_type_dup(old, *newtype);
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *dt) { rt_type(*dt)->committed = 1; return MPI_SUCCESS; }

int MPI_Type_free(MPI_Datatype *dt) {
  rt_dtype *t = rt_type(*dt);
  if (t->predefined) emu_fatal("MPI_Type_free of a predefined datatype (MPI_ERR_TYPE)");
  /* kept (marked) rather than released: pending operations and the types made from it
   * (MPI_Type_get_contents) may still refer to it; the last handle frees it */
  if (--t->refs <= 0) {
    rt_attr_type_free(*dt);
    t->freed = 1;
  }
  *dt = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Get_address(const void *location, MPI_Aint *address) {
  *address = (MPI_Aint)(intptr_t)location;
  return MPI_SUCCESS;
}

int MPI_Address(void *location, MPI_Aint *address) { return MPI_Get_address(location, address); }

/* MPI 3.1's address arithmetic: addresses are plain numbers here (MPI_BOTTOM is 0) */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp); }
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2); }

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
             int *position, MPI_Comm comm) {
  (void)comm;
  size_t n = rt_pack_size(dt, incount);
  if ((size_t)*position + n > (size_t)outsize) emu_fatal("MPI_Pack: output buffer too small (MPI_ERR_TRUNCATE)");
  rt_pack(inbuf, incount, dt, (char *)outbuf + *position);
  *position += (int)n;
  return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype dt, MPI_Comm comm) {
  (void)comm;
  size_t n = rt_pack_size(dt, outcount);
  if ((size_t)*position + n > (size_t)insize) emu_fatal("MPI_Unpack: input buffer too small (MPI_ERR_TRUNCATE)");
  rt_unpack((const char *)inbuf + *position, n, outbuf, outcount, dt);
  *position += (int)n;
  return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size) {
  (void)comm;
  *size = (int)rt_pack_size(dt, incount);
  return MPI_SUCCESS;
}
