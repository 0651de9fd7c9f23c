/* Translating between MPICH's ABI and psim's: handles, ranks, error classes, statuses.
 *
 * MPICH's values are facts of its installed mpi.h (Debian's MPICH 4.0.2): a handle's two top
 * bits say builtin (01) or user object (10), the next four its kind (comm 1, group 2,
 * datatype 3, errhandler 5, op 6, info 7, win 8, request 11); a builtin datatype also encodes its
 * size in bits 8-15. psim's handles are small indices (include/psim_mpi/mpi.h). So a psim
 * object h that the program created is MPICH's "user object" 0x80000000 | kind << 26 | h, and the
 * predefined ones go through small tables: pure arithmetic, no state, one copy for all ranks.
 *
 * This is the only file of the library that includes psim's mpi.h (for psim's values). */
#define PSIM_NO_LOCATION
#include "psim_mpi/mpi.h"

#include <stdint.h>
#include <string.h>

#include "emul/abi/abi.h"

_Static_assert(sizeof(MPI_Status) == sizeof(abi_pstatus) && _Alignof(MPI_Status) == _Alignof(abi_pstatus),
               "abi_pstatus must have the size of psim's MPI_Status (arrays of them go to psim)");

#define USER_BITS 0x80000000u
#define BUILTIN_BITS 0x40000000u
#define KIND_SHIFT 26
#define INDEX_MASK 0x03ffffffu
enum { K_COMM = 1, K_GROUP = 2, K_DT = 3, K_ERRH = 5, K_OP = 6, K_INFO = 7, K_WIN = 8, K_REQ = 11 };

typedef struct pair { int psim; unsigned mpich; } pair;

static unsigned user(int kind, int h) { return USER_BITS | (unsigned)kind << KIND_SHIFT | (unsigned)h; }
static unsigned null_of(int kind) { return (unsigned)kind << KIND_SHIFT; }

/* psim value -> MPICH value: the table's predefined objects, else a user object. */
static int out_of(int kind, const pair *t, size_t n, int h) {
  for (size_t i = 0; i < n; i++)
    if (t[i].psim == h) return (int)t[i].mpich;
  if (h <= 0) return (int)null_of(kind);
  return (int)user(kind, h);
}

/* MPICH value -> psim value; first_user: psim's first handle of an object the program made. */
static int in_of(int kind, const pair *t, size_t n, int first_user, int h) {
  unsigned u = (unsigned)h;
  if (u == null_of(kind)) return 0;
  for (size_t i = 0; i < n; i++)
    if (t[i].mpich == u) return t[i].psim;
  if ((u & ~INDEX_MASK) == user(kind, 0) && (int)(u & INDEX_MASK) >= first_user) return (int)(u & INDEX_MASK);
  return -1;   /* not a handle of this kind: psim's runtime reports it */
}

#define N(t) (sizeof t / sizeof *t)

static const pair comms[] = {{MPI_COMM_WORLD, 0x44000000u}, {MPI_COMM_SELF, 0x44000001u}};
int abi_comm_in(int h) { return in_of(K_COMM, comms, N(comms), MPI_COMM_SELF + 1, h); }
int abi_comm_out(int h) { return out_of(K_COMM, comms, N(comms), h); }

static const pair groups[] = {{MPI_GROUP_EMPTY, 0x48000000u}};
int abi_group_in(int h) { return in_of(K_GROUP, groups, N(groups), MPI_GROUP_EMPTY + 1, h); }
int abi_group_out(int h) { return out_of(K_GROUP, groups, N(groups), h); }

/* The first entry for a psim type is what psim's types become; later ones are MPICH's other
 * names for the same layout (Fortran types) that programs may pass. */
