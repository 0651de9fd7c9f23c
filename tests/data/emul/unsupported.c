/* Calls an MPI function psim does not provide (nor declare): psimcc must refuse it at link.
 * (MPI_Register_datarep: user data representations of MPI-IO; psim has "native" only.) */
#include <mpi.h>
int MPI_Register_datarep(const char *datarep, void *read_fn, void *write_fn, void *extent_fn, void *extra);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Register_datarep("mine", 0, 0, 0, 0);
  MPI_Finalize();
  return 0;
}
