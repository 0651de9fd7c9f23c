/* Collectives: the message pattern (and so the simulated time) is the algorithm's program from
 * coll_build, exactly as replay runs it; the data moves through a per-call *slot* shared by
 * the communicator's members. Each member deposits a packed copy of its contribution when it
 * enters, runs its timing program, then takes its result from the slot. This is sound because
 * in any correct algorithm a rank's program cannot finish before every rank whose data its
 * result depends on has entered (it must receive from them, directly or not); reductions are
 * computed once, in rank order, so every rank gets the same bits, as MPI requires. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

rt_slot *rt_slot_enter(rt_comm *c) {
  rt_no_inter(c, "a collective");
  int me = rt_comm_rank(c);
  uint64_t seq = c->cseq[me]++;
  rt_slot **pp = &c->slots;
  for (; *pp; pp = &(*pp)->next)
    if ((*pp)->seq == seq) return *pp;
  rt_slot *s = xcalloc(1, sizeof *s);
  s->seq = seq;
  s->data = xcalloc((size_t)c->size, sizeof *s->data);
  s->len = xcalloc((size_t)c->size, sizeof *s->len);
  *pp = s;
  return s;
}

void rt_slot_free(rt_slot *s, int size) {
  for (int i = 0; i < size; i++) free(s->data[i]);
  if (s->owned_results)
    for (int i = 0; i < size; i++) free(s->results[i]);
  free(s->data);
  free(s->len);
  free(s->res);
  free(s->results);
  free(s);
}

void rt_slot_leave(rt_comm *c, rt_slot *s) {
  if (++s->left < c->size) return;
  for (rt_slot **pp = &c->slots; *pp; pp = &(*pp)->next)
    if (*pp == s) { *pp = s->next; break; }
  rt_slot_free(s, c->size);
}

/* ---- recording collectives (--trace-tit; see src/emul/emu_trace.c) ---- */

/* A datatype code for dtsize in which every size of vals[0..n) is a whole count, else
 * MPI_BYTE's. csz receives the code's size. */
static int trace_code(int dtsize, const double *vals, int n, int *csz) {
  int code = emu_trace_dtcode(dtsize > 0 ? (size_t)dtsize : 1);
  int sz = code == 6 ? 1 : dtsize;
  for (int i = 0; i < n && sz > 1; i++)
    if (fmod(vals[i], sz) != 0) { code = 6; sz = 1; }
  *csz = sz;
  return code;
}

/* " c_0 c_1 ... c_{n-1}" (counts of csz-byte elements); caller frees. */
static char *counts_text(const double *v, int n, int csz) {
  size_t cap = (size_t)n * 24 + 1, len = 0;
  char *s = xmalloc(cap);
  s[0] = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(s + len, cap - len, " %.0f", v ? v[i] / csz : 0.0);
  return s;
}

/* A collective on MPI_COMM_WORLD's ranks: its TIT action, with exactly the sizes the
 * emulation gives coll_build (replay rebuilds the same program from them). */
