/* The MPI-ABI functions that scripts/gen_mpich_abi.py does not write (both libraries): arrays of
 * requests, statuses, datatypes or ranks (translated element by element), the predefined
 * attributes whose value is a rank, an error code or a constant (MPI_HOST, MPI_IO,
 * MPI_LASTUSEDCODE, MPI_WIN_MODEL), user reduction functions (a trampoline gives them the
 * program's MPI's datatype handle), generalized requests and error handlers (C's or Fortran's
 * callbacks), calls psim's mpi.h does not declare but that are pure conversions
 * (MPI_Type_match_size, MPI_Pcontrol, MPI_Status_c2f...; the handles' c2f/f2c: abi_c2f.c and
 * abi_xlate_ompi.c), and binding to psim (psim_abi_init). exit()/_exit() (abi_exit.c),
 * sleep()/usleep()/nanosleep() (abi_sleep.c), the clocks (abi_time.c), getopt (abi_getopt.c)
 * and the random numbers (abi_rand.c) are the program's calls of the C library that go to psim,
 * as psimcc's --wrap makes them. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emul/abi/abi_ptrs.h"

static void (*p_unsupported)(const char *name);
static int *(*p_topo_weights)(int empty);

int (*abi_psim_copy_index)(void);

static const abi_bind extra_binds[] = {
  {"psim_abi_unsupported", &p_unsupported},
  {"psim_abi_copy_index", &abi_psim_copy_index},
  {"psim_topo_weights", &p_topo_weights},
  {"psim_abi_exit", &abi_psim_exit},
  {"psim_abi_atexit", &abi_psim_atexit},
  {"__wrap_sleep", &abi_psim_sleep},
  {"__wrap_usleep", &abi_psim_usleep},
  {"__wrap_nanosleep", &abi_psim_nanosleep},
  {"psim_abi_getopt", &abi_psim_getopt},
  {"__wrap_gettimeofday", &abi_psim_gettimeofday},
  {"__wrap_clock_gettime", &abi_psim_clock_gettime},
  {"__wrap_clock", &abi_psim_clock},
  {"__wrap_getrusage", &abi_psim_getrusage},
  {"__wrap_signal", &abi_psim_signal},
  {"__wrap_sigaction", &abi_psim_sigaction},
  {NULL, NULL}};

/* Called by psim run (emu_abi.c) with dlopen(NULL): the psim binary, whose dynamic symbols are
 * psim's MPI functions. Returns how many of psim's functions were found. */
int psim_abi_init(void *psim);
int psim_abi_init(void *psim) {
  int found = 0;
  for (const abi_bind *t = abi_binds; t->name; t++) {
    void *f = dlsym(psim, t->name);
    memcpy(t->slot, &f, sizeof f);
    found += f != NULL;
  }
  for (const abi_bind *t = extra_binds; t->name; t++) {
    void *f = dlsym(psim, t->name);
    memcpy(t->slot, &f, sizeof f);
  }
  for (int i = 0; i < ABI_NRAND; i++) abi_psim_rand[i] = dlsym(psim, abi_rand_names[i]);
  return found;
}

void abi_missing(const char *name) {
  if (p_unsupported) p_unsupported(name);
  fprintf(stderr, "psim: %s: this is psim's MPI-ABI library (for MPICH or Open MPI programs): run the program "
                  "with psim run --np N -- PROGRAM\n", name);
  _exit(4);
}

/* psim's MPI_UNWEIGHTED (empty 0) and MPI_WEIGHTS_EMPTY (1), for abi_weights_in (abi_fortran.c) */
int *abi_psim_weights(int empty) { return p_topo_weights ? p_topo_weights(empty) : NULL; }

#define NEED(f) do { if (!p_##f) abi_missing(#f); } while (0)

static void *tmp_alloc(int n, size_t size) { return calloc(n > 0 ? (size_t)n : 1, size); }

static int *reqs_in(int n, const abi_h *reqs) {
  int *p = tmp_alloc(n, sizeof *p);
  for (int i = 0; i < n; i++) p[i] = abi_req_in(reqs[i]);
  return p;
}

static void reqs_out(int n, abi_h *reqs, const int *p) {
  for (int i = 0; i < n; i++) reqs[i] = abi_req_out(p[i]);
}

