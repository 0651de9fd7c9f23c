/* Machine calibration (psim calibrate --machine, docs/calibrate.md): what the probe measured
 * on the real MPI, the fit of its message times, and the platform that describes the machine.
 * Pure functions of the measurements; running the probe is the command's (src/cli). */
#ifndef PSIM_CALIB_H
#define PSIM_CALIB_H

#include <stdio.h>

#include "psim/util.h"

enum { CALIB_MAXSEG = 8, CALIB_MAXPTS = 128 };

/* What the probe (src/tools/probe/psim_probe.c) printed: times of one-way ping-pong messages
 * and of exchanges (two transfers at once, one each way), and the costs of polling calls. */
typedef struct calib_probe {
  int npp, nex;
  double pp_size[CALIB_MAXPTS], pp_time[CALIB_MAXPTS];
  double ex_size[CALIB_MAXPTS], ex_time[CALIB_MAXPTS];
  int nwr;                      /* one-way times of data the sender wrote just before sending
                                   it, less the write (the probe's 'written' lines) */
  double wr_size[CALIB_MAXPTS], wr_time[CALIB_MAXPTS];
  double iprobe, test, wtime;   /* seconds per call; < 0 when not measured */
  double allreduce;             /* one MPI_Allreduce of a double at 2 ranks; < 0: not measured */
  double run_charges;           /* what psim run charges the same allreduce beyond its messages
                                   (the loop's own code and psim's copy and combine, measured:
                                   the probe's allreduce under psim run on the fitted platform,
                                   less the same run without measuring; the line 'run-charges
                                   SECONDS'); < 0: not measured */
  double flops;                 /* one core's flop/s as psim run measures it (psim adds the
                                   line 'flops RATE'); <= 0 when not measured */
  char mpi[8];                  /* "mpich" or "ompi" when known (psim adds the line 'mpi NAME');
                                   "" otherwise */
} calib_probe;

/* Reads the probe's output (its line format is in psim_probe.c); errors name the file and line.
 * Measurements between two nodes (psim calibrate --machine --hostfile) follow those inside one,
 * as a second block whose header ends in "between-nodes": read into `between` (when not NULL;
 * else such a block is an error). Returns 1 when there was one, 0 if not, -1 with err. */
int calib_probe_read(FILE *f, const char *name, calib_probe *p, calib_probe *between, psim_err *err);
/* Writes it back in the same format (psim calibrate --save-measurements). */
void calib_probe_write(FILE *f, const calib_probe *p, int between_nodes);
/* Keeps in `best` the lower of its and `other`'s time at every size both measured, and of each
 * polling and collective cost (psim calibrate --machine --launches: the best of several runs of
 * the probe, each a new placement of the two processes). Sizes only one of them has are left
 * as `best` has them. */
void calib_probe_best(calib_probe *best, const calib_probe *other);

/* A segment of a piecewise linear fit: for sizes from `from` on, time = a + b * size. */
typedef struct calib_seg { double from, to, a, b; } calib_seg;

/* Fits t(size) over n points sorted by size with at most kmax segments of 3 points or more,
 * or of one point (least squares on the relative error, a and b >= 0; segment bounds are
 * measured sizes; a one-point segment is the line through it and (-env, 0), so that the
 * model's P = size + env bytes take latency 0 and its time). It takes the fewest segments
 * whose root mean square relative error is within tol and worst within 2 tol, or, when none
 * is, the fewest within 10 % of the best reachable on both. A point more than 1.5 times both
 * its neighbours (a single size the MPI is slow at, not a protocol's step) is left out.
 * Returns the number of segments, -1 (err) on fewer than 3 points. */
int calib_fit_segments(const double *size, const double *t, int n, int kmax, double tol, double env,
                       calib_seg *seg, psim_err *err);
double calib_segments_eval(const calib_seg *seg, int k, double size);
/* Whether point i of t[0..n) is such a spike (left out of the fit). */
int calib_is_spike(const double *t, int n, int i);

