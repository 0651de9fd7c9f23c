/* psim calibrate --machine's probe: an MPI program that psim writes out, builds with the real
 * MPI's compiler and runs under its mpiexec at 2 ranks (it is embedded in the psim binary, so
 * it needs nothing but the MPI). Rank 0 prints one line per measurement, read by
 * src/cli/cmd_calibrate_machine.c:
 *
 *   probe 1 MAXSIZE                  first line: the format and the largest size
 *   pingpong SIZE SECONDS            one-way time: half the round trip of SIZE bytes
 *   exchange SIZE SECONDS            both ranks MPI_Sendrecv SIZE bytes to each other at once:
 *                                    the time of one exchange (two transfers at once)
 *   written SIZE SECONDS             one-way time of a message its sender wrote just before
 *                                    sending it (a ping-pong whose ranks memset their send
 *                                    buffer before each send), less the memset's own time
 *   iprobe SECONDS                   one MPI_Iprobe that finds nothing
 *   test SECONDS                     one MPI_Test of a receive that has not arrived
 *   wtime SECONDS                    one MPI_Wtime
 *   allreduce SECONDS                one MPI_Allreduce of a double (MPI_SUM) on both ranks
 *   end
 *
 * Every figure is the median of 2 x REPS batches (REPS, default 5, in each of two passes over
 * the sizes), each batch long enough (BATCH_S of wall time, or one operation when that is
 * longer) that the clock's resolution does not count. The median, not the best batch: from
 * 1 MB up, batches of one size here spread by 2-3x (memory bandwidth shared with the
 * machine's other tenants, pages and caches), and a program's own timing loop measures the
 * mean of many operations, not the luckiest one. The best batch made every prediction of a
 * large transfer 7-30 % too fast against bench/validate_net.c's loops run minutes later
 * (docs/VALIDATION.md). The program uses only MPI-1 calls, so any MPI builds it.
 *
 * Usage: psim_probe [MAXSIZE [REPS]]   (defaults 268435456 and 5)
 *        psim_probe allreduce [REPS]    the allreduce's line alone, then end: psim calibrate runs
 *                                       it under psim run too, to measure what psim run charges
 *                                       such a call beyond its messages */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_S 2e-3
#define WRITTEN_MAX 67108864L   /* 64 MiB: far beyond any core's caches */

static int rank;

/* The number of operations a batch needs to last BATCH_S, from one timed operation (rank 0
 * decides, so both ranks run the same count). */
static long batch_count(double one) {
  long n = one > 0 ? (long)(BATCH_S / one) + 1 : 1000;
  if (n < 1) n = 1;
  if (n > 1000000) n = 1000000;
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return n;
}

/* One round trip. The send and receive buffers differ, as in OSU's osu_latency: a ping-pong
 * that receives into the buffer it sends from makes each transfer move cache lines the other
 * core has just written, which MPICH's shared memory transfers on this machine took up to 2.8x
 * longer for (12 KB to 1 MB), a cost of where the data sit that applications exchanging from
 * a send buffer into a receive buffer do not pay (docs/VALIDATION.md). */
