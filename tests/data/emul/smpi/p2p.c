/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc; work.h), for
 * tests/cli/diff_smpi_run.sh: point to point at the sizes where SMPI's model changes (the
 * factors' breakpoints, the detached and eager thresholds, 0 and 1 byte, 1 MB) with send, isend,
 * ssend, rsend, ibsend and sendrecv; an MPI_Iprobe loop with MPI_ANY_SOURCE and MPI_ANY_TAG;
 * MPI_Waitany over mixed sends and receives; a cancelled receive; MPI_Request_get_status on
 * receives and a send, before and after the message arrived (as MPICH's pt2pt/rqstatus).
 * argv[1], when given, keeps one part: sizes, iprobe, waitany, cancel, getstatus.
 * Computation is declared (psim_compute / smpi_execute_flops), so both simulate the same work;
 * each rank prints MPI_Wtime once, at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "work.h"
static const char *only;
static int on(const char *what) { return !only || !strcmp(only, what); }
int main(int argc, char **argv) {
  int r, n;
  MPI_Init(&argc, &argv);
  only = argc > 1 ? argv[1] : NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  static const int sizes[] = {0, 1, 256, 257, 731, 732, 1425, 1426, 5775, 5776, 65471, 65472,
                              65535, 65536, 65537, 200000, 1000000};
  const int ns = (int)(sizeof sizes / sizeof *sizes);
  char *a = calloc(1000000 + 64, 1), *b = calloc(1000000 + 64, 1);
  int peer = r ^ 1;          /* pairs 0-1, 2-3, ...; an odd last rank sits out */
  int paired = peer < n;
  if (on("sizes") && paired) {
    for (int i = 0; i < ns; i++) {
      int s = sizes[i];
      MPI_Request q;
      if (r % 2 == 0) {
        MPI_Send(a, s, MPI_BYTE, peer, i, MPI_COMM_WORLD);
        MPI_Recv(b, s, MPI_BYTE, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Isend(a, s, MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD, &q);
        WORK(1e5);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Ssend(a, s, MPI_BYTE, peer, 200 + i, MPI_COMM_WORLD);
        MPI_Recv(b, 1, MPI_BYTE, peer, 300 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* receive posted */
        MPI_Rsend(a, s, MPI_BYTE, peer, 400 + i, MPI_COMM_WORLD);
      } else {
        MPI_Recv(b, s, MPI_BYTE, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, s, MPI_BYTE, peer, i, MPI_COMM_WORLD);
        WORK(2e5);
        MPI_Recv(b, s, MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, s, MPI_BYTE, peer, 200 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(b, s, MPI_BYTE, peer, 400 + i, MPI_COMM_WORLD, &q);
        MPI_Send(a, 1, MPI_BYTE, peer, 300 + i, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
      MPI_Sendrecv(a, s, MPI_BYTE, peer, 500 + i, b, s, MPI_BYTE, peer, 500 + i, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    /* buffered sends of growing size */
    int pool = 3 * (1000000 + MPI_BSEND_OVERHEAD);
    void *buf = malloc((size_t)pool);
    MPI_Buffer_attach(buf, pool);
    for (int i = 0; i < ns; i += 4) {
      MPI_Request q;
      if (r % 2 == 0) { MPI_Ibsend(a, sizes[i], MPI_BYTE, peer, 600 + i, MPI_COMM_WORLD, &q); MPI_Wait(&q, MPI_STATUS_IGNORE); }
      else { WORK(3e5); MPI_Recv(b, sizes[i], MPI_BYTE, peer, 600 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
    }
    void *p; int sz;
    MPI_Buffer_detach(&p, &sz);
    free(buf);
  }
  if (on("iprobe")) {
    /* every other rank sends rank 0 two messages, tags and sizes by rank; rank 0 probes for
     * anything and receives what it found */
    if (r == 0) {
      for (int got = 0; got < 2 * (n - 1);) {
        int flag; MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) { WORK(2e4); continue; }
        int cnt; MPI_Get_count(&st, MPI_BYTE, &cnt);
        MPI_Recv(b, cnt, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        got++;
      }
    } else {
      WORK(4e5 * (r % 4));
      MPI_Send(a, 3000 * r, MPI_BYTE, 0, 10 + r, MPI_COMM_WORLD);
      WORK(1e5);
      MPI_Send(a, 70000 + 10 * r, MPI_BYTE, 0, 50 + r, MPI_COMM_WORLD);
    }
  }
  if (on("waitany") && paired) {
    MPI_Request q[4];
    MPI_Irecv(b, 8000, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(b + 8000, 90000, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q[1]);
    WORK(1e5 * (1 + r % 2));
    MPI_Isend(a, 8000, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(a, 90000, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q[3]);
    for (int k = 0; k < 4; k++) {
      int idx;
      MPI_Waitany(4, q, &idx, MPI_STATUS_IGNORE);
      WORK(5e4 * (idx + 1));
    }
  }
  if (on("getstatus") && paired) {
    /* SMPI's get_status probes for a message of the request's source and tag (Request::iprobe,
     * with its injected time) and answers flag 1 whatever it saw; the program does not look */
    MPI_Request q[2];
    int flag;
    if (r % 2 == 0) {
      WORK(1e5);
      MPI_Send(a, 8, MPI_BYTE, peer, 700, MPI_COMM_WORLD);
      MPI_Isend(a, 8, MPI_BYTE, peer, 701, MPI_COMM_WORLD, &q[0]);
      MPI_Request_get_status(q[0], &flag, MPI_STATUS_IGNORE);
      MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(b, 8, MPI_BYTE, peer, 700, MPI_COMM_WORLD, &q[0]);
      MPI_Irecv(b + 8, 8, MPI_BYTE, peer, 701, MPI_COMM_WORLD, &q[1]);
      MPI_Request_get_status(q[1], &flag, MPI_STATUS_IGNORE);   /* nothing arrived yet */
      WORK(3e5);
      MPI_Request_get_status(q[0], &flag, MPI_STATUS_IGNORE);   /* arrived */
      WORK(1e5);
      MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
  }
  if (on("cancel")) {
    MPI_Request q;
    MPI_Irecv(b, 10, MPI_BYTE, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &q);
    MPI_Cancel(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  free(a); free(b);
  MPI_Finalize();
  return 0;
}
