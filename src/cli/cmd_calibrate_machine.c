/* psim calibrate --machine: measures this machine with the real MPI (the embedded probe,
 * src/tools/probe/psim_probe.c, built with the MPI's compiler and run under its mpiexec at 2
 * ranks), fits SMPI's piecewise message model to it and writes the platform that psim run
 * and psim replay read (docs/calibrate.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/forecast_report.h"
#include "psim/calib.h"
#include "psim/emul.h"

extern const char calib_probe_source[];   /* generated from psim_probe.c at build time */

static const char *HELP =
    "usage: psim calibrate --machine [-o FILE] [--mpiexec CMD] [--mpicc CMD] [--hostfile H]\n"
    "                      [--nodes N] [--report F.html] [--max-size BYTES] [--reps N] [--cores N]\n"
    "                      [--launches N] [--quick]\n"
    "                      [--save-measurements F] [--measurements F]\n"
    "\n"
    "Measures this machine with the MPI your programs use and writes a platform (SimGrid's XML\n"
    "with its <config>) on which psim run predicts what programs measure here:\n"
    "  - one-way ping-pong times from 1 byte to --max-size (default 256 MiB, two sizes per\n"
    "    octave), fitted piecewise (smpi/lat-factor, smpi/bw-factor: the protocol thresholds\n"
    "    are where the fit breaks);\n"
    "  - exchanges (two transfers at once, one each way): the node's memory bandwidth, shared\n"
    "    by all of its transfers (the cluster's backbone);\n"
    "  - one-way times of data the sender has just written (a memset before each send): psim's\n"
    "    network/written-lat-factor and -bw-factor, which collectives' messages take, and\n"
    "    psim run's point-to-point messages whose buffer changed since it last moved;\n"
    "  - the cost of MPI_Wtime (smpi/wtime), and of MPI_Iprobe and MPI_Test (the cluster's\n"
    "    properties psim/run/iprobe-cost and psim/run/test-cost: psim run charges them to the\n"
    "    rank; SMPI's smpi/iprobe and smpi/test are injected sleeps that grow, not costs);\n"
    "  - one core's flop rate (the hosts' speed and smpi/host-speed: a CPU second measured by\n"
    "    psim run is a second on these hosts);\n"

    "The probe is built with --mpicc (default: the compiler beside --mpiexec, mpicc.mpich for\n"
    "mpiexec.mpich) and run as `MPIEXEC -n 2 probe` on this node.\n"
    "With --hostfile H (two nodes of a cluster) it runs a second time with the two ranks on\n"
    "different nodes (MPICH: -f H -ppn 1; Open MPI: --hostfile H --map-by node) and writes a\n"
    "cluster of --nodes N hosts (default: the hostfile's) of --cores cores each: messages\n"
    "between nodes take the network's fit (SMPI's factors, the hosts' links), messages inside\n"
    "a node the node's (the hosts' loopback, with psim's network/loopback-lat-factor and\n"
    "-bw-factor). Calibrate on two nodes, predict a thousand: psim run --hostfile places ranks.\n"
    "Prints what it measured and the fit's residuals; --report draws measured\n"
    "points against the model. Every figure is the median of --reps batches (default 5) in each\n"
    "of two passes over the sizes, and the best of --launches runs of the probe (default 3; each\n"
    "launch places the processes anew, and a placement can be 10 % slower than the next).\n"
    "--measurements F fits saved measurements (--save-measurements) without running anything.\n"
    "--quick: sizes up to 4 MiB, 3 batches, one launch, 0.3 s of flop rate (tests).\n"
    "\n"
    "examples:\n"
    "  psim calibrate --machine -o this.xml --report calib.html\n"
    "  psim run --np 2 --platform this.xml -- ./prog\n";

typedef struct calib_args {
  const char *out, *mpiexec, *mpicc, *hostfile, *report, *save, *from;
  double max_size;
  long reps, cores, nodes, launches;
  int quick;
} calib_args;

/* Whether name runs as a command (a path, or found on PATH). */
static int runnable(const char *name) {
  if (strchr(name, '/')) return access(name, X_OK) == 0;
  const char *path = getenv("PATH");
  if (!path) return 0;
  char buf[4096];
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n && n + strlen(name) + 2 < sizeof buf) {
      snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
      if (access(buf, X_OK) == 0) return 1;
    }
    p += n + (e != NULL);
  }
  return 0;
}

