/* psim forecast: FAST's analytic forecasts of pdgemm and pdtrsm on every grid shape
 * (paper 003), the best grid, redistribution before a product, memory per process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_emit.h"
#include "cli/forecast_report.h"
#include "psim/forecast.h"
#include "psim/models.h"
#include "psim/observe.h"
#include "psim/platform.h"

static const char *HELP =
    "usage: psim forecast pdgemm|pdtrsm --m M --n N [--k K] --nb R --procs P|A-B [options]\n"
    "\n"
    "Forecasts the run time of a ScaLAPACK routine on every processor grid p x q with p q = P\n"
    "(or every P of a range), without simulating: FAST's formulas (Caron, Desprez, Suter,\n"
    "paper 003) over sequential kernel models and a lambda + L tau network. Marks the best grid.\n"
    "\n"
    "routines:\n"
    "  pdgemm   C = A B, A M x K, B K x N, block-cyclic with R x R blocks. Formula (4.3):\n"
    "             T = ceil(K/R) dgemm_time + M K tau_p^q + K N tau_q^p\n"
    "                 + ceil(K/R) (lambda_p^q + lambda_q^p)\n"
    "           dgemm_time: one kernel call on blocks ceil(M/p) x R by R x ceil(N/q);\n"
    "           tree broadcasts (4.4): lambda_p^q = ceil(log2 q) lambda, tau_p^q =\n"
    "           (ceil(log2 q)/p) tau (a row of the grid broadcasts its piece of A's panel);\n"
    "           lambda_q^p, tau_q^p the same with p and q swapped (B's panel down columns).\n"
    "  pdtrsm   X op(A) = B or op(A) X = B, B M x N, A triangular, R x R blocks\n"
    "           (--side L|R, --uplo U|L, --trans N|T; default R U N, the paper's case 2).\n"
    "           ceil(M/R) calls of pbdtrsm, each (4.8): sum over the ceil(N/R) diagonal blocks of\n"
    "             trsm_time + T_broadcast + C_b + dgemm_time_1 + T_send + C_u + add_time\n"
    "           trsm_time: solve of an R x R block; T_broadcast = R^2 tau + lambda (4.5) to the\n"
    "           next process of the row ring; dgemm_time_1: update of the first min(c, p-1)\n"
    "           remaining blocks of a column (c of them), sent down the column, T_send =\n"
    "           R min((p-1)R, cR) tau + lambda (4.7), accumulated (add_time); C_b, C_u: idle\n"
    "           times (the receiver waits for the sender, a sender of 64 KiB or more for the\n"
    "           receiver), from per-process clocks. On a row (p = 1), (4.6): the update of all\n"
    "           c blocks, no send. Cases 2, 4 are modelled as 2; 1, 3 as 2 transposed.\n"
    "\n"
    "options:\n"
    "  --m M --n N --k K --nb R  sizes (pdtrsm has no K)\n"
    "  --step S           pdgemm: the product over K in steps of S columns, not R (ceil(K/S)\n"
    "                     kernel calls on ceil(M/p) x S by S x ceil(N/q), and as many\n"
    "                     broadcasts): the PBLAS of ScaLAPACK 2 (Debian's) steps by 32, its\n"
    "                     PILAENV, whatever R; the paper's pdgemm steps by blocks\n"
    "  --procs P | A-B    grids of P processes, or of every count from A to B\n"
    "  --grid PxQ         only this grid\n"
    "  --latency L --bandwidth B   lambda (s, or with a unit: 50us) and the bandwidth (bytes/s\n"
    "                     or a unit: 100Mbps); tau = 8 / B, the time of one 8-byte element\n"
    "  --platform FILE    lambda and B from the route between two hosts of a SimGrid platform\n"
    "                     (or flat:N,SPEED,BW,LAT): sum of latencies, smallest bandwidth\n"
    "  --hosts A,B        which two hosts (default: the first two)\n"
    "  --kernels FILE     kernel models (psim calibrate --kernels writes one; docs/forecast.md)\n"
    "  --kernel-rate F    instead: every kernel takes flops / F seconds (with --platform and\n"
    "                     neither option: F = the first host's speed)\n"
    "  --memory BYTES     memory of a host (e.g. 256MiB): grids needing more per process are\n"
    "                     discarded (SimGrid platforms do not give it)\n"
    "  --eager BYTES      messages below this do not block their sender (pdtrsm; 65536)\n"
    "  --network linear|smpi  linear (default): the paper's lambda + L tau per message; smpi:\n"
    "                     SimGrid/SMPI's factors, S bytes cost lat_factor(S+16) lambda +\n"
    "                     (S+16) / (bw_factor(S+16) B) (the broadcasts message by message)\n"
    "  --ga PxQ --gb PxQ  pdgemm when A is on grid Ga and B on a disjoint grid Gb: compare\n"
    "                     computing on Ga (B redistributed), on Gb (A redistributed) or on every\n"
    "                     grid of all their processes (both redistributed) (paper section 5)\n"
    "  --json FILE        JSON: grids (p, q, time, compute, communication, idle, memory, fits),\n"
    "                     best (p, q, time), best_per_procs, schedule (with --ga/--gb); - = stdout\n"
    "  --report F.html    an offline HTML page: Figure 4.2 as a heatmap, Figure 3.1, the table\n"
    "  --quiet            no table on stdout\n"
    "\n"
    "examples:\n"
    "  psim forecast pdgemm --m 2048 --n 2048 --k 2048 --nb 64 --procs 1-32 \\\n"
    "      --latency 50us --bandwidth 100Mbps --kernel-rate 5e8 --report fig42.html\n"
    "  psim forecast pdtrsm --m 2048 --n 2048 --nb 64 --procs 8 --platform flat:8 --kernels k.txt\n"
    "  psim forecast pdgemm --m 2000 --n 2000 --k 2000 --nb 64 --ga 4x2 --gb 2x2 \\\n"
    "      --latency 50us --bandwidth 100Mbps --kernel-rate 5e8\n"
    "\n"
    "Exit status: 0, or 2 for a bad option, size, grid, platform or model file.\n";

typedef struct fopts {
  fc_problem pb;
  long pmin, pmax;
  int gp, gq;                       /* --grid, 0 = all */
  int ga[2], gb[2];
  const char *lat, *bw, *plat, *hosts, *kernels, *rate, *mem, *eager, *json, *report, *network;
  int quiet;
} fopts;

