/* The execution-driven driver: ranks as fibers served by the kernel's ready queue, the CPU
 * time they use between MPI calls turned into simulated computations, and the run itself
 * (see include/psim/emul.h and src/emul/emu.h). */
#include <float.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "emul/emu.h"
#include "emul/emu_abi.h"
#include "emul/emu_elf.h"

/* The simulation whose rank is running (the one global; see emu.h). */
emu_sim *emu_current;
int emu_runs_ended;
__thread emu_rank *emu_me_tl;

void emu_signals_install(void);
void emu_signals_restore(void);

void emu_opts_init(emu_opts *o, const platform *p, int np) {
  memset(o, 0, sizeof *o);
  o->plat = p;
  o->np = np;
  net_config_init(&o->net);
  coll_selector_init(&o->coll);
  o->measure = 1;
  o->cpu_threshold = 1e-6;   /* smpi/cpu-threshold's default */
  o->iprobe_sleep = 1e-4;    /* smpi/iprobe's default */
  o->wtime = 1e-8;           /* smpi/wtime's default */
  o->stack_size = (size_t)8 << 20;
  o->threads = 0;   /* no --threads: psim's own thread */
  o->lookahead = 1;
  o->compute_limit = 300;
  o->spin_limit = (uint64_t)1 << 20;
  o->lock_limit = 10;
  o->thread_level = 1;       /* MPI_THREAD_FUNNELED */
  o->rank_memory = 1e6;
  o->charge_copies = 1;      /* the MPI runtime's packing and local copies cost the rank */
  o->pack_chunk = 65536;     /* MPICH's shared-memory cells, Open MPI's pipeline fragments: 64 KiB */
}

static int parse_double(const char *key, const char *v, double *out, psim_err *err) {
  char *end;
  double x = strtod(v, &end);
  if (!*v || *end || !(x >= 0))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s expects a non-negative number, got '%s'", key, v);
  *out = x;
  return 0;
}

/* yes, 1, true or no, 0, false; anything else is an error naming the key. */
static int parse_yes_no(const char *key, const char *v, int *out, psim_err *err) {
  if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true")) *out = 1;
  else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false")) *out = 0;
  else return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s expects yes or no, got '%s'", key, v);
  return 0;
}

