/* psim's MPI runtime (libpsimmpi): the functions of include/psim_mpi/mpi.h, on top of the
 * execution-driven driver (src/emul/emu.h).
 *
 * Handles are indices into tables shared by all ranks of the simulation (communicators and
 * datatypes created collectively are one object seen by all their members). The tables live
 * in rt_world, hung on the simulation (emu_sim.rt) and freed with it; per-rank state (its
 * MPI_COMM_SELF, attached buffer, init flags) in rt_rank (emu_rank.rt).
 *
 * Ownership: everything here belongs to the simulation and is released by rt_world_free. */
#ifndef PSIM_RT_H
#define PSIM_RT_H

#define PSIM_NO_LOCATION
#include "mpi.h"
#include "emul/emu.h"

typedef struct rt_block { ptrdiff_t off; size_t len; } rt_block;

typedef struct rt_sig { size_t size, n; } rt_sig;   /* n basic elements of size bytes */

typedef struct rt_dtype {
  size_t size;               /* bytes of data in one element */
  ptrdiff_t lb, ub;          /* extent = ub - lb */
  ptrdiff_t true_lb, true_ub;
  int nblocks;
  rt_block *blocks;          /* byte runs of one element, relative to its start */
  int contig;                /* one run at offset 0 of length size == extent */
  int base;                  /* predefined type of every basic element, -1 if mixed */
  int nsig;
  rt_sig *sig;               /* the basic elements' sizes in order (MPI_Get_elements) */
  int explicit_lb, explicit_ub;
  int committed, freed, predefined;
  int combiner;              /* MPI_COMBINER_* of the constructor (0: predefined) */
  struct rt_dtype_args *args; /* the constructor's arguments (rt_dtype_decode.c), NULL if none */
  int refs;                  /* handles the program holds (MPI_Type_get_contents adds one) */
  char name[MPI_MAX_OBJECT_NAME];
} rt_dtype;

typedef struct rt_slot rt_slot;

typedef struct rt_comm {
  int handle;
  int id;                    /* context: 2*id for point-to-point, 2*id+1 for collectives */
  int size;
  int *world;                /* local rank -> world rank */
  int *local;                /* world rank -> local rank, -1 when not a member */
  int refs;                  /* members that have not freed it */
  uint64_t *cseq;            /* collectives started, per local rank */
  rt_slot *slots;
  char name[MPI_MAX_OBJECT_NAME];
  int freed;
  /* inter-communicators (rt_inter.c): the remote group and the other side's object */
  int inter, rsize;
  int *rworld;
  struct rt_comm *partner;
  struct rt_cart *cart;      /* Cartesian topology (rt_topo.c), NULL if none; one block */
  struct rt_graph *graph;    /* graph or distributed graph topology (rt_graph.c), NULL if none */
} rt_comm;

typedef struct rt_group { int size; int *world; int freed; } rt_group;

/* RQ_RMA: a request-based one-sided operation (MPI_Rput...: rt_win.c); its er has no message
 * and completes (emu_req_finish) when the operation does. RQ_FILE: a non-blocking MPI-IO
 * access (rt_file.c). */
enum { RQ_SEND, RQ_RECV, RQ_GREQ, RQ_NBR, RQ_RMA, RQ_FILE };
typedef struct rt_req {
  int used, kind, persistent, active, proc_null, flags;
  emu_req *er;
  void *buf;
  int count;
  MPI_Datatype dt;
  int peer, tag;
  rt_comm *comm;
  void *stage;               /* receive staging for a non-contiguous type */
  size_t stage_len;
  int next_free;
  int traced;                /* recorded as isend/irecv, its wait not yet (--trace-tit) */
  long tid;                  /* its irecv line, filled when the source is known */
  int cancelled;             /* MPI_Cancel succeeded: completes with MPI_Test_cancelled true */
  int smpi_taken;            /* with injected polls: an MPI_Testall or MPI_Testsome found it
                              * complete, where SMPI sets the handle to MPI_REQUEST_NULL at
                              * once (MPI keeps it until all are complete: psim does too) */
  int pair;                  /* MPI_Isendrecv: the send (a hidden request) this receive waits for */
  int mprobed;               /* a matched message (MPI_Mprobe): its receive, into stage */
  struct rt_nbr_op *nbr;     /* RQ_NBR: an MPI_Ineighbor_* in flight (rt_neighbor.c) */
  /* generalized request (rt_greq.c): the program's functions; done once it completes it */
  MPI_Grequest_query_function *gquery;
  MPI_Grequest_free_function *gfree;
  MPI_Grequest_cancel_function *gcancel;
  void *gextra;
  int gdone;
  int gorphan;               /* freed by MPI_Request_free before it completed */
  long long io_bytes;        /* RQ_FILE: the bytes its MPI_File_i* moved (its status's count) */
} rt_req;

