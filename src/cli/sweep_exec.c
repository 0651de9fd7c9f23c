/* psim sweep: one configuration = one child process.
 *
 * The child is this very psim binary (/proc/self/exe) started afresh with the substituted
 * command and `--json FILE` inserted after the subcommand's name: nothing of the parent's
 * state leaks into a run, any subcommand that writes --json works, and a crash, an abort or
 * a deadlock only ends that run. Its stdout goes to /dev/null, its stderr to a file that
 * becomes the run's error message when it fails. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "psim/observe.h"

volatile sig_atomic_t sweep_interrupted = 0;

static void on_signal(int sig) {
  (void)sig;
  sweep_interrupted = 1;
}

void sweep_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;   /* no SA_RESTART: a blocking waitpid returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

long sweep_launched_tasks(void) {
  static const char *const vars[] = {"SLURM_STEP_NUM_TASKS", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"};
  long n = 1;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && atol(v) > n) n = atol(v);
  }
  return n;
}

double sweep_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --- the job --- */

static int template_end(const sweep_job *job) {
  /* options of the subcommand stop at its own '--' (psim run -- ./prog ...) */
  for (size_t i = 1; i < job->tmpl.len; i++)
    if (!strcmp(job->tmpl.data[i], "--")) return (int)i;
  return (int)job->tmpl.len;
}

int sweep_job_init(sweep_job *job, const char *cmd) {
  const sweep_space *s = &job->space;
  if (!job->tmpl.len) return cli_usage(cmd, "expected the command to run after '--' (e.g. -- replay --platform 'flat:{hosts}' trace/)");
  int end = template_end(job);
  for (int i = 1; i < end; i++)
    if (!strcmp(job->tmpl.data[i], "--json"))
      return cli_usage(cmd, "the command must not have its own --json: psim %s collects each run's JSON itself", cmd);
  /* every {NAME} known, every parameter used */
  char *used = xcalloc(s->params.len + 1, 1);
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  psim_err err;
  psim_err_clear(&err);
  int rc = 0;
  for (size_t i = 0; i < job->tmpl.len && !rc; i++) {
    char *t = sweep_subst(s, idx, job->tmpl.data[i], used, &err);
    if (!t) rc = cli_usage(cmd, "%s", err.msg);
    free(t);
  }
  for (size_t k = 0; k < s->params.len && !rc; k++)
    if (!used[k])
      rc = cli_usage(cmd, "parameter '%s' is not used in the command (write {%s} where its value goes)",
                     s->params.data[k].name, s->params.data[k].name);
  free(used);
  free(idx);
  if (rc) return rc;
  ssize_t n = readlink("/proc/self/exe", job->self, sizeof job->self - 1);
  if (n <= 0) { fprintf(stderr, "psim %s: cannot find the psim binary (/proc/self/exe)\n", cmd); return PSIM_EXIT_INPUT; }
  job->self[n] = 0;
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/psim-sweep.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) { fprintf(stderr, "psim %s: cannot create a temporary directory in %s\n", cmd, tmp ? tmp : "/tmp"); return PSIM_EXIT_INPUT; }
  job->tmpdir = xstrdup(dir);
  job->runs = xcalloc(s->total ? s->total : 1, sizeof *job->runs);
  for (size_t i = 0; i < s->total; i++) {
    sweep_run *r = &job->runs[i];
    r->time = r->hosts = r->cost = r->efficiency = NAN;
  }
  job->ntodo = s->total;
  job->t_start = job->t_checkpoint = sweep_now();
  return 0;
}

void sweep_job_free(sweep_job *job) {
  for (size_t i = 0; job->runs && i < job->space.total; i++) {
    free(job->runs[i].error);
    free(job->runs[i].result);
  }
  free(job->runs);
  if (job->tmpdir) { rmdir(job->tmpdir); free(job->tmpdir); }
  VEC_FREE(job->tmpl);
  sweep_space_free(&job->space);
}

/* --- one run --- */

static void run_path(const sweep_job *job, size_t i, const char *ext, char *buf, size_t n) {
  snprintf(buf, n, "%s/run-%zu.%s", job->tmpdir, i, ext);
}

