/* Master/worker bag of tasks: rank 0 hands out task numbers; workers return a result and are
 * given the next task, in whatever order they finish (MPI_ANY_SOURCE); a task number of -1
 * tells a worker to stop. Task t costs (t % 7 + 1) * 1e6 flops, declared with psim_compute,
 * and its result is t*t. Usage: master_worker [TASKS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_TASK = 1, TAG_RESULT = 2 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ntasks = argc > 1 ? atoi(argv[1]) : 100;
  if (size < 2) { if (rank == 0) fprintf(stderr, "master_worker needs 2 ranks or more\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
  if (rank == 0) {
    int next = 0, active = 0;
    long long sum = 0;
    int *done_by = calloc((size_t)size, sizeof *done_by);
    for (int w = 1; w < size; w++) {
      int t = next < ntasks ? next++ : -1;
      MPI_Send(&t, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
      if (t >= 0) active++;
    }
    while (active > 0) {
      long long res[2];
      MPI_Status st;
      MPI_Recv(res, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
      sum += res[1];
      done_by[st.MPI_SOURCE]++;
      int t = next < ntasks ? next++ : -1;
      if (t < 0) active--;
      MPI_Send(&t, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
    }
    long long want = 0;
    for (long long t = 0; t < ntasks; t++) want += t * t;
    printf("master_worker: %d tasks on %d workers: sum %lld (%s)\n", ntasks, size - 1, sum, sum == want ? "ok" : "WRONG");
    for (int w = 1; w < size; w++) printf("  worker %d did %d tasks\n", w, done_by[w]);
    free(done_by);
  } else {
    for (;;) {
      int t;
      MPI_Recv(&t, 1, MPI_INT, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (t < 0) break;
      psim_compute((t % 7 + 1) * 1e6);
      long long res[2] = {t, (long long)t * t};
      MPI_Send(res, 2, MPI_LONG_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return 0;
}
