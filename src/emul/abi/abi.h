/* psim's MPI-ABI libraries (built into build/lib/): what their files share.
 *
 * A program built by a real MPI's mpicc calls MPI with that MPI's handle values, constants and
 * MPI_Status layout. These libraries define those MPI_* functions; each translates its
 * arguments to psim's ABI (include/psim_mpi/mpi.h), calls psim's function of the same name in
 * the psim binary, and translates the results back. The same sources make two libraries:
 * - libmpich.so.12, MPICH's ABI (handles are ints; abi_xlate.c, abi_fortran.c,
 *   abi_stubs_mpich.c): every translation is arithmetic, one copy serves all ranks;
 * - libmpi.so.40, Open MPI's (built with PSIM_ABI_OMPI; handles are pointers to predefined
 *   objects the program takes the address of; abi_xlate_ompi.c, abi_stubs_ompi.c).
 * psim run loads the one the program needs before the program (emu_abi.c), so the program's
 * NEEDED names it, and loads the program with RTLD_DEEPBIND so that the program's MPI_* bind
 * here and not to psim's own exported MPI_* (docs/EMULATION.md).
 *
 * The files of this directory never include psim's mpi.h except the abi_xlate*.c: the ABIs use
 * the same names. Here a handle of the program's MPI is an abi_h, its status an abi_status;
 * psim's handles are ints and its status the opaque abi_pstatus. */
#ifndef PSIM_ABI_H
#define PSIM_ABI_H

#include <stddef.h>

#ifdef PSIM_ABI_OMPI
/* Open MPI's handles are pointers (MPI_COMM_WORLD is &ompi_mpi_comm_world) */
typedef void *abi_h;
/* Open MPI's MPI_Status */
typedef struct abi_status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int cancelled;
  size_t ucount;
} abi_status;
#define ABI_STATUS_IGNORE ((abi_status *)0)
#define ABI_MPI_VERSION 3      /* Open MPI 4.1's mpi.h */
#define ABI_MPI_SUBVERSION 1
#else
/* MPICH's handles are ints */
typedef int abi_h;
/* MPICH's MPI_Status (five ints: the byte count split in two, the low bit of the second
 * half is the cancelled flag). */
typedef struct abi_status {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} abi_status;
#define ABI_STATUS_IGNORE ((abi_status *)1)
#define ABI_MPI_VERSION 4      /* MPICH 4.0.2's mpi.h and mpif.h */
#define ABI_MPI_SUBVERSION 0
#endif
#define ABI_STATUSES_IGNORE ABI_STATUS_IGNORE

/* psim's MPI_Status, same size (arrays of statuses are passed to psim as they are):
 * abi_xlate.c checks it against psim's mpi.h and reads it through psim's own type. */
typedef struct abi_pstatus { int space[4]; long long bytes; } abi_pstatus;

/* psim's callback types, with handles as ints. */
typedef void abi_puser_fn(void *in, void *inout, int *len, int *datatype);
typedef int abi_pwin_copy_fn(int, int, void *, void *, void *, int *);
typedef int abi_pwin_delete_fn(int, int, void *, void *);
typedef int abi_pcomm_copy_fn(int, int, void *, void *, void *, int *);
typedef int abi_pcomm_delete_fn(int, int, void *, void *);
typedef int abi_pgreq_query_fn(void *extra_state, abi_pstatus *status);
typedef int abi_pgreq_free_fn(void *extra_state);
typedef int abi_pgreq_cancel_fn(void *extra_state, int complete);
typedef void abi_perrh_fn(int *handle, int *errorcode, ...);   /* comm's and win's */

/* MPI_File: a pointer in both MPIs (ROMIO's, Open MPI's ompi_file_t). */
typedef struct abi_fileD *abi_file;
abi_file abi_file_out(int h);
int abi_file_in(abi_file f);

/* Handles: MPICH value <-> psim value, one pair per kind. _in of a value that is not a handle of
 * that kind gives a psim value that psim's runtime rejects with its own error. */
