/* Background users (CLUE's WUS): processes that are not part of the application compete for
 * the hosts' CPUs, and the UNIX load average they produce.
 *
 * A background process is a solver variable on its host's constraint, bounded by one core,
 * with penalty 1024 / weight(nice): the solver's weighted max-min sharing then gives every
 * runnable process CPU in proportion to its CFS weight (Linux's sched_prio_to_weight), as
 * CFS does on one core; on several cores no process gets more than one. Three sources:
 *   background/count:N, background/nice:N   N processes on every host of the platform,
 *                                            present throughout (they never finish);
 *   background/trace:FILE (--background)     lines `time host cpu_seconds nice`: a process
 *                                            arrives at `time` and leaves once it got
 *                                            cpu_seconds of CPU (inf: never);
 *   background/poisson:RATE,MEAN,NICE,SEED   on every host of the platform, arrivals at RATE per
 *                                            second (exponential gaps) each wanting an
 *                                            exponential CPU time of mean MEAN; one seeded
 *                                            stream per host, so runs are reproducible.
 * Their activities are daemons: the run ends with the application.
 *
 * The load average: every loadavg/period seconds (5), for each reported host,
 * L_k = beta_k L_k + (1 - beta_k) N with N = the runnable processes: the application's
 * computations in progress (ranks waiting in MPI sleep) plus the background processes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

/* A process that never finishes runs in pieces of this many CPU-seconds, so that the CPU it
 * used stays exact in doubles (an infinite amount of work could not be counted down). */
#define BG_PIECE 3600.0

struct bg_proc {
  cpu_state *st;
  int host, nice, forever;
  double cpu;        /* CPU-seconds wanted (forever: per piece) */
  double work;       /* flops of the current piece */
  activity *a;
  size_t idx;        /* in st->live */
};

static void bg_done(sim *s, activity *a);

static void bg_piece(bg_proc *p) {
  cpu_state *st = p->st;
  lmm_system *l = sim_lmm(st->sim);
  double speed = plat_host_at(st->plat, p->host)->speed;
  p->work = (p->forever ? BG_PIECE : p->cpu) * speed;
  activity *a = sim_start_work(st->sim, p->work, -1, 1.0, bg_done, p, 0);
  sim_daemon(st->sim, a);
  p->a = a;
  if (!(p->work > 0)) return;
  int c = models_host_cnst(st->m, p->host);
  int v = lmm_var_new(l, 1024.0 / cpu_nice_weight(p->nice), speed, a);
  lmm_expand(l, c, v, 1.0);
  lmm_touch_cnst(l, c);
  a->var = v;
}

static void bg_launch(cpu_state *st, int host, double cpu, int nice) {
  bg_proc *p = xcalloc(1, sizeof *p);
  p->st = st;
  p->host = host;
  p->nice = nice;
  p->forever = isinf(cpu);
  p->cpu = cpu;
  p->idx = st->live.len;
  VEC_PUSH(st->live, p);
  st->h[host].nbg++;
  bg_piece(p);
}

static void bg_done(sim *s, activity *a) {
  (void)s;
  bg_proc *p = a->data;
  cpu_state *st = p->st;
  double speed = plat_host_at(st->plat, p->host)->speed;
  if (speed > 0) st->h[p->host].bg += p->work / speed;
  if (p->forever) { bg_piece(p); return; }
  bg_proc *last = st->live.data[--st->live.len];
  if (last != p) { st->live.data[p->idx] = last; last->idx = p->idx; }
  st->h[p->host].nbg--;
  free(p);
}

void cpu_bg_used(cpu_state *st, double *out) {
  double now = sim_now(st->sim);
  for (size_t i = 0; i < st->live.len; i++) {
    const bg_proc *p = st->live.data[i];
    const activity *a = p->a;
    double rem = a->remaining - (a->rate > 0 ? a->rate * (now - a->updated) : 0);
    if (rem < 0) rem = 0;
    double speed = plat_host_at(st->plat, p->host)->speed;
    if (speed > 0) out[p->host] += (p->work - rem) / speed;
  }
}

