/* Translating between Open MPI's ABI and psim's: handles, ranks, error classes, statuses,
 * constants; and the objects a program built by Open MPI's mpicc takes the address of.
 *
 * Open MPI's values are facts of its installed mpi.h (Debian's Open MPI 4.1.4) and of the
 * sizes of the objects its libmpi.so.40 exports. A handle is a pointer: MPI_COMM_WORLD is
 * &ompi_mpi_comm_world, MPI_INT &ompi_mpi_int. This library defines those objects, each of
 * Open MPI's size, and writes into each what it stands for (a magic word, its kind, psim's
 * handle, its index below). A program compiled as a PIE usually keeps its own copy of the
 * objects it names (copy relocations: `leaq ompi_mpi_comm_world(%rip)`), so the handle it
 * passes is the address of its copy; psim run copies the contents there (emu_abi.c), and a
 * handle is read by its contents, wherever it lies. The other way, a predefined handle psim
 * gives back (MPI_COMM_NULL after MPI_Comm_free, MPI_DATATYPE_NULL...) must be the address the
 * program compares with: psim run tells this library where each rank's copy of each object
 * lies (psim_abi_copied), and the answer is that rank's. The objects the program creates are
 * objects of this library too, with what Open MPI's Fortran bindings read of them (below).
 *
 * This file and abi_xlate.c are the only ones of the library that include psim's mpi.h. */
#define PSIM_NO_LOCATION
#include "psim_mpi/mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emul/abi/abi_ptrs.h"

_Static_assert(sizeof(MPI_Status) == sizeof(abi_pstatus) && _Alignof(MPI_Status) == _Alignof(abi_pstatus),
               "abi_pstatus must have the size of psim's MPI_Status (arrays of them go to psim)");
_Static_assert(sizeof(abi_status) == 24, "Open MPI's MPI_Status is 24 bytes");

enum { K_COMM = 1, K_GROUP, K_DT, K_ERRH, K_OP, K_INFO, K_WIN, K_REQ, K_MSG, K_FILE };
#define NONE (-12345)   /* an Open MPI object psim has no counterpart of: psim rejects it */

#define OBJ_MAGIC 0x216a624f6d697370ull   /* "psimObj!" */
typedef struct obj { uint64_t magic; int kind, psim, id, fortran; } obj;

/* A value psim rejects (negative) is no memory: 0xa5 in the top byte, the kind and the value
 * below (user() makes it). */
#define BAD_TAG 0xa5ull

/* The object handle h is, if it is one of kind (any kind: 0), else NULL. */
static obj *as_obj(abi_h h, int kind) {
  uintptr_t u = (uintptr_t)h;
  if (u < 4096 || u >> 56 == BAD_TAG) return NULL;
  obj *o = h;
  return o->magic == OBJ_MAGIC && (!kind || o->kind == kind) ? o : NULL;
}

/* Open MPI's predefined objects: name, size in Open MPI's libmpi.so.40, kind, psim's handle,
 * Fortran handle (Open MPI's mpif-handles.h; -1: none) */
