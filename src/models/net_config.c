/* Network model configuration: SimGrid/SMPI 3.32 defaults and the --cfg properties. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/models.h"

static const char *DEFAULT_BW_FACTOR =
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;"
    "732:0.341987;257:0.338112;0:0.812084";
static const char *DEFAULT_LAT_FACTOR =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;"
    "732:1.9503;257:1.95341;0:2.01467";

void net_config_init(net_config *c) {
  memset(c, 0, sizeof *c);
  c->model = NET_SMPI;
  cpu_config_init(&c->cpu);
  c->crosstraffic = 1;
  c->tcp_gamma = 4194304;
  c->weight_s = 8775;
  step_fn_parse(&c->bw_factor, DEFAULT_BW_FACTOR, 0, NULL);
  step_fn_parse(&c->lat_factor, DEFAULT_LAT_FACTOR, 0, NULL);
  step_fn_parse(&c->os, "0:0:0", 1, NULL);
  step_fn_parse(&c->or_, "0:0:0", 1, NULL);
  step_fn_parse(&c->ois, "0:0:0", 1, NULL);
  c->async_small_thresh = 0;
  c->detached_thresh = 65536;
  c->test_sleep = 1e-4;
  c->grow_injected = 1;
  c->envelope = 16;
  c->loopback_bw = 10e9;   /* network/loopback-bw 10GBps */
  c->loopback_lat = 0;
  c->star_bw = c->star_lat = -1;   /* the ports' own links */
  c->cpu_factor = 1;
  /* network/solver:groups (group clocks, the default; docs/performance.md, "Group clocks"):
   * equal to network/solver:flows, the per-flow reference, up to rounding. */
  c->solver_groups = 1;
}

const char *net_model_name(net_model_kind k) {
  return k == NET_STAR ? "star" : k == NET_CONSTANT ? "constant" : "smpi";
}

int net_model_parse(const char *v, net_model_kind *k) {
  if (!strcmp(v, "SMPI") || !strcmp(v, "smpi")) *k = NET_SMPI;
  else if (!strcmp(v, "constant") || !strcmp(v, "Constant")) *k = NET_CONSTANT;
  else if (!strcmp(v, "star") || !strcmp(v, "Star")) *k = NET_STAR;
  else return -1;
  return 0;
}



/* A finite number >= lo (> lo when strict): sizes, times, bandwidths and weights, for which a
 * negative, infinite or NaN value would not fail but silently change (or stall) the run. */
static int parse_num(const char *key, const char *v, double lo, int strict, double *out, psim_err *err) {
  char *end;
  double x = strtod(v, &end);
  while (*end == ' ') end++;
  if (end == v || *end || isnan(x))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: '%s' is not a number", key, v);
  if (!isfinite(x) || x < lo || (strict && x == lo))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected a finite number %s %g, got '%s'", key, strict ? ">" : ">=",
                     lo, v);
  *out = x;
  return 0;
}

static int parse_bool(const char *key, const char *v, int *out, psim_err *err) {
  if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "true")) *out = 1;
  else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "false")) *out = 0;
  else return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected yes or no, got '%s'", key, v);
  return 0;
}

/* star/bandwidth, star/latency (with SimGrid's units), disk/bandwidth, cpu/factor. */
static int star_cpu_set(net_config *c, const char *key, const char *v, psim_err *err) {
  int warned = 0;
  char why[256];
  if (!strcmp(key, "star/bandwidth")) {
    if (psim_unit_bandwidth(v, &c->star_bw, &warned, why, sizeof why) < 0 || !(c->star_bw > 0))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg star/bandwidth: expected a positive bandwidth (e.g. 11.85MBps), got '%s'", v);
  } else if (!strcmp(key, "star/latency")) {
    if (psim_unit_time(v, &c->star_lat, &warned, why, sizeof why) < 0 || !(c->star_lat >= 0))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg star/latency: expected a time (e.g. 1350us), got '%s'", v);
  } else if (!strcmp(key, "disk/bandwidth")) {   /* psim's: hosts without a <disk> (disk.c) */
    if (psim_unit_bandwidth(v, &c->disk_bw, &warned, why, sizeof why) < 0 || !(c->disk_bw > 0))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg disk/bandwidth: expected a positive bandwidth (e.g. 100MBps), got '%s'", v);
  } else if (!strcmp(key, "cpu/factor")) {
    if (parse_num(key, v, 0, 1, &c->cpu_factor, err) < 0) return -1;
  } else return 0;
  return 1;
}

