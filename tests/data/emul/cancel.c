/* MPI_Cancel under psim run (tests/cli/run_cancel.sh). Prints one line per check. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, flag, v = 0, got = -1;
  MPI_Status st;
  MPI_Request rq;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    /* 1. a receive nothing will ever match: cancelled, its wait returns at once */
    double t0 = MPI_Wtime();
    MPI_Irecv(&got, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    printf("unmatched: cancelled=%d null=%d got=%d dt=%g\n", flag, rq == MPI_REQUEST_NULL, got, MPI_Wtime() - t0);
    /* 2. a wildcard receive, completed by MPI_Test */
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Test(&rq, &flag, &st);
    int c;
    MPI_Test_cancelled(&st, &c);
    printf("wildcard: done=%d cancelled=%d\n", flag, c);
    /* 3. a persistent receive: cancelled once, then started again and used */
    MPI_Recv_init(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq);
    MPI_Start(&rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &c);
    MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 sends tag 7 after this */
    MPI_Start(&rq);
    MPI_Wait(&rq, &st);
    int c2;
    MPI_Test_cancelled(&st, &c2);
    printf("persistent: first cancelled=%d, second cancelled=%d got=%d\n", c, c2, got);
    MPI_Request_free(&rq);
    /* 4. a receive that already matched: the cancel fails, the data arrives */
    MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 has sent tag 8 */
    MPI_Irecv(&got, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &c);
    printf("matched: cancelled=%d got=%d source=%d\n", c, got, st.MPI_SOURCE);
    /* 5. a send: not cancelled, rank 1 receives it */
    v = 99;
    MPI_Isend(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &c);
    printf("send: cancelled=%d\n", c);
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    v = 42;
    MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    v = 43;
    MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
    printf("rank 1 got %d\n", got);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
