/* Execution-driven simulation, internal interface between the driver (src/emul/emu_*.c, part
 * of psimcore) and the MPI runtime (src/emul/rt/, libpsimmpi) that user programs call.
 *
 * Each rank is a coroutine (a fiber) with its own stack; exactly one runs at a time, chosen by
 * the kernel's ready queue. A rank runs user code until it enters an MPI call that must wait;
 * it then blocks (switches back to the scheduler) and is made ready again by the completion
 * (MPI layer on_done, activity end) that unblocks it.
 *
 * The one piece of global mutable state: `emu_current`, the simulation whose rank is running.
 * User code calls MPI_Send() without any context, so the runtime has to find the simulation
 * somewhere; it is set by emu_run for its duration and by nothing else. */
#ifndef PSIM_EMU_H
#define PSIM_EMU_H

#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "psim/coll.h"
#include "psim/emul.h"
#include "psim/mpi_layer.h"

/* ---- fibers (emu_fiber.c) ---- */
typedef struct emu_fiber {
  void *sp;                 /* saved stack pointer (hand-written switch) */
  void *uctx;               /* ucontext_t (portable fallback) */
  char *map;                /* the mapping: guard page, then the stack */
  size_t map_len;
  void (*fn)(void *);
  void *arg;
  const void *asan_stack;   /* AddressSanitizer's view of the stack (when built with ASan) */
  size_t asan_size;
  void *asan_fake;
  void *tsan_fiber;         /* ThreadSanitizer's view of the context (when built with TSan) */
} emu_fiber;

/* The scheduler's own context (the thread that called emu_run). */
typedef struct emu_fiber_host {
  emu_fiber self;
  const void *asan_stack;
  size_t asan_size;
} emu_fiber_host;

int emu_fiber_init(emu_fiber *f, size_t stack_size, void (*fn)(void *), void *arg, psim_err *err);
void emu_fiber_free(emu_fiber *f);
/* Switches from the scheduler into f / from f back to the scheduler. `dying`: f never
 * resumes (its stack may be freed). */
void emu_fiber_enter(emu_fiber_host *h, emu_fiber *f);
void emu_fiber_leave(emu_fiber_host *h, emu_fiber *f, int dying);
/* Must be called first thing in a new fiber (ASan bookkeeping). */
void emu_fiber_started(emu_fiber_host *h, emu_fiber *f);
int emu_fiber_in_guard(const emu_fiber *f, const void *addr);
const char *emu_fiber_method(void);

/* ---- program loading (emu_load.c) ---- */
typedef int (*emu_main_fn)(int, char **);
/* Where a rank's copy of an MPICH-built executable keeps its own getopt variables (copy
 * relocations: the program reads and writes them there, the C library's getopt its own); NULL
 * for each the program does not use, and for psimcc's programs (no copies). */
typedef struct { char **optarg; int *optind, *opterr, *optopt; } emu_getopt_vars;

typedef struct emu_prog {
  int nloaded;
  void **handles;
  emu_main_fn *mains;       /* per rank (all equal with shared globals) */
  emu_getopt_vars *getopt;  /* per copy (MPICH-built executables), or NULL */
  /* per copy: a constructor called MPI_Init or MPI_Init_thread as the copy was loaded (1 +
   * the thread level it got), done at the rank's start (rt_init.c, rt_ctor_init) */
  int *ctor_init;
  int thread_level;         /* emu_opts.thread_level, for MPI_Init_thread from a constructor */
  /* An MPICH-built program whose constructors communicate (OpenCoarrays' runtime): each rank
   * loads its own copy at its start, on its own stack (emu_sched.c, rank_main), so that they
   * run inside the simulation; then this is the loader's state and `dir` its directory (both
   * freed at unload), and handles/mains are filled as ranks start. NULL otherwise. */
  struct emu_abi *abi_in_rank;
  char *dir;
} emu_prog;
/* The copy of the program rank `rank` runs (one per rank, or one for all with shared globals). */
static inline int emu_copy_of(const emu_prog *p, int rank) { return p->nloaded > 1 ? rank : 0; }
/* The program (and copy) emu_prog_load is loading: its constructors run then. */
extern emu_prog *emu_loading_prog;
extern int emu_loading_copy;
/* src/emul/rt/rt_init.c: a constructor's MPI_Init, made at the rank's start */
void rt_ctor_init(int how);
/* privatize_libs: --privatize-libs (a program built by MPICH's mpicc: emu_abi.c), or NULL;
 * thread_level: emu_opts.thread_level (MPI_Init_thread from a constructor) */
