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
  if (!strcmp(argv[1], "attach")) MPI_Win_attach(win, &v, sizeof v);   /* not a dynamic window */
  MPI_Win_free(&win);
  /* dynamic windows: an access past the attached memory, a detach of memory never attached */
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Aint a, a1;
  MPI_Win_attach(win, buf, 2 * sizeof *buf);   /* two adjacent regions: an access may span them */
  MPI_Win_attach(win, &buf[2], 2 * sizeof *buf);
  MPI_Get_address(&buf[3], &a);
  MPI_Get_address(&buf[1], &a1);
  MPI_Win_fence(0, win);
  if (!strcmp(argv[1], "dynrange")) MPI_Put(buf, 2, MPI_INT, 0, a, 2, MPI_INT, win);
  if (!strcmp(argv[1], "detach")) MPI_Win_detach(win, &v);
  MPI_Put(&v, 1, MPI_INT, 0, a, 1, MPI_INT, win);   /* the last int: fine */
  MPI_Put(buf, 2, MPI_INT, 0, a1, 2, MPI_INT, win);   /* buf[1..2], across the two: fine */
  MPI_Win_fence(0, win);
  MPI_Win_detach(win, &buf[2]);
  MPI_Win_detach(win, buf);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