static int parse_grid(const char *s, int *p, int *q) {
  char *e;
  long a = strtol(s, &e, 10);
  if (e == s || (*e != 'x' && *e != 'X')) return -1;
  const char *t = e + 1;
  long b = strtol(t, &e, 10);
  if (e == t || *e || a < 1 || b < 1 || a > 1 << 20 || b > 1 << 20) return -1;
  *p = (int)a;
  *q = (int)b;
  return 0;
}

static int parse_size(const char *opt, const char *v, long *out) {
  char *e;
  long x = v ? strtol(v, &e, 10) : 0;
  if (!v || !*v || *e || x < 1 || x > 100000000L)
    return cli_usage("forecast", "%s expects a positive integer (at most 1e8), got '%s'", opt, v ? v : "");
  *out = x;
  return 0;
}

/* The options that take a value (--quiet is the only flag). */
static int is_option(const char *a) {
  static const char *const known[] = {"--m", "--n", "--k", "--nb", "--step", "--procs", "--grid", "--ga", "--gb",
                                      "--side", "--uplo", "--trans", "--latency", "--bandwidth",
                                      "--platform", "--hosts", "--kernels", "--kernel-rate", "--memory",
                                      "--eager", "--network", "--json", "--report", NULL};
  for (int i = 0; known[i]; i++)
    if (!strcmp(a, known[i])) return 1;
  return 0;
}

/* --help was given: the help is printed, the command exits 0 (parse_args' return). */
#define FORECAST_HELP_SHOWN (-1)

/* argv into o: usage errors end the command here, before anything is read or computed. 0,
 * FORECAST_HELP_SHOWN, or the exit status. */
