/* The C library calls benchmarks make besides MPI, under psim run (tests/cli/run_libc_calls.sh):
 * - getopt and getopt_long: every rank parses its own command line (arguments: -n 5 -q -x
 *   --size=7 file); the C library keeps one getopt state per process, and an MPICH-built
 *   program its own copies of optarg/optind (NetPIPE's NPmpich2 parses its options so);
 * - gettimeofday and clock_gettime: the simulated clock, as MPI_Wtime's (NetPIPE times its
 *   ping-pongs with gettimeofday): a round trip of 1 MB and 1 byte, and a sleep of 2 s. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static double tv_s(const struct timeval *t) { return (double)t->tv_sec + (double)t->tv_usec * 1e-6; }
static double ts_s(const struct timespec *t) { return (double)t->tv_sec + (double)t->tv_nsec * 1e-9; }

int main(int argc, char **argv) {
  static const struct option longs[] = {{"size", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
  int c, n = -1, q = 0, size = -1, rank;
  char unknown = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  opterr = 0;   /* the program's own copy: the C library must see it (no message on stderr) */
  while ((c = getopt_long(argc, argv, "n:q", longs, NULL)) != -1) {
    if (c == 'n') n = atoi(optarg);
    else if (c == 'q') q = 1;
    else if (c == 's') size = atoi(optarg);
    else unknown = (char)optopt;
  }
  printf("rank %d: n %d q %d size %d unknown %c rest %s\n", rank, n, q, size, unknown ? unknown : '-',
         optind < argc ? argv[optind] : "-");
  fflush(stdout);
  /* rank 1's receive is posted before the barrier: the 1 MB transfer starts at rank 0's send,
   * whenever each rank leaves the barrier */
  char *buf = calloc(1000000, 1);
  MPI_Request rq = MPI_REQUEST_NULL;
  if (rank == 1) MPI_Irecv(buf, 1000000, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &rq);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    double w0 = MPI_Wtime();
    MPI_Send(buf, 1000000, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    gettimeofday(&t1, NULL);
    double w1 = MPI_Wtime();
    printf("round trip: gettimeofday %.6f s, MPI_Wtime %.6f s\n", tv_s(&t1) - tv_s(&t0), w1 - w0);
    struct timespec s0, s1;
    clock_gettime(CLOCK_MONOTONIC, &s0);
    sleep(2);
    clock_gettime(CLOCK_MONOTONIC, &s1);
    printf("sleep(2): clock_gettime %.6f s\n", ts_s(&s1) - ts_s(&s0));
  } else if (rank == 1) {
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Send(buf, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