static void trace_action(emu_rank *k, const coll_call *x, double comp) {
  int n = x->size, cs, cr;
  int sc, rc;   /* send and receive codes */
  char *a = NULL, *b = NULL;
  switch (x->kind) {
  case COLL_BARRIER: emu_trace_line(k, "barrier"); break;
  case COLL_BCAST:
    sc = trace_code(x->dtsize, &x->bytes, 1, &cs);
    emu_trace_line(k, "bcast %.0f %d %d", x->bytes / cs, x->root, sc);
    break;
  case COLL_REDUCE:
    sc = trace_code(x->dtsize, &x->bytes, 1, &cs);
    emu_trace_line(k, "reduce %.0f %.17g %d %d", x->bytes / cs, comp, x->root, sc);
    break;
  case COLL_ALLREDUCE: case COLL_SCAN: case COLL_EXSCAN:
    sc = trace_code(x->dtsize, &x->bytes, 1, &cs);
    emu_trace_line(k, "%s %.0f %.17g %d",
                   x->kind == COLL_ALLREDUCE ? "allreduce" : x->kind == COLL_SCAN ? "scan" : "exscan",
                   x->bytes / cs, comp, sc);
    break;
  case COLL_ALLTOALL: case COLL_ALLGATHER: case COLL_GATHER: case COLL_SCATTER: {
    const char *nm = x->kind == COLL_ALLTOALL ? "alltoall" : x->kind == COLL_ALLGATHER ? "allgather"
                     : x->kind == COLL_GATHER ? "gather" : "scatter";
    sc = trace_code(x->dtsize, &x->bytes, 1, &cs);
    rc = trace_code(x->dtsize, &x->bytes2, 1, &cr);
    if (x->kind == COLL_GATHER || x->kind == COLL_SCATTER)
      emu_trace_line(k, "%s %.0f %.0f %d %d %d", nm, x->bytes / cs, x->bytes2 / cr, x->root, sc, rc);
    else
      emu_trace_line(k, "%s %.0f %.0f %d %d", nm, x->bytes / cs, x->bytes2 / cr, sc, rc);
    break;
  }
  case COLL_ALLTOALLV:
    sc = trace_code(x->dtsize, x->counts, n, &cs);
    if (fmod(x->bytes, cs) != 0) { sc = 6; cs = 1; }
    rc = trace_code(x->dtsize, x->counts2, n, &cr);
    if (fmod(x->bytes2, cr) != 0) { rc = 6; cr = 1; }
    a = counts_text(x->counts, n, cs);
    b = counts_text(x->counts2, n, cr);
    emu_trace_line(k, "alltoallv %.0f%s %.0f%s %d %d", x->bytes / cs, a, x->bytes2 / cr, b, sc, rc);
    break;
  case COLL_GATHERV:
    sc = trace_code(x->dtsize, &x->bytes, 1, &cs);
    rc = trace_code(x->dtsize, x->counts2, n, &cr);
    b = counts_text(x->counts2, n, cr);
    emu_trace_line(k, "gatherv %.0f%s %d %d %d", x->bytes / cs, b, x->root, sc, rc);
    break;
  case COLL_ALLGATHERV:
    /* one code for both sides (SimGrid's format) */
    sc = trace_code(x->dtsize, x->counts2, n, &cs);
    if (fmod(x->bytes, cs) != 0) { sc = 6; cs = 1; }
    b = counts_text(x->counts2, n, cs);
    emu_trace_line(k, "allgatherv %.0f%s %d", x->bytes / cs, b, sc);
    break;
  case COLL_SCATTERV:
    sc = trace_code(x->dtsize, x->counts, n, &cs);
    rc = trace_code(x->dtsize, &x->bytes2, 1, &cr);
    a = counts_text(x->counts, n, cs);
    emu_trace_line(k, "scatterv%s %.0f %d %d %d", a, x->bytes2 / cr, x->root, sc, rc);
    break;
  case COLL_REDUCESCATTER:
    sc = trace_code(x->dtsize, x->counts2, n, &cs);
    b = counts_text(x->counts2, n, cs);
    emu_trace_line(k, "reducescatter%s %.17g %d", b, comp, sc);
    break;
  default:
    emu_fatal("internal error: collective %d cannot be recorded", (int)x->kind);
  }
  free(a);
  free(b);
}

/* A collective on another communicator: replay knows only MPI_COMM_WORLD, so the algorithm's
 * point-to-point program is recorded instead, in world ranks. Its tags are the collectives'
 * negative system tags: no user message (tag >= 0) can match them. */
static void trace_program(emu_rank *k, const coll_prog *p, const int *world_of, double comp) {
  int me = k->id;
  int *key_src = xmalloc((size_t)(p->n + 1) * sizeof *key_src);
  int *key_dst = xmalloc((size_t)(p->n + 1) * sizeof *key_dst);
  char *open = xcalloc((size_t)p->n + 1, 1);
  int waited_to = 0;
  for (int i = 0; i < p->n; i++) {
    const coll_op *op = &p->ops[i];
    int w = 0;
    if (op->kind == CO_ISEND || op->kind == CO_SEND || op->kind == CO_IRECV || op->kind == CO_RECV)
      w = world_of[op->peer];
    switch ((coll_opkind)op->kind) {
    case CO_ISEND: case CO_SEND:
      emu_trace_line(k, "%s %d %d %.0f 6", op->kind == CO_SEND ? "send" : "isend", w, op->tag, op->bytes);
      key_src[i] = me; key_dst[i] = w; open[i] = op->kind == CO_ISEND;
      break;
    case CO_IRECV: case CO_RECV:
      emu_trace_line(k, "%s %d %d %.0f 6", op->kind == CO_RECV ? "recv" : "irecv", w, op->tag, op->bytes);
      key_src[i] = w; key_dst[i] = me; open[i] = op->kind == CO_IRECV;
      break;
    case CO_WAIT:
      if (op->peer >= 0 && op->peer < i && open[op->peer]) {
        emu_trace_line(k, "wait %d %d %d", key_src[op->peer], key_dst[op->peer], p->ops[op->peer].tag);
        open[op->peer] = 0;
      }
      break;
    case CO_WAITALL:
      for (int j = waited_to; j < i; j++)
        if (open[j]) { emu_trace_line(k, "wait %d %d %d", key_src[j], key_dst[j], p->ops[j].tag); open[j] = 0; }
      waited_to = i;
      break;
    case CO_COMPUTE:
      emu_trace_compute(k, op->flops);
      break;
    case CO_COMBINE:   /* charged after the program (comp) */
      break;
    }
  }
  for (int j = 0; j < p->n; j++)
    if (open[j]) emu_trace_line(k, "wait %d %d %d", key_src[j], key_dst[j], p->ops[j].tag);
  emu_trace_compute(k, comp);
  free(key_src);
  free(key_dst);
  free(open);
}

