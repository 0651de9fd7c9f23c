/* psim sweep and psim plan (private to src/cli/): running many configurations of one psim
 * command, each in its own process, and writing what they gave.
 *
 *   cmd_sweep.c    options, the local schedule, the exit status
 *   sweep_exec.c   one configuration = one child process (fork + exec of this psim binary,
 *                  its JSON captured through --json into a private temporary directory)
 *   sweep_out.c    the table, JSON, CSV; reading a previous JSON back (--resume); metrics
 *   sweep_report.c the HTML report (inline SVG)
 *   sweep_mpi.c    the same schedule over the ranks of an MPI job (only MPI code in psim)
 *   sweep_plan.c   psim plan: bisection over the host count */
#ifndef PSIM_CLI_SWEEP_H
#define PSIM_CLI_SWEEP_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "psim/sweep.h"

enum { RUN_PENDING, RUN_RUNNING, RUN_DONE };
enum { METRIC_MAKESPAN, METRIC_EFFICIENCY, METRIC_COST };

typedef struct sweep_run {
  int state;
  int status;      /* the run's exit status (0 ok); 128+N when killed by signal N */
  char *error;     /* what the run wrote on stderr when it failed (NULL when ok) */
  char *result;    /* the run's JSON document, canonical one-line form (NULL when none) */
  double time;     /* simulated_time of the result, NAN when none */
  double doc_hosts; /* hosts the result names: distinct ranks' hosts, else pes, else np */
  double hosts, cost, efficiency;   /* derived (sweep_metrics), NAN when unknown */
} sweep_run;

typedef struct sweep_job {
  sweep_space space;
  VEC(char *) tmpl;        /* the command after '--', with {NAME} in it */
  char self[4096];         /* this psim binary */
  char *tmpdir;            /* private directory for the runs' JSON and stderr */
  int hosts_param;         /* parameter holding the host count, or -1 */
  sweep_run *runs;         /* space.total of them, in configuration order */
  size_t ndone, nfailed, nresumed, ntodo;   /* ntodo: runs this invocation has to do */
  /* outputs, rewritten as checkpoints while the sweep goes on */
  const char *json, *csv;
  int progress;            /* progress line on stderr */
  int brief;               /* keep only the top-level scalars of each run's JSON */
  double t_start, t_checkpoint;
} sweep_job;

/* Set by SIGINT, SIGTERM and SIGHUP once sweep_signals() installed the handlers. */
extern volatile sig_atomic_t sweep_interrupted;
void sweep_signals(void);
double sweep_now(void);
/* How many tasks the launcher (srun, mpirun) started together with this one: 1 alone. */
long sweep_launched_tasks(void);

/* --- sweep_exec.c: local child processes --- */
typedef struct sweep_slot { pid_t pid; size_t index; } sweep_slot;
typedef struct sweep_pool { VEC(sweep_slot) running; } sweep_pool;

/* Prepares job (self, tmpdir); checks the template (every {NAME} known, every parameter
 * used, no --json of its own). Exit status 0, or 2 with the message printed. */
int sweep_job_init(sweep_job *job, const char *cmd);
void sweep_job_free(sweep_job *job);
/* Starts configuration i in a child; -1 (errno) when it cannot. */
int sweep_pool_start(sweep_job *job, sweep_pool *pool, size_t i);
/* The same, recording a run that cannot start as failed. */
void sweep_start_or_fail(sweep_job *job, sweep_pool *pool, size_t i);
/* What a finished run left: exit status, stderr, JSON file (both NUL-terminated or NULL). */
typedef struct sweep_raw { size_t index; int status; char *json, *err; size_t jsonlen, errlen; } sweep_raw;
/* Collects one finished child (waiting for one when block): 1 with its raw output (the caller
 * frees json and err), 0 when none finished (or, blocking, when interrupted or none runs). */
int sweep_pool_collect(sweep_job *job, sweep_pool *pool, int block, sweep_raw *raw);
/* sweep_pool_collect + sweep_record: 1 and the index of the run recorded, or 0. */
int sweep_pool_reap(sweep_job *job, sweep_pool *pool, int block, size_t *index);
/* Stops the running children (interrupt): they are not recorded. */
void sweep_pool_kill(sweep_job *job, sweep_pool *pool);
/* Fills job->runs[i] from what a run left: its exit status, its stderr, its JSON text. */
void sweep_record(sweep_job *job, size_t i, int status, const char *err, size_t errlen,
                  const char *json, size_t jsonlen);
/* Bookkeeping after run i was recorded: counters, the progress line, checkpoints. */
void sweep_note_done(sweep_job *job, size_t i);
/* The next configuration to start (pending, in order) at or after *cursor; 0 when none. */
int sweep_next(sweep_job *job, size_t *cursor, size_t *i);
void sweep_progress_end(sweep_job *job);
/* The progress line (when job->progress): done/total, failures, elapsed time, ETA. */
void sweep_progress(const sweep_job *job);
/* The whole file, NUL-terminated (NULL when it cannot be read). */
char *sweep_slurp(const char *path, size_t *len);

/* --- sweep_out.c --- */
struct jv;
/* Takes a run's JSON document as its result: canonical one-line text (brief: its top-level
 * scalars only), time, hosts. */
void sweep_take_result(sweep_run *r, const struct jv *doc, int brief);
/* Hosts, cost and efficiency of every finished run. */
void sweep_metrics(sweep_job *job);
/* Writes the JSON document / CSV (path "-" = stdout; files replaced atomically). 0 or -1. */
int sweep_write_json(const sweep_job *job, const char *path, int complete, const char *extra);
int sweep_write_csv(const sweep_job *job, const char *path);
void sweep_write_table(const sweep_job *job, FILE *f);
/* Marks the runs of a previous sweep's JSON as done (only successful ones). Exit status. */
int sweep_resume(sweep_job *job, const char *path);
/* Checkpoint: the outputs as they stand (called every 30 s while runs go on). */
void sweep_checkpoint(sweep_job *job);
/* The metric's value of a run, and its name and unit for tables and charts. */
double sweep_metric(const sweep_run *r, int metric);
const char *sweep_metric_label(int metric);

/* --- sweep_report.c --- */
int sweep_write_report(const sweep_job *job, const char *path, int metric, const char *title);

/* --- sweep_mpi.c (does nothing in the plain build) --- */
/* Joins the MPI job when psim was started by an MPI launcher: returns the number of ranks
 * (1 when not under MPI or in the plain build) and this process's rank in *rank. */
int sweep_mpi_init(int *rank);
/* Rank 0: hands configurations out to the other ranks (and runs `jobs` locally). Returns 0, or
 * 1 when interrupted. Other ranks: run what rank 0 hands out, until told to stop. */
int sweep_mpi_run(sweep_job *job, int rank, int size, int jobs);
void sweep_mpi_finalize(void);
void sweep_mpi_abort(int code);

/* --- cmd_sweep.c --- */
/* Runs every pending configuration in `jobs` local children; 0, or 1 when interrupted. */
int sweep_run_local(sweep_job *job, int jobs);


#endif
