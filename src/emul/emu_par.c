/* `psim run --threads N`: the ranks' own code (the computation between their MPI calls) on N
 * OS threads at once, the simulation itself sequential.
 *
 * Design. The kernel, the models, the MPI layer and psim's MPI runtime stay as they are:
 * sequential code that one rank at a time runs on its own stack, in its MPI calls (a "turn").
 * What runs at once is the ranks' own code between two MPI calls (a burst).
 * - Threads: N of them, the main thread (worker 0) and N - 1 started ones; rank r is pinned to
 *   worker r mod N, for its whole run. A fiber never moves
 *   between OS threads: the C library's errno and the program's own __thread variables
 *   are per thread (a psimcc program is a shared object: its TLS is the thread's dynamic TLS,
 *   one block per rank's copy), and compilers keep TLS addresses across calls, so a rank moved
 *   in the middle of a function would write another thread's. Pinned, a rank always sees its
 *   own; the worker's CPU clock (CLOCK_THREAD_CPUTIME_ID) counts only the ranks it runs, one at
 *   a time, so a burst is measured on its worker as on psim's one thread (emu_sched.c's clocks,
 *   their last reading kept per thread).
 * - The engine: sim_run, its callbacks and the order of turns below, is one more fiber, with a
 *   stack of its own, that whichever thread is free runs (serve): a thread runs its ranks'
 *   turns when the engine hands it one, and the engine when it can go on and nobody runs it.
 *   So a turn costs no thread wake-up when the rank's own thread is the one that runs the
 *   engine, and one handoff when another thread's rank is next; there is no thread beside the
 *   workers to share their cores (with a main thread that only ran the engine, a poll of HPC
 *   Challenge's RandomAccess cost four thread wake-ups and 3 threads shared 2 cores: 137 us a
 *   poll, its bursts measured 2-3x longer). The engine's code is psim's (the kernel, the MPI
 *   layer, the runtime's turns): it keeps no thread-local address across its waits, the only
 *   places it changes thread (eng_wait_locked; par_self is not inlined).
 * - Turns, in a fixed order. The engine runs sim_run as the main thread does with one thread;
 *   serving a ready rank (rank_run) hands it to its worker and waits until the rank gives the
 *   turn back: it blocked (a computation, a message), yielded, ended, or returned from its MPI
 *   call to its own code (emu_leave). In the last case the rank goes on computing on its worker, and joins the
 *   list of ranks in their own code, in the order their turns ended. When no rank is ready at
 *   the current date, the engine serves that list's head: it waits until that rank reaches
 *   its next MPI call (emu_enter measures its burst, then the fiber stops and leaves its worker
 *   free for its other ranks), gives it the turn, and so on; simulated time moves on only once
 *   the list is empty, or, with lookahead (below, "lookahead"; on by default when psim
 *   measures, the ranks have a host each and no CPU model is on), up to the earliest date the
 *   ranks' computations under way cannot affect. Without lookahead (nothing measured, or
 *   --cfg run/lookahead:no) the order of every turn (every change to the simulation) follows
 *   from the simulation alone, whatever N is and however fast each worker is: two runs with
 *   --threads 2 and 3 make the same calls in the same order, and differ only by the measured
 *   bursts; --threads 1 takes this order too, on one worker. With it, turns at different dates
 *   that commute may come in an order that depends on the workers' speed; the simulated
 *   results are those of the date order. On psim's own thread (no --threads) a rank's burst
 *   and its next call come before the next rank's turn; here too when that call may come at
 *   the same date (same_date_first_locked): a rank in its own code goes before a rank made
 *   ready at that date until its burst is long enough to be a computation (with lookahead)
 *   or until its next call (without). So with nothing measured the turns come in psim's own
 *   thread's order; measured, a rank promised a computation lets the others' turns at its
 *   date come before its computation starts there, which commutes with them.
 * - Handoffs are a mutex and one condition variable, and a count of its signals that a waiter
 *   spins on before it sleeps (nap_locked): each turn starts after the previous one ended, so
 *   the simulation's state is touched by one thread at a time, each handoff ordering the
 *   memory (ThreadSanitizer sees it so). docs/EMULATION.md has the figures.
 * - What a burst may touch. psim's runtime code that a rank runs outside its MPI calls: the
 *   calls that read the runtime's shared state without entering the kernel (MPI_Comm_rank,
 *   datatypes... through emu_self and rt_w) wait for the rank's turn (emu_par_own), which the
 *   rank then keeps until its next MPI call ends; malloc's per-rank accounting (rt_heap.c)
 *   takes a lock; the clocks, random numbers, signal handlers, exit handlers and psim_at are
 *   the rank's own (emu_running: the thread's rank). getopt (psimcc's --wrap) is called in the
 *   rank's turn with the rank's own option-parsing state (rt_getopt.c).
 * - The program's output. stdout and stderr are one FILE each for all ranks: written at once
 *   from several workers, the lines would come in the order of the wall clock. During the run
 *   both are replaced by unbuffered streams (fopencookie) whose writes, from a rank in its own
 *   code, go to a buffer of that rank; the buffer goes to the real stream at the start of the
 *   rank's next turn, in the turns' order: so each rank's output comes where the one-thread
 *   run puts it (a burst's output before the rank's next call, the ranks in the order of those
 *   calls). What psim itself prints (in a turn, or from the engine) goes straight through.
 *   A crashing rank's report comes after what it wrote; other ranks' pending output is lost
 *   with the process, as a real job's unflushed buffers are.
 * - What runs on one thread instead, with a message (emu_par_start): precompiled MPICH and Open
 *   MPI programs (their MPI libraries' shared state, the C library calls psim takes over for
 *   them by hand), --shared-globals (the ranks share their globals), OpenMP (each rank's OpenMP
 *   runtime state is swapped in psim's one thread, emu_tls.c), --host-events and PSIM_TASK /
 *   PSIM_SAMPLE blocks (their state is read from the ranks' own code), and programs that refer
 *   to what psim cannot keep in order or apart: C++'s std::cout/std::cerr (libstdc++ keeps the
 *   original stdout FILE), setvbuf and the other calls that reach into the standard streams,
 *   the unlocked stdio calls, getopt called directly (a program built by an older psimcc),
 *   threads or processes of the program's own. Output written with write(1, ...) directly is
 *   not reordered (it comes in the wall clock's order).
 * - Crashes: the crash handler runs on the faulting worker, finds its rank there (emu_running)
 *   and ends the process as with one thread; each worker has its own alternate signal stack.
 *   The watchdog (--compute-limit) still sees the MPI calls' heartbeat; its test for a lock
 *   shared by the ranks (run/lock-limit, which looks at the one thread that ran every rank) is
 *   off. */
