/* OpenMP in every rank, the master thread calling MPI inside the parallel region (FUNNELED):
 * each rank's region must have its own team of OMP_NUM_THREADS threads at level 1, whatever
 * region another rank was in when it called MPI (psim runs every rank in one thread: the
 * OpenMP runtime's thread-local state is each rank's, emu_tls.c). Prints one line per rank. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, bad = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int want = omp_get_max_threads();
  for (int it = 0; it < 4; it++) {
    int sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
      if (omp_get_num_threads() != want || omp_get_level() != 1) bad++;
#pragma omp master
      {
        int x = rank, y;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      }
#pragma omp barrier
      sum += omp_get_thread_num() + 1;
    }
    if (sum != want * (want + 1) / 2) bad++;
  }
  printf("rank %d: %d threads, %s\n", rank, want, bad ? "wrong teams" : "teams ok");
  MPI_Finalize();
  return 0;
}