int abi_comm_in(abi_h h);
abi_h abi_comm_out(int h);
int abi_dt_in(abi_h h);
abi_h abi_dt_out(int h);
int abi_op_in(abi_h h);
abi_h abi_op_out(int h);
int abi_req_in(abi_h h);
abi_h abi_req_out(int h);
int abi_group_in(abi_h h);
abi_h abi_group_out(int h);
int abi_info_in(abi_h h);
abi_h abi_info_out(int h);
int abi_win_in(abi_h h);
abi_h abi_win_out(int h);
int abi_errh_in(abi_h h);
abi_h abi_errh_out(int h);
/* MPI_Message: MPICH's are requests (MPI_MESSAGE_NULL 0x2c000000, MPI_MESSAGE_NO_PROC
 * 0x6c000000), psim's receive requests (MPI_MESSAGE_NO_PROC -1). */
int abi_msg_in(abi_h h);
abi_h abi_msg_out(int h);
/* Weights of a distributed graph: MPICH's MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY become psim's
 * (abi_fortran.c, which defines MPICH's; abi_manual.c asks psim for its own). */
int *abi_weights_in(const int *w);
int *abi_psim_weights(int empty);
/* Ranks (MPI_ANY_SOURCE and MPI_PROC_NULL are swapped between the two), attribute keys,
 * error classes, type combiners. */
int abi_rank_in(int r);
int abi_rank_out(int r);
int abi_keyval_in(int k);
int abi_keyval_out(int k);
int abi_err_in(int e);
int abi_err_out(int e);
int abi_combiner_out(int c);
/* Constants whose values differ between psim and Open MPI only (MPICH's are psim's): RMA
 * assertions and lock types, array orders and distributions, split types, topology kinds,
 * MPI_IN_PLACE, the window memory model. */
#ifdef PSIM_ABI_OMPI
int abi_assert_in(int a);
int abi_lock_in(int l);
int abi_order_in(int o);
int abi_distrib_in(int d);
int abi_darg_in(int d);
int abi_topo_out(int t);
int abi_winmodel_out(int m);
void *abi_buf_in(const void *p);
void abi_contents_out(int combiner, int *ints, int n);
int abi_op_is_fortran(abi_h op);   /* made by Open MPI's Fortran bindings' MPI_OP_CREATE */
int abi_req_is_fortran(abi_h req); /* a generalized request Open MPI's Fortran bindings started */
void abi_req_set_c(abi_h req);     /* ... which they mark after starting it as C's */
#else
static inline void abi_req_set_c(abi_h req) { (void)req; }
static inline int abi_op_is_fortran(abi_h op) { (void)op; return 0; }
static inline int abi_req_is_fortran(abi_h req) { (void)req; return 0; }
static inline int abi_assert_in(int a) { return a; }
static inline int abi_lock_in(int l) { return l; }
static inline int abi_order_in(int o) { return o; }
static inline int abi_distrib_in(int d) { return d; }
static inline int abi_darg_in(int d) { return d; }
static inline int abi_topo_out(int t) { return t; }
static inline int abi_winmodel_out(int m) { return m; }
static inline void *abi_buf_in(const void *p) { return (void *)(size_t)p; }
static inline void abi_contents_out(int combiner, int *ints, int n) { (void)combiner, (void)ints, (void)n; }
#endif
/* MPI_Type_get_contents's integers of psim's combiner: the constants among them (a darray's
 * distributions, a subarray's order...) in the program's MPI's values */
/* MPI_Comm_split_type's split type (MPICH's MPI_COMM_TYPE_HW_GUIDED is psim's
 * MPI_COMM_TYPE_HW_UNGUIDED and the other way round; Open MPI's are its own) */
int abi_splittype_in(int t);
/* psim's MPI_IN_PLACE (a buffer after abi_buf_in) */
#define ABI_PSIM_IN_PLACE ((void *)-1)
/* Which predefined attribute a keyval of the program's is (the values psim gives need
 * translating): */