#include <errno.h>
#include <math.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/emu.h"
#include "emul/emu_elf.h"

typedef struct emu_par emu_par;

/* A thread that runs ranks: worker 0 is the main thread, the others are started. */
typedef struct par_worker {
  pthread_t th;
  int started;
  clockid_t cpu;            /* its CPU clock, read by the engine (lookahead) */
  double busy;              /* wall seconds it ran ranks (run/threads-stats) */
  emu_fiber_host host;      /* its own stack, where it looks for work (serve) */
  int task;                 /* the rank to resume (its turn), or -1 */
  struct emu_par *P;
} par_worker;

typedef struct {
  char *b[2];               /* what the rank wrote to stdout, stderr in its own code */
  size_t len[2], cap[2];
  uint8_t want;             /* the fiber stopped to wait for its turn (read by its worker) */
  uint8_t parked;           /* it waits for its turn (under mu) */
} par_rank;

struct emu_par {
  emu_sim *S;
  int n;
  par_worker *w;
  par_rank *r;
  pthread_mutex_t mu;
  pthread_cond_t cv;        /* every waiting thread waits here (signals are broadcasts) */
  atomic_uint gen;          /* signals of cv (a waiter spins on it first: nap_locked) */
  int back;                 /* the turn came back to the engine */
  int stop;
  /* The engine: sim_run, its callbacks and the turns' order (emu_par_run), on a stack of its
   * own that whichever thread is free runs (see "Threads" at the top) */
  emu_fiber eng;
  int eng_state;            /* ENG_WAIT (for a signal or a date), ENG_RUN, ENG_LEAVING, ENG_DONE */
  unsigned eng_gen;         /* gen when it began to wait */
  int eng_timed;            /* it waits until eng_until at the latest */
  struct timespec eng_until;
  void (*eng_fn)(void *);
  void *eng_arg;
  par_worker *eng_on;       /* the thread that ran it last */
  long eng_moves;           /* times it went on on another thread (run/threads-stats) */
  int *fifo;                /* ranks in their own code, in the order their turns ended */
  size_t head, len, cap;
  int lookahead;            /* simulated time may pass while ranks compute (see the top) */
  struct timespec start;    /* run/threads-stats: when the workers started */
  double timer_at;          /* the date of the lookahead's pending timer, or -1 */
  long advances;            /* times the simulation went on while ranks computed */
  double last_arm;          /* CLOCK_MONOTONIC when the last lookahead timer was set */
  FILE *out0, *err0, *outc, *errc;
};

/* ENG_LEAVING: it is leaving the thread that ran it, and may not be resumed before its stack
 * is free; that thread makes it ENG_WAIT once back on its own stack (serve). */
enum { ENG_WAIT, ENG_RUN, ENG_LEAVING, ENG_DONE };

/* The thread's worker; not inline, so that code on the engine's stack, which moves between
 * threads, never keeps a thread's address across a switch. */
static __thread par_worker *par_me;
__attribute__((noinline)) static par_worker *par_self(void) { return par_me; }

emu_fiber_host *emu_host_of(emu_sim *S, emu_rank *k) {
  return S->par ? &S->par->w[k->id % S->par->n].host : &S->host;
}

/* ---- the program's output ---- */
static void buf_add(par_rank *pr, int which, const char *p, size_t n) {
  if (pr->len[which] + n > pr->cap[which]) {
    size_t c = pr->cap[which] ? 2 * pr->cap[which] : 4096;
    while (c < pr->len[which] + n) c *= 2;
    pr->b[which] = xrealloc(pr->b[which], c);
    pr->cap[which] = c;
  }
  memcpy(pr->b[which] + pr->len[which], p, n);
  pr->len[which] += n;
}

