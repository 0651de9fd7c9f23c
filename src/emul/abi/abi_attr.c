/* Keyvals of communicators, datatypes and windows for MPICH binaries: the program's copy and
 * delete callbacks take MPICH's handles and return MPICH's error codes, and a Fortran program's are
 * Fortran subroutines that MPICH's Fortran bindings (libmpichfort) call through their own
 * "proxy" functions. psim's runtime (src/emul/rt/rt_attr.c) calls a trampoline here instead,
 * with a record of the program's callbacks, its extra_state and, once libmpichfort registers
 * them (MPII_Keyval_set_proxy, right after creating the keyval), the proxies:
 *
 *   copy proxy:   (user_fn, handle, keyval, extra_state, attr_type, value, &new_value, &flag)
 *   delete proxy: (user_fn, handle, keyval, attr_type, value, extra_state)
 *
 * (MPICH's MPII_Attr_copy_proxy and MPII_Attr_delete_proxy; attr_type 1 is an integer value,
 * which is how Fortran sets them.) MPI_COMM_DUP_FN and its kin are MPICH's MPIR_Dup_fn, which
 * a C program's binary refers to: defined here, and given to psim as psim's DUP_FN.
 *
 * Values set from Fortran are integers, which MPICH keeps with their language: C's get gives a
 * pointer to the value, Fortran's get the value, and callbacks the value. psim's runtime keeps
 * one pointer per attribute, so a value set from Fortran is stored as the address of a box
 * holding it (abi_attr_box): that address is what C must read, and Fortran's get and the
 * trampolines below take the value out of it. Boxes are never freed (an attribute copied by
 * DUP_FN shares its box): 8 bytes per value set from Fortran. Records live until the end of
 * the run (the attributes of a freed keyval still use them); they are shared by the ranks, as
 * the library is, and psim numbers keyvals of every kind in one sequence. */
#include <stdint.h>
#include <stdlib.h>

#include "emul/abi/abi_ptrs.h"

typedef int copy_fn(abi_h, int, void *, void *, void *, int *);
typedef int delete_fn(abi_h, int, void *, void *);
typedef int copy_proxy(copy_fn *, abi_h, int, void *, int, void *, void **, int *);
typedef int delete_proxy(delete_fn *, abi_h, int, int, void *, void *);

enum { ATTR_AINT = 1 };

typedef struct kv_rec {
  int kind;                  /* a communicator's (0), datatype's (1) or window's (2) keyval */
  int keyval;                /* MPICH's value */
  copy_fn *copy;
  delete_fn *del;
  void *extra;
  copy_proxy *cproxy;
  delete_proxy *dproxy;
  int fortran;               /* Fortran subroutines, called directly (Open MPI's bindings):
                                1 with INTEGER values (MPI_KEYVAL_CREATE), 2 address-sized */
  ptrdiff_t fextra;          /* their extra_state */
  struct kv_rec *next;
} kv_rec;

/* the Fortran handle of an object of the program's MPI (abi_c2f.c, abi_xlate_ompi.c) */
int MPI_Comm_c2f(abi_h h);
int MPI_Type_c2f(abi_h h);
int MPI_Win_c2f(abi_h h);
static int fortran_handle(const kv_rec *r, abi_h h) {
  return r->kind == 2 ? MPI_Win_c2f(h) : r->kind == 1 ? MPI_Type_c2f(h) : MPI_Comm_c2f(h);
}
typedef void f_copy_aint(int *, int *, ptrdiff_t *, ptrdiff_t *, ptrdiff_t *, int *, int *);
typedef void f_copy_int(int *, int *, int *, int *, int *, int *, int *);
typedef void f_delete_aint(int *, int *, ptrdiff_t *, ptrdiff_t *, int *);
typedef void f_delete_int(int *, int *, int *, int *, int *);

static kv_rec *recs;

#ifndef PSIM_ABI_OMPI
int MPIR_Dup_fn(int handle, int keyval, void *extra, void *in, void *out, int *flag);
int MPIR_Dup_fn(int handle, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)handle; (void)keyval; (void)extra;
  *(void **)out = in;
  *flag = 1;
  return 0;
}

/* MPICH's null copy and delete functions are NULL */
int abi_copy_kind(void (*fn)(void)) { return !fn ? 0 : fn == (void (*)(void))MPIR_Dup_fn ? 1 : 2; }
int abi_delete_is_null(void (*fn)(void)) { return !fn; }
#endif