/* Runs argv with stdout to out (NULL: psim's stderr, so the user sees it); its exit status,
 * or -1 when it could not start (printed). */
static int run(char *const *argv, const char *out) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) { fprintf(stderr, "psim calibrate: cannot start %s: %s\n", argv[0], strerror(errno)); return -1; }
  if (pid == 0) {
    FILE *o = out ? freopen(out, "w", stdout) : NULL;
    if (out && !o) _exit(126);
    if (!out) dup2(2, 1);
    execvp(argv[0], argv);
    fprintf(stderr, "psim calibrate: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Which MPI mpiexec belongs to, from what `mpiexec --version` prints: "mpich" (Hydra: MPICH,
 * and MPIs built on it), "ompi" (Open MPI), or NULL. */
static const char *mpi_kind(const char *mpiexec, const char *dir) {
  char out[4200];
  snprintf(out, sizeof out, "%s/version.txt", dir);
  char *argv[] = {(char *)mpiexec, "--version", NULL};
  if (run(argv, out) != 0) return NULL;
  FILE *f = fopen(out, "r");
  if (!f) return NULL;
  char buf[512];
  const char *kind = NULL;
  while (!kind && fgets(buf, sizeof buf, f)) {
    if (strstr(buf, "HYDRA") || strstr(buf, "MPICH")) kind = "mpich";
    else if (strstr(buf, "Open MPI") || strstr(buf, "OpenRTE")) kind = "ompi";
  }
  fclose(f);
  return kind;
}

/* mpicc beside mpiexec: mpiexec.mpich -> mpicc.mpich, /x/bin/mpirun -> /x/bin/mpicc. */
static void default_mpicc(const char *mpiexec, char *out, size_t n) {
  const char *base = strrchr(mpiexec, '/');
  size_t dir = base ? (size_t)(base - mpiexec + 1) : 0;
  base = base ? base + 1 : mpiexec;
  const char *suffix = strchr(base, '.');
  snprintf(out, n, "%.*smpicc%s", (int)dir, mpiexec, suffix ? suffix : "");
}

/* Other processes running make every real figure slower and noisier (MPICH's ranks wait for
 * each other by polling, so a message waits until both processes have a core): say so. */
static void warn_if_busy(long cores) {
  FILE *f = fopen("/proc/loadavg", "r");
  double load;
  if (!f) return;
  if (fscanf(f, "%lf", &load) == 1 && load > 0.5 * (double)cores)
    fprintf(stderr, "psim calibrate: warning: the load average is %.2f on %ld cores: other processes disturb the "
                    "measurements (each figure is the median of its batches, but a busy machine still gives slower, "
                    "noisier ones); calibrate on a quiet machine\n", load, cores);
  fclose(f);
}

static int run_probe(const calib_args *a, const char *mpiexec, const char *kind, const char *exe,
                     const char *hostfile, long launch, const char *out);

/* The output of launch l (from 1) of the probe inside this node, or between two nodes. */
static void probe_out(const char *dir, int between, long l, char *out, size_t n) {
  snprintf(out, n, "%s/%s%ld.out", dir, between ? "nodes" : "probe", l);
}

/* Builds the probe and runs it --launches times: inside this node into dir/probeL.out, and
 * with --hostfile between two nodes into dir/nodesL.out. Exit status or 0. */
static int measure(const calib_args *a, const char *dir, const char **kind) {
  char src[4200], exe[4200], out[4200], mpicc[4200];
  const char *mpiexec = a->mpiexec;
  if (!mpiexec) mpiexec = runnable("mpiexec.mpich") ? "mpiexec.mpich" : "mpiexec";
  if (!runnable(mpiexec)) {
    fprintf(stderr, "psim calibrate: no %s on PATH: install the MPI your programs use (Debian: apt-get install "
                    "mpich libmpich-dev) or name its launcher with --mpiexec\n", mpiexec);
    return PSIM_EXIT_INPUT;
  }
  if (a->mpicc) snprintf(mpicc, sizeof mpicc, "%s", a->mpicc);
  else default_mpicc(mpiexec, mpicc, sizeof mpicc);
  if (!runnable(mpicc)) {
    fprintf(stderr, "psim calibrate: no %s (the compiler of %s): name it with --mpicc\n", mpicc, mpiexec);
    return PSIM_EXIT_INPUT;
  }
  *kind = mpi_kind(mpiexec, dir);
  snprintf(src, sizeof src, "%s/psim_probe.c", dir);
  snprintf(exe, sizeof exe, "%s/psim_probe", dir);
  FILE *f = fopen(src, "w");
  if (!f || fputs(calib_probe_source, f) < 0 || fclose(f)) return cli_write_error(src, errno);
  char *cc[] = {mpicc, "-O2", "-o", exe, src, NULL};
  int st = run(cc, NULL);
  if (st) {
    fprintf(stderr, "psim calibrate: building the probe with %s failed (status %d)\n", mpicc, st);
    return 1;
  }
  /* Open MPI refuses to start as root without these (the CI machines run as root) */
  if (*kind && !strcmp(*kind, "ompi") && geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  for (long l = 1; l <= a->launches; l++) {
    probe_out(dir, 0, l, out, sizeof out);
    if ((st = run_probe(a, mpiexec, *kind, exe, NULL, l, out))) return st;
    if (!a->hostfile) continue;
    probe_out(dir, 1, l, out, sizeof out);
    if ((st = run_probe(a, mpiexec, *kind, exe, a->hostfile, l, out))) return st;
  }
  return 0;
}

/* One run of the probe at 2 ranks: on this node, or on two nodes of `hostfile`. */
static int run_probe(const calib_args *a, const char *mpiexec, const char *kind, const char *exe,
                     const char *hostfile, long launch, const char *out) {
  char maxs[64], reps[32];
  snprintf(maxs, sizeof maxs, "%.0f", a->max_size);
  snprintf(reps, sizeof reps, "%ld", a->reps);
  char *argv[16];
  int n = 0;
  argv[n++] = (char *)mpiexec;
  if (hostfile) {
    int ompi = kind && !strcmp(kind, "ompi");
    argv[n++] = ompi ? "--hostfile" : "-f";
    argv[n++] = (char *)hostfile;
    argv[n++] = ompi ? "--map-by" : "-ppn";
    argv[n++] = ompi ? "node" : "1";
  }
  argv[n++] = "-n";
  argv[n++] = "2";
  argv[n++] = (char *)exe;
  argv[n++] = maxs;
  argv[n++] = reps;
  argv[n] = NULL;
  char of[64] = "";
  if (a->launches > 1) snprintf(of, sizeof of, ", launch %ld of %ld", launch, a->launches);
  fprintf(stderr, "psim calibrate: measuring %s with %s (%s%s) ...\n", hostfile ? "between two nodes" : "inside this node",
          mpiexec, kind ? kind : "an MPI psim does not know", of);
  if (launch == 1) warn_if_busy(a->cores);
  int st = run(argv, out);
  if (st) {
    fprintf(stderr, "psim calibrate: the probe failed under %s (status %d)\n", mpiexec, st);
    return 1;
  }
  return 0;
}

static int parse(int argc, char **argv, calib_args *a) {
  memset(a, 0, sizeof *a);
  a->max_size = 268435456;
  a->reps = 5;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--machine")) continue;
    if (!strcmp(o, "--quick")) { a->quick = 1; continue; }
    const char **slot = !strcmp(o, "-o") ? &a->out : !strcmp(o, "--mpiexec") ? &a->mpiexec
                      : !strcmp(o, "--mpicc") ? &a->mpicc : !strcmp(o, "--hostfile") ? &a->hostfile
                      : !strcmp(o, "--report") ? &a->report : !strcmp(o, "--save-measurements") ? &a->save
                      : !strcmp(o, "--measurements") ? &a->from : NULL;
    int num = !strcmp(o, "--max-size") || !strcmp(o, "--reps") || !strcmp(o, "--cores") || !strcmp(o, "--nodes") ||
              !strcmp(o, "--launches");
    if (!slot && !num) return cli_usage("calibrate --machine", "unknown option '%s'", o);
    if (i + 1 >= argc) return cli_usage("calibrate --machine", "%s needs a value", o);
    const char *v = argv[++i];
    if (slot) { *slot = v; continue; }
    if (!strcmp(o, "--max-size")) {
      if (cli_num("calibrate --machine", o, v, &a->max_size) < 0) return PSIM_EXIT_USAGE;
      if (a->max_size < 64 || a->max_size > 1073741824)
        return cli_usage("calibrate --machine", "--max-size expects 64 to 1073741824 bytes, got '%s'", v);
      continue;
    }
    long x = cli_int("calibrate --machine", o, v);
    if (x < 1) return x < 0 ? 2 : cli_usage("calibrate --machine", "%s must be at least 1", o);
    *(!strcmp(o, "--reps") ? &a->reps : !strcmp(o, "--nodes") ? &a->nodes
      : !strcmp(o, "--launches") ? &a->launches : &a->cores) = x;
  }
  if (!a->launches) a->launches = a->quick ? 1 : 3;   /* not given (0 is refused above) */
  if (a->quick) {
    if (a->max_size > 4194304) a->max_size = 4194304;
    if (a->reps > 3) a->reps = 3;
  }
  if (!a->cores) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    a->cores = c > 0 ? c : 1;
  }
  return 0;
}

