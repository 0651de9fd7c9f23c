/* What a rank's BLAS sees of its thread count (psim run sets the BLAS libraries' counts to 1
 * unless the user set them: emu_load.c). With argv[1] = "openblas", also what OpenBLAS itself
 * read as it loaded (built with -lopenblas). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_OPENBLAS
int openblas_get_num_threads(void);
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const char *o = getenv("OPENBLAS_NUM_THREADS"), *m = getenv("MKL_NUM_THREADS");
  if (r == 0) printf("OPENBLAS_NUM_THREADS=%s MKL_NUM_THREADS=%s\n", o ? o : "(unset)", m ? m : "(unset)");
#ifdef WITH_OPENBLAS
  if (r == 0) printf("openblas threads %d\n", openblas_get_num_threads());
#endif
  MPI_Finalize();
  return 0;
}