enum { ABI_KEY_OTHER, ABI_KEY_HOST, ABI_KEY_IO, ABI_KEY_LASTUSEDCODE, ABI_KEY_WIN_MODEL };
int abi_key_kind(int keyval);
/* A copy function the program gives for a keyval: 0 its MPI's "null" copy (not copied), 1 its
 * "dup" (the value copied), 2 a function of the program's; and whether a delete function is
 * its MPI's "null" delete. */
int abi_copy_kind(void (*fn)(void));
int abi_delete_is_null(void (*fn)(void));
/* MPICH's value of an error code (the program's own too), at a fixed address (MPI_LASTUSEDCODE) */
const int *abi_err_static(int e);
/* Attribute values set from Fortran (an integer) are stored boxed (abi_attr.c): C reads the
 * box's address, a pointer to the value, as from MPICH; Fortran and the callbacks the value. */
void *abi_attr_box(ptrdiff_t value);
abi_h abi_errh_create_fortran(int type, abi_perrh_fn *fn);   /* abi_manual.c */
int abi_attr_create_fortran(int kind, void (*copy)(void), void (*del)(void), int *keyval, ptrdiff_t extra, int aint);
int abi_attr_unbox(const void *p, ptrdiff_t *value);   /* 1 when p is a box */
/* Statuses */
int abi_status_ignored(const abi_status *s);
void abi_status_out(const abi_pstatus *p, abi_status *s);
void abi_status_in(const abi_status *s, abi_pstatus *p);
/* MPI_Type_match_size's answer as an MPICH handle: typeclass is MPICH's MPI_TYPECLASS_*. */
abi_h abi_match_size(int typeclass, int size);

/* Binding to psim: name -> address of the pointer to fill (abi_calls.c's table). */
typedef struct abi_bind { const char *name; void *slot; } abi_bind;
extern const abi_bind abi_binds[];
/* psim's __wrap_rand, __wrap_srand... (rt_rand.c), for abi_rand.c, bound by name */
enum { ABI_NRAND = 9 };
extern const char *const abi_rand_names[ABI_NRAND];
extern void *abi_psim_rand[ABI_NRAND];
/* psim's psim_abi_copy_index (emu_abi.c): which copy of the program the calling rank runs */
extern int (*abi_psim_copy_index)(void);
/* psim's psim_abi_exit (emu_abi.c), for abi_exit.c */
extern void (*abi_psim_exit)(int status, int underscore);
extern int (*abi_psim_atexit)(void (*fn)(void *), void *arg);
/* psim's __wrap_sleep, __wrap_usleep, __wrap_nanosleep (abi_sleep.c; struct timespec's
 * pointer is opaque here) */
extern unsigned int (*abi_psim_sleep)(unsigned int seconds);
extern int (*abi_psim_usleep)(unsigned int usec);
struct timespec;
extern int (*abi_psim_nanosleep)(const struct timespec *req, struct timespec *rem);
/* psim's psim_abi_getopt (emu_abi.c), for abi_getopt.c (struct option's pointer is opaque
 * here); kind: 0 getopt, 1 getopt_long, 2 getopt_long_only */
struct option;
/* psim's __wrap_gettimeofday and __wrap_clock_gettime (abi_time.c) */
struct timeval;
extern int (*abi_psim_gettimeofday)(struct timeval *tv, void *tz);
extern int (*abi_psim_clock_gettime)(int id, struct timespec *ts);
struct rusage;
extern long (*abi_psim_clock)(void);
extern int (*abi_psim_getrusage)(int who, struct rusage *ru);
/* psim's __wrap_signal and __wrap_sigaction (abi_signal.c; struct sigaction's pointer is
 * opaque here) */
struct sigaction;
extern void (*(*abi_psim_signal)(int sig, void (*handler)(int)))(int);
extern int (*abi_psim_sigaction)(int sig, const struct sigaction *act, struct sigaction *oldact);
extern int (*abi_psim_getopt)(int kind, int argc, char *const *argv, const char *opts,
                              const struct option *longopts, int *longind);
/* Stops the run: the program called an MPI function psim does not implement. */
void abi_missing(const char *name) __attribute__((noreturn));

#endif
