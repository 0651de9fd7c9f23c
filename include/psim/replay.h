/* psim trace replay: each rank is a cursor over its time-independent trace and a small state
 * machine (no thread, no stack per rank); its actions become point-to-point operations of the
 * MPI layer, computations and sleeps of the models.
 *
 * Ownership: the caller owns the options and the trace source; replay_run fills a result that
 * replay_result_free releases. */
#ifndef PSIM_REPLAY_H
#define PSIM_REPLAY_H

#include <stdio.h>

#include "psim/coll.h"
#include "psim/models.h"
#include "psim/mpi_layer.h"
#include "psim/platform.h"
#include "psim/trace.h"

/* What a rank does inside an action besides waiting (replay_observer.phase). */
enum {
  REPLAY_PHASE_COMPUTE,    /* the local computation of a reduction, inside its MPI call */
  REPLAY_PHASE_OVERHEAD,   /* paying smpi/os, smpi/ois (before a send) or smpi/or (after a receive) */
  REPLAY_PHASE_PE,         /* psim lb: a VP ready to run, waiting for its PE */
};

/* Observers see every finished action and every message; trace writers, the critical path and
 * per-iteration statistics are built on these. All callbacks are optional. */
typedef struct replay_observer {
  void *ctx;
  /* rank finished action (text = the trace line without its rank, not NUL-terminated) */
  void (*action)(void *ctx, int rank, const tit_action *a, const char *text, int len,
                 double start, double end);
  /* a message from send->src to send->dst arrived (see mpi_transfer_fn) */
  mpi_transfer_fn message;
  /* the simulation ended (time = simulated makespan) */
  void (*end)(void *ctx, double time);
  /* rank spent [start, end] (end = now, start < end) on REPLAY_PHASE_* what; reported in date
   * order of end per rank. An or overhead may come while the rank computes. */
  void (*phase)(void *ctx, int rank, int what, double start, double end);
} replay_observer;

/* ---- Nodes leaving and joining mid-run, dynamic efficiency (replay_dyn.c, docs/models.md) ----
 * An event spec (--host-events for replay and run, --pe-events for lb) is
 *   EVENT[;EVENT...]   EVENT = WHEN:ACTION=LIST   WHEN = iter=N | t=DATE
 *   ACTION = remove | add   LIST = ITEM[,ITEM...]   ITEM = INDEX | FIRST-LAST | NAME
 * Events apply in the order given. */
enum { DYN_REMOVE, DYN_ADD };
enum { DYN_POLICY_ROUND_ROBIN, DYN_POLICY_LEAST };   /* where a displaced rank goes */
typedef struct dyn_event {
  double date;               /* t=DATE, or -1 for an iteration event */
  int iteration;             /* iter=N (N >= 1), or 0 for a date event */
  int action;                /* DYN_REMOVE, DYN_ADD */
  int *units;                /* host (or PE) indices, ascending, no duplicates */
  int nunits;
} dyn_event;
typedef struct dyn_events { dyn_event *ev; int n; } dyn_events;

/* Parses spec for option opt (in messages). Units are 0..nunits-1; name_of (may be NULL)
 * gives unit i's name, so that items may be names. Returns 0, or -1 with err (code 2) naming
 * the spec, the character position and what was expected. */
int dyn_events_parse(const char *opt, const char *spec, int nunits,
                     const char *(*name_of)(void *ctx, int unit), void *ctx, dyn_events *out,
                     psim_err *err);
void dyn_events_free(dyn_events *e);
/* The placement rule (pure): maps[e * np + r] = unit of rank r after events 0..e, starting
 * from home[r]. Removed units' ranks go to the remaining units round-robin (the k-th displaced
 * rank, in rank order, to the k-th remaining unit modulo their number, in index order) or to
 * the least loaded one (fewest ranks, lowest index); an added unit takes back the ranks whose
 * home it is (wherever they are), and a unit that is no rank's home takes ranks from the most crowded units
 * (their highest-numbered rank, lowest unit first) while it has at least two fewer.
 * Returns a malloc'ed array, or NULL with err when an event leaves no unit. */