/* A fit's segments, each with the factors the platform gets from it. */
static void print_segments(FILE *f, const calib_seg *seg, int n, const double *latf, const double *bwf) {
  for (int i = 0; i < n; i++)
    fprintf(f, "  %10.0f - %10.0f B: %.4g us + %.4g GB/s   (lat-factor %.4g, bw-factor %.4g)\n", seg[i].from,
            seg[i].to, seg[i].a * 1e6, seg[i].b > 0 ? 1e-9 / seg[i].b : INFINITY, latf[i], bwf[i]);
}

/* What was measured and fitted, `where` ("inside a node", "between two nodes"; NULL: the one
 * node of a machine calibrated alone). */
static void print_fit(FILE *f, const calib_probe *p, const calib_model *m, const calib_seg *seg, const char *where) {
  if (where) fprintf(f, "%s:\n", where);
  else fprintf(f, "flop rate of one core: %.4g flop/s\n", m->speed);
  if (!where)
    fprintf(f, "latency %.4g us, bandwidth of a transfer %.4g GB/s, node memory shared by transfers %.4g GB/s "
               "(exchange / ping-pong at large sizes: %.3f)\n", m->lat * 1e6, m->bw / 1e9, m->bus / 1e9, m->exch_ratio);
  else
    fprintf(f, "latency %.4g us, bandwidth of a transfer %.4g GB/s, two transfers at once (one each way) %s "
               "(exchange / ping-pong at large sizes: %.3f)\n", m->lat * 1e6, m->bw / 1e9,
            m->bus >= 2 * m->bw ? "do not share it" : "share it", m->exch_ratio);
  fprintf(f, "ping-pong fit, %d segment%s:\n", m->nseg, m->nseg > 1 ? "s" : "");
  print_segments(f, seg, m->nseg, m->latf, m->bwf);
  if (m->iprobe > 0 || m->test > 0 || m->wtime > 0)
    fprintf(f, "polling: MPI_Iprobe %.3g us, MPI_Test %.3g us, MPI_Wtime %.3g us\n", m->iprobe * 1e6,
            m->test * 1e6, m->wtime * 1e6);
  if (p->allreduce > 0) {
    char own[96] = "";
    if (p->run_charges > 0) snprintf(own, sizeof own, ", what psim run charges on its own %.4g us", p->run_charges * 1e6);
    fprintf(f, "collectives: MPI_Allreduce of 8 B %.4g us, the model's exchange of 8 B%s %.4g us%s: %.3g us a call%s\n",
            p->allreduce * 1e6, m->nwseg ? " of written data" : "", calib_model_time_written(m, 8, 2) * 1e6, own,
            m->coll * 1e6, m->coll > 0 ? "" : " (none written)");
  }
  fprintf(f, "%12s %12s %12s %8s %12s %12s %8s\n", "bytes", "ping-pong", "model", "error", "exchange", "model", "error");
  double worst_pp = 0, worst_ex = 0;
  for (int i = 0; i < p->npp; i++) {
    double s = p->pp_size[i], t = p->pp_time[i], mt = calib_model_time(m, s, 1);
    double e = mt / t - 1;
    int spike = calib_is_spike(p->pp_time, p->npp, i);
    if (!spike && fabs(e) > fabs(worst_pp)) worst_pp = e;
    fprintf(f, "%12.0f %10.4g us %10.4g us %+7.1f%%", s, t * 1e6, mt * 1e6, 100 * e);
    for (int j = 0; j < p->nex; j++)
      if (p->ex_size[j] == s) {
        double x = calib_model_time(m, s, 2), ex = x / p->ex_time[j] - 1;
        if (fabs(ex) > fabs(worst_ex)) worst_ex = ex;
        fprintf(f, " %10.4g us %10.4g us %+7.1f%%", p->ex_time[j] * 1e6, x * 1e6, 100 * ex);
      }
    if (spike) fputs("   left out of the fit: 1.5x both neighbours", f);
    fputc('\n', f);
  }
  fprintf(f, "worst residual: ping-pong %+.1f %%, exchange %+.1f %%\n", 100 * worst_pp, 100 * worst_ex);
}