static void pp_round(char *sbuf, char *rbuf, int bytes) {
  if (rank == 0) {
    MPI_Send(sbuf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(rbuf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(rbuf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(sbuf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }
}

/* A round trip of data each sender has just written, as an application sends what it computed
 * or packed: the send buffer's lines are then modified in the sender's cache, and were shared
 * with the other core since its last receive read them. MPICH's shared-memory transfers of such
 * data took 2.8x the ping-pong's time here from 128 KiB to 1 MiB (docs/VALIDATION.md): the
 * cost of moving modified lines between cores, which psim, running every rank on one core,
 * does not see when it measures the rank's write. `v` changes the bytes at each round. */
static void written_round(char *sbuf, char *rbuf, int bytes, int v) {
  if (rank == 0) {
    memset(sbuf, v, (size_t)bytes);
    MPI_Send(sbuf, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    MPI_Recv(rbuf, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(rbuf, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memset(sbuf, v, (size_t)bytes);
    MPI_Send(sbuf, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  }
}

static void ex_round(char *sbuf, char *rbuf, int bytes) {
  if (rank > 1) return;
  MPI_Sendrecv(sbuf, bytes, MPI_BYTE, 1 - rank, 2, rbuf, bytes, MPI_BYTE, 1 - rank, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The median of n values (sorts them). */
static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void op(int kind, char *a, char *b, int bytes, long i) {
  if (kind == 0) pp_round(a, b, bytes);
  else if (kind == 1) ex_round(a, b, bytes);
  else if (kind == 2) written_round(a, b, bytes, (int)(i & 127) + 1);
  else if (rank == 0) memset(a, (int)(i & 127) + 1, (size_t)bytes);   /* 3: the write alone */
}

/* The time of one operation in each of reps batches, into out[0..reps-1]; kind 0: ping-pong
 * round, 1: exchange, 2: round trip of written data, 3: rank 0's memset of its send buffer
 * while rank 1 waits (rank 0 decides the count, which both keep). */
static void measure(int kind, char *a, char *b, int bytes, int reps, double *out) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  op(kind, a, b, bytes, 0);   /* warm-up, and the estimate of one operation */
  double one = MPI_Wtime() - t0;
  long n = batch_count(one);
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) op(kind, a, b, bytes, i + 1);
    out[r] = (MPI_Wtime() - t0) / (double)n;
  }
}

/* The median time of one local call over reps batches (kind 0: MPI_Iprobe finding nothing,
 * 1: MPI_Test of a pending receive, 2: MPI_Wtime), measured on rank 0 while rank 1 waits in
 * a receive; t holds reps values. */
static double poll_cost(int kind, int reps, double *t) {
  double sink = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int flag = 0, go = 0;
  if (rank == 0 && kind == 1) MPI_Irecv(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &req);
  if (rank == 0) {
    const long n = 20000;
    for (int r = 0; r < reps + 1; r++) {   /* the first batch warms up */
      double t0 = MPI_Wtime();
      for (long i = 0; i < n; i++) {
        if (kind == 0) MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        else if (kind == 1) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        else sink += MPI_Wtime();
      }
      if (r > 0) t[r - 1] = (MPI_Wtime() - t0) / (double)n;
    }
  }
  if (kind == 1) {
    if (rank == 1) MPI_Send(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    if (rank == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (sink < 0) printf("%g\n", sink);   /* keeps the Wtime loop */
  MPI_Barrier(MPI_COMM_WORLD);
  return rank == 0 ? median(t, reps) : 0;
}

/* The median time of one MPI_Allreduce of a double over reps batches: a collective's own
 * cost beyond its messages (psim calibrate compares it with the model's exchange). */
static double allreduce_cost(int reps, double *t) {
  double x = rank, y = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  long n = batch_count(MPI_Wtime() - t0);
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[r] = (MPI_Wtime() - t0) / (double)n;
  }
  return median(t, reps);
}

/* Sizes 1, 2, 3, 4, 6, 8, 12, 16, ...: two per octave, so a protocol's threshold shows. */
static long next_size(long s) {
  if (s == 1) return 2;
  return (s & (s - 1)) == 0 ? s / 2 * 3 : s / 3 * 4;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && !strcmp(argv[1], "allreduce")) {
    int n = argc > 2 ? atoi(argv[2]) : 5;
    if (size < 2 || n < 1) {
      if (rank == 0) fprintf(stderr, "psim_probe: needs 2 ranks, REPS >= 1\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = malloc(sizeof(double) * 2 * (size_t)n);
    if (!t) MPI_Abort(MPI_COMM_WORLD, 1);
    double ar = allreduce_cost(2 * n, t);
    if (rank == 0) printf("allreduce %.9e\nend\n", ar);
    free(t);
    MPI_Finalize();
    return 0;
  }
  long maxsize = argc > 1 ? atol(argv[1]) : 268435456L;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (size < 2 || maxsize < 1 || maxsize > 1073741824L || reps < 1) {
    if (rank == 0) fprintf(stderr, "psim_probe: needs 2 ranks, 1 <= MAXSIZE <= 1 GiB, REPS >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *a = malloc((size_t)maxsize), *b = malloc((size_t)maxsize);
  if (!a || !b) {
    fprintf(stderr, "psim_probe: cannot allocate 2 x %ld bytes\n", maxsize);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(a, 1, (size_t)maxsize);
  memset(b, 2, (size_t)maxsize);
  if (rank == 0) printf("probe 1 %ld\n", maxsize);
  /* Two passes over the sizes, the batches of both in one median: a burst of load from
   * another process lasts longer than one size's batches, so it spoils one pass's batches of
   * a few sizes, which the median of both passes outvotes. */
  enum { MAXN = 128 };
  size_t per = sizeof(double) * MAXN * 2 * (size_t)reps;
  double *pp = malloc(per), *ex = malloc(per), *wr = malloc(per), *wo = malloc(per);
  if (!pp || !ex || !wr || !wo) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int pass = 0; pass < 2; pass++) {
    int i = 0;
    for (long s = 1; s <= maxsize && i < MAXN; s = next_size(s), i++)
      measure(0, a, b, (int)s, reps, pp + ((size_t)i * 2 + (size_t)pass) * (size_t)reps);
    i = 0;
    for (long s = 64; s <= maxsize && i < MAXN; s = next_size(s), i++)
      measure(1, a, b, (int)s, reps, ex + ((size_t)i * 2 + (size_t)pass) * (size_t)reps);
    /* written data from 64 B to WRITTEN_MAX: beyond the caches it costs what the ping-pong does */
    i = 0;
    for (long s = 64; s <= maxsize && s <= WRITTEN_MAX && i < MAXN; s = next_size(s), i++) {
      measure(2, a, b, (int)s, reps, wr + ((size_t)i * 2 + (size_t)pass) * (size_t)reps);
      measure(3, a, b, (int)s, reps, wo + ((size_t)i * 2 + (size_t)pass) * (size_t)reps);
    }
  }
  int i = 0;
  for (long s = 1; s <= maxsize && i < MAXN; s = next_size(s), i++)
    if (rank == 0) printf("pingpong %ld %.9e\n", s, median(pp + (size_t)i * 2 * (size_t)reps, 2 * reps) / 2);
  i = 0;
  for (long s = 64; s <= maxsize && i < MAXN; s = next_size(s), i++)
    if (rank == 0) printf("exchange %ld %.9e\n", s, median(ex + (size_t)i * 2 * (size_t)reps, 2 * reps));
  i = 0;
  for (long s = 64; s <= maxsize && s <= WRITTEN_MAX && i < MAXN; s = next_size(s), i++)
    if (rank == 0) {
      /* a round trip holds two writes and two messages */
      double round = median(wr + (size_t)i * 2 * (size_t)reps, 2 * reps);
      double write = median(wo + (size_t)i * 2 * (size_t)reps, 2 * reps);
      double t = (round - 2 * write) / 2;
      printf("written %ld %.9e\n", s, t > 0 ? t : round / 2);
    }
  double ip = poll_cost(0, reps, pp), te = poll_cost(1, reps, pp), wt = poll_cost(2, reps, pp);
  double ar = allreduce_cost(2 * reps, pp);
  if (rank == 0) {
    printf("iprobe %.9e\ntest %.9e\nwtime %.9e\nallreduce %.9e\nend\n", ip, te, wt, ar);
    fflush(stdout);
  }
  free(pp);
  free(ex);
  free(wr);
  free(wo);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
