/* One-sided communication under psim run (tests/cli/run_rma.sh): every synchronisation mode
 * moves the right data. Prints " No Errors" when every check passed, else what failed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errs;
#define CHECK(c, ...) do { if (!(c)) { errs++; printf("rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv) {
  int rank, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int right = (rank + 1) % np, left = (rank + np - 1) % np;

  /* 1. fence: each rank puts its rank into its right neighbour's slot 0, gets the left
   * neighbour's slot 1, and adds 1 to slot 2 of rank 0 */
  int buf[4] = {-1, 100 + rank, 0, -1};
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int got = -1, one = 1;
  MPI_Win_fence(0, win);
  MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Get(&got, 1, MPI_INT, left, 1, 1, MPI_INT, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  CHECK(buf[0] == left, "fence put: %d, want %d", buf[0], left);
  CHECK(got == 100 + left, "fence get: %d, want %d", got, 100 + left);
  if (rank == 0) CHECK(buf[2] == np, "fence accumulate: %d, want %d", buf[2], np);

  /* attributes and group */
  void *base;
  MPI_Aint *size;
  int *du, flag, gsize;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  CHECK(flag && base == buf, "MPI_WIN_BASE");
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
  CHECK(flag && *size == (MPI_Aint)sizeof buf, "MPI_WIN_SIZE %ld", (long)*size);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
  CHECK(flag && *du == (int)sizeof(int), "MPI_WIN_DISP_UNIT %d", *du);
  MPI_Group g;
  MPI_Win_get_group(win, &g);
  MPI_Group_size(g, &gsize);
  CHECK(gsize == np, "group size %d", gsize);
  MPI_Group_free(&g);

  /* 2. exclusive locks: every rank increments rank 0's slot 3 by get + put under the lock */
  MPI_Win_fence(0, win);
  if (rank == 0) buf[3] = 0;
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (int it = 0; it < 3; it++) {
    int v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    v++;
    MPI_Put(&v, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    CHECK(buf[3] == 3 * np, "exclusive lock counter: %d, want %d", buf[3], 3 * np);
    MPI_Win_unlock(0, win);
  }
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL");

  /* 3. MPI_Win_allocate, lock_all, Fetch_and_op, Compare_and_swap */
  long *mem;
  MPI_Win w2;
  MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w2);
  mem[0] = 0;
  mem[1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, w2);
  long inc = rank + 1, old = -5, mine = rank, cmp = -1, prev = -7;
  MPI_Fetch_and_op(&inc, &old, MPI_LONG, 0, 0, MPI_SUM, w2);
  MPI_Compare_and_swap(&mine, &cmp, &prev, MPI_LONG, 0, 1, w2);
  MPI_Win_flush_all(w2);
  MPI_Win_unlock_all(w2);
  CHECK(old >= 0 && old <= (long)np * (np + 1) / 2 - inc, "fetch_and_op old %ld", old);
  long first;   /* the rank whose swap succeeded, the others saw it */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) first = mem[1];
  MPI_Bcast(&first, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  CHECK(prev == (rank == first ? -1 : first), "compare_and_swap saw %ld (first %ld)", prev, first);
  if (rank == 0) CHECK(mem[0] == (long)np * (np + 1) / 2, "fetch_and_op sum %ld", mem[0]);
  int *fl;
  MPI_Win_get_attr(w2, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
  CHECK(flag && *fl == MPI_WIN_FLAVOR_ALLOCATE, "flavor");
  MPI_Win_free(&w2);

  /* 4. PSCW: even ranks expose, odd ranks put to rank-1 (vector datatypes on both sides) */
  double d[6] = {0};
  MPI_Win w3;
  MPI_Win_create(d, sizeof d, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
  MPI_Group world, peer;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int partner = rank % 2 ? rank - 1 : rank + 1;
  if (partner < np) {
    MPI_Group_incl(world, 1, &partner, &peer);
    if (rank % 2 == 0) {
      MPI_Win_post(peer, 0, w3);
      MPI_Win_wait(w3);
      CHECK(d[0] == 1.5 && d[1] == 0 && d[2] == 2.5 && d[3] == 0 && d[4] == 3.5, "pscw data %g %g %g", d[0], d[2], d[4]);
    } else {
      double src[3] = {1.5, 2.5, 3.5};
      MPI_Datatype every2;
      MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every2);
      MPI_Type_commit(&every2);
      MPI_Win_start(peer, 0, w3);
      MPI_Put(src, 3, MPI_DOUBLE, partner, 0, 1, every2, w3);
      MPI_Win_complete(w3);
      MPI_Type_free(&every2);
    }
    MPI_Group_free(&peer);
  }
  MPI_Group_free(&world);
  MPI_Win_free(&w3);

  /* 5. Get_accumulate with MPI_NO_OP reads; MPI_REPLACE writes */
  int cell[2] = {rank * 10, 0};
  MPI_Win w4;
  MPI_Win_create(cell, sizeof cell, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w4);
  int r = -1, z = 7;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w4);
  MPI_Get_accumulate(NULL, 0, MPI_INT, &r, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, w4);
  MPI_Accumulate(&z, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_REPLACE, w4);
  MPI_Win_unlock(right, w4);
  CHECK(r == right * 10, "get_accumulate no_op %d", r);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(cell[1] == 7, "accumulate replace %d", cell[1]);
  MPI_Win_free(&w4);

  int all;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}