/* The messages of data their sender has just written: the fit, and each size against it and
 * against the ping-pong's model (how much more such data costs). */
static void print_written(FILE *f, const calib_probe *p, const calib_model *m, const calib_seg *seg) {
  fprintf(f, "written data (a collective's messages: network/written-*), fit in %d segment%s:\n", m->nwseg,
          m->nwseg > 1 ? "s" : "");
  print_segments(f, seg, m->nwseg, m->wlatf, m->wbwf);
  fprintf(f, "%12s %12s %12s %8s %12s\n", "bytes", "written", "model", "error", "/ ping-pong");
  double worst = 0;
  for (int i = 0; i < p->nwr; i++) {
    double s = p->wr_size[i], t = p->wr_time[i], mt = calib_model_time_written(m, s, 1), e = mt / t - 1;
    int spike = calib_is_spike(p->wr_time, p->nwr, i);
    if (!spike && fabs(e) > fabs(worst)) worst = e;
    fprintf(f, "%12.0f %10.4g us %10.4g us %+7.1f%% %11.2fx%s\n", s, t * 1e6, mt * 1e6, 100 * e,
            t / calib_model_time(m, s, 1), spike ? "   left out of the fit: 1.5x both neighbours" : "");
  }
  fprintf(f, "worst residual: written %+.1f %%\n", 100 * worst);
}