int emu_prog_load(emu_prog *p, const char *path, int nranks, int shared_globals,
                  const char *privatize_libs, int thread_level, psim_err *err);
void emu_prog_unload(emu_prog *p);
int emu_read_file(const char *path, const char *what, char **data, size_t *len, psim_err *err);

/* ---- requests ---- */
typedef struct emu_req emu_req;
struct emu_req {
  mpi_req *q;
  int owner;                /* world rank that posted it */
  uint8_t is_send, done, waited, orphan, copied, owned;
  uint8_t io;               /* a disk I/O (emu_io.c): freed while under way, it ends first */
  /* send payload (packed bytes) until it is matched */
  const void *data;
  size_t len;
  /* receive landing zone for the packed bytes */
  void *rbuf;
  size_t rcap;
  /* status once done (receives): world source, tag, bytes received */
  int src, tag;
  size_t got;
  int truncated;
  emu_req *next_free;
};

typedef enum { EK_NEW, EK_READY, EK_BLOCKED, EK_DONE } emu_rank_state;

/* An exit handler of a rank: atexit's (fn0) or __cxa_atexit's (fn, arg). */
typedef struct emu_atexit { void (*fn)(void *); void (*fn0)(void); void *arg; } emu_atexit;

#define EMU_NSIGS 5   /* the crash signals psim reports (emu_signal.c) */
typedef struct emu_rank {
  /* Heap blocks the rank holds while it is blocked inside a call (a collective's program and
   * its request arrays, emu_hold): freed by the run's teardown if the run stops while the
   * rank is blocked there (another rank's error), else by their owner, which releases them. */
  void *held[4];
  /* the handlers the rank set for the crash signals (rt_signal.c): its view only, psim's own
   * handler stays the process's (emu_signal.c) */
  struct sigaction sig_acts[EMU_NSIGS];
  int id, host;
  uint8_t state, finalized, initialized, probing;
  uint8_t polling;          /* blocked after unsuccessful tests/iprobes (emu_poll_failed) */
  uint8_t poll_failed;      /* the current MPI call is a poll that failed */
  int poll_streak;          /* failed polls since the rank last did something else */
  /* livelocks (emu_spin.c): spinning while spin_epoch is the run's; its last quiet failed
   * poll was the spin_at-th of the run's quiet streak spin_streak; the call of its last
   * failed poll */
  unsigned spin_epoch, spin_streak;
  uint64_t spin_at;
  const char *spin_call;
  int depth;                /* nesting of MPI calls (only the outermost accounts CPU time) */
  uint64_t calls;           /* its outermost MPI calls so far */
  int nwait;                /* completions still needed to unblock */
  emu_fiber fib;
  double cpu_mark;          /* thread CPU time when user code resumed */
  struct emu_written *written; /* its recent send buffers (emu_written.c), or NULL */
  double cpu_own;           /* CPU seconds of its own code in the bursts ended so far (emu_rank_cpu) */
  double carry;             /* measured CPU seconds not charged yet: bursts under --cpu-threshold
                               add up here until they pass it (emu_carry_add) */
  double work;              /* CPU seconds of the MPI runtime's own work for it, not charged yet */
  double combine_rate;      /* seconds a byte of the reduction under way takes (0: not measured) */
  /* the last collective call's arguments on MPI_COMM_WORLD, for the observers (rt_coll.c sets
   * them, emu_observe_action reports them with the call): tit_action's meanings */
  struct { int set, kind, root, n; double bytes, bytes2, amount, *counts, *counts2; } oc;
  double work_overlap;      /* of that work, packing that overlaps the messages under way, charged
                               at the rank's next wait (emu_work_pipeline) */
  int work_depth;           /* nesting of emu_work_begin (only the outermost measures) */
  /* accounting of the current MPI call: its start; time and busy time (mpi_rank_busy_time)
   * spent computing inside it; busy time at its start; date and busy time of its last block */
  double call_start, call_compute, call_busy_compute, call_busy0, block_t, block_busy;
  double idle_from, idle_to; /* the rank's last wait for messages (emu_wait): it was idle then,
                                not computing (a computation blocks the rank too) */
  double mono_mark;         /* CLOCK_MONOTONIC then (emu_mark, emu_burst) */
  /* what it is doing, for deadlock and error reports */
  const char *call;
  int call_peer, call_tag, call_comm;
  const char *file;
  int line;
  int probe_src, probe_tag, probe_ctx;
  int exit_code;
  const char *exit_fn;      /* "exit" or "_exit" when it ended by that call */
  char **argv;              /* given to main: the program may rearrange it */
  char **argv_mem;          /* the strings as psim allocated them (freed at the end) */
  int argc;
  /* the C library's getopt state (optind, opterr, optopt, optarg) while the rank is off: one
   * state per process, but each rank parses its own command line (emu_sched.c, rank_run) */
  int go_ind, go_err, go_opt;
  char *go_arg;
  int loading;              /* loading its own copy (emu_sched.c, load_own_copy): not computing */
  int in_main;              /* running its main (or its exit handlers): see emu_rank_atexit */
  struct emu_atexit *atexits;   /* the exit handlers its main registered, in order */
  size_t natexits, catexits;
  void *rt;                 /* the MPI runtime's per-rank state (one malloc'ed block, freed by emu_run) */
  void *sample;             /* PSIM_SAMPLE sites */
  int trace_off;            /* > 0: inside a recorded collective, its parts are not recorded */
  double task_mark;         /* CPU time when the current PSIM_TASK block started */
  double heap;              /* live heap bytes the program allocated on this rank */
  int ev_next;              /* --host-events: the next event it has not applied */
  /* --threads (emu_par.c): 1 while the rank runs its own code on its worker without the
   * kernel's turn (it must wait for it at its next MPI call); the CPU seconds of its burst so
   * far, measured before it waited for its turn in the middle of a burst (emu_par_own) */
  uint8_t par_u;
  double burst_acc;
  /* lookahead (emu_par.c): the date the rank went back to its own code, its worker's CPU clock
   * then, the CPU seconds of its burst the simulation already counted on (its next
   * computation is at least that), and the simulated seconds of that computation that passed
   * before its turn came (the computation starts that much in the past) */
  double par_since, par_cpu0, par_promised, par_lag;
  double par_burst;         /* its burst, measured as it stopped to wait for its turn */
  rank_stats st;
} emu_rank;