int emu_opts_cfg(emu_opts *o, const char *key, const char *value, psim_err *err) {
  if (!strcmp(key, "smpi/test") || !strcmp(key, "smpi/iprobe") || !strcmp(key, "smpi/grow-injected-times"))
    o->inject_polls = 1;
  if (!strcmp(key, "smpi/iprobe")) return parse_double(key, value, &o->iprobe_sleep, err);
  if (!strcmp(key, "smpi/wtime")) return parse_double(key, value, &o->wtime, err);
  if (!strcmp(key, "run/spin-limit")) {
    char *end;
    unsigned long long n = strtoull(value, &end, 10);
    if (!*value || *end || *value == '-')
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg run/spin-limit expects a whole number of polls (0: never), got '%s'", value);
    o->spin_limit = n;
    return 0;
  }
  if (!strcmp(key, "run/lock-limit")) return parse_double(key, value, &o->lock_limit, err);
  if (!strcmp(key, "run/threads-stats")) return parse_yes_no(key, value, &o->threads_stats, err);
  /* --threads: time passes while ranks compute (emu_par.c) */
  if (!strcmp(key, "run/lookahead")) return parse_yes_no(key, value, &o->lookahead, err);
  if (!strcmp(key, "run/iprobe-cost")) return parse_double(key, value, &o->iprobe_cost, err);
  if (!strcmp(key, "run/test-cost")) return parse_double(key, value, &o->test_cost, err);
  if (!strcmp(key, "run/coll-cost")) return parse_double(key, value, &o->coll_cost, err);
  if (!strcmp(key, "run/thread-level")) {
    static const char *const levels[] = {"single", "funneled", "serialized", "multiple"};
    for (int i = 0; i < 4; i++)
      if (!strcasecmp(value, levels[i])) { o->thread_level = i; return 0; }
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg run/thread-level expects single, funneled, serialized or multiple, got '%s'", value);
  }
  if (!strcmp(key, "smpi/cpu-threshold")) return parse_double(key, value, &o->cpu_threshold, err);
  if (!strcmp(key, "smpi/host-speed")) {
    int w = 0;
    char why[256];
    if (psim_unit_speed(value, &o->host_speed_ref, &w, why, sizeof why) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg smpi/host-speed: %s", why);
    return 0;
  }
  if (!strcmp(key, "smpi/coll-selector")) return coll_selector_use(&o->coll, value, err);
  if (!strcmp(key, "run/charge-copies")) return parse_yes_no(key, value, &o->charge_copies, err);
  if (!strcmp(key, "run/pack-pipeline")) return parse_double(key, value, &o->pack_chunk, err);
  if (!strcmp(key, "smpi/simulate-computation")) {
    o->measure = !(!strcmp(value, "no") || !strcmp(value, "0") || !strcmp(value, "false"));
    return 0;
  }
  replay_opts r;
  replay_opts_init(&r, o->plat, o->np);
  r.net = o->net;
  r.coll = o->coll;
  if (replay_opts_cfg(&r, key, value, err) < 0) return -1;
  o->net = r.net;
  o->coll = r.coll;
  return 0;
}

double emu_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double mono_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Measuring a burst of user code (between two MPI calls) must not cost what it measures.
 * Reading the thread CPU clock is a system call (about 1.3 us on a VM, more than many bursts
 * between MPI calls), reading CLOCK_MONOTONIC is not (tens of ns, vDSO). Only one rank runs
 * at a time, so wall time is the rank's own, except when the OS preempts the thread, which
 * takes it away for a time slice (milliseconds). Hence: a burst shorter than SHORT_BURST of
 * monotonic time cannot hold a preemption and is measured so; a longer one is measured with
 * the CPU clock, whose cost is then small beside it. Both readings of a mark are taken with
 * the CPU clock first, so its cost stays out of the monotonic interval; each clock's own cost
 * (two back-to-back readings, the least of many) is subtracted. */
#define SHORT_BURST 20e-6

static double clock_cost(double (*now)(void)) {
  double best = 1;
  for (int i = 0; i < 200; i++) {
    double a = now(), b = now();
    if (b - a < best) best = b - a;
  }
  return best;
}

/* A mark needs the CPU clock only for the long bursts, but which bursts will be long is not
 * known yet, and reading it at every mark was a system call per MPI call (most of the wall
 * time of polling codes: HPCC's RandomAccess). The thread's CPU clock is shared by all ranks
 * (one thread runs them all), so it is read at most once per SHORT_BURST of monotonic time:
 * when the last reading (S->cpu_ref, taken at S->mono_ref) is more recent than that, no
 * preemption can have fallen between it and now (the argument above), the thread ran all
 * along, and the CPU clock now is the reading plus the monotonic time since. */
static void charge_cpu(emu_sim *S, emu_rank *k, double seconds, int flush);
static void compute_now(emu_sim *S, emu_rank *k, double flops);

/* The last reading is the calling thread's (under --threads each worker runs ranks of its own:
 * its CPU clock is theirs alone, emu_par.c). */
static __thread double cpu_ref, mono_ref;

static void clock_mark(emu_sim *S, double *cpu_mark, double *mono_mark) {
  (void)S;
  double m = mono_now();
  if (m - mono_ref < SHORT_BURST) {
    *cpu_mark = cpu_ref + (m - mono_ref);
    *mono_mark = m;
    return;
  }
  /* the CPU reading is dated halfway through the system call that makes it */
  double c = emu_cpu_now(), m2 = mono_now();
  cpu_ref = *cpu_mark = c;
  mono_ref = (m + m2) / 2;
  *mono_mark = m2;
}

static double clock_since(const emu_sim *S, double cpu_mark, double mono_mark) {
  double m = mono_now() - mono_mark - S->mono_cost;
  if (m < SHORT_BURST) return m > 0 ? m : 0;
  double c = emu_cpu_now() - cpu_mark - S->cpu_cost;
  return c > 0 ? c : 0;
}

void emu_mark(emu_rank *k) {
  k->burst_acc = 0;
  clock_mark(emu_current, &k->cpu_mark, &k->mono_mark);
}

/* burst_acc: the part measured before the rank waited for its turn in mid-burst (emu_par_own,
 * which marks again when the rank resumes) */
double emu_burst(const emu_rank *k) { return k->burst_acc + clock_since(emu_current, k->cpu_mark, k->mono_mark); }

/* The rank resumes its burst after waiting for its turn: what it measured so far is kept. */
void emu_burst_pause(emu_rank *k) { k->burst_acc = emu_burst(k); }
void emu_burst_resume(emu_rank *k) { clock_mark(emu_current, &k->cpu_mark, &k->mono_mark); }

/* The MPI runtime's own work for the running rank: packing and unpacking a non-contiguous
 * datatype, a send to self, a collective's copy of the rank's own block. A real MPI does it
 * on the rank's core, in sequence with its messages (real MPICH's exchange of PTRANS's strided
 * block takes 1.8x the contiguous one's time); psim's runtime does it inside MPI calls, where
 * no CPU time was counted. It is measured as the bursts are (the same clocks, the same
 * rules), only in the outermost such piece of work (work_depth: an unpack inside a measured
 * copy is not counted twice) and only inside an MPI call (MPI_Pack called by the program runs
 * in its own burst, already measured). It becomes the rank's pending work, charged as
 * computation by emu_work_charge: before a send goes (the pack precedes the message), else as
 * the outermost call returns. run/charge-copies:no, or --no-measure, charges none. */
void emu_work_begin(emu_work *w) {
  emu_sim *S = emu_current;
  w->on = w->nested = 0;
  emu_rank *k = S ? emu_running() : NULL;   /* MPI_Pack runs in the rank's own code */
  if (!k || !S->o->measure || !S->o->charge_copies) return;
  if (!k->depth || k->loading) return;
  if (k->work_depth++) { w->nested = 1; return; }
  w->on = 1;
  clock_mark(S, &w->cpu, &w->mono);
}

double emu_work_took(emu_work *w) {
  if (!w->on && !w->nested) return 0;
  emu_rank *k = emu_running();
  k->work_depth--;
  double s = w->on ? clock_since(emu_current, w->cpu, w->mono) : 0;
  w->on = w->nested = 0;
  return s;
}

void emu_work_end(emu_work *w) {
  double s = emu_work_took(w);
  if (s > 0) emu_running()->work += s;
}

/* The share of a message's packing or unpacking that cannot overlap its transfer: its first
 * chunk's (a chunk is packed before it leaves, the last one unpacked after it lands). */
static double unhidden_share(const emu_sim *S, size_t len) {
  double c = S->o->pack_chunk;
  return c > 0 && (double)len > c ? c / (double)len : 1;
}

/* A real MPI packs a long non-contiguous message chunk by chunk into its transport's buffers
 * (MPICH's shared-memory cells, UCX's and Open MPI's pipeline fragments), the first chunk
 * leaving while the next is packed: the packing overlaps the transfer, and the receiver
 * unpacks each chunk as it lands. psim packs the whole message at once (rt_pack_alloc,
 * measured into the rank's pending work: `packed` seconds of it are this message's); the
 * first chunk's share is charged before the message leaves, the rest stays pending and is
 * charged at the rank's next wait (emu_wait) or as the call returns, while the message moves.
 * run/pack-pipeline:0 charges it all first, in sequence with the transfer. */
void emu_work_pipeline(double packed, size_t len) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? S->running : NULL;
  if (!k) return;
  double rest = packed > 0 ? packed * (1 - unhidden_share(S, len)) : 0;
  k->work -= rest;
  emu_work_charge();
  k->work_overlap += rest;
}

void emu_work_charge_overlap(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? S->running : NULL;
  if (!k || !(k->work_overlap > 0) || k->work_depth) return;
  double w = k->work;
  k->work = k->work_overlap;
  k->work_overlap = 0;
  emu_work_charge();
  k->work = w;
}

double emu_unpack_overlap(double unpacked, size_t len, double xfer_start, double xfer_end) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  if (!(unpacked > 0)) return 0;
  double floor = unpacked * unhidden_share(S, len);
  /* the rank's last wait, where it was idle while the message's chunks landed */
  double from = xfer_start > k->idle_from ? xfer_start : k->idle_from, to = xfer_end < k->idle_to ? xfer_end : k->idle_to;
  double idle = xfer_start >= 0 && to > from ? to - from : 0;
  double left = unpacked - idle;
  return left > floor ? left : floor;
}

double emu_combine_flops(double bytes) {
  emu_sim *S = emu_current;
  emu_rank *k = emu_running();
  return k->combine_rate > 0 && bytes > 0 ? bytes * k->combine_rate * S->o->host_speed_ref : 0;
}

/* A computation of its own, not through the carry: the trace records it as the reduction's
 * comp, which a replay of the trace computes as one computation after the collective. */
void emu_combine_charge(double flops) {
  if (flops > 0) compute_now(emu_current, emu_running(), flops);
}

void emu_work_charge(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? S->running : NULL;
  if (!k || !(k->work > 0) || k->work_depth) return;
  double s = k->work;
  k->work = 0;
  charge_cpu(S, k, s, 0);
}

double emu_now(void) { return sim_now(emu_current->sim); }

