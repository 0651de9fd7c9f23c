/* Environment management, predefined attributes and psim's own calls (psim_compute...). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

static void rt_world_init(emu_sim *S) {
  rt_world *w = xcalloc(1, sizeof *w);
  rt_dtypes_init(w);
  rt_comms_init(w, S->np);
  rt_reqs_init(w);
  VEC_PUSH(w->ops, ((rt_uop){NULL, 1}));   /* handle 0: MPI_OP_NULL */
  for (int i = 1; i < PSIM_NUM_PREDEFINED_OPS; i++) VEC_PUSH(w->ops, ((rt_uop){NULL, 1}));
  S->rt = w;
  S->rt_free = rt_world_free;
}

rt_world *rt_w(void) {
  emu_sim *S = emu_current;
  if (!S) emu_after_run();
  emu_rank *k = emu_running();   /* the runtime's shared state: in the rank's turn (--threads) */
  if (k && k->par_u) emu_par_own(k, 1);
  if (!S->rt) rt_world_init(S);
  return S->rt;
}

rt_rank *rt_me(void) {
  emu_rank *k = emu_self();
  if (!k->rt) {
    rt_world *w = rt_w();
    rt_rank *r = xcalloc(1, sizeof *r);
    r->self = rt_comm_new(w, 1, &k->id);
    snprintf(r->self->name, sizeof r->self->name, "MPI_COMM_SELF");   /* settable, as WORLD's */
    k->rt = r;
  }
  return k->rt;
}

int rt_world_rank(void) { return emu_self()->id; }

void rt_need_init(void) {
  emu_rank *k = emu_self();
  if (!k->initialized) emu_fatal("MPI function called before MPI_Init");
  if (k->finalized) emu_fatal("MPI function called after MPI_Finalize");
}

void rt_after_finalize(const void *caller, const char *call) {
  Dl_info di;
  if (call) emu_self()->call = call;
  else if (caller && dladdr(caller, &di) && di.dli_sname && !strncmp(di.dli_sname, "MPI_", 4)) emu_self()->call = di.dli_sname;
  emu_fatal("MPI function called after MPI_Finalize");
}

void rt_world_free(void *p) {
  rt_world *w = p;
  if (!w) return;
  rt_heap_reset();
  for (size_t i = 0; i < w->types.len; i++)
    if (w->types.data[i]) {
      free(w->types.data[i]->blocks); free(w->types.data[i]->sig); free(w->types.data[i]->args);
      free(w->types.data[i]);
    }
  VEC_FREE(w->types);
  for (size_t i = 0; i < w->comms.len; i++) {
    rt_comm *c = w->comms.data[i];
    if (!c) continue;
    /* a run stopped inside a collective leaves its slots, with the contributions deposited */
    while (c->slots) { rt_slot *s = c->slots; c->slots = s->next; rt_slot_free(s, c->size); }
    free(c->world); free(c->local); free(c->cseq); free(c->rworld); free(c->cart);
    rt_graph_free(c->graph); free(c);
  }
  VEC_FREE(w->comms);
  for (size_t i = 0; i < w->groups.len; i++)
    if (w->groups.data[i]) { free(w->groups.data[i]->world); free(w->groups.data[i]); }
  VEC_FREE(w->groups);
  for (size_t i = 0; i < w->reqs.len; i++)
    if (w->reqs.data[i]) { rt_nbr_discard(w->reqs.data[i]->nbr); free(w->reqs.data[i]->stage); free(w->reqs.data[i]); }
  VEC_FREE(w->reqs);
  VEC_FREE(w->ops);
  for (size_t i = 0; i < w->shared.len; i++) free(w->shared.data[i].p);
  VEC_FREE(w->shared);
  for (size_t i = 0; i < w->shared_own.len; i++) free(w->shared_own.data[i].p);
  VEC_FREE(w->shared_own);
  VEC_FREE(w->pending_groups);
  rt_inters_free(w);
  rt_infos_free(w);
  rt_wins_free(w);
  rt_files_free(w);
  rt_attrs_free(w);
  rt_errs_free(w);
  free(w);
}

