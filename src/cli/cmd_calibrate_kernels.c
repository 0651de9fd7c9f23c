/* psim calibrate --kernels: benchmarks the BLAS kernels psim forecast models (dgemm, dtrsm, and
 * the accumulation of pdtrsm), fits polynomials by weighted least squares and writes the model
 * file (docs/forecast.md), as FAST does once per machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/forecast_report.h"
#include "psim/forecast.h"

#ifdef PSIM_HAVE_CBLAS
#include <cblas.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
static int fc_bench_kernel(int kernel, const long *sz, int reps, double *best);
static int blas_load(void);
typedef struct at_once at_once;
static at_once *at_once_start(int n);
static void at_once_point(at_once *o, int kernel, const long *sz);
static void at_once_stop(at_once *o);
static int at_once_count(const at_once *o);
#endif

static const char *HELP =
    "usage: psim calibrate --kernels [-o FILE] [--report F.html] [--quick] [--reps N] [--at-once N]\n"
    "       psim calibrate --kernels --kernel-rate FLOPS [-o FILE]\n"
    "\n"
    "Benchmarks the sequential kernels psim forecast combines (FAST's approach, paper 003):\n"
    "  dgemm(m, n, k)  C(m x n) += A(m x k) B(k x n), at m, n in 16..1024 and k in 16..256\n"
    "  dtrsm(m, n)     B(m x n) = B A^-1, A upper n x n (side R: pdtrsm's case 2)\n"
    "  add(m, n)       C(m x n) += D(m x n) (pdtrsm's accumulation)\n"
    "on one core, warm cache (one untimed call first), each point the fastest of N repetitions\n"
    "(default 5) of enough calls to last 2 ms (the least disturbed by other processes). Then\n"
    "fits, by least squares on the relative error,\n"
    "  dgemm = c0 + c1 m n k + c2 m n + c3 m k + c4 n k\n"
    "  dtrsm = c0 + c1 m n^2 + c2 m n + c3 n^2\n"
    "  add   = c0 + c1 m n\n"
    "(the flops, the data each operand moves, the call overhead), prints each fit's rms and\n"
    "maximum relative error, and writes the model file (stdout, or -o FILE) that psim forecast\n"
    "--kernels reads: plain text, one term per line, editable. --report draws measured against\n"
    "fitted times. --kernel-rate writes a file of a constant rate instead (no measurement).\n"
    "--quick measures fewer, smaller points (tests). --at-once N measures each point while N - 1\n"
    "other processes run the same kernel at the same size on the other cores, as the N ranks of\n"
    "a node do in a ScaLAPACK run: on a 2-core machine dgemm(2000, 1000, 1000) ran at 77 Gflop/s\n"
    "alone and 57-69 with a second copy (they share the memory and the last-level cache).\n"
    "\n"
    "examples:\n"
    "  psim calibrate --kernels -o kernels.txt --report kernels.html\n"
    "  psim forecast pdgemm --m 4096 --n 4096 --k 4096 --nb 64 --procs 1-64 \\\n"
    "      --platform cluster.xml --kernels kernels.txt\n";

#ifdef PSIM_HAVE_CBLAS
static const unsigned char MONO[FC_NKERNELS][5][3] = {
    {{0, 0, 0}, {1, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}},
    {{0, 0, 0}, {1, 2, 0}, {1, 1, 0}, {0, 2, 0}},
    {{0, 0, 0}, {1, 1, 0}},
};
static const int NMONO[FC_NKERNELS] = {5, 4, 2};
#endif

static void write_header(FILE *f) {
  fputs("# psim kernel models (psim calibrate --kernels; read by psim forecast --kernels).\n"
        "# One term per line: KERNEL MONOMIAL COEFFICIENT; a kernel's time in seconds is the sum\n"
        "# of its terms, e.g. 'dgemm m*n*k 2e-11' adds 2e-11 m n k. Variables (column-major BLAS):\n"
        "#   dgemm(m, n, k): C(m x n) += A(m x k) B(k x n);  dtrsm(m, n): B(m x n) = B A^-1,\n"
        "#   A upper n x n;  add(m, n): C(m x n) += D(m x n). Monomials: 1, or products of the\n"
        "#   variables with optional powers (m*n^2). Or one line 'rate FLOPS' for a constant rate.\n", f);
}

int cmd_calibrate_kernels(int argc, char **argv) {
  const char *out = "-", *report = NULL, *rate = NULL;
  int quick = 0, reps = 5, nonce = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(HELP, stdout); return 0; }
    if (!strcmp(argv[i], "--kernels")) continue;
    if (!strcmp(argv[i], "--quick")) { quick = 1; continue; }
    if (i + 1 >= argc) return cli_usage("calibrate", "unknown option or missing value '%s'", argv[i]);
    if (!strcmp(argv[i], "-o")) out = argv[++i];
    else if (!strcmp(argv[i], "--report")) report = argv[++i];
    else if (!strcmp(argv[i], "--kernel-rate")) rate = argv[++i];
    else if (!strcmp(argv[i], "--reps")) {
      long r = cli_int("calibrate", "--reps", argv[++i]);
      if (r < 1) return r < 0 ? 2 : cli_usage("calibrate", "--reps expects at least 1");
      reps = (int)r;
    } else if (!strcmp(argv[i], "--at-once")) {
      long r = cli_int("calibrate", "--at-once", argv[++i]);
      if (r < 1 || r > 1024) return r < 0 ? 2 : cli_usage("calibrate", "--at-once expects a number of processes from 1 to 1024");
      nonce = (int)r;
    } else {
      return cli_usage("calibrate", "unknown option '%s'", argv[i]);
    }
  }
  if (rate) {
    char *e;
    double r = strtod(rate, &e);
    if (*e || !(r > 0) || !isfinite(r)) return cli_usage("calibrate", "--kernel-rate expects flop/s, got '%s'", rate);
    FILE *f = cli_open_out(out);
    if (!f) return PSIM_EXIT_INPUT;
    write_header(f);
    fprintf(f, "# Not measured: every kernel takes flops / rate (dgemm 2mnk, dtrsm mn^2, add mn).\nrate %.9g\n", r);
    if (cli_close_out(f, out)) return PSIM_EXIT_INPUT;
    return 0;
  }
#ifndef PSIM_HAVE_CBLAS
  (void)quick;
  (void)reps;
  (void)report;
  (void)nonce;
  fprintf(stderr, "psim calibrate: this psim was built without BLAS, so --kernels cannot measure anything.\n"
                  "Install a CBLAS (Debian: apt-get install libopenblas-dev), rebuild (make), or give\n"
                  "--kernel-rate FLOPS for a constant-rate model.\n");
  return PSIM_EXIT_INPUT;
#else
  static const long full_mn[] = {16, 64, 256, 1024}, full_k[] = {16, 64, 256};
  static const long quick_mn[] = {16, 64, 192}, quick_k[] = {16, 64};
  const long *mn = quick ? quick_mn : full_mn, *ks = quick ? quick_k : full_k;
  int nmn = quick ? 3 : 4, nk = quick ? 2 : 3;
  if (quick && reps > 3) reps = 3;
  if (blas_load()) return PSIM_EXIT_INPUT;
  at_once *others = nonce > 1 ? at_once_start(nonce - 1) : NULL;
  if (nonce > 1 && !others) return PSIM_EXIT_INPUT;
  fc_kernels km;
  memset(&km, 0, sizeof km);
  VEC(double) xs[FC_NKERNELS] = {{0}}, ys[FC_NKERNELS] = {{0}};
  int rc = 0;
  for (int kern = 0; kern < FC_NKERNELS; kern++) {
    for (int a = 0; a < nmn; a++)
      for (int b = 0; b < (kern == FC_DTRSM ? nk : nmn); b++)
        for (int c = 0; c < (kern == FC_DGEMM ? nk : 1); c++) {
          long sz[3] = {mn[a], kern == FC_DTRSM ? ks[b] : mn[b], kern == FC_DGEMM ? ks[c] : 0};
          double t;
          if (others) at_once_point(others, kern, sz);
          if (fc_bench_kernel(kern, sz, reps, &t)) { rc = 2; goto done; }
          for (int d = 0; d < 3; d++) VEC_PUSH(xs[kern], (double)sz[d]);
          VEC_PUSH(ys[kern], t);
        }
    fc_poly *p = &km.k[kern];
    p->nterms = NMONO[kern];
    for (int j = 0; j < p->nterms; j++) memcpy(p->t[j].e, MONO[kern][j], 3);
    if (fc_fit(p, xs[kern].data, ys[kern].data, (int)ys[kern].len)) {
      fprintf(stderr, "psim calibrate: the %s fit is singular\n", fc_kernel_name(kern));
      rc = 2;
      goto done;
    }
    char poly[512];
    fc_poly_format(poly, sizeof poly, p);
    fprintf(stderr, "%-6s %3zu points  rms error %5.1f %%  max %5.1f %%   t = %s\n", fc_kernel_name(kern),
            ys[kern].len, 100 * p->fit_rms_rel, 100 * p->fit_max_rel, poly);
  }
  {
    FILE *f = cli_open_out(out);
    if (!f) { rc = 2; goto done; }
    write_header(f);
    fprintf(f, "# Measured with %s, one thread, warm cache, fastest of %d repetitions.\n", PSIM_CBLAS_NAME, reps);
    if (others)
      fprintf(f, "# Measured %d at once: %d other processes ran the same kernel at each point (--at-once).\n",
              at_once_count(others) + 1, at_once_count(others));
    for (int kern = 0; kern < FC_NKERNELS; kern++) {
      fprintf(f, "# %s: %zu points, fit rms relative error %.2f %%, max %.2f %%\n", fc_kernel_name(kern),
              ys[kern].len, 100 * km.k[kern].fit_rms_rel, 100 * km.k[kern].fit_max_rel);
      fc_kernels_write_poly(f, kern, &km.k[kern]);
    }
    if (cli_close_out(f, out)) { rc = 2; goto done; }
  }
  if (report) {
    FILE *f = cli_open_out(report);
    if (!f) { rc = 2; goto done; }
    fcr_begin(f, "psim calibrate --kernels: measured and fitted kernel times");
    fputs("<p>", f);
    fcr_esc(f, PSIM_CBLAS_NAME);
    fprintf(f, ", one thread, fastest of %d repetitions. Each point: one size; on the dashed line "
               "the fit equals the measure.</p>\n", reps);
    for (int kern = 0; kern < FC_NKERNELS; kern++) {
      size_t n = ys[kern].len;
      double *fit = xmalloc(sizeof(double) * (n + 1));
      fprintf(f, "<h2>%s</h2>\n<p>", fc_kernel_name(kern));
      char poly[512], title[128];
      fc_poly_format(poly, sizeof poly, &km.k[kern]);
      fcr_esc(f, poly);
      fprintf(f, " &mdash; rms relative error %.2f %%, max %.2f %%</p>\n", 100 * km.k[kern].fit_rms_rel,
              100 * km.k[kern].fit_max_rel);
      for (size_t i = 0; i < n; i++)
        fit[i] = fc_kernel_time(&km, kern, xs[kern].data[3 * i], xs[kern].data[3 * i + 1], xs[kern].data[3 * i + 2]);
      snprintf(title, sizeof title, "%s: fitted against measured", fc_kernel_name(kern));
      fcr_scatter(f, title, ys[kern].data, fit, (int)n);
      fputs("<table><tr><th>m</th><th>n</th><th>k</th><th>measured (s)</th><th>fitted (s)</th><th>error</th></tr>\n", f);
      for (size_t i = 0; i < n; i++)
        fprintf(f, "<tr><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.4g</td><td>%.4g</td><td>%+.1f %%</td></tr>\n",
                xs[kern].data[3 * i], xs[kern].data[3 * i + 1], xs[kern].data[3 * i + 2], ys[kern].data[i],
                fit[i], 100 * (fit[i] - ys[kern].data[i]) / ys[kern].data[i]);
      fputs("</table>\n", f);
      free(fit);
    }
    fcr_end(f);
    if (cli_close_out(f, report)) rc = 2;
  }
done:
  if (others) at_once_stop(others);
  for (int kern = 0; kern < FC_NKERNELS; kern++) {
    VEC_FREE(xs[kern]);
    VEC_FREE(ys[kern]);
  }
  return rc;
#endif
}

#ifdef PSIM_HAVE_CBLAS
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The BLAS is loaded here, only when kernels are measured, not linked into psim: OpenBLAS's
 * (pthread build) constructor starts a thread per core in every process that links it, and
 * the idle threads spin for about 0.1 s of CPU at each start (0.04 s user + 0.08 s system
 * measured on a 0.25 s replay; docs/performance.md, "Speed at 64 ranks"). One thread
 * is asked for before loading: the kernels are measured on one core. PSIM_CBLAS_LIB is the
 * library pkg-config named at build time; its usual run-time names are the fallbacks. */