static int parse_args(int argc, char **argv, fopts *o) {
  /* --help anywhere wins, even after a bad option */
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(HELP, stdout); return FORECAST_HELP_SHOWN; }
  memset(o, 0, sizeof *o);
  o->pb.side = 'R';
  o->pb.uplo = 'U';
  o->pb.trans = 'N';
  if (argc < 2) return cli_usage("forecast", "which routine? pdgemm or pdtrsm");
  if (!strcmp(argv[1], "pdgemm")) o->pb.routine = FC_PDGEMM;
  else if (!strcmp(argv[1], "pdtrsm")) o->pb.routine = FC_PDTRSM;
  else return cli_usage("forecast", "unknown routine '%s' (pdgemm or pdtrsm)", argv[1]);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
    if (!is_option(a)) return cli_usage("forecast", "unknown option '%s'", a);
    if (!v) return cli_usage("forecast", "%s expects a value", a);
    i++;
    if (!strcmp(a, "--m")) { if (parse_size(a, v, &o->pb.m)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--n")) { if (parse_size(a, v, &o->pb.n)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--k")) { if (parse_size(a, v, &o->pb.k)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--nb")) { if (parse_size(a, v, &o->pb.nb)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--step")) { if (parse_size(a, v, &o->pb.step)) return PSIM_EXIT_USAGE; }
    else if (!strcmp(a, "--procs")) {
      char *e;
      o->pmin = strtol(v, &e, 10);
      o->pmax = o->pmin;
      if (*e == '-') o->pmax = strtol(e + 1, &e, 10);
      if (*e || o->pmin < 1 || o->pmax < o->pmin || o->pmax > 1 << 20)
        return cli_usage("forecast", "--procs expects P or A-B with 1 <= A <= B <= 1048576, got '%s'", v);
    } else if (!strcmp(a, "--grid") || !strcmp(a, "--ga") || !strcmp(a, "--gb")) {
      int *p = !strcmp(a, "--grid") ? &o->gp : !strcmp(a, "--ga") ? &o->ga[0] : &o->gb[0];
      int *q = !strcmp(a, "--grid") ? &o->gq : !strcmp(a, "--ga") ? &o->ga[1] : &o->gb[1];
      if (parse_grid(v, p, q)) return cli_usage("forecast", "%s expects PxQ (e.g. 4x8), got '%s'", a, v);
    } else if (!strcmp(a, "--side") || !strcmp(a, "--uplo") || !strcmp(a, "--trans")) {
      char *c = a[2] == 's' ? &o->pb.side : a[2] == 'u' ? &o->pb.uplo : &o->pb.trans;
      *c = strlen(v) == 1 ? v[0] : '?';
    }
    else if (!strcmp(a, "--latency")) o->lat = v;
    else if (!strcmp(a, "--bandwidth")) o->bw = v;
    else if (!strcmp(a, "--platform")) o->plat = v;
    else if (!strcmp(a, "--hosts")) o->hosts = v;
    else if (!strcmp(a, "--kernels")) o->kernels = v;
    else if (!strcmp(a, "--kernel-rate")) o->rate = v;
    else if (!strcmp(a, "--memory")) o->mem = v;
    else if (!strcmp(a, "--eager")) o->eager = v;
    else if (!strcmp(a, "--network")) o->network = v;
    else if (!strcmp(a, "--json")) o->json = v;
    else if (!strcmp(a, "--report")) o->report = v;
    else return cli_usage("forecast", "unknown option '%s'", a);
  }
  if (!o->pb.m || !o->pb.n || !o->pb.nb || (o->pb.routine == FC_PDGEMM && !o->pb.k))
    return cli_usage("forecast", "give the sizes: --m, --n%s and --nb", o->pb.routine == FC_PDGEMM ? ", --k" : "");
  if (o->pb.step && o->pb.routine != FC_PDGEMM) return cli_usage("forecast", "--step is for pdgemm");
  if (o->ga[0] && !o->gb[0]) return cli_usage("forecast", "--ga needs --gb");
  if (o->gb[0] && !o->ga[0]) return cli_usage("forecast", "--gb needs --ga");
  if (o->ga[0] && o->pb.routine != FC_PDGEMM) return cli_usage("forecast", "--ga/--gb are for pdgemm");
  if (!o->pmin) {
    if (o->ga[0]) o->pmin = o->pmax = (long)o->ga[0] * o->ga[1] + (long)o->gb[0] * o->gb[1];
    else if (o->gp) o->pmin = o->pmax = (long)o->gp * o->gq;
    else return cli_usage("forecast", "give --procs P or A-B (or --grid PxQ)");
  }
  if (o->gp && ((long)o->gp * o->gq < o->pmin || (long)o->gp * o->gq > o->pmax))
    return cli_usage("forecast", "--grid %dx%d has %ld processes, outside --procs %ld-%ld", o->gp,
                     o->gq, (long)o->gp * o->gq, o->pmin, o->pmax);
  if (o->kernels && o->rate) return cli_usage("forecast", "give --kernels or --kernel-rate, not both");
  if ((o->lat || o->bw) && o->plat)
    return cli_usage("forecast", "give --latency and --bandwidth, or --platform, not both");
  if (!o->plat && (!o->lat || !o->bw))
    return cli_usage("forecast", "the network: give --latency and --bandwidth, or --platform");
  return 0;
}

/* The network and, without a kernel option, the host speed, from a platform. */
static int net_from_platform(const fopts *o, fc_net *net, double *speed, char *desc, size_t n) {
  psim_err err;
  psim_err_clear(&err);
  char *warnings = NULL;
  platform *pl = plat_open(o->plat, &warnings, &err);
  free(warnings);
  if (!pl) return cli_fail(&err);
  int a = 0, b = plat_nhosts(pl) > 1 ? 1 : 0;
  if (o->hosts) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", o->hosts);
    char *comma = strchr(buf, ',');
    if (comma) *comma = 0;
    a = plat_host_find(pl, buf);
    b = comma ? plat_host_find(pl, comma + 1) : -1;
    if (a < 0 || b < 0) {
      plat_free(pl);
      return cli_usage("forecast", "--hosts expects two hosts of the platform as A,B, got '%s'", o->hosts);
    }
  }
  int route[1024];
  double extra;   /* a Vivaldi zone's latency */
  int len = plat_route_lat(pl, a, b, route, 1024, &extra, &err);
  if (len < 0 || len > 1024) {
    plat_free(pl);
    if (len < 0) return cli_fail(&err);
    return cli_usage("forecast", "route of more than 1024 links");
  }
  double lat = 0, bw = INFINITY;
  for (int i = 0; i < len; i++) {
    const plat_link *l = plat_link_at(pl, route[i]);
    lat += l->latency;
    if (l->bandwidth < bw) bw = l->bandwidth;
  }
  lat += extra;
  if (len == 0 || !(bw > 0) || !isfinite(bw)) {
    plat_free(pl);
    return cli_usage("forecast", "hosts %s and %s have no link between them (same host?): choose two with --hosts",
                     plat_host_at(pl, a)->name, plat_host_at(pl, b)->name);
  }
  net->lambda = lat;
  net->tau = 8.0 / bw;
  *speed = plat_host_at(pl, a)->speed;
  snprintf(desc, n, "route %s -> %s of %s (%d links)", plat_host_at(pl, a)->name,
           plat_host_at(pl, b)->name, plat_name(pl), len);
  plat_free(pl);
  return 0;
}