typedef struct rt_uop { MPI_User_function *fn; int commute; } rt_uop;

typedef struct rt_shared { void *p; size_t len; } rt_shared;

/* An MPI_Comm_create_group in progress: its members find the communicator the first one made. */
typedef struct rt_pending_group {
  int parent, tag, arrived;
  rt_comm *comm;
} rt_pending_group;

typedef struct rt_info rt_info;   /* rt_info.c */
typedef struct rt_pending_inter rt_pending_inter;   /* rt_inter.c */
typedef struct rt_win rt_win;     /* rt_win.c */
struct rt_attrs;                  /* rt_attr.c */

typedef struct rt_world {
  VEC(rt_dtype *) types;
  VEC(rt_comm *) comms;
  VEC(rt_group *) groups;
  VEC(rt_req *) reqs;
  int free_req;
  VEC(rt_uop) ops;
  int next_comm_id;
  VEC(rt_shared) shared, shared_own;
  VEC(rt_pending_group) pending_groups;
  VEC(rt_info *) infos;      /* 0: MPI_INFO_NULL, 1: MPI_INFO_ENV */
  VEC(rt_win *) wins;        /* 0: MPI_WIN_NULL */
  VEC(rt_pending_inter *) pending_inter;
  struct rt_attrs *attrs;    /* keyvals and attributes of communicators and datatypes */
  struct rt_errs *errs;      /* error classes, codes, strings and handlers (rt_errors.c) */
  struct rt_files *files;    /* open files (rt_file.c) */
} rt_world;

typedef struct rt_rank {
  rt_comm *self;
  void *bsend_buf;
  int bsend_size;
  size_t nshared;            /* psim_shared_malloc calls so far */
  /* MPI_Wtime's streak of reads (rt_init.c): this rank's call count at its last read, the
   * clock after that read's sleep, the reads in the streak, those after which the clock had
   * moved (a measured burst), and the time the streak's own reads injected */
  uint64_t wtime_mark;
  double wtime_last;
  double wtime_comp;        /* its compute (st.compute) then: the loop's own work since is no move */
  long wtime_streak, wtime_moved;
  double wtime_slept;
  int thread_level;          /* what MPI_Init_thread provided (MPI_THREAD_SINGLE: 0) */
  int thread_asked;          /* what it was asked */
  /* the C library's random generators of this rank (rt_rand.c's rank_rand), made on first use:
   * one run's, as the rest of this state */
  int rand_ready;
  _Alignas(16) unsigned char rand_state[256];
} rt_rank;

/* rt_init.c */
rt_world *rt_w(void);
rt_rank *rt_me(void);
int rt_world_rank(void);
void rt_need_init(void);
/* A call after the rank's MPI_Finalize is erroneous (MPICH and Open MPI abort the job), even a
 * local one naming a handle: MPI_Comm_free or MPI_Type_size in an exit handler, which runs in
 * the rank after its main (emu_rank_atexit). The handle lookups (communicators, groups,
 * datatypes, requests, windows; not infos, which MPI-4 allows then) check it, given `caller`,
 * their return address, which names the call when it is one of psim's MPI functions; other
 * calls name themselves. */
void rt_after_finalize(const void *caller, const char *call) __attribute__((noinline, cold, noreturn));
static inline void rt_live(const void *caller) {
  const emu_rank *k = emu_self();   /* NULL in psim's own code between ranks */
  if (__builtin_expect(k && k->finalized, 0)) rt_after_finalize(caller, NULL);
}
static inline void rt_live_call(const char *call) {
  const emu_rank *k = emu_self();
  if (__builtin_expect(k && k->finalized, 0)) rt_after_finalize(NULL, call);
}
/* A read of the simulated clock by `call` (MPI_Wtime; gettimeofday and clock_gettime: rt_clock.c). */
double rt_wtime(const char *call);
/* User code of a rank is running (not psim's, not before or after the simulation), on the
 * rank's own stack (rt_sleep.c): what the C library's functions psim wraps check first. */
int rt_in_rank_code(void);

/* rt_dtype.c */
void rt_dtypes_init(rt_world *w);
rt_dtype *rt_type(MPI_Datatype dt);   /* fatal when invalid */
rt_dtype *rt_type_inflight(MPI_Datatype dt);   /* also accepts a freed type (pending operations) */
size_t rt_pack_size(MPI_Datatype dt, int count);
ptrdiff_t rt_extent(MPI_Datatype dt);
/* MPI_IN_PLACE for the all-to-all family: copies bytes [lo, hi) of buf (the receive buffer,
 * about to be overwritten) into *tmp (to free) and returns the copy's address of buf's byte 0,
 * to be used as the send buffer with the receive buffer's layout. */
