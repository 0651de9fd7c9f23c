/* Internals of the replay driver, shared by its files:
 *   replay.c        options, the run (set-up, results, deadlock report)
 *   replay_rank.c   rank stepping: actions -> operations (one function per kind, resumed at
 *                   their op_step), time accounting (replay_rank_*)
 *   replay_vp.c     over-decomposition: VPs on PEs, balancing steps (replay_vp_*)
 *   replay_mutex.c  SMPI's mailbox mutexes under smpi/async-small-thresh (replay_mtx_*)
 * (replay_dyn.c and replay_common.c serve psim run too: they use only include/psim/replay.h) */
#ifndef PSIM_REPLAY_INTERNAL_H
#define PSIM_REPLAY_INTERNAL_H

#include "psim/mpi_layer.h"
#include "psim/replay.h"

typedef enum {
  R_SEND, R_ISEND, R_RECV, R_IRECV, R_WAITALL, R_WAIT, R_COMPUTE, R_SLEEP,
  R_ISEND_KEEP, R_IRECV_KEEP, R_WAIT_KEY, R_TEST_KEY, R_WAITALL_KEEP,
  R_MIGRATE,   /* only with replay_opts.vp: a possible balancing step */
} rop_kind;

typedef struct rop {
  /* 16 bytes an op, not 24 (issue 38: a rank holds its collective's program while it waits
   * in it): kind, context and peer share a word. peer: a send's or receive's rank, 0..np-1
   * (np is at most 2^24) or MPI_L_ANY in a collective's program. */
  unsigned kind : 4, ctx : 1;
  signed peer : 27;
  int32_t tag;
  union {
    /* a send's, receive's or migrate's bytes; a computation's flops or a sleep's seconds */
    double bytes, amount;
    struct { int32_t src, dst; } key;   /* R_WAIT_KEY, R_TEST_KEY: the trace's key (any ints) */
    int32_t widx;   /* R_WAIT in a collective's program: the index of its request (preqs) */
  };
} rop;
_Static_assert(R_MIGRATE < 16, "rop.kind has 4 bits");
_Static_assert(sizeof(rop) == 16, "rop is 16 bytes");

/* A rank inside a waitall or a collective (issue 38: only those ranks hold it; it was ~50
 * bytes of every rank's state, and a collective's request list stayed allocated after it):
 * one block, allocated when the rank enters a collective's program (translate, with room for
 * the requests it starts) or a trace's waitall, freed when it leaves it. Its parts:
 *  - the requests started by the current program, in order (preqs[0..pwaited) already
 *    waited for);
 *  - the waitall in progress (waitall_round): its wait group's counter (mpi_req_join), how
 *    many of its requests are not complete, and a min-heap of the indices of those complete
 *    but not yet taken (heap, room for hcap: as many as the waitall has requests), so that a
 *    round costs O(log n), not a pass over the n requests. */
typedef struct rank_wait {
  int npreqs, cappreqs, pwaited;
  int wpend, nwdone, hcap;
  mpi_req *preqs[];               /* cappreqs of them, then the heap's hcap ints */
} rank_wait;

static inline int *rank_wait_heap(rank_wait *w) { return (int *)(void *)(w->preqs + w->cappreqs); }

/* RK_QUEUED: a VP ready to run but waiting for its PE; RK_STEP: at a balancing step. */
typedef enum { RK_READY, RK_BLOCKED, RK_DONE, RK_QUEUED, RK_STEP } rank_state;

/* What a rank's time is spent on (accounting, see replay_rank_account):
 * PH_MPI: inside an MPI call (communicating while busy with its own messages, else waiting);
 * PH_COMPUTE: compute, sleep, the local part of a reduction; PH_PE: a VP ready but waiting
 * for its PE; PH_LB: a VP at a balancing step. */
enum { PH_MPI, PH_COMPUTE, PH_PE, PH_LB, PH_MOVE };  /* PH_MOVE: --host-events, moving */

/* Where a rank stands in its current operation (rank.step). Each operation begins at
 * STEP_START; an operation that stops (its rank blocks, or gives up its turn as SMPI's actors
 * do at each simcall) records the step it resumes at, and each step's comment says what the
 * rank waits for there. The order of these steps is SMPI's order of simcalls and sleeps:
 * it decides which rank runs first at a date, and so the results. */