static struct {
  __typeof__(&cblas_dgemm) dgemm;
  __typeof__(&cblas_dtrsm) dtrsm;
  __typeof__(&cblas_daxpy) daxpy;
} blas;

static int blas_sym(void *h, const char *name, void *fp, size_t size) {
  void *f = dlsym(h, name);
  if (!f) {
    fprintf(stderr, "psim calibrate: the BLAS library has no %s\n", name);
    return -1;
  }
  memcpy(fp, &f, size);
  return 0;
}

static int blas_load(void) {
  static const char *names[] = {PSIM_CBLAS_LIB, "libopenblas.so.0", "libcblas.so.3"};
  if (blas.dgemm) return 0;
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  void *h = NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "psim calibrate: cannot load the BLAS library %s: %s\n", PSIM_CBLAS_LIB, dlerror());
    return -1;
  }
  if (blas_sym(h, "cblas_dgemm", &blas.dgemm, sizeof blas.dgemm) ||
      blas_sym(h, "cblas_dtrsm", &blas.dtrsm, sizeof blas.dtrsm) ||
      blas_sym(h, "cblas_daxpy", &blas.daxpy, sizeof blas.daxpy))
    return -1;
  return 0;
}

static void run_kernel(int kernel, const long *sz, double *a, double *b, double *c) {
  int m = (int)sz[0], n = (int)sz[1], k = (int)sz[2];
  if (kernel == FC_DGEMM)
    blas.dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, m, b, k, 1.0, c, m);
  else if (kernel == FC_DTRSM)
    blas.dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, m, n, 1.0, a, n, c, m);
  else
    blas.daxpy(m * n, 1.0, a, 1, c, 1);
}

