/* psim's MPICH-ABI library (libmpich.so.12, built into build/lib/): what its files share.
 *
 * A program built by a real MPICH mpicc calls MPI with MPICH's handle values, constants and
 * MPI_Status layout. This library defines those MPI_* functions; each translates its arguments
 * to psim's ABI (include/psim_mpi/mpi.h), calls psim's function of the same name in the psim
 * binary, and translates the results back. It holds no state of its own beyond the bound
 * function pointers: every translation is arithmetic (see abi_xlate.c), so one copy serves all
 * ranks. psim run loads it before the program (emu_abi.c), so the program's NEEDED
 * libmpich.so.12 is this file, and loads the program with RTLD_DEEPBIND so that the program's
 * MPI_* bind here and not to psim's own exported MPI_* (docs/EMULATION.md).
 *
 * The files of this directory never include psim's mpi.h except abi_xlate.c: the two ABIs use
 * the same names. Here handles are plain ints, MPICH's status is abi_status, psim's is the
 * opaque abi_pstatus. */
#ifndef PSIM_ABI_H
#define PSIM_ABI_H

#include <stddef.h>

/* MPICH's MPI_Status (five ints: the byte count split in two, the low bit of the second
 * half is the cancelled flag). */
typedef struct abi_status {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} abi_status;

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

/* MPICH's MPI_File: a pointer (ROMIO's). psim's file handle h is the pointer value h
 * (MPI_FILE_NULL 0 in both); nothing dereferences it. */
typedef struct abi_fileD *abi_file;
abi_file abi_file_out(int h);
int abi_file_in(abi_file f);

/* MPICH's special pointers */
#define ABI_STATUS_IGNORE ((abi_status *)1)
#define ABI_STATUSES_IGNORE ((abi_status *)1)

/* Handles: MPICH value <-> psim value, one pair per kind. _in of a value that is not a handle of
 * that kind gives a psim value that psim's runtime rejects with its own error. */
int abi_comm_in(int h);
int abi_comm_out(int h);
int abi_dt_in(int h);
int abi_dt_out(int h);
int abi_op_in(int h);
int abi_op_out(int h);
int abi_req_in(int h);
int abi_req_out(int h);
int abi_group_in(int h);
int abi_group_out(int h);
int abi_info_in(int h);
int abi_info_out(int h);
int abi_win_in(int h);
int abi_win_out(int h);
int abi_errh_in(int h);
int abi_errh_out(int h);
/* MPI_Message: MPICH's are requests (MPI_MESSAGE_NULL 0x2c000000, MPI_MESSAGE_NO_PROC
 * 0x6c000000), psim's receive requests (MPI_MESSAGE_NO_PROC -1). */
int abi_msg_in(int h);
int abi_msg_out(int h);
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
/* MPICH's value of an error code (the program's own too), at a fixed address (MPI_LASTUSEDCODE) */
const int *abi_err_static(int e);
/* Attribute values set from Fortran (an integer) are stored boxed (abi_attr.c): C reads the
 * box's address, a pointer to the value, as from MPICH; Fortran and the callbacks the value. */
void *abi_attr_box(ptrdiff_t value);
int abi_attr_unbox(const void *p, ptrdiff_t *value);   /* 1 when p is a box */
/* Statuses */
int abi_status_ignored(const abi_status *s);
void abi_status_out(const abi_pstatus *p, abi_status *s);
void abi_status_in(const abi_status *s, abi_pstatus *p);
/* MPI_Type_match_size's answer as an MPICH handle: typeclass is MPICH's MPI_TYPECLASS_*. */
int abi_match_size(int typeclass, int size);

/* Binding to psim: name -> address of the pointer to fill (abi_calls.c's table). */
typedef struct abi_bind { const char *name; void *slot; } abi_bind;
extern const abi_bind abi_binds[];
/* psim's psim_abi_exit (emu_abi.c), for abi_exit.c */
extern void (*abi_psim_exit)(int status, int underscore);
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
extern int (*abi_psim_getopt)(int kind, int argc, char *const *argv, const char *opts,
                              const struct option *longopts, int *longind);
/* Stops the run: the program called an MPI function psim does not implement. */
void abi_missing(const char *name) __attribute__((noreturn));

#endif