/* ---- per-rank copies of the OpenMP runtime's thread-local state (emu_tls.c) ---- */
#define EMU_TLS_MAX 4
typedef struct {
  int nblocks;
  struct { void *addr; size_t size; } blocks[EMU_TLS_MAX];   /* in psim's thread */
  size_t total;
  unsigned char *copies;    /* np x total: each rank's state */
  unsigned char *host;      /* the thread's own (before and after the simulation) */
  int owner;                /* whose state the thread holds: a rank, or -1 its own */
} emu_tls;
void emu_tls_init(emu_tls *t, int np);     /* after the program is loaded */
void emu_tls_switch(emu_tls *t, int rank); /* before rank runs (-1: the thread's own) */
void emu_tls_free(emu_tls *t);

struct emu_sim {
  const emu_opts *o;
  sim *sim;
  models *models;
  mpi_world *world;
  emu_rank *ranks;
  int *rank_host;
  int np;
  emu_rank *running;        /* the rank whose MPI call the kernel serves (see emu_running) */
  pthread_t thread;         /* the thread that called emu_run */
  struct emu_par *par;      /* --threads: the workers (emu_par.c), or NULL: one thread */
  emu_fiber_host host;
  emu_prog prog;
  emu_tls tls;              /* the OpenMP runtime's thread-local state, per rank */
  emu_req *free_reqs;
  VEC(emu_req *) all_reqs;
  double test_count;        /* SMPI's process-wide count of injected test sleeps */
  double testany_count;     /* same for MPI_Testany (SMPI keeps one of its own) */
  double iprobe_count;      /* same for iprobe */
  double cpu_cost, mono_cost;   /* what reading each clock costs (subtracted from bursts) */
  double cpu_ref, mono_ref;     /* the last CPU clock reading, and CLOCK_MONOTONIC then (emu_mark) */
  int npolling;             /* ranks blocked in emu_poll_failed */
  uint64_t polls;           /* unsuccessful polls so far (to tell progress from spinning) */
  struct {                  /* livelocks (emu_spin.c) */
    unsigned epoch;         /* moves with the MPI world (messages, successful polls) */
    unsigned streak;        /* the current streak of quiet failed polls */
    uint64_t msgs;          /* the world's message count at the last look */
    uint64_t quiet;         /* quiet failed polls in the streak */
    size_t nact;            /* sleeps and computations of spinning ranks under way */
    double since;           /* date of the streak's first quiet poll */
    int found;              /* the run stopped on a livelock */
  } spin;
  int failed, nfinished;
  int exit_status;          /* PSIM_EXIT_APP etc. when a rank failed */
  psim_err *err;
  uint64_t calls;
  int wtime_warned;         /* the warning of MPI_Wtime's long streaks was given (rt_init.c) */
  int io_warned;            /* the warning of I/O on a host without a disk was given (emu_io.c) */
  void *rt;                 /* the MPI runtime's shared state (communicators, types...) */
  void (*rt_free)(void *rt);
  struct emu_tracer *tit;   /* recording (--trace-tit), or NULL */
  struct emu_tasks *tasks;  /* PSIM_TASK costs (--measure-tasks / --task-costs), or NULL */
  struct emu_sites *sites;  /* call sites of a precompiled program's MPI calls (emu_site.c), or NULL */
  dyn_track *dyn;           /* dynamic efficiency (emu_dyn.c) */
  int *maps;                /* --host-events: dyn_events_maps, or NULL */
  struct {                  /* the watchdog (emu_watch.c) */
    uint64_t beat;          /* moved at each MPI call's entry and exit (atomic, relaxed) */
    int in_user;            /* a rank runs its own code */
    int rank;               /* which, since simulated time sim_time */
    double sim_time;
    int running;
    int tid;                /* the thread that runs the ranks */
    pthread_t thread;
  } watch;
};

