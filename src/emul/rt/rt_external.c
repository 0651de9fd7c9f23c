/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the "external32" data
 * representation (MPI 3.1, section 13.5.2): every basic element big-endian at MPI's fixed size,
 * whatever this machine's (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2: truncated
 * when packed, sign- or zero-extended when unpacked; MPI_LONG_DOUBLE is IEEE quadruple
 * precision, converted from and to x87's 80-bit format; complex numbers are two reals, the
 * MINLOC/MAXLOC pairs a value and an index). The type map comes from the constructors' records
 * (rt_type_walk, rt_dtype_decode.c). "external32" is the only representation. */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "emul/rt/rt.h"

/* external32 size of a basic type (0: none, as MPI_LB/MPI_UB) and whether it is signed */
static int ext_size(MPI_Datatype b, int *is_signed) {
  *is_signed = 0;
  switch (b) {
  case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_C_BOOL:
  case MPI_INT8_T: case MPI_UINT8_T: case MPI_PACKED: case MPI_CHARACTER: return 1;
  case MPI_WCHAR: case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return 2;
  case MPI_SHORT: case MPI_INT16_T: *is_signed = 1; return 2;
  case MPI_LONG: *is_signed = 1; return 4;
  case MPI_UNSIGNED: case MPI_UNSIGNED_LONG: case MPI_UINT32_T: case MPI_FLOAT: case MPI_REAL: return 4;
  case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_LOGICAL: *is_signed = 1; return 4;
  case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: return 8;
  case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: *is_signed = 1; return 8;
  case MPI_LONG_DOUBLE: return 16;
  default: return 0;
  }
}

typedef struct ext_ctx {
  char *mem;                 /* the element's start in the program's buffer */
  unsigned char *ext;        /* next external32 byte */
  size_t n;                  /* external32 bytes so far */
  int unpack;
} ext_ctx;

static uint64_t get_be(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

static void put_be(unsigned char *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

/* x87's 80 bits (64-bit significand with its integer bit, 15-bit exponent, sign) <->
 * IEEE quadruple (same sign and biased exponent, 112-bit fraction without the integer bit) */
static void ldouble_out(const char *mem, unsigned char *ext) {
  uint64_t mant;
  uint16_t se;
  memcpy(&mant, mem, 8);
  memcpy(&se, mem + 8, 2);
  uint64_t frac = mant & 0x7fffffffffffffffull;
  put_be(ext, (uint64_t)se << 48 | frac >> 15, 8);
  put_be(ext + 8, frac << 49, 8);
}

static void ldouble_in(const unsigned char *ext, char *mem) {
  uint64_t hi = get_be(ext, 8), lo = get_be(ext + 8, 8);
  uint16_t se = (uint16_t)(hi >> 48);
  uint64_t frac = (hi & 0xffffffffffffull) << 15 | lo >> 49;
  uint64_t mant = frac | ((se & 0x7fff) ? 1ull << 63 : 0);
  memset(mem, 0, sizeof(long double));
  memcpy(mem, &mant, 8);
  memcpy(mem + 8, &se, 2);
}

static void convert(void *ctx, ptrdiff_t off, MPI_Datatype b) {
  ext_ctx *c = ctx;
  int sgn, n = ext_size(b, &sgn);
  if (!n) return;
  if (c->ext) {
    char *m = c->mem + off;
    if (b == MPI_LONG_DOUBLE) {
      if (c->unpack) ldouble_in(c->ext, m);
      else ldouble_out(m, c->ext);
    } else {
      int msize = (int)rt_type(b)->size;
      uint64_t v = 0;
      if (c->unpack) {
        v = get_be(c->ext, n);
        if (sgn && n < 8 && v >> (8 * n - 1)) v |= ~0ull << (8 * n);   /* sign extension */
        memcpy(m, &v, (size_t)msize);   /* little-endian: the low bytes */
      } else {
        memcpy(&v, m, (size_t)msize);
        put_be(c->ext, v, n);           /* the low n bytes: truncated if narrower */
      }
    }
    c->ext += n;
  }
  c->n += (size_t)n;
}

#if LDBL_MANT_DIG != 64
#error "rt_external.c converts x87 80-bit long doubles"
#endif

static int check_rep(const char *datarep, const char *call) {
  if (strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
  return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "%s: data representation \"%s\" (only \"external32\") (MPI_ERR_ARG)", call, datarep);
}

/* Bytes of `count` elements of dt in external32. */
static size_t ext_bytes(int count, MPI_Datatype dt) {
  ext_ctx c = {0};
  rt_type_walk(dt, 0, convert, &c);
  return c.n * (size_t)(count < 0 ? 0 : count);
}

/* Converts count elements at mem to or from ext. */
static void ext_run(char *mem, int count, MPI_Datatype dt, unsigned char *ext, int unpack) {
  ext_ctx c = {mem, ext, 0, unpack};
  ptrdiff_t extent = rt_extent(dt);
  for (int i = 0; i < count; i++, c.mem += extent) rt_type_walk(dt, 0, convert, &c);
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype dt, MPI_Aint *size) {
  int rc = check_rep(datarep, "MPI_Pack_external_size");
  if (rc) return rc;
  RT_CHECK_COUNT(incount);
  *size = (MPI_Aint)ext_bytes(incount, dt);
  return MPI_SUCCESS;
}

/* Packs (unpack 0) or unpacks count elements of dt at mem, to or from ext's bytes from *position
 * of its size bytes. */
static int pack_ext(const char *call, const char *datarep, char *mem, int count, MPI_Datatype dt,
                    unsigned char *ext, MPI_Aint size, MPI_Aint *position, int unpack) {
  int rc = check_rep(datarep, call);
  if (rc) return rc;
  RT_CHECK_COUNT(count);
  size_t n = ext_bytes(count, dt);
  if (*position < 0 || (size_t)*position + n > (size_t)size)
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, "%s: %zu bytes at %td of a %td-byte buffer (MPI_ERR_TRUNCATE)",
                         call, n, (ptrdiff_t)*position, (ptrdiff_t)size);
  ext_run(mem, count, dt, ext + *position, unpack);
  *position += (MPI_Aint)n;
  return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position) {
  return pack_ext("MPI_Pack_external", datarep, (char *)(uintptr_t)inbuf, incount, dt, outbuf,
                  outsize, position, 0);
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt) {
  return pack_ext("MPI_Unpack_external", datarep, outbuf, outcount, dt,
                  (unsigned char *)(uintptr_t)inbuf, insize, position, 1);
}
