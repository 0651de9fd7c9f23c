/* What MPICH's own Fortran bindings (Debian's libmpichfort.so.12: mpif.h programs built by
 * mpifort.mpich, ScaLAPACK's Fortran testers) need of libmpich.so.12 besides the MPI_* and
 * PMPI_* functions, so that the real libmpichfort runs over this library unchanged: its
 * mpi_send_ converts Fortran's integers and calls PMPI_Send here (MPICH's handles are ints in
 * both languages; MPI_STATUS_SIZE is 5, abi_status).
 *
 * - MPI_F_STATUS_IGNORE and friends: libmpichfort's MPI_INIT stores there the addresses of its
 *   mpif.h common blocks, and compares a status argument with them. Those addresses are each
 *   rank's own (psim run copies libmpichfort per rank, as it copies every library that needs
 *   libmpich.so.12), so psim run points each copy's references to these four at storage of that
 *   rank (emu_abi.c, "per-rank variables"); these definitions only let the loader resolve them.
 * - MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: MPICH's sentinel addresses (the Fortran layer maps its
 *   own onto them).
 * - MPII_{Comm,Type,Win}_{get,set}_attr: attributes with Fortran's value semantics (an
 *   integer, not a pointer; MPI_COMM_GET_ATTR(..., MPI_TAG_UB, ...) gives the largest tag),
 *   over this library's C functions.
 * - the MPIX_ extensions: not implemented; a call stops the run naming it (exit 4), as any
 *   MPICH call psim lacks. (The keyval proxies that call Fortran's copy and delete callbacks
 *   are registered in abi_attr.c, Fortran generalized requests marked in abi_manual.c.) */
#include <stdint.h>

#include "emul/abi/abi.h"

void *MPI_F_STATUS_IGNORE, *MPI_F_STATUSES_IGNORE, *MPI_F08_STATUS_IGNORE, *MPI_F08_STATUSES_IGNORE;

static int unweighted, weights_empty;
int *const MPI_UNWEIGHTED = &unweighted;
int *const MPI_WEIGHTS_EMPTY = &weights_empty;

/* psim's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses of psim's (abi_manual.c) */
int *abi_weights_in(const int *w) {
  if (w == MPI_UNWEIGHTED) return abi_psim_weights(0);
  if (w == MPI_WEIGHTS_EMPTY) return abi_psim_weights(1);
  return (int *)(uintptr_t)w;
}