extern emu_sim *emu_current;
/* The rank this OS thread runs (NULL: none: psim's own code, or a thread the program
 * started). With one thread it is S->running while a rank runs; under --threads each worker
 * runs ranks of its own at once, and S->running is only the rank whose MPI call the kernel
 * serves. Code reachable from a rank's own code between MPI calls (the C library calls psim
 * takes over, psim_at, crash reports) asks this. */
extern __thread emu_rank *emu_me_tl;
static inline emu_rank *emu_running(void) { return emu_me_tl; }

/* ---- data written since they last moved (emu_written.c, network/written-*) ---- */
/* Rank k sends len bytes from data: 1 when they differ from its last send from that buffer
 * (or a receive landed in it since, or it is new), 0 when they are the same bytes at rest. */
int emu_send_written(emu_rank *k, const void *data, size_t len);
void emu_recv_landed(emu_rank *k, const void *buf);   /* a receive wrote into buf */
void emu_written_free(emu_rank *k);

/* ---- --threads (emu_par.c): the ranks' own code on several OS threads ---- */
/* Before the run (program loaded): starts the workers when o->threads > 1 and the program
 * can run so, else says why not (stderr) and leaves S->par NULL. */
void emu_par_start(emu_sim *S);
/* After sim_run: waits for the ranks still in their own code (a failed run), restores stdio,
 * stops the workers. */
void emu_par_stop(emu_sim *S);
/* Runs fn(arg) (sim_run and what follows it) as the engine, on whichever thread is free, the
 * main thread serving its ranks meanwhile; returns once fn has returned. */
void emu_par_engine(emu_sim *S, void (*fn)(void *), void *arg);
/* The kernel's turn for rank k (ready): resumes it on its worker, returns when it gives the
 * turn back (it blocked, yielded, ended, or went back to its own code). On the engine's stack. */
void emu_par_grant(emu_sim *S, emu_rank *k);
/* The running rank k goes back to its own code: the kernel's turn goes on to another rank. */
void emu_par_release(emu_rank *k);
/* Rank k, in its own code with the turn (emu_par_own), gives it back and goes on. */
void emu_par_give_back(emu_rank *k);
/* Rank k (k->par_u) needs the kernel's turn (its MPI call, a runtime's shared state): waits
 * for it, its burst so far kept in k->burst_acc when in_burst. */
void emu_par_own(emu_rank *k, int in_burst);
/* rank_run's part under --threads: k's turn when it is ready (not in its own code), then the
 * turns of the ranks in their own code as long as no rank is ready; returns to let simulated
 * time move on (to a date the ranks in their own code cannot change, with lookahead). */
