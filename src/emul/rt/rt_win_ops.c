/* One-sided communication: the operations (Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap) and their request-based forms (Rput, Rget, Raccumulate, Rget_accumulate).
 * Windows, epochs and the transfers that time each operation are rt_win.c's (its header says
 * when data moves and what each operation costs). */
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt_win_internal.h"

/* MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate: the operation of their blocking
 * counterpart, plus a request that completes when the operation is locally complete. psim
 * takes local completion as arrival, as its MPI_Win_flush_local does (the origin buffer was
 * copied at the call anyway): a Put's or an Accumulate's request completes when its data has
 * reached the target, t(S); a Get's when the reply is back, t(0) + t(S). The operation still
 * counts in the epoch: flush and unlock wait for it too. On the caller's own window, or with
 * MPI_PROC_NULL, the request is complete at once. MPI allows them only in a passive-target
 * epoch (MPI_Win_lock or MPI_Win_lock_all), not with fence or PSCW. */
static emu_req *rma_request(rt_win *win, int me, int t, const char *call, MPI_Request *request) {
  if (!request) return NULL;
  if (t != MPI_PROC_NULL && !win->lock_all[me] && win->held[me * win->n + t] == HELD_NONE)
    emu_fatal("%s: rank %d to rank %d outside a passive-target epoch (request-based operations need MPI_Win_lock or MPI_Win_lock_all; MPI_ERR_RMA_SYNC)",
              call, me, t);
  MPI_Request h = rt_req_completed();
  rt_req *r = rt_req_at(h);
  r->kind = RQ_RMA;
  r->active = 1;
  r->er = emu_req_new();
  if (t == MPI_PROC_NULL) r->er->done = 1;
  *request = h;
  return r->er;
}

