/* Ranks that share a library's process-wide lock (tests/data/emul/lock_shared_lib.c), as
 * Debian's mpb-mpi shares Guile's (tests/cli/run_errors.sh):
 *   lock_shared          each rank takes the lock and waits in MPI_Barrier holding it: under
 *                        psim run, where the ranks take turns on one thread, the second rank
 *                        waits in the kernel for ever: a deadlock outside MPI;
 *   lock_shared brief    each rank takes and gives back the lock between MPI calls: no wait;
 *   lock_shared helper   rank 0 waits 3 s (wall) on a condition that a thread of its own
 *                        signals after computing: blocked in futex(), but the process works. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void lib_enter(void);
void lib_leave(void);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int done;

static void *helper(void *arg) {
  (void)arg;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile double x = 0;
  do {   /* 3 s of computation */
    for (int i = 0; i < 1000000; i++) x += 1e-9 * i;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < 3.0);
  pthread_mutex_lock(&m);
  done = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "hold";
  if (!strcmp(mode, "helper")) {
    if (rank == 0) {
      pthread_t th;
      pthread_create(&th, NULL, helper, NULL);
      pthread_mutex_lock(&m);
      while (!done) pthread_cond_wait(&c, &m);
      pthread_mutex_unlock(&m);
      pthread_join(th, NULL);
    }
  } else if (!strcmp(mode, "brief")) {
    for (int i = 0; i < 3; i++) {
      lib_enter();
      lib_leave();
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else {
    lib_enter();
    MPI_Barrier(MPI_COMM_WORLD);
    lib_leave();
  }
  MPI_Finalize();
  if (rank == 0) printf("done\n");
  return 0;
}