typedef enum {
  STEP_START,       /* not begun (a receive may be queued here for its mailbox mutex) */
  STEP_BUSY,        /* compute, sleep: for its computation or sleep to end */
  STEP_LOCK,        /* send: for its os/ois overhead to end; then takes the receiver's mailbox
                       mutex (smpi/async-small-thresh), queued until it is handed over */
  STEP_POST,        /* send, receive: for the turns of the lock's and the probes' simcalls;
                       then posts (the send or receive starts in that turn) */
  STEP_WAIT,        /* blocking send or receive, wait: for its request to complete */
  STEP_ROUND,       /* waitall: its first round done; for a request to complete, or for the
                       turn it gave up after taking one (then the next round) */
  STEP_TEST_ASK,    /* test: for its injected sleep (smpi/test) to end; then yields a turn */
  STEP_TEST_LOOK,   /* test: for that turn; then looks whether its request completed */
  STEP_TEST_RESET,  /* test: for smpi/or of the message it took; then resets the test count */
  STEP_BALANCED,    /* migrate (VP mode): for the balancing step to end */
} op_step;

/* What only some replays use (issue 38: a rank's state is part of its memory): psim lb's VPs
 * and --host-events' moves. replay.cold holds one per rank in those replays only (NULL in the
 * others); replay_cold gives a rank's. */
typedef struct rank_cold {
  double iter_mark;               /* VP mode: st.compute at its previous migrate */
  double move_start, move_bytes;
  double mem;                     /* bytes of its last `migrate SIZE` (-1: none yet) */
  int migrates;                   /* VP mode: migrate points reached */
  int qnext;                      /* VP mode: next VP in its PE's ready queue */
  int ev_next;                    /* --host-events: the next event it has not applied */
  int move_ev, move_to;           /* the event its move belongs to, its destination */
  uint8_t wait_comm;              /* VP mode: blocked in communication, without its PE */
  double pe_wait, lb, move;       /* rank_stats' (VP mode; --host-events) */
} rank_cold;

/* A rank's figures while it runs: rank_stats but its host (the rank's), blocked (known at the
 * end), finish (its acct_mark once done: the date it ended) and the times of rank_cold;
 * replay_rank_stats puts them together. */
typedef struct rank_figs {
  double compute, comm, wait;
  uint64_t actions, msgs_sent, msgs_recv;
  double bytes_sent, bytes_recv;
} rank_figs;

/* The replay's collective program buffer (replay.prog) is kept between collectives up to this
 * many ops (128 KiB), freed after a longer one. */
#define REPLAY_PROG_KEEP 4096

typedef struct rank {
  /* Fields grouped by size, without holes (issue 38: a rank's state is part of its memory;
   * what only psim lb and --host-events use is in rank_cold). */
  rank_figs st;
  /* room for one op: most actions are one (a send, a receive, a wait, a computation); the
   * others get a block (a collective's program at its length) */
  rop inline_ops[1];
  rop *ops;
  mpi_req *cur;                   /* request a blocking op waits for */
  /* The pending trace requests, in posting order; a trace's waitall waits on this array as
   * it is. A request's key (src, dst, tag) is in its mpi_req.user (pend_key); an entry a
   * test completed holds its key instead of a request, marked by its low bit (PEND_MARK):
   * 8 bytes an entry, not 16 (issue 38). */
  mpi_req **pend;
  rank_wait *w;                   /* inside a waitall or a collective, else NULL */
  char *text;                     /* copy of the action text once it stops mid-action */
  /* The action in progress, what is read of it once translated: its text (borrowed from the
   * reader until kept in text), kind, file and line. The whole tit_action is kept only for
   * the observers (replay.acts), which are given it when it ends. */
  const char *act_text;
  const char *act_file;
  long act_line;
  double or_due;                  /* smpi/or of the messages its waits took, still to pay */
  double acct_mark;               /* date up to which st's times are accounted */
  double busy_mark;               /* mpi_rank_busy_time at acct_mark (PH_MPI only) */
  int id;                         /* its host: replay.rank_host[id] (replay_host) */
  int pc, nops;
  int nwaiting;                   /* requests it is blocked on that are not done */
  int npend;
  int text_cap;
  int act_text_len;               /* the kept text's too */
  uint8_t act_kind;               /* tit_kind */
  uint8_t state, step, has_action, at_end;   /* step: op_step of ops[pc] */
  uint8_t posted;                 /* the op just executed posted a send or a receive */
  uint8_t yields;                 /* turns it still gives up before going on (SMPI simcalls) */
  uint8_t phase;                  /* PH_*: what the time since acct_mark is spent on */
  uint8_t in_ovh;                 /* sleeping an overhead, smpi/os or smpi/or (counted as busy) */
  uint8_t inner;                  /* PH_COMPUTE inside an MPI call (a reduction's computation) */
  uint8_t text_copied;
} rank;