void emu_par_run(emu_sim *S, emu_rank *k, void (*turn_done)(emu_sim *S, emu_rank *k));
/* The context rank k's fiber leaves to: its worker's under --threads, else the scheduler's. */
emu_fiber_host *emu_host_of(emu_sim *S, emu_rank *k);
/* In a rank's turn: the real stdout and stderr flushed (rt_system.c). */
void emu_par_flush(emu_sim *S);
/* The crash report's rank: what it wrote and psim has not yet passed on (emu_signal.c). */
void emu_par_crash_flush(emu_rank *k);

/* Rank k holds p (not NULL) across a blocking call / gives it back (see emu_rank.held). */
static inline void emu_hold(emu_rank *k, void *p) {
  for (int i = 0; i < 4; i++)
    if (!k->held[i]) { k->held[i] = p; return; }
}
static inline void emu_release(emu_rank *k, void *p) {
  for (int i = 0; i < 4; i++)
    if (k->held[i] == p) { k->held[i] = NULL; return; }
}

/* Takes the crash signals back from libgfortran's handlers (emu_signal.c; MPI_Init calls it). */
void emu_signals_reclaim(void);
/* The index of a crash signal psim handles (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), or -1. */
int emu_crash_signal(int sig);

/* ---- the watchdog (emu_watch.c): a rank that never calls MPI again (--compute-limit) ---- */
void emu_watch_start(emu_sim *S);
void emu_watch_stop(emu_sim *S);
/* A rank enters an MPI call (leaves its own code), or returns to its own code. */
static inline void emu_watch_enter(emu_sim *S) {
  __atomic_store_n(&S->watch.in_user, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&S->watch.beat, S->watch.beat + 1, __ATOMIC_RELAXED);
}
static inline void emu_watch_leave(emu_sim *S, int rank, double now) {
  __atomic_store_n(&S->watch.rank, rank, __ATOMIC_RELAXED);
  __atomic_store(&S->watch.sim_time, &now, __ATOMIC_RELAXED);
  __atomic_store_n(&S->watch.beat, S->watch.beat + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&S->watch.in_user, 1, __ATOMIC_RELAXED);
}

/* An MPI call made when no simulation runs: before it (a constructor of the program, run as
 * it is loaded: OpenCoarrays' asks MPI_Query_thread there) or after it (the program's exit
 * handlers or its libraries' destructors, which psim runs at its own exit: HDF5's library close
 * frees its communicators there). psim says which and ends the process (after the run, with
 * the status it was exiting with) rather than reach into a simulation that is not there.
 * emu_runs_ended: simulations ended in this process (MPI is finalized once one has). */
extern int emu_runs_ended;
void emu_after_run(void) __attribute__((noreturn, cold));
/* MPI called from a thread the program started: psim runs every rank in one thread, its
 * own; stops the process with a message (emu_sched.c). */
void emu_foreign_thread(void) __attribute__((noreturn, cold));
static inline emu_rank *emu_self(void) {
  if (__builtin_expect(!emu_current, 0)) emu_after_run();
  emu_rank *k = emu_me_tl;
  if (__builtin_expect(!k, 0)) emu_foreign_thread();
  /* an MPI call that does not enter the kernel (MPI_Comm_rank...) still reads the runtime's
   * shared state: under --threads it waits for the rank's turn */
  if (__builtin_expect(k->par_u, 0)) emu_par_own(k, 1);
  return k;
}

/* ---- observers (emu_observe.c): emu_opts.observers see the run as a replay's would ---- */
/* A finished call (call = its name) or, with call NULL, a computation of kind k. */
/* Keeps collective call x's arguments (flops: its combining) for the report of the call. */
void emu_observe_coll(emu_rank *k, const coll_call *x, double flops);
void emu_observe_action(emu_sim *S, int rank, const char *call, tit_kind k, double start, double end);
/* ---- call sites of a program psimcc did not build (emu_site.c) ---- */
/* From inside rank's MPI call (on its stack): where the program called it, as FILE and LINE,
 * or as "FUNCTION+0xOFFSET (BINARY)" with line 0 when the binary has no line table. 1, or 0
 * when no frame of the program is found. The strings live until emu_sites_free. */
int emu_site_of_call(emu_sim *S, int rank, const char **file, int *line);
void emu_sites_free(struct emu_sites *s);
void emu_observe_start(emu_sim *S);             /* after the MPI world exists */
void emu_observe_end(emu_sim *S, double time);  /* the run ended at simulated time */

