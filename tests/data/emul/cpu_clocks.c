/* The CPU-time clocks are each rank's own: between two barriers every rank spins until its
 * process CPU clock has moved by (rank + 1) x 20 ms, the ranks one after the other (they take
 * turns on one thread under psim). Each then reads how far its CPU clock moved across the two
 * barriers: its own spin (the others' are not its CPU time), and clock() and getrusage() must
 * tell the same CPU time as clock_gettime. Prints "rank R: cpu ok" or what was read. */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static double cpu(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double want = 0.02 * (rank + 1);
  double t0 = cpu(CLOCK_PROCESS_CPUTIME_ID);
  MPI_Barrier(MPI_COMM_WORLD);
  volatile double x = 0;
  while (cpu(CLOCK_PROCESS_CPUTIME_ID) - t0 < want) x += 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = cpu(CLOCK_PROCESS_CPUTIME_ID), th = cpu(CLOCK_THREAD_CPUTIME_ID);
  double ck = (double)clock() / CLOCKS_PER_SEC;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double us = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
  double d = t1 - t0;
  if (d >= want && d < want + 0.015 && th - t1 < 0.005 && ck - t1 < 0.005 && t1 - ck < 0.005 &&
      us - t1 < 0.005 && t1 - us < 0.005)
    printf("rank %d: cpu ok\n", rank);
  else
    printf("rank %d: spun %.4f s of CPU for %.2f; thread %.4f, clock %.4f, getrusage %.4f, process %.4f\n",
           rank, d, want, th, ck, us, t1);
  MPI_Finalize();
  return 0;
}