/* The operands of one call of kernel at size sz, filled with values that keep it in range. */
static void kernel_buffers(int kernel, const long *sz, double **pa, double **pb, double **pc) {
  long m = sz[0], n = sz[1], k = kernel == FC_DGEMM ? sz[2] : n;
  size_t na = (size_t)(kernel == FC_DTRSM ? n * n : m * (kernel == FC_ADD ? n : k));
  double *a = xmalloc(sizeof(double) * na), *b = xmalloc(sizeof(double) * (size_t)(k * n)),
         *c = xmalloc(sizeof(double) * (size_t)(m * n));
  for (size_t i = 0; i < na; i++) a[i] = 1.0 / (double)(1 + i % 7);
  for (long i = 0; i < k * n; i++) b[i] = 0.5;
  for (long i = 0; i < m * n; i++) c[i] = 0.25;
  if (kernel == FC_DTRSM)   /* a well-conditioned upper triangle: dominant diagonal */
    for (long j = 0; j < n; j++)
      for (long i = 0; i < n; i++) a[j * n + i] = i == j ? 1.0 : i < j ? 0.5 / (double)n : 0;
  *pa = a;
  *pb = b;
  *pc = c;
}

/* The fastest of reps repetitions (the least disturbed by other processes) of the time of
 * one call; each repetition makes enough calls to last 2 ms. */