/* ---- calls (emu_sched.c) ---- */
/* Outermost entry into a psim/MPI function: turns the CPU time used since the last call into
 * a computation on the rank's host (and blocks for it). */
void emu_enter(const char *name);
void emu_leave(void);
void emu_block(void);                 /* blocks the running rank until it is woken */
void emu_wake(emu_sim *S, emu_rank *k);
void emu_compute(double flops);       /* blocks for a computation of flops on its host */
void emu_sleep(double seconds);
double emu_now(void);
double emu_cpu_now(void);             /* this thread's CPU time (seconds) */
void emu_mark(emu_rank *k);           /* user code of rank k resumes: start measuring */
double emu_burst(const emu_rank *k);  /* seconds of user code since emu_mark (emu_sched.c) */
/* --threads: the rank stops in mid-burst to wait for its turn (what it measured is kept), then
 * goes on (emu_par_own). */
void emu_burst_pause(emu_rank *k);
void emu_burst_resume(emu_rank *k);
/* Short computations are carried over, not dropped. A burst under --cpu-threshold is not
 * simulated on its own (an event per sub-microsecond burst is what the threshold avoids), but
 * dropping it lost the work of codes that poll between tiny pieces of work: HPCC's
 * RandomAccess, an update between MPI_Testany/MPI_Iprobe calls, was predicted +280 % off
 * (docs/VALIDATION.md; with the threshold at 0, within 5 %). So bursts under the threshold add
 * up in the rank's carry, charged as one computation once it reaches the threshold: adds
 * `seconds` to *carry and returns what to charge now (emptying the carry), else 0. A pure
 * function, inline so that tests/unit/emul/test_carry.c needs no simulation. */
static inline double emu_carry_add(double *carry, double seconds, double threshold) {
  *carry += seconds > 0 ? seconds : 0;
  if (*carry < threshold || !(*carry > 0)) return 0;
  double c = *carry;
  *carry = 0;
  return c;
}
/* Charges the running rank's carry whatever its size (MPI_Finalize: no burst comes after). */
void emu_carry_flush(void);
/* Adds a poll's own cost (CPU seconds) to the running rank's carry (emu_sched.c). */
void emu_poll_cost(double seconds);
/* The MPI runtime's own work for the running rank (packing a non-contiguous datatype, a send
 * to self, a collective's local copy), measured between emu_work_begin and emu_work_end like
 * a burst and charged as its computation (run/charge-copies; emu_sched.c): pending until
 * emu_work_charge (before a send) or the end of the outermost MPI call. */
typedef struct emu_work { double cpu, mono; int on, nested; } emu_work;
void emu_work_begin(emu_work *w);
void emu_work_end(emu_work *w);
/* Ends a measurement as emu_work_end does, but returns its seconds instead of making them the
 * rank's pending work (0 when nothing was measured). */
double emu_work_took(emu_work *w);
/* A packed message of len bytes is about to leave: of the `packed` seconds of the rank's
 * pending work its packing took, the first chunk's share is charged now, the rest (which
 * overlaps the transfer) at the rank's next wait or as its call returns (run/pack-pipeline). */
void emu_work_pipeline(double packed, size_t len);
/* Charges that overlapping packing now (emu_wait, before the rank waits for the messages). */
void emu_work_charge_overlap(void);
/* The seconds of a received message's unpacking (`unpacked`, len bytes) left to charge after
 * its transfer: what the rank's last wait, idle while the message landed, did not hide, and
 * at least the last chunk's share. */
double emu_unpack_overlap(double unpacked, size_t len, double xfer_start, double xfer_end);
/* A collective's CO_COMBINEs: the rank applies the call's operator to `bytes` it received, at
 * the cost per byte measured for this call (emu_rank.combine_rate, rt_coll.c): the flops of
 * that work (0 when not measured), and their charge as one computation. */
