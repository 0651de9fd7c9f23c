/* psim resource models: how fast computations and messages progress on a platform.
 *
 *   cpu      a host's cores shared by its computations (processor sharing, max-min)
 *   smpi     SimGrid/SMPI's flow-level network model: piecewise factors on size+16 bytes,
 *            TCP-gamma window bound, cross-traffic, weight-S, max-min sharing (specs §3)
 *   constant latency + size / bandwidth along the route, no contention (LogGP-like)
 *   star     DPS's star: one full-duplex port per host to a non-blocking crossbar, each port's
 *            bandwidth shared equally among its transfers (star.c, docs/models.md)
 *
 * Configuration uses SimGrid's property names (`--cfg network/TCP-gamma:4194304`); see
 * net_config_set. Ownership: models_new allocates, models_free releases; the platform and the
 * kernel are borrowed and must outlive the models. */
#ifndef PSIM_MODELS_H
#define PSIM_MODELS_H

#include "psim/kernel.h"
#include "psim/platform.h"


typedef enum { NET_SMPI, NET_CONSTANT, NET_STAR } net_model_kind;

/* CLUE's machine file (machine.c, docs/models.md): per-host performance factors and send,
 * receive, packing delays, per-pair transmission times, changes at given dates. Loaded once
 * by the command line, borrowed by every simulation that uses it. */
typedef struct machine machine;
/* Returns NULL with err = FILE:LINE: what was expected (code 2). */
machine *machine_load(const char *path, psim_err *err);
void machine_free(machine *mf);
const char *machine_path(const machine *mf);
/* Checks the patterns against a platform: the first line (number) whose pattern matches no
 * host, or 0 when every pattern matches one; *pattern names it. */
long machine_unmatched(const machine *mf, const platform *p, const char **pattern);

/* "smpi", "constant" or "star" (the JSON's network_model). */
const char *net_model_name(net_model_kind k);
/* Parses --network's value; -1 when unknown. */
int net_model_parse(const char *name, net_model_kind *k);

/* The CPU side of a host besides the application's computations (docs/models.md, "CPU used
 * by communication (DPS)" and "Background users and load average (CLUE)"), set with --cfg:
 *   cpu/send-cost:F cpu/recv-cost:F   fraction of one core a transfer's data phase takes on
 *                                     its sending / receiving host (0..1)
 *   cpu/app-nice:N                    the application's nice (-20..19, CFS weights)
 *   background/count:N background/nice:N   N competing processes on every host
 *   background/trace:FILE (--background FILE)  arrivals: lines `time host cpu_seconds nice`
 *   background/poisson:RATE,MEANCPU,NICE,SEED  Poisson arrivals on every host
 *   loadavg/period:S loadavg/betas:B1,B2,B3 loadavg/max-samples:N   the UNIX load average */
typedef struct cpu_config {
  int active;                    /* one of the keys above was given: report the CPU model */
  double send_cost, recv_cost;
  int app_nice;
  int bg_count, bg_nice;
  char bg_trace[1024];           /* "" = none */
  int poisson;                   /* background/poisson given */
  double poisson_rate, poisson_mean;
  int poisson_nice;
  uint64_t poisson_seed;
  double la_period;              /* seconds between samples (5) */
  double la_betas[3];            /* exp(-period/60), /300, /900 unless custom */
  int la_custom_betas;
  int la_max_samples;            /* per host; 0 = automatic */
} cpu_config;

void cpu_config_init(cpu_config *c);
/* As net_config_set, for the keys above. */
int cpu_config_set(cpu_config *c, const char *key, const char *value, psim_err *err);
/* Linux CFS's weight of a nice level (sched_prio_to_weight): 1024 at 0, 15 at 19. */
int cpu_nice_weight(int nice);

