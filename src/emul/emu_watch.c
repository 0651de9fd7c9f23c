/* The watchdog: a rank that computes forever.
 *
 * Under psim run the ranks take turns on one core, each running until its next MPI call. A rank
 * that never calls MPI again keeps every other rank from running: the run hangs where real MPI,
 * running the ranks at once, would not. ScaLAPACK's BLACS tester does this on purpose: after a
 * barrier, rank 2 calls BLACS_ABORT while the others spin in a loop "that should be killed by
 * BLACS_ABORT"; here rank 0 leaves the barrier first and spins, and rank 2 never runs. psim
 * cannot take the core back from it (switching ranks inside a signal handler could leave
 * malloc's lock held by the rank switched out), so it stops the run and says why.
 *
 * A thread looks twice a second at a heartbeat that the ranks' MPI calls move (emu_watch_enter,
 * emu_watch_leave: plain stores, nothing on the hot path that locks or calls the kernel); when
 * a rank has stayed in its own code for --compute-limit seconds of wall time, it prints which
 * rank and since when, and ends the process (exit 4, as a failed application).
 *
 * The same thread sees a second way to hang: a rank waiting for a lock that another rank holds.
 * The ranks share one process and one thread, so a library whose lock is the process's, taken
 * by a rank that then waits in MPI (an interpreter's global lock: Debian's mpb-mpi runs its
 * ranks inside Guile), stops the next rank that enters the library in the kernel, waiting for a
 * rank that can only run once it returns. When the ranks' thread has been blocked in futex()
 * (its /proc/self/task/TID/syscall) in a rank's own code for run/lock-limit seconds of wall
 * time and the process has used almost no CPU meanwhile (no helper thread, e.g. OpenBLAS's,
 * works for it), the run stops as a deadlock (exit 3). */
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emul/emu.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stopping;

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes the report fmt made of the rank last seen leaving MPI, the wall seconds idle and the
 * simulated time it left at (in that order), with write(2): stdio may be what hangs. */
static void say(emu_sim *S, const char *fmt, double idle) {
  int rank = __atomic_load_n(&S->watch.rank, __ATOMIC_RELAXED);
  double t;
  __atomic_load(&S->watch.sim_time, &t, __ATOMIC_RELAXED);
  char msg[1024];
  int n = snprintf(msg, sizeof msg, fmt, rank, idle, t);
  if (n > 0) (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

static void report(emu_sim *S, double idle) {
  say(S,
      "psim: rank %d has run its own code for %.0f s (wall time) without calling MPI, since "
      "simulated time %.6f: under psim run the ranks take turns on one core, so a rank that "
      "never calls MPI again keeps the others from running (a loop that waits for another rank, "
      "e.g. for its MPI_Abort, never ends here). The run stops; --compute-limit SECONDS sets "
      "this limit (0: none)\n",
      idle);
  /* What the ranks wrote through stdio reaches its file (a Fortran program's preconnected
   * units are unbuffered under psim run, emu_abi.c: the BLACS tester's whole report). The rank
   * spins in its own code, not inside stdio as a rule; if it holds stdout's lock after all, the
   * alarm ends the process. _exit, not exit: the ranks' state is not torn down (and a
   * sanitized build would report it as leaked). */
  alarm(10);
  fflush(NULL);
  _exit(PSIM_EXIT_APP);
}

/* The ranks' thread is blocked in futex() (x86-64's syscall 202), as /proc says. */
static int in_futex(int tid) {
  char path[64], buf[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return atoi(buf) == SYS_futex && buf[0] >= '0' && buf[0] <= '9';
}

static void report_lock(emu_sim *S, double idle) {
  say(S,
      "psim: deadlock outside MPI: rank %d has waited %.0f s (wall time) for a lock in its own "
      "code, since simulated time %.6f, and nothing in the process runs: another rank holds "
      "that lock while it waits in MPI. psim run's ranks share one process, so a library whose "
      "lock is the process's (an interpreter's global lock...) is shared by the ranks. The run "
      "stops; --cfg run/lock-limit:SECONDS sets this limit (0: none)\n",
      idle);
  /* no fflush: the lock the rank waits for may be stdio's */
  _exit(PSIM_EXIT_DEADLOCK);
}

static void *watch(void *arg) {
  emu_sim *S = arg;
  uint64_t last = ~(uint64_t)0;
  double since = seconds(CLOCK_MONOTONIC), locked = -1, cpu0 = 0;
  pthread_mutex_lock(&lock);
  while (!stopping) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 500000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    int rc = pthread_cond_timedwait(&wake, &lock, &until);
    if (stopping) break;
    if (rc != 0 && rc != ETIMEDOUT) continue;
    uint64_t beat = __atomic_load_n(&S->watch.beat, __ATOMIC_RELAXED);
    int in_user = __atomic_load_n(&S->watch.in_user, __ATOMIC_RELAXED);
    double now = seconds(CLOCK_MONOTONIC);
    if (beat != last || !in_user) { last = beat; since = now; locked = -1; continue; }
    if (S->o->lock_limit > 0 && in_futex(S->watch.tid)) {
      if (locked < 0) locked = now, cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
      /* blocked all along, and the process used under 2 % of a core meanwhile */
      else if (now - locked >= S->o->lock_limit && seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0 < 0.02 * (now - locked)) report_lock(S, now - locked);
    } else {
      locked = -1;
    }
    if (S->o->compute_limit > 0 && now - since >= S->o->compute_limit) report(S, now - since);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

void emu_watch_start(emu_sim *S) {
  S->watch.running = 0;
  if (!(S->o->compute_limit > 0) && !(S->o->lock_limit > 0)) return;
  /* under --threads no one thread runs every rank: the lock test is off (emu_par.c) */
  S->watch.tid = S->par ? 0 : (int)syscall(SYS_gettid);
  stopping = 0;
  S->watch.running = pthread_create(&S->watch.thread, NULL, watch, S) == 0;
}

void emu_watch_stop(emu_sim *S) {
  if (!S->watch.running) return;
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(S->watch.thread, NULL);
  S->watch.running = 0;
}