typedef struct replay {
  const replay_opts *o;
  tit_source *src;
  sim *sim;
  models *models;
  mpi_world *world;
  /* The ranks run here (issue 38, part 2: over K processes each holds its own ranks' state,
   * not every rank's): nlocal of them, in rank order; rank id's is ranks[lidx[id]] (-1: run
   * by another process), ranks[id] when lidx is NULL (one process: every rank). */
  rank *ranks;
  int *lidx;
  int nlocal;
  rank_cold *cold;                /* psim lb and --host-events only (rank_cold), else NULL */
  tit_action *acts;               /* per rank the whole action in progress, for observers only */
  /* per rank, with --actions or observers only (else NULL): when its action in progress
   * began, and when the overhead it is sleeping began (observers) */
  struct rank_dates { double act_start, ovh_start; } *dates;
  int *rank_host;
  int np;
  double test_count;              /* SMPI's process-wide count of injected test sleeps */
  int failed;
  psim_err *err;
  uint64_t actions;
  coll_prog prog;
  /* over-decomposition (o->vp != NULL): per PE the running VP (-1: idle) and a FIFO ring of
   * ready VPs; the balancing step in progress */
  const replay_vp *vp;
  int *pe_running, *pe_qhead, *pe_qtail;  /* queues linked through rank.qnext, -1 = none */
  int at_step, ndone, nsteps, migrating;
  double *step_loads, *step_bytes, *load_mark;
  int *new_pe;
  int force_step;                 /* VP mode: --pe-events force a step at this migrate (0: none) */
  int max_migrates;               /* VP mode: the most migrates any VP reached */
  int pe_ev_next;                 /* VP mode: the next PE event not applied */
  int step_ev;                    /* VP mode: the last event the current step applied, -1 */
  double mig_start;               /* VP mode: when the step's migrations started */
  /* dynamic efficiency and --host-events (replay_dyn.c) */
  dyn_track *dyn;
  int *maps;                      /* dyn_events_maps of o->host_events (plain replay) */
  /* SMPI's mailbox mutexes under smpi/async-small-thresh (replay_mutex.c; NULL otherwise):
   * per receiving rank its owner and FIFO of queued ranks (linked through mtx_next); per rank
   * the mutex it holds and the turns left before it unlocks */
  int *mtx_owner, *mtx_head, *mtx_tail, *mtx_next, *mtx_held;
  uint8_t *mtx_left;
  /* spread over processes (o->par; replay_par.c): the process of each rank, the lookahead,
   * the messages posted for each process since the last window, the window's end event */
  const replay_par *par;
  int *proc_of;
  double lookahead;
  VEC(mpi_wire) *outbox;
  double last;                    /* the date of the last rank step or wake here */
  int par_stopped;                /* a process failed: all stopped at a window's end */
  int par_done;                   /* the processes agreed that the run ended (or stopped) */
  uint64_t windows;
} replay;

/* An entry of rank.pend that holds a key (its request completed by a test) has its low bit
 * set: requests are aligned, so theirs is 0. */
enum { PEND_MARK = 1 };
/* Entry i of k's pending trace requests: its request, or NULL when a test completed it. */
static inline mpi_req *replay_pend_req(const rank *k, int i) {
  return (uintptr_t)k->pend[i] & PEND_MARK ? NULL : k->pend[i];
}