int *dyn_events_maps(const dyn_events *e, int np, const int *home, int nunits, int policy,
                     const char *opt, psim_err *err);

/* Dynamic efficiency (DPS): iteration i runs from the date the last rank reached its
 * (i-1)-th marker (0 for the first) to the date the last rank reached its i-th; a marker is
 * a trace's `iteration` or `migrate` (psim_iteration() or MPI_Migrate() in psim run). Its
 * useful computation is the computation done during it, in seconds of a dedicated host (a
 * computation spanning two iterations is split at its actual progress); hosts_allocated the most hosts (PEs in psim lb) allocated at once during
 * it (a host is allocated while it is in the pool or still holds a rank); processor_seconds
 * the integral of the allocated count over it; efficiency = useful / processor_seconds. */
typedef struct dyn_iter {
  int iteration;
  double start, end, useful;
  int hosts;
  double processor_seconds, efficiency;
} dyn_iter;
typedef struct dyn_move { int rank; int from, to; double bytes, start, end; } dyn_move;
typedef struct dyn_event_rec {
  double date;               /* when it took effect */
  int iteration;             /* 0 for a date event */
  int action;
  int *units;                /* the units (host or PE indices) */
  char **names;              /* their names */
  int nnames;
  dyn_move *moves;
  int nmoves;
} dyn_event_rec;
typedef struct dyn_result {
  int niters;
  dyn_iter *iters;
  double processor_seconds;  /* over the whole run */
  int nevents;
  dyn_event_rec *events;
  char **unit_names;         /* move endpoints' names (indexed by unit) */
  int nunit_names;
} dyn_result;

/* The tracker both drivers feed (replay, lb and run). Units are hosts (PEs for lb). */
typedef struct dyn_track dyn_track;
dyn_track *dyn_new(int np, int nunits, const int *initial_unit);
/* rank starts computation a (NULL: it ended at once), worth `seconds` of a dedicated host;
 * dyn_compute_end when a completes (from its done callback: a is freed after it). */
void dyn_compute_start(dyn_track *d, int rank, const activity *a, double seconds);
void dyn_compute_end(dyn_track *d, int rank);
void dyn_marker(dyn_track *d, int rank, double now);         /* rank reached a marker */
int dyn_markers(const dyn_track *d, int rank);               /* markers rank reached so far */
void dyn_pool(dyn_track *d, int unit, int in, double now);   /* unit enters/leaves the pool */
void dyn_place(dyn_track *d, int rank, int unit, double now);/* rank now occupies unit */
/* Event e took effect at now (recorded once; later calls add nothing). */
void dyn_event_fired(dyn_track *d, const dyn_event *ev, int e, double now);
/* Both drivers' --host-events at a rank's boundary: fires the events from *next on that are
 * due for rank at now (a date event once its date passed, iter=N once the rank reached N
 * markers), advancing *next. Returns the host the last of them sends the rank to, by maps
 * (dyn_events_maps, np ranks), with that event's index in *event; -1 when none is due. */
int dyn_events_due(dyn_track *d, const dyn_events *E, const int *maps, int np, int rank,
                   int *next, double now, int *event);
void dyn_move_rec(dyn_track *d, int e, int rank, int from, int to, double bytes, double start,
                  double end);
/* Fills out (once the run ended at makespan) and frees d. unit_name(ctx, i) names unit i.
 * out is left empty when no marker was met and no event given. */
void dyn_finish(dyn_track *d, double makespan, const char *(*unit_name)(void *, int), void *ctx,
                dyn_result *out);
void dyn_result_free(dyn_result *r);

