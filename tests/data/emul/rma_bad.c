/* One-sided mistakes psim reports (tests/cli/run_rma.sh): argv[1] picks one. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv) {
  int buf[4] = {0}, v = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  if (!strcmp(argv[1], "noepoch")) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  if (!strcmp(argv[1], "range")) {
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win);
  }
  if (!strcmp(argv[1], "unlock")) MPI_Win_unlock(0, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
