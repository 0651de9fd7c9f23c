/* Dynamic windows (MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach): every rank attaches
 * three regions, the ranks exchange their addresses (MPI_Get_address, MPI_AINT) and address
 * them from MPI_BOTTOM: fence with Put (MPI_Aint_add), Accumulate and Get with a vector
 * target type; lock and lock_all with Fetch_and_op, Get_accumulate(NO_OP) and
 * Compare_and_swap; a region detached and another attached in its place; rank 0 spinning on its
 * own window (lock_all and flush, then lock and unlock of itself) until the last rank writes it,
 * as MPICH's rma/linked_list* chase their tail. Rank 0 prints what it
 * got and " No Errors" (the same lines under real MPICH: tests/cli/run_abi.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_check.h"

#define N 16

int main(int argc, char **argv) {
  check_init(&argc, &argv);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int *flavor, flag;
  MPI_Aint *wsize;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", flag ? *flavor : -1);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
  CHECK(flag && *wsize == 0, "size %ld", flag ? (long)*wsize : -1L);

  int *a = malloc(N * sizeof *a);
  double *d = calloc(4, sizeof *d);
  long counter = 0;
  for (int i = 0; i < N; i++) a[i] = -1;
  MPI_Win_attach(win, a, N * sizeof *a);
  MPI_Win_attach(win, d, 4 * sizeof *d);
  MPI_Win_attach(win, &counter, sizeof counter);
  MPI_Aint mine[3], *all = malloc(3 * (size_t)size * sizeof *all);
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(d, &mine[1]);
  MPI_Get_address(&counter, &mine[2]);
  MPI_Allgather(mine, 3, MPI_AINT, all, 3, MPI_AINT, MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, left2 = (rank + 2 * size - 2) % size;

  /* fence: 4 ints into the right neighbour's a[4..7], a sum into rank 0's d[0] */
  MPI_Win_fence(0, win);
  int v[4];
  for (int i = 0; i < 4; i++) v[i] = rank * 100 + i;
  MPI_Put(v, 4, MPI_INT, right, MPI_Aint_add(all[3 * right], 4 * sizeof(int)), 4, MPI_INT, win);
  double one = rank + 1;
  MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, all[1], 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < N; i++)
    CHECK(a[i] == (i >= 4 && i < 8 ? left * 100 + i - 4 : -1), "a[%d] = %d", i, a[i]);
  if (rank == 0) CHECK(d[0] == size * (size + 1) / 2.0, "d[0] = %g", d[0]);

  /* a vector on the target side: the left neighbour's a[4] and a[6] */
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int g[2] = {0, 0};
  MPI_Get(g, 2, MPI_INT, left, MPI_Aint_add(all[3 * left], 4 * sizeof(int)), 1, vec, win);
  MPI_Win_fence(0, win);
  CHECK(g[0] == left2 * 100 && g[1] == left2 * 100 + 2, "get %d %d", g[0], g[1]);
  MPI_Type_free(&vec);

  /* passive target: everyone adds 1 to rank 0's counter */
  long inc = 1, old = -1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Fetch_and_op(&inc, &old, MPI_LONG, 0, all[2], MPI_SUM, win);
  MPI_Win_unlock(0, win);
  CHECK(old >= 0 && old < size, "fetched %ld", old);
  MPI_Barrier(MPI_COMM_WORLD);
  long seen = -1, swapped = 7, cmp = 0, before = -1;
  MPI_Win_lock_all(0, win);
  MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, 0, all[2], 1, MPI_LONG, MPI_NO_OP, win);
  MPI_Win_flush(0, win);
  if (rank == 0) MPI_Compare_and_swap(&swapped, &cmp, &before, MPI_LONG, right, all[3 * right + 2], win);
  MPI_Win_unlock_all(win);
  CHECK(seen == size, "counter %ld", seen);
  if (rank == 0) CHECK(before == (right == 0 ? size : 0), "compare_and_swap saw %ld", before);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == right && rank != 0) CHECK(counter == 7, "swapped counter %ld", counter);

  /* d detached, e attached: the new region's address exchanged and written */
  MPI_Win_detach(win, d);
  int e[2] = {0, 0};
  MPI_Win_attach(win, e, sizeof e);
  MPI_Get_address(e, &mine[0]);
  MPI_Allgather(mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  int w[2] = {rank, -rank};
  MPI_Put(w, 2, MPI_INT, right, all[right], 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(e[0] == left && e[1] == -left, "e = %d %d", e[0], e[1]);

  /* rank 0 reads its own flags until the last rank has set them */
  long flags[2] = {0, 0}, got = 0, one_flag[2] = {1, 2};
  MPI_Win_attach(win, flags, sizeof flags);
  MPI_Get_address(flags, &mine[0]);
  MPI_Bcast(&mine[0], 1, MPI_AINT, 0, MPI_COMM_WORLD);
  int spins = 0;
  if (rank == 0 && size > 1) {
    MPI_Win_lock_all(0, win);
    do {
      MPI_Get_accumulate(NULL, 0, MPI_LONG, &got, 1, MPI_LONG, 0, mine[0], 1, MPI_LONG, MPI_NO_OP, win);
      MPI_Win_flush(0, win);
      spins++;
    } while (got != 1);
    MPI_Win_unlock_all(win);
    do {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Get(&got, 1, MPI_LONG, 0, MPI_Aint_add(mine[0], sizeof(long)), 1, MPI_LONG, win);
      MPI_Win_unlock(0, win);
    } while (got != 2);
  } else if (rank == size - 1 && size > 1) {
    for (int i = 0; i < 2; i++) {
      /* shared first: rank 0 holds lock_all's shared lock meanwhile */
      MPI_Win_lock(i ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 0, 0, win);
      MPI_Put(&one_flag[i], 1, MPI_LONG, 0, MPI_Aint_add(mine[0], i * sizeof(long)), 1, MPI_LONG, win);
      MPI_Win_unlock(0, win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && size > 1) CHECK(flags[0] == 1 && flags[1] == 2 && spins >= 1, "flags %ld %ld", flags[0], flags[1]);
  MPI_Win_detach(win, flags);

  if (rank == 0)
    printf("a[4..7] %d %d %d %d, d[0] %g, get %d %d, counter %ld, e %d %d\n", a[4], a[5], a[6],
           a[7], d[0], g[0], g[1], seen, e[0], e[1]);
  MPI_Win_detach(win, e);
  MPI_Win_detach(win, &counter);
  MPI_Win_detach(win, a);
  MPI_Win_free(&win);
  free(a);
  free(d);
  free(all);
  return check_done();
}
