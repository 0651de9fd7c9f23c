/* One-sided communication's internals, shared by rt_win.c (windows, their synchronisation,
 * the transfers) and rt_win_ops.c (the operations: Put, Get, the accumulates and their
 * request-based forms). Nothing else includes this. */
#ifndef PSIM_RT_WIN_INTERNAL_H
#define PSIM_RT_WIN_INTERNAL_H

#include "emul/rt/rt.h"

enum { HELD_NONE = 0, HELD_SHARED = 1, HELD_EXCL = 2 };

typedef struct rma_op rma_op;
typedef struct lock_wait { int origin, target, type, remote; } lock_wait;

/* memory a rank attached to a dynamic window */
typedef struct win_region { char *base; MPI_Aint size; } win_region;
typedef VEC(win_region) win_regions;

/* The info hints MPI defines for windows (MPI 4.0, 12.2.1 and 12.2.7). psim uses none of them
 * to go faster (its RMA is exact whatever the program promises), but it keeps what each rank
 * gave, valid values only, so that MPI_Win_get_info returns it: an empty value is the default.
 * alloc_shared_noncontig does change MPI_Win_allocate_shared's layout. */
enum { H_NO_LOCKS, H_ACC_ORDERING, H_ACC_OPS, H_SAME_SIZE, H_SAME_DISP, H_NONCONTIG, NHINTS };
typedef struct win_hints { char v[NHINTS][24]; } win_hints;

struct rt_win {
  int handle;
  rt_comm *comm;             /* a private copy of the creation communicator */
  int n, flavor, refs;
  void **base;
  MPI_Aint *size;
  int *disp;
  int *own_mem;              /* MPI_Win_allocate: the window owns base[r] */
  win_regions *attached;     /* MPI_Win_create_dynamic: per rank, the memory attached */
  VEC(void *) segs;          /* MPI_Win_allocate_shared: the memory the window owns */
  win_hints *hints;          /* per rank: the info hints it gave (MPI_Win_set_info...) */
  char name[MPI_MAX_OBJECT_NAME];
  /* per origin: operations not yet arrived, in total and per target (n x n) */
  int *pending, *pending_to;
  int *waiting;              /* blocked in one of this window's waits (wake on news) */
  /* locks, per target: holder of the exclusive lock (-1), number of shared holders, queue */
  int *excl, *nshared;
  VEC(lock_wait) queue;
  unsigned char *held;       /* n x n: what origin o holds on target t */
  int *granted;              /* per origin: its pending lock request was granted */
  int *fence_open, *lock_all;
  /* PSCW: posts origin o has received from target t (n x n); access and exposure groups */
  int *posted;
  int **acc, *nacc;
  int **exp, *nexp, *ndone;
  rma_op *live;
  int dead;                  /* freed by every rank; destroyed once nothing is in flight */
};

/* rt_win.c, for rt_win_ops.c */
/* Common entry of an operation: the window, the caller (*me), checks (rank, epoch, sizes). */
rt_win *rtw_op_begin(const char *call, MPI_Win h, int t, int ocount, MPI_Datatype odt, int tcount,
                     MPI_Datatype tdt, int *me);
/* The target's address of an access of count x dt at disp, checked against its window. */
char *rtw_target_addr(rt_win *win, int t, MPI_Aint disp, int count, MPI_Datatype dt, const char *call);
/* An operation of `out` bytes to target t, with a reply of `back` bytes (< 0: none); req
 * (MPI_Rput...; else NULL) completes when it arrives. */
void rtw_data_op(rt_win *win, int me, int t, double out, double back, emu_req *req);

#endif