/* The CPU time of the running rank's own code: its bursts so far and the one under way (the
 * same measurements as its computation). One thread runs every rank, so the C library's
 * CPU-time clocks are all ranks' and psim's together: LAMMPS, 4 ranks, printed "287.1% CPU
 * use". -1 when psim does not measure (--no-measure) or outside a rank's own code. */
double emu_rank_cpu(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? emu_running() : NULL;
  if (!k || k->depth || k->loading || !S->o->measure) return -1;
  return k->cpu_own + emu_burst(k);
}

const coll_selector *emu_coll_selector(void) { return &emu_current->o->coll; }

/* ---- blocking and waking ---- */
void emu_wake(emu_sim *S, emu_rank *k) {
  if (k->state != EK_BLOCKED) return;
  k->state = EK_READY;
  sim_make_ready(S->sim, k->id);
}

void emu_block(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  k->state = EK_BLOCKED;
  /* where a rank that never resumes (deadlock) stopped */
  k->block_t = sim_now(S->sim);
  k->block_busy = mpi_rank_busy_time(S->world, k->id);
  emu_fiber_leave(emu_host_of(S, k), &k->fib, 0);
}

void emu_yield(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  sim_make_ready(S->sim, k->id);   /* behind the ranks already ready */
  emu_fiber_leave(emu_host_of(S, k), &k->fib, 0);
}

/* ---- polling ---- */
int emu_poll_failed(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  k->poll_failed = 1;
  if (emu_spin_poll(S, k)) emu_block();   /* a livelock: the run stops, the rank stays here */
  if (k->poll_streak++ == 0) return 0;
  /* The next EMU_POLL_YIELDS polls of the streak let the ranks ready at this date run, and time
   * does not pass; only a rank that goes on polling waits for the next event. A run of
   * fruitless polls is not always a wait: NWChem's Global Arrays flush every window they have
   * (an MPI_Win_flush_all with nothing pending is a poll), one after the other, and go on. When
   * the second poll already waited for the next event, each such sweep cost the rank the time
   * up to whatever happened next elsewhere: B3LYP on benzene at 2 ranks took 1.78 s of
   * simulated time instead of 1.30 s (32 % of it "waiting"). 64: the sweeps' length there (16
   * still gave 1.76 s); a rank that spins for real makes 64 quick turns more before it waits. */
  enum { EMU_POLL_YIELDS = 64 };
  if (k->poll_streak <= EMU_POLL_YIELDS) { emu_yield(); return 1; }
  S->polls++;
  k->polling = 1;
  S->npolling++;
  double t0 = sim_now(S->sim);
  emu_block();
  /* the trace has no polls: the time spent waiting in one is a sleep there, so that whatever
   * the rank does next starts at the same date in the replay */
  if (S->tit && emu_trace_on(k)) emu_trace_sleep(k, sim_now(S->sim) - t0);
  return 1;
}

void emu_poll_local(void) { emu_current->running->poll_failed = 1; }

/* Something may have changed (an event, another rank's work): pollers look again. */
static void wake_pollers(emu_sim *S) {
  if (!S->npolling) return;
  for (int i = 0; i < S->np; i++) {
    emu_rank *k = &S->ranks[i];
    if (!k->polling) continue;
    k->polling = 0;
    S->npolling--;
    emu_wake(S, k);
  }
}

void emu_wake_pollers(void) {
  emu_spin_progress(emu_current);
  wake_pollers(emu_current);
}

static void activity_done(sim *s, activity *a) {
  (void)s;
  emu_sim *S = a->data;
  emu_wake(S, &S->ranks[a->tag]);
  wake_pollers(S);
}

/* A computation ended: its useful work is credited (dynamic efficiency) before a is freed. */
static void compute_done(sim *s, activity *a) {
  emu_sim *S = a->data;
  dyn_compute_end(S->dyn, a->tag);
  activity_done(s, a);
}

/* A program's own volume (psim_compute, psim_sleep, a declared cost): NaN used to hang the
 * run, infinity to end as a deadlock, a negative one to be taken as 0. The run stops with the
 * rank, the call and its source line. */
__attribute__((noreturn)) static void fail_rank(emu_sim *S, emu_rank *k);
static void check_volume(emu_sim *S, emu_rank *k, double v, const char *unit) {
  if (isfinite(v) && v >= 0) return;
  psim_errf(S->err, PSIM_EXIT_APP, k->file ? k->file : NULL, k->file ? k->line : 0,
            "rank %d: %s(%g): expected a finite number of %s, 0 or more (at simulated time %.6f)",
            k->id, k->call ? k->call : "psim_compute", v, unit, sim_now(S->sim));
  fail_rank(S, k);
}

static void compute_now(emu_sim *S, emu_rank *k, double flops) {
  check_volume(S, k, flops, "flops");
  if (flops <= 0) return;
  double t0 = sim_now(S->sim), b0 = mpi_rank_busy_time(S->world, k->id);
  if (S->tit) emu_trace_compute(k, flops);
  k->poll_streak = 0;   /* work between polls */
  /* --threads' lookahead: this computation began par_lag seconds ago, while the simulation went
   * on without the rank (its host idle but for it: emu_par.c), so part of it is done */
  double lag = k->par_lag, speed = plat_host_at(S->o->plat, k->host)->speed, all = flops;
  k->par_lag = 0;
  if (lag > 0) {
    t0 -= lag;
    flops -= lag * speed;
    if (!(flops > 0)) {
      double d = sim_now(S->sim) - t0;
      k->st.compute += d;
      k->call_compute += d;
      k->st.actions++;
      emu_observe_action(S, k->id, NULL, TIT_COMPUTE, t0, sim_now(S->sim));
      return;
    }
  }
  dyn_compute_start(S->dyn, k->id, models_exec(S->models, k->host, flops, compute_done, S, k->id),
                    all / speed);
  int spin = emu_spin_act_begin(S, k);
  emu_block();
  emu_spin_act_end(S, spin);
  double d = sim_now(S->sim) - t0;
  k->st.compute += d;
  k->call_compute += d;
  k->call_busy_compute += mpi_rank_busy_time(S->world, k->id) - b0;
  k->st.actions++;
  emu_observe_action(S, k->id, NULL, TIT_COMPUTE, t0, sim_now(S->sim));
}

/* Charges `seconds` of CPU time the rank used as a computation, through its carry; `flush`:
 * the rank's last chance (MPI_Finalize, its end), the whole carry is charged. */
static void charge_cpu(emu_sim *S, emu_rank *k, double seconds, int flush) {
  double c = emu_carry_add(&k->carry, seconds, flush ? 0 : S->o->cpu_threshold);
  if (c > 0) compute_now(S, k, c * S->o->host_speed_ref);
}