static abi_pstatus *stats_alloc(int n, const abi_status *s) {
  return abi_status_ignored(s) ? NULL : tmp_alloc(n, sizeof(abi_pstatus));
}

static void stats_out(int n, const abi_pstatus *p, abi_status *s) {
  if (p) for (int i = 0; i < n; i++) abi_status_out(&p[i], &s[i]);
}

int MPI_Waitall(int count, abi_h requests[], abi_status statuses[]) {
  NEED(MPI_Waitall);
  int *r = reqs_in(count, requests);
  abi_pstatus *s = stats_alloc(count, statuses);
  int rc = p_MPI_Waitall(count, r, s);
  reqs_out(count, requests, r);
  stats_out(count, s, statuses);
  free(r);
  free(s);
  return abi_err_out(rc);
}

int MPI_Testall(int count, abi_h requests[], int *flag, abi_status statuses[]) {
  NEED(MPI_Testall);
  int *r = reqs_in(count, requests);
  abi_pstatus *s = stats_alloc(count, statuses);
  int rc = p_MPI_Testall(count, r, flag, s);
  reqs_out(count, requests, r);
  if (*flag) stats_out(count, s, statuses);
  free(r);
  free(s);
  return abi_err_out(rc);
}

int MPI_Waitany(int count, abi_h requests[], int *index, abi_status *status) {
  NEED(MPI_Waitany);
  int *r = reqs_in(count, requests);
  abi_pstatus st, *s = abi_status_ignored(status) ? NULL : &st;
  if (s) abi_status_in(status, s);   /* MPI_ERROR kept (rt_p2p.c) */
  int rc = p_MPI_Waitany(count, r, index, s);
  reqs_out(count, requests, r);
  if (s) abi_status_out(s, status);
  free(r);
  return abi_err_out(rc);
}

int MPI_Testany(int count, abi_h requests[], int *index, int *flag, abi_status *status) {
  NEED(MPI_Testany);
  int *r = reqs_in(count, requests);
  abi_pstatus st, *s = abi_status_ignored(status) ? NULL : &st;
  if (s) abi_status_in(status, s);   /* MPI_ERROR kept (rt_p2p.c) */
  int rc = p_MPI_Testany(count, r, index, flag, s);
  reqs_out(count, requests, r);
  if (s && *flag) abi_status_out(s, status);
  free(r);
  return abi_err_out(rc);
}

static int some(int (*f)(int, int *, int *, int *, abi_pstatus *), int incount, abi_h requests[],
                int *outcount, int indices[], abi_status statuses[]) {
  int *r = reqs_in(incount, requests);
  abi_pstatus *s = stats_alloc(incount, statuses);
  int rc = f(incount, r, outcount, indices, s);
  reqs_out(incount, requests, r);
  if (*outcount > 0) stats_out(*outcount, s, statuses);
  free(r);
  free(s);
  return abi_err_out(rc);
}

int MPI_Waitsome(int incount, abi_h requests[], int *outcount, int indices[], abi_status statuses[]) {
  NEED(MPI_Waitsome);
  return some(p_MPI_Waitsome, incount, requests, outcount, indices, statuses);
}

int MPI_Testsome(int incount, abi_h requests[], int *outcount, int indices[], abi_status statuses[]) {
  NEED(MPI_Testsome);
  return some(p_MPI_Testsome, incount, requests, outcount, indices, statuses);
}

int MPI_Startall(int count, abi_h requests[]) {
  NEED(MPI_Startall);
  int *r = reqs_in(count, requests);
  int rc = p_MPI_Startall(count, r);
  reqs_out(count, requests, r);
  free(r);
  return abi_err_out(rc);
}

static int *dts_in(int n, const abi_h *types) {
  int *p = tmp_alloc(n, sizeof *p);
  for (int i = 0; i < n && types; i++) p[i] = abi_dt_in(types[i]);
  return p;
}

int MPI_Type_create_struct(int count, const int blocklengths[], const ptrdiff_t displs[],
                           const abi_h types[], abi_h *newtype) {
  NEED(MPI_Type_create_struct);
  int *t = dts_in(count, types), nt = 0;
  int rc = p_MPI_Type_create_struct(count, blocklengths, displs, t, &nt);
  *newtype = abi_dt_out(nt);
  free(t);
  return abi_err_out(rc);
}

