/* MPI_Isendrecv and MPI_Isendrecv_replace (tests/cli/run_isendrecv.sh).
 * Data: on a ring, each rank sends to its right neighbour and receives from its left one;
 * Isendrecv_replace with a strided (vector) type swaps in place; MPI_PROC_NULL partners; a
 * request tested before the partner posts is not complete. Time (np 2, argv[1] = S bytes):
 * first thing after MPI_Init (both ranks start at time 0), an Isendrecv + Wait of S bytes
 * each way, then an MPI_Sendrecv of the same (both ranks start it together, the exchange is
 * symmetric): rank 0 prints both durations. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, size, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && size == 2) {
    int S = atoi(argv[1]);
    char *a = calloc((size_t)S, 1), *b = calloc((size_t)S, 1);
    MPI_Request rq0;
    double t0 = MPI_Wtime();
    MPI_Isendrecv(a, S, MPI_BYTE, 1 - rank, 1, b, S, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &rq0);
    MPI_Wait(&rq0, MPI_STATUS_IGNORE);
    double t1 = MPI_Wtime();
    double t2 = MPI_Wtime();
    MPI_Sendrecv(a, S, MPI_BYTE, 1 - rank, 2, b, S, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t3 = MPI_Wtime();
    if (rank == 0) printf("isendrecv %.9g\nsendrecv %.9g\n", t1 - t0, t3 - t2);
    free(a);
    free(b);
  }
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[4], in[4] = {-1, -1, -1, -1};
  for (int i = 0; i < 4; i++) out[i] = 100 * rank + i;
  MPI_Request rq;
  MPI_Status st;
  MPI_Isendrecv(out, 4, MPI_INT, right, 7, in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, &st);
  for (int i = 0; i < 4; i++) if (in[i] != 100 * left + i) errs++;
  int n;
  MPI_Get_count(&st, MPI_INT, &n);
  if (st.MPI_SOURCE != left || st.MPI_TAG != 7 || n != 4) errs++;

  /* in place, strided: elements 0, 2, 4 of buf travel; 1, 3 stay */
  int buf[5];
  for (int i = 0; i < 5; i++) buf[i] = 1000 * rank + i;
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Isendrecv_replace(buf, 1, vec, right, 8, left, 8, MPI_COMM_WORLD, &rq);
  int flag = 0;
  while (!flag) MPI_Test(&rq, &flag, &st);
  for (int i = 0; i < 5; i++) if (buf[i] != (i % 2 ? 1000 * rank + i : 1000 * left + i)) errs++;
  MPI_Type_free(&vec);

  /* partners MPI_PROC_NULL: complete at once, the buffer untouched */
  in[0] = -5;
  MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, &st);
  if (in[0] != -5 || st.MPI_SOURCE != MPI_PROC_NULL) errs++;

  /* the receive cannot complete before its partner sends: rank 0 tests first */
  if (size > 1 && rank < 2) {
    int peer = 1 - rank, x = rank, y = -1;
    if (rank == 0) {
      MPI_Isendrecv(&x, 1, MPI_INT, peer, 9, &y, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq);
      MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
      if (flag) errs++;
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Sendrecv(&x, 1, MPI_INT, peer, 9, &y, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (y != peer) errs++;
  } else MPI_Barrier(MPI_COMM_WORLD);

  int all;
  MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? " Found %d errors\n" : " No Errors\n", all);
  MPI_Finalize();
  return 0;
}