/* The reduction's operator and datatype, on which SimGrid's default selector decides
 * (coll_call.has_op, commutative, derived): predefined operators are commutative, a user's
 * says so itself; a datatype is derived when the program built it. */
static void set_op(coll_call *x, MPI_Op op, MPI_Datatype dt) {
  rt_world *w = rt_w();
  x->has_op = 1;
  x->commutative = op > 0 && (size_t)op < w->ops.len ? w->ops.data[op].commute : 1;
  x->derived = dt >= PSIM_NUM_PREDEFINED_TYPES;
}

/* A collective whose algorithm depends on its operator or datatype (set_op) cannot be recorded
 * as its action: replay has no operator (SimGrid's MPI_OP_NULL) and would time the default
 * branch; its messages are recorded instead. */
static int op_decides(const coll_call *x) {
  int red = x->kind == COLL_REDUCE || x->kind == COLL_ALLREDUCE || x->kind == COLL_REDUCESCATTER;
  return red && x->has_op && (x->derived || !x->commutative);
}

static int world_shaped(const rt_comm *c) {
  if (c->size != emu_current->np) return 0;
  for (int i = 0; i < c->size; i++) if (c->world[i] != i) return 0;
  return 1;
}

void rt_coll_timing(rt_comm *c, coll_call *call) { rt_coll_timing_data(c, call, 0); }

void rt_coll_timing_data(rt_comm *c, coll_call *call, int at_rest) {
  emu_coll_cost();     /* the MPI's own work in the call (run/coll-cost) */
  emu_work_charge();   /* with the packing of its contribution (a non-contiguous type), first */
  coll_prog p = {0};
  psim_err e;
  psim_err_clear(&e);
  if (coll_build(emu_coll_selector(), call, &p, &e) < 0) emu_fatal("%s", e.msg);
  emu_rank *k = emu_self();
  /* the bytes this rank's operator combines in the algorithm, charged after the program as
   * one computation: where SimGrid's replay computes a reduction's comp, so that the trace
   * (the action's comp) and its replay give the run's times */
  double combined = 0;
  for (int i = 0; i < p.n; i++)
    if (p.ops[i].kind == CO_COMBINE) combined += p.ops[i].bytes;
  double comp = emu_combine_flops(combined);
  if (emu_current->o->nobservers && world_shaped(c)) emu_observe_coll(k, call, comp);
  int rec = emu_trace_on(k);
  if (rec) {
    if (world_shaped(c) && !op_decides(call)) trace_action(k, call, comp);
    else trace_program(k, &p, c->world, comp);
    k->trace_off++;   /* the program's own operations are not recorded again */
  }
  emu_hold(k, p.ops);
  emu_run_prog(&p, c->world, 2 * c->id + 1, at_rest);
  emu_combine_charge(comp);
  k->combine_rate = 0;   /* measured for this call only (measure_combine) */
  emu_release(k, p.ops);
  if (rec) k->trace_off--;
  coll_prog_free(&p);
}

void rt_alltoallv_bytes_timing(rt_comm *c, const double *sc, const double *rc) {
  coll_call x;
  memset(&x, 0, sizeof x);
  x.kind = COLL_ALLTOALLV;
  x.rank = rt_comm_rank(c);
  x.size = c->size;
  for (int i = 0; i < c->size; i++) { x.bytes += sc[i]; x.bytes2 += rc[i]; }
  x.counts = sc;
  x.counts2 = rc;
  x.dtsize = 1;
  rt_coll_timing(c, &x);
}

static rt_comm *coll_begin(const char *name, MPI_Comm comm) {
  emu_enter(name);
  rt_need_init();
  rt_comm *c = rt_comm_get(comm);
  emu_rank *k = emu_self();
  k->call = name;
  k->call_peer = k->call_tag = -99;
  return c;
}

static void deposit(rt_slot *s, int me, const void *buf, int count, MPI_Datatype dt) {
  s->data[me] = rt_pack_alloc(buf, count, dt, &s->len[me]);
}

static void *dup_bytes(const void *p, size_t n) {
  void *q = xmalloc(n ? n : 1);
  if (n) memcpy(q, p, n);
  return q;
}