/* A poll's own cost (run/iprobe-cost, run/test-cost): CPU time the real MPI spends in the call,
 * where psim's runtime spends next to none. It joins the rank's carry, charged with the next
 * burst, rather than becoming a computation of its own: a poll of tens of nanoseconds is far
 * under smpi/cpu-threshold, and a computation here would also count as work between polls,
 * which would keep a rank waiting in a polling loop from waiting for the next event
 * (emu_poll_failed). */
void emu_poll_cost(double seconds) {
  emu_sim *S = emu_current;
  if (S->o->measure && seconds > 0) (void)emu_carry_add(&S->running->carry, seconds, INFINITY);
}

/* A collective call's own cost (run/coll-cost): the real MPI's work in the call beyond its
 * messages (checks, the algorithm's choice, its progress loop), which psim's runtime does not
 * spend. It is charged with the rank's carry (its bursts under smpi/cpu-threshold since its
 * last charge, the polls' costs) as one computation before the collective's messages, at every
 * collective, by every rank at the same point of its calls. Through the carry, each rank's
 * charge would fall where its own carry passes the threshold, at a different call on each
 * rank, and every rank of a loop of collectives then waits in the collective for the others'
 * charges as well as its own, where the real ranks compute side by side: a cost of 0.1 us a
 * call cost 0.19 us at 2 ranks, and bursts of 0.019 us a call on each rank (an 8-byte
 * allreduce's loop) 0.0375. */
void emu_coll_cost(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? S->running : NULL;
  if (!k || !S->o->measure) return;
  double c = k->carry + (S->o->coll_cost > 0 ? S->o->coll_cost : 0);
  k->carry = 0;
  if (c > 0) compute_now(S, k, c * S->o->host_speed_ref);
}

void emu_carry_flush(void) {
  emu_sim *S = emu_current;
  if (S->o->measure) charge_cpu(S, S->running, 0, 1);
}

void emu_call_time_since(emu_rank *k, double t0, double busy_compute) {
  double d = sim_now(emu_current->sim) - t0;
  k->st.compute -= d;
  k->call_compute -= d;
  k->call_busy_compute = busy_compute;
}

void emu_cpu_overhead(double seconds) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  if (!(seconds > 0)) return;
  double t0 = sim_now(S->sim), bc = k->call_busy_compute;
  compute_now(S, k, seconds * plat_host_at(S->o->plat, k->host)->speed);
  emu_call_time_since(k, t0, bc);
}

void emu_compute(double flops) {
  emu_sim *S = emu_current;
  compute_now(S, S->running, flops);
}

void emu_sleep(double seconds) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  check_volume(S, k, seconds, "seconds");
  if (seconds <= 0) return;
  k->poll_streak = 0;
  double t0 = sim_now(S->sim), b0 = mpi_rank_busy_time(S->world, k->id);
  sim_start_timer(S->sim, seconds, activity_done, S, k->id);
  int spin = emu_spin_act_begin(S, k);
  emu_block();
  emu_spin_act_end(S, spin);
  double d = sim_now(S->sim) - t0;
  k->st.compute += d;
  k->call_compute += d;
  k->call_busy_compute += mpi_rank_busy_time(S->world, k->id) - b0;
  emu_observe_action(S, k->id, NULL, TIT_SLEEP, t0, sim_now(S->sim));
}

/* ---- MPI call boundaries ---- */
/* A frame's object, as the user knows it: a rank's copy of the program ("rank-3", "rank-3.so")
 * is the program, a rank's copy of a library ("rank-3-libptscotch-7.0.so") that library. */
static const char *object_name(const char *path) {
  const char *b = elf_basename(path);
  if (strncmp(b, "rank-", 5)) return b;
  const char *p = b + 5;
  while (*p >= '0' && *p <= '9') p++;
  return *p == '-' ? p + 1 : "the program";
}

static int mpi_named(const char *s) {
  return s && (!strncmp(s, "MPI_", 4) || !strncmp(s, "PMPI_", 5) || !strncasecmp(s, "mpi_", 4) || !strncasecmp(s, "pmpi_", 5));
}

/* The MPI function the thread called and who called it: the first frame out of psim and of the
 * MPI libraries above the outermost MPI function (" (MPI_Isend, called from X in LIB)"). */
static void foreign_caller(char *out, size_t n) {
  void *fr[64];
  int nf = backtrace(fr, 64);
  const char *mpi = NULL;
  Dl_info self, di;
  *out = 0;
  if (!dladdr((void *)emu_foreign_thread, &self) || !self.dli_fname) return;
  for (int i = 0; i < nf; i++) {
    if (!dladdr(fr[i], &di) || !di.dli_fname) continue;
    if (mpi_named(di.dli_sname)) {   /* PMPI_Send and MPI_Send are one function: the name users call */
      mpi = di.dli_sname + (di.dli_sname[0] == 'P' || di.dli_sname[0] == 'p');
      continue;
    }
    const char *obj = object_name(di.dli_fname);
    if (!mpi || !strcmp(di.dli_fname, self.dli_fname) || strstr(obj, "libmpi")) continue;
    if (di.dli_sname) snprintf(out, n, " (%s, called from %s in %s)", mpi, di.dli_sname, obj);
    else snprintf(out, n, " (%s, called from %s)", mpi, obj);
    return;
  }
  if (mpi) snprintf(out, n, " (%s)", mpi);
}

/* A thread the program started (MolDS's boost::thread that communicates while its rank
 * computes; Debian's PT-Scotch, built to communicate from threads of its own, under DOLFINx)
 * called MPI. psim runs every rank in one thread of its own, switching between them in MPI
 * calls, so it provides MPI_THREAD_FUNNELED at most (MPI_Init_thread says so): the call would
 * race with the ranks' thread on psim's state (MolDS's run hung, then was called a deadlock
 * outside MPI). Stop with a message naming the call and its caller, from that thread: a
 * simulation cannot go on. */
