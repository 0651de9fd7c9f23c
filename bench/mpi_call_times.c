/* Where a real run's time in MPI calls goes (issue 37's HPCG replay gap, docs/VALIDATION.md):
 * a PMPI library, preloaded under a real mpiexec, that times each MPI_Wait, MPI_Send,
 * MPI_Irecv and MPI_Allreduce (a log2 histogram of their durations: count and total per bin)
 * and, at MPI_Finalize, prints per rank the totals, the time from MPI_Init to MPI_Finalize,
 * and how long the rank's thread ran and was runnable but waiting for a CPU (Linux's
 * /proc/thread-self/schedstat). Compare with `psim replay --actions` of a trace of the same
 * program (the replay's duration of each action).
 *   mpicc.mpich -O2 -shared -fPIC -o mpi_call_times.so bench/mpi_call_times.c
 *   mpiexec.mpich -n 2 env LD_PRELOAD=$PWD/mpi_call_times.so ./xhpcg 2> times.txt */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
enum { NB = 32, NK = 4 };
static const char *kn[NK] = {"wait", "send", "irecv", "allreduce"};
static double tot[NK][NB];
static long cnt[NK][NB];
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static void add(int k, double d) {
  int b = 0;
  double x = 64e-9;
  while (b < NB - 1 && d > x) x *= 2, b++;
  tot[k][b] += d, cnt[k][b]++;
}
int MPI_Wait(MPI_Request *r, MPI_Status *s) {
  double t = now();
  int e = PMPI_Wait(r, s);
  add(0, now() - t);
  return e;
}
int MPI_Send(const void *b, int c, MPI_Datatype d, int p, int g, MPI_Comm m) {
  double t = now();
  int e = PMPI_Send(b, c, d, p, g, m);
  add(1, now() - t);
  return e;
}
int MPI_Irecv(void *b, int c, MPI_Datatype d, int p, int g, MPI_Comm m, MPI_Request *r) {
  double t = now();
  int e = PMPI_Irecv(b, c, d, p, g, m, r);
  add(2, now() - t);
  return e;
}
int MPI_Allreduce(const void *a, void *b, int c, MPI_Datatype d, MPI_Op o, MPI_Comm m) {
  double t = now();
  int e = PMPI_Allreduce(a, b, c, d, o, m);
  add(3, now() - t);
  return e;
}
static double t_init, rd0, ru0;
static void sched(double *run, double *delay) {
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  unsigned long long a = 0, b = 0;
  if (f) {
    if (fscanf(f, "%llu %llu", &a, &b) != 2) a = b = 0;
    fclose(f);
  }
  *run = a * 1e-9;
  *delay = b * 1e-9;
}
int MPI_Init(int *c, char ***v) {
  int e = PMPI_Init(c, v);
  PMPI_Barrier(MPI_COMM_WORLD);
  t_init = now();
  sched(&ru0, &rd0);
  return e;
}
int MPI_Finalize(void) {
  double wall = now() - t_init, inmpi = 0, ru1, rd1;
  sched(&ru1, &rd1);
  for (int k = 0; k < NK; k++)
    for (int b = 0; b < NB; b++) inmpi += tot[k][b];
  int r;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  char buf[8192];
  int n = 0;
  for (int k = 0; k < NK; k++) {
    double all = 0;
    long c = 0;
    for (int b = 0; b < NB; b++) all += tot[k][b], c += cnt[k][b];
    n += snprintf(buf + n, sizeof buf - n, "rank %d %s: %ld calls %.4f s\n", r, kn[k], c, all);
    double x = 64e-9;
    for (int b = 0; b < NB; b++, x *= 2)
      if (cnt[k][b])
        n += snprintf(buf + n, sizeof buf - n, "   <= %9.3f us: %7ld calls %.4f s\n", x * 1e6, cnt[k][b],
                      tot[k][b]);
  }
  n += snprintf(buf + n, sizeof buf - n,
                "rank %d: MPI_Init to MPI_Finalize %.4f s, in the calls above %.4f s; on a CPU %.4f s, "
                "runnable but waiting for one %.4f s\n",
                r, wall, inmpi, ru1 - ru0, rd1 - rd0);
  fputs(buf, stderr);
  return PMPI_Finalize();
}
