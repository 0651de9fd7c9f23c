/* MPI_Win_lock_all with MPI_MODE_NOCHECK takes no lock (as MPICH's): rank 0 opens such an epoch
 * on its window and waits, reading its own memory, for each other rank's post, which takes an
 * exclusive lock on rank 0, accumulates 1 and unlocks (OpenCoarrays' event wait and post). With
 * shared locks taken by the NOCHECK epoch, the posts waited for ever and rank 0 spun (a hang).
 * Prints the count rank 0 saw and its simulated time of arrival. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, *base, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int count = 0;
    while (count < size - 1) {
      MPI_Win_sync(win);
      count = *(volatile int *)base;
      MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    printf("count %d\n", count);
  } else {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