void emu_foreign_thread(void) {
  char who[600], msg[1200];
  foreign_caller(who, sizeof who);
  int n = snprintf(msg, sizeof msg,
                   "psim: an MPI function was called from a thread the program started%s, not from its "
                   "rank's own: psim runs every rank in one thread of its own (MPI_THREAD_FUNNELED, what "
                   "MPI_Init_thread answers unless --cfg run/thread-level says more), so a program that "
                   "communicates from threads of its own (MPI_THREAD_SERIALIZED or MULTIPLE) cannot be "
                   "run; the run stops\n", who);
  fflush(stdout);
  if (n > 0) (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  _exit(PSIM_EXIT_APP);
}

void emu_enter(const char *name) {
  emu_sim *S = emu_current;
  if (!S) emu_after_run();   /* outside the simulation (a constructor, an exit handler) */
  emu_rank *k = emu_running();
  if (!k) emu_foreign_thread();
  if (k->depth++ > 0) return;
  /* measured before the rank waits for its turn (--threads): the wait is not its work */
  double burst = S->o->measure && !k->loading ? emu_burst(k) : 0;
  if (S->o->repeat && S->o->measure && !k->loading) burst = emu_repeat_burst(S->o->repeat, k->id, name, burst);
  double lag = 0;
  if (k->par_u) {
    k->par_burst = burst;   /* what the main thread may count on while it waits for its turn */
    emu_par_own(k, 0);
    /* the simulation went on meanwhile, counting on a computation of at least par_promised
     * seconds from par_since (lookahead): the call starts then */
    if (burst < k->par_promised) burst = k->par_promised;
    lag = sim_now(S->sim) - k->par_since;
    if (!(lag > 0)) lag = 0;
  }
  emu_watch_enter(S);
  k->call = name;
  k->call_compute = 0;
  S->calls++;
  k->calls++;
  if (S->o->measure && !k->loading) {
    k->cpu_own += burst;
    k->par_lag = lag;
    charge_cpu(S, k, burst, 0);
    k->par_lag = 0;
  }
  if (S->maps) emu_dyn_boundary(S, k);
  k->call_start = sim_now(S->sim) - lag;
  k->call_compute = 0;
  k->call_busy_compute = 0;
  k->call_busy0 = mpi_rank_busy_time(S->world, k->id);
}

/* Time in an MPI call (less what it computed) is communication while the rank is busy with
 * its own messages (see mpi_rank_busy_time), waiting otherwise; busy = its busy time then. */
static void account_call(emu_rank *k, double now, double busy) {
  double d = now - k->call_start - k->call_compute;
  if (d <= 0) return;
  double comm = busy - k->call_busy0 - k->call_busy_compute;
  if (comm > d) comm = d;
  if (comm < 0) comm = 0;
  k->st.comm += comm;
  k->st.wait += d - comm;
}

void emu_leave(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  /* the runtime's work in the call not charged yet (an unpack as a receive completes) */
  if (k->depth == 1 && (k->work > 0 || k->work_overlap > 0)) {
    k->work += k->work_overlap;
    k->work_overlap = 0;
    emu_work_charge();
  }
  if (--k->depth > 0) return;
  double now = sim_now(S->sim);
  account_call(k, now, mpi_rank_busy_time(S->world, k->id));
  k->st.actions++;
  if (S->o->actions)
    fprintf(S->o->actions, "%.6f %d %s %.6f\n", now, k->id, k->call ? k->call : "?",
            now - k->call_start);
  /* psim_compute, PSIM_SAMPLE, psim_sleep were reported as the computation they made (the
   * names are compared only when someone observes: this runs at every MPI call) */
  if (S->o->nobservers && k->call && strncmp(k->call, "psim_", 5) && strcmp(k->call, "PSIM_SAMPLE"))
    emu_observe_action(S, k->id, k->call, TIT_NOOP, k->call_start, now);
  if (!k->poll_failed) emu_spin_call(S, k);
  k->call = NULL;
  if (!k->poll_failed) k->poll_streak = 0;
  k->poll_failed = 0;
  emu_watch_leave(S, k->id, now);
  if (S->par) emu_par_release(k);   /* the kernel serves the next rank meanwhile */
  if (S->o->measure) emu_mark(k);
}

/* ---- ending a rank, failures ---- */
__attribute__((noreturn)) static void finish_rank(emu_sim *S, emu_rank *k) {
  k->state = EK_DONE;
  emu_watch_enter(S);
  k->st.finish = sim_now(S->sim);
  S->nfinished++;
  emu_fiber_leave(emu_host_of(S, k), &k->fib, 1);
  abort(); /* never resumed */
}

/* The exit handlers the program registers as a rank runs its main: atexit (psimcc's
 * --wrap=atexit, rt_exit.c) and __cxa_atexit (a precompiled program's atexit, and its C++
 * function-local statics' destructors: psim's MPI libraries, abi_exit.c). In a real run each
 * process runs its own at its exit, and programs put MPI_Finalize there (Debian's IQ-TREE
 * registers it with atexit): run at the end of the simulation, once for the process, they
 * called MPI after every rank had ended. So each rank keeps its own, run in reverse order when
 * it returns from main or calls exit, inside the simulation. Those registered as the program
 * loads (C++ global destructors) stay the process's. Returns 0 when not a rank's (the caller
 * then registers it with the C library). */
int emu_rank_atexit(void (*fn)(void *), void (*fn0)(void), void *arg) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? emu_running() : NULL;
  if (!k || !k->in_main || k->depth) return 0;
  if (k->natexits == k->catexits) {
    k->catexits = k->catexits ? 2 * k->catexits : 8;
    k->atexits = xrealloc(k->atexits, k->catexits * sizeof *k->atexits);
  }
  k->atexits[k->natexits++] = (emu_atexit){fn, fn0, arg};
  return 1;
}

void emu_rank_exit(int code) {
  emu_sim *S = emu_current;
  emu_rank *k = emu_running();
  /* Each handler is taken off before it runs: one that calls exit comes back here and the
   * others run, as the C library does. */
  while (k->natexits && !S->failed) {
    emu_atexit h = k->atexits[--k->natexits];
    if (h.fn0) h.fn0();
    else h.fn(h.arg);
  }
  k->in_main = 0;
  k->exit_code = code;
  double lag = 0;
  if (S->par) {   /* its end is the kernel's business: in turn (lookahead as in emu_enter) */
    if (k->par_u) emu_par_own(k, 1);
    lag = sim_now(S->sim) - k->par_since;
  }
  if (!k->finalized && S->o->measure && k->depth == 0) {
    double burst = emu_repeat_burst(S->o->repeat, k->id, "(end)", emu_burst(k));
    if (burst < k->par_promised) burst = k->par_promised;
    k->cpu_own += burst;
    k->par_lag = lag > 0 ? lag : 0;
    charge_cpu(S, k, burst, 1);   /* the last burst, and the carry with it */
    k->par_lag = 0;
  }
  if (k->initialized && !k->finalized && !S->failed) {
    if (k->exit_fn) fprintf(stderr, "psim: warning: rank %d called %s(0) without calling MPI_Finalize\n", k->id, k->exit_fn);
    else fprintf(stderr, "psim: warning: rank %d returned from main without calling MPI_Finalize\n", k->id);
  }
  finish_rank(S, k);
}

__attribute__((noreturn)) static void fail_rank(emu_sim *S, emu_rank *k) {
  S->failed = 1;
  S->exit_status = PSIM_EXIT_APP;
  sim_stop(S->sim);
  finish_rank(S, k);
}

