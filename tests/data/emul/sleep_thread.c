/* sleep() in psim run (src/emul/rt/rt_sleep.c): the rank's own sleep(1) is 1 s of simulated
 * time, before MPI_Init, inside and after MPI_Finalize alike; a thread of the program's own
 * (not a rank) sleeps for real meanwhile, 0.2 s, which takes no simulated time. Rank 0 prints
 * MPI_Wtime after its sleeps and the thread's: 2.000000 (1 s before MPI_Init, 1 s after). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep */
#endif
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *napper(void *arg) {
  (void)arg;
  usleep(200000);
  return NULL;
}

int main(int argc, char **argv) {
  int r;
  pthread_t t;
  sleep(1);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (pthread_create(&t, NULL, napper, NULL) != 0) return 1;
  sleep(1);
  pthread_join(t, NULL);
  if (r == 0) printf("rank 0 at %.6f\n", MPI_Wtime());
  MPI_Finalize();
  usleep(1000);
  return 0;
}