#define OBJECTS(X)                                                                                 \
  X(ompi_mpi_comm_null, 0x200, K_COMM, MPI_COMM_NULL, 2)                                           \
  X(ompi_mpi_comm_world, 0x200, K_COMM, MPI_COMM_WORLD, 0)                                         \
  X(ompi_mpi_comm_self, 0x200, K_COMM, MPI_COMM_SELF, 1)                                           \
  X(ompi_mpi_group_null, 0x100, K_GROUP, MPI_GROUP_NULL, 0)                                        \
  X(ompi_mpi_group_empty, 0x100, K_GROUP, MPI_GROUP_EMPTY, 1)                                      \
  X(ompi_request_null, 0x100, K_REQ, MPI_REQUEST_NULL, 0)                                          \
  X(ompi_message_null, 0x100, K_MSG, MPI_MESSAGE_NULL, 0)                                          \
  X(ompi_message_no_proc, 0x100, K_MSG, MPI_MESSAGE_NO_PROC, 1)                                    \
  X(ompi_mpi_info_null, 0x100, K_INFO, MPI_INFO_NULL, 0)                                           \
  X(ompi_mpi_info_env, 0x100, K_INFO, MPI_INFO_ENV, 1)                                             \
  X(ompi_mpi_win_null, 0x200, K_WIN, MPI_WIN_NULL, 0)                                              \
  X(ompi_mpi_file_null, 0x600, K_FILE, MPI_FILE_NULL, 0)                                           \
  X(ompi_mpi_errhandler_null, 0x400, K_ERRH, MPI_ERRHANDLER_NULL, 0)                               \
  X(ompi_mpi_errors_are_fatal, 0x400, K_ERRH, MPI_ERRORS_ARE_FATAL, 1)                             \
  X(ompi_mpi_errors_return, 0x400, K_ERRH, MPI_ERRORS_RETURN, 2)                                   \
  X(ompi_mpi_errors_throw_exceptions, 0x400, K_ERRH, MPI_ERRORS_ARE_FATAL, -1)                     \
  X(ompi_mpi_op_null, 0x800, K_OP, MPI_OP_NULL, 0)                                                 \
  X(ompi_mpi_op_max, 0x800, K_OP, MPI_MAX, 1)                                                      \
  X(ompi_mpi_op_min, 0x800, K_OP, MPI_MIN, 2)                                                      \
  X(ompi_mpi_op_sum, 0x800, K_OP, MPI_SUM, 3)                                                      \
  X(ompi_mpi_op_prod, 0x800, K_OP, MPI_PROD, 4)                                                    \
  X(ompi_mpi_op_land, 0x800, K_OP, MPI_LAND, 5)                                                    \
  X(ompi_mpi_op_band, 0x800, K_OP, MPI_BAND, 6)                                                    \
  X(ompi_mpi_op_lor, 0x800, K_OP, MPI_LOR, 7)                                                      \
  X(ompi_mpi_op_bor, 0x800, K_OP, MPI_BOR, 8)                                                      \
  X(ompi_mpi_op_lxor, 0x800, K_OP, MPI_LXOR, 9)                                                    \
  X(ompi_mpi_op_bxor, 0x800, K_OP, MPI_BXOR, 10)                                                   \
  X(ompi_mpi_op_maxloc, 0x800, K_OP, MPI_MAXLOC, 11)                                               \
  X(ompi_mpi_op_minloc, 0x800, K_OP, MPI_MINLOC, 12)                                               \
  X(ompi_mpi_op_replace, 0x800, K_OP, MPI_REPLACE, 13)                                             \
  X(ompi_mpi_op_no_op, 0x800, K_OP, MPI_NO_OP, 14)                                                 \
  /* datatypes: the first with a psim handle is what psim's type becomes */                        \
  X(ompi_mpi_datatype_null, 0x200, K_DT, MPI_DATATYPE_NULL, 0)                                     \
  X(ompi_mpi_char, 0x200, K_DT, MPI_CHAR, 34)                                                      \
  X(ompi_mpi_signed_char, 0x200, K_DT, MPI_SIGNED_CHAR, 36)                                        \
  X(ompi_mpi_unsigned_char, 0x200, K_DT, MPI_UNSIGNED_CHAR, 35)                                    \
  X(ompi_mpi_byte, 0x200, K_DT, MPI_BYTE, 1)                                                       \
  X(ompi_mpi_wchar, 0x200, K_DT, MPI_WCHAR, 33)                                                    \
  X(ompi_mpi_short, 0x200, K_DT, MPI_SHORT, 37)                                                    \
  X(ompi_mpi_unsigned_short, 0x200, K_DT, MPI_UNSIGNED_SHORT, 38)                                  \
  X(ompi_mpi_int, 0x200, K_DT, MPI_INT, 39)                                                        \
  X(ompi_mpi_unsigned, 0x200, K_DT, MPI_UNSIGNED, 40)                                              \
  X(ompi_mpi_long, 0x200, K_DT, MPI_LONG, 41)                                                      \
  X(ompi_mpi_unsigned_long, 0x200, K_DT, MPI_UNSIGNED_LONG, 42)                                    \
  X(ompi_mpi_long_long_int, 0x200, K_DT, MPI_LONG_LONG_INT, 43)                                    \
  X(ompi_mpi_unsigned_long_long, 0x200, K_DT, MPI_UNSIGNED_LONG_LONG, 44)                          \
  X(ompi_mpi_float, 0x200, K_DT, MPI_FLOAT, 45)                                                    \
  X(ompi_mpi_double, 0x200, K_DT, MPI_DOUBLE, 46)                                                  \
  X(ompi_mpi_long_double, 0x200, K_DT, MPI_LONG_DOUBLE, 47)                                        \
  X(ompi_mpi_c_bool, 0x200, K_DT, MPI_C_BOOL, 68)                                                  \
  X(ompi_mpi_int8_t, 0x200, K_DT, MPI_INT8_T, 58)                                                  \
  X(ompi_mpi_int16_t, 0x200, K_DT, MPI_INT16_T, 60)                                                \
  X(ompi_mpi_int32_t, 0x200, K_DT, MPI_INT32_T, 62)                                                \
  X(ompi_mpi_int64_t, 0x200, K_DT, MPI_INT64_T, 64)                                                \
  X(ompi_mpi_uint8_t, 0x200, K_DT, MPI_UINT8_T, 59)                                                \
  X(ompi_mpi_uint16_t, 0x200, K_DT, MPI_UINT16_T, 61)                                              \
  X(ompi_mpi_uint32_t, 0x200, K_DT, MPI_UINT32_T, 63)                                              \
  X(ompi_mpi_uint64_t, 0x200, K_DT, MPI_UINT64_T, 65)                                              \
  X(ompi_mpi_aint, 0x200, K_DT, MPI_AINT, 66)                                                      \
  X(ompi_mpi_offset, 0x200, K_DT, MPI_OFFSET, 67)                                                  \
  X(ompi_mpi_count, 0x200, K_DT, MPI_COUNT, 72)                                                    \
  X(ompi_mpi_packed, 0x200, K_DT, MPI_PACKED, 2)                                                   \
  X(ompi_mpi_c_float_complex, 0x200, K_DT, MPI_C_FLOAT_COMPLEX, 69)                                \
  X(ompi_mpi_c_double_complex, 0x200, K_DT, MPI_C_DOUBLE_COMPLEX, 70)                              \
  X(ompi_mpi_c_long_double_complex, 0x200, K_DT, MPI_C_LONG_DOUBLE_COMPLEX, 71)                    \
  X(ompi_mpi_float_int, 0x200, K_DT, MPI_FLOAT_INT, 48)                                            \
  X(ompi_mpi_double_int, 0x200, K_DT, MPI_DOUBLE_INT, 49)                                          \
  X(ompi_mpi_long_int, 0x200, K_DT, MPI_LONG_INT, 51)                                              \
  X(ompi_mpi_2int, 0x200, K_DT, MPI_2INT, 52)                                                      \
  X(ompi_mpi_short_int, 0x200, K_DT, MPI_SHORT_INT, 53)                                            \
  X(ompi_mpi_longdbl_int, 0x200, K_DT, MPI_LONG_DOUBLE_INT, 50)                                    \
  X(ompi_mpi_ub, 0x200, K_DT, MPI_UB, 3)                                                           \
  X(ompi_mpi_lb, 0x200, K_DT, MPI_LB, 4)                                                           \
  X(ompi_mpi_integer, 0x200, K_DT, MPI_INTEGER, 7)                                                 \
  X(ompi_mpi_real, 0x200, K_DT, MPI_REAL, 13)                                                      \
  X(ompi_mpi_dblprec, 0x200, K_DT, MPI_DOUBLE_PRECISION, 17)                                       \
  X(ompi_mpi_cplex, 0x200, K_DT, MPI_COMPLEX, 18)                                                  \
  X(ompi_mpi_dblcplex, 0x200, K_DT, MPI_DOUBLE_COMPLEX, 22)                                        \
  X(ompi_mpi_logical, 0x200, K_DT, MPI_LOGICAL, 6)                                                 \
  X(ompi_mpi_character, 0x200, K_DT, MPI_CHARACTER, 5)                                             \
  X(ompi_mpi_2integer, 0x200, K_DT, MPI_2INTEGER, 25)                                              \
  X(ompi_mpi_2real, 0x200, K_DT, MPI_2REAL, 23)                                                    \
  X(ompi_mpi_2dblprec, 0x200, K_DT, MPI_2DOUBLE_PRECISION, 24)                                     \
  X(ompi_mpi_real4, 0x200, K_DT, MPI_REAL4, 14)                                                    \
  X(ompi_mpi_real8, 0x200, K_DT, MPI_REAL8, 15)                                                    \
  X(ompi_mpi_real16, 0x200, K_DT, MPI_REAL16, 16)                                                  \
  X(ompi_mpi_complex8, 0x200, K_DT, MPI_COMPLEX8, 19)                                              \
  X(ompi_mpi_complex16, 0x200, K_DT, MPI_COMPLEX16, 20)                                            \
  X(ompi_mpi_complex32, 0x200, K_DT, MPI_COMPLEX32, 21)                                            \
  X(ompi_mpi_integer1, 0x200, K_DT, MPI_INTEGER1, 8)                                               \
  X(ompi_mpi_integer2, 0x200, K_DT, MPI_INTEGER2, 9)                                               \
  X(ompi_mpi_integer4, 0x200, K_DT, MPI_INTEGER4, 10)                                              \
  X(ompi_mpi_integer8, 0x200, K_DT, MPI_INTEGER8, 11)                                              \
  X(ompi_mpi_cxx_bool, 0x200, K_DT, MPI_CXX_BOOL, 54)                                              \
  X(ompi_mpi_cxx_cplex, 0x200, K_DT, MPI_CXX_FLOAT_COMPLEX, 55)                                    \
  X(ompi_mpi_cxx_dblcplex, 0x200, K_DT, MPI_CXX_DOUBLE_COMPLEX, 56)                                \
  X(ompi_mpi_cxx_ldblcplex, 0x200, K_DT, MPI_CXX_LONG_DOUBLE_COMPLEX, 57)                          \
  /* Open MPI's types psim lacks */                                                                \
  X(ompi_mpi_integer16, 0x200, K_DT, NONE, 12)                                                     \
  X(ompi_mpi_real2, 0x200, K_DT, NONE, 28)                                                         \
  X(ompi_mpi_logical1, 0x200, K_DT, NONE, 29)                                                      \
  X(ompi_mpi_logical2, 0x200, K_DT, NONE, 30)                                                      \
  X(ompi_mpi_logical4, 0x200, K_DT, NONE, 31)                                                      \
  X(ompi_mpi_logical8, 0x200, K_DT, NONE, 32)                                                      \
  X(ompi_mpi_2cplex, 0x200, K_DT, NONE, 26)                                                        \
  X(ompi_mpi_2dblcplex, 0x200, K_DT, NONE, 27)