static void child(const sweep_job *job, size_t i, const char *json, const char *errf) {
  const sweep_space *s = &job->space;
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  sweep_space_config(s, i, idx);
  char **argv = xcalloc(job->tmpl.len + 4, sizeof *argv);
  size_t k = 0;
  argv[k++] = (char *)job->self;
  for (size_t a = 0; a < job->tmpl.len; a++) {
    argv[k++] = sweep_subst(s, idx, job->tmpl.data[a], NULL, NULL);   /* checked by sweep_job_init */
    if (a == 0) { argv[k++] = "--json"; argv[k++] = (char *)json; }
  }
  argv[k] = NULL;
  int in = open("/dev/null", O_RDONLY), out = open("/dev/null", O_WRONLY);
  int err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0 || err < 0) _exit(126);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  /* a run is a process of its own, not a rank of the sweep's MPI job: it inherits the
   * launcher's variables, and psim replay under a launcher joins the job (one replay over its
   * processes), which a run started by one rank would wait in for ever */
  setenv("PSIM_NO_MPI", "1", 1);
  execv(job->self, argv);
  dprintf(2, "psim sweep: cannot run %s: %s\n", job->self, strerror(errno));
  _exit(126);
}

int sweep_pool_start(sweep_job *job, sweep_pool *pool, size_t i) {
  char json[4200], errf[4200];
  run_path(job, i, "json", json, sizeof json);
  run_path(job, i, "err", errf, sizeof errf);
  unlink(json);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) child(job, i, json, errf);
  if (pid < 0) return -1;
  job->runs[i].state = RUN_RUNNING;
  VEC_PUSH(pool->running, ((sweep_slot){pid, i}));
  return 0;
}

void sweep_start_or_fail(sweep_job *job, sweep_pool *pool, size_t i) {
  if (sweep_pool_start(job, pool, i) == 0) return;
  char msg[256];
  int n = snprintf(msg, sizeof msg, "psim sweep: cannot start the run: %s", strerror(errno));
  sweep_record(job, i, 126, msg, (size_t)n, NULL, 0);
  sweep_note_done(job, i);
}

char *sweep_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  *len = 0;
  if (!f) return NULL;
  VEC(char) b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    VEC_RESERVE(b, b.len + n + 1);
    memcpy(b.data + b.len, chunk, n);
    b.len += n;
  }
  fclose(f);
  VEC_PUSH(b, '\0');
  *len = b.len - 1;
  return b.data;
}

void sweep_record(sweep_job *job, size_t i, int status, const char *err, size_t errlen,
                  const char *json, size_t jsonlen) {
  sweep_run *r = &job->runs[i];
  free(r->error);
  free(r->result);
  r->error = r->result = NULL;
  r->time = NAN;
  r->status = status;
  r->state = RUN_DONE;
  r->doc_hosts = NAN;
  char why[512] = "";
  if (json && jsonlen) {
    jv *doc = jv_parse(json, jsonlen, why, sizeof why);
    if (doc) sweep_take_result(r, doc, job->brief);
    jv_free(doc);
  }
  if (status != 0) {
    /* the message: stderr without the lines reporting wall-clock time (the outputs must not
     * depend on the machine's speed) and trailing blanks; at most 4 kB */
    VEC(char) m = {0};
    for (const char *p = err, *end = err + errlen; p < end;) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
      char line[256];
      snprintf(line, sizeof line, "%.*s", (int)(n < 255 ? n : 255), p);
      if (!strstr(line, " s wall (")) {
        VEC_RESERVE(m, m.len + n);
        memcpy(m.data + m.len, p, n);
        m.len += n;
      }
      p += n;
    }
    errlen = m.len;
    while (errlen && (m.data[errlen - 1] == '\n' || m.data[errlen - 1] == ' ')) errlen--;
    if (errlen > 4096) errlen = 4096;
    r->error = errlen ? xstrndup(m.data, errlen) : NULL;
    VEC_FREE(m);
    if (!r->error) {
      char b[64];
      snprintf(b, sizeof b, "exit status %d", status);
      r->error = xstrdup(b);
    }
  } else if (!r->result) {
    char b[700];
    snprintf(b, sizeof b, "the command wrote no JSON result%s%s", why[0] ? ": " : "", why);
    r->error = xstrdup(b);
  }
}

