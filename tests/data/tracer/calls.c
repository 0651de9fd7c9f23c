/* tests/cli/tracer.sh: a known sequence of MPI calls at np=2, traced by libpsimtrace.so.
 * Between the calls only glue, except one busy loop of 50 ms of wall-clock time. */
#include <mpi.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double d[100] = {0}, e[100];
  int k[10] = {0}, m[10];
  MPI_Request q[2];
  if (r == 0) MPI_Send(d, 100, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
  else MPI_Recv(d, 100, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (double t0 = now(); now() - t0 < 0.05;) {}
  MPI_Irecv(m, 10, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(k, 10, MPI_INT, 1 - r, 3, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  /* one wait each, in the order of the calls (a byte count that is not a whole number of ints) */
  MPI_Irecv(m, 3, MPI_CHAR, 1 - r, 4, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(k, 3, MPI_CHAR, 1 - r, 4, MPI_COMM_WORLD, &q[1]);
  MPI_Wait(&q[1], MPI_STATUS_IGNORE);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Allreduce(d, e, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(k, 3, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Sendrecv(d, 2, MPI_DOUBLE, 1 - r, 5, e, 2, MPI_DOUBLE, 1 - r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* the split is an allgather of two ints, as psim run records it; a barrier on a communicator
   * of one rank (not MPI_COMM_WORLD's ranks) a sleep and a warning */
  MPI_Comm self;
  MPI_Comm_split(MPI_COMM_WORLD, r, 0, &self);
  MPI_Barrier(self);
  MPI_Comm_free(&self);
  /* 100 ms of polling for a message nobody sends: the probes' time is a sleep, the loop's
   * own a computation */
  int flag;
  for (double t0 = now(); now() - t0 < 0.1;)
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