static const pair dts[] = {
  {MPI_CHAR, 0x4c000101u}, {MPI_SIGNED_CHAR, 0x4c000118u}, {MPI_UNSIGNED_CHAR, 0x4c000102u},
  {MPI_BYTE, 0x4c00010du}, {MPI_WCHAR, 0x4c00040eu}, {MPI_SHORT, 0x4c000203u},
  {MPI_UNSIGNED_SHORT, 0x4c000204u}, {MPI_INT, 0x4c000405u}, {MPI_UNSIGNED, 0x4c000406u},
  {MPI_LONG, 0x4c000807u}, {MPI_UNSIGNED_LONG, 0x4c000808u}, {MPI_LONG_LONG_INT, 0x4c000809u},
  {MPI_UNSIGNED_LONG_LONG, 0x4c000819u}, {MPI_FLOAT, 0x4c00040au}, {MPI_DOUBLE, 0x4c00080bu},
  {MPI_LONG_DOUBLE, 0x4c00100cu}, {MPI_C_BOOL, 0x4c00013fu}, {MPI_INT8_T, 0x4c000137u},
  {MPI_INT16_T, 0x4c000238u}, {MPI_INT32_T, 0x4c000439u}, {MPI_INT64_T, 0x4c00083au},
  {MPI_UINT8_T, 0x4c00013bu}, {MPI_UINT16_T, 0x4c00023cu}, {MPI_UINT32_T, 0x4c00043du},
  {MPI_UINT64_T, 0x4c00083eu}, {MPI_AINT, 0x4c000843u}, {MPI_OFFSET, 0x4c000844u},
  {MPI_COUNT, 0x4c000845u}, {MPI_PACKED, 0x4c00010fu}, {MPI_C_FLOAT_COMPLEX, 0x4c000840u},
  {MPI_C_DOUBLE_COMPLEX, 0x4c001041u}, {MPI_FLOAT_INT, 0x8c000000u}, {MPI_DOUBLE_INT, 0x8c000001u},
  {MPI_LONG_INT, 0x8c000002u}, {MPI_2INT, 0x4c000816u}, {MPI_SHORT_INT, 0x8c000003u},
  {MPI_LONG_DOUBLE_INT, 0x8c000004u}, {MPI_UB, 0x4c000011u}, {MPI_LB, 0x4c000010u},
  {MPI_C_LONG_DOUBLE_COMPLEX, 0x4c002042u},
  /* Fortran's, psim's own types too */
  {MPI_COMPLEX, 0x4c00081eu}, {MPI_DOUBLE_COMPLEX, 0x4c001022u}, {MPI_REAL, 0x4c00041cu},
  {MPI_DOUBLE_PRECISION, 0x4c00081fu}, {MPI_INTEGER, 0x4c00041bu}, {MPI_LOGICAL, 0x4c00041du},
  {MPI_CHARACTER, 0x4c00011au}, {MPI_2INTEGER, 0x4c000820u}, {MPI_2REAL, 0x4c000821u},
  {MPI_2DOUBLE_PRECISION, 0x4c001023u},
  /* Fortran's sized types (MPICH's MPI_INTEGER16 is MPI_DATATYPE_NULL) */
  {MPI_REAL4, 0x4c000427u}, {MPI_REAL8, 0x4c000829u}, {MPI_REAL16, 0x4c00102bu},
  {MPI_COMPLEX8, 0x4c000828u}, {MPI_COMPLEX16, 0x4c00102au}, {MPI_COMPLEX32, 0x4c00202cu},
  {MPI_INTEGER1, 0x4c00012du}, {MPI_INTEGER2, 0x4c00022fu}, {MPI_INTEGER4, 0x4c000430u},
  {MPI_INTEGER8, 0x4c000831u}, {MPI_CXX_BOOL, 0x4c000133u}, {MPI_CXX_FLOAT_COMPLEX, 0x4c000834u},
  {MPI_CXX_DOUBLE_COMPLEX, 0x4c001035u}, {MPI_CXX_LONG_DOUBLE_COMPLEX, 0x4c002036u},
};
int abi_dt_in(int h) { return in_of(K_DT, dts, N(dts), PSIM_NUM_PREDEFINED_TYPES, h); }
int abi_dt_out(int h) { return out_of(K_DT, dts, N(dts), h); }

