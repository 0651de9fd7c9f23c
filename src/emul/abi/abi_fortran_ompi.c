/* What Open MPI's Fortran bindings (libmpi_mpifh.so.40, which mpif.h, `use mpi` and, below
 * libmpi_usempif08.so.40, `use mpi_f08` programs built by mpifort.openmpi need) take from
 * libmpi.so.40 besides MPI_*: psim's libmpi.so.40 only.
 *
 * The bindings convert a Fortran INTEGER handle with PMPI_*_f2c and back with PMPI_*_c2f
 * (abi_xlate_ompi.c numbers them as Open MPI's mpif-handles.h does), a Fortran status with
 * PMPI_Status_f2c/c2f (the same six integers as Open MPI's C status), and recognise MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS_IGNORE... by the addresses of common blocks, defined here (a program
 * that names one has its own copy, which its bindings' copy is pointed at: emu_abi.c). Strings
 * go through ompi_fortran_string_f2c/c2f, attributes through ompi_attr_get_aint and its kin,
 * keyvals through ompi_attr_create_keyval_fint/aint (below; their subroutines are called by
 * abi_attr.c), error handlers through ompi_errhandler_create (abi_xlate_ompi.c, abi_manual.c).
 * The rest of what they take is for calls psim does not provide from Fortran: spawning,
 * MPI_TYPE_MATCH_SIZE, persistent collectives: each stops the run naming what it is for. */
#include <stdlib.h>
#include <string.h>

#include "emul/abi/abi_ptrs.h"

/* the sentinels' common blocks (Open MPI's sizes) */
int mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_;
int mpi_fortran_unweighted_, mpi_fortran_weights_empty_;
char mpi_fortran_argv_null_, mpi_fortran_argvs_null_;
int mpi_fortran_status_ignore_[2], mpi_fortran_statuses_ignore_[2];
/* Open MPI's run-time switches the bindings read: no argument checks of their own (psim's
 * runtime checks), MPI "initialized" (3, OMPI_MPI_STATE_INIT_COMPLETED) */
_Bool ompi_mpi_param_check;
int ompi_mpi_state = 3;
/* an empty status: MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, not cancelled, no bytes */
abi_status ompi_status_empty = {-1, -1, 0, 0, 0};

/* A Fortran string (len characters, blank-padded) as a C string: leading and trailing blanks
 * left out, in memory the caller frees. */
int ompi_fortran_string_f2c(const char *fstr, int len, char **cstr);
int ompi_fortran_string_f2c(const char *fstr, int len, char **cstr) {
  int a = 0, b = len;
  while (a < b && fstr[a] == ' ') a++;
  while (b > a && fstr[b - 1] == ' ') b--;
  if (!(*cstr = malloc((size_t)(b - a) + 1))) return -2;   /* OMPI_ERR_OUT_OF_RESOURCE */
  memcpy(*cstr, fstr + a, (size_t)(b - a));
  (*cstr)[b - a] = 0;
  return 0;
}

/* A C string into a Fortran string of len characters, blank-padded. */
int ompi_fortran_string_c2f(const char *cstr, char *fstr, int len);
int ompi_fortran_string_c2f(const char *cstr, char *fstr, int len) {
  size_t n = strlen(cstr);
  if (n > (size_t)len) n = (size_t)len;
  memcpy(fstr, cstr, n);
  memset(fstr + n, ' ', (size_t)len - n);
  return 0;
}

/* ---- Attributes. Open MPI's bindings pass the object's attribute table (abi_xlate_ompi.c:
 * psim's objects point there at themselves), Open MPI's keyval and where the value goes.
 * Fortran gets values: a predefined attribute's (an int, MPI_WIN_SIZE an MPI_Aint, MPI_WIN_BASE
 * the address) in Open MPI's numbering; one set from Fortran, which is stored boxed
 * (abi_attr_box) as psim's runtime keeps pointers; one set from C, its pointer. ---- */
int abi_ompi_keyhash_owner(const void *keyhash, int *kind);
enum { KEY_LASTPREDEF = 11, KEY_WIN_BASE = 7, KEY_WIN_SIZE = 8 };

