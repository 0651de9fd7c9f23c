/* MPI_Alltoallw and non-blocking collectives under psim run (tests/cli/run_nbc.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, np, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  /* alltoallw: rank r sends 2 ints (1000r+j, -(1000r+j)) to rank j, as MPI_INT; the
   * receiver takes them as a vector of stride 2 at byte displacement 64*i */
  int *sbuf = malloc(sizeof(int) * 2 * (size_t)np), *rbuf = calloc((size_t)np * 16, sizeof(int));
  int *sc = malloc(sizeof(int) * np), *sd = malloc(sizeof(int) * np), *rc = malloc(sizeof(int) * np), *rd = malloc(sizeof(int) * np);
  MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * np), *rt = malloc(sizeof(MPI_Datatype) * np), pair;
  MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  for (int j = 0; j < np; j++) {
    sc[j] = 2;
    sd[j] = (int)sizeof(int) * 2 * j;
    st[j] = MPI_INT;
    sbuf[2 * j] = 1000 * rank + j;
    sbuf[2 * j + 1] = -(1000 * rank + j);
    rc[j] = 1;
    rd[j] = 64 * j;
    rt[j] = pair;
  }
  MPI_Request req;
  MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int i = 0; i < np; i++) {
    int *p = rbuf + 16 * i;
    if (p[0] != 1000 * i + rank || p[1] != 0 || p[2] != -(1000 * i + rank)) { errs++; printf("alltoallw from %d: %d %d %d\n", i, p[0], p[1], p[2]); }
  }
  /* a few non-blocking collectives started together, completed by one Waitall */
  int sum = -1, mx = -1, all[64];
  MPI_Request rq[4];
  int one = rank + 1;
  MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
  MPI_Ireduce(&rank, &mx, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &rq[1]);
  MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]);
  MPI_Ibarrier(MPI_COMM_WORLD, &rq[3]);
  MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
  if (sum != np * (np + 1) / 2) { errs++; printf("iallreduce %d\n", sum); }
  if (rank == 0 && mx != np - 1) { errs++; printf("ireduce %d\n", mx); }
  for (int i = 0; i < np; i++) if (all[i] != i) { errs++; printf("iallgather[%d] %d\n", i, all[i]); }
  int flag = 0, b = rank == 0 ? 77 : 0;
  MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  if (!flag || b != 77 || req != MPI_REQUEST_NULL) { errs++; printf("ibcast test %d %d\n", flag, b); }
  MPI_Type_free(&pair);
  free(sbuf); free(rbuf); free(sc); free(sd); free(rc); free(rd); free(st); free(rt);
  int tot;
  MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && tot == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}