void cpu_bg_free(cpu_state *st) {
  for (size_t i = 0; i < st->live.len; i++) free(st->live.data[i]);
  VEC_FREE(st->live);
  free(st->arr);
  free(st->poisson);
  free(st->rep);
}

/* ---- the background trace ---- */

static int arrival_cmp(const void *x, const void *y) {
  const struct bg_arrival *a = x, *b = y;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return (a->line > b->line) - (a->line < b->line);   /* equal dates: the file's order */
}

/* Reads FILE: `time host cpu_seconds nice` per line, '#' starts a comment. */
static int trace_load(cpu_state *st, const char *path, psim_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the background trace: %s", strerror(errno));
  char line[4096];
  long ln = 0;
  size_t cap = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "line too long (at most %d characters)", (int)sizeof line - 2);
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *tok[5];
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < 5; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
    if (n == 0) continue;
    const char *expect = "expected 'time host cpu_seconds nice' (e.g. '30 node-0 12.5 0')";
    if (n != 4) { fclose(f); return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "%d fields: %s", n, expect); }
    char *e;
    errno = 0;
    double t = strtod(tok[0], &e);
    if (e == tok[0] || *e || errno || !(t >= 0) || isinf(t)) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "bad time '%s': expected seconds >= 0; %s", tok[0], expect);
    }
    int host = plat_host_find(st->plat, tok[1]);
    if (host < 0) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "unknown host '%s' (not in the platform)", tok[1]);
    }
    double cpu = strtod(tok[2], &e);
    if (e == tok[2] || *e || !(cpu >= 0)) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "bad cpu_seconds '%s': expected seconds >= 0 or inf; %s", tok[2], expect);
    }
    errno = 0;
    long nice = strtol(tok[3], &e, 10);
    if (e == tok[3] || *e || errno || nice < -20 || nice > 19) {
      fclose(f);
      return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "bad nice '%s': expected an integer in [-20, 19]", tok[3]);
    }
    if (st->narr == cap) {
      cap = cap ? 2 * cap : 64;
      st->arr = xrealloc(st->arr, cap * sizeof *st->arr);
    }
    st->arr[st->narr++] = (struct bg_arrival){t, cpu, host, (int)nice, (size_t)ln};
    st->h[host].reported = 1;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "read error");
  /* Arrivals in date order; equal dates keep the file's order (the line breaks ties). */
  if (st->narr > 1) qsort(st->arr, st->narr, sizeof *st->arr, arrival_cmp);
  return 0;
}

static void arrival_due(sim *s, activity *a);

static void arrival_next(cpu_state *st) {
  if (st->next_arr >= st->narr) return;
  double delay = st->arr[st->next_arr].t - sim_now(st->sim);
  activity *a = sim_start_timer(st->sim, delay, arrival_due, st, 0);
  sim_daemon(st->sim, a);
}

static void arrival_due(sim *s, activity *a) {
  (void)s;
  cpu_state *st = a->data;
  double t = st->arr[st->next_arr].t;
  while (st->next_arr < st->narr && st->arr[st->next_arr].t == t) {
    const struct bg_arrival *x = &st->arr[st->next_arr++];
    bg_launch(st, x->host, x->cpu, x->nice);
  }
  arrival_next(st);
}

/* ---- Poisson users ---- */

static double exp_draw(psim_rng *r, double mean) { return -mean * log(1.0 - psim_rng_uniform(r)); }

static void poisson_due(sim *s, activity *a);

static void poisson_next(cpu_state *st, int host) {
  psim_rng *r = &((psim_rng *)st->poisson)[host];
  activity *a = sim_start_timer(st->sim, exp_draw(r, 1.0 / st->cfg.poisson_rate), poisson_due, st, host);
  sim_daemon(st->sim, a);
}

