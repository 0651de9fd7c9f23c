/* psim execution-driven simulation (`psim run`): an MPI program built with psimcc runs for
 * real, each rank a coroutine inside this process, while the kernel keeps simulated time.
 *
 * Computation is what each rank really consumed (its thread CPU time between MPI calls),
 * scaled by host_speed_ref / the simulated host's speed, or what the program declares
 * (psim_compute, psim_sleep, PSIM_SAMPLE, task costs). Communication goes through the same
 * MPI layer and collectives as replay, so a program and its trace take the same time.
 *
 * Ownership: the caller owns the options; emu_run fills a result that replay_result_free
 * releases (the same record as replay, so the same outputs serve both). */
#ifndef PSIM_EMUL_H
#define PSIM_EMUL_H

#include <stdio.h>

#include "psim/replay.h"

/* Exit status when the simulated application failed (a rank crashed, an MPI error, abort). */
enum { PSIM_EXIT_APP = 4 };

typedef struct emu_opts {
  const platform *plat;
  const int *hostfile;        /* host of each hostfile entry (NULL: the platform's hosts) */
  int nhostfile;
  int np;
  net_config net;
  coll_selector coll;
  double host_speed_ref;      /* flop/s of this machine (CPU seconds x this = flops) */
  double cpu_threshold;       /* measured bursts shorter than this (s) are not simulated */
  int measure;                /* 0: only declared costs count (psim_compute...) */
  int charge_copies;          /* run/charge-copies (default 1): the MPI runtime's packing of
                                 non-contiguous datatypes, sends to self and collectives' local
                                 copies are measured and charged to the rank as computation */
  double pack_chunk;          /* run/pack-pipeline (default 65536 bytes; 0: none): a packed
                                 message moves in chunks of this size, each packed before it
                                 leaves and unpacked as it lands, so the packing and unpacking
                                 of a longer message overlap its transfer (emu_work_pipeline) */
  double iprobe_sleep;        /* smpi/iprobe: simulated time an unsuccessful iprobe costs */
  double wtime;               /* smpi/wtime: simulated time a read of MPI_Wtime costs */
  double coll_cost;           /* run/coll-cost: CPU seconds each collective call costs the rank
                                 beyond its messages (the MPI's own work in the call, measured
                                 by psim calibrate --machine); 0 by default */
  double iprobe_cost, test_cost; /* run/iprobe-cost, run/test-cost: CPU seconds each MPI_Iprobe,
                                    each MPI_Test* costs the rank (the real MPI's progress poll,
                                    measured by psim calibrate --machine); 0 by default */
  int singleton;              /* --singleton: the run looks like the program alone (no notes of
                                 psim's own on stderr, e.g. for test harnesses that compare the
                                 output) */
  int inject_polls;           /* 1: SMPI's injected sleeps in test/iprobe (set by --cfg
                                 smpi/test, smpi/iprobe, smpi/grow-injected-times); 0 (the
                                 default): a rank polling in vain waits for the next event */
  size_t stack_size;          /* per rank, bytes */
  struct emu_repeat *repeat;  /* --repeat: the bursts of earlier runs of the same program, each
                                 charged the least of its measurements (NULL: one run) */
  int threads;                /* --threads: OS threads the ranks' own code runs on, in the
                                 turns' order of src/emul/emu_par.c (the same for every N);
                                 0 (the default): psim's own thread, in its own order */
  int lookahead;              /* run/lookahead (default yes): under --threads, simulated time
                                 passes while ranks compute, up to where their computations
                                 cannot matter yet (emu_par.c) */
  int threads_stats;          /* run/threads-stats:yes: says how many workers ran at once */
  int thread_level;           /* run/thread-level: the highest level MPI_Init_thread provides
                                 (0 SINGLE .. 3 MULTIPLE; default 1, FUNNELED). Whatever it
                                 says, only a rank's own thread can call MPI (another thread's
                                 call stops the run): above FUNNELED it is for programs that ask
                                 more than they use (cp2k asks SERIALIZED and aborts without) */
  double lock_limit;          /* run/lock-limit: seconds of wall time a rank may wait for a lock
                                  outside MPI while nothing in the process runs (0: never) */
  uint64_t spin_limit;        /* run/spin-limit: quiet failed polls that make a livelock
                                 (emu_spin.c); 0: never */
  double compute_limit;       /* wall seconds a rank may run its own code without calling MPI
                                 before the run stops (emu_watch.c); 0: no limit */
  int shared_globals;         /* 1: one copy of the program's globals for all ranks */
  const char *program;        /* the shared object built by psimcc, or a PIE built by MPICH's mpicc */
  const char *privatize_libs; /* --privatize-libs: comma-separated libraries copied per rank, or NULL */
  int argc;
  char **argv;                /* argv[0] = program */
  FILE *actions;              /* log of MPI calls (END RANK CALL DURATION), or NULL */
  const char *trace_tit;      /* directory to record a TIT trace into, or NULL */
  const char *measure_tasks;  /* file to write measured PSIM_TASK costs to, or NULL */
  const char *task_costs;     /* file of task costs to inject, or NULL */
  const dyn_events *host_events;  /* --host-events, or NULL (see replay_opts) */
  int move_policy;            /* DYN_POLICY_* */
  double rank_memory;         /* bytes a rank with no heap moves */
  const replay_observer *observers;  /* see replay_opts (borrowed): every MPI call as the trace
                                       action of the same meaning, computations, messages */
  int nobservers;
  int *status;                /* if set, gets the program's exit status: the first non-zero
                                 status a rank returned from main or passed to exit, else 0 */
} emu_opts;