typedef struct box_chunk {
  ptrdiff_t v[1024];
  int used;
  struct box_chunk *next;
} box_chunk;
static box_chunk *boxes;

void *abi_attr_box(ptrdiff_t value) {
  if (!boxes || boxes->used == (int)(sizeof boxes->v / sizeof *boxes->v)) {
    box_chunk *c = calloc(1, sizeof *c);
    if (!c) abi_missing("abi_attr_box (out of memory)");
    c->next = boxes;
    boxes = c;
  }
  ptrdiff_t *p = &boxes->v[boxes->used++];
  *p = value;
  return p;
}

int abi_attr_unbox(const void *p, ptrdiff_t *value) {
  uintptr_t a = (uintptr_t)p;
  for (const box_chunk *c = boxes; c; c = c->next)
    if (a >= (uintptr_t)&c->v[0] && a < (uintptr_t)&c->v[c->used]) { *value = *(const ptrdiff_t *)p; return 1; }
  return 0;
}

static abi_h handle_out(const kv_rec *r, int h) {
  return r->kind == 2 ? abi_win_out(h) : r->kind == 1 ? abi_dt_out(h) : abi_comm_out(h);
}

static int copy_tramp(int h, int key, void *extra, void *in, void *out, int *flag) {
  const kv_rec *r = extra;
  abi_h mh = handle_out(r, h);
  int mk = abi_keyval_out(key), rc;
  ptrdiff_t v;
  int boxed = abi_attr_unbox(in, &v);
  if (boxed) in = (void *)v;
  if (r->fortran) {   /* (object, keyval, extra, value in, value out, flag, ierr), by reference */
    int fh = fortran_handle(r, mh), fl = 0, ierr = 0;
    ptrdiff_t vout = 0;
    if (r->fortran == 2) {
      ptrdiff_t ex = r->fextra, vin = (ptrdiff_t)in;
      ((f_copy_aint *)(void *)r->copy)(&fh, &mk, &ex, &vin, &vout, &fl, &ierr);
    } else {
      int ex = (int)r->fextra, vin = (int)(ptrdiff_t)in, o = 0;
      ((f_copy_int *)(void *)r->copy)(&fh, &mk, &ex, &vin, &o, &fl, &ierr);
      vout = o;
    }
    *flag = fl != 0;
    if (*flag) *(void **)out = abi_attr_box(vout);   /* Fortran's values stay boxed */
    return abi_err_in(ierr);
  }
  if (r->cproxy) rc = r->cproxy(r->copy, mh, mk, r->extra, ATTR_AINT, in, out, flag);
  else rc = r->copy(mh, mk, r->extra, in, out, flag);
  if (boxed && *flag) *(void **)out = abi_attr_box((ptrdiff_t) * (void **)out);   /* still Fortran's */
  return abi_err_in(rc);
}

static int delete_tramp(int h, int key, void *val, void *extra) {
  const kv_rec *r = extra;
  abi_h mh = handle_out(r, h);
  int mk = abi_keyval_out(key), rc;
  ptrdiff_t v;
  if (abi_attr_unbox(val, &v)) val = (void *)v;
  if (r->fortran) {   /* (object, keyval, value, extra, ierr), by reference */
    int fh = fortran_handle(r, mh), ierr = 0;
    if (r->fortran == 2) {
      ptrdiff_t vin = (ptrdiff_t)val, ex = r->fextra;
      ((f_delete_aint *)(void *)r->del)(&fh, &mk, &vin, &ex, &ierr);
    } else {
      int vin = (int)(ptrdiff_t)val, ex = (int)r->fextra;
      ((f_delete_int *)(void *)r->del)(&fh, &mk, &vin, &ex, &ierr);
    }
    return abi_err_in(ierr);
  }
  if (r->dproxy) rc = r->dproxy(r->del, mh, mk, ATTR_AINT, val, r->extra);
  else rc = r->del(mh, mk, val, r->extra);
  return abi_err_in(rc);
}

/* psim's copy function for the program's: NULL (not copied) and DUP_FN are psim's own values,
 * unless a Fortran proxy will call the program's (then every callback goes to the proxy). */
typedef int create_fn(abi_pcomm_copy_fn *, abi_pcomm_delete_fn *, int *, void *);