int abi_match_size(int typeclass, int size) {
  int t = -1;
  if (typeclass == 1) t = size == 4 ? MPI_FLOAT : size == 8 ? MPI_DOUBLE : size == (int)sizeof(long double) ? MPI_LONG_DOUBLE : -1;
  else if (typeclass == 2) t = size == 1 ? MPI_INT8_T : size == 2 ? MPI_INT16_T : size == 4 ? MPI_INT32_T : size == 8 ? MPI_INT64_T : -1;
  else if (typeclass == 3) t = size == 8 ? MPI_C_FLOAT_COMPLEX : size == 16 ? MPI_C_DOUBLE_COMPLEX : -1;
  return t < 0 ? (int)null_of(K_DT) : abi_dt_out(t);
}

/* psim's predefined ops are MPI_MAX = 1 ... MPI_NO_OP = 14, MPICH's 0x58000001 ... 0x5800000e in
 * the same order (checked by the test of the library, tests/cli/run_abi.sh's reductions). */
int abi_op_in(int h) {
  unsigned u = (unsigned)h;
  if (u == null_of(K_OP)) return 0;
  if ((u & ~INDEX_MASK) == (BUILTIN_BITS | (unsigned)K_OP << KIND_SHIFT) && u & INDEX_MASK &&
      (u & INDEX_MASK) < PSIM_NUM_PREDEFINED_OPS) return (int)(u & INDEX_MASK);
  if ((u & ~INDEX_MASK) == user(K_OP, 0) && (int)(u & INDEX_MASK) >= PSIM_NUM_PREDEFINED_OPS) return (int)(u & INDEX_MASK);
  return -1;
}
int abi_op_out(int h) {
  if (h <= 0) return (int)null_of(K_OP);
  if (h < PSIM_NUM_PREDEFINED_OPS) return (int)(BUILTIN_BITS | (unsigned)K_OP << KIND_SHIFT | (unsigned)h);
  return (int)user(K_OP, h);
}

int abi_req_in(int h) { return in_of(K_REQ, NULL, 0, 1, h); }
int abi_req_out(int h) { return out_of(K_REQ, NULL, 0, h); }

#define MPICH_MESSAGE_NO_PROC 0x6c000000
int abi_msg_in(int h) { return h == MPICH_MESSAGE_NO_PROC ? MPI_MESSAGE_NO_PROC : abi_req_in(h); }
int abi_msg_out(int h) { return h == MPI_MESSAGE_NO_PROC ? MPICH_MESSAGE_NO_PROC : abi_req_out(h); }

static const pair errhs[] = {{MPI_ERRORS_ARE_FATAL, 0x54000000u}, {MPI_ERRORS_RETURN, 0x54000001u},
                             {MPI_ERRORS_ARE_FATAL, 0x54000003u} /* MPI_ERRORS_ABORT */};
int abi_errh_in(int h) { return in_of(K_ERRH, errhs, N(errhs), MPI_ERRORS_RETURN + 1, h); }
int abi_errh_out(int h) { return out_of(K_ERRH, errhs, N(errhs), h); }

static const pair infos[] = {{MPI_INFO_ENV, 0x5c000001u}};
int abi_info_in(int h) { return in_of(K_INFO, infos, N(infos), MPI_INFO_ENV + 1, h); }
int abi_info_out(int h) { return out_of(K_INFO, infos, N(infos), h); }

int abi_win_in(int h) { return in_of(K_WIN, NULL, 0, 1, h); }
abi_file abi_file_out(int h) { return h > 0 ? (abi_file)(uintptr_t)(unsigned)h : (abi_file)0; }
int abi_file_in(abi_file f) { return (uintptr_t)f <= (uintptr_t)INT32_MAX ? (int)(uintptr_t)f : -1; }
int abi_win_out(int h) { return out_of(K_WIN, NULL, 0, h); }

/* MPICH: MPI_PROC_NULL -1, MPI_ANY_SOURCE -2; psim the other way round. MPI_ROOT (-3) and
 * MPI_UNDEFINED (-32766) are the same in both. */
int abi_rank_in(int r) { return r == -1 ? MPI_PROC_NULL : r == -2 ? MPI_ANY_SOURCE : r; }
int abi_rank_out(int r) { return r == MPI_PROC_NULL ? -1 : r == MPI_ANY_SOURCE ? -2 : r; }