int MPI_Type_struct(int count, int blocklengths[], ptrdiff_t displs[], abi_h types[], abi_h *newtype) {
  NEED(MPI_Type_struct);
  int *t = dts_in(count, types), nt = 0;
  int rc = p_MPI_Type_struct(count, blocklengths, displs, t, &nt);
  *newtype = abi_dt_out(nt);
  free(t);
  return abi_err_out(rc);
}

/* The type arrays of the w collectives have one entry per rank of the (remote) group. */
static int group_size(int comm) {
  int inter = 0, n = 0;
  NEED(MPI_Comm_test_inter);
  p_MPI_Comm_test_inter(comm, &inter);
  if (inter && p_MPI_Comm_remote_size) p_MPI_Comm_remote_size(comm, &n);
  else if (p_MPI_Comm_size) p_MPI_Comm_size(comm, &n);
  return n;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const abi_h sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const abi_h recvtypes[], abi_h comm) {
  NEED(MPI_Alltoallw);
  int c = abi_comm_in(comm), n = group_size(c);
  sendbuf = abi_buf_in(sendbuf);
  int *st = dts_in(n, sendbuf == ABI_PSIM_IN_PLACE ? NULL : sendtypes), *rt = dts_in(n, recvtypes);
  int rc = p_MPI_Alltoallw(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, c);
  free(st);
  free(rt);
  return abi_err_out(rc);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const abi_h sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const abi_h recvtypes[], abi_h comm, abi_h *request) {
  NEED(MPI_Ialltoallw);
  int c = abi_comm_in(comm), n = group_size(c), r = 0;
  sendbuf = abi_buf_in(sendbuf);
  int *st = dts_in(n, sendbuf == ABI_PSIM_IN_PLACE ? NULL : sendtypes), *rt = dts_in(n, recvtypes);
  int rc = p_MPI_Ialltoallw(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, c, &r);
  *request = abi_req_out(r);
  free(st);
  free(rt);
  return abi_err_out(rc);
}

/* A neighbourhood collective's datatype arrays have one entry per neighbour: its in- and
 * out-degree, from psim's topology queries (psim's values). */
static void degrees(int comm, int *nin, int *nout) {
  int kind = 0, n = 0, w = 0;
  *nin = *nout = 0;
  if (p_MPI_Topo_test) p_MPI_Topo_test(comm, &kind);
  if (kind == 2 /* MPI_CART */ && p_MPI_Cartdim_get) {
    p_MPI_Cartdim_get(comm, &n);
    *nin = *nout = 2 * n;
  } else if (kind == 1 /* MPI_GRAPH */ && p_MPI_Graph_neighbors_count && p_MPI_Comm_rank) {
    p_MPI_Comm_rank(comm, &n);
    p_MPI_Graph_neighbors_count(comm, n, nin);
    *nout = *nin;
  } else if (kind == 3 /* MPI_DIST_GRAPH */ && p_MPI_Dist_graph_neighbors_count) {
    p_MPI_Dist_graph_neighbors_count(comm, nin, nout, &w);
  }   /* no topology: psim's call reports it */
}

/* MPI_Neighbor_alltoallw (request NULL) and MPI_Ineighbor_alltoallw */
static int neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
                              const abi_h sendtypes[], void *recvbuf, const int recvcounts[],
                              const ptrdiff_t rdispls[], const abi_h recvtypes[], abi_h comm, abi_h *request) {
  int c = abi_comm_in(comm), nin, nout, r = 0, rc;
  degrees(c, &nin, &nout);
  int *st = dts_in(nout, sendtypes), *rt = dts_in(nin, recvtypes);
  if (request) {
    NEED(MPI_Ineighbor_alltoallw);
    rc = p_MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, c, &r);
    *request = abi_req_out(r);
  } else {
    NEED(MPI_Neighbor_alltoallw);
    rc = p_MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, c);
  }
  free(st);
  free(rt);
  return abi_err_out(rc);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
                           const abi_h sendtypes[], void *recvbuf, const int recvcounts[],
                           const ptrdiff_t rdispls[], const abi_h recvtypes[], abi_h comm) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm, NULL);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const ptrdiff_t sdispls[],
                            const abi_h sendtypes[], void *recvbuf, const int recvcounts[],
                            const ptrdiff_t rdispls[], const abi_h recvtypes[], abi_h comm, abi_h *request) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm, request);
}