static int create(create_fn *f, int kind, copy_fn *copy, delete_fn *del, int *keyval, void *extra) {
  kv_rec *r = calloc(1, sizeof *r);
  if (!r) return 16; /* MPICH's MPI_ERR_INTERN */
  *r = (kv_rec){kind, 0, copy, del, extra, NULL, NULL, 0, 0, recs};
  recs = r;
  /* psim gets the trampolines for every callback the program gave: a Fortran program's NULL
   * copy function is a subroutine of libmpichfort (MPI_COMM_NULL_COPY_FN), not NULL */
  int ck = abi_copy_kind((void (*)(void))copy);
  abi_pcomm_copy_fn *pc = ck == 0 ? NULL : ck == 1 ? (abi_pcomm_copy_fn *)1 : copy_tramp;
  int k = 0;
  int rc = f(pc, abi_delete_is_null((void (*)(void))del) ? NULL : delete_tramp, &k, r);
  *keyval = r->keyval = abi_keyval_out(k);
  return abi_err_out(rc);
}

int MPI_Comm_create_keyval(copy_fn *copy, delete_fn *del, int *keyval, void *extra_state) {
  if (!p_MPI_Comm_create_keyval) abi_missing("MPI_Comm_create_keyval");
  return create(p_MPI_Comm_create_keyval, 0, copy, del, keyval, extra_state);
}

int MPI_Keyval_create(copy_fn *copy, delete_fn *del, int *keyval, void *extra_state) {
  if (!p_MPI_Keyval_create) abi_missing("MPI_Keyval_create");
  return create(p_MPI_Keyval_create, 0, copy, del, keyval, extra_state);
}

int MPI_Type_create_keyval(copy_fn *copy, delete_fn *del, int *keyval, void *extra_state) {
  if (!p_MPI_Type_create_keyval) abi_missing("MPI_Type_create_keyval");
  return create(p_MPI_Type_create_keyval, 1, copy, del, keyval, extra_state);
}

int MPI_Win_create_keyval(copy_fn *copy, delete_fn *del, int *keyval, void *extra_state) {
  if (!p_MPI_Win_create_keyval) abi_missing("MPI_Win_create_keyval");
  return create(p_MPI_Win_create_keyval, 2, copy, del, keyval, extra_state);
}

/* A keyval whose callbacks are Fortran subroutines called directly (Open MPI's Fortran
 * bindings: abi_fortran_ompi.c); kind: 0 communicator, 1 datatype, 2 window; aint: their
 * values are address-sized (MPI_COMM_CREATE_KEYVAL) rather than INTEGER (MPI_KEYVAL_CREATE). */
int abi_attr_create_fortran(int kind, void (*copy)(void), void (*del)(void), int *keyval, ptrdiff_t extra, int aint) {
  create_fn *f = kind == 0 ? p_MPI_Comm_create_keyval : kind == 1 ? p_MPI_Type_create_keyval
               : (create_fn *)(void *)p_MPI_Win_create_keyval;
  if (!f) abi_missing("MPI_*_CREATE_KEYVAL");
  kv_rec *r = calloc(1, sizeof *r);
  if (!r) abi_missing("MPI_*_CREATE_KEYVAL (out of memory)");
  *r = (kv_rec){kind, 0, (copy_fn *)(void *)copy, (delete_fn *)(void *)del, NULL, NULL, NULL, aint ? 2 : 1, extra, recs};
  recs = r;
  int k = 0;
  int rc = f(copy ? copy_tramp : NULL, del ? delete_tramp : NULL, &k, r);
  *keyval = r->keyval = abi_keyval_out(k);
  return abi_err_out(rc);
}

/* libmpichfort's MPI_COMM_CREATE_KEYVAL (and the others) create the keyval with the program's
 * Fortran subroutines as the callbacks, then register the proxies that call them: the newest
 * record of that keyval is the one just created. */
void MPII_Keyval_set_proxy(int keyval, copy_proxy *cp, delete_proxy *dp);
void MPII_Keyval_set_proxy(int keyval, copy_proxy *cp, delete_proxy *dp) {
  for (kv_rec *r = recs; r; r = r->next)
    if (r->keyval == keyval) { r->cproxy = cp; r->dproxy = dp; return; }
  abi_missing("MPII_Keyval_set_proxy (a keyval this library did not create)");
}

#define ALIAS(n) extern __typeof__(n) P##n __attribute__((alias(#n)));
ALIAS(MPI_Comm_create_keyval) ALIAS(MPI_Keyval_create) ALIAS(MPI_Type_create_keyval)
ALIAS(MPI_Win_create_keyval)
