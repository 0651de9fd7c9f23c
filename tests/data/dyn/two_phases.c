/* psim run's version of two_phases.txt (tests/cli/dyn_hand.sh): each rank computes 1 Gflop,
 * ends its iteration, computes 2 Gflop. Declared costs only: run with --no-measure. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  psim_compute(1e9);
  psim_iteration();
  psim_compute(2e9);
  MPI_Finalize();
  return 0;
}