const void *rt_inplace_copy(const void *buf, ptrdiff_t lo, ptrdiff_t hi, void **tmp);
void rt_pack(const void *buf, int count, MPI_Datatype dt, void *out);
/* Unpacks at most `len` bytes; returns the bytes consumed. */
size_t rt_unpack(const void *in, size_t len, void *buf, int count, MPI_Datatype dt);
void *rt_pack_alloc(const void *buf, int count, MPI_Datatype dt, size_t *len);

/* rt_op.c */
/* inout[i] = in[i] op inout[i] for n packed elements of the type's base. */
void rt_reduce(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count);

/* rt_comm.c */
void rt_comms_init(rt_world *w, int np);
rt_comm *rt_comm_get(MPI_Comm c);     /* fatal when invalid */
rt_comm *rt_comm_new(rt_world *w, int size, const int *world);
int rt_comm_rank(const rt_comm *c);
/* MPI_Comm_split's collective (color MPI_UNDEFINED: no communicator), for rt_topo.c */
MPI_Comm rt_comm_split(rt_comm *c, int color, int key);
void rt_topo_copy(const rt_comm *from, rt_comm *to);   /* rt_topo.c: MPI_Comm_dup keeps it */
/* The calling rank's neighbours in MPI's order (rt_topo.c for a Cartesian communicator, else
 * rt_graph.c), for the neighbourhood collectives (rt_neighbor.c): *in (sources, *nin of them)
 * and *out (destinations), MPI_PROC_NULL where a Cartesian neighbour is missing, and the tag
 * each message carries: tin[i] is the tag of what source i sends here, tout[j] the tag of what
 * goes to destination j (a Cartesian grid pairs a send to the +1 neighbour with that
 * neighbour's -1 slot, also when both neighbours are one rank). One malloc'ed block at *in
 * holds the four arrays; the caller frees it. Fatal (naming `call`) without a topology. */
void rt_topo_neighbors(rt_comm *c, const char *call, int *nin, int **in, int **tin, int *nout,
                       int **out, int **tout);
/* Tags of the neighbourhood collectives' messages (on the collective context; negative, as
 * the collectives' own, src/mpi/coll_internal.h, and apart from them): a graph's all carry
 * RT_NBR_TAG, a Cartesian grid's RT_NBR_TAG - 1 - slot of the receiver. */
#define RT_NBR_TAG (-6000)
/* rt_neighbor.c: an MPI_Ineighbor_* request (RQ_NBR): complete when all its messages are;
 * one of them not yet done (NULL: none); finishing waits for the rest, unpacks the blocks
 * received and frees op; discarding frees op at the run's teardown (its emu_reqs are the
 * driver's). */
int rt_nbr_done(const struct rt_nbr_op *op);
emu_req *rt_nbr_waitable(const struct rt_nbr_op *op);
void rt_nbr_finish(struct rt_nbr_op *op);
void rt_nbr_discard(struct rt_nbr_op *op);
/* rt_graph.c */
int rt_graph_kind(const rt_comm *c);   /* MPI_GRAPH, MPI_DIST_GRAPH, or 0 */
void rt_graph_copy(const rt_comm *from, rt_comm *to);
void rt_graph_free(struct rt_graph *g);
void rt_graph_neighbors(rt_comm *c, const char *call, int *nin, int **in, int **tin, int *nout,
                        int **out, int **tout);
const rt_group *rt_group_of(MPI_Group g);   /* fatal when invalid */
MPI_Group rt_group_new(int size, const int *world);
/* rt_inter.c */
void rt_no_inter(const rt_comm *c, const char *what);   /* fatal on an inter-communicator */
void rt_inters_free(rt_world *w);

/* rt_coll.c */
struct rt_slot {
  uint64_t seq;
  int left;
  void **data;
  size_t *len;
  void *res;
  void **results;            /* per-rank results (comm creation) */
  int owned_results;         /* results[] are malloc'ed (else borrowed) */
  rt_slot *next;
};
rt_slot *rt_slot_enter(rt_comm *c);
void rt_slot_leave(rt_comm *c, rt_slot *s);
/* Frees slot s of a communicator of `size` members, with what was deposited in it. */
void rt_slot_free(rt_slot *s, int size);
void rt_coll_timing(rt_comm *c, coll_call *call);
/* The same, for a call whose algorithm may send blocks of the program's send buffer as they
 * lie (MPICH's alltoall): at_rest says the program did not write them since they last moved
 * (emu_send_written), so those messages take the point-to-point factors. */
void rt_coll_timing_data(rt_comm *c, coll_call *call, int at_rest);
/* Times an alltoallv of sc[i] bytes to each rank i and rc[i] from each (element size 1). */
void rt_alltoallv_bytes_timing(rt_comm *c, const double *sc, const double *rc);