/* What the forecasts are computed from, built by set_up from the options: the network, the
 * hosts' memory and the kernel models. Not copied once set up (net.smpi points into it). */
typedef struct finputs {
  fc_net net;
  net_config smpi_cfg;   /* SMPI's factors, which net.smpi points at under --network smpi */
  char netdesc[1024];    /* where lambda and tau come from, for the outputs */
  double speed;          /* the first host's speed under --platform (the default kernel rate) */
  double memory;         /* --memory: bytes of a host, 0 = unknown (every grid fits) */
  fc_kernels km;
} finputs;

/* --network, then lambda and tau from --platform or from --latency and --bandwidth, then
 * --eager: in this order, so that the first bad option is the one reported. */
static int set_up_network(const fopts *o, finputs *in) {
  in->net = (fc_net){0, 0, 65536, NULL};
  if (o->network && !strcmp(o->network, "smpi")) {
    net_config_init(&in->smpi_cfg);
    in->net.smpi = &in->smpi_cfg;
  } else if (o->network && strcmp(o->network, "linear")) {
    return cli_usage("forecast", "--network expects linear or smpi, got '%s'", o->network);
  }
  in->speed = 0;
  snprintf(in->netdesc, sizeof in->netdesc, "given");
  if (o->plat) {
    int rc = net_from_platform(o, &in->net, &in->speed, in->netdesc, sizeof in->netdesc);
    if (rc) return rc;
  } else {
    int w = 0;
    char why[256];
    double bw;
    if (psim_unit_time(o->lat, &in->net.lambda, &w, why, sizeof why) || in->net.lambda < 0)
      return cli_usage("forecast", "--latency: %s", why);
    if (psim_unit_bandwidth(o->bw, &bw, &w, why, sizeof why) || !(bw > 0))
      return cli_usage("forecast", "--bandwidth expects a positive bandwidth (bytes/s or e.g. 1Gbps), got '%s'", o->bw);
    in->net.tau = 8.0 / bw;
  }
  if (o->eager) {
    char *e;
    in->net.eager_bytes = strtod(o->eager, &e);
    if (*e || !(in->net.eager_bytes >= 0) || !isfinite(in->net.eager_bytes))
      return cli_usage("forecast", "--eager expects bytes, got '%s'", o->eager);
  }
  return 0;
}

/* The kernel models: a model file, a constant rate, or (with --platform and neither) the
 * first host's speed as that rate, which the outputs then name as such. */
static int set_up_kernels(const fopts *o, finputs *in) {
  if (o->kernels) {
    psim_err err;
    psim_err_clear(&err);
    return fc_kernels_load(o->kernels, &in->km, &err) ? cli_fail(&err) : 0;
  }
  double r = in->speed;
  if (o->rate) {
    char *e;
    r = strtod(o->rate, &e);
    if (*e || !(r > 0) || !isfinite(r)) return cli_usage("forecast", "--kernel-rate expects flop/s, got '%s'", o->rate);
  } else if (!(r > 0)) {
    return cli_usage("forecast", "the kernels: give --kernels FILE or --kernel-rate FLOPS");
  }
  fc_kernels_rate(&in->km, r);
  if (!o->rate) snprintf(in->km.source, sizeof in->km.source, "constant rate %.6g flop/s (the host's speed)", r);
  return 0;
}

/* Everything the forecasts need, checked before any is computed. 0 or the exit status. */
static int set_up(const fopts *o, finputs *in) {
  psim_err err;
  psim_err_clear(&err);
  if (fc_problem_check(&o->pb, &err)) return cli_usage("forecast", "%s", err.msg);
  int rc = set_up_network(o, in);
  if (rc) return rc;
  in->memory = 0;
  if (o->mem) {
    int w = 0;
    char why[256];
    if (psim_unit_size(o->mem, &in->memory, &w, why, sizeof why) || !(in->memory > 0))
      return cli_usage("forecast", "--memory expects a size (e.g. 256MiB), got '%s'", o->mem);
  }
  return set_up_kernels(o, in);
}

