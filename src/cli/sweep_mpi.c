/* psim sweep over the ranks of an MPI job: the only MPI code of psim, compiled with MPI only in
 * the MPI build (make mpi: -DPSIM_WITH_MPI=ON links MPICH); the plain build gets the stubs
 * at the end and stays MPI-free.
 *
 * Every rank parses the same command line, so every rank knows every configuration: only
 * indices go down and results come up. Rank 0 hands out configurations dynamically: each
 * message a worker sends (a result, or at the start one request per local slot) asks for
 * the next pending configuration, which goes to whoever asked, or "stop" when none is left.
 * Rank 0 runs configurations itself too, in its own local slots, so K ranks on K cores keep
 * K runs going. Results are stored by index and written by rank 0 exactly as a local sweep
 * writes them: the output does not depend on the number of ranks. A worker's run that
 * fails is recorded like a local one (the worker sends its exit status and stderr).
 *
 * The calls go to the PMPI_ names: the psim binary itself exports MPI_* (the runtime of
 * psim run, src/emul/rt/), which would shadow MPICH's; its PMPI_* are MPICH's alone. */
#include "cli/sweep_cli.h"

#ifdef PSIM_WITH_MPI
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_UP = 1, TAG_DOWN = 2 };
enum { UP_RESULT = 1, UP_WANTS = 2, UP_BYE = 4 };

static int mpi_on = 0;

/* Launched by mpirun/mpiexec (Hydra), srun or Open MPI: the launcher leaves these. Not a
 * run a sweep started (PSIM_NO_MPI, sweep_exec.c), which has them too. */
static int under_launcher(void) {
  if (getenv("PSIM_NO_MPI")) return 0;
  static const char *const vars[] = {"PMI_RANK", "PMI_FD", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALRANKID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) if (getenv(vars[i])) return 1;
  return 0;
}

int sweep_mpi_init(int *rank) {
  *rank = 0;
  if (!under_launcher()) return 1;
  int size = 1;
  PMPI_Init(NULL, NULL);
  mpi_on = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

void sweep_mpi_finalize(void) {
  if (mpi_on) PMPI_Finalize();
  mpi_on = 0;
}

void sweep_mpi_abort(int code) {
  if (mpi_on) PMPI_Abort(MPI_COMM_WORLD, code);
}

static void nap(void) {
  struct timespec ts = {0, 1000000};   /* 1 ms: runs last far longer */
  nanosleep(&ts, NULL);
}

/* Up message: int64 kind, index, status, errlen, jsonlen; then err bytes, then json bytes. */
static void send_up(int kind, const sweep_raw *r) {
  int64_t h[5] = {kind, r ? (int64_t)r->index : -1, r ? r->status : 0, r ? (int64_t)r->errlen : 0, r ? (int64_t)r->jsonlen : 0};
  size_t n = sizeof h + (size_t)h[3] + (size_t)h[4];
  char *buf = xmalloc(n);
  memcpy(buf, h, sizeof h);
  if (h[3]) memcpy(buf + sizeof h, r->err, (size_t)h[3]);
  if (h[4]) memcpy(buf + sizeof h + h[3], r->json, (size_t)h[4]);
  PMPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_UP, MPI_COMM_WORLD);
  free(buf);
}

static void send_down(int to, long long index) {
  PMPI_Send(&index, 1, MPI_LONG_LONG, to, TAG_DOWN, MPI_COMM_WORLD);
}