/* " in FUNCTION()" for a code address in the program, "" when unknown. */
static void where_called(const void *caller, char *buf, size_t n) {
  Dl_info di;
  buf[0] = 0;
  if (caller && dladdr(caller, &di) && di.dli_sname) snprintf(buf, n, " in %s()", di.dli_sname);
}

void emu_rank_called_exit(int status, const char *fn, const void *caller) {
  emu_sim *S = emu_current;
  emu_rank *k = emu_running();
  if (k->par_u) emu_par_own(k, 1);
  if (!strcmp(fn, "_exit")) k->natexits = 0;   /* _exit runs no exit handler */
  k->exit_fn = fn;
  if (status == 0) emu_rank_exit(0);
  char in[300], last[600] = "";
  where_called(caller, in, sizeof in);
  if (k->file) snprintf(last, sizeof last, " (its last MPI call was at %s:%d)", k->file, k->line);
  k->exit_code = status;
  psim_errf(S->err, PSIM_EXIT_APP, NULL, 0, "rank %d called %s(%d)%s%s at simulated time %.6f%s",
            k->id, fn, status, in, last, sim_now(S->sim),
            k->initialized && !k->finalized ? ", before MPI_Finalize: the run stops" : "");
  fail_rank(S, k);
}

void emu_after_run(void) {
  if (emu_probing_ctors) _exit(42);   /* emu_abi_probe_ctors' child: a constructor communicates */
  static const char after[] = "psim: the program called MPI after its simulation had ended (from "
                              "an exit handler or a library's destructor): MPI is finalized then, so "
                              "the program stops there\n";
  static const char before[] = "psim: the program called MPI before its simulation started (from "
                               "a constructor, as the program was loaded): there psim answers "
                               "MPI_Init and MPI_Init_thread (made at the rank's start), "
                               "MPI_Initialized, MPI_Finalized and MPI_Query_thread only\n";
  fflush(NULL);
  if (emu_runs_ended) (void)!write(2, after, sizeof after - 1);
  else (void)!write(2, before, sizeof before - 1);
  _exit(emu_runs_ended ? psim_exit_status() : PSIM_EXIT_APP);
}

/* exit() reached without going through psimcc's --wrap (from a shared library the program
 * uses): the process is ending under the simulation's feet; say so rather than end silently. */
static void exit_hook(int status, void *arg) {
  (void)arg;
  emu_sim *S = emu_current;
  emu_rank *k = S ? emu_running() : NULL;
  if (!k) return;
  char buf[256];
  int n = snprintf(buf, sizeof buf, "psim: rank %d called exit(%d) from a library (not relinked "
                   "by psimcc): the simulation cannot go on\n", k->id, status);
  fflush(stdout);
  if (n > 0) (void)!write(2, buf, (size_t)n);
  _exit(PSIM_EXIT_APP);
}

void emu_fatal(const char *fmt, ...) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psim_errf(S->err, PSIM_EXIT_APP, k->file ? k->file : NULL, k->file ? k->line : 0,
            "rank %d: MPI error in %s: %s (at simulated time %.6f)", k->id,
            k->call ? k->call : "an MPI call", msg, sim_now(S->sim));
  fail_rank(S, k);
}

void emu_abort(int code, const char *hint) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  psim_errf(S->err, PSIM_EXIT_APP, k->file ? k->file : NULL, k->file ? k->line : 0,
            "rank %d called MPI_Abort with error code %d at simulated time %.6f%s", k->id, code,
            sim_now(S->sim), hint ? hint : "");
  fail_rank(S, k);
}

/* ---- the scheduler ---- */
/* The rank loads its own copy of the program (emu_prog.abi_in_rank: its constructors
 * communicate, so they run here, inside the simulation, as in a real MPI process before main).
 * What the loading costs in CPU is not the rank's computation (k->loading). */
static void load_own_copy(emu_sim *S, emu_rank *k) {
  void *h = NULL;
  emu_main_fn fn = NULL;
  psim_err e;
  psim_err_clear(&e);
  k->loading = 1;
  int rc = emu_abi_load_rank(S->prog.abi_in_rank, k->id, &h, &fn, &S->prog.getopt[k->id], &e);
  k->loading = 0;
  if (rc < 0) {
    if (!S->failed) *S->err = e;
    S->failed = 1;
    S->exit_status = e.code ? e.code : PSIM_EXIT_INPUT;
    sim_stop(S->sim);
    finish_rank(S, k);
  }
  S->prog.handles[k->id] = h;
  S->prog.mains[k->id] = fn;
}

static void rank_main(void *arg) {
  emu_rank *k = arg;
  emu_sim *S = emu_current;
  emu_fiber_started(emu_host_of(S, k), &k->fib);
  emu_watch_leave(S, k->id, sim_now(S->sim));
  if (S->prog.abi_in_rank) load_own_copy(S, k);
  if (S->par) emu_par_release(k);   /* its own code from here, beside the other ranks' */
  if (S->o->measure) emu_mark(k);
  /* A constructor of its copy called MPI_Init as it was loaded (emu_prog.ctor_init): the rank
   * makes that call first (the MPI runtime's rt_ctor_init, the one call up from here). */
  int ci = S->prog.ctor_init ? S->prog.ctor_init[emu_copy_of(&S->prog, k->id)] : 0;
  if (ci) rt_ctor_init(ci);
  k->in_main = 1;
  int rc = S->prog.mains[k->id](k->argc, k->argv);
  emu_rank_exit(rc);
}

/* After rank k's turn: what the scheduler does once the rank gave the turn back. */
static void turn_done(emu_sim *S, emu_rank *k) {
  if (!k->polling) wake_pollers(S);   /* it did something else than polling in vain */
  if (k->state == EK_DONE) emu_fiber_free(&k->fib);
}

static void rank_run(void *ctx, int id) {
  emu_sim *S = ctx;
  emu_rank *k = &S->ranks[id];
  if (k->state == EK_DONE || S->failed) return;
  if (S->par) {
    /* --threads: the rank's turn, then the turns of the ranks whose own code ran meanwhile,
     * in the order they went back to it, as long as no rank is ready here (emu_par.c) */
    emu_par_run(S, k, turn_done);
    return;
  }
  k->state = EK_READY;
  S->running = k;
  emu_me_tl = k;
  /* The C library keeps one getopt state for the process; every rank parses its own command
   * line, at its own pace (ranks take turns inside MPI_Init, so all may parse after rank 0 is
   * done): each gets the state it left, and starts with a fresh one (set where ranks are made). */
  optind = k->go_ind; opterr = k->go_err; optopt = k->go_opt; optarg = k->go_arg;
  emu_tls_switch(&S->tls, k->id);   /* its OpenMP runtime's state, likewise */
  emu_fiber_enter(&S->host, &k->fib);
  k->go_ind = optind; k->go_err = opterr; k->go_opt = optopt; k->go_arg = optarg;
  S->running = NULL;
  emu_me_tl = NULL;
  turn_done(S, k);
}

