/* Two sleeps of 1e308 s: the second would end past the largest double. psim run must say so
 * (exit 4), not report a deadlock at 1e308 s. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  psim_sleep(1e308);
  psim_sleep(1e308);
  MPI_Finalize();
  return 0;
}
