/* psim: predicts how an MPI application performs on a cluster you do not have. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *USAGE =
    "usage: psim <command> [options]\n"
    "\n"
    "psim simulates message-passing (MPI) applications on described clusters.\n"
    "\n"
    "commands:\n"
    "  replay     replay a time-independent trace (SimGrid TIT format) on a platform\n"
    "  demo       replay the embedded example on the embedded 64-node platform\n"
    "  gen        write synthetic workloads (traces) for experiments and benchmarks\n"
    "  platform   print the embedded platform, or check and describe a platform file\n"
    "  run        run an MPI program built with psimcc inside the simulator\n"
    "  calibrate  measure this machine (its MPI with --machine: a platform for psim run)\n"
    "  critical-path  the chain of actions and messages that fixed a replay's simulated time\n"
    "  report     the HTML report (charts, critical path) of a result written by replay --json\n"
    "  sensitivity  re-run varying latency, bandwidth, speed, overheads, compute one at a time\n"
    "  lb         simulate over-decomposition (VPs on PEs) with dynamic load balancing\n"
    "  balance    run one load balancer on a stated situation, print the new mapping\n"
    "  trace      trace tools: stats, lb-period, aggregate\n"
    "  forecast   analytic forecast of pdgemm/pdtrsm on every grid shape (FAST), no simulation\n"
    "  sweep      run a command for every configuration of some parameters (--vary, MPI-able)\n"
    "  plan       the smallest host count meeting a makespan or efficiency target (bisection)\n"
    "\n"
    "Run 'psim <command> --help' for its options. Example:\n"
    "  psim gen stencil --ranks 16 --iters 20 -o /tmp/st && psim replay /tmp/st\n"
    "\n"
    "Exit status: 0 success, 2 bad input or usage, 3 the simulated application deadlocked,\n"
    "4 the application failed (psim run: a rank crashed, an MPI error, MPI_Abort).\n";

int cli_fail(const psim_err *err) {
  char buf[4096];
  psim_err_format(err, buf, sizeof buf);
  fprintf(stderr, "psim: %s\n", buf);
  return err->code ? err->code : 2;
}

int cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "psim %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(see 'psim %s --help')\n", cmd);
  return PSIM_EXIT_USAGE;
}

/* Standard output failed and was reported: main does not report it again. */
static int stdout_reported;

int cli_write_error(const char *path, int e) {
  int out = !strcmp(path, "-");
  if (out) {
    if (stdout_reported) return PSIM_EXIT_INPUT;
    stdout_reported = 1;
  }
  char name[512] = "standard output";
  if (out) {   /* name what stdout is, when it is a file: "standard output (/dev/full)" */
    char target[400];
    ssize_t n = readlink("/proc/self/fd/1", target, sizeof target - 1);
    if (n > 0 && target[0] == '/') {
      target[n] = 0;
      snprintf(name, sizeof name, "standard output (%s)", target);
    }
  }
  fprintf(stderr, "psim: cannot write %s: %s\n", out ? name : path, e ? strerror(e) : "write error");
  return PSIM_EXIT_INPUT;
}

void cli_flush_stdout(void) {
  errno = 0;
  if (fflush(stdout) != 0) cli_write_error("-", errno);
}

int cli_check_out(const char *path) {
  if (!path || !strcmp(path, "-")) return 0;
  if (access(path, F_OK) == 0) return access(path, W_OK) == 0 ? 0 : cli_write_error(path, errno);
  if (errno != ENOENT) return cli_write_error(path, errno);
  const char *slash = strrchr(path, '/');
  char dir[4096];
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  return access(dir, W_OK | X_OK) == 0 ? 0 : cli_write_error(path, errno);
}

FILE *cli_open_out(const char *path) {
  if (!strcmp(path, "-")) return stdout;
  FILE *f = fopen(path, "w");
  if (!f) cli_write_error(path, errno);
  return f;
}

int cli_close_out(FILE *f, const char *path) {
  if (!f) return 0;
  int bad = ferror(f) != 0, e = 0;
  errno = 0;
  if (fflush(f) != 0) { bad = 1; e = errno; }
  if (f != stdout && fclose(f) != 0) { bad = 1; if (!e) e = errno; }
  return bad ? cli_write_error(f == stdout ? "-" : path, e) : 0;
}

/* At exit: whatever went to stdout must have reached it (not lost to a full disk or an I/O
 * error); else an error, and a failing exit status. */
