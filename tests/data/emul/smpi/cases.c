/* One MPI operation per case (argv[1]) under SMPI (smpicc) and psim run (psimcc), for
 * tests/cli/diff_smpi_run.sh: blocking and non-blocking point to point, late receivers,
 * synchronous sends small and large, each collective alone, waitany, waitsome, a test loop,
 * probe, persistent requests, a vector type, bsend, sendrecv_replace; MPI_Wtime at the end. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "work.h"
int main(int argc, char **argv) {
  int r, n;
  static double buf[4096];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *c = argv[1];
  if (!strcmp(c, "recv")) { if (r == 0) MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); else if (r == 1) { WORK(1e8); MPI_Recv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);} }
  if (!strcmp(c, "recv0")) { if (r == 0) MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); else if (r == 1) { MPI_Recv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);} }
  if (!strcmp(c, "irecv")) { if (r == 0) { MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); MPI_Send(buf, 10, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);} else if (r == 1) { MPI_Request q[2]; MPI_Irecv(buf, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &q[0]); MPI_Irecv(buf+200, 10, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &q[1]); WORK(1e8); MPI_Waitall(2, q, MPI_STATUSES_IGNORE);} }
  if (!strcmp(c, "allreduce")) MPI_Allreduce(MPI_IN_PLACE, buf, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "bcast")) MPI_Bcast(buf, 100, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
  static double b2[8192];
  if (!strcmp(c, "gather")) MPI_Gather(buf, 100, MPI_DOUBLE, b2, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  if (!strcmp(c, "scatter")) MPI_Scatter(b2, 100, MPI_DOUBLE, buf, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  if (!strcmp(c, "alltoall")) MPI_Alltoall(b2, 100, MPI_DOUBLE, b2 + 4000, 100, MPI_DOUBLE, MPI_COMM_WORLD);
  if (!strcmp(c, "allgather")) MPI_Allgather(buf, 64, MPI_DOUBLE, b2, 64, MPI_DOUBLE, MPI_COMM_WORLD);
  if (!strcmp(c, "scan")) MPI_Scan(buf, b2, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "redscat")) MPI_Reduce_scatter_block(b2, buf, 32, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "sendrecv")) MPI_Sendrecv(buf, 300, MPI_DOUBLE, (r + 1) % n, 5, b2, 300, MPI_DOUBLE, (r + n - 1) % n, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!strcmp(c, "reduce")) MPI_Reduce(buf, b2, 1000, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "ssend")) { if (r % 2 == 0 && r + 1 < n) MPI_Ssend(buf, 10, MPI_DOUBLE, r + 1, 6, MPI_COMM_WORLD); if (r % 2 == 1) MPI_Recv(buf, 10, MPI_DOUBLE, r - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  if (!strcmp(c, "ssendlate")) { if (r == 0) MPI_Ssend(buf, 10, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); if (r == 1) { WORK(1e7); MPI_Recv(buf, 10, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } }
  if (!strcmp(c, "sendlate")) { if (r == 0) MPI_Send(buf, 10, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); if (r == 1) { WORK(1e7); MPI_Recv(buf, 10, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } }
  static double big[100000];
  if (!strcmp(c, "bigssend")) { if (r == 0) MPI_Ssend(big, 100000, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD); if (r == 1) MPI_Recv(big, 100000, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  static double a[20000], b[20000];
  if (!strcmp(c, "waitany")) {
    if (r == 0) { MPI_Request q[3]; for (int i = 0; i < 3; i++) MPI_Irecv(a + 1000 * i, 1000, MPI_DOUBLE, i + 1, 0, MPI_COMM_WORLD, &q[i]);
      for (int i = 0; i < 3; i++) { int idx; MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE); WORK(1e6 * (idx + 1)); } }
    else if (r <= 3) { WORK(3e6 * (4 - r)); MPI_Send(b, 1000, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD); } }
  if (!strcmp(c, "testloop")) {
    if (r == 0) { MPI_Request q; int f = 0; MPI_Irecv(a, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &q); while (!f) { WORK(1e5); MPI_Test(&q, &f, MPI_STATUS_IGNORE); } }
    else if (r == 1) { WORK(5e6); MPI_Send(b, 100, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD); } }
  if (!strcmp(c, "probe")) {
    if (r == 0) { MPI_Status st; int cnt; for (int i = 1; i < n; i++) { MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st); MPI_Get_count(&st, MPI_DOUBLE, &cnt); MPI_Recv(a, cnt, MPI_DOUBLE, st.MPI_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } }
    else { WORK(1e6 * r); MPI_Send(b, 500 * r, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD); } }
  if (!strcmp(c, "persistent")) {
    MPI_Request q[2];
    MPI_Send_init(b, 2000, MPI_DOUBLE, (r + 1) % n, 4, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init(a, 2000, MPI_DOUBLE, (r + n - 1) % n, 4, MPI_COMM_WORLD, &q[1]);
    for (int it = 0; it < 3; it++) { WORK(1e6 * ((r + it) % 3)); MPI_Startall(2, q); MPI_Waitall(2, q, MPI_STATUSES_IGNORE); }
    MPI_Request_free(&q[0]); MPI_Request_free(&q[1]); }
  if (!strcmp(c, "vector")) {
    MPI_Datatype v; MPI_Type_vector(100, 5, 10, MPI_DOUBLE, &v); MPI_Type_commit(&v);
    if (r == 0) MPI_Send(a, 1, v, 1, 8, MPI_COMM_WORLD); else if (r == 1) MPI_Recv(b, 1, v, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&v); }
  if (!strcmp(c, "bsend")) {
    static char pool[100000]; MPI_Buffer_attach(pool, sizeof pool);
    if (r == 0) { MPI_Bsend(b, 5000, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD); WORK(1e6); }
    else if (r == 1) { WORK(2e7); MPI_Recv(a, 5000, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
    void *p; int sz; MPI_Buffer_detach(&p, &sz); }
  if (!strcmp(c, "sendrecvrepl")) {
    MPI_Sendrecv_replace(a, 700, MPI_DOUBLE, (r + 1) % n, 2, (r + n - 1) % n, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  if (!strcmp(c, "waitsome")) {
    if (r == 0) { MPI_Request q[3]; int done = 0, idx[3], out; for (int i = 0; i < 3; i++) MPI_Irecv(a + 1000 * i, 1000, MPI_DOUBLE, i + 1, 0, MPI_COMM_WORLD, &q[i]);
      while (done < 3) { MPI_Waitsome(3, q, &out, idx, MPI_STATUSES_IGNORE); done += out; WORK(1e6); } }
    else if (r <= 3) { WORK(2e6 * r); MPI_Send(b, 1000, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD); } }
  printf("rank %d wtime %.9f\n", r, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