static int get_attr(const void *keyhash, int key, ptrdiff_t *value, int *flag) {
  int kind, h = abi_ompi_keyhash_owner(keyhash, &kind), rc;
  void *v = NULL;
  *flag = 0;
  if (h < 0) abi_missing("an attribute of an object psim does not know (Open MPI's Fortran bindings)");
  int (*get)(int, int, void *, int *) = kind == 0 ? p_MPI_Comm_get_attr : kind == 1 ? p_MPI_Type_get_attr : p_MPI_Win_get_attr;
  if (!get) abi_missing("MPI_*_get_attr");
  rc = get(h, abi_keyval_in(key), &v, flag);
  if (rc != 0 || !*flag) return abi_err_out(rc);
  ptrdiff_t boxed;
  if (key == KEY_WIN_BASE) *value = (ptrdiff_t)v;
  else if (key == KEY_WIN_SIZE) *value = *(const ptrdiff_t *)v;
  else if (key >= 0 && key <= KEY_LASTPREDEF) {
    int i = *(const int *)v;
    switch (abi_key_kind(key)) {
      case ABI_KEY_HOST: case ABI_KEY_IO: i = abi_rank_out(i); break;
      case ABI_KEY_LASTUSEDCODE: i = abi_err_out(i); break;
      case ABI_KEY_WIN_MODEL: i = abi_winmodel_out(i); break;
      default: break;
    }
    *value = i;
  } else if (abi_attr_unbox(v, &boxed)) *value = boxed;
  else *value = (ptrdiff_t)v;
  return 0;
}

static int set_attr(const void *keyhash, int key, ptrdiff_t value) {
  int kind, h = abi_ompi_keyhash_owner(keyhash, &kind);
  if (h < 0) abi_missing("an attribute of an object psim does not know (Open MPI's Fortran bindings)");
  int (*set)(int, int, void *) = kind == 0 ? p_MPI_Comm_set_attr : kind == 1 ? p_MPI_Type_set_attr : p_MPI_Win_set_attr;
  if (!set) abi_missing("MPI_*_set_attr");
  return abi_err_out(set(h, abi_keyval_in(key), abi_attr_box(value)));
}

int ompi_attr_get_aint(const void *keyhash, int key, ptrdiff_t *value, int *flag);
int ompi_attr_get_aint(const void *keyhash, int key, ptrdiff_t *value, int *flag) {
  return get_attr(keyhash, key, value, flag);
}
int ompi_attr_get_fint(const void *keyhash, int key, int *value, int *flag);
int ompi_attr_get_fint(const void *keyhash, int key, int *value, int *flag) {
  ptrdiff_t v = 0;
  int rc = get_attr(keyhash, key, &v, flag);
  if (*flag) *value = (int)v;
  return rc;
}
/* (type, object, &object's table, keyval, value, predefined) */
int ompi_attr_set_aint(int type, void *object, void **keyhash, int key, ptrdiff_t value, int predefined);
int ompi_attr_set_aint(int type, void *object, void **keyhash, int key, ptrdiff_t value, int predefined) {
  (void)type, (void)object, (void)predefined;
  return set_attr(*keyhash, key, value);
}
int ompi_attr_set_fint(int type, void *object, void **keyhash, int key, int value, int predefined);
int ompi_attr_set_fint(int type, void *object, void **keyhash, int key, int value, int predefined) {
  (void)type, (void)object, (void)predefined;
  return set_attr(*keyhash, key, value);
}

/* Open MPI's predefined copy and delete subroutines for Fortran (MPI_COMM_NULL_COPY_FN...),
 * arguments by reference: (object, keyval, extra_state, value_in, value_out, flag, ierr) and
 * (object, keyval, value, extra_state, ierr). psim is given its own NULL and DUP_FN for them. */
#define F_NULL_COPY(name)                                                                         \
  void name(int *o, int *k, void *e, ptrdiff_t *in, ptrdiff_t *out, int *flag, int *ierr);        \
  void name(int *o, int *k, void *e, ptrdiff_t *in, ptrdiff_t *out, int *flag, int *ierr) {       \
    (void)o, (void)k, (void)e, (void)in, (void)out;                                               \
    *flag = 0, *ierr = 0;                                                                         \
  }
#define F_DUP(name)                                                                               \
  void name(int *o, int *k, void *e, ptrdiff_t *in, ptrdiff_t *out, int *flag, int *ierr);        \
  void name(int *o, int *k, void *e, ptrdiff_t *in, ptrdiff_t *out, int *flag, int *ierr) {       \
    (void)o, (void)k, (void)e;                                                                    \
    *out = *in, *flag = 1, *ierr = 0;                                                             \
  }