static ssize_t cookie_write(emu_par *P, int which, const char *p, size_t n) {
  emu_rank *k = emu_running();
  if (k && k->par_u) {
    buf_add(&P->r[k->id], which, p, n);
    return (ssize_t)n;
  }
  size_t w = fwrite(p, 1, n, which ? P->err0 : P->out0);
  return w ? (ssize_t)w : -1;
}
static ssize_t write_out(void *c, const char *p, size_t n) { return cookie_write(c, 0, p, n); }
static ssize_t write_err(void *c, const char *p, size_t n) { return cookie_write(c, 1, p, n); }

/* Rank k's pending output to the real streams (in its turn, or at the end). */
static void flush_rank(emu_par *P, int id) {
  par_rank *pr = &P->r[id];
  for (int s = 0; s < 2; s++) {
    if (!pr->len[s]) continue;
    (void)!fwrite(pr->b[s], 1, pr->len[s], s ? P->err0 : P->out0);
    pr->len[s] = 0;
  }
}

void emu_par_flush(emu_sim *S) {
  if (!S->par) return;
  fflush(S->par->out0);
  fflush(S->par->err0);
}

void emu_par_crash_flush(emu_rank *k) {
  emu_sim *S = emu_current;
  if (!S || !S->par || !k) return;
  par_rank *pr = &S->par->r[k->id];
  /* in a signal handler: write(2) only, stdout's lock may be held */
  for (int s = 0; s < 2; s++)
    if (pr->len[s]) (void)!write(s ? 2 : 1, pr->b[s], pr->len[s]);
}

/* ---- handoffs ----
 * A handoff is a change under mu and a signal. A waiter that sleeps on the condition variable
 * pays two system calls and, on a VM, an interrupt to a halted core for its wake-up: 5 to 50
 * us, where a poll's work between two MPI calls is under a microsecond (HPC Challenge's
 * MPIRandomAccess), and the system calls leave the rank's caches and TLB colder for its next
 * burst (a RandomAccess-like loop measured 250-425 ns a step under --threads 2 against 146 on
 * psim's thread, 134 for real). So a waiter first looks at the signals' count (gen, bumped by
 * every signal) for up to SPIN_US of wall time, then sleeps. Its looks pause the core, then
 * give it up to any other runnable thread (sched_yield): with more threads than cores the
 * engine and a rank may want one core, and the one spinning must let the other run. */
enum { SPIN_US = 50, SPIN_PAUSES = 64 };

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* mu is taken at every handoff and held for a few hundred ns, or a few us when the engine
 * reads the workers' CPU clocks (lookahead): a thread that finds it taken tries again for up
 * to LOCK_TRIES pauses before it sleeps in the lock. With pthread_mutex_lock alone the
 * waiter slept at once and paid a wake-up of its own: a RandomAccess-like loop (2 M polls at
 * --threads 2) took 40 s on a quiet machine, 0.57 s on psim's own thread. */
enum { LOCK_TRIES = 4096 };
static void lock_mu(emu_par *P) {
  for (int i = 0; i < LOCK_TRIES; i++) {
    if (pthread_mutex_trylock(&P->mu) == 0) return;
    cpu_relax();
  }
  pthread_mutex_lock(&P->mu);
}

/* Under mu: something changed; every waiter looks again at what it waits for. */
static void signal_locked(emu_par *P) {
  atomic_fetch_add_explicit(&P->gen, 1, memory_order_release);
  pthread_cond_broadcast(&P->cv);
}

/* Under mu, on a thread's own stack, in a loop that tests what it waits for: returns after a
 * signal (or at `until`, when given, or spuriously); spins before it sleeps (above). */
static void nap_locked(emu_par *P, const struct timespec *until) {
  pthread_cond_t *cv = &P->cv;
  atomic_uint *gen = &P->gen;
  unsigned g = atomic_load_explicit(gen, memory_order_acquire);
  pthread_mutex_unlock(&P->mu);
  double t0 = 0;
  for (unsigned i = 0;; i++) {
    if (atomic_load_explicit(gen, memory_order_acquire) != g) break;
    if ((i & 15) == 0) {
      double t = mono_s();
      if (!t0) t0 = t;
      else if (t - t0 > SPIN_US * 1e-6) break;
    }
    if (i < SPIN_PAUSES) { cpu_relax(); continue; }
    sched_yield();
  }
  lock_mu(P);
  /* a signal after this test finds the waiter in the wait: signals are sent under mu */
  if (atomic_load_explicit(gen, memory_order_acquire) != g) return;
  if (until) pthread_cond_timedwait(cv, &P->mu, until);
  else pthread_cond_wait(cv, &P->mu);
}

