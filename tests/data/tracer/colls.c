/* tests/cli/tracer.sh: every collective TIT has, at np=2, with several element sizes and
 * MPI_IN_PLACE, plus the other point-to-point forms; libpsimtrace.so and psim run
 * --trace-tit must write the same actions for it. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int p = 1 - r;
  static double d[64], e[64];
  static int a[64], b[64];
  static char c[64], x[64];
  static short s[64], t[64];
  int cnt[2] = {3, 5}, dsp[2] = {0, 3}, cnt2[2] = {2, 7}, dsp2[2] = {0, 2};
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Barrier(dup);
  MPI_Gather(d, 4, MPI_DOUBLE, e, 4, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Gather(r == 0 ? MPI_IN_PLACE : (void *)a, 3, MPI_INT, b, 3, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gatherv(c, r ? 5 : 3, MPI_CHAR, x, cnt, dsp, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Allgather(s, 3, MPI_SHORT, t, 3, MPI_SHORT, MPI_COMM_WORLD);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, 2, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgatherv(a, r ? 5 : 3, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  MPI_Scatter(d, 3, MPI_DOUBLE, e, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Scatterv(c, cnt2, dsp2, MPI_CHAR, x, r ? 7 : 2, MPI_CHAR, 1, MPI_COMM_WORLD);
  MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD);
  /* rank i sends m[i][j] to rank j: m = {{1, 3}, {5, 2}} */
  int sc[2] = {r ? 5 : 1, r ? 2 : 3}, rc[2] = {r ? 3 : 1, r ? 2 : 5}, sd[2] = {0, 8}, rd[2] = {0, 8};
  MPI_Alltoallv(d, sc, sd, MPI_DOUBLE, e, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Reduce(d, e, 6, MPI_DOUBLE, MPI_MAX, 1, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, a, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter(d, e, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(d, e, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(c, 5, MPI_CHAR, 0, dup);
  MPI_Comm_free(&dup);
  /* point-to-point: synchronous sends, MPI_PROC_NULL, replace, waitany, testsome */
  if (r == 0) {
    MPI_Ssend(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(b, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 64, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(a, 9, MPI_INT, 0, 2, MPI_COMM_WORLD);
  }
  MPI_Send(a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Sendrecv_replace(s, 5, MPI_SHORT, p, 3, p, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* the order of completions is the program's, whatever the timing: so are the waits */
  MPI_Request q[3], z[2];
  int idx, n, ids[3];
  MPI_Irecv(x, 8, MPI_CHAR, p, 4, MPI_COMM_WORLD, &q[0]);
  MPI_Issend(c, 8, MPI_CHAR, p, 4, MPI_COMM_WORLD, &q[1]);
  z[0] = MPI_REQUEST_NULL;
  z[1] = q[1];
  MPI_Waitany(2, z, &idx, MPI_STATUS_IGNORE);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Irecv(e, 2, MPI_DOUBLE, p, 5, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(d, 2, MPI_DOUBLE, p, 5, MPI_COMM_WORLD, &q[1]);
  MPI_Irecv(b, 1, MPI_INT, p, 6, MPI_COMM_WORLD, &q[2]);
  MPI_Send(a, 1, MPI_INT, p, 6, MPI_COMM_WORLD);
  for (int k = 0; k < 3; k++) MPI_Waitsome(1, &q[k], &n, ids, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
