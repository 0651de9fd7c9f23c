/* Does a rank's computation keep its caches? Each rank reads one double of every cache line of
 * an array of W bytes and writes the next one, REPS times, with a barrier between two sweeps,
 * for W from 64 KiB to 16 MiB; rank 0 prints the mean time of one sweep (its own code only,
 * timed with MPI_Wtime) and of one sweep with its barrier. Under a real MPI each rank has its
 * core and its private caches (here 2 MiB of L2 per core); under psim run every rank runs on
 * psim's one thread, one burst after the other, so the ranks' data evict each other's
 * (docs/VALIDATION.md, issue 34):
 *
 *   mpicc.mpich -O2 -o cs_real bench/cache_sweep.c && mpiexec.mpich -n 2 ./cs_real
 *   build/psimcc -O2 -o cs_psim bench/cache_sweep.c
 *   build/psim run -q --np 1 --platform this.xml -- ./cs_psim     # one rank: its caches alone
 *   build/psim run -q --np 2 --platform this.xml -- ./cs_psim     # two ranks on one core */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const long sizes[] = {65536, 262144, 1048576, 1572864, 3145728, 16777216};
  for (int s = 0; s < 6; s++) {
    long w = sizes[s], n = w / 8;
    double *a = malloc((size_t)w);
    if (!a) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n; i++) a[i] = (double)i;
    int reps = (int)(400000000L / w);
    if (reps > 4000) reps = 4000;
    volatile double sink = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), tin = 0;
    for (int k = 0; k < reps; k++) {
      double t1 = MPI_Wtime(), x = 0;
      for (long i = 0; i + 1 < n; i += 8) {
        x += a[i];
        a[i + 1] += 1.0;
      }
      sink += x;
      tin += MPI_Wtime() - t1;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    if (r == 0) printf("W %8ld  sweep %.3f us  with its barrier %.3f us\n", w, tin / reps * 1e6, t / reps * 1e6);
    free(a);
  }
  MPI_Finalize();
  return 0;
}