enum {
#define X(name, size, kind, psim, fortran) ID_##name,
  OBJECTS(X)
#undef X
  NOBJ
};

/* The objects, exported with Open MPI's names and sizes (a copy relocation copies that many
 * bytes), aligned as Open MPI's. */
#define X(name, size, kind, psim, fortran)                                                         \
  struct name##_t { obj o; unsigned char pad[(size) - sizeof(obj)]; };                             \
  extern struct name##_t name;                                                                     \
  struct name##_t name __attribute__((aligned(64))) = {{OBJ_MAGIC, kind, psim, ID_##name, fortran}, {0}};
OBJECTS(X)
#undef X

static obj *const objs[NOBJ] = {
#define X(name, size, kind, psim, fortran) &name.o,
  OBJECTS(X)
#undef X
};

/* ---- where each rank's executable keeps its copies ---- */
static obj ***copies;    /* copies[c][id]: copy c of the program's copy of object id, or NULL */
static int ncopies;

/* Called by psim run (emu_abi.c) after it filled a copy relocation of copy c of the program
 * at dst with one of this library's objects. */
void psim_abi_copied(int c, void *dst);
void psim_abi_copied(int c, void *dst) {
  const obj *o = dst;
  if (c < 0 || o->magic != OBJ_MAGIC || o->id < 0 || o->id >= NOBJ) return;
  if (c >= ncopies) {
    int n = ncopies ? ncopies : 16;
    while (n <= c) n *= 2;
    obj ***p = realloc(copies, (size_t)n * sizeof *p);
    if (!p) abi_missing("psim_abi_copied (out of memory)");
    memset(p + ncopies, 0, (size_t)(n - ncopies) * sizeof *p);
    copies = p;
    ncopies = n;
  }
  if (!copies[c] && !(copies[c] = calloc(NOBJ, sizeof *copies[c]))) abi_missing("psim_abi_copied (out of memory)");
  copies[c][o->id] = (obj *)dst;
}

/* The address of predefined object id that the calling rank's program compares with. */
static abi_h pre_addr(int id) {
  int c = abi_psim_copy_index ? abi_psim_copy_index() : 0;
  if (c >= 0 && c < ncopies && copies[c] && copies[c][id]) return copies[c][id];
  return objs[id];
}

/* ---- handles ---- */
/* Open MPI's Fortran bindings read some fields of Open MPI's objects themselves, at these
 * offsets in Open MPI 4.1.4's objects (as its libmpi_mpifh's and libmpi's code reads them):
 * - the Fortran handle, which Open MPI keeps in each object (f_to_c_index: MPI_WAIT gives back
 *   the request's, MPI_GROUP_INCL the new group's without calling MPI_Group_c2f);
 * - a communicator's, datatype's or window's attribute table (c_keyhash, d_keyhash, w_keyhash),
 *   handed to ompi_attr_get_aint...: in psim's objects it points at the object itself, so that
 *   abi_fortran_ompi.c knows which;
 * - an op's flags (0x54), where the bindings mark an op made from Fortran (bit 2);
 * - a generalized request's "callbacks are C" byte (0xc0), which they clear (Fortran's);
 * - a communicator's flags (0xe8: bit 0 an inter-communicator) and groups (0xf8 local, 0x100
 *   remote), whose size (at 0x10 of a group) sizes the datatype arrays of MPI_ALLTOALLW: in
 *   psim's objects the groups are blocks inside the object, filled as the bindings ask for the
 *   communicator (comm_groups). */
