/* What models.c shares with the model files beside it (star.c, machine.c). Not public. */
#ifndef PSIM_MODELS_INTERNAL_H
#define PSIM_MODELS_INTERNAL_H

#include "psim/models.h"

/* ---- DPS's star network (star.c) ---- */
typedef struct star star;
/* `owner` is told when a transfer starts and stops flowing (the CPU it costs: models_comm_cpu). */
star *star_new(sim *s, const platform *p, const net_config *c, models *owner);
void star_free(star *st);
/* A message of `bytes` from host src to dst: the larger port latency, then its bytes at the
 * equal share of both ports, re-rated whenever a port's count of transfers changes. */
activity *star_transfer(star *st, int src, int dst, double bytes, activity_done_fn done, void *data, int tag);
/* The port of host h (after the star/bandwidth, star/latency overrides), for tests and docs. */
void star_port(const star *st, int h, double *bandwidth, double *latency);

/* ---- CLUE's machine file bound to a platform (machine.c) ---- */
typedef enum { MACH_SEND, MACH_RECV, MACH_PACK, MACH_NDELAYS } mach_delay_kind;
typedef struct mach_bound mach_bound;
mach_bound *mach_bind(const machine *mf, const platform *p);
void mach_unbind(mach_bound *b);
/* Host h's performance factor at date `now` (1 when no line sets it). */
double mach_factor(const mach_bound *b, int h, double now);
/* One of host h's delays for a message of `bytes` at date `now` (0 when no line sets it). */
double mach_delay(const mach_bound *b, int h, mach_delay_kind which, double bytes, double now);
/* 1 and *t = the transmission time of `bytes` between src and dst at `now` when a pair line
 * covers them, else 0 (the network model decides). */
int mach_transmit(const mach_bound *b, int src, int dst, double bytes, double now, double *t);
/* The dates > 0 at which some host's factor changes (ascending, distinct). */
int mach_factor_dates(const mach_bound *b, const double **dates);

/* ---- disks (disk.c) ---- */
typedef struct disks disks;
/* The disks' solver constraints (3 per host that has a disk), made once by models_new. */
disks *disks_new(sim *s, const platform *p, const net_config *c);
void disks_free(disks *d);
disks *models_disks(const models *m);   /* models.c */

#endif