static int put(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
               MPI_Datatype tdt, MPI_Win h, const char *call, MPI_Request *request) {
  int me;
  rt_win *win = rtw_op_begin(call, h, t, ocount, odt, tcount, tdt, &me);
  emu_req *req = rma_request(win, me, t, call, request);
  if (t != MPI_PROC_NULL) {
    char *dst = rtw_target_addr(win, t, tdisp, tcount, tdt, call);
    size_t len;
    void *p = rt_pack_alloc(oaddr, ocount, odt, &len);
    rt_unpack(p, len, dst, tcount, tdt);
    free(p);
    rtw_data_op(win, me, t, (double)len, -1, req);
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Put(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
            MPI_Datatype tdt, MPI_Win h) {
  return put(oaddr, ocount, odt, t, tdisp, tcount, tdt, h, "MPI_Put", NULL);
}

int MPI_Rput(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
             MPI_Datatype tdt, MPI_Win h, MPI_Request *request) {
  return put(oaddr, ocount, odt, t, tdisp, tcount, tdt, h, "MPI_Rput", request);
}

static int get(void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
               MPI_Datatype tdt, MPI_Win h, const char *call, MPI_Request *request) {
  int me;
  rt_win *win = rtw_op_begin(call, h, t, ocount, odt, tcount, tdt, &me);
  emu_req *req = rma_request(win, me, t, call, request);
  if (t != MPI_PROC_NULL) {
    const char *src = rtw_target_addr(win, t, tdisp, tcount, tdt, call);
    size_t len;
    void *p = rt_pack_alloc(src, tcount, tdt, &len);
    rt_unpack(p, len, oaddr, ocount, odt);
    free(p);
    rtw_data_op(win, me, t, 0, (double)len, req);
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Get(void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
            MPI_Datatype tdt, MPI_Win h) {
  return get(oaddr, ocount, odt, t, tdisp, tcount, tdt, h, "MPI_Get", NULL);
}

int MPI_Rget(void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
             MPI_Datatype tdt, MPI_Win h, MPI_Request *request) {
  return get(oaddr, ocount, odt, t, tdisp, tcount, tdt, h, "MPI_Rget", request);
}

/* target (count x dt at addr) = origin op target, on packed copies; result (when not NULL)
 * receives the target's previous contents, packed. A predefined operation combines elements
 * of one predefined type: MPI (4.0, 12.3.4) requires the datatypes' basic elements to be all
 * of one type (a struct of ints with gaps is fine, an int and a double are not; MPI_REPLACE
 * and MPI_NO_OP only move bytes and are let through). */
static void accumulate(const void *oaddr, int ocount, MPI_Datatype odt, char *taddr, int tcount,
                       MPI_Datatype tdt, MPI_Op op, void **old, size_t *oldlen, const char *call) {
  const rt_dtype *tt = rt_type(tdt);
  if (op != MPI_REPLACE && op != MPI_NO_OP && op < PSIM_NUM_PREDEFINED_OPS && tcount > 0 &&
      tt->size > 0 && tt->base <= 0)
    emu_fatal("%s: world rank %d: a predefined operation on a target datatype whose basic elements are of several types (MPI allows one predefined type; MPI_ERR_TYPE)",
              call, rt_world_rank());
  size_t la, lb;
  void *b = rt_pack_alloc(taddr, tcount, tdt, &lb);
  if (old) { *old = xmalloc(lb ? lb : 1); memcpy(*old, b, lb); *oldlen = lb; }
  if (op != MPI_NO_OP) {
    void *a = rt_pack_alloc(oaddr, ocount, odt, &la);
    if (op >= PSIM_NUM_PREDEFINED_OPS) emu_fatal("one-sided accumulate with a user operation (MPI_ERR_OP)");
    rt_reduce(op, tdt, a, b, tcount);
    rt_unpack(b, lb, taddr, tcount, tdt);
    free(a);
  }
  free(b);
}

static int acc(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp, int tcount,
               MPI_Datatype tdt, MPI_Op op, MPI_Win h, const char *call, MPI_Request *request) {
  int me;
  rt_win *win = rtw_op_begin(call, h, t, ocount, odt, tcount, tdt, &me);
  emu_req *req = rma_request(win, me, t, call, request);
  if (t != MPI_PROC_NULL) {
    char *dst = rtw_target_addr(win, t, tdisp, tcount, tdt, call);
    accumulate(oaddr, ocount, odt, dst, tcount, tdt, op, NULL, NULL, call);
    rtw_data_op(win, me, t, (double)rt_pack_size(odt, ocount), -1, req);
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp,
                   int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win h) {
  return acc(oaddr, ocount, odt, t, tdisp, tcount, tdt, op, h, "MPI_Accumulate", NULL);
}

int MPI_Raccumulate(const void *oaddr, int ocount, MPI_Datatype odt, int t, MPI_Aint tdisp,
                    int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win h, MPI_Request *request) {
  return acc(oaddr, ocount, odt, t, tdisp, tcount, tdt, op, h, "MPI_Raccumulate", request);
}

static int get_acc(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr, int rcount,
                   MPI_Datatype rdt, int t, MPI_Aint tdisp, int tcount, MPI_Datatype tdt,
                   MPI_Op op, MPI_Win h, const char *call, MPI_Request *request) {
  int me;
  rt_win *win = rtw_op_begin(call, h, t, op == MPI_NO_OP ? tcount : ocount,
                         op == MPI_NO_OP ? tdt : odt, tcount, tdt, &me);
  emu_req *req = rma_request(win, me, t, call, request);
  if (t != MPI_PROC_NULL) {
    char *dst = rtw_target_addr(win, t, tdisp, tcount, tdt, call);
    void *old;
    size_t len;
    accumulate(oaddr, ocount, odt, dst, tcount, tdt, op, &old, &len, call);
    rt_unpack(old, len, raddr, rcount, rdt);
    free(old);
    rtw_data_op(win, me, t, op == MPI_NO_OP ? 0 : (double)rt_pack_size(odt, ocount), (double)len, req);
  }
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr, int rcount,
                       MPI_Datatype rdt, int t, MPI_Aint tdisp, int tcount, MPI_Datatype tdt,
                       MPI_Op op, MPI_Win h) {
  return get_acc(oaddr, ocount, odt, raddr, rcount, rdt, t, tdisp, tcount, tdt, op, h,
                 "MPI_Get_accumulate", NULL);
}

int MPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr, int rcount,
                        MPI_Datatype rdt, int t, MPI_Aint tdisp, int tcount, MPI_Datatype tdt,
                        MPI_Op op, MPI_Win h, MPI_Request *request) {
  return get_acc(oaddr, ocount, odt, raddr, rcount, rdt, t, tdisp, tcount, tdt, op, h,
                 "MPI_Rget_accumulate", request);
}

int MPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int t, MPI_Aint tdisp,
                     MPI_Op op, MPI_Win h) {
  return get_acc(oaddr, 1, dt, raddr, 1, dt, t, tdisp, 1, dt, op, h, "MPI_Fetch_and_op", NULL);
}

int MPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
                         int t, MPI_Aint tdisp, MPI_Win h) {
  int me;
  rt_win *win = rtw_op_begin("MPI_Compare_and_swap", h, t, 1, dt, 1, dt, &me);
  if (t != MPI_PROC_NULL) {
    size_t sz = rt_type(dt)->size;
    char *dst = rtw_target_addr(win, t, tdisp, 1, dt, "MPI_Compare_and_swap");
    memcpy(raddr, dst, sz);
    if (!memcmp(dst, caddr, sz)) memcpy(dst, oaddr, sz);
    rtw_data_op(win, me, t, 2.0 * (double)sz, (double)sz, NULL);
  }
  emu_leave();
  return MPI_SUCCESS;
}