/* ---- threads ---- */
static int eng_ready_locked(emu_par *P) {
  if (P->eng_state != ENG_WAIT) return 0;
  if (atomic_load_explicit(&P->gen, memory_order_acquire) != P->eng_gen) return 1;
  if (!P->eng_timed) return 0;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec > P->eng_until.tv_sec || (t.tv_sec == P->eng_until.tv_sec && t.tv_nsec >= P->eng_until.tv_nsec);
}

/* A thread's loop: its ranks' turns, which the engine hands it (task), and the engine itself
 * when it can go on and no thread runs it. The main thread (worker 0) leaves once the engine
 * has ended, the others when stopped. */
static void serve(par_worker *w, int main_thread) {
  emu_par *P = w->P;
  emu_sim *S = P->S;
  par_me = w;
  lock_mu(P);
  for (;;) {
    if (w->task >= 0) {
      emu_rank *k = &S->ranks[w->task];
      w->task = -1;
      pthread_mutex_unlock(&P->mu);
      /* the rank's turn: the kernel is its until it gives it back */
      S->running = k;
      emu_me_tl = k;
      flush_rank(P, k->id);
      struct timespec b0, b1;
      clock_gettime(CLOCK_MONOTONIC, &b0);
      emu_fiber_enter(&w->host, &k->fib);
      clock_gettime(CLOCK_MONOTONIC, &b1);
      w->busy += (double)(b1.tv_sec - b0.tv_sec) + 1e-9 * (double)(b1.tv_nsec - b0.tv_nsec);
      emu_me_tl = NULL;
      lock_mu(P);
      par_rank *pr = &P->r[k->id];
      if (pr->want) {          /* it stopped at its next call, in its own code: waits for its turn */
        pr->want = 0;
        pr->parked = 1;
      } else {                 /* it blocked, yielded or ended in its turn: the turn is back */
        S->running = NULL;
        P->back = 1;
      }
      signal_locked(P);
      continue;
    }
    if (eng_ready_locked(P)) {
      P->eng_state = ENG_RUN;
      if (P->eng_on != w) P->eng_moves += P->eng_on != NULL;
      P->eng_on = w;
      pthread_mutex_unlock(&P->mu);
      emu_fiber_enter(&w->host, &P->eng);
      /* the engine waits again (it left with a copy of the signals' count taken under mu, so
       * a signal since then makes it ready at once), or has ended */
      lock_mu(P);
      if (P->eng_state == ENG_LEAVING) P->eng_state = ENG_WAIT;
      continue;
    }
    if (main_thread ? P->eng_state == ENG_DONE : P->stop) break;
    nap_locked(P, P->eng_state == ENG_WAIT && P->eng_timed ? &P->eng_until : NULL);
  }
  pthread_mutex_unlock(&P->mu);
  par_me = NULL;
}

static void *worker_main(void *arg) {
  par_worker *w = arg;
  /* the crash handler runs on the alternate stack, which is each thread's (emu_signal.c) */
  size_t alt_size = 64 * 1024;
  char *alt = xmalloc(alt_size);
  stack_t ss = {.ss_sp = alt, .ss_size = alt_size, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  serve(w, 0);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, NULL);
  free(alt);
  return NULL;
}

/* On the engine's stack, under mu: waits for a signal (or the date `until`), letting the
 * thread that ran it serve its ranks meanwhile; goes on on whichever thread finds it can.
 * mu is not held across the switch (a lock belongs to its fiber for ThreadSanitizer). */
static void eng_wait_locked(emu_par *P, const struct timespec *until) {
  P->eng_gen = atomic_load_explicit(&P->gen, memory_order_acquire);
  P->eng_timed = until != NULL;
  if (until) P->eng_until = *until;
  P->eng_state = ENG_LEAVING;
  pthread_mutex_unlock(&P->mu);
  emu_fiber_leave(&par_self()->host, &P->eng, 0);
  /* resumed, maybe on another thread */
  lock_mu(P);
}

static void eng_main(void *arg) {
  emu_par *P = arg;
  emu_fiber_started(&par_self()->host, &P->eng);
  P->eng_fn(P->eng_arg);
  lock_mu(P);
  P->eng_state = ENG_DONE;
  signal_locked(P);
  pthread_mutex_unlock(&P->mu);
  emu_fiber_leave(&par_self()->host, &P->eng, 1);
}

void emu_par_engine(emu_sim *S, void (*fn)(void *), void *arg) {
  emu_par *P = S->par;
  P->eng_fn = fn;
  P->eng_arg = arg;
  lock_mu(P);
  P->eng_state = ENG_WAIT;
  P->eng_timed = 0;
  P->eng_gen = atomic_load_explicit(&P->gen, memory_order_relaxed) + 1;   /* ready at once */
  pthread_mutex_unlock(&P->mu);
  serve(&P->w[0], 1);
}

/* The engine, under mu: rank id's turn, until it gives it back. */
static void grant_locked(emu_par *P, int id) {
  par_worker *w = &P->w[id % P->n];
  P->back = 0;
  w->task = id;
  signal_locked(P);
  while (!P->back) eng_wait_locked(P, NULL);
}

void emu_par_grant(emu_sim *S, emu_rank *k) {
  emu_par *P = S->par;
  lock_mu(P);
  grant_locked(P, k->id);
  pthread_mutex_unlock(&P->mu);
}

