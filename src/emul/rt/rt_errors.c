/* Errors: strings and classes of MPI's error codes, the program's own classes, codes and
 * strings (MPI_Add_error_class, _code, _string), and error handlers on communicators and
 * windows and files (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, or a function of the program's).
 * A file starts with MPI_ERRORS_RETURN, as MPI says (MPI_FILE_NULL's handler: the errors of
 * MPI_File_open and MPI_File_delete); MPI-IO's errors all report through rt_file_error.
 *
 * What the handlers govern: MPI_Comm_call_errhandler and MPI_Win_call_errhandler, and the
 * errors of the calls that report through rt_comm_error (MPI_Type_get_contents,
 * MPI_Type_create_f90_*, MPI_Add_error_*, MPI_Pack_external...). Every other error psim's
 * runtime detects stops the run, whatever handler the program set (docs/MPI_SUBSET.md).
 *
 * Like attributes (rt_attr.c), classes, codes and handler settings belong to a process: each
 * record holds the world rank it is of, so each rank numbers its own codes from
 * MPI_ERR_LASTCODE + 1, as each process of a real MPI does, and a communicator shared by the
 * ranks has each rank's own handler. Handler objects are the run's (handles from 3; never
 * released: a handler freed while set stays in use, as MPI requires). A communicator made by
 * MPI_Comm_dup takes its parent's handler; every other one starts with MPI_ERRORS_ARE_FATAL. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

enum { EH_COMM, EH_WIN, EH_FILE, EH_NKINDS };

typedef struct ecode { int rank, code, cls; char *str; } ecode;
typedef struct ehandler { int kind; void (*fn)(void); } ehandler;
/* The handlers set on one object, per world rank (0: none set, MPI_ERRORS_ARE_FATAL), and how
 * many are set; freed when the last rank that set one frees the object. */
typedef struct eslot { int *errh; int nset; } eslot;

struct rt_errs {
  VEC(ecode) codes;
  VEC(ehandler) handlers;    /* handler h is handlers.data[h - 1 - MPI_ERRORS_RETURN] */
  VEC(eslot) slots[EH_NKINDS];   /* per kind (EH_COMM, EH_WIN, EH_FILE), indexed by the object's handle
                              * (handles are never reused): a program making and freeing
                              * 100,000 communicators must not search a list of them */
  int *lastused;             /* per world rank */
};

static struct rt_errs *errs(void) {
  rt_world *w = rt_w();
  if (!w->errs) {
    w->errs = xcalloc(1, sizeof *w->errs);
    int np = emu_current->np;
    w->errs->lastused = xmalloc((size_t)np * sizeof(int));
    for (int i = 0; i < np; i++) w->errs->lastused[i] = MPI_ERR_LASTCODE;
  }
  return w->errs;
}

void rt_errs_free(rt_world *w) {
  if (!w->errs) return;
  for (size_t i = 0; i < w->errs->codes.len; i++) free(w->errs->codes.data[i].str);
  VEC_FREE(w->errs->codes);
  VEC_FREE(w->errs->handlers);
  for (int k = 0; k < EH_NKINDS; k++) {
    for (size_t i = 0; i < w->errs->slots[k].len; i++) free(w->errs->slots[k].data[i].errh);
    VEC_FREE(w->errs->slots[k]);
  }
  free(w->errs->lastused);
  free(w->errs);
  w->errs = NULL;
}

int *rt_err_lastused(void) { return &errs()->lastused[rt_world_rank()]; }

/* The calling rank's class or code `code`, NULL if it added none such. */
static ecode *user_code(int code) {
  struct rt_errs *e = errs();
  int me = rt_world_rank();
  for (size_t i = 0; i < e->codes.len; i++)
    if (e->codes.data[i].rank == me && e->codes.data[i].code == code) return &e->codes.data[i];
  return NULL;
}

static int predefined(int code) { return code >= MPI_SUCCESS && code <= MPI_ERR_LASTCODE; }

/* ---- the handler of an object ---- */

static int handler_of(int kind, int handle) {
  struct rt_errs *e = errs();
  int dflt = kind == EH_FILE ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL;
  if (handle < 0 || (size_t)handle >= e->slots[kind].len || !e->slots[kind].data[handle].errh) return dflt;
  int h = e->slots[kind].data[handle].errh[rt_world_rank()];
  return h ? h : dflt;
}