/* The simulation's run: sim_run, then the rounds that let polling ranks look again. */
struct engine_run {
  emu_sim *S;
  replay_result *res;
};
static void engine_run(void *arg) {
  struct engine_run *er = arg;
  emu_sim *S = er->S;
  er->res->events = sim_run(S->sim, rank_run, S);
  /* Nothing left to happen while ranks poll: let them look again (a rank that polls between
   * pieces of its own work goes on), unless EMU_IDLE_ROUNDS rounds in a row were spent polling
   * in vain (the program spins forever: reported as a deadlock, the pollers blocked in their
   * test). One fruitless round is not enough: a rank may do many steps of its own work, each
   * too short to be measured, between two calls other than a poll (HPCC's RandomAccess fills
   * 1024 updates, polling once per update, before it sends). */
  enum { EMU_IDLE_ROUNDS = 1 << 16 };
  int idle = 0;
  while (S->npolling && !S->failed && !S->spin.found && !sim_overflowed(S->sim)) {
    uint64_t calls = S->calls, polls = S->polls;
    double now = sim_now(S->sim);
    wake_pollers(S);
    er->res->events += sim_run(S->sim, rank_run, S);
    if (S->calls - calls == S->polls - polls && sim_now(S->sim) == now) {
      if (++idle >= EMU_IDLE_ROUNDS) break;
    } else {
      idle = 0;
    }
  }
}

static void on_done(void *ctx, mpi_req *q);
static void on_done_cb(void *ctx, mpi_req *q) { on_done(ctx, q); }

/* MPI layer callback: a request completed. */
static void on_done(void *ctx, mpi_req *q) {
  emu_sim *S = ctx;
  emu_req *r = q->user;
  if (!r) return;
  r->done = 1;
  emu_rank *k = &S->ranks[r->owner];
  if (q->is_send) {
    k->st.msgs_sent++;
    k->st.bytes_sent += q->bytes;
  } else {
    r->src = q->src;
    r->tag = q->tag;
    if (!r->copied) r->got = (size_t)q->bytes;
    k->st.msgs_recv++;
    k->st.bytes_recv += q->bytes;
  }
  if (r->orphan && (r->copied || !r->is_send)) {
    q->user = NULL;
    r->q = NULL;
    r->orphan = 0;
    emu_req_free(r);
    return;
  }
  if (r->waited && k->state == EK_BLOCKED && --k->nwait == 0) emu_wake(S, k);
  wake_pollers(S);
}

static void deadlock_report(emu_sim *S, replay_result *res) {
  size_t cap = 4096, len = 0;
  char *buf = xmalloc(cap);
  int nblocked = 0;
  if (S->spin.found) {
    int n = emu_spin_header(S, buf, cap);
    len = n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
  } else {
    len = (size_t)snprintf(buf, cap, "deadlock at simulated time %.6f: %d of %d ranks cannot finish\n",
                           sim_now(S->sim), S->np - S->nfinished, S->np);
  }
  for (int i = 0; i < S->np; i++) {
    emu_rank *k = &S->ranks[i];
    if (k->state == EK_DONE) continue;
    nblocked++;
    char line[2048], pend[1024], args[128] = "", loc[600] = "";
    mpi_describe_pending(S->world, i, pend, sizeof pend);
    if (k->call_peer != -99 || k->call_tag != -99) {
      char peer[32] = "", tag[32] = "";
      if (k->call_peer == -1) snprintf(peer, sizeof peer, "MPI_ANY_SOURCE");
      else if (k->call_peer != -99) snprintf(peer, sizeof peer, "%d", k->call_peer);
      if (k->call_tag == -1) snprintf(tag, sizeof tag, "MPI_ANY_TAG");
      else if (k->call_tag != -99) snprintf(tag, sizeof tag, "%d", k->call_tag);
      snprintf(args, sizeof args, "(%s%s%s%s%s)", peer[0] ? "peer " : "", peer,
               peer[0] && tag[0] ? ", " : "", tag[0] ? "tag " : "", tag);
    }
    if (k->file) snprintf(loc, sizeof loc, " at %s:%d", k->file, k->line);
    if (S->spin.found && emu_spin_is(S, k))
      snprintf(line, sizeof line, "  rank %d (host %s): polls in vain with %s%s%s%s%s\n", i,
               plat_host_at(S->o->plat, k->host)->name, k->spin_call ? k->spin_call : "?",
               k->call == k->spin_call ? args : "", loc, pend[0] ? ": " : "", pend);
    else
      snprintf(line, sizeof line, "  rank %d (host %s): blocked in %s%s%s%s%s\n", i,
               plat_host_at(S->o->plat, k->host)->name, k->call ? k->call : "?", args, loc,
               pend[0] ? ": " : "", pend);
    size_t ll = strlen(line);
    if (len + ll + 1 > cap) { cap = 2 * (len + ll + 1); buf = xrealloc(buf, cap); }
    memcpy(buf + len, line, ll + 1);
    len += ll;
  }
  (void)nblocked;
  res->deadlock = buf;
}

static char **copy_argv(int argc, char **argv) {
  char **v = xcalloc((size_t)argc + 1, sizeof *v);
  for (int i = 0; i < argc; i++) v[i] = xstrdup(argv[i]);
  return v;
}

