/* Attributes on communicators, datatypes and windows (MPI_Comm_create_keyval,
 * MPI_Comm_set_attr..., MPI_Type_*, MPI_Win_*, MPI-1's MPI_Keyval_create / MPI_Attr_put /
 * MPI_Attr_delete; the predefined ones are rt_init.c's and rt_win.c's), with their copy and
 * delete callbacks: libraries keep their state on a communicator this way (PETSc, MPICH's
 * Fortran tests f77/attr), and a Fortran program's keyvals reach here through MPICH's Fortran
 * bindings.
 *
 * Attributes belong to a process, not to the object: psim's communicator, datatype and window
 * objects are shared by the ranks, so each attribute is stored with the world rank that set
 * it, and each rank sees, copies and deletes only its own. Copy callbacks run when the rank
 * duplicates the object (MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Type_dup), delete callbacks
 * when it deletes the attribute, replaces its value, frees the object (MPI_Win_free too;
 * windows are never duplicated), or, for MPI_COMM_SELF, calls MPI_Finalize (MPI's rule, which
 * libraries use to clean up at the end). Keyvals are numbered from 1 for the whole run, all
 * kinds together (MPI_KEYVAL_INVALID is 0); a freed keyval stays valid for the attributes that
 * use it, as MPI requires. No simulated time: these are local calls. */
#include <stdint.h>
#include <stdlib.h>

#include "emul/rt/rt.h"

enum { KIND_COMM, KIND_TYPE, KIND_WIN };
static const char *const kind_name[] = {"communicator", "datatype", "window"};

typedef int copy_fn(int, int, void *, void *, void *, int *);
typedef int delete_fn(int, int, void *, void *);

typedef struct keyval {
  int kind;
  copy_fn *copy;             /* NULL: not copied; (copy_fn *)1: the value copied (DUP_FN) */
  delete_fn *del;
  void *extra;
} keyval;

typedef struct attr {
  int rank, kind, handle, key;
  void *val;
} attr;

struct rt_attrs {
  VEC(keyval) keyvals;       /* keyval k is keyvals.data[k - 1] */
  VEC(attr) attrs;
};

static struct rt_attrs *attrs(void) {
  rt_world *w = rt_w();
  if (!w->attrs) w->attrs = xcalloc(1, sizeof *w->attrs);
  return w->attrs;
}

void rt_attrs_free(rt_world *w) {
  if (!w->attrs) return;
  VEC_FREE(w->attrs->keyvals);
  VEC_FREE(w->attrs->attrs);
  free(w->attrs);
  w->attrs = NULL;
}

static const keyval *key_get(int kind, int key, const char *call) {
  struct rt_attrs *a = attrs();
  if (key <= 0 || (size_t)key > a->keyvals.len || a->keyvals.data[key - 1].kind != kind)
    emu_fatal("%s: invalid keyval %d for a %s (MPI_ERR_KEYVAL)", call, key, kind_name[kind]);
  return &a->keyvals.data[key - 1];
}

static int create(int kind, copy_fn *copy, delete_fn *del, int *key, void *extra) {
  struct rt_attrs *a = attrs();
  VEC_PUSH(a->keyvals, ((keyval){kind, copy, del, extra}));
  *key = (int)a->keyvals.len;
  return MPI_SUCCESS;
}

/* The rank's attribute on that object, or -1. */
static long find(int kind, int handle, int key) {
  struct rt_attrs *a = attrs();
  int me = rt_world_rank();
  for (size_t i = 0; i < a->attrs.len; i++) {
    const attr *t = &a->attrs.data[i];
    if (t->rank == me && t->kind == kind && t->handle == handle && t->key == key) return (long)i;
  }
  return -1;
}

/* Runs the delete callback (its error stops the run, as MPI makes it the caller's error) and
 * drops the attribute. The callback may set or delete other attributes: the entry is found
 * again after it returns. */
static void drop(int kind, int handle, int key, const char *call) {
  long i = find(kind, handle, key);
  if (i < 0) return;
  const keyval *k = key_get(kind, key, call);
  void *val = attrs()->attrs.data[i].val;
  if (k->del) {
    int rc = k->del(handle, key, val, k->extra);
    if (rc != MPI_SUCCESS) emu_fatal("%s: the delete callback of keyval %d returned error %d", call, key, rc);
  }
  i = find(kind, handle, key);
  if (i >= 0) {
    struct rt_attrs *a = attrs();
    a->attrs.data[i] = a->attrs.data[--a->attrs.len];
  }
}

static int set(int kind, int handle, int key, void *val, const char *call) {
  key_get(kind, key, call);
  drop(kind, handle, key, call);   /* MPI: a new value deletes the old one first */
  VEC_PUSH(attrs()->attrs, ((attr){rt_world_rank(), kind, handle, key, val}));
  return MPI_SUCCESS;
}

static int get(int kind, int handle, int key, void *val, int *flag, const char *call) {
  key_get(kind, key, call);
  long i = find(kind, handle, key);
  *flag = i >= 0;
  if (i >= 0) *(void **)val = attrs()->attrs.data[i].val;
  return MPI_SUCCESS;
}

/* Deleting an attribute the object does not have does nothing, as in MPICH. */
static int del(int kind, int handle, int key, const char *call) {
  key_get(kind, key, call);
  drop(kind, handle, key, call);
  return MPI_SUCCESS;
}

