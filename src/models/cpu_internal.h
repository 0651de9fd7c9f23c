/* The CPU model's state, shared by models.c (hooks), cpu_share.c (communication's CPU, the
 * accounting, the report) and background.c (background processes, the load average).
 * Nothing outside src/models/ includes this. */
#ifndef PSIM_CPU_INTERNAL_H
#define PSIM_CPU_INTERNAL_H

#include "psim/models.h"

/* models.c, for the CPU model */
sim *models_sim(models *m);
const platform *models_plat(const models *m);
int models_host_cnst(const models *m, int host);
struct cpu_state *models_cpu(models *m);

typedef struct bg_proc bg_proc;

typedef struct cpu_host {
  double cap0;           /* the host constraint's capacity without communication */
  int cores;
  int nsend, nrecv;      /* transfers in their data phase from / to this host */
  double comm_since;     /* date comm_acc was brought up to date */
  double app, comm, bg;  /* CPU-seconds so far (bg: finished processes and pieces only) */
  int nbg;               /* background processes present */
  int reported;          /* has ranks or background: in the outputs */
  int used;              /* has ranks at the start */
  double la[3];          /* load averages */
  VEC(double) samples;   /* 4 per kept sample */
} cpu_host;

typedef struct cpu_state {
  models *m;
  sim *sim;
  const platform *plat;
  cpu_config cfg;
  int nhosts;
  cpu_host *h;
  double app_penalty;    /* 1024 / weight(app nice) */
  VEC(bg_proc *) live;   /* background processes present */
  /* background trace: arrivals sorted by date */
  struct bg_arrival { double t, cpu; int host, nice; size_t line; } *arr;
  size_t narr, next_arr;
  void *poisson;         /* per host RNG state (background.c) */
  int *rep, nrep;        /* the reported hosts (ranks, background), in platform order */
  long nsample;          /* load-average samples taken */
  long stride;           /* samples kept: every stride-th */
  int max_samples;
  int started;
} cpu_state;

cpu_state *cpu_new(models *m, const cpu_config *cfg);
void cpu_free(cpu_state *st);
/* A computation of `flops` starts on host: counts its CPU time; returns its penalty. */
double cpu_exec_penalty(cpu_state *st, int host, double flops);
/* Do transfers cost CPU? */
int cpu_comm_costs(const cpu_state *st);
void cpu_comm(cpu_state *st, int src, int dst, int on);

/* background.c */
int cpu_bg_start(cpu_state *st, psim_err *err);
/* CPU-seconds the live background processes used so far on each host (adds to out[host]). */
void cpu_bg_used(cpu_state *st, double *out);
void cpu_bg_free(cpu_state *st);

#endif
