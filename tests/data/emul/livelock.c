/* A rank that polls without end while every other rank waits for it: a livelock, which psim
 * run reports as it reports a deadlock instead of running for ever. Rank 0 polls with MPI_Test
 * for a message from rank 1, which rank 1 sends only after receiving rank 0's (tag 5): nobody
 * moves. Modes (argv[1]), each a different way of passing time between polls:
 *   sleep    usleep(1000)
 *   backoff  usleep growing from 1 us by half each time up to 1 s (OpenCoarrays' event wait)
 *   work     psim_compute(1e6) (1 ms on a 1 Gf host)
 *   nanosleep 2 ms
 * and three that must end well, rank 0 sending after all:
 *   timeout  usleep(1000), gives up after 20000 polls (20 s) and sends
 *   flight   rank 1 sends the message at once, 1 MB, which takes 10 s on a 100 kB/s platform
 *            while rank 0 polls for it with usleep(100) (100,000 polls, a message in flight)
 *   compute  rank 1 first polls twice for a message of rank 0's, then computes 200 s
 *            (declared) before it sends; rank 0 polls with usleep(100): 2,000,000 polls
 *   busy     both ranks, 3000 times: a failed MPI_Iprobe, 0.1 ms (rank 1: 0.15) of work, an
 *            MPI_Win_shared_query (an MPI call that is neither a poll nor a message); run with
 *            a small run/spin-limit (polls and computations alone would look like a livelock)
 * Rank 0 prints how it ended. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  static int x[250000];
  int rank, y = 0, flag = 0;
  long polls = 0;
  const char *mode = argc > 1 ? argv[1] : "sleep";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!strcmp(mode, "busy")) {
    MPI_Win w;
    int *base, du;
    MPI_Aint sz;
    MPI_Comm host;   /* each rank alone on its host */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, host, &base, &w);
    for (int i = 0; i < 3000; i++) {
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      psim_compute(rank ? 1.5e5 : 1e5);   /* not in step: rank 1 0.15 ms */
      MPI_Win_shared_query(w, 0, &sz, &du, &base);   /* local: no message, no poll */
    }
    MPI_Win_free(&w);
    MPI_Comm_free(&host);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("rank 0 done at %.3f\n", MPI_Wtime());
  } else if (rank == 1) {
    if (!strcmp(mode, "flight")) {   /* 1 MB: 10 s at 100 kB/s */
      static int buf[250000];
      MPI_Send(buf, 250000, MPI_INT, 0, 7, MPI_COMM_WORLD);
      MPI_Finalize();
      return 0;
    }
    if (!strcmp(mode, "compute")) {
      MPI_Request r;
      int f = 0;
      MPI_Irecv(&y, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r);
      MPI_Test(&r, &f, MPI_STATUS_IGNORE);
      MPI_Test(&r, &f, MPI_STATUS_IGNORE);
      psim_compute(2e11);
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      x[0] = 42;
      MPI_Send(x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else {
      MPI_Recv(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      x[0] = 42;
      MPI_Send(x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
  } else if (rank == 0) {
    MPI_Request rq;
    useconds_t us = 1;
    int sent = 0;
    MPI_Irecv(x, 250000, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq);
    while (!flag) {
      MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
      if (flag) break;
      polls++;
      if (!strcmp(mode, "backoff")) { usleep(us); if (us < 1000000) us += us / 2 + 1; }
      else if (!strcmp(mode, "work")) psim_compute(1e6);
      else if (!strcmp(mode, "nanosleep")) { struct timespec ts = {0, 2000000}; nanosleep(&ts, NULL); }
      else if (!strcmp(mode, "flight") || !strcmp(mode, "compute")) usleep(100);
      else usleep(1000);
      if (!strcmp(mode, "timeout") && polls == 20000 && !sent) {
        MPI_Send(&y, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        sent = 1;
      }
    }
    printf("rank 0 got %d after %ld polls at %.3f\n", x[0], polls, MPI_Wtime());
  }
  MPI_Finalize();
  return 0;
}