/* rt_p2p.c */
void rt_reqs_init(rt_world *w);
/* A request that is already complete (non-blocking collectives, rt_nbc.c). */
MPI_Request rt_req_completed(void);
rt_req *rt_req_at(MPI_Request h);   /* fatal when invalid */
void rt_req_release(MPI_Request h);
/* rt_greq.c: a generalized request completes: query_fn fills st (may be NULL), free_fn runs. */
void rt_greq_finish(rt_req *r, MPI_Status *st);
void rt_greq_cancel(rt_req *r);

void rt_world_free(void *p);

/* rt_info.c */
rt_info *rt_info_get(MPI_Info h);     /* fatal when invalid */
void rt_infos_free(rt_world *w);
/* rt_win.c */
void rt_wins_free(rt_world *w);
void rt_win_check(MPI_Win h);   /* fatal when not a window of the calling rank */
/* rt_attr.c: the calling rank's attributes follow its duplications and frees */
void rt_attrs_free(rt_world *w);
void rt_attr_comm_dup(MPI_Comm from, MPI_Comm to);
void rt_attr_comm_free(MPI_Comm c, const char *call);
void rt_attr_type_dup(MPI_Datatype from, MPI_Datatype to);
void rt_attr_type_free(MPI_Datatype t);
int rt_attr_comm_get(MPI_Comm c, int key, void *val, int *flag);   /* user keyvals */
int rt_attr_win_get(MPI_Win w, int key, void *val, int *flag);
void rt_attr_win_free(MPI_Win w);

/* rt_dtype_decode.c: the arguments of a type's constructor, as MPI_Type_get_contents gives
 * them. rt_type_record replaces the record of type t (the outermost constructor records last)
 * and returns it, its arrays allocated for the caller to fill. */
typedef struct rt_dtype_args {
  int ni, na, nt;
  int *ints;
  MPI_Aint *addrs;
  MPI_Datatype *types;
} rt_dtype_args;
rt_dtype_args *rt_type_record(MPI_Datatype t, int combiner, int ni, int na, int nt);
/* Calls fn(ctx, offset, basic type) for each basic element of one element of dt, in the
 * type map's order (pairs and complex types give their two parts). */
typedef void rt_type_elem_fn(void *ctx, ptrdiff_t off, MPI_Datatype basic);
void rt_type_walk(MPI_Datatype dt, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx);
/* The elements of old at the multi-indices of an n-dimensional array of sizes (order: MPI_ORDER_C
 * or _FORTRAN) whose dimension d takes the cnt[d] indices idx[d][], fastest dimension innermost
 * (subarrays, and rt_dtype_darray.c's rt_darray_walk for distributed arrays). */
void rt_type_walk_grid(int n, int order, const int *sizes, int *const *idx, const int *cnt,
                       MPI_Datatype old, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx);
void rt_darray_walk(const rt_dtype_args *a, ptrdiff_t disp, rt_type_elem_fn *fn, void *ctx);
/* rt_errors.c: the program's error handlers. rt_comm_error raises error `code` on comm: stops
 * the run with the message under MPI_ERRORS_ARE_FATAL, else calls the program's handler and
 * returns code (MPI_ERRORS_RETURN). Errors of calls without a communicator go to
 * MPI_COMM_WORLD's handler. */
int rt_comm_error(MPI_Comm comm, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rt_err_comm_dup(MPI_Comm from, MPI_Comm to);
/* The calling rank freed the communicator / window: its error handler goes. */
void rt_err_comm_free(MPI_Comm comm);
void rt_err_win_free(MPI_Win win);
int *rt_err_lastused(void);   /* MPI_LASTUSEDCODE's value for the calling rank */
void rt_errs_free(rt_world *w);

/* ---- MPI-IO (rt_file.c, rt_file_view.c, rt_file_io.c) ---- */
/* rt_p2p.c: a request (RQ_FILE) completed when the disk I/O er ends, its status's count `bytes`. */
MPI_Request rt_req_io(emu_req *er, long long bytes);
/* rt_errors.c: raises `code` on file fh (MPI_FILE_NULL: the errors of MPI_File_open and
 * MPI_File_delete) under its handler, MPI_ERRORS_RETURN unless the program set another. */
int rt_file_error(MPI_File fh, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rt_err_file_free(MPI_File fh);
/* rt_file.c: closes what the run left open (a rank's error stopped it) */
void rt_files_free(rt_world *w);

/* rt_heap.c: forgets every block (end of a run). */
void rt_heap_reset(void);

#define RT_CHECK_COUNT(n) do { if ((n) < 0) emu_fatal("negative count %d (MPI_ERR_COUNT)", (n)); } while (0)

#endif
