/* Request-based one-sided operations (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate) under psim run; tests/cli/run_rma_req.sh derives what it prints.
 *
 *   rma_req [free]   the data, on any number of ranks: every rank's window has np + 6 ints;
 *                    rank 0 prints one line (hand-derived by the script), every rank checks
 *                    its own results and the run ends with " No Errors" when all agree; with
 *                    "free", one request is freed (MPI_Request_free) before it completes
 *   rma_req time S   the simulated times, on 2 ranks: rank 0 operates on rank 1's window of
 *                    S bytes while rank 1 waits in a barrier (passive target)
 *   rma_req fence    a mistake: MPI_Rput in a fence epoch (MPI allows them only in
 *                    passive-target epochs)
 *   rma_req mixed    a mistake: MPI_Accumulate(MPI_SUM) on a struct of an int and a double */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define CHECK(c, ...) do { if (!(c)) { errors++; printf(__VA_ARGS__); printf("\n"); } } while (0)

static void data(int rank, int np, int free_req) {
  int *mem;
  MPI_Win win;
  /* np + 6 ints used, a multiple of 16 allocated: Debian's MPICH 4.0 (real, run by
   * tests/cli/run_abi.sh) misplaces the operations on an MPI_Win_allocate window of 28 bytes
   * among ranks of one machine (each target's data lands a few ints off) */
  int nmem = (np + 6 + 15) / 16 * 16;
  MPI_Win_allocate((MPI_Aint)nmem * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &mem, &win);
  for (int i = 0; i < nmem; i++) mem[i] = -1;
  mem[np] = mem[np + 1] = mem[np + 3] = mem[np + 5] = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  /* 1. lock_all, an Rput to every rank (slot `rank` of rank t gets 100 rank + t), Waitall */
  MPI_Request *reqs = malloc((size_t)np * sizeof *reqs);
  int *vals = malloc((size_t)np * sizeof *vals);
  MPI_Win_lock_all(0, win);
  for (int t = 0; t < np; t++) {
    vals[t] = 100 * rank + t;
    MPI_Rput(&vals[t], 1, MPI_INT, t, rank, 1, MPI_INT, win, &reqs[t]);
  }
  MPI_Status *sts = malloc((size_t)np * sizeof *sts);   /* (MPICH's header and gcc dislike MPI_STATUSES_IGNORE) */
  MPI_Waitall(np, reqs, sts);
  free(sts);
  for (int t = 0; t < np; t++) CHECK(reqs[t] == MPI_REQUEST_NULL, "%d: request %d not freed by MPI_Waitall", rank, t);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 0; r < np; r++) CHECK(mem[r] == 100 * r + rank, "%d: slot %d = %d", rank, r, mem[r]);

  /* 2. a shared lock on the next rank, an Rget of the slot this rank put there, MPI_Test
   * until it completes (a loop of tests must let the reply arrive) */
  int next = (rank + 1) % np, got = -1, flag = 0, tests = 0;
  MPI_Request rq;
  MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
  MPI_Rget(&got, 1, MPI_INT, next, rank, 1, MPI_INT, win, &rq);
  while (!flag) { MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); tests++; }
  MPI_Win_unlock(next, win);
  CHECK(got == 100 * rank + next, "%d: Rget %d", rank, got);
  CHECK(rq == MPI_REQUEST_NULL, "%d: the Rget's request was not freed by MPI_Test", rank);

  /* 3. lock_all: rank + 1 added to rank 0's slot np (MPI_Raccumulate), 1 to its slot np + 1
   * with the previous value fetched (MPI_Rget_accumulate): the fetched values are 0..np-1 in
   * some order; MPI_Waitany, then MPI_Wait for the other */
  int add = rank + 1, one = 1, old = -1, idx;
  MPI_Request two[2];
  MPI_Win_lock_all(0, win);
  MPI_Raccumulate(&add, 1, MPI_INT, 0, np, 1, MPI_INT, MPI_SUM, win, &two[0]);
  MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, np + 1, 1, MPI_INT, MPI_SUM, win, &two[1]);
  MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
  MPI_Wait(&two[1 - idx], MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  int sum_old;
  MPI_Reduce(&old, &sum_old, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  /* 4. an Rput whose request is waited for after the unlock, or with "free" freed at once
   * (MPI_Request_free: the unlock completes it);
   * 5. an operation on MPI_PROC_NULL completes at once */
  int seven = 7 * rank;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
  MPI_Rput(&seven, 1, MPI_INT, next, np + 2, 1, MPI_INT, win, &rq);
  if (free_req) MPI_Request_free(&rq);   /* (real MPICH 4.0 refuses to free an RMA request) */
  MPI_Win_unlock(next, win);
  if (!free_req) MPI_Wait(&rq, MPI_STATUS_IGNORE);   /* complete already: the unlock was later */
  MPI_Win_lock_all(0, win);
  MPI_Rget(&got, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &rq);
  MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
  CHECK(flag, "%d: an Rget from MPI_PROC_NULL is not complete at once", rank);
  /* 6. accumulates of one element of a type of size 0 combine nothing (they stopped the run:
   * MPICH's rma/badrma) */
  MPI_Datatype zero;
  MPI_Type_contiguous(0, MPI_INT, &zero);
  MPI_Type_commit(&zero);
  MPI_Accumulate(NULL, 1, zero, next, 0, 1, zero, MPI_SUM, win);
  MPI_Raccumulate(NULL, 2, zero, next, 0, 1, zero, MPI_MAX, win, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Type_free(&zero);
  /* 7. an accumulate whose target type is a struct of two ints with a gap (one basic type: MPI
   * allows predefined operations on it): rank + 1 and 10 (rank + 1) added to the next rank's
   * ints np + 3 and np + 5, np + 4 untouched */
  MPI_Datatype two_ints;
  int blens[2] = {1, 1}, pair[2] = {rank + 1, 10 * (rank + 1)};
  MPI_Aint disps[2] = {0, 2 * sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, blens, disps, types, &two_ints);
  MPI_Type_commit(&two_ints);
  MPI_Raccumulate(pair, 2, MPI_INT, next, np + 3, 1, two_ints, MPI_SUM, win, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Type_free(&two_ints);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[np + 2] == 7 * ((rank + np - 1) % np), "%d: freed Rput gave %d", rank, mem[np + 2]);
  int prev = (rank + np - 1) % np;
  CHECK(mem[np + 3] == prev + 1 && mem[np + 4] == -1 && mem[np + 5] == 10 * (prev + 1),
        "%d: struct accumulate gave %d %d %d", rank, mem[np + 3], mem[np + 4], mem[np + 5]);

  if (rank == 0)
    printf("acc %d, fetch-and-add %d, fetched sum %d, rank 0's get %d\n", mem[np], mem[np + 1], sum_old, 100 * 0 + next);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  free(reqs);
  free(vals);
}

/* rank 0 on rank 1's window of n bytes; each interval printed in seconds */
static void timing(int rank, int n) {
  char *mem, *buf = malloc((size_t)n), *back = malloc((size_t)n);
  double *dmem = malloc((size_t)n), *dres = malloc((size_t)n);
  int nd = n / (int)sizeof(double);
  for (int i = 0; i < n; i++) buf[i] = (char)(i * 3);
  for (int i = 0; i < nd; i++) dmem[i] = 1.0;
  MPI_Win win;
  MPI_Win_allocate(n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  memset(mem, 0, (size_t)n);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request r, two[2];
    int idx;
    double t[16];
    int k = 0;
    t[k++] = MPI_Wtime();
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    t[k++] = MPI_Wtime();                                   /* 1 lock */
    MPI_Rput(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, &r);
    t[k++] = MPI_Wtime();                                   /* 2 rput returns */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 3 wait of the rput */
    MPI_Win_unlock(1, win);
    t[k++] = MPI_Wtime();                                   /* 4 unlock: the release only */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    t[k++] = MPI_Wtime();                                   /* 5 lock */
    MPI_Rget(back, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 6 rget + wait */
    MPI_Rput(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, &two[0]);
    MPI_Rget(back, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, &two[1]);
    MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 7 waitany: the put first */
    MPI_Wait(&two[1 - idx], MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 8 then the get */
    MPI_Raccumulate(dmem, nd, MPI_DOUBLE, 1, 0, nd, MPI_DOUBLE, MPI_SUM, win, &r);
    MPI_Win_flush(1, win);
    t[k++] = MPI_Wtime();                                   /* 9 raccumulate + flush */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 10 its wait: nothing left */
    MPI_Rget_accumulate(NULL, 0, MPI_DOUBLE, dres, nd, MPI_DOUBLE, 1, 0, nd, MPI_DOUBLE, MPI_NO_OP, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    t[k++] = MPI_Wtime();                                   /* 11 rget_accumulate(NO_OP) + wait */
    MPI_Win_unlock(1, win);
    t[k++] = MPI_Wtime();                                   /* 12 unlock */
    int ok = idx == 0 && !memcmp(back, buf, (size_t)n);
    for (int i = 0; i < nd; i++) {
      double want;
      memcpy(&want, buf + i * (int)sizeof(double), sizeof want);
      ok &= dres[i] == want + 1.0;
    }
    const char *name[] = {"", "lock", "rput", "rput-wait", "unlock", "lock2", "rget+wait", "waitany",
                          "wait-get", "racc+flush", "racc-wait", "rgetacc+wait", "unlock2"};
    for (int i = 1; i < k; i++) printf("%s %.9e\n", name[i], t[i] - t[i - 1]);
    printf("data %s\n", ok ? "ok" : "WRONG");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  free(buf); free(back); free(dmem); free(dres);
}

int main(int argc, char **argv) {
  int rank, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc > 1 && !strcmp(argv[1], "time")) {
    timing(rank, argc > 2 ? atoi(argv[2]) : 1000000);
  } else if (argc > 1 && !strcmp(argv[1], "mixed")) {
    /* a mistake: MPI_SUM on a struct of an int and a double (MPI 4.0, 12.3.4: the basic
     * elements of an accumulate's datatypes must all be of one predefined type) */
    struct { int i; double d; } v = {1, 2.0};
    int blens[2] = {1, 1};
    MPI_Aint disps[2] = {0, sizeof(double)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, mixed;
    MPI_Type_create_struct(2, blens, disps, types, &mixed);
    MPI_Type_commit(&mixed);
    char *mem;
    MPI_Win win;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(&v, 1, mixed, 0, 0, 1, mixed, MPI_SUM, win);   /* erroneous: stops the run */
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  } else if (argc > 1 && !strcmp(argv[1], "fence")) {
    int *mem, v = 1;
    MPI_Win win;
    MPI_Request r;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_fence(0, win);
    MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r);   /* erroneous: stops the run */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
  } else {
    data(rank, np, argc > 1 && !strcmp(argv[1], "free"));
    int all;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) printf(" No Errors\n");
  }
  MPI_Finalize();
  return 0;
}
