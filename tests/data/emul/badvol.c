/* psim_sleep / psim_compute given a volume that is not a finite number of 0 or more (argv[1]
 * picks the call, argv[2] the value): psim run must stop with the rank and the call (exit 4).
 * NaN flops used to hang the run, infinity to end as a deadlock, a negative value to pass as 0. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double v = argc > 2 ? strtod(argv[2], NULL) : 1;
  if (argc > 1 && argv[1][0] == 's') psim_sleep(v);
  else psim_compute(v);
  MPI_Finalize();
  return 0;
}