typedef struct net_config {
  net_model_kind model;
  int crosstraffic;              /* network/crosstraffic */
  double tcp_gamma;              /* network/TCP-gamma (bytes) */
  double weight_s;               /* network/weight-S */
  step_fn bw_factor, lat_factor; /* smpi/bw-factor, smpi/lat-factor */
  step_fn lo_bw_factor, lo_lat_factor; /* network/loopback-bw-factor, -lat-factor (psim's own):
                                    the factors of a message between two ranks of one host,
                                    where a node's memory, not its network, carries it */
  int lo_factors;                /* 1: one of the two above was given (else smpi/'s apply) */
  step_fn wr_bw_factor, wr_lat_factor; /* network/written-bw-factor, -lat-factor (psim's own):
                                    the factors of a message whose data its sender has just
                                    written (models_transfer_written: the MPI's own buffers in
                                    a collective), measured by psim calibrate --machine */
  int wr_factors;                /* 1: one of the two above was given (else the others apply) */
  step_fn os, or_, ois;          /* smpi/os, smpi/or, smpi/ois (seconds, of the payload size) */
  double async_small_thresh;     /* smpi/async-small-thresh */
  double detached_thresh;        /* smpi/send-is-detached-thresh */
  double test_sleep;             /* smpi/test */
  int grow_injected;             /* smpi/grow-injected-times */
  double envelope;               /* bytes SMPI adds to every message (16) */
  double loopback_bw, loopback_lat;
  int optim_full;                /* network/optim:Full (exact max-min) instead of Lazy */
  int tie_simgrid;               /* network/tie-order:simgrid: a date's events in SimGrid's heap order */
  int solver_groups;             /* network/solver:groups: group clocks (engine.c); flows: per flow */
  double star_bw, star_lat;      /* star/bandwidth, star/latency: every port's (< 0: its link's) */
  double cpu_factor;             /* cpu/factor: multiplies every host's performance factor */
  const machine *machine;        /* --machine (borrowed), NULL when none */
  cpu_config cpu;                /* cpu/..., background/..., loadavg/... */
  double disk_bw;                /* disk/bandwidth: read and write bandwidth (bytes/s) of the disk
                                  * of a host without a <disk>; 0: such a host's I/O is untimed */
} net_config;

/* SimGrid 3.32's defaults for SMPI. */
void net_config_init(net_config *c);
/* Applies one property. Returns 1 if the key is a model property it handled, 0 if the key is
 * not a model property (the caller may handle it), -1 with err on a bad value. */
int net_config_set(net_config *c, const char *key, const char *value, psim_err *err);

typedef struct models models;

models *models_new(sim *s, const platform *p, const net_config *cfg, psim_err *err);
void models_free(models *m);
const net_config *models_config(const models *m);

/* Starts a computation of `flops` on host h; done() when finished. */
activity *models_exec(models *m, int host, double flops, activity_done_fn done, void *data, int tag);
/* A sleep of `t` seconds on host's CPU (SimGrid's CpuCas01::sleep: it takes no CPU, but its
 * model orders it among the host's activities; see sim_start_sleep). */
activity *models_sleep(models *m, int host, double t, activity_done_fn done, void *data, int tag);
/* A rank on host h blocks in a single wait on a communication still under way. SimGrid's
 * CommImpl::wait_for then creates a sleep of infinite duration on h's CPU (to be told of host
 * failures); creating it touches h's CPU in the modified set, so the computations running on
 * h are re-keyed at the next solve, behind those of hosts not touched (their place among equal
 * end dates). Nothing else: the sleep never ends and takes no CPU. */
void models_wait_blocked(models *m, int host);
/* ---- disks (disk.c): psim run's MPI-IO ---- */
/* Starts a read (write = 0) or a write of `bytes` on host h's disk; done() when it ends. The
 * disk is host h's first <disk> (or disk/bandwidth's): SimGrid's disk model, an I/O being a
 * variable on the disk's read (or write) constraint and on its read+write constraint of
 * max(read_bw, write_bw), shared max-min among the I/Os under way. Without a disk the I/O takes
 * no time (models_disk_of says so). */