static const ehandler *handler_get(MPI_Errhandler h, const char *call) {
  struct rt_errs *e = errs();
  if (h <= MPI_ERRORS_RETURN || (size_t)(h - 1 - MPI_ERRORS_RETURN) >= e->handlers.len)
    emu_fatal("%s: invalid error handler %d (MPI_ERR_ARG)", call, h);
  return &e->handlers.data[h - 1 - MPI_ERRORS_RETURN];
}

static int set_handler(int kind, int handle, MPI_Errhandler h, const char *call) {
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN && handler_get(h, call)->kind != kind)
    emu_fatal("%s: error handler %d is not for a %s (MPI_ERR_ARG)", call, h,
              kind == EH_COMM ? "communicator" : kind == EH_WIN ? "window" : "file");
  struct rt_errs *e = errs();
  while (e->slots[kind].len <= (size_t)handle) VEC_PUSH(e->slots[kind], ((eslot){NULL, 0}));
  eslot *sl = &e->slots[kind].data[handle];
  if (!sl->errh) sl->errh = xcalloc((size_t)emu_current->np, sizeof *sl->errh);
  int *mine = &sl->errh[rt_world_rank()];
  sl->nset += !*mine;
  *mine = h;
  return MPI_SUCCESS;
}

/* The calling rank freed the object: its handler goes (the object's record with the last). */
static void forget_handler(int kind, int handle) {
  struct rt_errs *e = errs();
  if (handle < 0 || (size_t)handle >= e->slots[kind].len) return;
  eslot *sl = &e->slots[kind].data[handle];
  if (!sl->errh || !sl->errh[rt_world_rank()]) return;
  sl->errh[rt_world_rank()] = 0;
  if (--sl->nset == 0) { free(sl->errh); sl->errh = NULL; }
}

void rt_err_comm_free(MPI_Comm comm) { forget_handler(EH_COMM, comm); }
void rt_err_win_free(MPI_Win win) { forget_handler(EH_WIN, win); }
void rt_err_file_free(MPI_File fh) { forget_handler(EH_FILE, fh); }

typedef void handler_fn(int *handle, int *code, ...);

/* Raises `code` on the object: fatal (with msg), returned, or the program's function called. */
static int raise_on(int kind, int handle, int code, const char *msg) {
  int h = handler_of(kind, handle);
  if (h == MPI_ERRORS_ARE_FATAL) emu_fatal("%s", msg);
  if (h != MPI_ERRORS_RETURN) {
    int obj = handle, c = code;
    ((handler_fn *)handler_get(h, "error handler")->fn)(&obj, &c, NULL);
  }
  return code;
}

int rt_comm_error(MPI_Comm comm, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return raise_on(EH_COMM, comm, code, msg);
}

int rt_file_error(MPI_File fh, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return raise_on(EH_FILE, fh, code, msg);
}

void rt_err_comm_dup(MPI_Comm from, MPI_Comm to) {
  int h = handler_of(EH_COMM, from);
  if (h != MPI_ERRORS_ARE_FATAL) set_handler(EH_COMM, to, h, "MPI_Comm_dup");
}

static int create_handler(int kind, void (*fn)(void), MPI_Errhandler *h) {
  struct rt_errs *e = errs();
  VEC_PUSH(e->handlers, ((ehandler){kind, fn}));
  *h = (MPI_Errhandler)e->handlers.len + MPI_ERRORS_RETURN;
  return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create_handler(EH_COMM, (void (*)(void))fn, errhandler);
}

int MPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler) {
  return create_handler(EH_COMM, (void (*)(void))fn, errhandler);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create_handler(EH_WIN, (void (*)(void))fn, errhandler);
}

int MPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler) {
  return create_handler(EH_FILE, (void (*)(void))fn, errhandler);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler e) {
  rt_comm_get(comm);
  return set_handler(EH_COMM, comm, e, "MPI_Comm_set_errhandler");
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler e) { return MPI_Comm_set_errhandler(comm, e); }

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *e) {
  rt_comm_get(comm);
  *e = handler_of(EH_COMM, comm);
  return MPI_SUCCESS;
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *e) { return MPI_Comm_get_errhandler(comm, e); }

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler e) {
  rt_win_check(win);
  return set_handler(EH_WIN, win, e, "MPI_Win_set_errhandler");
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *e) {
  rt_win_check(win);
  *e = handler_of(EH_WIN, win);
  return MPI_SUCCESS;
}