static size_t fortran_at(int kind) {
  static const size_t at[K_FILE + 1] = {[K_COMM] = 0x128, [K_DT] = 0xcc, [K_GROUP] = 0x18, [K_OP] = 0x58,
                                        [K_REQ] = 0x68, [K_INFO] = 0x48, [K_WIN] = 0xf8, [K_ERRH] = 0x80,
                                        [K_MSG] = 0x38, [K_FILE] = 0x78};
  return at[kind];
}
static size_t keyhash_at(int kind) { return kind == K_COMM ? 0x110 : kind == K_DT ? 0xd0 : kind == K_WIN ? 0xf0 : 0; }
#define OP_FLAGS_AT 0x54
#define OP_FORTRAN 2
#define F_USER 1000    /* the Fortran handle of an object the program made: psim's + F_USER */
#define GREQ_C_AT 0xc0
#define COMM_FLAGS_AT 0xe8
#define LOCAL_GROUP_AT 0xf8
#define REMOTE_GROUP_AT 0x100
#define GROUP_BLOCKS_AT 0x140   /* two blocks of 0x20 in the object: the local group's, the remote's */
#define GROUP_SIZE_AT 0x10
#define OBJ_SIZE 0x180 /* past the last field above */
_Static_assert(sizeof(obj) <= 0x18, "an object's own fields end where Open MPI's first read one lies");

static void set_fields(obj *o) {
  size_t at = keyhash_at(o->kind);
  if (at) memcpy((char *)o + at, &o, sizeof o);
  int f = o->fortran;
  memcpy((char *)o + fortran_at(o->kind), &f, sizeof f);
  if (o->kind == K_REQ) ((unsigned char *)o)[GREQ_C_AT] = 1;
}

static int in_of(int kind, abi_h h);

/* The communicator's kind and group sizes where Open MPI's Fortran bindings read them, once
 * per communicator (its local group pointer set says it is done; abi_comm_out, which gives a
 * handle psim may have reused, clears it): asking psim costs MPI calls of the rank's own. */
static void comm_groups(abi_h h) {
  char *o = h;
  int c = in_of(K_COMM, h), inter = 0, n = 0, rn = 0;
  void *done;
  if (c <= 0 || !p_MPI_Comm_test_inter || !p_MPI_Comm_size) return;   /* MPI_COMM_NULL, not a handle */
  memcpy(&done, o + LOCAL_GROUP_AT, sizeof done);
  if (done) return;
  if (p_MPI_Comm_test_inter(c, &inter) != 0 || p_MPI_Comm_size(c, &n) != 0) return;
  if (inter && p_MPI_Comm_remote_size) p_MPI_Comm_remote_size(c, &rn);
  char *local = o + GROUP_BLOCKS_AT, *remote = local + 0x20;
  memcpy(local + GROUP_SIZE_AT, &n, sizeof n);
  memcpy(remote + GROUP_SIZE_AT, &rn, sizeof rn);
  memcpy(o + LOCAL_GROUP_AT, &local, sizeof local);
  memcpy(o + REMOTE_GROUP_AT, &remote, sizeof remote);
  o[COMM_FLAGS_AT] = (char)(inter ? 1 : 0);
}

void abi_req_set_c(abi_h req) {
  obj *o = as_obj(req, K_REQ);
  if (o) ((unsigned char *)o)[GREQ_C_AT] = 1;
}

/* A generalized request whose callbacks are Fortran subroutines (the bindings cleared the byte) */
int abi_req_is_fortran(abi_h req) {
  const obj *o = as_obj(req, K_REQ);
  return o && ((const unsigned char *)o)[GREQ_C_AT] == 0;
}
/* The predefined object of a kind with a psim handle, or with a Fortran handle, by value: each
 * handle given back looks it up (a scan of the table was on every call's path). Object id + 1,
 * 0 for none; the first object in the table wins, as a scan would. */
#define PRE_MAX 96
_Static_assert(PSIM_NUM_PREDEFINED_TYPES < PRE_MAX && PSIM_NUM_PREDEFINED_OPS < PRE_MAX, "PRE_MAX holds psim's handles");
static unsigned char pre_psim[K_FILE + 1][PRE_MAX + 1];   /* [kind][psim handle + 1] */
static unsigned char pre_fortran[K_FILE + 1][PRE_MAX];    /* [kind][Fortran handle] */
_Static_assert(NOBJ < 255, "an object id + 1 fits a byte");

__attribute__((constructor)) static void objects_init(void) {
  for (int i = 0; i < NOBJ; i++) {
    const obj *o = objs[i];
    set_fields(objs[i]);
    if (o->psim >= -1 && o->psim < PRE_MAX && !pre_psim[o->kind][o->psim + 1]) pre_psim[o->kind][o->psim + 1] = (unsigned char)(i + 1);
    if (o->fortran >= 0 && o->fortran < PRE_MAX && !pre_fortran[o->kind][o->fortran]) pre_fortran[o->kind][o->fortran] = (unsigned char)(i + 1);
  }
}

/* An object the program made: an object of this library too, one per psim handle and kind,
 * kept for the run (psim reuses its handles; the Fortran bindings read the objects). */
static obj **made[K_FILE + 1];
static size_t nmade[K_FILE + 1];
static abi_h user(int kind, int h) {
  if (h < 0) return (abi_h)(uintptr_t)(BAD_TAG << 56 | (uint64_t)(unsigned)kind << 40 | (uint32_t)h);
  if ((size_t)h >= nmade[kind]) {
    size_t n = nmade[kind] ? 2 * nmade[kind] : 64;
    while (n <= (size_t)h) n *= 2;
    obj **t = realloc(made[kind], n * sizeof *t);
    if (!t) abi_missing("a handle (out of memory)");
    memset(t + nmade[kind], 0, (n - nmade[kind]) * sizeof *t);
    made[kind] = t;
    nmade[kind] = n;
  }
  if (!made[kind][h]) {
    obj *o = calloc(1, OBJ_SIZE);
    if (!o) abi_missing("a handle (out of memory)");
    *o = (obj){OBJ_MAGIC, kind, h, -1, h + F_USER};
    set_fields(o);
    made[kind][h] = o;
  }
  return made[kind][h];
}