/* MPI_Init or MPI_Init_thread from a constructor of the program, as its copy is loaded (no
 * simulation runs yet): OpenCoarrays initializes MPI so. The call succeeds; it takes effect at
 * the rank's start, before main, as if main had made it first (rt_ctor_init). 0 when no copy
 * is being loaded. */
static int init_from_ctor(int level) {
  if (emu_current || emu_runs_ended || !emu_loading_prog || emu_loading_copy < 0) return 0;
  emu_loading_prog->ctor_init[emu_loading_copy] = 1 + level;
  return 1;
}

int MPI_Init(int *argc, char ***argv) {
  (void)argc; (void)argv;
  if (!emu_current && init_from_ctor(MPI_THREAD_SINGLE)) return MPI_SUCCESS;
  emu_rank *k = emu_self();
  emu_enter("MPI_Init");
  if (k->initialized) emu_fatal("MPI_Init called twice");
  rt_me();
  k->initialized = 1;
  emu_signals_reclaim();
  emu_leave();
  return MPI_SUCCESS;
}

/* Up to MPI_THREAD_FUNNELED by default: a rank's MPI calls run on its own stack in psim's
 * thread, and FUNNELED promises that only the thread that initialized MPI calls it; the
 * program's other threads (OpenMP's) may compute meanwhile (their CPU time is not the rank's
 * measured time). OpenCoarrays asks for FUNNELED and stops when given less. SERIALIZED and
 * MULTIPLE would let other threads call MPI, which psim cannot run (emu_foreign_thread stops
 * the run); --cfg run/thread-level raises the answer for programs that ask more than they use
 * (cp2k asks SERIALIZED and aborts when refused), the check staying. */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int max = emu_current ? emu_current->o->thread_level : emu_loading_prog ? emu_loading_prog->thread_level : MPI_THREAD_FUNNELED;
  int level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required > max ? max : required;
  *provided = level;
  if (!emu_current && init_from_ctor(level)) return MPI_SUCCESS;
  int rc = MPI_Init(argc, argv);
  rt_me()->thread_level = level;
  rt_me()->thread_asked = required;
  return rc;
}

/* At the start of rank k, before main (emu_sched.c): the MPI_Init a constructor of its copy
 * made (1 + the thread level it got), now in the rank. */
void rt_ctor_init(int how) {
  MPI_Init(NULL, NULL);
  rt_me()->thread_level = rt_me()->thread_asked = how - 1;
}

/* (also outside the simulation, as MPICH allows: SINGLE then) */
int MPI_Query_thread(int *provided) {
  *provided = emu_current ? rt_me()->thread_level : MPI_THREAD_SINGLE;
  return MPI_SUCCESS;
}
int MPI_Is_thread_main(int *flag) { *flag = 1; return MPI_SUCCESS; }

int MPI_Finalize(void) {
  emu_rank *k = emu_self();
  emu_enter("MPI_Finalize");
  /* the short bursts carried since the last charge: after MPI_Finalize nothing is measured */
  emu_carry_flush();
  rt_need_init();
  /* MPI: MPI_COMM_SELF's attributes are deleted first, callbacks run (libraries clean up) */
  rt_attr_comm_free(MPI_COMM_SELF, "MPI_Finalize");
  k->finalized = 1;
  if (emu_trace_on(k)) emu_trace_line(k, "finalize");
  emu_leave();
  return MPI_SUCCESS;
}

/* Both may be asked outside the simulation: before it (a constructor: not initialized yet) and
 * after it (a library's exit handler checking whether it may still call MPI: initialized and
 * finalized by then). */
int MPI_Initialized(int *flag) { *flag = emu_current ? emu_self()->initialized : emu_runs_ended > 0; return MPI_SUCCESS; }
int MPI_Finalized(int *flag) { *flag = emu_current ? emu_self()->finalized : emu_runs_ended > 0; return MPI_SUCCESS; }

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  emu_enter("MPI_Abort");
  /* a program refused the thread level it asked for often aborts: say how to give it */
  static const char *const names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  static const char *const cfg[] = {"single", "funneled", "serialized", "multiple"};
  char hint[400];
  const rt_rank *me = emu_self()->rt;
  if (me && me->thread_asked > me->thread_level && me->thread_asked <= MPI_THREAD_MULTIPLE && me->thread_level >= 0) {
    snprintf(hint, sizeof hint, " (it had asked MPI_Init_thread for %s and was given %s: if it calls MPI "
             "from its main thread only, --cfg run/thread-level:%s gives it what it asks)",
             names[me->thread_asked], names[me->thread_level], cfg[me->thread_asked]);
    emu_abort(errorcode, hint);
  }
  emu_abort(errorcode, NULL);
}