/* Over-decomposition (psim lb, src/adapt/): the ranks are virtual processors (VPs) run as
 * user-level threads on processing elements (PEs), as AMPI does. On a PE one VP runs at a
 * time, until it blocks in communication (a wait for a message) or reaches a balancing step;
 * computing and MPI overheads keep the PE; VPs ready to run wait in FIFO order. Every
 * period-th `migrate` of a VP is a balancing step: all VPs wait for each other, step()
 * decides the new mapping, after lb_cost seconds the memory of each moving VP crosses the
 * network from its old host to its new one (contended like any message), and once every
 * migration arrived all VPs resume. Other migrates are no-ops. NULL in replay_opts: plain
 * replay, where every migrate is a no-op. Ownership: all borrowed from the caller. */
typedef struct replay_vp {
  int npes;
  const int *pe_host;        /* host of each PE */
  int *vp_pe;                /* PE of each VP: the initial mapping, updated at each step */
  int period;                /* 0: no balancing step */
  double lb_cost;            /* simulated run time of the strategy (s) */
  double vp_memory;          /* bytes of a `migrate` without size */
  void *ctx;
  /* Optional: VP vp reached its it-th migrate (1-based) on PE pe at time now, having
   * computed `load` seconds since its previous migrate. */
  void (*iteration)(void *ctx, int vp, int it, int pe, double load, double now);
  /* All VPs reached balancing step `step` (1-based) at time now: loads[v] = VP v's computing
   * time since the previous step, bytes[v] = its memory. Writes the new mapping into new_pe
   * (on entry a copy of vp_pe). Returns 0, or -1 with err to stop the run. */
  int (*step)(void *ctx, int step, double now, const double *loads, const double *bytes,
              int *new_pe, psim_err *err);
  /* Optional: the application resumed after step `step`. */
  void (*resumed)(void *ctx, int step, double now);
  /* --pe-events (NULL: none). An iteration event iter=N forces a balancing step at the N-th
   * migrate; a date event at the first migrate no VP had reached at that date. At the step,
   * the driver marks removed PEs in pe_out (npes flags, owned by the caller) before step(),
   * which must move every VP off them. */
  const dyn_events *pe_events;
  char *pe_out;
} replay_vp;

/* One replay spread over the processes of an MPI job (issue 38, part 2; docs/performance.md,
 * "One replay over an MPI job"). The command line's MPI build provides the collectives; the
 * replay layer stays MPI-free. Each process runs the ranks of a block of hosts, in windows:
 * all run their events dated before T + L (T: the earliest next event of any process, L: the
 * smallest latency between hosts of two processes), then exchange the messages posted.
 * Constant network model only (replay_run refuses the rest, naming the option). */
typedef struct replay_par {
  int nprocs, me;
  void *ctx;
  /* Sends out[p] (outlen[p] bytes) to process p; returns what the others sent this process,
   * concatenated in process order (malloc'd; *inlen bytes). */
  char *(*alltoall)(void *ctx, char *const *out, const size_t *outlen, size_t *inlen);
  /* Element-wise minimum over the processes of x[0..n). */
  void (*min)(void *ctx, double *x, int n);
  /* Gathers every process's buf to process 0: returns there the concatenation in process
   * order (malloc'd; *total bytes, len[p] each when lens is not NULL), NULL elsewhere. */
  char *(*gather)(void *ctx, const void *buf, size_t len, size_t *total, size_t *lens);
} replay_par;

typedef struct replay_opts {
  const platform *plat;
  const int *hostfile;       /* host of each hostfile entry (NULL: the platform's hosts) */
  int nhostfile;
  int np;                    /* number of ranks */
  net_config net;
  coll_selector coll;
  FILE *actions;             /* log of finished actions, or NULL */
  double migrate_bytes;      /* default VP memory for `migrate` without size (unused by replay) */
  int progress;              /* print progress on stderr */
  const replay_observer *observers;  /* array of nobservers, borrowed */
  int nobservers;
  const replay_vp *vp;       /* over-decomposition (psim lb), NULL for plain replay */
  /* --host-events (plain replay only): at each event, the ranks of removed hosts move (their
   * memory crosses the network) at their next action boundary (date events) or at their
   * iteration marker (iter=N); see dyn_events_maps for where they go. */
  const dyn_events *host_events;
  int move_policy;           /* DYN_POLICY_* */
  double rank_memory;        /* bytes a rank moves when its trace has no `migrate SIZE` */
  const replay_par *par;     /* spread over an MPI job's processes (NULL: this one alone) */
} replay_opts;