double emu_combine_flops(double bytes);
void emu_combine_charge(double flops);
/* Adds a collective call's own cost (run/coll-cost) to the rank's pending work. */
void emu_coll_cost(void);
void emu_work_charge(void);
/* CPU seconds of the running rank's own code so far; -1 if not measured (emu_sched.c). */
double emu_rank_cpu(void);
/* Stops the simulation with an MPI error (like MPI_ERRORS_ARE_FATAL). Does not return. */
void emu_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void emu_abort(int code, const char *hint) __attribute__((noreturn));   /* hint: appended, or NULL */
/* The running rank ends with code: its exit handlers run first (emu_rank_atexit). */
void emu_rank_exit(int code) __attribute__((noreturn));
/* An exit handler registered by the running rank's main: its own, run when it ends (1), or
 * not a rank's (0: the caller gives it to the C library). fn0 for atexit's, else fn(arg). */
int emu_rank_atexit(void (*fn)(void *), void (*fn0)(void), void *arg);
/* The running rank called exit(status) (fn: "exit" or "_exit") from code at `caller`:
 * status 0 ends the rank as returning 0 from main; any other stops the run (exit 4). */
void emu_rank_called_exit(int status, const char *fn, const void *caller) __attribute__((noreturn));

/* ---- dynamic efficiency and --host-events (emu_dyn.c) ---- */
/* Before the run: the tracker and the placement of each event; -1 with err on bad events. */
int emu_dyn_init(emu_sim *S, psim_err *err);
/* Rank k reached an iteration marker (psim_iteration, MPI_Migrate). */
void emu_dyn_marker(emu_rank *k);
/* At the start of an MPI call: rank k moves when an event due sends it to another host
 * (its heap crosses the network; it blocks meanwhile). */
void emu_dyn_boundary(emu_sim *S, emu_rank *k);
/* After the run: fills res->dyn; frees what emu_dyn_init made. */
void emu_dyn_finish(emu_sim *S, replay_result *res);

/* ---- messages (emu_p2p.c) ---- */
emu_req *emu_req_new(void);
/* Releases a request (done or not: an unmatched send lives on until it is received). */
void emu_req_free(emu_req *r);
/* A request with no message under it (a request-based one-sided operation, rt_win.c) is
 * complete: its owner wakes if it waits for it; one the program freed (orphan) is released. */
void emu_req_finish(emu_req *r);
/* Posts a send of len packed bytes to world rank dst. owned: data is malloc'ed and handed
 * over; otherwise it is copied when the send is detached, referenced until matched when not.
 * blocking: MPI_Send's overheads (os) rather than MPI_Isend's (ois). */
emu_req *emu_isend(int dst, int tag, int ctx, const void *data, size_t len, int owned,
                   int flags, int blocking);
emu_req *emu_irecv(int src, int tag, int ctx, void *buf, size_t cap);
/* MPI_Cancel of a receive: 1 when no send had matched it (it is now done, nothing received). */
int emu_cancel_recv(emu_req *r);
/* Blocks until `need` of reqs[0..n) are done (need >= n: all of them); NULL entries ignored. */
void emu_wait(emu_req **reqs, int n, int need);
/* The rank's wait or test returns r (done): pays the smpi/or its message still owes. */
void emu_req_take(emu_req *r);
/* Waits for every request of reqs[0..n) (NULL ones skipped), taking each as it completes. */
void emu_waitall_take(emu_req **reqs, int n);
/* A test, by default (no --cfg smpi/test nor smpi/iprobe): an unsuccessful one makes the rank
 * wait for news (emu_poll_failed). */
void emu_test_poll(int success);
/* With --cfg smpi/test or smpi/iprobe (emu_polls_injected), each test is SMPI's: emu_test_begin
 * sleeps the injected time (count x smpi/test) and yields (SMPI's simcall: the other ranks
 * ready at this date run first), then the caller looks at the request and reports with
 * emu_test_end (success resets the count, failure grows it; a success is reported after the
 * request is completed, its smpi/or paid, as SMPI's finish_wait comes before the reset). any:
 * MPI_Testany's count, which
 * SMPI keeps apart (Request::testany) and grows whatever smpi/grow-injected-times says. */
int emu_polls_injected(void);
void emu_test_begin(int any);
void emu_test_end(int any, int success);
/* The running rank lets every other rank ready at this date run, then goes on. */
void emu_yield(void);
/* The running rank's MPI call keeps its host's CPU busy for `seconds` of its speed (SMPI's
 * injected iprobe time is a computation, shared with the host's other work); time of the
 * call, not computation. */
void emu_cpu_overhead(double seconds);
/* The running rank k's time since t0 (a sleep or a computation of its own MPI call: smpi/os,
 * or, the injected polling time) is the call's, not the program's computation; busy_compute:
 * k->call_busy_compute at t0. */