/* ---- lookahead ----
 * Without it, simulated time stands still while any rank computes: its next call comes at the
 * date it went back to its code. Ranks whose computations end at different dates (measured
 * bursts always do, by a few ns) would then compute one after the other. But a rank that has
 * computed for c CPU seconds since date t will start, at its next call, a computation of at
 * least c x ref / speed simulated seconds from t on its host; if that host runs nothing else
 * (one rank per host, no CPU model: no communication's CPU share, no background load), nothing
 * the rest of the simulation does before t + c x ref / speed depends on what the rank does, and
 * nothing it does depends on the rest. So the simulation may go on to the earliest such date
 * over the ranks in their own code (the horizon: a timer there brings the engine back),
 * and a rank's computation, once its turn comes, starts in the past, at t, its part already
 * done counted (emu_sched.c, compute_now's par_lag); the rank's burst is at least what was
 * counted on (par_promised). The simulated results are those of the date order; the order of
 * turns now depends on how fast each rank computes in wall time, but only across dates the
 * ranks' computations keep apart (same-date ties may come in another order than without). */
static double worker_cpu(const par_worker *w) {
  struct timespec t;
  if (clock_gettime(w->cpu, &t) != 0) return 0;
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Under mu: whether rank id (in its own code) will start its next turn with a computation,
 * its promise raised to what its worker's clock says it has computed so far. */
static int promised_locked(emu_sim *S, emu_par *P, int id) {
  /* the fiber measures its own burst with its own clock rules, from a mark a little after
   * par_cpu0: what is counted on stays this much under what the worker's clock says */
  const double margin = 50e-6;
  emu_rank *k = &S->ranks[id];
  double c = P->r[id].parked ? k->par_burst : worker_cpu(&P->w[id % P->n]) - k->par_cpu0 - margin;
  if (!(c + k->carry >= S->o->cpu_threshold) || !(c > 0)) return 0;   /* it may call MPI now */
  if (c > k->par_promised) k->par_promised = c;
  return 1;
}

/* Under mu: the horizon (the current date when a rank in its own code may call MPI now). */
static double horizon_locked(emu_sim *S, emu_par *P) {
  double hz = INFINITY;
  for (size_t i = 0; i < P->len; i++) {
    int id = P->fifo[(P->head + i) % P->cap];
    emu_rank *k = &S->ranks[id];
    if (!promised_locked(S, P, id)) return sim_now(S->sim);
    double t = k->par_since + k->par_promised * S->o->host_speed_ref / plat_host_at(S->o->plat, k->host)->speed;
    if (t < hz) hz = t;
  }
  return hz;
}

/* Under mu: takes the i-th entry out of the list. */
static int take_locked(emu_par *P, size_t i) {
  int id = P->fifo[(P->head + i) % P->cap];
  for (; i > 0; i--) P->fifo[(P->head + i) % P->cap] = P->fifo[(P->head + i - 1) % P->cap];
  P->head = (P->head + 1) % P->cap;
  P->len--;
  return id;
}

static void horizon_reached(sim *s, activity *a) {
  (void)s;
  emu_sim *S = a->data;
  emu_par *P = S->par;
  if (!P) return;
  lock_mu(P);
  P->timer_at = -1;
  int id = P->len ? P->fifo[P->head] : -1;
  pthread_mutex_unlock(&P->mu);
  /* rank_run for a rank in its own code serves the list again (emu_par_run) */
  if (id >= 0) sim_make_ready(S->sim, id);
}

/* Under mu: the turn of the list's at-th rank, parked at its next call (mu is let go during
 * the turn and its turn_done, and held again on return). */
static void serve_parked_locked(emu_sim *S, emu_par *P, size_t at, void (*turn_done)(emu_sim *S, emu_rank *k)) {
  int id = take_locked(P, at);
  P->r[id].parked = 0;
  grant_locked(P, id);
  pthread_mutex_unlock(&P->mu);
  turn_done(S, &S->ranks[id]);
  lock_mu(P);
}

/* Under mu, before the turn of a rank made ready at the current date: the ranks in their own
 * code whose next call may come at this date too, in the list's order, each until its next
 * call no longer may (its turn, or, with lookahead, a burst long enough to be a computation).
 * psim's own thread runs a rank's burst and its next call before the next rank's turn; so
 * does this, where it matters: a call that returns at once (a first poll in vain, an isend)
 * and the next one at the same date come before another rank's turn, which may change what
 * that call finds. Without it, a polling loop (HPC Challenge's RandomAccess) saw other
 * interleavings under --threads: +80 % of simulated time, measured, and -49 % with nothing
 * measured (docs/EMULATION.md). A rank promised a computation is passed over: its next turn
 * starts with that computation, at a later date. Without lookahead every such rank is waited
 * for, which is psim's one thread's order exactly. */
static void same_date_first_locked(emu_sim *S, emu_par *P, void (*turn_done)(emu_sim *S, emu_rank *k)) {
  while (!S->failed && P->len) {
    size_t at = P->len;
    int wait = 0;
    for (size_t i = 0; i < P->len; i++) {
      int id = P->fifo[(P->head + i) % P->cap];
      if (P->r[id].parked) { at = i; break; }
      if (P->lookahead && promised_locked(S, P, id)) continue;
      wait = 1;
      break;
    }
    if (at < P->len) {
      serve_parked_locked(S, P, at, turn_done);
      continue;
    }
    if (!wait) return;
    /* Without lookahead no promise comes: it parks at its next call, which signals */
    if (!P->lookahead) {
      eng_wait_locked(P, NULL);
      continue;
    }
    /* it computes: look again when it parks or after a while (its promise needs its
     * worker's clock past the margin and the threshold: about 50 us) */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 20000;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    eng_wait_locked(P, &until);
  }
}

void emu_par_run(emu_sim *S, emu_rank *k, void (*turn_done)(emu_sim *S, emu_rank *k)) {
  emu_par *P = S->par;
  /* A rank in its own code, or blocked since: the lookahead's timer (horizon_reached), which
   * named the list's head of then; else the rank is ready, its turn */
  if (!k->par_u && k->state != EK_BLOCKED) {
    lock_mu(P);
    same_date_first_locked(S, P, turn_done);
    pthread_mutex_unlock(&P->mu);
    if (S->failed) return;
    k->state = EK_READY;
    emu_par_grant(S, k);
    turn_done(S, k);
  }
  lock_mu(P);
  while (!S->failed && !sim_nready(S->sim) && P->len) {
    /* The first rank of the list waiting for its turn, past the ranks still computing whose
     * next turn begins with their computation (lookahead: that commutes with what other
     * ranks do on other hosts meanwhile); without lookahead, only the head */
    size_t at = P->len;
    for (size_t i = 0; i < P->len; i++) {
      int id = P->fifo[(P->head + i) % P->cap];
      if (P->r[id].parked) { at = i; break; }
      if (!P->lookahead || !promised_locked(S, P, id)) break;
    }
    if (at < P->len) {
      serve_parked_locked(S, P, at, turn_done);
      continue;
    }
    if (!P->lookahead) {
      eng_wait_locked(P, NULL);
      continue;
    }
    double now = sim_now(S->sim), hz = horizon_locked(S, P);
    struct timespec m;
    clock_gettime(CLOCK_MONOTONIC, &m);
    double mono = (double)m.tv_sec + 1e-9 * (double)m.tv_nsec;
    /* A horizon that grows as the ranks compute would be followed in steps as small as the
     * engine is quick, each a timer and a look at every worker's clock, the engine
     * taking a core from the workers (HPCG at 16 ranks: 76 % of a core): one step per
     * LOOK_EVERY of wall time at most, the engine waiting in between. */
    enum { LOOK_EVERY_US = 200 };
    if (hz > now && mono - P->last_arm < LOOK_EVERY_US * 1e-6 && P->timer_at < 0) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += LOOK_EVERY_US * 1000L;
      if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
      eng_wait_locked(P, &until);
      continue;
    }
    if (hz > now) {   /* time may move on to hz: a timer there, unless one comes first */
      if (!(P->timer_at > now && P->timer_at <= hz)) {
        P->last_arm = mono;
        P->timer_at = hz;
        P->advances++;
        sim_start_timer(S->sim, hz - now, horizon_reached, S, -1);
      }
      break;
    }
    /* a rank may call MPI at this date: wait for it, looking again now and then */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 1000000;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    eng_wait_locked(P, &until);
  }
  pthread_mutex_unlock(&P->mu);
}