/* The rank's attributes of `from` go to `to` as their copy callbacks decide. */
static void copy_all(int kind, int from, int to, const char *call) {
  int me = rt_world_rank();
  for (size_t i = 0; i < attrs()->attrs.len; i++) {
    attr t = attrs()->attrs.data[i];   /* a copy: callbacks may grow the vector */
    if (t.rank != me || t.kind != kind || t.handle != from) continue;
    const keyval *k = key_get(kind, t.key, call);
    void *out = NULL;
    int flag = 0;
    if (k->copy == (copy_fn *)1) { out = t.val; flag = 1; }
    else if (k->copy) {
      int rc = k->copy(from, t.key, k->extra, t.val, &out, &flag);
      if (rc != MPI_SUCCESS) emu_fatal("%s: the copy callback of keyval %d returned error %d", call, t.key, rc);
    }
    if (flag) VEC_PUSH(attrs()->attrs, ((attr){me, kind, to, t.key, out}));
  }
}

/* Every attribute of the rank on that object, deleted (the object is freed). */
static void drop_all(int kind, int handle, const char *call) {
  int me = rt_world_rank();
  for (size_t i = 0; i < attrs()->attrs.len;) {
    const attr *t = &attrs()->attrs.data[i];
    if (t->rank != me || t->kind != kind || t->handle != handle) { i++; continue; }
    drop(kind, handle, t->key, call);
    i = 0;   /* a callback may have changed the vector */
  }
}

void rt_attr_comm_dup(MPI_Comm from, MPI_Comm to) { copy_all(KIND_COMM, from, to, "MPI_Comm_dup"); }
void rt_attr_comm_free(MPI_Comm c, const char *call) { drop_all(KIND_COMM, c, call); }
void rt_attr_type_dup(MPI_Datatype from, MPI_Datatype to) { copy_all(KIND_TYPE, from, to, "MPI_Type_dup"); }
void rt_attr_type_free(MPI_Datatype t) { drop_all(KIND_TYPE, t, "MPI_Type_free"); }
int rt_attr_comm_get(MPI_Comm c, int key, void *val, int *flag) {
  return get(KIND_COMM, c, key, val, flag, "MPI_Comm_get_attr");
}
int rt_attr_win_get(MPI_Win w, int key, void *val, int *flag) {
  return get(KIND_WIN, w, key, val, flag, "MPI_Win_get_attr");
}
void rt_attr_win_free(MPI_Win w) { drop_all(KIND_WIN, w, "MPI_Win_free"); }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                           int *keyval, void *extra_state) {
  return create(KIND_COMM, copy, del, keyval, extra_state);
}

int MPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval, void *extra_state) {
  return create(KIND_COMM, copy, del, keyval, extra_state);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
                           int *keyval, void *extra_state) {
  return create(KIND_TYPE, copy, del, keyval, extra_state);
}

/* The keyval stays for the attributes still using it (MPI); the handle becomes invalid. */
static int free_key(int kind, int *keyval, const char *call) {
  key_get(kind, *keyval, call);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *keyval) { return free_key(KIND_COMM, keyval, "MPI_Comm_free_keyval"); }
int MPI_Keyval_free(int *keyval) { return free_key(KIND_COMM, keyval, "MPI_Keyval_free"); }
int MPI_Type_free_keyval(int *keyval) { return free_key(KIND_TYPE, keyval, "MPI_Type_free_keyval"); }

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val) {
  rt_comm_get(comm);
  return set(KIND_COMM, comm, keyval, val, "MPI_Comm_set_attr");
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *val) {
  rt_comm_get(comm);
  return set(KIND_COMM, comm, keyval, val, "MPI_Attr_put");
}

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  rt_comm_get(comm);
  return del(KIND_COMM, comm, keyval, "MPI_Comm_delete_attr");
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  rt_comm_get(comm);
  return del(KIND_COMM, comm, keyval, "MPI_Attr_delete");
}

int MPI_Type_set_attr(MPI_Datatype dt, int keyval, void *val) {
  rt_type(dt);
  return set(KIND_TYPE, dt, keyval, val, "MPI_Type_set_attr");
}

int MPI_Type_get_attr(MPI_Datatype dt, int keyval, void *val, int *flag) {
  rt_type(dt);
  return get(KIND_TYPE, dt, keyval, val, flag, "MPI_Type_get_attr");
}

int MPI_Type_delete_attr(MPI_Datatype dt, int keyval) {
  rt_type(dt);
  return del(KIND_TYPE, dt, keyval, "MPI_Type_delete_attr");
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del,
                          int *keyval, void *extra_state) {
  return create(KIND_WIN, copy, del, keyval, extra_state);
}

int MPI_Win_free_keyval(int *keyval) { return free_key(KIND_WIN, keyval, "MPI_Win_free_keyval"); }

int MPI_Win_set_attr(MPI_Win win, int keyval, void *val) {
  rt_win_check(win);
  return set(KIND_WIN, win, keyval, val, "MPI_Win_set_attr");
}

int MPI_Win_delete_attr(MPI_Win win, int keyval) {
  rt_win_check(win);
  return del(KIND_WIN, win, keyval, "MPI_Win_delete_attr");
}