/* An op the program made from Fortran (Open MPI's bindings mark it after MPI_Op_create) */
int abi_op_is_fortran(abi_h op) {
  const obj *o = as_obj(op, K_OP);
  return o && ((const unsigned char *)o)[OP_FLAGS_AT] & OP_FORTRAN;
}

/* psim's handle and kind of the object whose attribute table Open MPI's Fortran bindings
 * passed (see keyhash_at), or -1 */
int abi_ompi_keyhash_owner(const void *keyhash, int *kind);
int abi_ompi_keyhash_owner(const void *keyhash, int *kind) {
  const obj *o = as_obj((abi_h)(uintptr_t)keyhash, 0);
  if (!o) return -1;
  *kind = o->kind == K_COMM ? 0 : o->kind == K_DT ? 1 : o->kind == K_WIN ? 2 : -1;
  return *kind < 0 ? -1 : o->psim;
}

static int in_of(int kind, abi_h h) {
  uintptr_t u = (uintptr_t)h;
  if (u >> 56 == BAD_TAG) return (int)(u >> 40 & 0xffff) == kind ? (int)(uint32_t)u : -1;
  const obj *o = as_obj(h, kind);
  return !o || o->psim == NONE ? -1 : o->psim;   /* -1: not a handle, psim's runtime reports it */
}

static abi_h out_of(int kind, int h) {
  int id = h >= -1 && h < PRE_MAX ? pre_psim[kind][h + 1] : 0;
  return id ? pre_addr(id - 1) : user(kind, h);
}

int abi_comm_in(abi_h h) { return in_of(K_COMM, h); }
abi_h abi_comm_out(int h) {
  abi_h c = out_of(K_COMM, h);
  obj *o = as_obj(c, K_COMM);
  if (o) memset((char *)o + LOCAL_GROUP_AT, 0, sizeof(void *));   /* comm_groups asks again */
  return c;
}
int abi_group_in(abi_h h) { return in_of(K_GROUP, h); }
abi_h abi_group_out(int h) { return out_of(K_GROUP, h); }
int abi_dt_in(abi_h h) { return in_of(K_DT, h); }
abi_h abi_dt_out(int h) { return out_of(K_DT, h); }
int abi_op_in(abi_h h) { return in_of(K_OP, h); }
abi_h abi_op_out(int h) { return out_of(K_OP, h); }
int abi_req_in(abi_h h) { return in_of(K_REQ, h); }
abi_h abi_req_out(int h) { return out_of(K_REQ, h); }
int abi_msg_in(abi_h h) { return in_of(K_MSG, h); }
abi_h abi_msg_out(int h) { return out_of(K_MSG, h); }
int abi_errh_in(abi_h h) { return in_of(K_ERRH, h); }
abi_h abi_errh_out(int h) { return out_of(K_ERRH, h); }
int abi_info_in(abi_h h) { return in_of(K_INFO, h); }
abi_h abi_info_out(int h) { return out_of(K_INFO, h); }
int abi_win_in(abi_h h) { return in_of(K_WIN, h); }
abi_h abi_win_out(int h) { return out_of(K_WIN, h); }
int abi_file_in(abi_file f) { return in_of(K_FILE, (abi_h)f); }
abi_file abi_file_out(int h) { return (abi_file)out_of(K_FILE, h); }

/* ---- handles as Fortran integers (MPI_Comm_c2f...: Open MPI's Fortran bindings convert
 * every handle with them). A predefined object's is Open MPI's (mpif-handles.h: MPI_COMM_WORLD
 * 0, MPI_INTEGER 7...); an object the program made is psim's handle + F_USER. ---- */
static int c2f(int kind, abi_h h) {
  const obj *o = as_obj(h, kind);
  return o ? o->fortran : -1;
}

static abi_h f2c(int kind, int f) {
  int id = f >= 0 && f < PRE_MAX ? pre_fortran[kind][f] : 0;
  abi_h h = f >= F_USER ? out_of(kind, f - F_USER) : id ? pre_addr(id - 1)
          : user(kind, -1);   /* not a handle: psim's runtime reports it */
  if (kind == K_COMM) comm_groups(h);
  return h;
}

