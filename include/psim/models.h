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

/* A step function of message size: value of the largest threshold below the size. */
typedef struct step_fn {
  int n;
  double thr[32], a[32], b[32];   /* value = a + b * size */
  double below;                   /* value at or below the smallest threshold, when fixed */
  int below_first;                /* 1: below the smallest threshold use the first section */
} step_fn;

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

typedef struct net_config {
  net_model_kind model;
  int crosstraffic;              /* network/crosstraffic */
  double tcp_gamma;              /* network/TCP-gamma (bytes) */
  double weight_s;               /* network/weight-S */
  step_fn bw_factor, lat_factor; /* smpi/bw-factor, smpi/lat-factor */
  step_fn os, or_, ois;          /* smpi/os, smpi/or, smpi/ois (seconds, of the payload size) */
  double async_small_thresh;     /* smpi/async-small-thresh */
  double detached_thresh;        /* smpi/send-is-detached-thresh */
  double test_sleep;             /* smpi/test */
  int grow_injected;             /* smpi/grow-injected-times */
  double envelope;               /* bytes SMPI adds to every message (16) */
  double loopback_bw, loopback_lat;
  int optim_full;                /* network/optim:Full (exact max-min) instead of Lazy */
  double star_bw, star_lat;      /* star/bandwidth, star/latency: every port's (< 0: its link's) */
  double cpu_factor;             /* cpu/factor: multiplies every host's performance factor */
  const machine *machine;        /* --machine (borrowed), NULL when none */
} net_config;

/* SimGrid 3.32's defaults for SMPI. */
void net_config_init(net_config *c);
/* Applies one property. Returns 1 if the key is a model property it handled, 0 if the key is
 * not a model property (the caller may handle it), -1 with err on a bad value. */
int net_config_set(net_config *c, const char *key, const char *value, psim_err *err);
/* Parses "t0:v0;t1:v1;..." (factors) or "t:a:b;..." (overheads). */
int step_fn_parse(step_fn *f, const char *s, int overhead, psim_err *err);
double step_fn_eval(const step_fn *f, double size);

typedef struct models models;

models *models_new(sim *s, const platform *p, const net_config *cfg, psim_err *err);
void models_free(models *m);
const net_config *models_config(const models *m);

/* Starts a computation of `flops` on host h; done() when finished. */
activity *models_exec(models *m, int host, double flops, activity_done_fn done, void *data, int tag);
/* Starts a message of `bytes` from host src to host dst; done() when the last byte arrives.
 * Returns NULL with err when the platform has no route between them. */
activity *models_transfer(models *m, int src, int dst, double bytes, activity_done_fn done,
                          void *data, int tag, psim_err *err);

typedef enum { OVH_SEND, OVH_RECV, OVH_ISEND } overhead_kind;
/* Software overhead (smpi/os, or, ois; per-host overrides) of a message of `bytes` on host h. */
double models_overhead(const models *m, int host, overhead_kind k, double bytes);
/* The machine file's delays now for a message of `bytes` on host h (0 without one): what the
 * sender pays before its message leaves (send + packing delays), what the receiver pays once
 * it arrived (receive delay), on top of the overheads above. */
double models_send_delay(const models *m, int host, double bytes);
double models_recv_delay(const models *m, int host, double bytes);

#endif