activity *models_io(models *m, int host, double bytes, int write, activity_done_fn done, void *data, int tag);
/* Host h's disk: its name, read and write bandwidths; 0 when it has none. */
int models_disk_of(const models *m, int host, const char **name, double *read_bw, double *write_bw);
/* Under the constant model (NET_CONSTANT, no machine file, no CPU cost of communication):
 * the time models_transfer gives a message of `bytes` from host src to host dst (its route's
 * latency when bytes is 0); -1 with err when there is no route. A replay spread over
 * processes dates with it a message whose sender is in another process. */
double models_const_time(models *m, int src, int dst, double bytes, psim_err *err);
/* Starts a message of `bytes` from host src to host dst; done() when the last byte arrives.
 * Returns NULL with err when the platform has no route between them. */
activity *models_transfer(models *m, int src, int dst, double bytes, activity_done_fn done,
                          void *data, int tag, psim_err *err);
/* The same for a message whose data the sender has just written (a collective's step sends
 * what the MPI copied or combined a moment before): moving modified cache lines from one core
 * to another costs more than the ping-pong SMPI's factors come from, so it takes the
 * network/written-* factors when the platform has them, else it is models_transfer. A message
 * between two ranks of one host keeps the loopback factors when there are some. */
activity *models_transfer_written(models *m, int src, int dst, double bytes, activity_done_fn done,
                                  void *data, int tag, psim_err *err);

typedef enum { OVH_SEND, OVH_RECV, OVH_ISEND } overhead_kind;
/* Software overhead (smpi/os, or, ois; per-host overrides) of a message of `bytes` on host h. */
double models_overhead(const models *m, int host, overhead_kind k, double bytes);
/* models_transfer (written: models_transfer_written) whose end, where the constant model dates
 * it at once (no machine file's pair line, no CPU cost of communication: a plain event), is a
 * mark of obj instead (sim_start_mark, kind `mark` of sim_mark_kind: no event a message in
 * flight); elsewhere it starts the activity done(data) as they do. 0, or -1 with err. */
int models_transfer_mark(models *m, int src, int dst, double bytes, int written, void *obj, int mark,
                         activity_done_fn done, void *data, int tag, psim_err *err);
/* The machine file's delays now for a message of `bytes` on host h (0 without one): what the
 * sender pays before its message leaves (send + packing delays), what the receiver pays once
 * it arrived (receive delay), on top of the overheads above. */
double models_send_delay(const models *m, int host, double bytes);
double models_recv_delay(const models *m, int host, double bytes);

/* ---- The CPU model (src/models/cpu_share.c, background.c) ---- */
/* A transfer src->dst starts (on = 1) or ends (on = 0) its data phase: while it flows it
 * takes cpu/send-cost of src's CPU and cpu/recv-cost of dst's. models_transfer calls it for
 * the smpi and constant models; a network model of its own calls it the same way. */
void models_comm_cpu(models *m, int src, int dst, int on);
/* Starts the background processes and the load-average sampler; the drivers call it once
 * the ranks are placed (rank_host[np]). Returns -1 with err (file:line) on a bad
 * background trace. Nothing to do without cpu_config.active. */
int models_cpu_start(models *m, const int *rank_host, int np, psim_err *err);

/* What the CPU model measured, for the outputs (JSON "cpu_model", "hosts", "loadavg"). */
typedef struct cpu_host_report {
  char *name;
  double app, comm, background;  /* CPU-seconds (one core busy for one second = 1) */
  int nsamples;
  double *samples;               /* nsamples x {t, L1, L2, L3} */
} cpu_host_report;

typedef struct cpu_report {
  cpu_config cfg;
  const char *background;        /* "none", "constant", "trace", "poisson" (or a+b) */
  int nhosts;
  cpu_host_report *hosts;        /* the hosts with ranks or background processes */
  char labels[3][32];            /* of the three load averages */
} cpu_report;

/* The report up to now (the end of the run); NULL without cpu_config.active. */
cpu_report *models_cpu_report(models *m);
void cpu_report_free(cpu_report *r);

#endif