static int fc_bench_kernel(int kernel, const long *sz, int reps, double *best) {
  long m = sz[0], n = sz[1];
  double *a, *b, *c;
  kernel_buffers(kernel, sz, &a, &b, &c);
  run_kernel(kernel, sz, a, b, c);   /* warm the cache and the library */
  double t0 = now();
  run_kernel(kernel, sz, a, b, c);
  double one = now() - t0;
  long calls = one > 0 ? (long)(2e-3 / one) + 1 : 1000;
  double *ts = xmalloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; r++) {
    if (kernel == FC_DTRSM)
      for (long i = 0; i < m * n; i++) c[i] = 0.25;   /* keep the values in range */
    t0 = now();
    for (long i = 0; i < calls; i++) run_kernel(kernel, sz, a, b, c);
    ts[r] = (now() - t0) / (double)calls;
  }
  *best = ts[0];
  for (int i = 1; i < reps; i++)
    if (ts[i] < *best) *best = ts[i];
  free(ts);
  free(a);
  free(b);
  free(c);
  return *best > 0 ? 0 : -1;
}

/* --at-once: n other processes (forked after the BLAS is loaded) run the kernel the parent
 * measures, at its size, over and over, until the parent moves to the next point (a shared
 * page: the point and a count of points) or stops them. So each point is timed while the
 * other cores do what the other ranks of a node do at that moment. */