/* One option of the redistribution scenario: compute on a grid after moving the data there. */
typedef struct sched_row { const char *what; int p, q; double redist, run, total; int fits; } sched_row;

/* What run_forecasts computes and the outputs show. */
typedef struct foutcome {
  VEC(fc_grid) g;        /* every grid, by process count then p */
  int best;              /* the fastest grid that fits, -1: none fits */
  VEC(int) bpi;          /* per process count, its fastest grid that fits (Figure 3.1) */
  VEC(sched_row) sc;     /* --ga/--gb: where to compute (section 5); empty without */
  int sbest;             /* the fastest row of sc that fits, -1: none */
} foutcome;

static int fits(const finputs *in, double mem) { return !(in->memory > 0) || mem <= in->memory; }

/* Every grid p x q of every process count (only --grid's when given), in the order the
 * table and the heatmap list them: p increasing within a count. */
static void forecast_grids(const fopts *o, const finputs *in, foutcome *out) {
  VEC(long) div = {0};
  for (long P = o->pmin; P <= o->pmax; P++) {
    /* the divisors of P in increasing order: those up to sqrt(P), then their cofactors */
    div.len = 0;
    for (long p = 1; p * p <= P; p++)
      if (P % p == 0) VEC_PUSH(div, p);
    for (size_t i = div.len; i-- > 0;)
      if (div.data[i] * div.data[i] != P) VEC_PUSH(div, P / div.data[i]);
    for (size_t i = 0; i < div.len; i++) {
      long p = div.data[i];
      if (o->gp && (p != o->gp || P / p != o->gq)) continue;
      fc_grid x;
      fc_forecast(&o->pb, &in->km, &in->net, (int)p, (int)(P / p), &x);
      x.fits = fits(in, x.mem);
      VEC_PUSH(out->g, x);
    }
  }
  VEC_FREE(div);
}

/* The best grid overall, and the best of each process count (Figure 3.1's curve): grids of
 * one count are adjacent in out->g. */
static void pick_best(foutcome *out) {
  const fc_grid *g = out->g.data;
  out->best = -1;
  for (size_t i = 0; i < out->g.len; i++)
    if (g[i].fits && (out->best < 0 || g[i].time < g[out->best].time)) out->best = (int)i;
  for (size_t i = 0; i < out->g.len; i++) {
    long P = (long)g[i].p * g[i].q;
    if (!g[i].fits) continue;
    int *last = out->bpi.len ? &out->bpi.data[out->bpi.len - 1] : NULL;
    if (last && (long)g[*last].p * g[*last].q == P) {
      if (g[i].time < g[*last].time) *last = (int)i;
    } else {
      VEC_PUSH(out->bpi, (int)i);
    }
  }
}

/* --ga/--gb (paper section 5): A on Ga, B on the disjoint Gb. Compute on Ga (B moves), on Gb
 * (A moves) or on every grid of all their processes, Ga's first (both move, one after the
 * other); each row is the redistribution plus pdgemm on the grid it ends on. */
static void schedule(const fopts *o, const finputs *in, foutcome *out) {
  out->sbest = -1;
  if (!o->ga[0]) return;
  const fc_problem *pb = &o->pb;
  const fc_net *net = &in->net;
  int na = o->ga[0] * o->ga[1];
  fc_redist r1, r2;
  fc_grid x;
  fc_redistribute(pb->k, pb->n, pb->nb, o->gb[0], o->gb[1], na, o->ga[0], o->ga[1], 0, net, &r1);
  fc_forecast(pb, &in->km, net, o->ga[0], o->ga[1], &x);
  sched_row ra = {"on Ga", o->ga[0], o->ga[1], r1.time, x.time, r1.time + x.time, fits(in, x.mem)};
  VEC_PUSH(out->sc, ra);
  fc_redistribute(pb->m, pb->k, pb->nb, o->ga[0], o->ga[1], 0, o->gb[0], o->gb[1], na, net, &r1);
  fc_forecast(pb, &in->km, net, o->gb[0], o->gb[1], &x);
  sched_row rb = {"on Gb", o->gb[0], o->gb[1], r1.time, x.time, r1.time + x.time, fits(in, x.mem)};
  VEC_PUSH(out->sc, rb);
  int nt = na + o->gb[0] * o->gb[1];
  for (int p = 1; p <= nt; p++) {
    if (nt % p) continue;
    fc_redistribute(pb->m, pb->k, pb->nb, o->ga[0], o->ga[1], 0, p, nt / p, 0, net, &r1);
    fc_redistribute(pb->k, pb->n, pb->nb, o->gb[0], o->gb[1], na, p, nt / p, 0, net, &r2);
    fc_forecast(pb, &in->km, net, p, nt / p, &x);
    sched_row rn = {"new grid", p, nt / p, r1.time + r2.time, x.time, r1.time + r2.time + x.time, fits(in, x.mem)};
    VEC_PUSH(out->sc, rn);
  }
  for (size_t i = 0; i < out->sc.len; i++)
    if (out->sc.data[i].fits && (out->sbest < 0 || out->sc.data[i].total < out->sc.data[out->sbest].total))
      out->sbest = (int)i;
}

