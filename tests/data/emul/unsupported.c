/* Calls an MPI function psim does not provide (nor declare): psimcc must refuse it at link. */
#include <mpi.h>
int MPI_File_seek_shared(int fh, long long offset, int whence);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_File_seek_shared(0, 0, 0);
  MPI_Finalize();
  return 0;
}