struct at_once {
  int n;
  pid_t *pid;
  struct shared_point {
    volatile long gen;        /* bumped by the parent at each point; -1: stop */
    volatile long kernel, sz[3];
  } *sh;
};

static void at_once_child(struct shared_point *sh) {
  long seen = 0;
  double *a = NULL, *b = NULL, *c = NULL;
  long sz[3] = {0, 0, 0};
  int kernel = 0;
  for (;;) {
    long g = sh->gen;
    if (g < 0) break;
    if (g != seen) {   /* a new point: buffers for it */
      __sync_synchronize();
      seen = g;
      kernel = (int)sh->kernel;
      for (int d = 0; d < 3; d++) sz[d] = sh->sz[d];
      free(a);
      free(b);
      free(c);
      kernel_buffers(kernel, sz, &a, &b, &c);
    }
    if (!g) { usleep(100); continue; }
    if (kernel == FC_DTRSM || kernel == FC_ADD)
      for (long i = 0; i < sz[0] * sz[1]; i++) c[i] = 0.25;   /* keep the values in range */
    run_kernel(kernel, sz, a, b, c);
  }
  _exit(0);
}

static at_once *at_once_start(int n) {
  at_once *o = xcalloc(1, sizeof *o);
  o->sh = mmap(NULL, sizeof *o->sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (o->sh == MAP_FAILED) {
    fprintf(stderr, "psim calibrate: --at-once: cannot map a shared page\n");
    free(o);
    return NULL;
  }
  o->pid = xcalloc((size_t)n, sizeof *o->pid);
  fflush(NULL);
  for (int i = 0; i < n; i++) {
    pid_t p = fork();
    if (p < 0) {
      fprintf(stderr, "psim calibrate: --at-once: cannot start process %d of %d\n", i + 2, n + 1);
      at_once_stop(o);
      return NULL;
    }
    if (p == 0) at_once_child(o->sh);
    o->pid[o->n++] = p;
  }
  return o;
}

static void at_once_point(at_once *o, int kernel, const long *sz) {
  o->sh->kernel = kernel;
  for (int d = 0; d < 3; d++) o->sh->sz[d] = sz[d];
  __sync_synchronize();
  o->sh->gen = o->sh->gen + 1;
  usleep(2000);   /* the others set up their buffers and run before the point is timed */
}

static int at_once_count(const at_once *o) { return o->n; }

static void at_once_stop(at_once *o) {
  o->sh->gen = -1;
  __sync_synchronize();
  for (int i = 0; i < o->n; i++) waitpid(o->pid[i], NULL, 0);
  munmap((void *)o->sh, sizeof *o->sh);
  free(o->pid);
  free(o);
}
#endif