/* Measured points and the model's curves against the size, log-log: `q`, `n` (NULL: none),
 * the measurements between two nodes and their model. */
static void curves(FILE *f, const calib_probe *p, const calib_model *m, const char *where) {
  char title[200];
  double mod[CALIB_MAXPTS];
  for (int i = 0; i < p->npp; i++) mod[i] = calib_model_time(m, p->pp_size[i], 1);
  snprintf(title, sizeof title, "One-way ping-pong time against the message size%s", where);
  fcr_curve(f, title, "bytes", "seconds", p->pp_size, p->pp_time, mod, p->npp);
  for (int i = 0; i < p->nex; i++) mod[i] = calib_model_time(m, p->ex_size[i], 2);
  snprintf(title, sizeof title, "Exchange (one transfer each way at once) against the message size%s", where);
  if (p->nex) fcr_curve(f, title, "bytes", "seconds", p->ex_size, p->ex_time, mod, p->nex);
  if (!m->nwseg) return;
  for (int i = 0; i < p->nwr; i++) mod[i] = calib_model_time_written(m, p->wr_size[i], 1);
  snprintf(title, sizeof title, "One-way time of data the sender has just written%s", where);
  fcr_curve(f, title, "bytes", "seconds", p->wr_size, p->wr_time, mod, p->nwr);
}

static void report(FILE *f, const calib_probe *p, const calib_model *m, const calib_probe *q, const calib_model *n,
                   const char *title) {
  fcr_begin(f, title);
  curves(f, p, m, q ? ", inside a node" : "");
  if (q) curves(f, q, n, ", between two nodes");
  fputs("<p>Points: measured (median of the batches); line: the model written to the platform.</p>\n", f);
  fcr_end(f);
}

/* The number of distinct hosts a hostfile names (MPICH's "host[:n]", Open MPI's "host slots=n"
 * lines; '#' comments), or -1 with err. */
static int hostfile_nodes(const char *path, psim_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the hostfile: %s", strerror(errno));
  char buf[1024], names[64][256];
  int n = 0;
  long line = 0;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    char name[256];
    buf[strcspn(buf, "#")] = 0;
    if (sscanf(buf, "%255[^: \t\r\n]", name) != 1) continue;
    int seen = 0;
    for (int i = 0; i < n && !seen; i++) seen = !strcmp(names[i], name);
    if (seen) continue;
    if (n == 64) { fclose(f); return psim_errf(err, PSIM_EXIT_INPUT, path, line, "more than 64 hosts (give --nodes N)"); }
    snprintf(names[n++], sizeof names[0], "%s", name);
  }
  fclose(f);
  if (n < 2) return psim_errf(err, PSIM_EXIT_INPUT, path, line, "%d host%s: measuring between nodes needs two", n, n == 1 ? "" : "s");
  return n;
}