/* The forecasts themselves: no I/O, nothing can fail once set_up has passed. */
static void run_forecasts(const fopts *o, const finputs *in, foutcome *out) {
  memset(out, 0, sizeof *out);
  forecast_grids(o, in, out);
  pick_best(out);
  schedule(o, in, out);
}

/* What the outputs are written from (the ctx of write_doc). */
typedef struct forecast_doc {
  const fopts *o;
  const finputs *in;
  const foutcome *out;
} forecast_doc;

static const char *routine_name(const fopts *o) { return o->pb.routine == FC_PDGEMM ? "pdgemm" : "pdtrsm"; }

static void print_mem(char *b, size_t n, double bytes) {
  if (bytes >= 1 << 30) snprintf(b, n, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20) snprintf(b, n, "%.1f MiB", bytes / (1 << 20));
  else snprintf(b, n, "%.1f KiB", bytes / 1024);
}

/* The problem, the network and the kernels: the text's first lines. */
static void print_inputs(const fopts *o, const finputs *in) {
  const fc_problem *pb = &o->pb;
  if (pb->routine == FC_PDGEMM)
    printf("psim forecast pdgemm: C (%ld x %ld) = A (%ld x %ld) B (%ld x %ld), blocks %ld, steps of %ld\n", pb->m,
           pb->n, pb->m, pb->k, pb->k, pb->n, pb->nb, fc_step(pb));
  else
    printf("psim forecast pdtrsm: side %c uplo %c trans %c (case %d), B %ld x %ld, blocks %ld\n",
           pb->side, pb->uplo, pb->trans, fc_trsm_case(pb->side, pb->uplo, pb->trans), pb->m, pb->n, pb->nb);
  printf("network: lambda %.6g s, tau %.6g s per 8-byte element (bandwidth %.6g B/s), %s; %s\n",
         in->net.lambda, in->net.tau, 8.0 / in->net.tau, in->netdesc,
         in->net.smpi ? "SMPI's latency and bandwidth factors" : "lambda + L tau per message");
  printf("kernels: %s\n", in->km.source);
}

/* One line per grid (left out by --quiet). */
static void print_grids(const fopts *o, const foutcome *out) {
  int trsm = o->pb.routine == FC_PDTRSM;
  printf("%7s %11s %13s %13s %13s%s %12s\n", "procs", "grid", "time (s)", "compute (s)",
         "comm (s)", trsm ? "      idle (s)" : "", "memory/proc");
  for (size_t i = 0; i < out->g.len; i++) {
    const fc_grid *x = &out->g.data[i];
    char grid[32], mem[32];
    snprintf(grid, sizeof grid, "%d x %d", x->p, x->q);
    print_mem(mem, sizeof mem, x->mem);
    printf("%7ld %11s %13.6g %13.6g %13.6g", (long)x->p * x->q, grid, x->time, x->compute, x->comm);
    if (trsm) printf(" %13.6g", x->idle);
    printf(" %12s%s\n", mem, (int)i == out->best ? "  * best" : x->fits ? "" : "  discarded: exceeds --memory");
  }
}

/* --ga/--gb's table. */
static void print_schedule(const fopts *o, const foutcome *out) {
  int na = o->ga[0] * o->ga[1];
  printf("\nA on Ga = %dx%d (processes 0-%d), B on Gb = %dx%d (processes %d-%d): where to compute?\n",
         o->ga[0], o->ga[1], na - 1, o->gb[0], o->gb[1], na, na + o->gb[0] * o->gb[1] - 1);
  printf("%-9s %8s %16s %13s %13s\n", "option", "grid", "redistribute(s)", "pdgemm (s)", "total (s)");
  for (size_t i = 0; i < out->sc.len; i++) {
    const sched_row *r = &out->sc.data[i];
    char grid[32];
    snprintf(grid, sizeof grid, "%dx%d", r->p, r->q);
    printf("%-9s %8s %16.6g %13.6g %13.6g%s\n", r->what, grid, r->redist, r->run, r->total,
           (int)i == out->sbest ? "  * best" : r->fits ? "" : "  discarded: exceeds --memory");
  }
}

/* The text on stdout: inputs, grids, the best one, the schedule. */
static void print_text(const fopts *o, const finputs *in, const foutcome *out) {
  print_inputs(o, in);
  if (!o->quiet) print_grids(o, out);
  const fc_grid *g = out->g.data;
  if (out->best >= 0)
    printf("best grid: %d x %d (%d processes): %.6g s\n", g[out->best].p, g[out->best].q,
           g[out->best].p * g[out->best].q, g[out->best].time);
  else
    printf("best grid: none fits in %.6g bytes per host\n", in->memory);
  if (out->sc.len) print_schedule(o, out);
}

