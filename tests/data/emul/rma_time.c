/* Simulated times of one-sided operations (tests/cli/run_rma.sh derives them by hand): rank 0
 * locks rank 1's window, puts argv[1] bytes, unlocks; locks again, gets them back, flushes,
 * unlocks. Rank 1 does nothing meanwhile (passive target). With "dynamic" after the size, the
 * window is a dynamic one (MPI_Win_create_dynamic, the memory attached, the displacement its
 * address): the same times. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  char *mem = calloc((size_t)n, 1), *buf = malloc((size_t)n);
  for (int i = 0; i < n; i++) buf[i] = (char)(i * 7);
  MPI_Win win;
  int dynamic = argc > 2 && !strcmp(argv[2], "dynamic");
  MPI_Aint disp = 0;
  if (dynamic) {
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, mem, n);
    MPI_Get_address(mem, &disp);
  } else {
    MPI_Win_create(mem, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  }
  MPI_Bcast(&disp, 1, MPI_AINT, 1, MPI_COMM_WORLD);   /* rank 1's displacement */
  if (rank == 0) {
    double t0 = MPI_Wtime();
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    double t1 = MPI_Wtime();
    MPI_Put(buf, n, MPI_BYTE, 1, disp, n, MPI_BYTE, win);
    double t2 = MPI_Wtime();
    MPI_Win_unlock(1, win);
    double t3 = MPI_Wtime();
    for (int i = 0; i < n; i++) buf[i] = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    double t4 = MPI_Wtime();
    MPI_Get(buf, n, MPI_BYTE, 1, disp, n, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    double t5 = MPI_Wtime();
    MPI_Win_unlock(1, win);
    double t6 = MPI_Wtime();
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= buf[i] == (char)(i * 7);
    printf("lock %.9e\nput %.9e\nunlock %.9e\nlock2 %.9e\nget+flush %.9e\nunlock2 %.9e\ndata %s\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, ok ? "ok" : "WRONG");
  }
  MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 detaches only once rank 0 is done */
  if (dynamic) MPI_Win_detach(win, mem);
  MPI_Win_free(&win);
  free(mem);
  free(buf);
  MPI_Finalize();
  return 0;
}