/* step_fn_parse, with the property's name in the error message. */
static int parse_steps(const char *key, step_fn *f, const char *v, int overhead, psim_err *err) {
  if (step_fn_parse(f, v, overhead, err) == 0) return 0;
  if (err) {
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    snprintf(err->msg, sizeof err->msg, "--cfg %s: %.1500s", key, msg);
  }
  return -1;
}

/* A bandwidth factor: a zero one leaves messages of that size no bandwidth, never arriving. */
static int parse_bw_steps(const char *key, step_fn *out, const char *v, psim_err *err) {
  step_fn f;
  if (parse_steps(key, &f, v, 0, err) < 0) return -1;
  for (int i = 0; i < f.n; i++)
    if (!(f.a[i] > 0))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: '%s': expected factors above zero, got %g", key, v, f.a[i]);
  *out = f;
  return 0;
}

int net_config_set(net_config *c, const char *key, const char *v, psim_err *err) {
  int r = cpu_config_set(&c->cpu, key, v, err);   /* cpu/..., background/..., loadavg/... */
  if (r) return r;
  if (!strcmp(key, "network/model")) {
    if (net_model_parse(v, &c->model) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg network/model: expected SMPI, constant or star, got '%s'", v);
  } else if ((r = star_cpu_set(c, key, v, err)) != 0) return r;
  else if (!strcmp(key, "network/crosstraffic")) r = parse_bool(key, v, &c->crosstraffic, err);
  else if (!strcmp(key, "network/TCP-gamma") || !strcmp(key, "network/TCP_gamma"))
    r = parse_num(key, v, 0, 0, &c->tcp_gamma, err);   /* 0: no window limit */
  else if (!strcmp(key, "network/weight-S")) r = parse_num(key, v, 0, 0, &c->weight_s, err);
  else if (!strcmp(key, "network/bandwidth-factor") || !strcmp(key, "network/latency-factor")) {
    /* SimGrid's factors of its CM02 model: one number each. Its SMPI model, psim's, reads
     * smpi/bw-factor and smpi/lat-factor instead and leaves these without effect: so does
     * psim, saying so. */
    double x;
    if (parse_num(key, v, 0, 1, &x, err) < 0) return -1;
    fprintf(stderr, "psim: warning: --cfg %s has no effect on the SMPI network model (none in SimGrid "
                    "3.32 either): use smpi/%s-factor:SIZE:FACTOR;...\n", key, key[8] == 'b' ? "bw" : "lat");
  }
  else if (!strcmp(key, "smpi/bw-factor")) r = parse_bw_steps(key, &c->bw_factor, v, err);
  else if (!strcmp(key, "smpi/lat-factor"))
    r = parse_steps(key, &c->lat_factor, v, 0, err);
  else if (!strcmp(key, "network/loopback-bw-factor") || !strcmp(key, "network/loopback-lat-factor")) {
    /* psim's own: SMPI's factors are one set for every route, but a machine of several nodes
     * has two protocols' worth of them, shared memory inside a node and the network between
     * nodes (psim calibrate --machine --hostfile measures both). These apply to messages
     * between two ranks of one host; the one not given starts as smpi/'s at that point. */
    if (!c->lo_factors) c->lo_bw_factor = c->bw_factor, c->lo_lat_factor = c->lat_factor;
    r = key[17] == 'b' ? parse_bw_steps(key, &c->lo_bw_factor, v, err) : parse_steps(key, &c->lo_lat_factor, v, 0, err);
    if (r < 0) return -1;
    c->lo_factors = 1;
  }
  else if (!strcmp(key, "network/written-bw-factor") || !strcmp(key, "network/written-lat-factor")) {
    /* psim's own: a message whose data its sender has just written moves modified cache
     * lines between cores, slower than the ping-pong's (docs/models.md); the one not given
     * starts as smpi/'s at that point */
    if (!c->wr_factors) c->wr_bw_factor = c->bw_factor, c->wr_lat_factor = c->lat_factor;
    r = key[16] == 'b' ? parse_bw_steps(key, &c->wr_bw_factor, v, err) : parse_steps(key, &c->wr_lat_factor, v, 0, err);
    if (r < 0) return -1;
    c->wr_factors = 1;
  }
  else if (!strcmp(key, "smpi/os")) r = parse_steps(key, &c->os, v, 1, err);
  else if (!strcmp(key, "smpi/or")) r = parse_steps(key, &c->or_, v, 1, err);
  else if (!strcmp(key, "smpi/ois")) r = parse_steps(key, &c->ois, v, 1, err);
  else if (!strcmp(key, "smpi/async-small-thresh")) r = parse_num(key, v, 0, 0, &c->async_small_thresh, err);
  else if (!strcmp(key, "smpi/send-is-detached-thresh")) r = parse_num(key, v, 0, 0, &c->detached_thresh, err);
  else if (!strcmp(key, "smpi/test")) r = parse_num(key, v, 0, 0, &c->test_sleep, err);
  else if (!strcmp(key, "smpi/grow-injected-times")) r = parse_bool(key, v, &c->grow_injected, err);
  else if (!strcmp(key, "network/loopback-bw")) r = parse_num(key, v, 0, 1, &c->loopback_bw, err);
  else if (!strcmp(key, "network/loopback-lat")) r = parse_num(key, v, 0, 0, &c->loopback_lat, err);
  else if (!strcmp(key, "network/optim") || !strcmp(key, "network/optimization")) {
    /* Lazy: SimGrid's selective update (its results, quirks included); Full: the exact
     * max-min sharing after every event. (TI is a trace-integration variant of Lazy.) */
    if (!strcmp(v, "Lazy") || !strcmp(v, "TI")) c->optim_full = 0;
    else if (!strcmp(v, "Full")) c->optim_full = 1;
    else return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected Lazy or Full, got '%s'", key, v);
  } else if (!strcmp(key, "network/solver")) {
    /* psim's: groups (the default: flows of one share on one bottleneck on one virtual clock,
     * a saturated link's group re-solved as one variable; equal to flows up to rounding) or
     * flows (the reference, one event-heap entry per flow). */
    if (!strcmp(v, "groups")) c->solver_groups = 1;
    else if (!strcmp(v, "flows")) c->solver_groups = 0;
    else return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected flows or groups, got '%s'", key, v);
  } else if (!strcmp(key, "network/tie-order")) {
    /* psim (default): events of one date end in the order psim last re-rated them; simgrid:
     * in the order of SimGrid's action heaps (lmm_sgorder.c, with network/optim:Lazy; it
     * walks SimGrid's modified set at every event, 1.5-9x slower). */
    if (!strcmp(v, "simgrid")) c->tie_simgrid = 1;
    else if (!strcmp(v, "psim")) c->tie_simgrid = 0;
    else return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected simgrid or psim, got '%s'", key, v);
  } else if (!strcmp(key, "maxmin/precision") || !strcmp(key, "surf/precision") ||
           !strcmp(key, "smpi/simulate-computation") || !strcmp(key, "smpi/host-speed") ||
           !strcmp(key, "smpi/privatization") || !strcmp(key, "smpi/iprobe") || !strcmp(key, "smpi/wtime") ||
           !strcmp(key, "run/iprobe-cost") || !strcmp(key, "run/test-cost") || !strcmp(key, "run/coll-cost") ||
           !strcmp(key, "run/psimcc-coll-selector") ||
           !strcmp(key, "cpu/optim") || !strcmp(key, "cpu/optimization"))
    return 1; /* accepted for compatibility; no effect on psim's exact solver (psim run reads
                 smpi/host-speed, smpi/iprobe, smpi/wtime, the polls' and collectives'
                 costs and the selection for psimcc's programs itself: a replay has no clock to
                 read nor computation to measure) */
  else return 0;
  return r < 0 ? -1 : 1;
}