static int finish_stdout(int rc) {
  int bad = ferror(stdout) != 0;
  errno = 0;
  if (fflush(stdout) != 0 || bad) {
    cli_write_error("-", errno);   /* before fclose: it names what fd 1 is */
    bad = 1;
  }
  /* Not fclose(stdout): what a program under psim run leaves for after main (its atexit
   * handlers, its libraries' destructors: libgfortran flushes its units there, the last lines
   * of a ScaLAPACK tester) still goes to fd 1. Closing a duplicate reports what closing fd 1
   * would (an NFS server's delayed write errors). */
  int fd = dup(1);
  errno = 0;
  if (fd >= 0 && close(fd) != 0 && !bad) {
    cli_write_error("-", errno);
    bad = 1;
  }
  return bad && !rc ? 2 : rc;
}

int cli_is_one_of(const char *s, const char *const *names) {
  for (; *names; names++)
    if (!strcmp(s, *names)) return 1;
  return 0;
}

long cli_int(const char *cmd, const char *opt, const char *v) {
  char *end;
  errno = 0;
  long x = v ? strtol(v, &end, 10) : -1;
  if (!v || !*v || *end || x < 0) {
    cli_usage(cmd, "%s expects a non-negative integer, got '%s'", opt, v ? v : "");
    return -1;
  }
  /* Callers keep the value in an int: --np 99999999999 used to wrap to 1215752191. */
  if (errno == ERANGE || x > INT_MAX) {
    cli_usage(cmd, "%s expects an integer up to %d, got '%s'", opt, INT_MAX, v);
    return -1;
  }
  return x;
}

int cli_num(const char *cmd, const char *opt, const char *v, double *x) {
  char *end;
  double d = v ? strtod(v, &end) : -1;
  if (!v || end == v || *end || !(d >= 0) || !isfinite(d)) {
    cli_usage(cmd, "%s expects a non-negative number, got '%s'", opt, v ? v : "");
    return -1;
  }
  *x = d;
  return 0;
}

int cli_dims(const char *cmd, const char *opt, const char *v, int *a, int *b) {
  char *end;
  long x = strtol(v, &end, 10), y = 0;
  int ok = end != v && (*end == 'x' || *end == 'X');
  if (ok) {
    const char *p = end + 1;
    y = strtol(p, &end, 10);
    ok = end != p && !*end && x >= 1 && y >= 1 && x <= 1 << 20 && y <= 1 << 20;
  }
  if (!ok) {
    cli_usage(cmd, "%s expects AxB with positive integers (e.g. 8x8), got '%s'", opt, v);
    return -1;
  }
  *a = (int)x;
  *b = (int)y;
  return 0;
}

static int run_command(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(USAGE, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) { puts("psim 0.1"); return 0; }
  /* Per-rank trace files are kept open when the system allows it: raise the soft limit on
   * open files to the hard one (the reader still bounds what it uses, see src/trace/tit_io.c). */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  const char *c = argv[1];
  if (!strcmp(c, "replay")) return cmd_replay(argc - 1, argv + 1);
  if (!strcmp(c, "demo")) return cmd_demo(argc - 1, argv + 1);
  if (!strcmp(c, "gen")) return cmd_gen(argc - 1, argv + 1);
  if (!strcmp(c, "platform")) return cmd_platform(argc - 1, argv + 1);
  if (!strcmp(c, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(c, "calibrate")) return cmd_calibrate(argc - 1, argv + 1);
  if (!strcmp(c, "critical-path")) return cmd_critpath(argc - 1, argv + 1);
  if (!strcmp(c, "report")) return cmd_report(argc - 1, argv + 1);
  if (!strcmp(c, "sensitivity")) return cmd_sensitivity(argc - 1, argv + 1);
  if (!strcmp(c, "lb")) return cmd_lb(argc - 1, argv + 1);
  if (!strcmp(c, "balance")) return cmd_balance(argc - 1, argv + 1);
  if (!strcmp(c, "trace")) return cmd_trace(argc - 1, argv + 1);
  if (!strcmp(c, "forecast")) return cmd_forecast(argc - 1, argv + 1);
  if (!strcmp(c, "sweep")) return cmd_sweep(argc - 1, argv + 1);
  if (!strcmp(c, "plan")) return cmd_plan(argc - 1, argv + 1);
  fprintf(stderr, "psim: unknown command '%s'\n\n%s", c, USAGE);
  return PSIM_EXIT_USAGE;
}

int main(int argc, char **argv) {
  int rc = finish_stdout(run_command(argc, argv));
  psim_set_exit_status(rc);   /* for what runs during exit (emu_after_run) */
  return rc;
}