static int fit_and_write(const calib_args *a, const char *dir, const char *kind, calib_probe *p, calib_probe *q,
                         int nodes_measured, int nodes, const double *small, int nsmall);

/* The most a message of a few bytes may take inside a node before calibrate warns that the
 * machine was too busy to measure (MPICH and Open MPI take 0.2-2 us on idle cores). */
#define SMALL_MESSAGE_SANE_S 20e-6

/* --save-measurements: p, and q when nodes_measured; 0 or the exit status. */
static int save_measurements(const calib_args *a, const calib_probe *p, const calib_probe *q, int nodes_measured) {
  if (!a->save) return 0;
  FILE *o = cli_open_out(a->save);
  if (!o) return PSIM_EXIT_INPUT;
  calib_probe_write(o, p, 0);
  if (nodes_measured) calib_probe_write(o, q, 1);
  return cli_close_out(o, a->save);
}

/* The files a measurement leaves in its scratch directory, and the directory, removed. */
static void scratch_remove(const char *dir, long launches) {
  const char *names[] = {"psim_probe.c", "psim_probe", "version.txt", "platform.xml", "run0.out", "run1.out"};
  char x[4200];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) snprintf(x, sizeof x, "%s/%s", dir, names[i]), unlink(x);
  for (long l = 1; l <= launches; l++)
    for (int between = 0; between <= 1; between++) probe_out(dir, between, l, x, sizeof x), unlink(x);
  rmdir(dir);
}

/* What psim run charges the probe's 8-byte allreduce on its own, beyond the messages (p's
 * run_charges): the program's loop between calls, measured as any burst, and psim's runtime's
 * copy and combine, which the real MPI's allreduce holds too. The very binary the MPI ran
 * (`psim_probe allreduce REPS`, its allreduce alone) under psim run on the platform m, measuring
 * (run/coll-cost 0: the cost being fitted), less the same run with --no-measure (the messages
 * alone). 0 when measured; 1 when it could not be (said; the cost then keeps the whole
 * difference, as before this measurement existed). */
static int measure_run_charges(const calib_args *a, const char *dir, const calib_model *m, calib_probe *p) {
  char self[4096], plat[4200], exe[4200], out[4200], reps[32];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "psim calibrate: cannot find psim's own program (/proc/self/exe: %s): psim run's own charges "
                    "in a collective are not measured\n", strerror(errno));
    return 1;
  }
  self[n] = 0;
  snprintf(plat, sizeof plat, "%s/platform.xml", dir);
  snprintf(exe, sizeof exe, "%s/psim_probe", dir);
  snprintf(reps, sizeof reps, "%ld", a->reps);
  FILE *f = fopen(plat, "w");
  if (f) calib_write_platform(f, m, NULL);
  if (!f || fclose(f)) {
    cli_write_error(plat, errno);   /* says which file and why */
    return 1;
  }
  fprintf(stderr, "psim calibrate: measuring what psim run charges an allreduce on its own ...\n");
  double t[2];
  for (int i = 0; i < 2; i++) {
    snprintf(out, sizeof out, "%s/run%d.out", dir, i);
    char *measured[] = {self, "run", "--np", "2", "--platform", plat, "-q", "--cfg", "run/coll-cost:0", "--", exe,
                        "allreduce", reps, NULL};
    char *unmeasured[] = {self, "run", "--np", "2", "--platform", plat, "-q", "--no-measure", "--", exe,
                          "allreduce", reps, NULL};
    int st = run(i ? unmeasured : measured, out);
    FILE *o = st ? NULL : fopen(out, "r");
    if (!o || fscanf(o, "allreduce %lf", &t[i]) != 1 || !(t[i] > 0)) {
      fprintf(stderr, "psim calibrate: psim run of the probe's allreduce%s failed (status %d): psim run's own "
                      "charges in a collective are not measured\n", i ? " without measuring" : "", st);
      if (o) fclose(o);
      return 1;
    }
    fclose(o);
  }
  p->run_charges = t[0] > t[1] ? t[0] - t[1] : -1;
  return 0;
}