int sweep_pool_collect(sweep_job *job, sweep_pool *pool, int block, sweep_raw *raw) {
  while (pool->running.len) {
    int st;
    pid_t pid = waitpid(-1, &st, block ? 0 : WNOHANG);
    if (pid == 0) return 0;
    if (pid < 0) {
      if (errno == EINTR && !sweep_interrupted) continue;
      return 0;
    }
    size_t k = 0;
    while (k < pool->running.len && pool->running.data[k].pid != pid) k++;
    if (k == pool->running.len) continue;   /* not one of ours */
    size_t i = pool->running.data[k].index;
    pool->running.data[k] = pool->running.data[--pool->running.len];
    char json[4200], errf[4200];
    run_path(job, i, "json", json, sizeof json);
    run_path(job, i, "err", errf, sizeof errf);
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
        (sweep_interrupted && WIFEXITED(st) && WEXITSTATUS(st) >= 129 && WEXITSTATUS(st) <= 143)) {
      /* interrupted from outside (Ctrl-C reaches the whole process group; a program under
       * psim run may turn the signal into exit status 128+N): not a result */
      sweep_interrupted = 1;
      job->runs[i].state = RUN_PENDING;
      unlink(json);
      unlink(errf);
      continue;
    }
    raw->index = i;
    raw->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    raw->json = sweep_slurp(json, &raw->jsonlen);
    raw->err = sweep_slurp(errf, &raw->errlen);
    if (WIFSIGNALED(st) && !raw->errlen) {
      free(raw->err);
      char b[128];
      raw->errlen = (size_t)snprintf(b, sizeof b, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
      raw->err = xstrdup(b);
    }
    unlink(json);
    unlink(errf);
    return 1;
  }
  return 0;
}

int sweep_pool_reap(sweep_job *job, sweep_pool *pool, int block, size_t *index) {
  sweep_raw raw = {0};
  if (!sweep_pool_collect(job, pool, block, &raw)) return 0;
  sweep_record(job, raw.index, raw.status, raw.err ? raw.err : "", raw.errlen, raw.json, raw.jsonlen);
  free(raw.json);
  free(raw.err);
  *index = raw.index;
  return 1;
}

void sweep_pool_kill(sweep_job *job, sweep_pool *pool) {
  /* SIGKILL: a run has nothing to clean up (its files are ours), and a program under psim run
   * that ignores SIGTERM must not hold the sweep */
  for (size_t k = 0; k < pool->running.len; k++) kill(pool->running.data[k].pid, SIGKILL);
  for (size_t k = 0; k < pool->running.len; k++) {
    size_t i = pool->running.data[k].index;
    while (waitpid(pool->running.data[k].pid, NULL, 0) < 0 && errno == EINTR) {}
    job->runs[i].state = RUN_PENDING;
    char p[4200];
    run_path(job, i, "json", p, sizeof p);
    unlink(p);
    run_path(job, i, "err", p, sizeof p);
    unlink(p);
  }
  pool->running.len = 0;
}

/* --- bookkeeping --- */

int sweep_next(sweep_job *job, size_t *cursor, size_t *i) {
  while (*cursor < job->space.total && job->runs[*cursor].state != RUN_PENDING) (*cursor)++;
  if (*cursor >= job->space.total) return 0;
  *i = (*cursor)++;
  return 1;
}

static void fmt_dur(char *b, size_t n, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600) snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

void sweep_progress(const sweep_job *job) {
  if (!job->progress) return;
  size_t done = job->ndone - job->nresumed;
  char el[32], eta[32] = "unknown";
  double t = sweep_now() - job->t_start;
  fmt_dur(el, sizeof el, t);
  if (done) fmt_dur(eta, sizeof eta, t / (double)done * (double)(job->ntodo - done));
  fprintf(stderr, "\rpsim sweep: %zu/%zu runs done", done, job->ntodo);
  if (job->nfailed) fprintf(stderr, ", %zu failed", job->nfailed);
  fprintf(stderr, ", %s elapsed, ETA %s\033[K", el, eta);
  fflush(stderr);
}

void sweep_note_done(sweep_job *job, size_t i) {
  const sweep_run *r = &job->runs[i];
  job->ndone++;
  if (r->status != 0 || !r->result) job->nfailed++;
  double now = sweep_now();
  sweep_progress(job);
  if ((job->json || job->csv) && now - job->t_checkpoint >= 30) {
    sweep_checkpoint(job);
    job->t_checkpoint = now;
  }
}

void sweep_progress_end(sweep_job *job) {
  if (job->progress) fputs("\r\033[K", stderr);
}