static inline rank *replay_rank_at(const replay *R, int id) { return &R->ranks[R->lidx ? R->lidx[id] : id]; }

static inline int replay_host(const replay *R, const rank *k) { return R->rank_host[k->id]; }

static inline rank_cold *replay_cold(const replay *R, const rank *k) { return &R->cold[k->id]; }

/* ---- replay_rank.c ---- */
void replay_rank_init(replay *R, rank *k, int id);
void replay_rank_free(rank *k);
/* Rank i's figures as the results give them (blocked 0). */
rank_stats replay_rank_stats(const replay *R, int i);
/* sim_run's callback: runs rank id until it blocks or ends. */
void replay_rank_run(void *ctx, int id);
/* The MPI layer's completion callback. */
void replay_rank_req_done(void *ctx, mpi_req *q);
void replay_rank_fail(replay *R);
/* Accounts rank k's time from its acct_mark to now to its current phase, then enters phase. */
void replay_rank_account(replay *R, rank *k, int phase);
/* Rank k, blocked, can go on: it runs in its turn. */
void replay_rank_wake(replay *R, rank *k);
/* Blocks rank k (not at the end of a trace) for reason phase (PH_*). */
void replay_rank_block(replay *R, rank *k, int phase);

/* Plain replay with --host-events: applies the events due for rank k (at an action boundary)
 * and starts its move when its host changes. Returns 1 when the rank blocked for it. */
int replay_rank_move(replay *R, rank *k);

/* ---- replay_mutex.c ---- */
void replay_mtx_init(replay *R);
void replay_mtx_free(replay *R);
/* Rank k posts to receiver p: 1 when it takes p's mailbox mutex, 2 when it was handed it
 * (it had queued: woken holding it), 0 when it queues for it (blocked). Always 1 without the
 * mutexes. */
int replay_mtx_take(replay *R, rank *k, int p);
/* Yields until turn `post` of the post's simcalls (1 = the lock's); 1 if it yielded. */
int replay_mtx_wait_post(replay *R, rank *k, int taken, int post);
/* k holds the mutex for `turns` more simcalls (its post's and the unlock): it unlocks, and the
 * next queued rank runs, after them. */
void replay_mtx_hold(replay *R, rank *k, int turns);
/* The engine ran id np + k: a turn of k's unlock countdown. */
void replay_mtx_token(replay *R, int k);

/* ---- replay_par.c ---- */
/* Checks the options, places the ranks' hosts on the processes, computes the lookahead and
 * splits the world. Returns 0, or -1 with R->err. */
int replay_par_init(replay *R);
/* Agrees on the first window and schedules its end (before sim_run). */
void replay_par_start(replay *R);
/* After sim_run: settles the busy times, gathers the ranks' figures, totals and a deadlock's
 * report to process 0. Returns 0, or -1 with R->err (a failure, code 3 for a deadlock). */
int replay_par_finish(replay *R, replay_result *res);
void replay_par_free(replay *R);
static inline int replay_local(const replay *R, int rank) { return !R->par || R->proc_of[rank] == R->par->me; }

/* ---- replay.c ---- */
/* One line per rank of this process that did not finish (see replay.c); *n = their number. */
char *replay_unfinished_lines(replay *R, const char *verb, int *n);

/* ---- replay_vp.c ---- */
void replay_vp_init(replay *R);
void replay_vp_free(replay *R);
/* VP k wants its PE: it runs now if the PE is idle, else waits its turn (PH_PE). */
void replay_vp_acquire(replay *R, rank *k);
/* VP k leaves its PE (blocked in communication, at a step, or finished). */
void replay_vp_release(replay *R, rank *k);
/* Executes a R_MIGRATE operation. Returns 1 when VP k blocks at a balancing step. */
int replay_vp_migrate(replay *R, rank *k, const rop *op);
/* VP k ended its trace. */
void replay_vp_rank_done(replay *R, rank *k);
/* After the run: migrate points on only some VPs are bad input (fails R). */
void replay_vp_final_checks(replay *R);

#endif