int cmd_calibrate_machine(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(HELP, stdout); return 0; }
  calib_args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc;
  if (cli_check_out(a.out) || cli_check_out(a.report) || cli_check_out(a.save)) return PSIM_EXIT_USAGE;
  const char *kind = NULL;
  /* the scratch directory where the user keeps temporary files (TMPDIR), as mktemp does */
  char dir[4096], path[4200];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/psim-calibrate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  /* the hostfile is read before anything runs: a wrong one costs no measurement */
  psim_err err;
  psim_err_clear(&err);
  int nodes = (int)a.nodes;
  if (a.hostfile && !nodes && (nodes = hostfile_nodes(a.hostfile, &err)) < 0) return cli_fail(&err);
  if (!a.from) {
    if (!mkdtemp(dir)) return cli_write_error(dir, errno);
    rc = measure(&a, dir, &kind);
  }
  /* p: inside this node; q: between two nodes (--hostfile, or a saved second block) */
  calib_probe p = {0}, q = {0};
  int nodes_measured = 0;
  if (!rc && a.from) {
    FILE *f = fopen(a.from, "r");
    if (!f) rc = cli_write_error(a.from, errno);   /* names the file and why */
    else {
      nodes_measured = calib_probe_read(f, a.from, &p, &q, &err);
      if (nodes_measured < 0) rc = cli_fail(&err);
      fclose(f);
    }
  }
  /* Each launch places the two processes anew, and the machine is not the same from one to
   * the next: here the 8-byte ping-pong of four launches in a row took 0.299 to 0.326 us. A
   * user's best of several runs is the best of as many placements, so each size keeps its
   * best launch. */
  double small[64];   /* the smallest size's time in each launch, printed */
  int nsmall = 0;
  for (long l = 1; !rc && !a.from && l <= a.launches; l++) {
    for (int between = 0; between <= (a.hostfile != NULL) && !rc; between++) {
      calib_probe one;
      probe_out(dir, between, l, path, sizeof path);
      FILE *f = fopen(path, "r");
      if (!f) { rc = cli_write_error(path, errno); break; }
      if (calib_probe_read(f, between ? "the probe's output between two nodes" : "the probe's output", &one, NULL, &err) < 0)
        rc = cli_fail(&err);
      fclose(f);
      if (rc) break;
      calib_probe *into = between ? &q : &p;
      if (l == 1) *into = one;
      else calib_probe_best(into, &one);
      if (!between && nsmall < 64) small[nsmall++] = one.pp_time[0];
      if (between) nodes_measured = 1;
    }
  }
  if (!rc) rc = fit_and_write(&a, a.from ? NULL : dir, kind, &p, &q, nodes_measured, nodes, small, nsmall);
  if (!a.from) scratch_remove(dir, a.launches);
  return rc;
}

/* Fits the measurements p (inside a node) and q (between two, when nodes_measured) and writes
 * the platform, the summary and the report; dir: the scratch directory of a measurement (NULL
 * when the measurements were read from a file), where psim run measures its own charges. */