/* Reading the clock costs time, as in SMPI (smpi_mpi_wtime): after the read, the rank sleeps
 * smpi/wtime (10 ns by default, --cfg smpi/wtime:S). That is what lets a loop waiting for the
 * clock end (STREAM's checktick, `while (MPI_Wtime() - t0 < 2.0);` in MPICH's bsendpending)
 * when its own code takes no simulated time (under --no-measure; passes shorter than
 * smpi/cpu-threshold are carried over and charged once they add up to it, emu_carry_add, so
 * measured loops move the clock by their own work too), and it gives such loops SMPI's times.
 *
 * A long wait would take one sleep per 10 ns: 2e8 reads for MPICH's 2 s. So psim follows a
 * "streak" of reads per rank: its MPI calls since its last MPI_Wtime were none but this one,
 * and the clock did not move since that read's sleep, except after at most one read in
 * RT_WTIME_NOISE (measured bursts of a spinning loop that the machine's noise pushed over
 * smpi/cpu-threshold). A streak whose reads have injected RT_WTIME_FAST (1 ms: 1e5 reads)
 * is taken to be a wait for the clock: each read then injects the streak's injected time /
 * RT_WTIME_RATIO, at most RT_WTIME_MAX, so that a wait of 2 s ends after about 3e5 reads, at
 * most RT_WTIME_MAX late. This departs from SMPI, which psim says once per run: a loop that
 * reads the clock that often for another purpose (timing MPI_Wtime itself) comes out longer
 * than SMPI's. Short waits (checktick's 20 waits of 1 us, about 2,000 reads) keep SMPI's time
 * exactly. With smpi/wtime 0 (SMPI's loop would never end), a streak of RT_WTIME_IDLE reads
 * in which the clock did not move goes on at 10 ns per read. */
#define RT_WTIME_NOISE 64
#define RT_WTIME_FAST 1e-3
#define RT_WTIME_RATIO 1024
#define RT_WTIME_MAX 1e-5
#define RT_WTIME_IDLE 1000
double MPI_Wtime(void) { return rt_wtime("MPI_Wtime"); }

/* A read of the simulated clock by `call` (MPI_Wtime, or the C library's clocks: rt_clock.c). */
double rt_wtime(const char *call) {
  emu_enter(call);
  emu_sim *S = emu_current;
  emu_rank *k = emu_self();
  rt_rank *me = rt_me();
  double t = emu_now();
  /* The clock moved since the last read by more than the loop's own work: that work is
   * carried over and charged once it adds up to smpi/cpu-threshold (emu_carry_add), every
   * few reads of a slow build's loop (ASan: every other read), and is part of the wait. */
  double own = k->st.compute - me->wtime_comp;
  int moved = t - me->wtime_last > own * (1 + 1e-9) + 1e-15;
  if (k->calls == me->wtime_mark + 1 && (!moved || (me->wtime_moved + 1) * RT_WTIME_NOISE <= me->wtime_streak)) {
    me->wtime_streak++;
    me->wtime_moved += moved;
  } else {
    me->wtime_streak = me->wtime_moved = 0;
    me->wtime_slept = 0;
  }
  double step = S->o->wtime;
  if (step <= 0 && me->wtime_streak >= RT_WTIME_IDLE) step = 1e-8;
  /* never below smpi/wtime: the cap bounds the speed-up, not what a read costs */
  double fast = me->wtime_slept >= RT_WTIME_FAST ? me->wtime_slept / RT_WTIME_RATIO : 0;
  if (fast > RT_WTIME_MAX) fast = RT_WTIME_MAX;
  if (fast > step) {
    if (!S->wtime_warned++ && !S->o->singleton)
      fprintf(stderr, "psim: warning: rank %d has read %s %ld times in a row with nothing else between (a loop waiting "
               "for the clock?): its reads now cost up to %g s each instead of smpi/wtime, so that the "
               "wait ends sooner; a loop reading the clock this often for another purpose is timed "
               "longer than SMPI would\n", k->id, call, me->wtime_streak, RT_WTIME_MAX);
    step = fast;
  }
  if (!k->initialized || k->finalized) step = 0;   /* SMPI injects nothing outside MPI_Init..Finalize */
  if (step > 0) {
    if (emu_trace_on(k)) emu_trace_sleep(k, step);
    emu_sleep(step);
    me->wtime_slept += step;
  }
  me->wtime_mark = k->calls;
  me->wtime_last = emu_now();
  me->wtime_comp = k->st.compute;
  emu_leave();
  return t;
}