static void json_schedule(FILE *f, const foutcome *out) {
  fputs(",\n  \"schedule\": [", f);
  for (size_t i = 0; i < out->sc.len; i++) {
    const sched_row *r = &out->sc.data[i];
    fprintf(f, "%s\n    {\"option\": \"%s\", \"p\": %d, \"q\": %d, \"redistribution\": ", i ? "," : "",
            r->what, r->p, r->q);
    obs_json_number(f, r->redist);
    fputs(", \"pdgemm\": ", f);
    obs_json_number(f, r->run);
    fputs(", \"total\": ", f);
    obs_json_number(f, r->total);
    fprintf(f, ", \"fits\": %s}", r->fits ? "true" : "false");
  }
  fputs("\n  ],\n  \"schedule_best\": ", f);
  if (out->sbest < 0) { fputs("null", f); return; }
  const sched_row *b = &out->sc.data[out->sbest];
  fprintf(f, "{\"option\": \"%s\", \"p\": %d, \"q\": %d, \"total\": ", b->what, b->p, b->q);
  obs_json_number(f, b->total);
  fputs("}", f);
}

static void json_grids(FILE *f, const foutcome *out) {
  fputs(",\n  \"grids\": [", f);
  for (size_t i = 0; i < out->g.len; i++) {
    const fc_grid *x = &out->g.data[i];
    fprintf(f, "%s\n    {\"p\": %d, \"q\": %d, \"procs\": %ld", i ? "," : "", x->p, x->q, (long)x->p * x->q);
    const char *keys[] = {"time", "compute", "communication", "idle", "memory"};
    double vals[] = {x->time, x->compute, x->comm, x->idle, x->mem};
    for (int j = 0; j < 5; j++) {
      fprintf(f, ", \"%s\": ", keys[j]);
      obs_json_number(f, vals[j]);
    }
    fprintf(f, ", \"fits\": %s}", x->fits ? "true" : "false");
  }
  fputs("\n  ],\n  \"best\": ", f);
  if (out->best < 0) fputs("null", f);
  else {
    fprintf(f, "{\"p\": %d, \"q\": %d, \"time\": ", out->g.data[out->best].p, out->g.data[out->best].q);
    obs_json_number(f, out->g.data[out->best].time);
    fputs("}", f);
  }
  fputs(",\n  \"best_per_procs\": [", f);
  for (size_t i = 0; i < out->bpi.len; i++) {
    const fc_grid *x = &out->g.data[out->bpi.data[i]];
    fprintf(f, "%s{\"procs\": %ld, \"p\": %d, \"q\": %d, \"time\": ", i ? ", " : "", (long)x->p * x->q, x->p, x->q);
    obs_json_number(f, x->time);
    fputs("}", f);
  }
  fputs("]", f);
}

/* --json's document (docs/forecast.md lists its keys). */
static void write_json(FILE *f, const fopts *o, const finputs *in, const foutcome *out) {
  const fc_problem *pb = &o->pb;
  fprintf(f, "{\n  \"routine\": \"%s\",\n  \"m\": %ld,\n  \"n\": %ld,\n  \"k\": %ld,\n  \"nb\": %ld,\n",
          routine_name(o), pb->m, pb->n, pb->routine == FC_PDGEMM ? pb->k : 0, pb->nb);
  if (pb->routine == FC_PDGEMM) fprintf(f, "  \"step\": %ld,\n", fc_step(pb));
  if (pb->routine == FC_PDTRSM)
    fprintf(f, "  \"side\": \"%c\",\n  \"uplo\": \"%c\",\n  \"trans\": \"%c\",\n  \"case\": %d,\n",
            pb->side, pb->uplo, pb->trans, fc_trsm_case(pb->side, pb->uplo, pb->trans));
  fputs("  \"network\": {\"latency\": ", f);
  obs_json_number(f, in->net.lambda);
  fputs(", \"tau\": ", f);
  obs_json_number(f, in->net.tau);
  fputs(", \"bandwidth\": ", f);
  obs_json_number(f, 8.0 / in->net.tau);
  fputs(", \"source\": ", f);
  obs_json_string(f, in->netdesc);
  fprintf(f, ", \"model\": \"%s\"", in->net.smpi ? "smpi" : "linear");
  fputs("},\n  \"kernels\": ", f);
  obs_json_string(f, in->km.source);
  json_grids(f, out);
  if (out->sc.len) json_schedule(f, out);
  fputs("\n}\n", f);
}