static int fit_and_write(const calib_args *ap, const char *dir, const char *kind, calib_probe *pp, calib_probe *qp,
                         int nodes_measured, int nodes, const double *small, int nsmall) {
  calib_args a = *ap;
  calib_probe p = *pp, q = *qp;
  psim_err err;
  psim_err_clear(&err);
  int rc;
  if (nodes_measured && !nodes) nodes = 2;   /* saved measurements of two nodes */
  calib_model m = {0}, n = {0};
  m.envelope = n.envelope = 16;   /* SMPI's bytes per message, which psim's model adds too */
  m.cores = n.cores = (int)a.cores;
  /* measured flop rates are kept with the other measurements, so a refit is the same fit */
  if (!(p.flops > 0)) p.flops = emu_calibrate(a.quick ? 0.3 : 1.0);
  /* the MPI measured, kept with the measurements too (its collectives are psimcc's programs') */
  if (kind && !p.mpi[0]) snprintf(p.mpi, sizeof p.mpi, "%s", kind);
  m.speed = n.speed = p.flops;
  /* saved before the fit, so that measurements a fit refuses are kept to look at */
  if ((rc = save_measurements(&a, &p, &q, nodes_measured))) return rc;
  calib_seg seg[CALIB_MAXSEG], seg2[CALIB_MAXSEG];
  int k = calib_fit_segments(p.pp_size, p.pp_time, p.npp, CALIB_MAXSEG, 0.05, m.envelope, seg, &err);
  if (k < 0) return cli_fail(&err);
  calib_model_from_fit(&m, seg, k, &p);
  /* Inside a node an MPI moves a small message in a microsecond or so (shared memory, ranks
   * that poll); tens of microseconds mean its processes waited for a CPU: at a load average
   * of 7 on 2 cores a quick calibration took 1864 us for 1 B, a platform of a machine nobody
   * runs on. The fit is written (it is what was measured), with a warning that says so. */
  if (p.npp && p.pp_time[0] > SMALL_MESSAGE_SANE_S)
    fprintf(stderr, "psim calibrate: warning: a %.0f-byte message inside this node took %.4g us, where an MPI "
                    "takes about 1 us when each process has a core to itself: the probe's processes waited for a "
                    "CPU, and this platform describes a machine that busy; calibrate on a quiet machine\n",
            p.pp_size[0], p.pp_time[0] * 1e6);
  /* written data inside one node (a machine of several nodes keeps its loopback factors) */
  calib_seg wseg[CALIB_MAXSEG];
  if (!nodes_measured && p.nwr >= 3) {
    int kw = calib_fit_segments(p.wr_size, p.wr_time, p.nwr, CALIB_MAXSEG, 0.05, m.envelope, wseg, &err);
    if (kw < 0) return cli_fail(&err);
    calib_model_written(&m, wseg, kw, &p);
  }
  /* what psim run charges such an allreduce on its own, measured on the platform just fitted
   * (inside the node: the probe's allreduce ran there) */
  if (dir && kind && p.allreduce > 0 && measure_run_charges(&a, dir, &m, &p) == 0) {
    calib_model_coll(&m, &p);
    if ((rc = save_measurements(&a, &p, &q, nodes_measured))) return rc;   /* with them */
  }
  if (nodes_measured) {
    int k2 = calib_fit_segments(q.pp_size, q.pp_time, q.npp, CALIB_MAXSEG, 0.05, n.envelope, seg2, &err);
    if (k2 < 0) return cli_fail(&err);
    calib_model_from_fit(&n, seg2, k2, &q);
    calib_model_nodes(&m, &n);
  }
  FILE *out = cli_open_out(a.out ? a.out : "-");
  if (!out) return PSIM_EXIT_INPUT;
  char comment[600];
  snprintf(comment, sizeof comment, "%s as psim's machine calibration measured it%s%s (docs/calibrate.md)",
           nodes_measured ? "a cluster of the nodes" : "this machine", p.mpi[0] ? " with " : "",
           p.mpi[0] ? (!strcmp(p.mpi, "mpich") ? "MPICH" : "Open MPI") : "");
  if (nodes_measured) calib_write_platform_nodes(out, &m, &n, nodes, comment);
  else calib_write_platform(out, &m, comment);
  if ((rc = cli_close_out(out, a.out ? a.out : "-"))) return rc;
  /* the summary goes where the platform does not */
  FILE *sum = a.out && strcmp(a.out, "-") ? stdout : stderr;
  if (nsmall > 1) {
    fprintf(sum, "%d launches of the probe, each size's best: the %.0f-byte ping-pong took", nsmall, p.pp_size[0]);
    for (int i = 0; i < nsmall; i++) fprintf(sum, "%s %.4g", i ? "," : "", small[i] * 1e6);
    fprintf(sum, " us\n");
  }
  if (nodes_measured) {
    fprintf(sum, "flop rate of one core: %.4g flop/s; %d nodes of %d cores\n", m.speed, nodes, m.cores);
    print_fit(sum, &p, &m, seg, "inside a node");
    print_fit(sum, &q, &n, seg2, "between two nodes");
  } else print_fit(sum, &p, &m, seg, NULL);
  if (m.nwseg) print_written(sum, &p, &m, wseg);
  if (a.report) {
    FILE *r = cli_open_out(a.report);
    if (!r) return PSIM_EXIT_INPUT;
    report(r, &p, &m, nodes_measured ? &q : NULL, &n, "psim calibrate --machine");
    if ((rc = cli_close_out(r, a.report))) return rc;
  }
  return 0;
}