/* (((c0 op c1) op c2) ... op c_upto), on packed data; caller frees. */
static void *reduce_upto(rt_slot *s, int upto, int count, MPI_Datatype dt, MPI_Op op) {
  void *acc = dup_bytes(s->data[0], s->len[0]);
  for (int i = 1; i <= upto; i++) {
    if (!s->data[i]) emu_fatal("internal error: contribution of rank %d missing", i);
    void *t = dup_bytes(s->data[i], s->len[i]);
    rt_reduce(op, dt, acc, t, count);
    free(acc);
    acc = t;
  }
  return acc;
}

/* The cost of the reduction's operator, measured on this call's own data: the rank's
 * contribution combined once with a copy of itself (a user's operator as much as MPI_SUM on
 * doubles: the real function on the real data, in the cache state the call finds). The bytes
 * of the rank's CO_COMBINEs are charged at this cost per byte after the call's program
 * (rt_coll_timing, emu_combine_charge): real MPIs combine on the rank's core, where psim
 * computes the result once for all ranks (reduce_upto), which is not the rank's time. The
 * copies are psim's and are not measured. MPI does not promise how often an operator is
 * called, and operators do not keep state between calls (MPI 4.0, 6.9.5). */
static void measure_combine(rt_slot *s, int me, int count, MPI_Datatype dt, MPI_Op op) {
  emu_rank *k = emu_self();
  k->combine_rate = 0;
  size_t len = s->len[me];
  if (!len || count <= 0) return;
  void *in = dup_bytes(s->data[me], len), *inout = dup_bytes(s->data[me], len);
  /* a few doubles take tens of nanoseconds, the clocks' own noise: an operator whose one call
   * takes under COMBINE_MIN_S is timed again over a batch of COMBINE_MAX_CALLS calls */
  enum { COMBINE_MAX_CALLS = 64 };
  const double COMBINE_MIN_S = 2e-6;
  emu_work w;
  emu_work_begin(&w);
  rt_reduce(op, dt, in, inout, count);
  double t = emu_work_took(&w);
  int calls = 1;
  if (t > 0 && t < COMBINE_MIN_S && len <= ((size_t)1 << 16)) {
    /* one measurement of a batch (the clocks' cost once), each call on a fresh copy of the
     * data: combined into one buffer over and over, a product of integers overflowed (UBSan,
     * tests/cli/run_type_names.sh), which one call on the program's data does not do */
    calls = COMBINE_MAX_CALLS;
    char *copies = xmalloc((size_t)calls * len);
    for (int i = 0; i < calls; i++) memcpy(copies + (size_t)i * len, s->data[me], len);
    emu_work_begin(&w);
    for (int i = 0; i < calls; i++) rt_reduce(op, dt, in, copies + (size_t)i * len, count);
    t = emu_work_took(&w);
    free(copies);
  }
  k->combine_rate = t / calls / (double)len;
  free(in);
  free(inout);
}

/* The copy a real MPI makes on the rank's core of its own block (gather's root, allgather,
 * alltoall, scatter's root: from its send buffer to its receive buffer) or of its send buffer
 * into its result (reductions, which then combine into it): charged to the rank as its work
 * (emu_work, run/charge-copies). The other blocks come through messages the program times. */
static size_t local_unpack(const void *in, size_t len, void *buf, int count, MPI_Datatype dt) {
  emu_work w;
  emu_work_begin(&w);
  size_t n = rt_unpack(in, len, buf, count, dt);
  emu_work_end(&w);
  return n;
}

static void need(rt_slot *s, int i) {
  if (!s->data[i]) emu_fatal("internal error: contribution of rank %d missing", i);
}

static coll_call mkcall(coll_kind k, rt_comm *c, int root, double b1, double b2, MPI_Datatype dt) {
  coll_call x;
  memset(&x, 0, sizeof x);
  x.kind = k;
  x.rank = rt_comm_rank(c);
  x.size = c->size;
  x.root = root;
  x.bytes = b1;
  x.bytes2 = b2;
  x.dtsize = dt ? (int)rt_type(dt)->size : 1;
  return x;
}

static void check_root(rt_comm *c, int root) {
  if (root < 0 || root >= c->size) emu_fatal("root %d out of range (communicator of size %d, MPI_ERR_ROOT)", root, c->size);
}