void emu_par_release(emu_rank *k) {
  emu_sim *S = emu_current;
  emu_par *P = S->par;
  double now = sim_now(S->sim), cpu = P->lookahead ? emu_cpu_now() : 0;
  S->running = NULL;
  k->par_u = 1;
  lock_mu(P);
  k->par_since = now;
  k->par_cpu0 = cpu;
  k->par_promised = 0;
  if (P->len == P->cap) {
    size_t nc = P->cap ? 2 * P->cap : 64;
    int *f = xmalloc(nc * sizeof *f);
    for (size_t i = 0; i < P->len; i++) f[i] = P->fifo[(P->head + i) % P->cap];
    free(P->fifo);
    P->fifo = f;
    P->cap = nc;
    P->head = 0;
  }
  P->fifo[(P->head + P->len) % P->cap] = k->id;
  P->len++;
  P->back = 1;
  signal_locked(P);
  pthread_mutex_unlock(&P->mu);
}

void emu_par_give_back(emu_rank *k) {
  emu_sim *S = emu_current;
  if (!S->par || k->par_u || S->running != k) return;
  int measuring = S->o->measure && !k->loading;
  if (measuring) emu_burst_pause(k);   /* the handoff is not the rank's work */
  emu_par_release(k);
  if (measuring) emu_burst_resume(k);
}