#define UNSUPPORTED(name) \
  int name(void);         \
  int name(void) { abi_missing(#name); }

/* ---- Attributes from Fortran ----
 * MPICH's MPIR_Attr_type: bit 0 set for an integer value (Fortran), clear for a pointer (C). */
enum { ATTR_PTR = 0, ATTR_AINT = 1, ATTR_INT = 3 };

/* This library's C functions (abi_calls.c), MPICH handles (bound here, not to psim's functions
 * of the same names: the library is linked with -Bsymbolic-functions). */
int MPI_Comm_get_attr(int comm, int keyval, void *attribute_val, int *flag);
int MPI_Comm_set_attr(int comm, int keyval, void *attribute_val);
int MPI_Type_get_attr(int type, int keyval, void *attribute_val, int *flag);
int MPI_Type_set_attr(int type, int keyval, void *attribute_val);
int MPI_Win_get_attr(int win, int keyval, void *attribute_val, int *flag);
int MPI_Win_set_attr(int win, int keyval, void *attribute_val);

/* MPICH's predefined keyvals are builtin handles (kind 01 in the top two bits), in pairs: C's
 * (odd: MPI_TAG_UB is 0x64400001) and Fortran's, the next (mpif.h's MPI_TAG_UB). C values
 * point at the value (an int, but MPI_WIN_SIZE's is an MPI_Aint and MPI_WIN_BASE's is the base
 * address itself). A user keyval's value is what was stored: set from C, the pointer; set from
 * Fortran, a box holding the integer. */
static int c_keyval(int keyval) {
  return (unsigned)keyval >> 30 == 1 && !(keyval & 1) ? keyval - 1 : keyval;
}

#define WIN_BASE 0x66000001u
#define WIN_SIZE 0x66000003u

static int get_as(int rc, int keyval, void *c_val, void *attr, const int *flag, int type) {
  if (rc != 0 || !*flag) return rc;
  if (!(type & 1)) { *(void **)attr = c_val; return rc; }
  intptr_t v;
  ptrdiff_t boxed;
  if ((unsigned)keyval >> 30 != 1 && abi_attr_unbox(c_val, &boxed)) v = boxed;   /* set from Fortran */
  else if ((unsigned)keyval >> 30 != 1 || (unsigned)keyval == WIN_BASE) v = (intptr_t)c_val;
  else if ((unsigned)keyval == WIN_SIZE) v = *(const intptr_t *)c_val;
  else v = *(const int *)c_val;
  *(intptr_t *)attr = v;   /* MPICH's binding reads a pointer-sized slot, then converts */
  (void)ATTR_INT;
  return rc;
}

int MPII_Comm_get_attr(int comm, int keyval, void *attr, int *flag, int type);
int MPII_Comm_get_attr(int comm, int keyval, void *attr, int *flag, int type) {
  void *v = 0;
  keyval = c_keyval(keyval);
  int rc = MPI_Comm_get_attr(comm, keyval, &v, flag);
  return get_as(rc, keyval, v, attr, flag, type);
}

int MPII_Type_get_attr(int dt, int keyval, void *attr, int *flag, int type);
int MPII_Type_get_attr(int dt, int keyval, void *attr, int *flag, int type) {
  void *v = 0;
  keyval = c_keyval(keyval);
  int rc = MPI_Type_get_attr(dt, keyval, &v, flag);
  return get_as(rc, keyval, v, attr, flag, type);
}

int MPII_Win_get_attr(int win, int keyval, void *attr, int *flag, int type);
int MPII_Win_get_attr(int win, int keyval, void *attr, int *flag, int type) {
  void *v = 0;
  keyval = c_keyval(keyval);
  int rc = MPI_Win_get_attr(win, keyval, &v, flag);
  return get_as(rc, keyval, v, attr, flag, type);
}

/* From Fortran the value itself comes as the pointer; an integer value (type's bit 0) is
 * stored boxed, so that C reads a pointer to it, as from MPICH (abi_attr.c). */
static void *fortran_value(void *val, int type) { return type & 1 ? abi_attr_box((intptr_t)val) : val; }

int MPII_Comm_set_attr(int comm, int keyval, void *val, int type);
int MPII_Comm_set_attr(int comm, int keyval, void *val, int type) {
  return MPI_Comm_set_attr(comm, keyval, fortran_value(val, type));
}

int MPII_Type_set_attr(int dt, int keyval, void *val, int type);
int MPII_Type_set_attr(int dt, int keyval, void *val, int type) {
  return MPI_Type_set_attr(dt, keyval, fortran_value(val, type));
}

int MPII_Win_set_attr(int win, int keyval, void *val, int type);
int MPII_Win_set_attr(int win, int keyval, void *val, int type) {
  return MPI_Win_set_attr(win, keyval, fortran_value(val, type));
}

UNSUPPORTED(MPIX_Comm_agree)
UNSUPPORTED(MPIX_Comm_failure_ack)
UNSUPPORTED(MPIX_Comm_failure_get_acked)
UNSUPPORTED(MPIX_Comm_revoke)
UNSUPPORTED(MPIX_Comm_shrink)
UNSUPPORTED(MPIX_GPU_query_support)
UNSUPPORTED(MPIX_Query_cuda_support)
UNSUPPORTED(MPIX_Query_hip_support)
UNSUPPORTED(MPIX_Query_ze_support)
UNSUPPORTED(PMPIX_Comm_agree)
UNSUPPORTED(PMPIX_Comm_failure_ack)
UNSUPPORTED(PMPIX_Comm_failure_get_acked)
UNSUPPORTED(PMPIX_Comm_revoke)
UNSUPPORTED(PMPIX_Comm_shrink)
UNSUPPORTED(PMPIX_Delete_error_class)
UNSUPPORTED(PMPIX_Delete_error_code)
UNSUPPORTED(PMPIX_Delete_error_string)
UNSUPPORTED(PMPIX_GPU_query_support)
UNSUPPORTED(PMPIX_Query_cuda_support)
UNSUPPORTED(PMPIX_Query_hip_support)
UNSUPPORTED(PMPIX_Query_ze_support)