/* The machine as psim's platform describes it: a cluster with one host per core, each host's
 * private link a FATPIPE of bandwidth bw and latency lat / 2 (a transfer alone), the cluster's
 * backbone a SHARED link of bandwidth bus (the node's memory, shared by all transfers of the
 * node in both directions), SMPI's factors per size (sections of thr, as smpi/bw-factor and
 * smpi/lat-factor write them), MPI_Wtime's cost (smpi/wtime) and the polls' costs (the cluster's
 * properties psim/run/iprobe-cost and psim/run/test-cost, read by psim run alone:
 * docs/calibrate.md). One-way time of a message of P = size + envelope bytes with s transfers at once:
 *   latf(P) lat + P / (bwf(P) min(bw, bus / s)). */
typedef struct calib_model {
  double speed;                 /* flop/s of one core: hosts' speed and smpi/host-speed */
  int cores;
  double lat, bw, bus, envelope;
  int nseg;
  double thr[CALIB_MAXSEG], latf[CALIB_MAXSEG], bwf[CALIB_MAXSEG];
  int nwseg;                    /* the written data's factors (psim/network/written-*), of the
                                   same latency and bandwidth; 0: none */
  double wthr[CALIB_MAXSEG], wlatf[CALIB_MAXSEG], wbwf[CALIB_MAXSEG];
  double iprobe, test, wtime;   /* < 0: not written */
  double coll;                  /* a collective call's own CPU time beyond its messages: the
                                   measured 8-byte allreduce less the model's exchange of 8
                                   bytes (of written data when there is a fit of it), its one
                                   step at 2 ranks, and less what psim run charges the call on
                                   its own (run_charges) (psim/run/coll-cost); <= 0: not written */
  const char *mpi;              /* "mpich", "ompi" or NULL: psimcc's programs take its collective
                                   selection (run/psimcc-coll-selector, psim run alone) */
  double exch_ratio;            /* measured exchange / ping-pong time at large sizes */
} calib_model;

/* The model of the fitted ping-pong segments (sizes as the program sends them) and of the
 * exchanges: the backbone's bandwidth from the ratio of exchange to ping-pong times over the
 * largest third of the sizes both measured. */
void calib_model_from_fit(calib_model *m, const calib_seg *seg, int k, const calib_probe *p);
double calib_model_time(const calib_model *m, double size, int streams);
/* The fitted segments of written data (calib_probe's wr_*) as factors of m's latency and
 * bandwidth (what psim's network/written-lat-factor and -bw-factor give a collective's
 * messages); m->coll is then the allreduce less the model's exchange of 8 written bytes. */
void calib_model_written(calib_model *m, const calib_seg *seg, int k, const calib_probe *p);
/* m->coll from p's allreduce, m's exchange of 8 bytes (written, when m has that fit) and p's
 * run_charges (calib_model_from_fit and calib_model_written call it; again once run_charges is
 * measured, which needs the fitted platform). */
void calib_model_coll(calib_model *m, const calib_probe *p);
/* A message of written data: its factors, or calib_model_time's when there is no such fit. */
double calib_model_time_written(const calib_model *m, double size, int streams);
/* Writes the platform (SimGrid's XML, version 4.1, with its <config>); comment may be NULL. */
void calib_write_platform(FILE *f, const calib_model *m, const char *comment);
/* A machine of several nodes: `in` fitted inside one node, `net` between two. A cluster of
 * `nodes` hosts of in->cores cores: a host's private link of net's latency / 2 and bandwidth
 * (SPLITDUPLEX when net's exchanges ran both ways at once, calib_full_duplex, else SHARED),
 * its loopback of in's latency and bandwidth; SMPI's factors net's, the loopback's in's
 * (psim's network/loopback-lat-factor and -bw-factor, as the cluster's psim/ properties, so
 * SimGrid applies net's factors to messages inside a node too). */
void calib_write_platform_nodes(FILE *f, const calib_model *in, const calib_model *net, int nodes, const char *comment);
/* Whether the exchanges between nodes ran both ways at once (exchange / ping-pong under 1.5). */
int calib_full_duplex(const calib_model *net);
/* The model of a message inside a node of such a machine: the loopback, FATPIPE, so
 * concurrent transfers do not share it (bus = 2 bw); between nodes, as calib_full_duplex. */
void calib_model_nodes(calib_model *in, calib_model *net);

#endif