void emu_par_own(emu_rank *k, int in_burst) {
  emu_sim *S = emu_current;
  emu_par *P = S->par;
  int measuring = in_burst && S->o->measure && !k->depth && !k->loading;
  if (measuring) emu_burst_pause(k);
  if (in_burst) k->par_burst = measuring ? k->burst_acc : 0;   /* it computed that much, at least */
  P->r[k->id].want = 1;
  emu_fiber_leave(&P->w[k->id % P->n].host, &k->fib, 0);
  /* its turn (worker_main set S->running and passed its output on) */
  k->par_u = 0;
  if (measuring) emu_burst_resume(k);
}

/* ---- which programs ---- */
static const struct { const char *sym, *why; } refused[] = {
  {"getopt", "calls getopt directly (built by an older psimcc: rebuild it)"},
  {"getopt_long", "calls getopt_long directly (built by an older psimcc: rebuild it)"},
  {"getopt_long_only", "calls getopt_long_only directly (built by an older psimcc: rebuild it)"},
  {"_ZSt4cout", "writes to C++'s std::cout, which psim cannot keep in the ranks' order"},
  {"_ZSt4cerr", "writes to C++'s std::cerr, which psim cannot keep in the ranks' order"},
  {"_ZSt4clog", "writes to C++'s std::clog, which psim cannot keep in the ranks' order"},
  {"_ZSt5wcout", "writes to C++'s std::wcout, which psim cannot keep in the ranks' order"},
  {"_ZSt5wcerr", "writes to C++'s std::wcerr, which psim cannot keep in the ranks' order"},
  {"setvbuf", "calls setvbuf (the standard streams are psim's while the ranks run at once)"},
  {"setbuf", "calls setbuf (the standard streams are psim's while the ranks run at once)"},
  {"setbuffer", "calls setbuffer (the standard streams are psim's while the ranks run at once)"},
  {"setlinebuf", "calls setlinebuf (the standard streams are psim's while the ranks run at once)"},
  {"freopen", "calls freopen (the standard streams are psim's while the ranks run at once)"},
  {"freopen64", "calls freopen64 (the standard streams are psim's while the ranks run at once)"},
  {"fileno", "calls fileno (the standard streams are psim's while the ranks run at once)"},
  {"fileno_unlocked", "calls fileno_unlocked (the standard streams are psim's while the ranks run at once)"},
  {"__overflow", "uses stdio's unlocked calls (putc_unlocked...), not safe on streams the ranks share"},
  {"fputc_unlocked", "uses stdio's unlocked calls, not safe on streams the ranks share"},
  {"putc_unlocked", "uses stdio's unlocked calls, not safe on streams the ranks share"},
  {"putchar_unlocked", "uses stdio's unlocked calls, not safe on streams the ranks share"},
  {"fwrite_unlocked", "uses stdio's unlocked calls, not safe on streams the ranks share"},
  {"fputs_unlocked", "uses stdio's unlocked calls, not safe on streams the ranks share"},
  {"pthread_create", "starts threads of its own"},
  {"fork", "starts processes of its own"},
  {"system", "calls system directly (built by an older psimcc: rebuild it)"},
  {"popen", "starts processes of its own"},
  {"psim_sample_enter", "has PSIM_SAMPLE blocks"},
  {"psim_task_enter", "has PSIM_TASK blocks"},
};

/* Why the program cannot run on several threads ("" : it can), in buf. */
static const char *refusal(emu_sim *S, char *buf, size_t cap) {
  const emu_opts *o = S->o;
  if (emu_prog_mpi(o->program) || S->prog.abi_in_rank)
    return "the program was built by MPICH's or Open MPI's compiler (their MPI libraries and the "
           "C library calls psim takes over for such a program are kept for one thread)";
  if (o->shared_globals) return "--shared-globals: the ranks share the program's globals";
  if (S->tls.total) return "the program uses OpenMP (each rank's OpenMP state is swapped on one thread)";
  if (o->host_events) return "--host-events reads the ranks' heaps while they run";
  if (o->measure_tasks || o->task_costs) return "PSIM_TASK costs are kept as the ranks run";
  char *d = NULL;
  size_t n = 0;
  elf_info e;
  psim_err err;
  psim_err_clear(&err);
  if (emu_read_file(o->program, "program", &d, &n, &err) < 0 || elf_parse(o->program, d, n, &e, &err) < 0) {
    free(d);
    return "its symbols cannot be read";
  }
  const char *names[sizeof refused / sizeof *refused];
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) names[i] = refused[i].sym;
  int i = elf_refers_to(d, n, &e, names, sizeof refused / sizeof *refused);
  free(d);
  if (i >= 0) {
    snprintf(buf, cap, "the program %s", refused[i].why);
    return buf;
  }
  return "";
}