static void poisson_due(sim *s, activity *a) {
  (void)s;
  cpu_state *st = a->data;
  int host = a->tag;
  psim_rng *r = &((psim_rng *)st->poisson)[host];
  bg_launch(st, host, exp_draw(r, st->cfg.poisson_mean), st->cfg.poisson_nice);
  poisson_next(st, host);
}

/* ---- the load average ---- */

static void sample_due(sim *s, activity *a);

static void sample_next(cpu_state *st) {
  double t = (double)(st->nsample + 1) * st->cfg.la_period;
  activity *a = sim_start_timer(st->sim, t - sim_now(st->sim), sample_due, st, 0);
  sim_daemon(st->sim, a);
}

static void sample_due(sim *s, activity *a) {
  (void)s;
  cpu_state *st = a->data;
  lmm_system *l = sim_lmm(st->sim);
  st->nsample++;
  double t = (double)st->nsample * st->cfg.la_period;
  int keep = st->nsample % st->stride == 0;
  size_t kept = 0;
  for (int r = 0; r < st->nrep; r++) {
    int i = st->rep[r];
    cpu_host *h = &st->h[i];
    /* every variable of a host's constraint is a runnable process: a computation of the
     * application or a background process */
    double n = lmm_cnst_nvars(l, models_host_cnst(st->m, i));
    for (int k = 0; k < 3; k++) h->la[k] = st->cfg.la_betas[k] * h->la[k] + (1 - st->cfg.la_betas[k]) * n;
    if (!keep) continue;
    VEC_PUSH(h->samples, t);
    for (int k = 0; k < 3; k++) VEC_PUSH(h->samples, h->la[k]);
    kept = h->samples.len / 4;
  }
  if (kept > (size_t)st->max_samples) {
    /* Too many: keep every other sample (those at multiples of twice the stride). */
    for (int r = 0; r < st->nrep; r++) {
      cpu_host *h = &st->h[st->rep[r]];
      size_t n = h->samples.len / 4, w = 0;
      for (size_t j = 1; j < n; j += 2, w++) memmove(&h->samples.data[4 * w], &h->samples.data[4 * j], 4 * sizeof(double));
      h->samples.len = 4 * w;
    }
    st->stride *= 2;
  }
  sample_next(st);
}

int cpu_bg_start(cpu_state *st, psim_err *err) {
  const cpu_config *c = &st->cfg;
  if (c->bg_trace[0] && trace_load(st, c->bg_trace, err) < 0) return -1;
  /* The constant and Poisson users are on every host (ranks may move to any of them). */
  for (int i = 0; i < st->nhosts; i++) {
    if (c->bg_count > 0 || c->poisson) st->h[i].reported = 1;
    for (int k = 0; k < c->bg_count; k++) bg_launch(st, i, INFINITY, c->bg_nice);
  }
  arrival_next(st);
  if (c->poisson) {
    psim_rng *r = xcalloc((size_t)st->nhosts, sizeof *r);
    st->poisson = r;
    for (int i = 0; i < st->nhosts; i++) {
      /* one stream per host: a host's users do not depend on the others' */
      psim_rng_seed(&r[i], c->poisson_seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i);
      poisson_next(st, i);
    }
  }
  st->rep = xmalloc((size_t)st->nhosts * sizeof *st->rep);
  for (int i = 0; i < st->nhosts; i++)
    if (st->h[i].reported) st->rep[st->nrep++] = i;
  int nrep = st->nrep;
  st->max_samples = c->la_max_samples;
  if (st->max_samples <= 0) {
    /* bounded JSON: at most 1000 samples a host and 200000 in all */
    st->max_samples = nrep ? 200000 / nrep : 1000;
    if (st->max_samples > 1000) st->max_samples = 1000;
    if (st->max_samples < 8) st->max_samples = 8;
  }
  if (nrep) sample_next(st);
  return 0;
}