int emu_run(const emu_opts *o, replay_result *res, psim_err *err) {
  memset(res, 0, sizeof *res);
  if (o->repeat) emu_repeat_begin(o->repeat);
  if (emu_current) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "one psim run at a time per process");
  emu_sim *S = xcalloc(1, sizeof *S);
  S->o = o;
  S->thread = pthread_self();
  S->np = o->np;
  S->err = err;
  S->test_count = 1;
  S->testany_count = 1;
  S->iprobe_count = 1;
  S->spin.epoch = 1;   /* ranks start with spin_epoch 0: not spinning */
  if (o->measure) {
    S->cpu_cost = clock_cost(emu_cpu_now);
    S->mono_cost = clock_cost(mono_now);
  }
  int rc = 0;
  if (emu_prog_load(&S->prog, o->program, o->np, o->shared_globals, o->privatize_libs, o->thread_level, err) < 0) { free(S); return -1; }
  S->rank_host = replay_place_ranks(o->plat, o->hostfile, o->nhostfile, S->np);
  S->sim = sim_new();
  S->models = models_new(S->sim, o->plat, &o->net, err);
  /* SimGrid's order of same-date events is the replay's (its ranks are SMPI actors); psim
   * run's ranks are real programs scheduled by their own rules (emu_sched.c), whose ties keep
   * psim's order of scheduling. */
  if (S->models && o->net.tie_simgrid) {
    psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg network/tie-order:simgrid is for trace replay (SMPI actors); "
              "psim run's ranks are real programs and keep psim's order");
    models_free(S->models);
    S->models = NULL;
  }
  if (!S->models) { rc = -1; goto out_sim; }
  S->world = mpi_world_new(S->sim, S->models, S->np, S->rank_host, on_done_cb, S);
  emu_observe_start(S);
  S->ranks = xcalloc((size_t)S->np, sizeof *S->ranks);
  if (emu_tasks_load(S, err) < 0) { rc = -1; goto out_world; }
  if (emu_dyn_init(S, err) < 0) { rc = -1; goto out_world; }
  for (int i = 0; i < S->np; i++) {
    emu_rank *k = &S->ranks[i];
    k->id = i;
    k->host = S->rank_host[i];
    k->st.host = k->host;
    k->argc = o->argc;
    k->argv = copy_argv(o->argc, o->argv);
    /* main may rearrange argv's pointers (Yorick's mpy drops the options it took, duplicating
     * entries): psim frees the strings from its own list, not from the program's */
    k->argv_mem = xmalloc(((size_t)o->argc + 1) * sizeof *k->argv_mem);
    memcpy(k->argv_mem, k->argv, ((size_t)o->argc + 1) * sizeof *k->argv_mem);
    k->go_ind = 1; k->go_err = 1; k->go_opt = '?'; k->go_arg = NULL;   /* as at a process's start */
    k->call_peer = k->call_tag = -99;
    if (emu_fiber_init(&k->fib, o->stack_size, rank_main, k, err) < 0) { rc = -1; goto out_ranks; }
    sim_make_ready(S->sim, i);
  }
  if (o->trace_tit && emu_trace_open(S, err) < 0) { rc = -1; goto out_ranks; }
  emu_tls_init(&S->tls, S->np);
  static int hooked;   /* process-wide, as exit is */
  if (!hooked) hooked = on_exit(exit_hook, NULL) == 0;
  if (models_cpu_start(S->models, S->rank_host, S->np, err) < 0) { rc = -1; goto out_ranks; }
  emu_current = S;
  emu_signals_install();
  emu_par_start(S);
  emu_watch_start(S);
  struct engine_run er = {S, res};
  if (S->par) emu_par_engine(S, engine_run, &er);   /* on whichever thread is free */
  else engine_run(&er);
  emu_par_stop(S);
  emu_watch_stop(S);
  res->cpu = models_cpu_report(S->models);
  emu_signals_restore();
  emu_current = NULL;
  emu_runs_ended++;
  fflush(stdout);
  if (S->tit) {
    emu_current = S;   /* the tracer's helpers find the simulation there */
    psim_err terr;
    psim_err_clear(&terr);
    int trc = emu_trace_close(S, &terr);
    emu_current = NULL;
    if (trc < 0 && !S->failed && S->nfinished == S->np) { *err = terr; rc = -1; }
  }
  if (o->status) {
    *o->status = 0;
    for (int i = 0; i < S->np && !*o->status; i++) *o->status = S->ranks[i].exit_code;
  }
  if (S->failed) {
    rc = -1;
  } else if (sim_overflowed(S->sim)) {
    /* a date past the largest double would read as "never", then as a deadlock */
    psim_errf(err, PSIM_EXIT_APP, NULL, 0,
              "simulated time overflows at %.6g s: a computation, sleep or message in progress "
              "would end after the largest date a double holds (%.3g s)", sim_now(S->sim), DBL_MAX);
    rc = -1;
  } else if (S->nfinished < S->np) {
    deadlock_report(S, res);
    psim_errf(err, PSIM_EXIT_DEADLOCK, NULL, 0, "%s", res->deadlock);
    rc = -1;
  } else if (rc == 0 && emu_tasks_finish(S, 1, err) < 0) {
    rc = -1;
  } else if (rc == 0) {
    /* as mpiexec does, a rank's non-zero exit status is the run's failure */
    for (int i = 0; i < S->np; i++)
      if (S->ranks[i].exit_code != 0) {
        psim_errf(err, PSIM_EXIT_APP, NULL, 0, "rank %d returned %d from main (at simulated time %.6f)",
                  i, S->ranks[i].exit_code, S->ranks[i].st.finish);
        rc = -1;
        break;
      }
  }
  res->np = S->np;
  res->ranks = xcalloc((size_t)S->np, sizeof *res->ranks);
  for (int i = 0; i < S->np; i++) {
    emu_rank *k = &S->ranks[i];
    if (res->deadlock && k->state != EK_DONE) {
      /* blocked for good inside an MPI call: its times run up to that block (a spinner of a
       * livelock may be in a sleep or computation of its own instead, never to end) */
      if (k->depth > 0) account_call(k, k->block_t, k->block_busy);
      k->st.finish = k->block_t;
      k->st.blocked = 1;
    }
    res->ranks[i] = k->st;
  }
  replay_result_close(res, sim_now(S->sim), S->world);
  emu_observe_end(S, res->simulated_time);
out_ranks:
  emu_dyn_finish(S, res);
  for (int i = 0; i < S->np; i++) {
    emu_rank *k = &S->ranks[i];
    for (int j = 0; j < 4; j++) free(k->held[j]);   /* blocked in a call when the run stopped */
    free(k->oc.counts);
    free(k->oc.counts2);
    emu_fiber_free(&k->fib);
    if (k->argv_mem) for (int j = 0; j < k->argc; j++) free(k->argv_mem[j]);
    free(k->argv_mem);
    free(k->atexits);
    free(k->argv);
    emu_sample_free(k);
    emu_written_free(k);
    free(k->rt);   /* the runtime's per-rank state is one flat block */
  }
  emu_tasks_finish(S, 0, NULL);
  if (S->tit) emu_trace_close(S, err);   /* not started (a rank could not be set up) */
  if (S->rt_free) S->rt_free(S->rt);
  /* a send no receive took (the run stopped, or the program never received it) still owns
   * its payload */
  for (size_t i = 0; i < S->all_reqs.len; i++) {
    emu_req *r = S->all_reqs.data[i];
    if (r->owned) free((void *)r->data);
    free(r);
  }
  VEC_FREE(S->all_reqs);
out_world:
  emu_tls_free(&S->tls);
  free(S->ranks);
  mpi_world_free(S->world);
  models_free(S->models);
out_sim:
  sim_free(S->sim);
  free(S->rank_host);
  emu_prog_unload(&S->prog);
  free(S);
  return rc;
}