void emu_call_time_since(emu_rank *k, double t0, double busy_compute);
/* The running rank polled in vain (MPI_Test*, MPI_Iprobe). The first such poll since the rank
 * last did anything else (another MPI call, a computation) returns at once: the rank may have
 * work of its own between polls. The next 64 let the other ranks ready at this date run (no
 * time passes: a sweep of empty flushes over many windows is not a wait); after them the rank
 * is spinning and waits until something could have changed (another rank ran, the
 * simulation's next event). Returns 1 (look again), else 0. */
int emu_poll_failed(void);
/* ---- livelocks (emu_spin.c) ---- */
/* Rank k (running) polled in vain; 1 when that makes the run a livelock (the run is stopped:
 * the caller blocks the rank for good). */
int emu_spin_poll(emu_sim *S, emu_rank *k);
/* Something moved in the MPI world that the message count does not show. */
void emu_spin_progress(emu_sim *S);
/* Rank k's MPI call ended, not as a failed poll. */
void emu_spin_call(emu_sim *S, const emu_rank *k);
int emu_spin_is(const emu_sim *S, const emu_rank *k);
/* Around a sleep or computation of rank k: counted when k is spinning (pass what begin
 * returned to end). */
int emu_spin_act_begin(emu_sim *S, const emu_rank *k);
void emu_spin_act_end(emu_sim *S, int counted);
/* The first line of a livelock's report. */
int emu_spin_header(const emu_sim *S, char *buf, size_t cap);
/* The running rank's call only looked at its own memory (one-sided operations on its own
 * window): like a poll, it does not end a streak of polls. */
void emu_poll_local(void);
/* Something changed outside the MPI layer (one-sided communication): pollers look again. */
void emu_wake_pollers(void);
const mpi_req *emu_iprobe(int src, int tag, int ctx);
const mpi_req *emu_probe(int src, int tag, int ctx);
/* Runs a collective's timing program (no data) among the world ranks of `world_of`. */
/* at_rest: the program did not write the send buffer whose blocks the program's `user` sends
 * carry since they last moved (MPI_F_AT_REST for them) */
void emu_run_prog(const coll_prog *p, const int *world_of, int ctx, int at_rest);
const coll_selector *emu_coll_selector(void);

/* ---- disk I/O (emu_io.c): the time of MPI-IO's reads and writes ---- */
/* Starts a read (write = 0) or write of `bytes` on the running rank's host's disk
 * (models_io); the request is done when it ends (emu_wait, emu_req_free as any other). */
emu_req *emu_io_start(double bytes, int write);
/* The same, blocking until it ends. */
void emu_io(double bytes, int write);

/* ---- sampling and task costs (emu_sample.c) ---- */
void emu_sample_free(emu_rank *k);
int emu_tasks_load(emu_sim *S, psim_err *err);
/* Writes --measure-tasks; returns -1 with err when it cannot. Frees the task table. */
int emu_tasks_finish(emu_sim *S, int write, psim_err *err);
/* PSIM_TASK(name, iterations): 1 when the block must run (and be measured), 0 when its cost
 * was injected from --task-costs. */
int emu_task_enter(const char *name, double iterations);
void emu_task_exit(const char *name, double iterations);

/* ---- recording a TIT trace (emu_trace.c) ---- */
typedef struct emu_tracer emu_tracer;
int emu_trace_open(emu_sim *S, psim_err *err);
int emu_trace_close(emu_sim *S, psim_err *err);
int emu_trace_on(const emu_rank *k);             /* recording, and not inside a collective */
/* Appends "RANK <fmt>" to k's trace (after any pending hole). */
void emu_trace_line(emu_rank *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reserves a line to be filled when its content is known (a receive's actual source and
 * tag); returns its id (0 when not recording). */
long emu_trace_hole(emu_rank *k);
void emu_trace_fill(emu_rank *k, long id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int *emu_trace_npend(emu_rank *k);               /* replay's count of pending requests */
void emu_trace_compute(emu_rank *k, double flops);
void emu_trace_sleep(emu_rank *k, double seconds);
void emu_trace_rma(emu_sim *S);                  /* a one-sided message, left out of the trace */
int emu_trace_dtcode(size_t elem_size);          /* a TIT datatype code of that size */

#endif
