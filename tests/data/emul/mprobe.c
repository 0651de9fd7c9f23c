/* Matched probes (tests/cli/run_mprobe.sh).
 *
 *   mprobe              the semantics; prints " No Errors" (at least 2 ranks):
 *                       - rank 1 sends tags 5 then 6 to rank 0; rank 0 MPI_Mprobe's ANY_TAG
 *                         (gets tag 5), then an MPI_Recv of ANY_TAG must take tag 6, not the
 *                         message probed; MPI_Mrecv then gives tag 5's data;
 *                       - MPI_Improbe before anything is sent: flag 0, MPI_MESSAGE_NULL; then a
 *                         loop until it matches; MPI_Imrecv + MPI_Wait, status and count;
 *                       - MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, MPI_Mrecv/MPI_Imrecv of it give
 *                         source MPI_PROC_NULL and count 0;
 *                       - a strided receive type; a large (rendez-vous) message;
 *                       - every other rank sends to rank 0 with one tag: ANY_SOURCE matched
 *                         probes receive each exactly once;
 *                       - a status's MPI_ERROR is left as it was by MPI_Mprobe, MPI_Mrecv,
 *                         MPI_Recv, MPI_Wait (calls giving one status), set by MPI_Waitall
 *                         for a request it completes;
 *                       - MPI_Message_c2f/f2c, MPI_Status_set_elements_x/MPI_Get_elements_x
 *                         past 2^62;
 *   mprobe time S M     rank 1 sends S bytes to rank 0 at t = 0, rank 0 receives it with M =
 *                       recv (MPI_Recv) or mprobe (MPI_Mprobe then MPI_Mrecv); rank 0 prints
 *                       "time END"
 *   mprobe null         MPI_Mrecv on MPI_MESSAGE_NULL (an error)
 *   mprobe twice        MPI_Mrecv of a message already received (an error)
 *   mprobe trunc        MPI_Mrecv into a buffer too small (an error) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int timed(long S, const char *how) {
  char *b = calloc((size_t)S + 1, 1);
  if (rank == 1) MPI_Send(b, (int)S, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Status st;
    if (!strcmp(how, "recv")) MPI_Recv(b, (int)S, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &st);
    else {
      MPI_Message m;
      MPI_Mprobe(1, 3, MPI_COMM_WORLD, &m, &st);
      MPI_Mrecv(b, (int)S, MPI_BYTE, &m, &st);
    }
    printf("time %.17g\n", MPI_Wtime());
  }
  free(b);
  return 0;
}

static int misuse(const char *what) {
  MPI_Message m = MPI_MESSAGE_NULL, m2;
  int buf[4] = {1, 2, 3, 4};
  if (rank == 1) MPI_Send(buf, 4, MPI_INT, 0, 1, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  if (strcmp(what, "null")) MPI_Mprobe(1, 1, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
  if (!strcmp(what, "twice")) {
    m2 = m;
    MPI_Mrecv(buf, 4, MPI_INT, &m, MPI_STATUS_IGNORE);
    MPI_Mrecv(buf, 4, MPI_INT, &m2, MPI_STATUS_IGNORE);
  } else {
    MPI_Mrecv(buf, !strcmp(what, "trunc") ? 2 : 4, MPI_INT, &m, MPI_STATUS_IGNORE);
  }
  return 0;
}

int main(int argc, char **argv) {
  check_init(&argc, &argv);
  if (argc > 3 && !strcmp(argv[1], "time")) {
    timed(atol(argv[2]), argv[3]);
    MPI_Finalize();
    return 0;
  }
  if (argc > 1) {
    misuse(argv[1]);
    MPI_Finalize();
    return 0;
  }
  MPI_Message m;
  MPI_Status st;
  MPI_Request rq;
  int a = 0, b = 0, cnt, flag;
  /* the probed message is taken out of matching */
  if (rank == 1) {
    a = 55; b = 66;
    MPI_Send(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    MPI_Send(&b, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Mprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 5 && m != MPI_MESSAGE_NULL, "Mprobe status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 1, "Mprobe count %d", cnt);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_TAG == 6 && b == 66, "the receive after Mprobe took tag %d (%d)", st.MPI_TAG, b);
    MPI_Mrecv(&a, 1, MPI_INT, &m, &st);
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_TAG == 5 && a == 55, "Mrecv: %d %d", st.MPI_TAG, a);
  }
  /* MPI_Improbe: nothing yet, then the message; MPI_Imrecv */
  if (rank == 0) {
    MPI_Improbe(1, 7, MPI_COMM_WORLD, &flag, &m, &st);
    CHECK(!flag && m == MPI_MESSAGE_NULL, "Improbe before the send: flag %d", flag);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double v[3] = {1.5, 2.5, 3.5};
  if (rank == 1) MPI_Send(v, 3, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
  if (rank == 0) {
    double w[3] = {0, 0, 0};
    do MPI_Improbe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &m, &st); while (!flag);
    CHECK(flag && st.MPI_SOURCE == 1, "Improbe: flag %d source %d", flag, st.MPI_SOURCE);
    MPI_Imrecv(w, 3, MPI_DOUBLE, &m, &rq);
    CHECK(m == MPI_MESSAGE_NULL, "Imrecv left the message");
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == 3 && st.MPI_TAG == 7 && w[0] == 1.5 && w[2] == 3.5, "Imrecv: count %d tag %d %g %g", cnt, st.MPI_TAG, w[0], w[2]);
  }
  /* MPI_PROC_NULL */
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
  CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "Mprobe(PROC_NULL): %d %d", m, st.MPI_SOURCE);
  MPI_Mrecv(&a, 1, MPI_INT, &m, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0, "Mrecv(NO_PROC): %d %d", st.MPI_SOURCE, cnt);
  MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st);
  CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): %d", flag);
  MPI_Imrecv(&a, 1, MPI_INT, &m, &rq);
  MPI_Wait(&rq, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC): %d", st.MPI_SOURCE);
  /* a strided receive, and 1 MB (rendez-vous) */
  enum { N = 262144 };
  int *big = malloc(N * sizeof *big), *strided = calloc(8, sizeof *strided);
  if (rank == 1) {
    for (int i = 0; i < N; i++) big[i] = i;
    MPI_Send(big, 4, MPI_INT, 0, 8, MPI_COMM_WORLD);
    MPI_Send(big, N, MPI_INT, 0, 9, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Mprobe(1, 8, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(strided, 1, vec, &m, &st);
    CHECK(strided[0] == 0 && strided[2] == 1 && strided[4] == 2 && strided[6] == 3 && strided[1] == 0, "strided %d %d %d", strided[2], strided[4], strided[6]);
    MPI_Type_free(&vec);
    memset(big, 0, N * sizeof *big);
    MPI_Mprobe(1, 9, MPI_COMM_WORLD, &m, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "big count %d", cnt);
    MPI_Mrecv(big, N, MPI_INT, &m, &st);
    CHECK(big[N - 1] == N - 1 && big[1] == 1, "big data %d", big[N - 1]);
  }
  free(big);
  free(strided);
  /* ANY_SOURCE: every other rank's message is received exactly once */
  if (rank == 0) {
    int seen = 0;
    for (int i = 1; i < size; i++) {
      int x;
      MPI_Mprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &m, &st);
      MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
      CHECK(x == st.MPI_SOURCE * 3, "any-source: %d from %d", x, st.MPI_SOURCE);
      seen |= 1 << st.MPI_SOURCE;
    }
    CHECK(seen == (1 << size) - 2, "sources seen %x", seen);
  } else {
    int x = rank * 3;
    MPI_Send(&x, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
  }
  /* MPI_ERROR untouched by the calls that give one status */
  if (rank == 1) {
    int x = 9;
    for (int i = 0; i < 4; i++) MPI_Send(&x, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
  } else if (rank == 0) {
    int x;
    MPI_Status st2[2];
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Mprobe(1, 12, MPI_COMM_WORLD, &m, &st);
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "Mprobe set MPI_ERROR to %d", st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "Mrecv set MPI_ERROR to %d", st.MPI_ERROR);
    MPI_Recv(&x, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "Recv set MPI_ERROR to %d", st.MPI_ERROR);
    MPI_Irecv(&x, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "Wait set MPI_ERROR to %d", st.MPI_ERROR);
    MPI_Request r2[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Irecv(&x, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &r2[0]);
    st2[0].MPI_ERROR = st2[1].MPI_ERROR = MPI_ERR_DIMS;
    MPI_Waitall(2, r2, st2);
    CHECK(st2[0].MPI_ERROR == MPI_SUCCESS, "Waitall: MPI_ERROR %d", st2[0].MPI_ERROR);
    /* an empty status (a null or inactive request) is MPI_ANY_SOURCE, MPI_ANY_TAG and
     * MPI_SUCCESS (MPI 3.7.3; MPICH's pt2pt/rqstatus checks it), while MPI_PROC_NULL's status
     * leaves MPI_ERROR alone (MPICH's pt2pt/mprobe) */
    MPI_Request nul = MPI_REQUEST_NULL;
    int fl = 0;
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Request_get_status(MPI_REQUEST_NULL, &fl, &st);
    CHECK(fl && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS,
          "Request_get_status(MPI_REQUEST_NULL): %d %d %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Wait(&nul, &st);
    CHECK(st.MPI_ERROR == MPI_SUCCESS, "Wait(MPI_REQUEST_NULL): MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Test(&nul, &fl, &st);
    CHECK(fl && st.MPI_ERROR == MPI_SUCCESS, "Test(MPI_REQUEST_NULL): MPI_ERROR %d", st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_ERROR == MPI_ERR_DIMS, "Recv(MPI_PROC_NULL): %d %d",
          st.MPI_SOURCE, st.MPI_ERROR);
  }
  /* handle conversions, and counts past 2^31 */
  MPI_Fint f = MPI_Message_c2f(MPI_MESSAGE_NULL);
  CHECK(MPI_Message_f2c(f) == MPI_MESSAGE_NULL && PMPI_Message_f2c(PMPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC
        && MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "c2f/f2c");
  MPI_Count big_n = 0x7654321ff1234567LL, got_n = 0;
  MPI_Status_set_elements_x(&st, MPI_BYTE, big_n);
  MPI_Get_elements_x(&st, MPI_BYTE, &got_n);
  CHECK(got_n == big_n, "Get_elements_x %llx", (long long)got_n);
  MPI_Status_set_elements_x(&st, MPI_INT, 3);
  MPI_Get_elements_x(&st, MPI_SHORT, &got_n);
  CHECK(got_n == 6, "Get_elements_x of shorts %lld", (long long)got_n);
  return check_done();
}