/* Figure 3.1 from the best grid of each process count (two counts at least: a curve). */
static void page_best_curve(FILE *f, const foutcome *out) {
  size_t n = out->bpi.len;
  int *procs = xmalloc(sizeof(int) * (n + 1)), *bp = xmalloc(sizeof(int) * (n + 1)),
      *bq = xmalloc(sizeof(int) * (n + 1));
  double *bt = xmalloc(sizeof(double) * (n + 1));
  for (size_t i = 0; i < n; i++) {
    const fc_grid *x = &out->g.data[out->bpi.data[i]];
    procs[i] = x->p * x->q;
    bp[i] = x->p;
    bq[i] = x->q;
    bt[i] = x->time;
  }
  if (n > 1) fcr_best_curve(f, procs, bt, bp, bq, (int)n);
  free(procs);
  free(bp);
  free(bq);
  free(bt);
}

/* The HTML page's tables: --ga/--gb's options, and every grid (up to 2000 rows). */
static void page_tables(FILE *f, const fopts *o, const foutcome *out) {
  if (out->sc.len) {
    fprintf(f, "<h2>Where to compute (paper section 5)</h2>\n<p>A on Ga = %dx%d, B on Gb = %dx%d; "
               "redistribution as point-to-point messages, then pdgemm.</p>\n<table><tr><th>option</th>"
               "<th>grid</th><th>redistribution (s)</th><th>pdgemm (s)</th><th>total (s)</th></tr>\n",
            o->ga[0], o->ga[1], o->gb[0], o->gb[1]);
    for (size_t i = 0; i < out->sc.len; i++) {
      const sched_row *r = &out->sc.data[i];
      fprintf(f, "<tr%s><td>%s</td><td>%dx%d</td><td>%.6g</td><td>%.6g</td><td>%.6g%s</td></tr>\n",
              (int)i == out->sbest ? " class=\"best\"" : "", r->what, r->p, r->q, r->redist, r->run,
              r->total, r->fits ? "" : " (too much memory)");
    }
    fputs("</table>\n", f);
  }
  if (out->g.len > 2000) return;
  fputs("<h2>Every grid</h2>\n<table><tr><th>p</th><th>q</th><th>time (s)</th><th>compute (s)</th>"
        "<th>communication (s)</th><th>idle (s)</th><th>memory per process (bytes)</th></tr>\n", f);
  for (size_t i = 0; i < out->g.len; i++) {
    const fc_grid *x = &out->g.data[i];
    fprintf(f, "<tr%s><td>%d</td><td>%d</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.6g</td><td>%.0f%s</td></tr>\n",
            (int)i == out->best ? " class=\"best\"" : "", x->p, x->q, x->time, x->compute, x->comm,
            x->idle, x->mem, x->fits ? "" : " (too much)");
  }
  fputs("</table>\n", f);
}

/* --report's page: drawn here (Figures 4.2 and 3.1), not made from the JSON document. */
static void write_page(FILE *f, const fopts *o, const finputs *in, const foutcome *out) {
  char title[256];
  snprintf(title, sizeof title, "psim forecast %s %ldx%ld, R=%ld, %ld-%ld processes", routine_name(o),
           o->pb.m, o->pb.n, o->pb.nb, o->pmin, o->pmax);
  fcr_begin(f, title);
  fprintf(f, "<p>Network: &lambda; = %.6g s, &tau; = %.6g s per element (", in->net.lambda, in->net.tau);
  fcr_esc(f, in->netdesc);
  fputs("). Kernels: ", f);
  fcr_esc(f, in->km.source);
  fputs(". Analytic forecast (FAST, paper 003), no simulation.</p>\n", f);
  const fc_grid *g = out->g.data;
  if (out->best >= 0)
    fprintf(f, "<p class=\"best\">Best grid: %d x %d, %.6g s</p>\n", g[out->best].p, g[out->best].q, g[out->best].time);
  fcr_heatmap(f, g, (int)out->g.len, out->best);
  page_best_curve(f, out);
  page_tables(f, o, out);
  fcr_end(f);
}

/* cli_emit_page's writer: the JSON document, or the page. */
static void write_doc(FILE *f, void *ctx, int page) {
  const forecast_doc *d = ctx;
  if (page) write_page(f, d->o, d->in, d->out);
  else write_json(f, d->o, d->in, d->out);
}

/* The text (unless stdout carries the JSON, --json -: then stdout is JSON only, for a pipe),
 * then --json and --report through the shared output stage. */
static int emit(const fopts *o, const finputs *in, const foutcome *out) {
  if (!(o->json && !strcmp(o->json, "-"))) print_text(o, in, out);
  forecast_doc d = {o, in, out};
  return cli_emit_page(o->json, o->report, write_doc, &d);
}

int cmd_forecast(int argc, char **argv) {
  fopts o;
  finputs in;
  foutcome out;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc == FORECAST_HELP_SHOWN ? 0 : rc;
  if ((rc = set_up(&o, &in)) != 0) return rc;
  run_forecasts(&o, &in, &out);
  rc = emit(&o, &in, &out);
  VEC_FREE(out.g);
  VEC_FREE(out.bpi);
  VEC_FREE(out.sc);
  return rc;
}
