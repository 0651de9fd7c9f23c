/* psim run --threads (tests/cli/run_threads.sh, bench/run_threads.sh): every rank, -n times,
 * spins for -s seconds of its own CPU time (clock_gettime's CPU clock is the rank's,
 * rt_clock.c), runs -w million steps of a dependent multiply-add (a fixed amount of work), or
 * declares -f flops (psim_compute), writes a line to stdout and one to stderr, then all reduce a sum. Options are
 * parsed with getopt_long after MPI_Init, by every rank at once under --threads. The last line
 * says on how many OS threads the ranks ran (-t only: it is the one line that differs). -e: each
 * rank prints a line, then runs a command that prints one (system: its output goes straight
 * to stdout, the rank's own through psim's stream). */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void psim_compute(double flops);

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int rank, size, n = 3, tids = 0, cmd = 0;
  double secs = 0, flops = 0, work = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const struct option lo[] = {{"iters", 1, 0, 'n'}, {"spin", 1, 0, 's'}, {"flops", 1, 0, 'f'},
                                     {"tids", 0, 0, 't'}, {"work", 1, 0, 'w'}, {"command", 0, 0, 'e'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "n:s:f:tw:e", lo, NULL)) != -1) {
    if (c == 'n') n = atoi(optarg);
    else if (c == 's') secs = atof(optarg);
    else if (c == 'f') flops = atof(optarg);
    else if (c == 't') tids = 1;
    else if (c == 'w') work = atof(optarg);
    else if (c == 'e') cmd = 1;
    else return 2;
  }
  long sum = 0;
  volatile double x = 0;
  for (int i = 0; i < n; i++) {
    if (secs > 0) {
      double t0 = cpu();
      while (cpu() - t0 < secs) x += 1;
    }
    if (flops > 0) psim_compute(flops);
    double y = 1.0;
    for (long s = 0; s < (long)(work * 1e6); s++) y = y * 0.999999 + 1e-7;
    x += y;
    printf("rank %d iteration %d of %d\n", rank, i, n);
    fprintf(stderr, "rank %d stderr %d\n", rank, i);
    long mine = (long)(rank + 1) * (i + 1), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += all;
  }
  if (cmd) {
    char line[64];
    printf("rank %d runs a command\n", rank);
    fflush(stdout);
    snprintf(line, sizeof line, "echo rank %d: the command", rank);
    if (system(line) != 0) return 3;
  }
  if (rank == 0) printf("sum %ld at %.9f\n", sum, MPI_Wtime());
  if (tids) {
    long me = (long)syscall(SYS_gettid), *all = malloc(sizeof *all * (size_t)size);
    MPI_Gather(&me, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      int distinct = 0;
      for (int i = 0; i < size; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= all[j] == all[i];
        distinct += !seen;
      }
      printf("os threads: %d\n", distinct);
    }
    free(all);
  }
  MPI_Finalize();
  return 0;
}
