/* A thread the program starts calls MPI (MPI_THREAD_MULTIPLE use, as MolDS's communication
 * thread): psim runs every rank in one thread of its own and must stop with a message, not
 * race with it. The thread first reads the clocks (the C library's there: allowed). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static void *talk(void *arg) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  int x = *(int *)arg;
  MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  return NULL;
}

int main(int argc, char **argv) {
  int rank, provided, x = 7;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("provided %s\n", provided == MPI_THREAD_FUNNELED ? "FUNNELED" : "other");
    fflush(stdout);
    pthread_t th;
    pthread_create(&th, NULL, talk, &x);
    pthread_join(th, NULL);
  } else {
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