int MPI_Barrier(MPI_Comm comm) {
  rt_comm *c = coll_begin("MPI_Barrier", comm);
  coll_call x = mkcall(COLL_BARRIER, c, 0, 0, 0, 0);
  rt_coll_timing(c, &x);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  rt_comm *c = coll_begin("MPI_Bcast", comm);
  check_root(c, root);
  int me = rt_comm_rank(c);
  rt_slot *s = rt_slot_enter(c);
  if (me == root) deposit(s, me, buf, count, dt);
  coll_call x = mkcall(COLL_BCAST, c, root, (double)rt_pack_size(dt, count), 0, dt);
  rt_coll_timing(c, &x);
  if (me != root) { need(s, root); rt_unpack(s->data[root], s->len[root], buf, count, dt); }
  rt_slot_leave(c, s);
  emu_leave();
  return MPI_SUCCESS;
}

/* MPI forbids a collective's send and receive buffers to be the same (MPI_IN_PLACE says so);
 * MPICH stops with MPI_ERR_BUFFER. psim's copies would hide the mistake until the program
 * meets a real MPI: it stops as MPICH does. */
static void check_alias(const void *sbuf, const void *rbuf, int nonempty) {
  if (nonempty && sbuf && sbuf != MPI_IN_PLACE && sbuf == rbuf)
    emu_fatal("the send and receive buffers are the same (MPI_ERR_BUFFER): pass MPI_IN_PLACE as the send buffer");
}

/* MPI_IN_PLACE is the root's alone in a rooted collective (reduce and gather: its send buffer;
 * scatter: its receive buffer). Another rank's would be read or written at the sentinel's
 * address: MPICH stops with MPI_ERR_BUFFER (Debian's build crashed); psim read it as the
 * receive buffer and went on. */
static void check_inplace_root(const void *buf, int me, int root, int nonempty) {
  if (nonempty && buf == MPI_IN_PLACE && me != root)
    emu_fatal("rank %d passed MPI_IN_PLACE, which only the root (rank %d) may (MPI_ERR_BUFFER)", me, root);
}