static int master(sweep_job *job, int size, int jobs) {
  sweep_pool pool = {0};
  size_t cursor = 0, i;
  size_t *per_rank = xcalloc((size_t)size, sizeof *per_rank);
  int byes = 0, rc = 0;
  double shown = sweep_now();
  sweep_progress(job);
  for (;;) {
    int busy = 0;
    while (!sweep_interrupted && pool.running.len < (size_t)jobs && sweep_next(job, &cursor, &i)) sweep_start_or_fail(job, &pool, i);
    if (sweep_pool_reap(job, &pool, 0, &i)) { sweep_note_done(job, i); per_rank[0]++; busy = 1; }
    int flag = 0;
    MPI_Status st;
    PMPI_Iprobe(MPI_ANY_SOURCE, TAG_UP, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      int n;
      PMPI_Get_count(&st, MPI_BYTE, &n);
      char *buf = xmalloc((size_t)n + 1);
      PMPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      int64_t h[5];
      memcpy(h, buf, sizeof h);
      if ((h[0] & UP_RESULT) && h[1] >= 0 && (size_t)h[1] < job->space.total) {
        char *err = buf + sizeof h, *json = err + h[3];
        char *etext = xstrndup(err, (size_t)h[3]), *jtext = xstrndup(json, (size_t)h[4]);
        sweep_record(job, (size_t)h[1], (int)h[2], etext, (size_t)h[3], h[4] ? jtext : NULL, (size_t)h[4]);
        sweep_note_done(job, (size_t)h[1]);
        per_rank[st.MPI_SOURCE]++;
        free(etext);
        free(jtext);
      }
      if (h[0] & UP_WANTS) {
        if (!sweep_interrupted && sweep_next(job, &cursor, &i)) {
          job->runs[i].state = RUN_RUNNING;
          send_down(st.MPI_SOURCE, (long long)i);
        } else {
          send_down(st.MPI_SOURCE, -1);
        }
      }
      if (h[0] & UP_BYE) byes++;
      free(buf);
      busy = 1;
    }
    if (sweep_interrupted) {
      /* the caller writes what is done, then aborts the job (workers kill their runs) */
      sweep_pool_kill(job, &pool);
      rc = 1;
      break;
    }
    if (byes == size - 1 && !pool.running.len && job->ndone == job->space.total) break;
    if (!busy) {
      nap();
      if (sweep_now() - shown >= 1) { sweep_progress(job); shown = sweep_now(); }   /* the clock moves */
    }
  }
  /* on stderr, for the curious and for the tests: the work really was spread */
  sweep_progress_end(job);
  fprintf(stderr, "psim sweep: %zu runs over %d MPI ranks (per rank:", job->ndone - job->nresumed, size);
  for (int r = 0; r < size; r++) fprintf(stderr, " %zu", per_rank[r]);
  fprintf(stderr, ") in %.2f s\n", sweep_now() - job->t_start);
  free(per_rank);
  VEC_FREE(pool.running);
  return rc;
}

static void worker(sweep_job *job, int jobs) {
  sweep_pool pool = {0};
  int outstanding = 0, stopped = 0;
  for (int k = 0; k < jobs; k++) { send_up(UP_WANTS, NULL); outstanding++; }
  for (;;) {
    int busy = 0, flag = 0;
    PMPI_Iprobe(0, TAG_DOWN, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      long long index;
      PMPI_Recv(&index, 1, MPI_LONG_LONG, 0, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      outstanding--;
      if (index < 0 || (size_t)index >= job->space.total) stopped = 1;
      else if (sweep_pool_start(job, &pool, (size_t)index) < 0) {
        sweep_raw r = {(size_t)index, 126, NULL, "psim sweep: cannot start the run (fork failed)", 0, 0};
        r.errlen = strlen(r.err);
        send_up(UP_RESULT | (stopped ? 0 : UP_WANTS), &r);
        if (!stopped) outstanding++;
      }
      busy = 1;
    }
    sweep_raw r = {0};
    if (sweep_pool_collect(job, &pool, 0, &r)) {
      send_up(UP_RESULT | (stopped ? 0 : UP_WANTS), &r);
      if (!stopped) outstanding++;
      free(r.json);
      free(r.err);
      busy = 1;
    }
    if (sweep_interrupted) {
      /* stop the runs; rank 0 writes the outputs and aborts the job */
      sweep_pool_kill(job, &pool);
      sweep_interrupted = 0;
      stopped = 1;
    }
    if (stopped && !outstanding && !pool.running.len) break;
    if (!busy) nap();
  }
  send_up(UP_BYE, NULL);
  VEC_FREE(pool.running);
}

int sweep_mpi_run(sweep_job *job, int rank, int size, int jobs) {
  if (rank == 0) return master(job, size, jobs);
  worker(job, jobs);
  return 0;
}

#else /* the plain build: no MPI */

int sweep_mpi_init(int *rank) {
  *rank = 0;
  return 1;
}
int sweep_mpi_run(sweep_job *job, int rank, int size, int jobs) {
  (void)rank;
  (void)size;
  return sweep_run_local(job, jobs);
}
void sweep_mpi_finalize(void) {}
void sweep_mpi_abort(int code) { (void)code; }

#endif
