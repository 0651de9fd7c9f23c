/* psim forecast layer: FAST's analytic forecasts of ScaLAPACK routines (paper 003,
 * Caron, Desprez, Suter). No simulation: closed formulas over sequential kernel models
 * (fitted polynomials or a constant flop rate) and a lambda + L tau network model with tree
 * broadcasts. Pure functions; the command line is src/cli/cmd_forecast.c. See docs/forecast.md. */
#ifndef PSIM_FORECAST_H
#define PSIM_FORECAST_H

#include <stdio.h>

#include "psim/util.h"

/* ---- Sequential kernel models ------------------------------------------------------------
 * A kernel's time (seconds) is a polynomial in its size variables (m, n, k), or, in rate
 * mode, flops / rate. The kernels and their variables (column-major BLAS conventions):
 *   dgemm(m, n, k): C(m x n) += A(m x k) B(k x n)          2 m n k flops
 *   dtrsm(m, n):    B(m x n) = B A^-1, A upper n x n        m n^2 flops (side R)
 *   add(m, n):      C(m x n) += D(m x n)                    m n flops (the accumulation) */
enum { FC_DGEMM = 0, FC_DTRSM = 1, FC_ADD = 2, FC_NKERNELS = 3 };
enum { FC_MAXTERMS = 16 };

typedef struct fc_term {
  unsigned char e[3];   /* exponents of m, n, k */
  double c;             /* coefficient, seconds */
} fc_term;

typedef struct fc_poly {
  int nterms;
  fc_term t[FC_MAXTERMS];
  double fit_rms_rel, fit_max_rel;   /* fit quality when known (comments of the file), else -1 */
} fc_poly;

typedef struct fc_kernels {
  double rate;                  /* > 0: every kernel takes flops / rate; polys unused */
  fc_poly k[FC_NKERNELS];       /* rate == 0: the polynomials (each must have a term) */
  char source[512];             /* "rate 1e9 flop/s" or the model file's name */
} fc_kernels;

const char *fc_kernel_name(int kernel);
/* Flops of a kernel call (2mnk, mn^2, mn); the rate mode's numerator. */
double fc_kernel_flops(int kernel, double m, double n, double k);
/* Time of one call; 0 when a size is 0. */
double fc_kernel_time(const fc_kernels *km, int kernel, double m, double n, double k);
void fc_kernels_rate(fc_kernels *km, double rate);

/* Model file (docs/forecast.md): '#' comments; one term per line `KERNEL MONOMIAL COEF`, e.g.
 * `dgemm m*n*k 2.1e-11`, `dtrsm 1 3e-7`, `add m*n 1e-9`; or `rate FLOPS` alone. Errors name
 * the file and line. Returns 0, or -1 with err filled (exit status 2). */
int fc_kernels_parse(const char *name, const char *text, size_t len, fc_kernels *km, psim_err *err);
int fc_kernels_load(const char *path, fc_kernels *km, psim_err *err);
/* Writes the polynomial of one kernel as model-file lines. */
void fc_kernels_write_poly(FILE *f, int kernel, const fc_poly *p);
/* The polynomial as text ("2.1e-11 m n k + 3e-7"), for reports. */
void fc_poly_format(char *buf, size_t n, const fc_poly *p);

/* Least-squares fit of y ~ sum_j c_j x^e_j over npts points (x: npts x 3, m n k), minimising
 * the relative error (each row weighted by 1/y). The monomials are p->t[*].e (p->nterms of
 * them); fills the coefficients and the fit's rms and max relative error. 0, or -1 when the
 * system is singular. */
int fc_fit(fc_poly *p, const double *x, const double *y, int npts);

/* ---- Network ---------------------------------------------------------------------------- */
struct net_config;
typedef struct fc_net {
  double lambda;        /* latency of one message, seconds */
  double tau;           /* seconds per 8-byte element (8 / bandwidth) */
  double eager_bytes;   /* messages below this do not block their sender (SMPI: 65536) */
  /* NULL: the paper's lambda + L tau. Else SMPI's factors (psim/models.h): a message of S
   * bytes costs lat_factor(S+16) lambda + (S+16) / (bw_factor(S+16) bandwidth). */
  const struct net_config *smpi;
} fc_net;
/* Time of one message of `elements` 8-byte elements. */
double fc_msg_time(const fc_net *net, double elements);

/* ---- Routines --------------------------------------------------------------------------- */
enum { FC_PDGEMM = 0, FC_PDTRSM = 1 };

typedef struct fc_problem {
  int routine;
  long m, n, k, nb;          /* pdgemm: A m x k, B k x n; pdtrsm: B m x n; nb = block size R */
  long step;                 /* pdgemm: the width of a step of the product over k; 0 = nb (the
                                paper's (4.3)); ScaLAPACK 2's PBLAS steps by 32 (its PILAENV) */
  char side, uplo, trans;    /* pdtrsm: 'L'/'R', 'U'/'L', 'N'/'T' */
} fc_problem;

/* pdgemm's step width: pb->step, or the block size when not given. */
long fc_step(const fc_problem *pb);

typedef struct fc_grid {
  int p, q;
  double time;          /* forecast, seconds */
  double compute;       /* kernel time on the critical path */
  double comm;          /* communication (broadcasts, sends) on the critical path */
  double idle;          /* pdtrsm: the idle-time corrections C_b + C_u; pdgemm: 0 */
  double mem;           /* bytes per process (largest local parts + work buffers) */
  int fits;             /* 1 when mem <= the hosts' memory (or memory unknown) */
} fc_grid;

/* The paper's case number (1-4, Figure 4.3) of a pdtrsm call. */
int fc_trsm_case(char side, char uplo, char trans);
/* Checks sizes and options; -1 with err (exit 2) when a size is not positive or a flag bad. */
int fc_problem_check(const fc_problem *pb, psim_err *err);
/* Forecast of one grid p x q (fills everything but fits). */
void fc_forecast(const fc_problem *pb, const fc_kernels *km, const fc_net *net, int p, int q,
                 fc_grid *out);

/* ScaLAPACK's NUMROC: how many of n items, in blocks of nb dealt cyclically over np
 * processes, process iproc holds. */
long fc_numroc(long n, long nb, int iproc, int np);
long fc_ceil_log2(long x);

/* ---- Redistribution (paper section 5) -----------------------------------------------------
 * Moving an m x n matrix, block-cyclic with blocks nb x nb, from grid A (pa x qa, processes
 * firsta + row-major index) to grid B (pb x qb, processes firstb + ...). Every pair of
 * distinct processes that share data exchanges one message with all of it (self-copies are
 * free). Each process sends its messages one after the other and receives one at a time:
 * time = max over processes of max(sum of its sends, sum of its receives), each message
 * costing lambda + elements * tau. */
typedef struct fc_redist {
  double time;
  long messages;
  double elements;      /* moved between distinct processes */
} fc_redist;
void fc_redistribute(long m, long n, long nb, int pa, int qa, int firsta, int pb, int qb,
                     int firstb, const fc_net *net, fc_redist *out);

#endif
