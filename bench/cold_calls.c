/* Does an MPI call cost more after the rank's own work? A ping-pong of S bytes between rank 0
 * and rank 1, N round trips; before each, rank 0 sweeps W bytes of its own (one read and one
 * write per 64-byte line: its data, not the message's) while rank 1 waits in MPI_Recv. The
 * sweep is timed apart and not counted: what is printed is the round trip after it, against
 * W = 0 (the calibration's ping-pong, everything in cache). HPCG at 16^3 a rank computes about
 * 30 us between two of its 160 000 MPI calls a rank, and its trace's replay gives those calls
 * 0.14 s where they took 0.44 s (docs/TRACES.md): this measures whether the calls themselves
 * are dearer once the rank's work has evicted the MPI library's data.
 *
 *   mpicc.mpich -O2 -o cold_real bench/cold_calls.c && mpiexec.mpich -n 2 ./cold_real
 *   build/psimcc -O2 -o cold_psim bench/cold_calls.c && build/psim run -q --np 2 --platform this.xml -- ./cold_psim */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const long ws[] = {0, 65536, 262144, 1048576, 4194304};
  const int ss[] = {8, 2048};
  char *buf = calloc(1, 65536);
  for (int si = 0; si < 2; si++)
    for (int wi = 0; wi < 5; wi++) {
      long w = ws[wi];
      int s = ss[si], n = 2000;
      char *a = w ? malloc((size_t)w) : NULL;
      if (a) memset(a, 1, (size_t)w);
      double tsw = 0, trt = 0;
      volatile long sink = 0;
      for (int it = -50; it < n; it++) {
        double t0 = MPI_Wtime();
        long x = 0;
        if (r == 0)
          for (long i = 0; i < w; i += 64) {
            x += a[i];
            a[i + 32]++;
          }
        sink += x;
        double t1 = MPI_Wtime();
        if (r == 0) {
          MPI_Send(buf, s, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, s, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf, s, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, s, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
        double t2 = MPI_Wtime();
        if (it >= 0) {
          tsw += t1 - t0;
          trt += t2 - t1;
        }
      }
      if (r == 0)
        printf("S %5d W %8ld  sweep %9.3f us  round trip after it %8.3f us\n", s, w, tsw / n * 1e6, trt / n * 1e6);
      free(a);
    }
  free(buf);
  MPI_Finalize();
  return 0;
}