#define F_NULL_DELETE(name)                                                                       \
  void name(int *o, int *k, ptrdiff_t *v, void *e, int *ierr);                                    \
  void name(int *o, int *k, ptrdiff_t *v, void *e, int *ierr) { (void)o, (void)k, (void)v, (void)e, *ierr = 0; }
F_NULL_COPY(mpi_comm_null_copy_fn_) F_NULL_COPY(mpi_type_null_copy_fn_) F_NULL_COPY(mpi_win_null_copy_fn_)
F_NULL_COPY(mpi_null_copy_fn_) F_DUP(mpi_comm_dup_fn_) F_DUP(mpi_type_dup_fn_) F_DUP(mpi_win_dup_fn_)
F_DUP(mpi_dup_fn_) F_NULL_DELETE(mpi_comm_null_delete_fn_) F_NULL_DELETE(mpi_type_null_delete_fn_)
F_NULL_DELETE(mpi_win_null_delete_fn_) F_NULL_DELETE(mpi_null_delete_fn_)

/* A keyval made from Fortran (Open MPI's type: 1 communicator, 2 datatype, 3 window): its
 * callbacks, the predefined subroutines above or the program's, are called as Fortran
 * subroutines (abi_attr.c). */
int ompi_attr_create_keyval_fint(int type, void (*copy)(void), void (*del)(void), int *key, int extra, int flags,
                                 void *bindings);
int ompi_attr_create_keyval_fint(int type, void (*copy)(void), void (*del)(void), int *key, int extra, int flags,
                                 void *bindings) {
  (void)flags, (void)bindings;
  if (type < 1 || type > 3) abi_missing("ompi_attr_create_keyval_fint (an object type psim does not know)");
  return abi_attr_create_fortran(type - 1, copy, del, key, extra, 0);
}
int ompi_attr_create_keyval_aint(int type, void (*copy)(void), void (*del)(void), int *key, ptrdiff_t extra,
                                 int flags, void *bindings);
int ompi_attr_create_keyval_aint(int type, void (*copy)(void), void (*del)(void), int *key, ptrdiff_t extra,
                                 int flags, void *bindings) {
  (void)flags, (void)bindings;
  if (type < 1 || type > 3) abi_missing("ompi_attr_create_keyval_aint (an object type psim does not know)");
  return abi_attr_create_fortran(type - 1, copy, del, key, extra, 1);
}

#define NOT_FROM_FORTRAN(name, what)  \
  void name(void);                    \
  void name(void) { abi_missing(#name " (Open MPI's Fortran bindings: " what ", which psim run does not provide from Fortran)"); }
NOT_FROM_FORTRAN(ompi_datatype_match_size, "MPI_TYPE_MATCH_SIZE")
NOT_FROM_FORTRAN(ompi_fortran_argv_blank_f2c, "spawning processes")
NOT_FROM_FORTRAN(ompi_fortran_argv_count_f2c, "spawning processes")
NOT_FROM_FORTRAN(ompi_fortran_multiple_argvs_f2c, "spawning processes")
NOT_FROM_FORTRAN(ompi_mpi_errors_are_fatal_comm_handler, "an error handler")
NOT_FROM_FORTRAN(mpi_conversion_fn_null_, "data representations")
#define PERSISTENT(c) NOT_FROM_FORTRAN(PMPIX_##c##_init, "persistent collectives")
PERSISTENT(Allgather) PERSISTENT(Allgatherv) PERSISTENT(Allreduce) PERSISTENT(Alltoall)
PERSISTENT(Alltoallv) PERSISTENT(Alltoallw) PERSISTENT(Barrier) PERSISTENT(Bcast) PERSISTENT(Exscan)
PERSISTENT(Gather) PERSISTENT(Gatherv) PERSISTENT(Neighbor_allgather) PERSISTENT(Neighbor_allgatherv)
PERSISTENT(Neighbor_alltoall) PERSISTENT(Neighbor_alltoallv) PERSISTENT(Neighbor_alltoallw)
PERSISTENT(Reduce) PERSISTENT(Reduce_scatter_block) PERSISTENT(Reduce_scatter) PERSISTENT(Scan)
PERSISTENT(Scatter) PERSISTENT(Scatterv)
