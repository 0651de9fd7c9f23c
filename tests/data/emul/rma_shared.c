/* Shared-memory windows (MPI_Win_allocate_shared, MPI_Win_shared_query, MPI_Win_sync) and the
 * window info (MPI_Win_get_info, MPI_Win_set_info) under psim run; tests/cli/run_rma_shared.sh
 * runs it with several ranks per simulated host and derives what it prints.
 *
 *   rma_shared          the ranks of each host (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED))
 *                       share a window where local rank i has i + 1 ints: contiguous parts,
 *                       direct stores read by the others, Put/Accumulate/Fetch_and_op on it,
 *                       a spin on MPI_Win_sync, then an alloc_shared_noncontig window; world
 *                       rank 0 prints one line, and " No Errors" when every rank agrees
 *   rma_shared time S   2 ranks: lock, Put of S bytes, unlock between them on a shared window,
 *                       then on an MPI_Win_allocate window: the two times
 *   rma_shared spread   MPI_Win_allocate_shared on MPI_COMM_WORLD (erroneous when the ranks are
 *                       on several hosts)
 *   rma_shared query    MPI_Win_shared_query on a window that is not shared (erroneous) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define CHECK(c, ...) do { if (!(c)) { errors++; printf(__VA_ARGS__); printf("\n"); } } while (0)

static void info_is(MPI_Win win, const char *key, const char *want, int rank) {
  MPI_Info info;
  char v[MPI_MAX_INFO_VAL];
  int flag;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag);
  if (want) CHECK(flag && !strcmp(v, want), "%d: info %s = %s, want %s", rank, key, flag ? v : "(none)", want);
  else CHECK(!flag, "%d: info %s = %s, want none", rank, key, v);
  MPI_Info_free(&info);
}

static void set_hint(MPI_Win win, const char *key, const char *val) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, val);
  MPI_Win_set_info(win, info);
  MPI_Info_free(&info);
}

static void data(int wrank) {
  MPI_Comm shm;
  int r, n;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &shm);
  MPI_Comm_rank(shm, &r);
  MPI_Comm_size(shm, &n);
  int *worlds = malloc((size_t)n * sizeof *worlds);
  MPI_Allgather(&wrank, 1, MPI_INT, worlds, 1, MPI_INT, shm);

  /* contiguous (the default): local rank i has i + 1 ints right after rank i - 1's */
  int *mine, flavor_ok;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)(r + 1) * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, shm, &mine, &win);
  int *flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  flavor_ok = flag && *flavor == MPI_WIN_FLAVOR_SHARED;
  CHECK(flavor_ok, "%d: flavor not MPI_WIN_FLAVOR_SHARED", wrank);
  int **base = malloc((size_t)n * sizeof *base);
  for (int i = 0; i < n; i++) {
    MPI_Aint size;
    int unit;
    MPI_Win_shared_query(win, i, &size, &unit, &base[i]);
    CHECK(size == (MPI_Aint)(i + 1) * (MPI_Aint)sizeof(int) && unit == (int)sizeof(int),
          "%d: rank %d's part: size %td unit %d", wrank, i, size, unit);
    CHECK(base[i] == base[0] + i * (i + 1) / 2, "%d: rank %d's part is not contiguous", wrank, i);
  }
  CHECK(base[r] == mine, "%d: MPI_Win_allocate_shared's base is not the queried one", wrank);
  { MPI_Aint size; int unit; int *p;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &p);
    CHECK(p == base[0] && size == (MPI_Aint)sizeof(int), "%d: MPI_PROC_NULL query", wrank); }
  info_is(win, "alloc_shared_noncontig", "false", wrank);
  info_is(win, "accumulate_ordering", "rar,raw,war,waw", wrank);
  info_is(win, "accumulate_ops", "same_op_no_op", wrank);
  info_is(win, "no_locks", "false", wrank);

  /* direct stores, read directly by every rank of the host after sync + barrier + sync */
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int j = 0; j <= r; j++) mine[j] = 1000 * wrank + j;
  MPI_Win_sync(win);
  MPI_Barrier(shm);
  MPI_Win_sync(win);
  long sum = 0, want = 0;
  for (int k = 0; k < n * (n + 1) / 2; k++) sum += base[0][k];   /* the whole segment, in one go */
  for (int i = 0; i < n; i++) want += 1000L * worlds[i] * (i + 1) + i * (i + 1) / 2;
  CHECK(sum == want, "%d: segment sum %ld, want %ld", wrank, sum, want);
  MPI_Win_unlock_all(win);
  MPI_Barrier(shm);

  /* RMA on it: a Put of -wrank - 1 to the next local rank's first int, then 1 added to local
   * rank 0's only int by every rank (MPI_Accumulate, in the next epoch: MPI forbids a put and
   * an accumulate to one location in one epoch), and a ticket from the last local rank's last
   * int (MPI_Fetch_and_op of 1) */
  int next = (r + 1) % n, v = -wrank - 1, one = 1, ticket;
  MPI_Win_lock_all(0, win);
  MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(shm);   /* the put and the adds to one int in separate epochs (MPI) */
  MPI_Win_lock_all(0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);   /* rank 0's only int */
  MPI_Win_unlock_all(win);
  MPI_Barrier(shm);
  CHECK(mine[0] == -worlds[(r + n - 1) % n] - 1 + (r == 0 ? n : 0), "%d: after put/acc %d", wrank, mine[0]);
  MPI_Barrier(shm);
  MPI_Win_lock_all(0, win);
  MPI_Fetch_and_op(&one, &ticket, MPI_INT, n - 1, n - 1, MPI_SUM, win);   /* last rank's last int */
  MPI_Win_unlock_all(win);
  MPI_Barrier(shm);
  int tsum;
  MPI_Allreduce(&ticket, &tsum, 1, MPI_INT, MPI_SUM, shm);
  int last0 = 1000 * worlds[n - 1] + (n - 1);
  if (n == 1) last0 = -worlds[0] - 1 + 1;   /* one rank: its only int got the put and the add */
  CHECK(tsum == n * last0 + n * (n - 1) / 2, "%d: tickets sum %d", wrank, tsum);

  /* a spin on MPI_Win_sync: local rank 0 waits for the last local rank's store (a poll: the
   * storing rank gets to run) */
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  volatile int *flagp = (volatile int *)&base[n - 1][0];
  if (n > 1 && r == n - 1) {   /* a Get + flush first: it blocks, so that rank 0 spins meanwhile */
    int dummy;
    MPI_Get(&dummy, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    *flagp = 4242;
    MPI_Win_sync(win);
  }
  if (r == 0 && n > 1) { long spins = 0; while (*flagp != 4242) { MPI_Win_sync(win); spins++; } }
  MPI_Win_unlock_all(win);
  MPI_Barrier(shm);
  MPI_Win_free(&win);

  /* alloc_shared_noncontig: parts apart; each rank reaches the others through the query */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  MPI_Win_allocate_shared((MPI_Aint)(r + 1) * (MPI_Aint)sizeof(int), sizeof(int), info, shm, &mine, &win);
  MPI_Info_free(&info);
  info_is(win, "alloc_shared_noncontig", "true", wrank);
  for (int j = 0; j <= r; j++) mine[j] = 7 * wrank + j;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Win_sync(win);
  MPI_Barrier(shm);
  MPI_Win_sync(win);
  long sum2 = 0, want2 = 0;
  for (int i = 0; i < n; i++) {
    MPI_Aint size;
    int unit, *p;
    MPI_Win_shared_query(win, i, &size, &unit, &p);
    for (int j = 0; j <= i; j++) sum2 += p[j];
    want2 += 7L * worlds[i] * (i + 1) + i * (i + 1) / 2;
  }
  CHECK(sum2 == want2, "%d: noncontig sum %ld, want %ld", wrank, sum2, want2);
  MPI_Win_unlock_all(win);
  /* the hints as set afterwards; an unknown key and a value MPI does not define are ignored */
  set_hint(win, "alloc_shared_noncontig", "false");
  set_hint(win, "accumulate_ordering", "rar,waw");
  set_hint(win, "accumulate_ops", "sometimes");
  set_hint(win, "no_locks", "true");
  set_hint(win, "psim_unknown_key", "true");
  info_is(win, "alloc_shared_noncontig", "false", wrank);
  info_is(win, "accumulate_ordering", "rar,waw", wrank);
  info_is(win, "accumulate_ops", "same_op_no_op", wrank);
  info_is(win, "no_locks", "true", wrank);
  info_is(win, "psim_unknown_key", NULL, wrank);
  MPI_Barrier(shm);
  MPI_Win_free(&win);

  if (wrank == 0) printf("world rank 0's host: %d ranks, segment sum %ld, noncontig sum %ld, tickets %d\n", n, sum, sum2, tsum);
  free(base);
  free(worlds);
  MPI_Comm_free(&shm);
}

static void timing(int wrank, int bytes) {
  char *buf = calloc((size_t)bytes, 1), *mem;
  double t[2];
  for (int k = 0; k < 2; k++) {
    MPI_Win win;
    if (k == 0) MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    else MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (wrank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
      MPI_Win_unlock(1, win);
    }
    t[k] = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
  }
  if (wrank == 0) printf("shared %.9e\nallocate %.9e\n", t[0], t[1]);
  free(buf);
}

int main(int argc, char **argv) {
  int wrank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  const char *mode = argc > 1 ? argv[1] : "data";
  if (!strcmp(mode, "time")) {
    timing(wrank, argc > 2 ? atoi(argv[2]) : 1000000);
  } else if (!strcmp(mode, "spread")) {
    int *p;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win);
    MPI_Win_free(&win);
  } else if (!strcmp(mode, "query")) {
    int *p, unit;
    MPI_Aint size;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win);
    MPI_Win_shared_query(win, 0, &size, &unit, &p);
    MPI_Win_free(&win);
  } else {
    data(wrank);
    int all;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0 && all == 0) printf(" No Errors\n");
  }
  MPI_Finalize();
  return 0;
}