static void reduce_common(const char *name, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                          MPI_Op op, int root, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  int all = root < 0;
  if (!all) check_root(c, root);
  int me = rt_comm_rank(c);
  check_alias(sbuf, rbuf, count > 0 && (all || me == root));
  if (!all) check_inplace_root(sbuf, me, root, count > 0);
  rt_slot *s = rt_slot_enter(c);
  deposit(s, me, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt);
  coll_call x = mkcall(all ? COLL_ALLREDUCE : COLL_REDUCE, c, all ? 0 : root,
                       (double)rt_pack_size(dt, count), 0, dt);
  set_op(&x, op, dt);
  measure_combine(s, me, count, dt, op);
  rt_coll_timing(c, &x);
  if (all || me == root) {
    if (!s->res) s->res = reduce_upto(s, c->size - 1, count, dt, op);
    local_unpack(s->res, rt_pack_size(dt, count), rbuf, count, dt);
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  reduce_common("MPI_Reduce", sbuf, rbuf, count, dt, op, root, comm);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  reduce_common("MPI_Allreduce", sbuf, rbuf, count, dt, op, -1, comm);
  return MPI_SUCCESS;
}

static void scan_common(const char *name, int ex, const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  int me = rt_comm_rank(c);
  check_alias(sbuf, rbuf, count > 0);
  rt_slot *s = rt_slot_enter(c);
  deposit(s, me, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt);
  coll_call x = mkcall(ex ? COLL_EXSCAN : COLL_SCAN, c, 0, (double)rt_pack_size(dt, count), 0, dt);
  set_op(&x, op, dt);
  measure_combine(s, me, count, dt, op);
  rt_coll_timing(c, &x);
  int upto = ex ? me - 1 : me;
  if (upto >= 0) {
    void *r = reduce_upto(s, upto, count, dt, op);
    local_unpack(r, rt_pack_size(dt, count), rbuf, count, dt);
    free(r);
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  scan_common("MPI_Scan", 0, sbuf, rbuf, count, dt, op, comm);
  return MPI_SUCCESS;
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  scan_common("MPI_Exscan", 1, sbuf, rbuf, count, dt, op, comm);
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) {
  rt_comm *c = coll_begin("MPI_Reduce_scatter", comm);
  int me = rt_comm_rank(c), n = c->size, total = 0, before = 0;
  for (int i = 0; i < n; i++) { if (i < me) before += rcounts[i]; total += rcounts[i]; }
  check_alias(sbuf, rbuf, total > 0);
  rt_slot *s = rt_slot_enter(c);
  deposit(s, me, sbuf == MPI_IN_PLACE ? rbuf : sbuf, total, dt);
  double *cnt = xmalloc((size_t)n * sizeof *cnt);
  for (int i = 0; i < n; i++) cnt[i] = (double)rt_pack_size(dt, rcounts[i]);
  coll_call x = mkcall(COLL_REDUCESCATTER, c, 0, 0, 0, dt);
  set_op(&x, op, dt);
  x.counts2 = cnt;
  measure_combine(s, me, total, dt, op);
  rt_coll_timing(c, &x);
  free(cnt);
  if (!s->res) s->res = reduce_upto(s, n - 1, total, dt, op);
  size_t off = rt_pack_size(dt, before);
  local_unpack((char *)s->res + off, rt_pack_size(dt, rcounts[me]), rbuf, rcounts[me], dt);
  rt_slot_leave(c, s);
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm) {
  rt_comm *c = rt_comm_get(comm);
  int *cnt = xmalloc((size_t)c->size * sizeof *cnt);
  for (int i = 0; i < c->size; i++) cnt[i] = rcount;
  MPI_Reduce_scatter(sbuf, rbuf, cnt, dt, op, comm);
  free(cnt);
  return MPI_SUCCESS;
}

/* gather and gatherv: v = NULL for gather */
static void gather_common(const char *name, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                          int root, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  check_root(c, root);
  int me = rt_comm_rank(c), n = c->size;
  check_alias(sbuf, rbuf, me == root && scount > 0);
  check_inplace_root(sbuf, me, root, scount > 0);
  rt_slot *s = rt_slot_enter(c);
  int inplace = sbuf == MPI_IN_PLACE && me == root;
  if (!inplace) deposit(s, me, sbuf, scount, stype);
  double sbytes = inplace ? (double)rt_pack_size(rtype, rcounts ? rcounts[me] : rcount)
                          : (double)rt_pack_size(stype, scount);
  coll_call x;
  double *cnt = NULL;
  if (!rcounts) {
    x = mkcall(COLL_GATHER, c, root, sbytes, me == root ? (double)rt_pack_size(rtype, rcount) : sbytes,
               inplace ? rtype : stype);
  } else {
    x = mkcall(COLL_GATHERV, c, root, sbytes, 0, inplace ? rtype : stype);
    cnt = xcalloc((size_t)n, sizeof *cnt);
    if (me == root) for (int i = 0; i < n; i++) cnt[i] = (double)rt_pack_size(rtype, rcounts[i]);
    x.counts2 = cnt;
  }
  rt_coll_timing(c, &x);
  free(cnt);
  if (me == root) {
    ptrdiff_t ext = rt_extent(rtype);
    for (int i = 0; i < n; i++) {
      if (i == me && inplace) continue;
      need(s, i);
      int cnt_i = rcounts ? rcounts[i] : rcount;
      char *dst = (char *)rbuf + (ptrdiff_t)(rcounts ? displs[i] : i * rcount) * ext;
      if (i == me) local_unpack(s->data[i], s->len[i], dst, cnt_i, rtype);
      else rt_unpack(s->data[i], s->len[i], dst, cnt_i, rtype);
    }
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm) {
  gather_common("MPI_Gather", sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, root, comm);
  return MPI_SUCCESS;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  rt_comm *c = rt_comm_get(comm);
  int me = rt_comm_rank(c);
  if (me != root) {  /* rcounts/displs are significant only at the root */
    int *z = xcalloc((size_t)c->size, sizeof *z);
    gather_common("MPI_Gatherv", sbuf, scount, stype, rbuf, 0, z, z, rtype ? rtype : stype, root, comm);
    free(z);
  } else {
    gather_common("MPI_Gatherv", sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm);
  }
  return MPI_SUCCESS;
}

static void scatter_common(const char *name, const void *sbuf, int scount, const int *scounts,
                           const int *displs, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  check_root(c, root);
  int me = rt_comm_rank(c), n = c->size;
  check_alias(sbuf, rbuf == MPI_IN_PLACE ? NULL : rbuf, me == root && rcount > 0);
  check_inplace_root(rbuf, me, root, rcount > 0);
  rt_slot *s = rt_slot_enter(c);
  int inplace = rbuf == MPI_IN_PLACE && me == root;
  double *cnt = NULL;
  coll_call x;
  if (me == root) {
    /* the root deposits every rank's piece */
    ptrdiff_t ext = rt_extent(stype);
    for (int i = 0; i < n; i++) {
      int ci = scounts ? scounts[i] : scount;
      const char *src = (const char *)sbuf + (ptrdiff_t)(scounts ? displs[i] : i * scount) * ext;
      s->data[i] = rt_pack_alloc(src, ci, stype, &s->len[i]);
    }
  }
  double rbytes = inplace ? (double)rt_pack_size(stype, scounts ? scounts[me] : scount)
                          : (double)rt_pack_size(rtype, rcount);
  if (!scounts) {
    x = mkcall(COLL_SCATTER, c, root, me == root ? (double)rt_pack_size(stype, scount) : rbytes, rbytes,
               me == root ? stype : rtype);
  } else {
    x = mkcall(COLL_SCATTERV, c, root, 0, rbytes, me == root ? stype : rtype);
    cnt = xcalloc((size_t)n, sizeof *cnt);
    if (me == root) for (int i = 0; i < n; i++) cnt[i] = (double)rt_pack_size(stype, scounts[i]);
    x.counts = cnt;
  }
  rt_coll_timing(c, &x);
  free(cnt);
  if (!inplace) {
    need(s, me);
    if (me == root) local_unpack(s->data[me], s->len[me], rbuf, rcount, rtype);
    else rt_unpack(s->data[me], s->len[me], rbuf, rcount, rtype);
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm) {
  scatter_common("MPI_Scatter", sbuf, scount, NULL, NULL, stype, rbuf, rcount, rtype, root, comm);
  return MPI_SUCCESS;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  rt_comm *c = rt_comm_get(comm);
  if (rt_comm_rank(c) != root) {
    int *z = xcalloc((size_t)c->size, sizeof *z);
    scatter_common("MPI_Scatterv", sbuf, 0, z, z, rtype, rbuf, rcount, rtype, root, comm);
    free(z);
  } else {
    scatter_common("MPI_Scatterv", sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
  }
  return MPI_SUCCESS;
}

static void allgather_common(const char *name, const void *sbuf, int scount, MPI_Datatype stype,
                             void *rbuf, int rcount, const int *rcounts, const int *displs,
                             MPI_Datatype rtype, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  int me = rt_comm_rank(c), n = c->size;
  check_alias(sbuf, rbuf, scount > 0);
  ptrdiff_t ext = rt_extent(rtype);
  rt_slot *s = rt_slot_enter(c);
  if (sbuf == MPI_IN_PLACE) {
    int ci = rcounts ? rcounts[me] : rcount;
    deposit(s, me, (char *)rbuf + (ptrdiff_t)(rcounts ? displs[me] : me * rcount) * ext, ci, rtype);
  } else {
    deposit(s, me, sbuf, scount, stype);
  }
  double *cnt = NULL;
  coll_call x;
  if (!rcounts) {
    x = mkcall(COLL_ALLGATHER, c, 0, (double)s->len[me], (double)rt_pack_size(rtype, rcount), rtype);
  } else {
    x = mkcall(COLL_ALLGATHERV, c, 0, (double)s->len[me], 0, rtype);
    cnt = xmalloc((size_t)n * sizeof *cnt);
    for (int i = 0; i < n; i++) cnt[i] = (double)rt_pack_size(rtype, rcounts[i]);
    x.counts2 = cnt;
  }
  rt_coll_timing(c, &x);
  free(cnt);
  for (int i = 0; i < n; i++) {
    need(s, i);
    if (i == me && sbuf == MPI_IN_PLACE) continue;
    int ci = rcounts ? rcounts[i] : rcount;
    char *dst = (char *)rbuf + (ptrdiff_t)(rcounts ? displs[i] : i * rcount) * ext;
    if (i == me) local_unpack(s->data[i], s->len[i], dst, ci, rtype);
    else rt_unpack(s->data[i], s->len[i], dst, ci, rtype);
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm) {
  allgather_common("MPI_Allgather", sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, comm);
  return MPI_SUCCESS;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  allgather_common("MPI_Allgatherv", sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm);
  return MPI_SUCCESS;
}

/* alltoall(v): each rank deposits [offsets of its n pieces][the pieces], packed */
const void *rt_inplace_copy(const void *buf, ptrdiff_t lo, ptrdiff_t hi, void **tmp) {
  *tmp = xmalloc((size_t)(hi - lo) + 1);
  memcpy(*tmp, (const char *)buf + lo, (size_t)(hi - lo));
  return (char *)*tmp - lo;
}

/* The bytes [lo, hi) from the buffer's address that n blocks of an alltoall or alltoallv span
 * (count each at i x count, or counts[i] at displs[i], in elements of extent ext). */
static void blocks_span(int n, int count, const int *counts, const int *displs, ptrdiff_t ext, ptrdiff_t *lo,
                        ptrdiff_t *hi) {
  *lo = *hi = 0;
  for (int i = 0; i < n; i++) {
    ptrdiff_t a = (ptrdiff_t)(counts ? displs[i] : i * count) * ext;
    ptrdiff_t b = a + (ptrdiff_t)(counts ? counts[i] : count) * ext;
    if (i == 0 || a < *lo) *lo = a;
    if (i == 0 || b > *hi) *hi = b;
  }
}

/* MPICH's alltoall sends each block from the program's send buffer as it lies (pairwise,
 * scattered: no copy first), so its messages are written data only when the program wrote
 * that buffer since it last moved, as a point-to-point send's are (emu_written.c): the whole
 * span of the blocks, one contiguous datatype (a non-contiguous one is packed: written). Only
 * on a platform with written factors (else both are the same, and the pass over the buffer is
 * not made). */
static int send_at_rest(const void *sbuf, int scount, const int *scounts, const int *sdispls, MPI_Datatype stype,
                        int n) {
  if (!emu_current->o->net.wr_factors || !rt_type(stype)->contig) return 0;
  ptrdiff_t lo, hi;
  blocks_span(n, scount, scounts, sdispls, rt_extent(stype), &lo, &hi);
  return hi > lo && !emu_send_written(emu_self(), (const char *)sbuf + lo, (size_t)(hi - lo));
}

static void alltoall_common(const char *name, const void *sbuf, int scount, const int *scounts,
                            const int *sdispls, MPI_Datatype stype, void *rbuf, int rcount,
                            const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  rt_comm *c = coll_begin(name, comm);
  int me = rt_comm_rank(c), n = c->size;
  check_alias(sbuf, rbuf, 1);
  void *tmp = NULL;
  int at_rest = sbuf != MPI_IN_PLACE && send_at_rest(sbuf, scount, scounts, sdispls, stype, n);
  if (sbuf == MPI_IN_PLACE) {
    /* the receive buffer is also the send buffer: pack it before anything is overwritten (from
     * the buffer's address on, or from the lowest block below it) */
    ptrdiff_t lo, hi;
    blocks_span(n, rcount, rcounts, rdispls, rt_extent(rtype), &lo, &hi);
    if (lo > 0) lo = 0;
    if (hi < 0) hi = 0;
    sbuf = rt_inplace_copy(rbuf, lo, hi, &tmp);
    scount = rcount;
    scounts = rcounts;
    sdispls = rdispls;
    stype = rtype;
  }
  rt_slot *s = rt_slot_enter(c);
  ptrdiff_t sext = rt_extent(stype);
  size_t hdr = (size_t)(n + 1) * sizeof(size_t), total = 0;
  for (int i = 0; i < n; i++) total += rt_pack_size(stype, scounts ? scounts[i] : scount);
  char *blob = xmalloc(hdr + total + 1);
  size_t *off = (size_t *)blob, pos = 0;
  double *sc = xmalloc((size_t)n * sizeof *sc), *rc = xmalloc((size_t)n * sizeof *rc);
  for (int i = 0; i < n; i++) {
    int ci = scounts ? scounts[i] : scount;
    off[i] = pos;
    rt_pack((const char *)sbuf + (ptrdiff_t)(scounts ? sdispls[i] : i * scount) * sext, ci, stype, blob + hdr + pos);
    pos += rt_pack_size(stype, ci);
    sc[i] = (double)rt_pack_size(stype, ci);
    rc[i] = (double)rt_pack_size(rtype, rcounts ? rcounts[i] : rcount);
  }
  off[n] = pos;
  s->data[me] = blob;
  s->len[me] = hdr + total;
  free(tmp);
  coll_call x;
  if (!scounts) {
    x = mkcall(COLL_ALLTOALL, c, 0, sc[0], rc[0], stype);
  } else {
    double st = 0, rt = 0;
    for (int i = 0; i < n; i++) { st += sc[i]; rt += rc[i]; }
    x = mkcall(COLL_ALLTOALLV, c, 0, st, rt, stype);
    x.counts = sc;
    x.counts2 = rc;
  }
  rt_coll_timing_data(c, &x, at_rest);
  free(sc);
  free(rc);
  ptrdiff_t rext = rt_extent(rtype);
  for (int i = 0; i < n; i++) {
    need(s, i);
    const size_t *o = s->data[i];
    const char *piece = (const char *)s->data[i] + hdr + o[me];
    int ci = rcounts ? rcounts[i] : rcount;
    char *dst = (char *)rbuf + (ptrdiff_t)(rcounts ? rdispls[i] : i * rcount) * rext;
    if (i == me) local_unpack(piece, o[me + 1] - o[me], dst, ci, rtype);
    else rt_unpack(piece, o[me + 1] - o[me], dst, ci, rtype);
  }
  rt_slot_leave(c, s);
  emu_leave();
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
  alltoall_common("MPI_Alltoall", sbuf, scount, NULL, NULL, stype, rbuf, rcount, NULL, NULL, rtype, comm);
  return MPI_SUCCESS;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  alltoall_common("MPI_Alltoallv", sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm);
  return MPI_SUCCESS;
}
