/* psim adaptivity: virtual processors (VPs) on processing elements (PEs) and the load
 * balancers of Charm++/AMPI (specs/load-balancers.md), as pure functions over a situation.
 *
 * A balancer reads a situation (PE background loads and speeds, VP loads, the current mapping,
 * the communication graph) and writes a new mapping; it keeps no state between calls and
 * touches nothing else, so `psim balance` and the simulated balancing steps of `psim lb` run
 * the same code. Ties are broken by one fixed rule so results are deterministic: VPs by (load
 * descending, id ascending), PEs by (load ascending, id ascending).
 *
 * Loads: w(v) is the wall time VP v spent computing on its current PE; its *work* is
 * w(v) x speed(current PE) and placing it on PE q adds work / speed(q) to q's load L(q),
 * which starts at bg(q).
 *
 * Ownership: the caller owns every array of a situation and the output mapping. */
#ifndef PSIM_ADAPT_H
#define PSIM_ADAPT_H

#include <stdint.h>
#include <stdio.h>

#include "psim/replay.h"
#include "psim/util.h"

typedef enum {
  LB_NONE, LB_DUMMY, LB_GREEDY, LB_GREEDY_REFINE, LB_REFINE, LB_REFINE_CLASSIC,
  LB_GREEDY_COMM, LB_REFINE_COMM, LB_ROTATE, LB_RANDOM, LB_NKINDS
} lb_kind;

/* "greedy", "refine-classic", ...; -1 when unknown. */
int lb_kind_from_name(const char *name);
const char *lb_kind_name(lb_kind k);
/* Every name, comma separated (for messages). */
const char *lb_kind_list(void);

/* One directed communication record: a sent msgs messages of bytes bytes to b in total. */
typedef struct lb_edge { int a, b; double msgs, bytes; } lb_edge;

typedef struct lb_situation {
  int npe, nvp;
  const double *pe_bg;       /* npe background loads (NULL: all 0) */
  const double *pe_speed;    /* npe relative speeds (NULL: all 1) */
  const double *vp_load;     /* nvp measured loads w(v) */
  const int *vp_pe;          /* nvp current PEs */
  const lb_edge *edges;      /* nedges records (comm-aware balancers only) */
  int nedges;
  double alpha, beta;        /* comm cost = alpha x msgs + beta x bytes (3.5e-5, 8.5e-9) */
  uint64_t seed;             /* `random` */
  uint64_t step;             /* balancing step number, mixed into the seed of `random` */
} lb_situation;

void lb_situation_init(lb_situation *s);

/* Computes the new mapping out[0..nvp) (out may not alias vp_pe). Returns 0, or -1 with err
 * for an inconsistent situation (a VP on a PE out of range, no PE). */
int lb_balance(lb_kind k, const lb_situation *s, int *out, psim_err *err);

/* L(p) under mapping map (bg + placed work / speed), into loads[0..npe). */
void lb_pe_loads(const lb_situation *s, const int *map, double *loads);

/* ---- `psim balance`: a situation read from a text file ----
 *   pe ID bg LOAD [speed S]
 *   vp ID load W pe P [bytes B]
 *   comm VP_A VP_B msgs M bytes B
 *   alpha A        beta B        seed N
 * '#' starts a comment. PE and VP ids must be 0..n-1, each given once. */
typedef struct lb_input {
  lb_situation s;
  double *bg, *speed, *load, *vp_bytes;
  int *pe;
  VEC(lb_edge) edges;
} lb_input;

int lb_input_read(const char *path, lb_input *in, psim_err *err);
void lb_input_free(lb_input *in);

/* ---- `psim lb`: a trace's ranks as VPs on PEs, with balancing steps (adapt_run.c) ---- */
typedef enum { ADAPT_INIT_BLOCK, ADAPT_INIT_ROUND_ROBIN, ADAPT_INIT_FILE } adapt_init;

typedef struct adapt_opts {
  replay_opts base;          /* platform, network, collectives (np = number of VPs) */
  int npes;
  lb_kind balancer;
  int period;                /* every period-th migrate is a balancing step */
  adapt_init initial;
  const char *initial_file;  /* ADAPT_INIT_FILE: one PE per line, in VP order */
  double vp_memory;          /* bytes of a `migrate` without size */
  double lb_cost;            /* simulated run time of the strategy (s) */
  double alpha, beta;
  uint64_t seed;
  int keep_loads;            /* record the per-iteration load matrix */
  const dyn_events *pe_events; /* --pe-events (PE indices), or NULL; see replay_vp */
} adapt_opts;

void adapt_opts_init(adapt_opts *o, const platform *p, int nvp);

typedef struct adapt_step {
  double time;               /* when the step started (all VPs at the barrier) */
  double resume;             /* when the application resumed */
  double max_before, avg_before, max_after, avg_after;   /* PE loads of the interval */
  int migrations;
  double bytes;
} adapt_step;

typedef struct adapt_result {
  replay_result run;
  int npes, nvp;
  int lb_steps, migrations;
  double bytes_migrated;
  VEC(adapt_step) steps;
  int *final_pe;             /* nvp: the mapping at the end */
  /* keep_loads: loads[it * nvp + v] = compute time of VP v in iteration it (between its
   * it-th and it+1-th migrate), pe_of[it * nvp + v] = the PE it ran on. */
  int iterations;
  double *loads;
  int *pe_of;
  /* keep_loads: it_end[it] = when the last VP reached the migrate ending iteration it; the
   * iteration's wall time is (it_end[it - 1], it_end[it]] (from 0 for the first). */
  double *it_end;
} adapt_result;

/* Runs the trace with VP scheduling and balancing steps. Returns 0, or -1 with err (code 2
 * for bad input: a migrate on only some VPs, more PEs than cores, a bad mapping file...). */
int adapt_run(tit_source *src, const adapt_opts *o, adapt_result *res, psim_err *err);
void adapt_result_free(adapt_result *r);
/* The load matrix as CSV: iteration, per-PE loads, then per-VP loads. */
void adapt_write_loads_csv(FILE *f, const adapt_result *r);
/* Load of each PE in iteration it (the sum of the VPs that ran on it), into pe[0..npes). */
void adapt_pe_loads(const adapt_result *r, int it, double *pe);

#endif