/* A file's handler (rt_file.c checks the handle: MPI_FILE_NULL's is the calling rank's). */
int MPI_File_set_errhandler(MPI_File fh, MPI_Errhandler e) {
  return set_handler(EH_FILE, fh, e, "MPI_File_set_errhandler");
}

int MPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *e) {
  *e = handler_of(EH_FILE, fh);
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *e) {
  if (*e != MPI_ERRORS_ARE_FATAL && *e != MPI_ERRORS_RETURN) handler_get(*e, "MPI_Errhandler_free");
  *e = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

/* MPI: MPI_SUCCESS once the handler returns (MPI_ERRORS_RETURN included). */
static int call_errhandler(int kind, int handle, int errorcode, const char *call) {
  char msg[MPI_MAX_ERROR_STRING + 64], s[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(errorcode, s, &len);
  snprintf(msg, sizeof msg, "%s: error %d (%s) under MPI_ERRORS_ARE_FATAL", call, errorcode, s);
  raise_on(kind, handle, errorcode, msg);
  return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  rt_comm_get(comm);
  return call_errhandler(EH_COMM, comm, errorcode, "MPI_Comm_call_errhandler");
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  return call_errhandler(EH_FILE, fh, errorcode, "MPI_File_call_errhandler");
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  rt_win_check(win);
  return call_errhandler(EH_WIN, win, errorcode, "MPI_Win_call_errhandler");
}

/* ---- classes, codes, strings ---- */

static const char *const errnames[] = {
  [MPI_SUCCESS] = "MPI_SUCCESS: no error", [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer",
  [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count", [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
  [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag", [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
  [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank", [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
  [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root", [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
  [MPI_ERR_OP] = "MPI_ERR_OP: invalid operation", [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
  [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimensions", [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
  [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error", [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
  [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error", [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
  [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error in status", [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
  [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object", [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
  [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
  [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key", [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
  [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size", [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
  [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base", [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
  [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type", [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert",
  [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
  [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
  [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
  [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid key value",
  /* MPI-IO's */
  [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
  [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between the processes of a collective",
  [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
  [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
  [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
  [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
  [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
  [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
  [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
  [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
  [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
  [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
  [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
  [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
  [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion failed",
  [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
};

/* A predefined code's string; a code the program added has the string it gave ("" if none). */
int MPI_Error_string(int errorcode, char *string, int *resultlen) {
  const ecode *u = predefined(errorcode) ? NULL : user_code(errorcode);
  const char *s = u ? (u->str ? u->str : "")
                : errorcode >= 0 && errorcode < (int)(sizeof errnames / sizeof *errnames) && errnames[errorcode]
                ? errnames[errorcode] : "unknown error code";
  snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
  *resultlen = (int)strlen(string);
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass) {
  if (predefined(errorcode)) { *errorclass = errorcode; return MPI_SUCCESS; }
  const ecode *u = user_code(errorcode);
  if (!u) return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class: no error code %d (MPI_ERR_ARG)", errorcode);
  *errorclass = u->cls;
  return MPI_SUCCESS;
}

static int add_code(int cls, int *code) {
  int *last = rt_err_lastused();
  *code = ++*last;
  VEC_PUSH(errs()->codes, ((ecode){rt_world_rank(), *code, cls < 0 ? *code : cls, NULL}));
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int *errorclass) { return add_code(-1, errorclass); }

int MPI_Add_error_code(int errorclass, int *errorcode) {
  const ecode *u = predefined(errorclass) ? NULL : user_code(errorclass);
  if (!(predefined(errorclass) && errorclass != MPI_SUCCESS) && !(u && u->cls == u->code))
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code: %d is not an error class (MPI_ERR_ARG)", errorclass);
  return add_code(errorclass, errorcode);
}

int MPI_Add_error_string(int errorcode, const char *string) {
  ecode *u = predefined(errorcode) ? NULL : user_code(errorcode);
  if (!u)
    return rt_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string: %d is not a code the program added (MPI_ERR_ARG)", errorcode);
  free(u->str);
  u->str = xmalloc(MPI_MAX_ERROR_STRING);
  snprintf(u->str, MPI_MAX_ERROR_STRING, "%s", string);
  return MPI_SUCCESS;
}