/* User reduction functions are called by psim with psim's datatype handle; a trampoline per
 * distinct function hands them the program's MPI's (a Fortran subroutine given to Open MPI's
 * Fortran bindings gets the Fortran handle: the bindings mark such an op). The slots are shared by all ranks (each rank's private
 * copy of a library has its own function addresses) and never freed: 128 distinct functions. */
typedef void user_fn(void *in, void *inout, int *len, abi_h *datatype);
static user_fn *user_fns[0200];
static abi_h user_ops[0200];   /* the op last made with each */
static int nuser;
int MPI_Type_c2f(abi_h h);
#define TRAMP(i) \
  static void tramp_##i(void *in, void *inout, int *len, int *dt) { \
    abi_h d = abi_dt_out(*dt); \
    if (abi_op_is_fortran(user_ops[0##i])) { \
      int f = MPI_Type_c2f(d); \
      ((void (*)(void *, void *, int *, int *))user_fns[0##i])(in, inout, len, &f); \
    } else \
      user_fns[0##i](in, inout, len, &d); \
  }
#define TRAMP8(i) TRAMP(i##0) TRAMP(i##1) TRAMP(i##2) TRAMP(i##3) TRAMP(i##4) TRAMP(i##5) TRAMP(i##6) TRAMP(i##7)
#define TRAMP64(i) TRAMP8(i##0) TRAMP8(i##1) TRAMP8(i##2) TRAMP8(i##3) TRAMP8(i##4) TRAMP8(i##5) TRAMP8(i##6) TRAMP8(i##7)
TRAMP64(0)
TRAMP64(1)
#define NAME(i) tramp_##i,
#define NAME8(i) NAME(i##0) NAME(i##1) NAME(i##2) NAME(i##3) NAME(i##4) NAME(i##5) NAME(i##6) NAME(i##7)
#define NAME64(i) NAME8(i##0) NAME8(i##1) NAME8(i##2) NAME8(i##3) NAME8(i##4) NAME8(i##5) NAME8(i##6) NAME8(i##7)
static abi_puser_fn *const tramps[0200] = {NAME64(0) NAME64(1)};

int MPI_Op_create(user_fn *fn, int commute, abi_h *op) {
  NEED(MPI_Op_create);
  int i = 0;
  while (i < nuser && user_fns[i] != fn) i++;
  if (i == nuser) {
    if (nuser == (int)(sizeof user_fns / sizeof *user_fns)) abi_missing("MPI_Op_create (more than 128 distinct user functions)");
    user_fns[nuser++] = fn;
  }
  int o = 0;
  int rc = p_MPI_Op_create(tramps[i], commute, &o);
  *op = user_ops[i] = abi_op_out(o);
  return abi_err_out(rc);
}

/* Generalized requests: the program's callbacks read and write MPICH's status and return
 * MPICH's error codes, so psim gets trampolines, with the program's callbacks and extra_state
 * in a record that the free trampoline releases (psim calls it once, when the request is
 * freed). A Fortran program's callbacks are Fortran subroutines: MPICH's Fortran bindings
 * start the request, then mark it (MPII_Grequest_set_lang_f77), and the callbacks are then
 * called with their arguments by reference, an error argument last, and a Fortran status
 * (MPICH's: the same five integers). */
typedef int greq_query_fn(void *extra_state, abi_status *status);
typedef void f77_query_fn(void *extra_state, int *status, int *ierr);
typedef void f77_free_fn(void *extra_state, int *ierr);
typedef void f77_cancel_fn(void *extra_state, int *complete, int *ierr);
typedef struct greq_rec {
  greq_query_fn *query;
  abi_pgreq_free_fn *free_fn;
  abi_pgreq_cancel_fn *cancel;
  void *extra;
  int fortran;       /* MPICH's bindings said so (MPII_Grequest_set_lang_f77) */
  abi_h request;     /* Open MPI's bindings mark the request itself */
} greq_rec;

static int f77(const greq_rec *g) { return g->fortran || abi_req_is_fortran(g->request); }

/* The request just started, for MPII_Grequest_set_lang_f77, which libmpichfort calls next. */
static greq_rec *last_greq;

static int greq_query(void *extra, abi_pstatus *p) {
  greq_rec *g = extra;
  abi_status s;
  abi_status_out(p, &s);
  int rc = 0;
  if (g->query && f77(g)) {
    int f[sizeof s / sizeof(int)];
    memcpy(f, &s, sizeof s);
    ((f77_query_fn *)(void *)g->query)(g->extra, f, &rc);
    if (rc == 0) memcpy(&s, f, sizeof s);
  } else if (g->query) rc = g->query(g->extra, &s);
  abi_status_in(&s, p);
  return abi_err_in(rc);
}

static int greq_free(void *extra) {
  greq_rec *g = extra;
  int rc = 0;
  if (g->free_fn && f77(g)) ((f77_free_fn *)(void *)g->free_fn)(g->extra, &rc);
  else if (g->free_fn) rc = g->free_fn(g->extra);
  if (last_greq == g) last_greq = NULL;
  free(g);
  return abi_err_in(rc);
}

static int greq_cancel(void *extra, int complete) {
  greq_rec *g = extra;
  int rc = 0;
  if (g->cancel && f77(g)) ((f77_cancel_fn *)(void *)g->cancel)(g->extra, &complete, &rc);
  else if (g->cancel) rc = g->cancel(g->extra, complete);
  return abi_err_in(rc);
}

void MPII_Grequest_set_lang_f77(abi_h request);
void MPII_Grequest_set_lang_f77(abi_h request) {
  if (!last_greq || last_greq->request != request) abi_missing("MPII_Grequest_set_lang_f77 (not the request just started)");
  last_greq->fortran = 1;
}

int MPI_Grequest_start(greq_query_fn *query_fn, abi_pgreq_free_fn *free_fn,
                       abi_pgreq_cancel_fn *cancel_fn, void *extra_state, abi_h *request) {
  NEED(MPI_Grequest_start);
  greq_rec *g = malloc(sizeof *g);
  if (!g) return 16; /* MPICH's MPI_ERR_INTERN */
  *g = (greq_rec){query_fn, free_fn, cancel_fn, extra_state, 0, 0};
  int r = 0;
  int rc = p_MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r);
  *request = abi_req_out(r);
  if (rc != 0) free(g);
  else g->request = *request;
  abi_req_set_c(*request);   /* C's until Open MPI's Fortran bindings say otherwise */
  last_greq = rc == 0 ? g : NULL;
  return abi_err_out(rc);
}

/* Ranks in arrays: MPI_PROC_NULL (MPICH's -1, psim's -2) may be asked for, and is given back. */
int MPI_Group_translate_ranks(abi_h g1, int n, const int ranks1[], abi_h g2, int ranks2[]) {
  NEED(MPI_Group_translate_ranks);
  int *r = tmp_alloc(n, sizeof *r);
  for (int i = 0; i < n; i++) r[i] = abi_rank_in(ranks1[i]);
  int rc = p_MPI_Group_translate_ranks(abi_group_in(g1), n, r, abi_group_in(g2), ranks2);
  for (int i = 0; rc == 0 && i < n; i++) ranks2[i] = abi_rank_out(ranks2[i]);
  free(r);
  return abi_err_out(rc);
}

/* MPI_HOST and MPI_IO are ranks (MPI_PROC_NULL: no host process; MPI_ANY_SOURCE: every rank
 * can do I/O), MPI_LASTUSEDCODE an error code (MPI_ERR_LASTCODE, as none can be added), a
 * window's MPI_WIN_MODEL a constant, which psim's attributes point at in psim's values: the
 * program gets a pointer to its MPI's. */
/* One slot per psim code (predefined or the program's), written with its (constant) value in
 * the program's MPI: shared by all ranks. */
const int *abi_err_static(int e) {
  static int codes[4096], other;
  int *p = e >= 0 && e < (int)(sizeof codes / sizeof *codes) ? &codes[e] : &other;
  *p = abi_err_out(e);
  return p;
}

static const int consts[] = {-4, -3, -2, -1, 0, 1, 2, 3};

/* *p points at psim's value v; the program's MPI says w: a constant of that value instead. */
static void const_int(const int **p, int w) {
  if (w == **p) return;   /* an ordinary rank */
  for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
    if (consts[i] == w) *p = &consts[i];
}

static int fix_attr(int rc, int keyval, void *attribute_val, const int *flag) {
  if (rc != 0 || !*flag) return abi_err_out(rc);
  const int **p = attribute_val;
  switch (abi_key_kind(keyval)) {
    case ABI_KEY_LASTUSEDCODE: *p = abi_err_static(**p); break;
    case ABI_KEY_HOST: case ABI_KEY_IO: const_int(p, abi_rank_out(**p)); break;
    case ABI_KEY_WIN_MODEL: const_int(p, abi_winmodel_out(**p)); break;
    default: break;
  }
  return abi_err_out(rc);
}

int MPI_Comm_get_attr(abi_h comm, int keyval, void *attribute_val, int *flag) {
  NEED(MPI_Comm_get_attr);
  int rc = p_MPI_Comm_get_attr(abi_comm_in(comm), abi_keyval_in(keyval), attribute_val, flag);
  return fix_attr(rc, keyval, attribute_val, flag);
}

int MPI_Attr_get(abi_h comm, int keyval, void *attribute_val, int *flag) {
  NEED(MPI_Attr_get);
  int rc = p_MPI_Attr_get(abi_comm_in(comm), abi_keyval_in(keyval), attribute_val, flag);
  return fix_attr(rc, keyval, attribute_val, flag);
}

int MPI_Win_get_attr(abi_h win, int keyval, void *attribute_val, int *flag) {
  NEED(MPI_Win_get_attr);
  int rc = p_MPI_Win_get_attr(abi_win_in(win), abi_keyval_in(keyval), attribute_val, flag);
  return fix_attr(rc, keyval, attribute_val, flag);
}

/* The distributions and orders of a darray are constants that differ between MPIs. */
int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, abi_h oldtype,
                           abi_h *newtype) {
  NEED(MPI_Type_create_darray);
  int *d = tmp_alloc(ndims, sizeof *d), *g = tmp_alloc(ndims, sizeof *g), nt = 0;
  for (int i = 0; i < ndims; i++) d[i] = abi_distrib_in(distribs[i]), g[i] = abi_darg_in(dargs[i]);
  int rc = p_MPI_Type_create_darray(size, rank, ndims, gsizes, d, g, psizes, abi_order_in(order),
                                    abi_dt_in(oldtype), &nt);
  *newtype = abi_dt_out(nt);
  free(d);
  free(g);
  return abi_err_out(rc);
}

/* The version of the ABI this library stands for: a program compares it with its mpi.h's or
 * mpif.h's MPI_VERSION and MPI_SUBVERSION, which are MPICH 4.0.2's (4.0: MPICH's
 * f77/init/baseenvf) or Open MPI 4.1's (3.1); psim's own mpi.h says 3.1 to psimcc programs.
 * What psim implements is docs/MPI_SUBSET.md either way. */
int MPI_Get_version(int *version, int *subversion) {
  *version = ABI_MPI_VERSION;
  *subversion = ABI_MPI_SUBVERSION;
  return 0;
}

int MPI_Pcontrol(const int level, ...) { (void)level; return 0; }

int MPI_Type_match_size(int typeclass, int size, abi_h *datatype) {
  *datatype = abi_match_size(typeclass, size);
  return abi_dt_in(*datatype) == 0 ? 3 /* MPI_ERR_TYPE in both MPIs */ : 0;
}

/* The datatypes of a constructor's arguments are handles: MPICH's given back. */
int MPI_Type_get_contents(abi_h dt, int max_integers, int max_addresses, int max_datatypes, int ints[],
                          ptrdiff_t addrs[], abi_h types[]) {
  NEED(MPI_Type_get_contents);
  int *t = tmp_alloc(max_datatypes, sizeof *t);
  int rc = p_MPI_Type_get_contents(abi_dt_in(dt), max_integers, max_addresses, max_datatypes, ints,
                                   addrs, t);
  int ni = 0, na = 0, nt = 0, c = 0;
  if (rc == 0 && p_MPI_Type_get_envelope) p_MPI_Type_get_envelope(abi_dt_in(dt), &ni, &na, &nt, &c);
  for (int i = 0; i < nt && i < max_datatypes; i++) types[i] = abi_dt_out(t[i]);
  if (rc == 0) abi_contents_out(c, ints, ni < max_integers ? ni : max_integers);
  free(t);
  return abi_err_out(rc);
}

/* Error handlers are called by psim with psim's handle and error code: psim gets a trampoline,
 * which finds the program's function by the handler now set on the object (the one psim is
 * calling) and hands it MPICH's values. Handler objects are the run's, numbered from 3 by
 * psim: errh_fns[h] is handler h's function, for all ranks. */
static abi_perrh_fn **errh_fns;
static size_t errh_n;

/* Handlers that are Fortran subroutines (Open MPI's bindings: abi_errh_create_fortran) are
 * called with the Fortran handle: one flag per handler, beside errh_fns. */
static unsigned char *errh_f77;

static void errh_remember(int h, abi_perrh_fn *fn) {
  if ((size_t)h >= errh_n) {
    size_t n = errh_n ? 2 * errh_n : 64;
    while (n <= (size_t)h) n *= 2;
    errh_fns = realloc(errh_fns, n * sizeof *errh_fns);
    errh_f77 = realloc(errh_f77, n);
    if (!errh_fns || !errh_f77) abi_missing("MPI_Comm_create_errhandler (out of memory)");
    memset(errh_fns + errh_n, 0, (n - errh_n) * sizeof *errh_fns);
    memset(errh_f77 + errh_n, 0, n - errh_n);
    errh_n = n;
  }
  errh_fns[h] = fn;
  errh_f77[h] = 0;
}
int MPI_Comm_c2f(abi_h h);
int MPI_Win_c2f(abi_h h);

static void errh_call(int h, abi_h handle, int is_win, int code) {
  int c = abi_err_out(code);
  if (!(h > 0 && (size_t)h < errh_n && errh_fns[h])) return;
  if (errh_f77[h]) {
    int f = is_win ? MPI_Win_c2f(handle) : MPI_Comm_c2f(handle);
    ((void (*)(int *, int *))errh_fns[h])(&f, &c);
  } else
    ((void (*)(abi_h *, int *, ...))errh_fns[h])(&handle, &c);
}

static void comm_errh_tramp(int *comm, int *code, ...) {
  int h = 0;
  if (p_MPI_Comm_get_errhandler) p_MPI_Comm_get_errhandler(*comm, &h);
  errh_call(h, abi_comm_out(*comm), 0, *code);
}

static void win_errh_tramp(int *win, int *code, ...) {
  int h = 0;
  if (p_MPI_Win_get_errhandler) p_MPI_Win_get_errhandler(*win, &h);
  errh_call(h, abi_win_out(*win), 1, *code);
}

/* A file's handler gets MPICH's MPI_File, a pointer (abi_file). */
static void file_errh_tramp(int *file, int *code, ...) {
  int h = 0;
  if (p_MPI_File_get_errhandler) p_MPI_File_get_errhandler(*file, &h);
  abi_file f = abi_file_out(*file);
  int c = abi_err_out(*code);
  if (h > 0 && (size_t)h < errh_n && errh_fns[h]) ((void (*)(abi_file *, int *, ...))errh_fns[h])(&f, &c);
}

static int create_errh(int (*create)(abi_perrh_fn *, int *), abi_perrh_fn *tramp, abi_perrh_fn *fn,
                       abi_h *errhandler) {
  int h = 0;
  int rc = create(tramp, &h);
  if (rc == 0) errh_remember(h, fn);
  *errhandler = abi_errh_out(h);
  return abi_err_out(rc);
}

/* An error handler made by Open MPI's Fortran bindings (ompi_errhandler_create: type 1 a
 * communicator's, 2 a window's) from a subroutine (handle, error code), by reference. */
abi_h abi_errh_create_fortran(int type, abi_perrh_fn *fn) {
  abi_h e = abi_errh_out(0);
  if (type != 1 && type != 2) abi_missing("an error handler for files made from Fortran");
  if (create_errh(type == 1 ? p_MPI_Comm_create_errhandler : p_MPI_Win_create_errhandler,
                  type == 1 ? comm_errh_tramp : win_errh_tramp, fn, &e) != 0) return e;
  errh_f77[abi_errh_in(e)] = 1;   /* errh_remember made its slot */
  return e;
}

int MPI_Comm_create_errhandler(abi_perrh_fn *fn, abi_h *errhandler) {
  NEED(MPI_Comm_create_errhandler);
  return create_errh(p_MPI_Comm_create_errhandler, comm_errh_tramp, fn, errhandler);
}

int MPI_Errhandler_create(abi_perrh_fn *fn, abi_h *errhandler) {
  NEED(MPI_Errhandler_create);
  return create_errh(p_MPI_Errhandler_create, comm_errh_tramp, fn, errhandler);
}

int MPI_Win_create_errhandler(abi_perrh_fn *fn, abi_h *errhandler) {
  NEED(MPI_Win_create_errhandler);
  return create_errh(p_MPI_Win_create_errhandler, win_errh_tramp, fn, errhandler);
}

int MPI_File_create_errhandler(abi_perrh_fn *fn, abi_h *errhandler) {
  NEED(MPI_File_create_errhandler);
  return create_errh(p_MPI_File_create_errhandler, file_errh_tramp, fn, errhandler);
}

/* A file's Fortran handle is psim's handle; its C one the pointer of that value. */
int MPI_File_c2f(abi_file f);
int MPI_File_c2f(abi_file f) { return abi_file_in(f) < 0 ? 0 : abi_file_in(f); }
abi_file MPI_File_f2c(int h);
abi_file MPI_File_f2c(int h) { return abi_file_out(h); }

int MPI_Status_c2f(const abi_status *c, int *f);
int MPI_Status_c2f(const abi_status *c, int *f) { memcpy(f, c, sizeof *c); return 0; }
int MPI_Status_f2c(const int *f, abi_status *c);
int MPI_Status_f2c(const int *f, abi_status *c) { memcpy(c, f, sizeof *c); return 0; }

/* MPI 3.1's address arithmetic: MPICH's MPI_BOTTOM is 0, as psim's */
ptrdiff_t MPI_Aint_add(ptrdiff_t base, ptrdiff_t disp);
ptrdiff_t MPI_Aint_add(ptrdiff_t base, ptrdiff_t disp) { return (ptrdiff_t)((size_t)base + (size_t)disp); }
ptrdiff_t MPI_Aint_diff(ptrdiff_t addr1, ptrdiff_t addr2);
ptrdiff_t MPI_Aint_diff(ptrdiff_t addr1, ptrdiff_t addr2) { return (ptrdiff_t)((size_t)addr1 - (size_t)addr2); }

#define ALIAS(n) extern __typeof__(n) P##n __attribute__((alias(#n)));
ALIAS(MPI_Waitall) ALIAS(MPI_Testall) ALIAS(MPI_Waitany) ALIAS(MPI_Testany) ALIAS(MPI_Waitsome)
ALIAS(MPI_Testsome) ALIAS(MPI_Startall) ALIAS(MPI_Type_create_struct) ALIAS(MPI_Type_struct)
ALIAS(MPI_Alltoallw) ALIAS(MPI_Ialltoallw) ALIAS(MPI_Neighbor_alltoallw)
ALIAS(MPI_Ineighbor_alltoallw) ALIAS(MPI_Op_create)
ALIAS(MPI_Grequest_start) ALIAS(MPI_Group_translate_ranks) ALIAS(MPI_Comm_get_attr)
ALIAS(MPI_Attr_get) ALIAS(MPI_Get_version) ALIAS(MPI_Type_get_contents)
ALIAS(MPI_Comm_create_errhandler) ALIAS(MPI_Errhandler_create) ALIAS(MPI_Win_create_errhandler)
ALIAS(MPI_File_create_errhandler) ALIAS(MPI_File_c2f) ALIAS(MPI_File_f2c)
ALIAS(MPI_Pcontrol) ALIAS(MPI_Type_match_size) ALIAS(MPI_Aint_add) ALIAS(MPI_Aint_diff)
ALIAS(MPI_Win_get_attr) ALIAS(MPI_Type_create_darray) ALIAS(MPI_Status_c2f) ALIAS(MPI_Status_f2c)