void emu_par_start(emu_sim *S) {
  const emu_opts *o = S->o;
  S->par = NULL;
  if (o->threads < 1 || S->np < 2) return;
  char buf[256];
  const char *why = refusal(S, buf, sizeof buf);
  if (*why) {
    if (!o->singleton && o->threads > 1) fprintf(stderr, "psim: --threads %d: %s: its ranks run on one thread\n", o->threads, why);
    return;
  }
  emu_par *P = xcalloc(1, sizeof *P);
  psim_err ferr;
  psim_err_clear(&ferr);
  /* the engine's stack: sim_run and its callbacks, as deep as on the main thread's */
  size_t eng_stack = o->stack_size > ((size_t)8 << 20) ? o->stack_size : (size_t)8 << 20;
  if (emu_fiber_init(&P->eng, eng_stack, eng_main, P, &ferr) < 0) {
    free(P);
    if (!o->singleton) fprintf(stderr, "psim: --threads %d: %s: its ranks run on one thread\n", o->threads, ferr.msg);
    return;
  }
  P->S = S;
  P->n = o->threads < S->np ? o->threads : S->np;
  P->w = xcalloc((size_t)P->n, sizeof *P->w);
  P->r = xcalloc((size_t)S->np, sizeof *P->r);
  pthread_mutex_init(&P->mu, NULL);
  pthread_cond_init(&P->cv, NULL);
  /* the ranks' stdio: streams of psim's whose writes go to the writing rank's buffer */
  fflush(stdout);
  fflush(stderr);
  P->out0 = stdout;
  P->err0 = stderr;
  P->outc = fopencookie(P, "w", (cookie_io_functions_t){.write = write_out});
  P->errc = fopencookie(P, "w", (cookie_io_functions_t){.write = write_err});
  if (!P->outc || !P->errc) {
    if (P->outc) fclose(P->outc);
    if (P->errc) fclose(P->errc);
    emu_fiber_free(&P->eng);
    free(P->w);
    free(P->r);
    free(P);
    if (!o->singleton) fprintf(stderr, "psim: --threads %d: %s: its ranks run on one thread\n", o->threads, strerror(errno));
    return;
  }
  /* unbuffered: each write is one call's text, made on the writing rank's thread */
  setvbuf(P->outc, NULL, _IONBF, 0);
  setvbuf(P->errc, NULL, _IONBF, 0);
  stdout = P->outc;
  stderr = P->errc;
  S->par = P;
  P->timer_at = -1;
  clock_gettime(CLOCK_MONOTONIC, &P->start);
  P->lookahead = o->lookahead && o->measure && !o->net.cpu.active;
  for (int i = 0; i < S->np && P->lookahead; i++)
    for (int j = 0; j < i; j++)
      if (S->rank_host[i] == S->rank_host[j]) { P->lookahead = 0; break; }
  /* worker 0 is the main thread (it runs its ranks and the engine in emu_par_engine) */
  for (int i = 0; i < P->n; i++) {
    par_worker *w = &P->w[i];
    w->P = P;
    w->task = -1;
    if (i == 0) {
      w->th = pthread_self();
      w->started = 0;
    } else if (!(w->started = pthread_create(&w->th, NULL, worker_main, w) == 0)) {
      /* cannot happen but by lack of resources: the ranks go on the threads there are */
      P->n = i;
      break;
    }
    if (pthread_getcpuclockid(w->th, &w->cpu) != 0) P->lookahead = 0;
  }
}

void emu_par_stop(emu_sim *S) {
  emu_par *P = S->par;
  if (!P) return;
  lock_mu(P);
  /* a failed run leaves ranks in their own code: they stop at their next call, never resumed */
  while (P->len) {
    int id = P->fifo[P->head];
    P->head = (P->head + 1) % P->cap;
    P->len--;
    while (!P->r[id].parked) nap_locked(P, NULL);
  }
  P->stop = 1;
  signal_locked(P);
  pthread_mutex_unlock(&P->mu);
  double busy = 0;
  for (int i = 0; i < P->n; i++) {
    if (P->w[i].started) pthread_join(P->w[i].th, NULL);
    busy += P->w[i].busy;
  }
  emu_fiber_free(&P->eng);
  if (S->o->threads_stats) {
    /* how many workers had a rank to run at once, on average: what the run could use of that
     * many cores, whatever the machine gave it (a loaded machine shares its cores) */
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double wall = (double)(end.tv_sec - P->start.tv_sec) + 1e-9 * (double)(end.tv_nsec - P->start.tv_nsec);
    fprintf(P->err0, "psim: --threads %d: workers ran ranks %.3f s in %.3f s of wall time: %.2f at once on average; ",
            S->o->threads, busy, wall, wall > 0 ? busy / wall : 0);
    fprintf(P->err0, "the engine changed threads %ld times; ", P->eng_moves);
    if (P->lookahead) fprintf(P->err0, "the simulation went on %ld times while ranks computed\n", P->advances);
    else fprintf(P->err0, "no lookahead\n");
  }
  /* what no turn passed on (a failed run), in rank order */
  for (int i = 0; i < S->np; i++) flush_rank(P, i);
  stdout = P->out0;
  stderr = P->err0;
  fclose(P->outc);
  fclose(P->errc);
  for (int i = 0; i < S->np; i++) {
    free(P->r[i].b[0]);
    free(P->r[i].b[1]);
    S->ranks[i].par_u = 0;
  }
  pthread_mutex_destroy(&P->mu);
  pthread_cond_destroy(&P->cv);
  free(P->fifo);
  free(P->w);
  free(P->r);
  free(P);
  S->par = NULL;
  S->running = NULL;
}
