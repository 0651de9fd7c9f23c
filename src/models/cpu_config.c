/* The CPU model's configuration: --cfg cpu/send-cost, cpu/recv-cost, cpu/app-nice,
 * background/..., loadavg/... (see cpu_config in include/psim/models.h and docs/models.md),
 * and Linux's nice weights. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/models.h"

/* The Linux kernel's sched_prio_to_weight: CFS gives runnable tasks CPU in proportion to
 * these weights; each nice level is ~1.25x the next (a task one level nicer gets ~10 % less
 * CPU against a competitor). Index = nice + 20. */
static const int nice_weights[40] = {
  88761, 71755, 56483, 46273, 36291,   /* -20 .. -16 */
  29154, 23254, 18705, 14949, 11916,   /* -15 .. -11 */
  9548,  7620,  6100,  4904,  3906,    /* -10 .. -6 */
  3121,  2501,  1991,  1586,  1277,    /* -5 .. -1 */
  1024,  820,   655,   526,   423,     /* 0 .. 4 */
  335,   272,   215,   172,   137,     /* 5 .. 9 */
  110,   87,    70,    56,    45,      /* 10 .. 14 */
  36,    29,    23,    18,    15,      /* 15 .. 19 */
};

int cpu_nice_weight(int nice) {
  if (nice < -20) nice = -20;
  if (nice > 19) nice = 19;
  return nice_weights[nice + 20];
}

static void default_betas(cpu_config *c) {
  if (c->la_custom_betas) return;
  /* Linux's 1, 5 and 15 minute averages: beta = exp(-period / window). */
  c->la_betas[0] = exp(-c->la_period / 60.0);
  c->la_betas[1] = exp(-c->la_period / 300.0);
  c->la_betas[2] = exp(-c->la_period / 900.0);
}

void cpu_config_init(cpu_config *c) {
  memset(c, 0, sizeof *c);
  c->la_period = 5.0;   /* Linux samples the run queue every 5 s */
  default_betas(c);
}

static int num(const char *key, const char *v, const char *end, double lo, double hi, double *out,
               psim_err *err) {
  char *e;
  errno = 0;
  double x = strtod(v, &e);
  if (e == v || (end ? e != end : *e != 0) || errno || !(x >= lo && x <= hi))
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected a number in [%g, %g], got '%s'", key, lo, hi, v);
  *out = x;
  return 0;
}

static int integer(const char *key, const char *v, const char *end, long lo, long hi, long *out,
                   psim_err *err) {
  char *e;
  errno = 0;
  long x = strtol(v, &e, 10);
  if (e == v || (end ? e != end : *e != 0) || errno || x < lo || x > hi)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected an integer in [%ld, %ld], got '%s'", key, lo, hi, v);
  *out = x;
  return 0;
}

/* Splits "a,b,c,..." into exactly n fields (pointers into v; ends[i] = end of field i). */
static int fields(const char *key, const char *v, int n, const char **start, const char **ends,
                  const char *what, psim_err *err) {
  const char *p = v;
  for (int i = 0; i < n; i++) {
    start[i] = p;
    const char *comma = strchr(p, ',');
    if (i + 1 < n) {
      if (!comma) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected %s, got '%s'", key, what, v);
      ends[i] = comma;
      p = comma + 1;
    } else {
      if (comma) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected %s, got '%s'", key, what, v);
      ends[i] = p + strlen(p);
    }
    if (ends[i] == start[i]) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected %s, got '%s'", key, what, v);
  }
  return 0;
}

int cpu_config_set(cpu_config *c, const char *key, const char *v, psim_err *err) {
  long n = 0;   /* set by integer() on success; initialised for -O3's flow analysis */
  int r;
  if (!strcmp(key, "cpu/send-cost")) r = num(key, v, NULL, 0, 1, &c->send_cost, err);
  else if (!strcmp(key, "cpu/recv-cost")) r = num(key, v, NULL, 0, 1, &c->recv_cost, err);
  else if (!strcmp(key, "cpu/app-nice")) {
    if ((r = integer(key, v, NULL, -20, 19, &n, err)) == 0) c->app_nice = (int)n;
  } else if (!strcmp(key, "background/count")) {
    if ((r = integer(key, v, NULL, 0, 100000, &n, err)) == 0) c->bg_count = (int)n;
  } else if (!strcmp(key, "background/nice")) {
    if ((r = integer(key, v, NULL, -20, 19, &n, err)) == 0) c->bg_nice = (int)n;
  } else if (!strcmp(key, "background/trace")) {
    if (!*v || strlen(v) >= sizeof c->bg_trace)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected a file name, got '%s'", key, v);
    snprintf(c->bg_trace, sizeof c->bg_trace, "%s", v);
    r = 0;
  } else if (!strcmp(key, "background/poisson")) {
    const char *st[4], *en[4];
    const char *what = "RATE,MEANCPU,NICE,SEED (arrivals per second per host, mean CPU seconds, nice, seed)";
    double rate = 0, mean = 0;
    long nice = 0, seed = 0;
    if (fields(key, v, 4, st, en, what, err) < 0) return -1;
    if (num(key, st[0], en[0], 1e-12, 1e9, &rate, err) < 0 || num(key, st[1], en[1], 1e-12, 1e12, &mean, err) < 0 ||
        integer(key, st[2], en[2], -20, 19, &nice, err) < 0 || integer(key, st[3], en[3], 0, 2147483647L, &seed, err) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected %s, got '%s'", key, what, v);
    c->poisson = 1;
    c->poisson_rate = rate;
    c->poisson_mean = mean;
    c->poisson_nice = (int)nice;
    c->poisson_seed = (uint64_t)seed;
    r = 0;
  } else if (!strcmp(key, "loadavg/period")) {
    if ((r = num(key, v, NULL, 1e-6, 1e9, &c->la_period, err)) == 0) default_betas(c);
  } else if (!strcmp(key, "loadavg/betas")) {
    const char *st[3], *en[3];
    const char *what = "three smoothing constants B1,B2,B3 in [0, 1]";
    if (fields(key, v, 3, st, en, what, err) < 0) return -1;
    double b[3];
    for (int i = 0; i < 3; i++)
      if (num(key, st[i], en[i], 0, 1, &b[i], err) < 0)
        return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--cfg %s: expected %s, got '%s'", key, what, v);
    memcpy(c->la_betas, b, sizeof b);
    c->la_custom_betas = 1;
    r = 0;
  } else if (!strcmp(key, "loadavg/max-samples")) {
    if ((r = integer(key, v, NULL, 1, 100000000L, &n, err)) == 0) c->la_max_samples = (int)n;
  } else {
    return 0;   /* not ours (cpu/factor, cpu/optim, ... belong to others) */
  }
  if (r < 0) return -1;
  c->active = 1;
  return 1;
}