void replay_opts_init(replay_opts *o, const platform *p, int np);
/* Applies `--cfg key:value`: a model property, or smpi/<collective>:<algorithm>. */
int replay_opts_cfg(replay_opts *o, const char *key, const char *value, psim_err *err);

/* Per-rank times. compute + comm + wait (+ pe_wait + lb for VPs) = finish:
 *  - compute: compute and sleep actions, and the local computation of reductions;
 *  - comm: inside MPI while the rank is busy with its own messages: one it sends or receives
 *    is in flight (latency phase included), or it pays a send/receive overhead
 *    (smpi/os, smpi/ois, smpi/or);
 *  - wait: inside MPI while none of its own messages moves (the peer is late, the message's
 *    transfer has not started, MPI_Test's injected sleeps while nothing moves);
 *  - pe_wait (psim lb): a VP ready to run but waiting for its PE (another VP holds it);
 *  - lb (psim lb): a VP at a balancing step (waiting for the other VPs, the strategy, the
 *    migrations). */
typedef struct rank_stats {
  int host;
  int blocked;               /* deadlock: it never finished (finish = when it blocked for good) */
  double finish;             /* when its last action ended */
  double compute;            /* computing (and sleeping) */
  double comm;               /* in MPI, its own messages moving (or paying overheads) */
  double wait;               /* in MPI, none of its messages moving */
  double pe_wait;            /* VP mode: ready, waiting for its PE */
  double lb;                 /* VP mode: at balancing steps */
  double move;               /* --host-events: its memory moving to another host */
  uint64_t actions, msgs_sent, msgs_recv;
  double bytes_sent, bytes_recv;
} rank_stats;

typedef struct replay_result {
  double simulated_time;     /* the last finish; on a deadlock, the date it was found */
  int np;
  rank_stats *ranks;
  uint64_t actions, events, messages;
  double bytes;
  char *deadlock;            /* multi-line report when ranks could not finish, else NULL */
  cpu_report *cpu;           /* the CPU model's measures (--cfg cpu/..., background/...), or NULL */
  dyn_result dyn;            /* iterations (dynamic efficiency) and host events */
  uint64_t windows;          /* with replay_opts.par: the windows run, and their lookahead (s) */
  double lookahead;
} replay_result;

/* ---- What replay_run and psim run (emu_run) share (replay_common.c) ---- */
/* The host of each of np ranks (malloc'ed): rank r on hostfile[r % nhostfile], or without a
 * hostfile on the platform's host r modulo their number. */
int *replay_place_ranks(const platform *p, const int *hostfile, int nhostfile, int np);
/* Totals a run's result once res->np and res->ranks are filled (and res->deadlock, if any):
 * the makespan is the last finish, or the date now when the run deadlocked after it; the
 * action count is the ranks' sum; messages and bytes are what world carried. */
void replay_result_close(replay_result *res, double now, const mpi_world *w);

/* Returns 0 (result filled), or -1 with err: code 2 for bad input met during the replay,
 * code 3 for a deadlock (the result is filled too, with its report). With o->par, every
 * process calls it; the result (and a deadlock's report) is process 0's, the others' holds
 * their own ranks' figures only; an error is the process's own (the others return -1 with
 * "stopped: another process failed", code 2). */
int replay_run(tit_source *src, const replay_opts *o, replay_result *res, psim_err *err);
void replay_result_free(replay_result *r);

#endif
