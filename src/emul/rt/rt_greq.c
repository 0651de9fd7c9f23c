/* Generalized requests (MPI_Grequest_*) and the status setters their query functions use.
 *
 * A generalized request is an operation the program carries out itself and reports to MPI:
 * it is active from MPI_Grequest_start until the program calls MPI_Grequest_complete; a
 * wait or test then calls the program's query function (which fills the status) and its free
 * function. It costs no simulated time. psim runs each rank as one thread, so only the rank
 * itself can complete its request: waiting for one it has not completed is reported as the
 * deadlock it is (rt_p2p.c, req_waitable) instead of hanging. */
#include <string.h>

#include "emul/rt/rt.h"

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request) {
  rt_need_init();
  MPI_Request h = rt_req_completed();
  rt_req *r = rt_req_at(h);
  r->kind = RQ_GREQ;
  r->active = 1;
  r->gquery = query_fn;
  r->gfree = free_fn;
  r->gcancel = cancel_fn;
  r->gextra = extra_state;
  *request = h;
  return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request) {
  rt_req *r = rt_req_at(request);
  if (r->kind != RQ_GREQ) emu_fatal("MPI_Grequest_complete of a request that is not generalized (MPI_ERR_REQUEST)");
  if (r->gdone) emu_fatal("MPI_Grequest_complete called twice on one request (MPI_ERR_REQUEST)");
  r->gdone = 1;
  if (r->gorphan) {   /* MPI_Request_free came first: only its free function is left to run */
    rt_greq_finish(r, NULL);
    rt_req_release(request);
  }
  return MPI_SUCCESS;
}

/* MPI: the query function fills the status (also when the program ignores it), then the free
 * function runs; an error either returns is the request's error. */
void rt_greq_finish(rt_req *r, MPI_Status *st) {
  MPI_Status tmp;
  MPI_Status *s = st ? st : &tmp;
  memset(s, 0, sizeof *s);
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  int err = MPI_SUCCESS;
  if (r->gquery && !r->gorphan) err = r->gquery(r->gextra, s);
  if (r->gfree) {
    int e2 = r->gfree(r->gextra);
    if (err == MPI_SUCCESS) err = e2;
  }
  if (err != MPI_SUCCESS) emu_fatal("a generalized request's query or free function returned error %d", err);
  r->gquery = NULL;
  r->gfree = NULL;
  r->active = 0;
}

/* MPI_Cancel: the program's cancel function decides (complete says whether it already is). */
void rt_greq_cancel(rt_req *r) {
  if (r->gcancel) {
    int err = r->gcancel(r->gextra, r->gdone);
    if (err != MPI_SUCCESS) emu_fatal("a generalized request's cancel function returned error %d", err);
  }
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag) {
  status->psim_cancelled = flag != 0;
  return MPI_SUCCESS;
}

/* The status then reports count elements of dt: MPI_Get_count and MPI_Get_elements read the
 * received size from it. */
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype dt, int count) {
  return MPI_Status_set_elements_x(status, dt, count);
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype dt, MPI_Count count) {
  if (count < 0) emu_fatal("negative count %lld (MPI_ERR_COUNT)", count);
  status->psim_bytes = (long long)rt_type(dt)->size * count;
  return MPI_SUCCESS;
}