/* MPICH's MPI_KEYVAL_INVALID is 0x24000000, psim's 0; predefined attribute keys (MPI_TAG_UB...,
 * MPI_WIN_BASE...) have the same values in both. */
int abi_keyval_in(int k) { return (unsigned)k == 0x24000000u ? MPI_KEYVAL_INVALID : k; }
int abi_keyval_out(int k) { return k == MPI_KEYVAL_INVALID ? (int)0x24000000u : k; }

static const pair errs[] = {
  {MPI_SUCCESS, 0}, {MPI_ERR_BUFFER, 1}, {MPI_ERR_COUNT, 2}, {MPI_ERR_TYPE, 3}, {MPI_ERR_TAG, 4},
  {MPI_ERR_COMM, 5}, {MPI_ERR_RANK, 6}, {MPI_ERR_ROOT, 7}, {MPI_ERR_GROUP, 8}, {MPI_ERR_OP, 9},
  {MPI_ERR_TOPOLOGY, 10}, {MPI_ERR_DIMS, 11}, {MPI_ERR_ARG, 12}, {MPI_ERR_UNKNOWN, 13},
  {MPI_ERR_TRUNCATE, 14}, {MPI_ERR_OTHER, 15}, {MPI_ERR_INTERN, 16}, {MPI_ERR_IN_STATUS, 17},
  {MPI_ERR_PENDING, 18}, {MPI_ERR_REQUEST, 19}, {MPI_ERR_INFO, 28}, {MPI_ERR_INFO_KEY, 29},
  {MPI_ERR_INFO_VALUE, 30}, {MPI_ERR_INFO_NOKEY, 31}, {MPI_ERR_NO_MEM, 34}, {MPI_ERR_WIN, 45},
  {MPI_ERR_BASE, 46}, {MPI_ERR_LOCKTYPE, 47}, {MPI_ERR_KEYVAL, 48}, {MPI_ERR_RMA_CONFLICT, 49},
  {MPI_ERR_RMA_SYNC, 50}, {MPI_ERR_SIZE, 51}, {MPI_ERR_DISP, 52}, {MPI_ERR_ASSERT, 53},
  {MPI_ERR_RMA_RANGE, 55}, {MPI_ERR_LASTCODE, 0x3fffffff},
  /* MPI-IO's */
  {MPI_ERR_ACCESS, 20}, {MPI_ERR_AMODE, 21}, {MPI_ERR_BAD_FILE, 22}, {MPI_ERR_CONVERSION, 23},
  {MPI_ERR_DUP_DATAREP, 24}, {MPI_ERR_FILE_EXISTS, 25}, {MPI_ERR_FILE_IN_USE, 26}, {MPI_ERR_FILE, 27},
  {MPI_ERR_IO, 32}, {MPI_ERR_NOT_SAME, 35}, {MPI_ERR_NO_SPACE, 36}, {MPI_ERR_NO_SUCH_FILE, 37},
  {MPI_ERR_QUOTA, 39}, {MPI_ERR_READ_ONLY, 40}, {MPI_ERR_UNSUPPORTED_DATAREP, 43},
  {MPI_ERR_UNSUPPORTED_OPERATION, 44},
};
/* The program's own classes and codes (MPI_Add_error_class...; psim numbers them from
 * MPI_ERR_LASTCODE + 1) are MPICH's dynamic ones: 0x40000000 (MPICH's bit of a dynamic
 * code) + psim's value, above MPICH's MPI_ERR_LASTCODE. */
#define DYN_BITS 0x40000000u
int abi_err_out(int e) {
  if (e > MPI_ERR_LASTCODE) return (int)(DYN_BITS + (unsigned)e);
  for (size_t i = 0; i < N(errs); i++)
    if (errs[i].psim == e) return (int)errs[i].mpich;
  return 15;   /* MPICH's MPI_ERR_OTHER */
}
int abi_err_in(int e) {
  if ((unsigned)e > DYN_BITS + MPI_ERR_LASTCODE && (unsigned)e < 2 * DYN_BITS) return (int)((unsigned)e - DYN_BITS);
  for (size_t i = 0; i < N(errs); i++)
    if ((int)errs[i].mpich == e) return errs[i].psim;
  return MPI_ERR_UNKNOWN;
}