double MPI_Wtick(void) { return 1e-9; }

int MPI_Get_processor_name(char *name, int *resultlen) {
  emu_sim *S = emu_current;
  const char *h = plat_host_at(S->o->plat, emu_self()->host)->name;
  snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", h);
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen) {
  snprintf(version, 256, "psim 0.1 (execution-driven MPI simulation)");
  *resultlen = (int)strlen(version);
  return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  if (keyval < MPI_TAG_UB) return rt_attr_comm_get(comm, keyval, attribute_val, flag);
  /* predefined attributes: pointers to static values (process-wide constants), and the
   * calling rank's last used error code (rt_errors.c) */
  static int tag_ub = 0x3fffffff, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1;
  int *p = NULL;
  if (keyval == MPI_TAG_UB) p = &tag_ub;
  else if (keyval == MPI_HOST) p = &host;
  else if (keyval == MPI_IO) p = &io;
  else if (keyval == MPI_WTIME_IS_GLOBAL) p = &wtime_global;
  else if (keyval == MPI_LASTUSEDCODE) p = rt_err_lastused();
  *flag = p != NULL;
  if (p) *(int **)attribute_val = p;
  return MPI_SUCCESS;
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

/* ---- psim's calls ---- */
void psim_at(const char *file, int line) {
  emu_rank *k = emu_current ? emu_running() : NULL;
  if (!k) return;
  k->file = file;
  k->line = line;
}

int MPI_Migrate(void) {
  emu_enter("MPI_Migrate");
  emu_rank *k = emu_self();
  /* a load balancer replaying the trace moves the rank's live heap (see emu_heap.c) */
  if (emu_trace_on(k)) emu_trace_line(k, "migrate %.0f", k->heap > 0 ? k->heap : 0.0);
  emu_dyn_marker(k);
  emu_leave();
  return MPI_SUCCESS;
}

void psim_iteration(void) {
  emu_enter("psim_iteration");
  emu_rank *k = emu_self();
  if (emu_trace_on(k)) emu_trace_line(k, "iteration");
  emu_dyn_marker(k);
  emu_leave();
}

int AMPI_Migrate(int hints) { (void)hints; return MPI_Migrate(); }

void psim_compute(double flops) {
  emu_enter("psim_compute");
  emu_compute(flops);
  emu_leave();
}

void psim_sleep(double seconds) {
  emu_enter("psim_sleep");
  if (emu_trace_on(emu_self())) emu_trace_sleep(emu_self(), seconds);
  emu_sleep(seconds);
  emu_leave();
}

/* The n-th psim_shared_malloc of every rank returns the same buffer (DPS's NOALLOC): programs
 * allocate their arrays in the same order on every rank. A rank asking more than the first
 * one did gets a buffer of its own for that call. */
void *psim_shared_malloc(size_t size) {
  rt_world *w = rt_w();
  rt_rank *me = rt_me();
  size_t i = me->nshared++;
  while (w->shared.len <= i) {
    rt_shared z = {NULL, 0};
    VEC_PUSH(w->shared, z);
  }
  rt_shared *b = &w->shared.data[i];
  if (!b->p) { b->p = xcalloc(1, size ? size : 1); b->len = size; }
  if (size <= b->len) return b->p;
  rt_shared own = {xcalloc(1, size), size};
  VEC_PUSH(w->shared_own, own);   /* kept for release at the end */
  return own.p;
}

void psim_shared_free(void *p) { (void)p; }