/* psim's mpi.h makes them macros; here they are Open MPI's functions */
#undef PMPI_Comm_c2f
#undef PMPI_Comm_f2c
#undef PMPI_Type_c2f
#undef PMPI_Type_f2c
#undef PMPI_Group_c2f
#undef PMPI_Group_f2c
#undef PMPI_Op_c2f
#undef PMPI_Op_f2c
#undef PMPI_Request_c2f
#undef PMPI_Request_f2c
#undef PMPI_Info_c2f
#undef PMPI_Info_f2c
#undef PMPI_Win_c2f
#undef PMPI_Win_f2c
#undef PMPI_Errhandler_c2f
#undef PMPI_Errhandler_f2c
#undef PMPI_Message_c2f
#undef PMPI_Message_f2c
#undef MPI_Comm_c2f
#undef MPI_Comm_f2c
#undef MPI_Type_c2f
#undef MPI_Type_f2c
#undef MPI_Group_c2f
#undef MPI_Group_f2c
#undef MPI_Op_c2f
#undef MPI_Op_f2c
#undef MPI_Request_c2f
#undef MPI_Request_f2c
#undef MPI_Info_c2f
#undef MPI_Info_f2c
#undef MPI_Win_c2f
#undef MPI_Win_f2c
#undef MPI_Errhandler_c2f
#undef MPI_Errhandler_f2c
#undef MPI_Message_c2f
#undef MPI_Message_f2c
#define C2F(K, k)                                                                               \
  int MPI_##K##_c2f(abi_h h);                                                                   \
  int MPI_##K##_c2f(abi_h h) { return c2f(k, h); }                                              \
  abi_h MPI_##K##_f2c(int f);                                                                   \
  abi_h MPI_##K##_f2c(int f) { return f2c(k, f); }                                              \
  extern __typeof__(MPI_##K##_c2f) PMPI_##K##_c2f __attribute__((alias("MPI_" #K "_c2f")));    \
  extern __typeof__(MPI_##K##_f2c) PMPI_##K##_f2c __attribute__((alias("MPI_" #K "_f2c")));
C2F(Comm, K_COMM) C2F(Type, K_DT) C2F(Group, K_GROUP) C2F(Op, K_OP) C2F(Request, K_REQ)
C2F(Info, K_INFO) C2F(Win, K_WIN) C2F(Errhandler, K_ERRH) C2F(Message, K_MSG)

abi_h abi_match_size(int typeclass, int size) {
  int t = MPI_DATATYPE_NULL;
  /* Open MPI's MPI_TYPECLASS_INTEGER 1, _REAL 2, _COMPLEX 3 */
  if (typeclass == 2) t = size == 4 ? MPI_FLOAT : size == 8 ? MPI_DOUBLE : size == (int)sizeof(long double) ? MPI_LONG_DOUBLE : t;
  else if (typeclass == 1) t = size == 1 ? MPI_INT8_T : size == 2 ? MPI_INT16_T : size == 4 ? MPI_INT32_T : size == 8 ? MPI_INT64_T : t;
  else if (typeclass == 3) t = size == 8 ? MPI_C_FLOAT_COMPLEX : size == 16 ? MPI_C_DOUBLE_COMPLEX : t;
  return abi_dt_out(t);
}

/* ---- integers ---- */
/* Open MPI: MPI_ANY_SOURCE -1, MPI_PROC_NULL -2, as psim's; MPI_ROOT -4 (psim's -3) */
int abi_rank_in(int r) { return r == -4 ? MPI_ROOT : r; }
int abi_rank_out(int r) { return r == MPI_ROOT ? -4 : r; }

/* Open MPI's predefined keyvals are 0 (MPI_TAG_UB) to 11 (MPI_WIN_MODEL), MPI_KEYVAL_INVALID
 * -1; the program's own are psim's + KEY_USER (psim numbers them from 1). */
#define KEY_USER 64
static const int keys[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM,
                           MPI_LASTUSEDCODE, MPI_UNIVERSE_SIZE, MPI_WIN_BASE, MPI_WIN_SIZE,
                           MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL};
#define NKEYS (int)(sizeof keys / sizeof *keys)
int abi_keyval_in(int k) {
  if (k == -1) return MPI_KEYVAL_INVALID;
  if (k >= 0 && k < NKEYS) return keys[k];
  return k >= KEY_USER ? k - KEY_USER : -1;
}
int abi_keyval_out(int k) {
  if (k == MPI_KEYVAL_INVALID) return -1;
  for (int i = 0; i < NKEYS; i++)
    if (keys[i] == k) return i;
  return k + KEY_USER;
}
int abi_key_kind(int keyval) {
  return keyval == 1 ? ABI_KEY_HOST : keyval == 2 ? ABI_KEY_IO : keyval == 5 ? ABI_KEY_LASTUSEDCODE
       : keyval == 11 ? ABI_KEY_WIN_MODEL : ABI_KEY_OTHER;
}

typedef struct pair { int psim, ompi; } pair;
#define N(t) (int)(sizeof t / sizeof *t)
static int to_ompi(const pair *t, int n, int v, int dflt) {
  for (int i = 0; i < n; i++)
    if (t[i].psim == v) return t[i].ompi;
  return dflt;
}
static int to_psim(const pair *t, int n, int v, int dflt) {
  for (int i = 0; i < n; i++)
    if (t[i].ompi == v) return t[i].psim;
  return dflt;
}

static const pair errs[] = {
  {MPI_SUCCESS, 0}, {MPI_ERR_BUFFER, 1}, {MPI_ERR_COUNT, 2}, {MPI_ERR_TYPE, 3}, {MPI_ERR_TAG, 4},
  {MPI_ERR_COMM, 5}, {MPI_ERR_RANK, 6}, {MPI_ERR_REQUEST, 7}, {MPI_ERR_ROOT, 8}, {MPI_ERR_GROUP, 9},
  {MPI_ERR_OP, 10}, {MPI_ERR_TOPOLOGY, 11}, {MPI_ERR_DIMS, 12}, {MPI_ERR_ARG, 13},
  {MPI_ERR_UNKNOWN, 14}, {MPI_ERR_TRUNCATE, 15}, {MPI_ERR_OTHER, 16}, {MPI_ERR_INTERN, 17},
  {MPI_ERR_IN_STATUS, 18}, {MPI_ERR_PENDING, 19}, {MPI_ERR_ACCESS, 20}, {MPI_ERR_AMODE, 21},
  {MPI_ERR_ASSERT, 22}, {MPI_ERR_BAD_FILE, 23}, {MPI_ERR_BASE, 24}, {MPI_ERR_CONVERSION, 25},
  {MPI_ERR_DISP, 26}, {MPI_ERR_DUP_DATAREP, 27}, {MPI_ERR_FILE_EXISTS, 28},
  {MPI_ERR_FILE_IN_USE, 29}, {MPI_ERR_FILE, 30}, {MPI_ERR_INFO_KEY, 31}, {MPI_ERR_INFO_NOKEY, 32},
  {MPI_ERR_INFO_VALUE, 33}, {MPI_ERR_INFO, 34}, {MPI_ERR_IO, 35}, {MPI_ERR_KEYVAL, 36},
  {MPI_ERR_LOCKTYPE, 37}, {MPI_ERR_NO_MEM, 39}, {MPI_ERR_NOT_SAME, 40}, {MPI_ERR_NO_SPACE, 41},
  {MPI_ERR_NO_SUCH_FILE, 42}, {MPI_ERR_QUOTA, 44}, {MPI_ERR_READ_ONLY, 45},
  {MPI_ERR_RMA_CONFLICT, 46}, {MPI_ERR_RMA_SYNC, 47}, {MPI_ERR_SIZE, 49},
  {MPI_ERR_UNSUPPORTED_DATAREP, 51}, {MPI_ERR_UNSUPPORTED_OPERATION, 52}, {MPI_ERR_WIN, 53},
  {MPI_ERR_RMA_RANGE, 68}, {MPI_ERR_LASTCODE, 92},
};
/* The program's own classes and codes: psim numbers them from its MPI_ERR_LASTCODE + 1, Open
 * MPI from its own (92) + 1. */
#define OMPI_LASTCODE 92
int abi_err_out(int e) {
  if (e > MPI_ERR_LASTCODE) return e - MPI_ERR_LASTCODE + OMPI_LASTCODE;
  return to_ompi(errs, N(errs), e, 16 /* MPI_ERR_OTHER */);
}
int abi_err_in(int e) {
  if (e > OMPI_LASTCODE) return e - OMPI_LASTCODE + MPI_ERR_LASTCODE;
  return to_psim(errs, N(errs), e, MPI_ERR_UNKNOWN);
}
static const pair combiners[] = {
  {MPI_COMBINER_NAMED, 0}, {MPI_COMBINER_DUP, 1}, {MPI_COMBINER_CONTIGUOUS, 2},
  {MPI_COMBINER_VECTOR, 3}, {MPI_COMBINER_HVECTOR_INTEGER, 4}, {MPI_COMBINER_HVECTOR, 5},
  {MPI_COMBINER_INDEXED, 6}, {MPI_COMBINER_HINDEXED_INTEGER, 7}, {MPI_COMBINER_HINDEXED, 8},
  {MPI_COMBINER_INDEXED_BLOCK, 9}, {MPI_COMBINER_STRUCT_INTEGER, 10}, {MPI_COMBINER_STRUCT, 11},
  {MPI_COMBINER_SUBARRAY, 12}, {MPI_COMBINER_DARRAY, 13}, {MPI_COMBINER_F90_REAL, 14},
  {MPI_COMBINER_F90_COMPLEX, 15}, {MPI_COMBINER_F90_INTEGER, 16}, {MPI_COMBINER_RESIZED, 17},
  {MPI_COMBINER_HINDEXED_BLOCK, 18},
};
int abi_combiner_out(int c) { return to_ompi(combiners, N(combiners), c, c); }

/* RMA assertions are bits: Open MPI's NOCHECK 1, NOPRECEDE 2, NOPUT 4, NOSTORE 8, NOSUCCEED 16 */
int abi_assert_in(int a) {
  static const pair bits[] = {{MPI_MODE_NOCHECK, 1}, {MPI_MODE_NOPRECEDE, 2}, {MPI_MODE_NOPUT, 4},
                              {MPI_MODE_NOSTORE, 8}, {MPI_MODE_NOSUCCEED, 16}};
  int p = 0;
  for (int i = 0; i < N(bits); i++)
    if (a & bits[i].ompi) p |= bits[i].psim, a &= ~bits[i].ompi;
  return p | (a ? 1 << 30 : 0);   /* an unknown bit stays visible to psim's check */
}
static const pair locks[] = {{MPI_LOCK_EXCLUSIVE, 1}, {MPI_LOCK_SHARED, 2}};
int abi_lock_in(int l) { return to_psim(locks, N(locks), l, -1); }
static const pair orders[] = {{MPI_ORDER_C, 0}, {MPI_ORDER_FORTRAN, 1}};
int abi_order_in(int o) { return to_psim(orders, N(orders), o, -1); }
static const pair distribs[] = {{MPI_DISTRIBUTE_BLOCK, 0}, {MPI_DISTRIBUTE_CYCLIC, 1}, {MPI_DISTRIBUTE_NONE, 2}};
int abi_distrib_in(int d) { return to_psim(distribs, N(distribs), d, -1); }
int abi_darg_in(int d) { return d == -1 ? MPI_DISTRIBUTE_DFLT_DARG : d; }
/* Open MPI's MPI_COMM_TYPE_SHARED (OMPI_COMM_TYPE_NODE) is 0, then OMPI_COMM_TYPE_HWTHREAD 1,
 * CORE, the caches, SOCKET, NUMA, BOARD to HOST 9: every level of a simulated host is the host
 * (psim models no sockets or caches, as for MPI_COMM_TYPE_HW_GUIDED); CU 10 and CLUSTER 11,
 * above the host, psim lacks */
int abi_splittype_in(int t) { return t >= 0 && t <= 9 ? MPI_COMM_TYPE_SHARED : t == MPI_UNDEFINED ? t : NONE; }
static const pair topos[] = {{MPI_GRAPH, 2}, {MPI_CART, 1}, {MPI_DIST_GRAPH, 3}};
int abi_topo_out(int t) { return to_ompi(topos, N(topos), t, t); }
static const pair models[] = {{MPI_WIN_SEPARATE, 1}, {MPI_WIN_UNIFIED, 0}};
int abi_winmodel_out(int m) { return to_ompi(models, N(models), m, m); }
void abi_contents_out(int combiner, int *ints, int n) {
  if (combiner == MPI_COMBINER_SUBARRAY && n >= 1 && n == 3 * ints[0] + 2)
    ints[n - 1] = to_ompi(orders, N(orders), ints[n - 1], ints[n - 1]);
  if (combiner == MPI_COMBINER_DARRAY && n >= 3 && n == 4 * ints[2] + 4) {
    int nd = ints[2];
    for (int i = 0; i < nd; i++) {
      ints[3 + nd + i] = to_ompi(distribs, N(distribs), ints[3 + nd + i], ints[3 + nd + i]);
      if (ints[3 + 2 * nd + i] == MPI_DISTRIBUTE_DFLT_DARG) ints[3 + 2 * nd + i] = -1;
    }
    ints[n - 1] = to_ompi(orders, N(orders), ints[n - 1], ints[n - 1]);
  }
}

/* Open MPI's MPI_IN_PLACE is 1; MPI_BOTTOM is 0 in both */
void *abi_buf_in(const void *p) { return p == (const void *)1 ? MPI_IN_PLACE : (void *)(uintptr_t)p; }
/* Open MPI's MPI_UNWEIGHTED is (int *)2, MPI_WEIGHTS_EMPTY (int *)3 */
int *abi_weights_in(const int *w) {
  if (w == (const int *)2) return abi_psim_weights(0);
  if (w == (const int *)3) return abi_psim_weights(1);
  return (int *)(uintptr_t)w;
}

/* ---- statuses: Open MPI's {MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, size_t _ucount} ---- */
int abi_status_ignored(const abi_status *s) { return s == NULL; }

void abi_status_out(const abi_pstatus *p, abi_status *s) {
  MPI_Status st;
  memcpy(&st, p, sizeof st);
  s->MPI_SOURCE = abi_rank_out(st.MPI_SOURCE);
  s->MPI_TAG = st.MPI_TAG;
  s->MPI_ERROR = abi_err_out(st.MPI_ERROR);
  s->cancelled = st.psim_cancelled ? 1 : 0;
  s->ucount = (size_t)st.psim_bytes;
}

void abi_status_in(const abi_status *s, abi_pstatus *p) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  if (!abi_status_ignored(s)) {
    st.psim_bytes = (long long)s->ucount;
    st.psim_cancelled = s->cancelled != 0;
    st.MPI_SOURCE = abi_rank_in(s->MPI_SOURCE);
    st.MPI_TAG = s->MPI_TAG;
    st.MPI_ERROR = abi_err_in(s->MPI_ERROR);
  }
  memset(p, 0, sizeof *p);
  memcpy(p, &st, sizeof st);
}

/* ---- Open MPI's predefined attribute functions (MPI_COMM_DUP_FN is OMPI_C_MPI_COMM_DUP_FN):
 * the program passes their addresses; psim is given its own NULL and DUP_FN instead
 * (abi_attr.c), so they are only called by a program calling them itself. ---- */
#define NULL_COPY(name)                                                                       \
  int name(abi_h h, int k, void *extra, void *in, void *out, int *flag);                      \
  int name(abi_h h, int k, void *extra, void *in, void *out, int *flag) {                     \
    (void)h; (void)k; (void)extra; (void)in; (void)out;                                       \
    *flag = 0;                                                                                \
    return 0;                                                                                 \
  }
#define DUP(name)                                                                             \
  int name(abi_h h, int k, void *extra, void *in, void *out, int *flag);                      \
  int name(abi_h h, int k, void *extra, void *in, void *out, int *flag) {                     \
    (void)h; (void)k; (void)extra;                                                            \
    *(void **)out = in;                                                                       \
    *flag = 1;                                                                                \
    return 0;                                                                                 \
  }
#define NULL_DELETE(name)                                                                     \
  int name(abi_h h, int k, void *val, void *extra);                                           \
  int name(abi_h h, int k, void *val, void *extra) {                                          \
    (void)h; (void)k; (void)val; (void)extra;                                                 \
    return 0;                                                                                 \
  }
NULL_COPY(OMPI_C_MPI_COMM_NULL_COPY_FN) NULL_COPY(OMPI_C_MPI_TYPE_NULL_COPY_FN)
NULL_COPY(OMPI_C_MPI_WIN_NULL_COPY_FN) NULL_COPY(OMPI_C_MPI_NULL_COPY_FN)
DUP(OMPI_C_MPI_COMM_DUP_FN) DUP(OMPI_C_MPI_TYPE_DUP_FN) DUP(OMPI_C_MPI_WIN_DUP_FN) DUP(OMPI_C_MPI_DUP_FN)
NULL_DELETE(OMPI_C_MPI_COMM_NULL_DELETE_FN) NULL_DELETE(OMPI_C_MPI_TYPE_NULL_DELETE_FN)
NULL_DELETE(OMPI_C_MPI_WIN_NULL_DELETE_FN) NULL_DELETE(OMPI_C_MPI_NULL_DELETE_FN)

#define FN(f) ((void (*)(void))(f))
int abi_copy_kind(void (*fn)(void)) {
  if (!fn || fn == FN(OMPI_C_MPI_COMM_NULL_COPY_FN) || fn == FN(OMPI_C_MPI_TYPE_NULL_COPY_FN) ||
      fn == FN(OMPI_C_MPI_WIN_NULL_COPY_FN) || fn == FN(OMPI_C_MPI_NULL_COPY_FN)) return 0;
  if (fn == FN(OMPI_C_MPI_COMM_DUP_FN) || fn == FN(OMPI_C_MPI_TYPE_DUP_FN) ||
      fn == FN(OMPI_C_MPI_WIN_DUP_FN) || fn == FN(OMPI_C_MPI_DUP_FN)) return 1;
  return 2;
}
int abi_delete_is_null(void (*fn)(void)) {
  return !fn || fn == FN(OMPI_C_MPI_COMM_NULL_DELETE_FN) || fn == FN(OMPI_C_MPI_TYPE_NULL_DELETE_FN) ||
         fn == FN(OMPI_C_MPI_WIN_NULL_DELETE_FN) || fn == FN(OMPI_C_MPI_NULL_DELETE_FN);
}

/* ---- What Open MPI's C++ bindings (libmpi_cxx.so.40) need of Open MPI's internals: present
 * so that a C++ program linked with them loads, and stopping the run, named, if called (the
 * bindings call them only for keyvals, error handlers and operations created through the C++
 * API; their other methods call MPI_* and run). The variables are never read by psim. ---- */
int ompi_errcode_intern_lastused;
unsigned char ompi_errcodes_intern[0x78], ompi_registered_datareps[0x40];
#define CXX_INTERNAL(name)  \
  void name(void);          \
  void name(void) { abi_missing(#name " (Open MPI's C++ bindings: a keyval, error handler or operation created through MPI:: classes)"); }
CXX_INTERNAL(ompi_attr_create_keyval)
/* (object type: 1 communicator, 2 window, 3 file; function; language: 0 C, 1 C++, 2 Fortran):
 * Open MPI's Fortran bindings make their error handlers with it, its C++ bindings theirs */
abi_h ompi_errhandler_create(int type, abi_perrh_fn *fn, int lang);
abi_h ompi_errhandler_create(int type, abi_perrh_fn *fn, int lang) {
  if (lang != 2) abi_missing("ompi_errhandler_create (Open MPI's C++ bindings: an error handler created through MPI:: classes)");
  return abi_errh_create_fortran(type, fn);
}
CXX_INTERNAL(ompi_errhandler_invoke)
CXX_INTERNAL(ompi_op_set_cxx_callback)
