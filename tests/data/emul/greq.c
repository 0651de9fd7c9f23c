/* Generalized requests (tests/cli/run_greq.sh): a request is incomplete until the program
 * completes it; a wait then calls the query function (which fills the status: count, cancelled)
 * and the free function, once each; MPI_Request_free before completion defers free_fn to
 * MPI_Grequest_complete; MPI_Cancel calls cancel_fn with the completion state. argv[1] =
 * "hang": waiting for a request never completed is reported (exit 4), not a hang. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int nquery, nfree, ncancel, last_complete = -1;

static int query_fn(void *extra, MPI_Status *st) {
  nquery++;
  MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; nfree++; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; ncancel++; last_complete = complete; return MPI_SUCCESS; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 3, flag = 1, count = -1, c = -1;
  MPI_Request rq;
  MPI_Status st;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &n, &rq);
  if (argc > 1 && !strcmp(argv[1], "hang")) MPI_Wait(&rq, &st);
  double t0 = MPI_Wtime();
  MPI_Test(&rq, &flag, &st);
  printf("before complete: flag=%d query=%d free=%d\n", flag, nquery, nfree);
  MPI_Cancel(&rq);
  printf("cancel: calls=%d complete=%d\n", ncancel, last_complete);
  MPI_Grequest_complete(rq);
  MPI_Wait(&rq, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MPI_Test_cancelled(&st, &c);
  printf("after wait: null=%d count=%d cancelled=%d query=%d free=%d\n", rq == MPI_REQUEST_NULL, count, c, nquery, nfree);
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &n, &rq);
  MPI_Request orphan = rq;
  MPI_Request_free(&rq);
  printf("freed early: null=%d free=%d\n", rq == MPI_REQUEST_NULL, nfree);
  MPI_Grequest_complete(orphan);
  printf("then completed: query=%d free=%d\n", nquery, nfree);
  MPI_Request keep;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &n, &keep);
  MPI_Grequest_complete(keep);
  printf("completed: free=%d\n", nfree);
  MPI_Wait(&keep, MPI_STATUS_IGNORE);
  printf("waited, status ignored: query=%d free=%d time=%g\n", nquery, nfree, MPI_Wtime() - t0);
  MPI_Finalize();
  return 0;
}