void emu_opts_init(emu_opts *o, const platform *p, int np);

/* How busy the machine was while psim run measured (src/emul/emu_busy.c): the machine's CPU
 * accounting (/proc/stat, clock ticks summed over its CPUs) and psim's own CPU seconds at one
 * moment. */
typedef struct emu_busy_mark { double busy, steal, all, tick, self; int ok; } emu_busy_mark;
void emu_busy_mark_now(emu_busy_mark *m);
/* /proc/stat's first line: busy ticks (user, nice, system, irq, softirq), steal, and all of
 * them with idle and iowait. 0, or -1 when the line is not one. */
int emu_busy_parse_stat(const char *line, double *busy, double *steal, double *all);
/* Between marks a and b: the share of the machine's CPU time other processes used (what its
 * CPUs did beyond psim's own work) and the share the VM's host took (steal), both in [0, 1]
 * of all CPUs. -1 when unknown or too short to say (under 50 ticks of machine time). */
int emu_busy_share(const emu_busy_mark *a, const emu_busy_mark *b, double *others, double *steal);

/* Measuring a program several times (psim run --repeat K; src/emul/emu_repeat.c): each burst
 * of each rank is charged the least of its measurements in the runs made with the same
 * emu_repeat, as long as the rank makes the same MPI calls in the same order (else its later
 * bursts are each run's own). emu_run starts a run of it (emu_repeat_begin). */
typedef struct emu_repeat emu_repeat;
emu_repeat *emu_repeat_new(int np);
void emu_repeat_free(emu_repeat *x);
void emu_repeat_begin(emu_repeat *x);
/* The seconds to charge for `rank`'s next burst, measured `seconds`, ended by `call`. */
double emu_repeat_burst(emu_repeat *x, int rank, const char *call, double seconds);
/* Ranks that took another path in some run; bursts stored (the first run's). */
int emu_repeat_diverged(const emu_repeat *x);
long emu_repeat_bursts(const emu_repeat *x);
/* --cfg key:value: model properties, smpi/<collective>, smpi/iprobe, smpi/cpu-threshold,
 * smpi/host-speed, smpi/simulate-computation. */
int emu_opts_cfg(emu_opts *o, const char *key, const char *value, psim_err *err);

typedef struct emu_sim emu_sim;

/* Runs the program. Returns 0, or -1 with err: code 2 bad input (program cannot be loaded),
 * 3 deadlock (res->deadlock filled too), 4 the application failed (crash, MPI error, abort). */
int emu_run(const emu_opts *o, replay_result *res, psim_err *err);

/* Whether path is a program psim run can load (a readable shared object built by psimcc),
 * without loading it: 0, or -1 with err (code 2) saying why not. For checking early. */
int emu_prog_check(const char *path, psim_err *err);

/* The MPI whose ABI the program was built for: EMU_MPI_MPICH (it needs libmpich.so.12,
 * itself or through its libraries), EMU_MPI_OMPI (libmpi.so.40), 0 for psimcc's shared
 * objects and anything else (emu_abi.c). psim run takes that MPI's collective algorithms. */
enum { EMU_MPI_MPICH = 1, EMU_MPI_OMPI = 2 };
int emu_prog_mpi(const char *path);

/* Measures this machine's flop rate (a dependent multiply-add loop) for about `seconds`. */
double emu_calibrate(double seconds);

#endif