static const pair combiners[] = {
  {MPI_COMBINER_NAMED, 1}, {MPI_COMBINER_DUP, 2}, {MPI_COMBINER_CONTIGUOUS, 3},
  {MPI_COMBINER_VECTOR, 4}, {MPI_COMBINER_HVECTOR_INTEGER, 5}, {MPI_COMBINER_HVECTOR, 6},
  {MPI_COMBINER_INDEXED, 7}, {MPI_COMBINER_HINDEXED_INTEGER, 8}, {MPI_COMBINER_HINDEXED, 9},
  {MPI_COMBINER_INDEXED_BLOCK, 10}, {MPI_COMBINER_STRUCT_INTEGER, 11}, {MPI_COMBINER_STRUCT, 12},
  {MPI_COMBINER_SUBARRAY, 13}, {MPI_COMBINER_DARRAY, 14}, {MPI_COMBINER_F90_REAL, 15},
  {MPI_COMBINER_F90_COMPLEX, 16}, {MPI_COMBINER_F90_INTEGER, 17}, {MPI_COMBINER_RESIZED, 18},
  {MPI_COMBINER_HINDEXED_BLOCK, 19},
};
int abi_combiner_out(int c) {
  for (size_t i = 0; i < N(combiners); i++)
    if (combiners[i].psim == c) return (int)combiners[i].mpich;
  return c;
}

int abi_status_ignored(const abi_status *s) { return s == NULL || s == ABI_STATUS_IGNORE; }

/* MPICH keeps the byte count in count_lo and count_hi_and_cancelled >> 1. */
void abi_status_out(const abi_pstatus *p, abi_status *s) {
  MPI_Status st;
  memcpy(&st, p, sizeof st);
  unsigned long long bytes = (unsigned long long)st.psim_bytes;
  s->count_lo = (int)(unsigned)(bytes & 0xffffffffu);
  s->count_hi_and_cancelled = (int)(unsigned)(((bytes >> 32) << 1) | (st.psim_cancelled ? 1u : 0u));
  s->MPI_SOURCE = abi_rank_out(st.MPI_SOURCE);
  s->MPI_TAG = st.MPI_TAG;
  s->MPI_ERROR = abi_err_out(st.MPI_ERROR);
}

void abi_status_in(const abi_status *s, abi_pstatus *p) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  if (!abi_status_ignored(s)) {
    st.psim_bytes = (long long)((unsigned long long)(unsigned)s->count_lo |
                                (unsigned long long)((unsigned)s->count_hi_and_cancelled >> 1) << 32);
    st.psim_cancelled = s->count_hi_and_cancelled & 1;
    st.MPI_SOURCE = abi_rank_in(s->MPI_SOURCE);
    st.MPI_TAG = s->MPI_TAG;
    st.MPI_ERROR = abi_err_in(s->MPI_ERROR);
  }
  memset(p, 0, sizeof *p);
  memcpy(p, &st, sizeof st);
}

/* MPICH: MPI_COMM_TYPE_SHARED 1, MPI_COMM_TYPE_HW_GUIDED 2, MPI_COMM_TYPE_HW_UNGUIDED 3,
 * MPIX_COMM_TYPE_NEIGHBORHOOD 4 */
int abi_splittype_in(int t) {
  return t == 2 ? MPI_COMM_TYPE_HW_GUIDED : t == 3 ? MPI_COMM_TYPE_HW_UNGUIDED
       : t == 4 ? PSIM_COMM_TYPE_NEIGHBORHOOD : t;
}

/* MPICH's predefined keyvals are psim's values. The window model needs no translation. */
int abi_key_kind(int keyval) {
  return keyval == MPI_HOST ? ABI_KEY_HOST : keyval == MPI_IO ? ABI_KEY_IO
       : keyval == MPI_LASTUSEDCODE ? ABI_KEY_LASTUSEDCODE : ABI_KEY_OTHER;
}

