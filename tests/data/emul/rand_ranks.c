/* Each rank draws from the C library's generators in turn with the others (a barrier between
 * draws, where psim run switches ranks): rank r seeds rand with r + 1 (rank 0 never seeds it:
 * glibc's default state) and drand48 with r, draws three of each, and rank 0 prints what every
 * rank drew (tests/cli/run_libc_calls.sh). Under real MPI each rank is a process with its own
 * generators; compiled without MPI (-DSERIAL) it prints what rank argv[1] of argv[2] would draw
 * in a process of its own. */
#include <stdio.h>
#include <stdlib.h>
#ifndef SERIAL
#include <mpi.h>
#endif

static void draw(int rank, long out[9], void (*sync)(void)) {
  if (rank > 0) srand((unsigned)rank + 1);
  srand48(rank);
  for (int i = 0; i < 3; i++) {
    out[3 * i] = rand();
    out[3 * i + 1] = random();
    out[3 * i + 2] = lrand48();
    sync();
  }
}

static void print(int rank, const long v[9]) {
  printf("rank %d:", rank);
  for (int i = 0; i < 9; i++) printf(" %ld", v[i]);
  printf("\n");
}

#ifdef SERIAL
static void none(void) {}
int main(int argc, char **argv) {
  long v[9];
  int rank = argc > 1 ? atoi(argv[1]) : 0;
  draw(rank, v, none);
  print(rank, v);
  return 0;
}
#else
static void barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long v[9], *all = malloc(sizeof v * (size_t)size);
  draw(rank, v, barrier);
  MPI_Gather(v, 9, MPI_LONG, all, 9, MPI_LONG, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; r++) print(r, all + 9 * r);
  free(all);
  MPI_Finalize();
  return 0;
}
#endif
