/* What the test programs graph.c, neighbor.c and mprobe.c share: a failed check's report, the
 * final verdict, and the timed runs' start and end. Plain MPI (they also build with MPICH's
 * mpicc; psim_sleep only under psim). */
#ifndef MPI_CHECK_H
#define MPI_CHECK_H
#include <stdio.h>

static int rank, size, errs;
#define CHECK(c, ...) do { if (!(c)) { errs++; printf("rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* MPI_Init, then rank and size */
static inline void check_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

/* " No Errors" from rank 0 when no rank failed a check, then MPI_Finalize */
static inline int check_done(void) {
  int all;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}

/* every rank starts the measured part at simulated time 1 s */
static inline void start_at_one(void) {
  MPI_Barrier(MPI_COMM_WORLD);
#ifdef PSIM_MPI
  psim_sleep(1.0 - MPI_Wtime());
#endif
}

/* rank 0 prints "LABEL T", T the latest rank's MPI_Wtime */
static inline void print_latest(const char *label) {
  double end = MPI_Wtime(), last;
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %.17g\n", label, last);
}
#endif
