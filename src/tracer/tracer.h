/* libpsimtrace: what the tracer's files share (internal). The tracer is a PMPI library: it
 * defines MPI_* and calls PMPI_*, preloaded into a program of a real MPI (docs/TRACES.md,
 * "Tracing a real run"). One process is one rank, so its state is per process. */
#ifndef PSIM_TRACER_H
#define PSIM_TRACER_H

#include <mpi.h>
#include <stdint.h>

#ifdef TR_REAL_PMPI
#include "tr_real.h"   /* the Open MPI build: the MPI's PMPI_ through pointers */
#endif

/* The calls TIT cannot represent, recorded as `sleep` of their measured time and counted
 * for the warning at MPI_Finalize (X-macro: one counter each). */
#define TR_OPAQUE_CALLS(X) \
  X(MPI_Ibarrier) X(MPI_Ibcast) X(MPI_Ireduce) X(MPI_Iallreduce) X(MPI_Ialltoall) \
  X(MPI_Ialltoallv) X(MPI_Iallgather) X(MPI_Iallgatherv) X(MPI_Igather) X(MPI_Igatherv) \
  X(MPI_Iscatter) X(MPI_Iscatterv) X(MPI_Ireduce_scatter) X(MPI_Alltoallw) \
  X(MPI_Put) X(MPI_Get) X(MPI_Accumulate) X(MPI_Win_fence) X(MPI_Win_lock) X(MPI_Win_unlock) X(MPI_Start) \
  X(MPI_Startall)

enum {
#define TR_ENUM(n) TRC_##n,
  TR_OPAQUE_CALLS(TR_ENUM)
#undef TR_ENUM
  TRC_OTHER_COMM_COLL,   /* a collective on a communicator unlike MPI_COMM_WORLD */
  TRC_OTHER_COMM_P2P,    /* point-to-point on another communicator: ranks translated */
  TRC_UNTRACED_WAIT,     /* waits on requests the trace has no isend/irecv for */
  TRC_N
};

typedef struct tr_state {
  int on;                /* between MPI_Init and MPI_Finalize, and the trace is writable */
  int depth;             /* > 0 inside a wrapper: a nested MPI call is the MPI's own */
  int rank, size;
  double speed;          /* flop/s: measured seconds outside MPI become flops at it */
  double min_compute;    /* seconds: shorter computations are carried to the next one */
  double t_leave;        /* when the last MPI call returned */
  double t_enter;        /* when the current one began */
  double carry;          /* computation (seconds) not yet written */
  double polled;         /* seconds of probes and tests that found nothing, not yet written */
  int polling;           /* the current call is one of those (tr_leave adds its time) */
  double t_start;        /* the end of MPI_Init (after its barrier) */
  double delay0;         /* the thread's time runnable but off a CPU then (< 0: unknown) */
  double own;            /* seconds of the tracer's own work (formatting, writing) so far */
  double own_from;       /* when the current call's own work began, 0 when none yet */
  int npend;             /* requests replay will consider pending (emu_trace.c's npend) */
  uint64_t count[TRC_N];
} tr_state;

extern tr_state tr;

double tr_now(void);
/* Wrapper bracket: tr_enter() returns 0 when the call must not be traced (not initialized,
 * or nested); then the wrapper just calls PMPI. Every tr_enter() that returned 1 is paired
 * with one tr_leave(). */
int tr_enter(void);
void tr_leave(void);
/* An action line "RANK fmt..." in program order (the pending computation first). */
void tr_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line reserved now and written later (an irecv's source and tag are known only when it
 * completes): tr_hole() returns its id, tr_fill() writes it. */
long tr_hole(void);
void tr_fill(long id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The time of the current call as `sleep` (a call TIT cannot represent), counted under c. */
void tr_opaque(int c);
/* The current call (a probe or a test) found nothing: its time, as a sleep before the next
 * line (psim run records the time SMPI gives such calls as `sleep` too). */
void tr_polled(void);

int tr_dtcode(int size);
/* bytes of elements of size esize as "count code" the way emu_trace.c writes them. */
void tr_amount(double bytes, int esize, double *n, int *code);
int tr_type_size(MPI_Datatype dt);
/* comm's rank r as a rank of MPI_COMM_WORLD (r itself on MPI_COMM_WORLD). */
int tr_world_rank(MPI_Comm comm, int r);
/* 1 when comm has MPI_COMM_WORLD's ranks in its order (TIT's collectives are on those). */
int tr_world_shaped(MPI_Comm comm);

/* requests (tr_p2p.c) */
void tr_req_finish(void);   /* at MPI_Finalize: requests never completed */

int tr_open(void);          /* the rank's file; 0 or -1 */
void tr_close(void);        /* flushes, writes the list (rank 0) */
double tr_speed(void);      /* the reference speed (PSIMTRACE_SPEED, _PLATFORM, or measured) */
const char *tr_dir(void);

#endif
