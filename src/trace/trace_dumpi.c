/* SST DUMPI traces (a `.meta` key=value file and one `<prefix>-NNNN.bin` per rank), read
 * into TIT actions. Written from the format's description (sst-dumpi docs/traceformat.dox and
 * the field order of its headers); no DUMPI library is used.
 *
 * A .bin file: 8 bytes of magic; the call stream (two 32-bit time biases, then records until
 * the end-of-stream label); a header (version), a footer (per call: times called, times not
 * recorded), the datatype-size table, and an index of those sections' offsets in the last 64
 * bytes. Integers are big-endian. A record: 16-bit call label, 8-bit mask (status, CPU time,
 * wall time, thread id, perf counters), then the optional parts the mask selects, then the
 * call's arguments in a fixed order per call. Records carry no length, so a call whose
 * argument layout psim does not know stops the reading (an error naming it): skipping it
 * would read the rest of the stream at the wrong offsets.
 *
 * Opaque handles (communicators, groups, requests, datatypes) are small integers private to
 * each rank, so every table below is per rank. */
#include "trace_foreign.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DU_MAGIC_HI 0xffaadd44u
#define DU_MAGIC_LO 0x554d5049u
#define DU_FOOT_MAGIC 0xf007fee7u
#define DU_NCALLS 291       /* calls the footer counts (the MPI-2 set and DUMPIO's) */
#define DU_END_OF_STREAM 293
#define DU_COMM_WORLD 2
#define DU_COMM_SELF 3
#define DU_COMM_NULL 1
#define DU_GROUP_EMPTY 2
#define DU_REQUEST_NULL 1
#define DU_MAX_FILE ((long)1 << 31)

/* Argument layouts, one letter per field in stream order: i int32, h int16, b int8,
 * a int32 array (32-bit length then values), d int16 array, g array of int32 arrays,
 * c char array (32-bit length then bytes), v argv (32-bit count then char arrays),
 * s status and S status array (present when the mask says so), ? the rest only at the root
 * (cond = index of the root value; the first value is the caller's rank), ! end of that. */
typedef struct du_call {
  short id;
  const char *name, *layout;
  signed char cond;
} du_call;

enum {
  C_SEND = 0, C_RECV = 1, C_BSEND = 3, C_SSEND = 4, C_RSEND = 5, C_ISEND = 8, C_IBSEND = 9,
  C_ISSEND = 10, C_IRSEND = 11, C_IRECV = 12, C_WAIT = 13, C_TEST = 14, C_REQFREE = 15,
  C_WAITANY = 16, C_TESTANY = 17, C_WAITALL = 18, C_TESTALL = 19, C_WAITSOME = 20,
  C_TESTSOME = 21, C_SEND_INIT = 26, C_RECV_INIT = 30, C_START = 31, C_STARTALL = 32,
  C_SENDRECV = 33, C_SENDRECV_REPL = 34, C_BARRIER = 52, C_BCAST = 53, C_GATHER = 54,
  C_GATHERV = 55, C_SCATTER = 56, C_SCATTERV = 57, C_ALLGATHER = 58, C_ALLGATHERV = 59,
  C_ALLTOALL = 60, C_ALLTOALLV = 61, C_REDUCE = 62, C_ALLREDUCE = 65, C_REDSCAT = 66,
  C_SCAN = 67, C_COMM_GROUP = 72, C_GROUP_INCL = 76, C_GROUP_EXCL = 77, C_COMM_DUP = 84,
  C_COMM_CREATE = 85, C_COMM_SPLIT = 86, C_CART_CREATE = 99, C_CART_SUB = 111, C_EXSCAN = 156,
};

static const du_call CALLS[] = {
  {0, "Send", "ihiih", 0}, {1, "Recv", "ihiihs", 0}, {2, "Get_count", "shi", 0},
  {3, "Bsend", "ihiih", 0}, {4, "Ssend", "ihiih", 0}, {5, "Rsend", "ihiih", 0},
  {8, "Isend", "ihiihi", 0}, {9, "Ibsend", "ihiihi", 0}, {10, "Issend", "ihiihi", 0},
  {11, "Irsend", "ihiihi", 0}, {12, "Irecv", "ihiihi", 0}, {13, "Wait", "is", 0},
  {14, "Test", "iis", 0}, {15, "Request_free", "i", 0}, {16, "Waitany", "iais", 0},
  {17, "Testany", "iaiis", 0}, {18, "Waitall", "iaS", 0}, {19, "Testall", "iaiS", 0},
  {20, "Waitsome", "iaiaS", 0}, {21, "Testsome", "iaiaS", 0}, {22, "Iprobe", "iihis", 0},
  {23, "Probe", "iihs", 0}, {24, "Cancel", "i", 0}, {26, "Send_init", "ihiihi", 0},
  {27, "Bsend_init", "ihiihi", 0}, {28, "Ssend_init", "ihiihi", 0}, {29, "Rsend_init", "ihiihi", 0},
  {30, "Recv_init", "ihiihi", 0}, {31, "Start", "i", 0}, {32, "Startall", "ia", 0},
  {33, "Sendrecv", "ihiiihiihs", 0}, {34, "Sendrecv_replace", "ihiiiihs", 0},
  {35, "Type_contiguous", "ihh", 0}, {36, "Type_vector", "iiihh", 0}, {37, "Type_hvector", "iiihh", 0},
  {38, "Type_indexed", "iaahh", 0}, {39, "Type_hindexed", "iaahh", 0}, {42, "Type_extent", "hi", 0},
  {43, "Type_size", "hi", 0}, {46, "Type_commit", "h", 0}, {47, "Type_free", "h", 0},
  {48, "Get_elements", "shi", 0}, {52, "Barrier", "h", 0}, {53, "Bcast", "ihih", 0},
  {54, "Gather", "iihih?ih", 3}, {55, "Gatherv", "iiihih?aa!h", 4}, {56, "Scatter", "iihih?ih", 3},
  {57, "Scatterv", "iihihih?aa", 5}, {58, "Allgather", "ihihh", 0}, {59, "Allgatherv", "iihaahh", 0},
  {60, "Alltoall", "ihihh", 0}, {61, "Alltoallv", "iaahaahh", 0}, {62, "Reduce", "ihbih", 0},
  {63, "Op_create", "ib", 0}, {64, "Op_free", "b", 0}, {65, "Allreduce", "ihbh", 0},
  {66, "Reduce_scatter", "iahbh", 0}, {67, "Scan", "ihbh", 0}, {68, "Group_size", "hi", 0},
  {69, "Group_rank", "hi", 0}, {70, "Group_translate_ranks", "hiaha", 0}, {72, "Comm_group", "hh", 0},
  {73, "Group_union", "hhh", 0}, {74, "Group_intersection", "hhh", 0}, {75, "Group_difference", "hhh", 0},
  {76, "Group_incl", "hiah", 0}, {77, "Group_excl", "hiah", 0}, {78, "Group_range_incl", "high", 0},
  {79, "Group_range_excl", "high", 0}, {80, "Group_free", "h", 0}, {81, "Comm_size", "hi", 0},
  {82, "Comm_rank", "hi", 0}, {83, "Comm_compare", "hhb", 0}, {84, "Comm_dup", "hh", 0},
  {85, "Comm_create", "hhh", 0}, {86, "Comm_split", "hiih", 0}, {87, "Comm_free", "h", 0},
  {88, "Comm_test_inter", "hi", 0}, {93, "Keyval_create", "h", 0}, {94, "Keyval_free", "h", 0},
  {95, "Attr_put", "hi", 0}, {96, "Attr_get", "hii", 0}, {98, "Topo_test", "hb", 0},
  {99, "Cart_create", "hiaaih", 0}, {100, "Dims_create", "iiaa", 0}, {104, "Cartdim_get", "hi", 0},
  {105, "Cart_get", "ihiaaai", 0}, {106, "Cart_rank", "ihai", 0}, {107, "Cart_coords", "ihiia", 0},
  {110, "Cart_shift", "hiiii", 0}, {111, "Cart_sub", "ihah", 0}, {114, "Get_processor_name", "ci", 0},
  {115, "Get_version", "ii", 0}, {117, "Errhandler_set", "hh", 0}, {118, "Errhandler_get", "hh", 0},
  {120, "Error_string", "ici", 0}, {121, "Error_class", "ii", 0}, {122, "Wtime", "", 0},
  {123, "Wtick", "", 0}, {124, "Init", "v", 0}, {125, "Finalize", "", 0}, {126, "Initialized", "i", 0},
  {127, "Abort", "hi", 0}, {156, "Exscan", "ihbh", 0}, {161, "Comm_create_keyval", "h", 0},
  {162, "Comm_delete_attr", "hh", 0}, {163, "Comm_free_keyval", "h", 0}, {164, "Comm_get_attr", "hhi", 0},
  {165, "Comm_get_name", "hci", 0}, {166, "Comm_set_attr", "hh", 0}, {167, "Comm_set_name", "hc", 0},
  {171, "Init_thread", "vbb", 0}, {172, "Is_thread_main", "i", 0}, {173, "Query_thread", "b", 0},
  {178, "Type_dup", "hh", 0}, {183, "Type_get_name", "hci", 0}, {185, "Type_set_name", "hc", 0},
  {195, "Alloc_mem", "ih", 0}, {197, "Comm_get_errhandler", "hh", 0}, {198, "Comm_set_errhandler", "hh", 0},
  {202, "Finalized", "i", 0}, {203, "Free_mem", "", 0}, {218, "Type_create_hindexed", "iaahh", 0},
  {219, "Type_create_hvector", "iiihh", 0}, {220, "Type_create_indexed_block", "iiahh", 0},
  {221, "Type_create_resized", "hiih", 0}, {222, "Type_create_struct", "iaadh", 0},
  {224, "Type_get_extent", "hii", 0}, {225, "Type_get_true_extent", "hii", 0},
};

static const du_call *find_call(int id) {
  for (size_t i = 0; i < sizeof CALLS / sizeof *CALLS; i++)
    if (CALLS[i].id == id) return &CALLS[i];
  return NULL;
}

/* ------------------------------------------------------------------ bytes */

typedef struct cur {
  const uint8_t *b;
  size_t n, pos;
  int bad;   /* read past the end */
} cur;

static int take(cur *c, size_t k) {
  if (c->bad || k > c->n - c->pos) { c->bad = 1; return 0; }
  c->pos += k;
  return 1;
}
static uint32_t g8(cur *c) { return take(c, 1) ? c->b[c->pos - 1] : 0; }
static uint32_t g16(cur *c) {
  if (!take(c, 2)) return 0;
  const uint8_t *p = c->b + c->pos - 2;
  return (uint32_t)p[0] << 8 | p[1];
}
static uint32_t g32(cur *c) {
  if (!take(c, 4)) return 0;
  const uint8_t *p = c->b + c->pos - 4;
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t g64(cur *c) { uint64_t h = g32(c); return h << 32 | g32(c); }

/* A 32-bit length that the remaining bytes can hold at `each` bytes per element. */
static long glen(cur *c, size_t each) {
  int32_t n = (int32_t)g32(c);
  if (c->bad || n < 0 || (each && (size_t)n > (c->n - c->pos) / each)) { c->bad = 1; return 0; }
  return n;
}

/* ------------------------------------------------------------------ one rank's state */

typedef struct ivec { int *v; long n; } ivec;   /* world ranks of a communicator or group */

typedef struct handle { long id; ivec m; } handle;
typedef VEC(handle) handles;

typedef struct split_ev { int rank; long color, key; } split_ev;
typedef VEC(split_ev) split_vec;

typedef struct rstate {
  handles comms, groups;
  VEC(long) req_id;    /* pending request handle ... */
  VEC(long) req_op;    /* ... and the action it completes */
  double last_end;     /* seconds; < 0 before the first record */
  long nsplit;         /* Comm_split calls so far (their order matches across ranks) */
} rstate;

typedef struct du_reader {
  fx_trace *t;
  const char *file;   /* the .bin being read */
  int *sizes;         /* datatype sizes of the rank being read */
  long nsizes;
  int version[3];
  int pass;           /* 1: only Comm_split calls (memberships); 2: the actions */
  rstate *R;
  /* pass 1 fills: per split sequence number, the calls of every rank */
  split_vec *splits;
  ivec *split_members;   /* per (sequence, rank) once resolved: index seq * nranks + rank */
  long nseq;
  long not_replayed[3];  /* persistent requests, intercommunicator-like calls, sub-comm colls */
  long unknown_peer, sub_comm_coll;
  int timer;           /* mask bit used for compute: 8 wall, 4 cpu, 0 none */
} du_reader;

static ivec ivec_copy(const int *v, long n) {
  ivec r = {n ? xcalloc((size_t)n, sizeof(int)) : NULL, n};
  if (n) memcpy(r.v, v, (size_t)n * sizeof(int));
  return r;
}

static ivec *hfind(handles *h, long id) {
  for (size_t i = h->len; i-- > 0;)
    if (h->data[i].id == id) return &h->data[i].m;
  return NULL;
}

static void hset(handles *h, long id, ivec m) {
  ivec *old = hfind(h, id);
  if (old) { free(old->v); *old = m; return; }
  handle x = {id, m};
  VEC_PUSH(*h, x);
}

static void hfree(handles *h) {
  for (size_t i = 0; i < h->len; i++) free(h->data[i].m.v);
  VEC_FREE(*h);
}

/* The world ranks of communicator id on rank r, or NULL if the trace never said. */
static const ivec *comm_members(du_reader *d, int r, long id, ivec *tmp) {
  if (id == DU_COMM_WORLD) {
    static int dummy;
    tmp->v = &dummy;   /* identity: v unused */
    tmp->n = -1;
    return tmp;
  }
  if (id == DU_COMM_SELF) {
    tmp->v = NULL;
    tmp->n = -2 - r;   /* encodes {r} */
    return tmp;
  }
  return hfind(&d->R[r].comms, id);
}

static long m_size(const du_reader *d, const ivec *m) {
  return m->n == -1 ? d->t->nranks : m->n < -1 ? 1 : m->n;
}
static int m_at(const ivec *m, long i) {
  return m->n == -1 ? (int)i : m->n < -1 ? (int)(-2 - m->n) : m->v[i];
}
static ivec m_copy(const du_reader *d, const ivec *m) {
  long n = m_size(d, m);
  ivec r = {xcalloc((size_t)n + 1, sizeof(int)), n};
  for (long i = 0; i < n; i++) r.v[i] = m_at(m, i);
  return r;
}

/* ------------------------------------------------------------------ records */

typedef struct arg {
  long v[16];
  int nv;
  const uint8_t *arr[6];   /* int32 arrays, big-endian, as in the file */
  long alen[6];
  int na;
} arg;

static int arr_at(const arg *a, int k, long i) {
  const uint8_t *p = a->arr[k] + 4 * i;
  return (int)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static void skip_status(du_reader *d, cur *c, uint8_t mask, int array) {
  (void)array;
  if (!(mask & 3)) return;
  int with_tag = d->version[0] > 0 || d->version[1] > 6 || (d->version[1] == 6 && d->version[2] >= 3);
  size_t each = 10 + (with_tag ? 4 : 0);
  long n = glen(c, each);
  take(c, (size_t)n * each);
}

static int parse_args(du_reader *d, cur *c, const du_call *k, uint8_t mask, arg *a) {
  a->nv = a->na = 0;
  int skipping = 0;
  for (const char *p = k->layout; *p; p++) {
    if (*p == '?') { skipping = a->v[0] != a->v[(int)k->cond]; continue; }
    if (*p == '!') { skipping = 0; continue; }
    if (skipping) continue;
    long n;
    switch (*p) {
    case 'i': a->v[a->nv++] = (int32_t)g32(c); break;
    case 'h': a->v[a->nv++] = (int16_t)g16(c); break;
    case 'b': a->v[a->nv++] = (int8_t)g8(c); break;
    case 'a':
      n = glen(c, 4);
      if (a->na < 6) { a->arr[a->na] = c->b + c->pos; a->alen[a->na++] = n; }
      take(c, (size_t)n * 4);
      break;
    case 'd': n = glen(c, 2); take(c, (size_t)n * 2); break;
    case 'c': n = glen(c, 1); take(c, (size_t)n); break;
    case 'g': n = glen(c, 4); for (long i = 0; i < n && !c->bad; i++) { long m = glen(c, 4); take(c, (size_t)m * 4); } break;
    case 'v': n = glen(c, 4); for (long i = 0; i < n && !c->bad; i++) { long m = glen(c, 1); take(c, (size_t)m); } break;
    case 's': case 'S': skip_status(d, c, mask, *p == 'S'); break;
    default: break;
    }
    if (c->bad) return -1;
  }
  return 0;
}

static double bytes_of(du_reader *d, long count, long type, int *ok) {
  if (type < 0 || type >= d->nsizes || count < 0) { *ok = 0; return 0; }
  return (double)count * d->sizes[type];
}

/* The world rank of comm-local rank `peer` (-1 for ANY_SOURCE), or -3 when unknown. */
static int world_peer(du_reader *d, int r, long comm, long peer) {
  if (peer == -1) return -1;
  ivec tmp;
  const ivec *m = comm_members(d, r, comm, &tmp);
  if (!m || peer < 0 || peer >= m_size(d, m)) return -3;
  return m_at(m, peer);
}

static void add_req(du_reader *d, int r, long id) {
  rstate *S = &d->R[r];
  if (id == DU_REQUEST_NULL) return;
  VEC_PUSH(S->req_id, id);
  VEC_PUSH(S->req_op, (long)d->t->ranks[r].len - 1);
}

static void wait_req(du_reader *d, int r, long id) {
  rstate *S = &d->R[r];
  for (size_t i = 0; i < S->req_id.len; i++) {
    if (S->req_id.data[i] != id) continue;
    fx_push(d->t, r, TIT_WAIT)->req = S->req_op.data[i];
    memmove(S->req_id.data + i, S->req_id.data + i + 1, (S->req_id.len - i - 1) * sizeof(long));
    memmove(S->req_op.data + i, S->req_op.data + i + 1, (S->req_op.len - i - 1) * sizeof(long));
    S->req_id.len--;
    S->req_op.len--;
    return;
  }
}

static int p2p(du_reader *d, int r, tit_kind kind, long count, long type, long peer, long tag, long comm) {
  int ok = 1;
  double b = bytes_of(d, count, type, &ok);
  if (!ok) return -1;
  int w = world_peer(d, r, comm, peer);
  if (w == -3) { d->unknown_peer++; return 1; }
  fx_op *o = fx_push(d->t, r, kind);
  o->peer = w;
  o->tag = tag < 0 ? -1 : (int)tag;
  o->bytes = b;
  return 0;
}

static int coll(du_reader *d, int r, tit_kind kind, long comm, double b, double b2, long root) {
  ivec tmp;
  const ivec *m = comm_members(d, r, comm, &tmp);
  if (!m || m_size(d, m) != d->t->nranks) { d->sub_comm_coll++; return 0; }
  fx_op *o = fx_push(d->t, r, kind);
  o->bytes = b;
  o->bytes2 = b2;
  if (root >= 0) o->root = m_at(m, root < m_size(d, m) ? root : 0);
  return 0;
}

/* The actions of one call (pass 2), or the memberships it creates. -1: a datatype outside
 * the trace's table (the caller names the record). */
static int apply(du_reader *d, int r, int id, const arg *a) {
  rstate *S = &d->R[r];
  const long *v = a->v;
  int ok = 1;
  switch (id) {
  case C_COMM_SPLIT: {
    long seq = S->nsplit++;
    if (d->pass == 1) {
      if (seq >= d->nseq) {
        d->splits = xrealloc(d->splits, (size_t)(seq + 1) * sizeof *d->splits);
        memset(d->splits + d->nseq, 0, (size_t)(seq + 1 - d->nseq) * sizeof *d->splits);
        d->nseq = seq + 1;
      }
      split_ev e = {r, v[1], v[2]};
      VEC_PUSH(d->splits[seq], e);
    } else if (v[3] != DU_COMM_NULL && d->split_members && seq < d->nseq) {
      hset(&S->comms, v[3], ivec_copy(d->split_members[seq * d->t->nranks + r].v,
                                      d->split_members[seq * d->t->nranks + r].n));
    }
    return 0;
  }
  case C_COMM_GROUP: {
    ivec tmp;
    const ivec *m = comm_members(d, r, v[0], &tmp);
    if (m) hset(&S->groups, v[1], m_copy(d, m));
    return 0;
  }
  case C_GROUP_INCL: case C_GROUP_EXCL: {
    ivec *g = hfind(&S->groups, v[0]);
    if (!g) return 0;
    ivec n = {xcalloc((size_t)g->n + 1, sizeof(int)), 0};
    if (id == C_GROUP_INCL) {
      for (long i = 0; i < a->alen[0]; i++) {
        int x = arr_at(a, 0, i);
        if (x >= 0 && x < g->n) n.v[n.n++] = g->v[x];
        if (n.n == g->n) break;
      }
    } else {
      for (long j = 0; j < g->n; j++) {
        int out = 0;
        for (long i = 0; i < a->alen[0]; i++) out |= arr_at(a, 0, i) == j;
        if (!out) n.v[n.n++] = g->v[j];
      }
    }
    hset(&S->groups, v[2], n);
    return 0;
  }
  case C_COMM_CREATE: {
    ivec *g = hfind(&S->groups, v[1]);
    if (g && v[2] != DU_COMM_NULL) hset(&S->comms, v[2], ivec_copy(g->v, g->n));
    return 0;
  }
  case C_COMM_DUP: case C_CART_CREATE: {
    long from = v[0], to = id == C_COMM_DUP ? v[1] : v[a->nv - 1];
    ivec tmp;
    const ivec *m = comm_members(d, r, from, &tmp);
    if (m && to != DU_COMM_NULL) hset(&S->comms, to, m_copy(d, m));
    return 0;
  }
  default: break;
  }
  if (d->pass == 1) return 0;
  switch (id) {
  case C_SEND: case C_BSEND: case C_SSEND: case C_RSEND:
    return p2p(d, r, TIT_SEND, v[0], v[1], v[2], v[3], v[4]) < 0 ? -1 : 0;
  case C_RECV: return p2p(d, r, TIT_RECV, v[0], v[1], v[2], v[3], v[4]) < 0 ? -1 : 0;
  case C_ISEND: case C_IBSEND: case C_ISSEND: case C_IRSEND: case C_IRECV: {
    int rc = p2p(d, r, id == C_IRECV ? TIT_IRECV : TIT_ISEND, v[0], v[1], v[2], v[3], v[4]);
    if (rc == 0) add_req(d, r, v[5]);
    return rc < 0 ? -1 : 0;
  }
  case C_SENDRECV: {
    int rc = p2p(d, r, TIT_ISEND, v[0], v[1], v[2], v[3], v[8]);
    if (rc == 0) fx_push(d->t, r, TIT_WAIT)->req = (long)d->t->ranks[r].len - 1;
    int rc2 = rc < 0 ? -1 : p2p(d, r, TIT_RECV, v[4], v[5], v[6], v[7], v[8]);
    return rc2 < 0 ? -1 : 0;
  }
  case C_SENDRECV_REPL: {
    int rc = p2p(d, r, TIT_ISEND, v[0], v[1], v[2], v[3], v[6]);
    if (rc == 0) fx_push(d->t, r, TIT_WAIT)->req = (long)d->t->ranks[r].len - 1;
    int rc2 = rc < 0 ? -1 : p2p(d, r, TIT_RECV, v[0], v[1], v[4], v[5], v[6]);
    return rc2 < 0 ? -1 : 0;
  }
  case C_WAIT: wait_req(d, r, v[0]); return 0;
  case C_TEST: if (v[1]) wait_req(d, r, v[0]); return 0;
  case C_WAITANY: case C_TESTANY:
    if ((id == C_WAITANY || v[2]) && v[1] >= 0 && v[1] < a->alen[0]) wait_req(d, r, arr_at(a, 0, v[1]));
    return 0;
  case C_WAITALL: case C_TESTALL:
    if (id == C_WAITALL || v[1])
      for (long i = 0; i < a->alen[0]; i++) wait_req(d, r, arr_at(a, 0, i));
    return 0;
  case C_WAITSOME: case C_TESTSOME:
    for (long i = 0; i < a->alen[1]; i++) {
      long k = arr_at(a, 1, i);
      if (k >= 0 && k < a->alen[0]) wait_req(d, r, arr_at(a, 0, k));
    }
    return 0;
  case C_SEND_INIT: case 27: case 28: case 29: case C_RECV_INIT: case C_START: case C_STARTALL:
    d->not_replayed[0]++;
    return 0;
  case C_BARRIER: return coll(d, r, TIT_BARRIER, v[0], 0, 0, -1);
  case C_BCAST: { double b = bytes_of(d, v[0], v[1], &ok); return ok ? coll(d, r, TIT_BCAST, v[3], b, 0, v[2]) : -1; }
  case C_REDUCE: { double b = bytes_of(d, v[0], v[1], &ok); return ok ? coll(d, r, TIT_REDUCE, v[4], b, 0, v[3]) : -1; }
  case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: {
    double b = bytes_of(d, v[0], v[1], &ok);
    tit_kind k = id == C_ALLREDUCE ? TIT_ALLREDUCE : id == C_SCAN ? TIT_SCAN : TIT_EXSCAN;
    return ok ? coll(d, r, k, v[3], b, 0, -1) : -1;
  }
  case C_ALLTOALL: case C_ALLGATHER: {
    double b = bytes_of(d, v[0], v[1], &ok), b2 = bytes_of(d, v[2], v[3], &ok);
    return ok ? coll(d, r, id == C_ALLTOALL ? TIT_ALLTOALL : TIT_ALLGATHER, v[4], b, b2, -1) : -1;
  }
  case C_GATHER: {   /* the receive size is recorded at the root only: elsewhere, the send size */
    double b = bytes_of(d, v[1], v[2], &ok);
    double b2 = a->nv > 6 ? bytes_of(d, v[5], v[6], &ok) : b;
    return ok ? coll(d, r, TIT_GATHER, v[4], b, b2, v[3]) : -1;
  }
  case C_SCATTER: {
    double b2 = bytes_of(d, v[1], v[2], &ok);
    double b = a->nv > 6 ? bytes_of(d, v[5], v[6], &ok) : b2;
    return ok ? coll(d, r, TIT_SCATTER, v[4], b, b2, v[3]) : -1;
  }
  case C_GATHERV: case C_SCATTERV: case C_ALLGATHERV: case C_ALLTOALLV: case C_REDSCAT: {
    /* v-variants replay as their regular forms with even sizes (as the Paraver reader does) */
    double tot = 0;
    long n = 0, type;
    int k0 = 0;
    if (id == C_GATHERV) { tot = bytes_of(d, v[2], v[3], &ok); n = 1; type = -1; }
    else if (id == C_SCATTERV) { tot = bytes_of(d, v[3], v[4], &ok); n = 1; type = -1; }
    else if (id == C_ALLGATHERV) { tot = bytes_of(d, v[1], v[2], &ok); n = 1; type = -1; }
    else { type = id == C_ALLTOALLV ? v[1] : v[1]; k0 = 0; }
    if (type >= 0 && a->na > k0) {
      long cnt = 0;
      for (long i = 0; i < a->alen[k0]; i++) cnt += arr_at(a, k0, i);
      tot = bytes_of(d, cnt, type, &ok);
      n = a->alen[k0] ? a->alen[k0] : 1;
    }
    if (!ok) return -1;
    double b = tot / (double)(n ? n : 1);
    switch (id) {
    case C_GATHERV: return coll(d, r, TIT_GATHER, v[5], b, b, v[4]);
    case C_SCATTERV: return coll(d, r, TIT_SCATTER, v[6], b, b, v[5]);
    case C_ALLGATHERV: return coll(d, r, TIT_ALLGATHER, v[a->nv - 1], b, b, -1);
    case C_ALLTOALLV: return coll(d, r, TIT_ALLTOALL, v[a->nv - 1], b, b, -1);
    default: return coll(d, r, TIT_REDUCESCATTER, v[a->nv - 1], b, b, -1);
    }
  }
  case C_CART_SUB: d->not_replayed[1]++; return 0;
  default: return 0;   /* local calls: nothing to replay, their time is not compute */
  }
}

/* ------------------------------------------------------------------ one .bin */

static int bad_file(du_reader *d, psim_err *err, const char *what) {
  return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: %s", what);
}

/* Reads rank r's file; fills the footer counts of calls not recorded into ignored[]. */
static int read_bin(du_reader *d, int r, const uint8_t *b, size_t n, long *ignored, psim_err *err) {
  cur c = {b, n, 0, 0};
  if (n < 8 + 64 || g32(&c) != DU_MAGIC_HI || g32(&c) != DU_MAGIC_LO)
    return bad_file(d, err, n < 72 ? "truncated (shorter than its magic and index)" : "no DUMPI magic at its start");
  /* the index: magic, then the offsets of the size table, function addresses, perf labels,
   * header, body, footer, keyvals (traces older than 0.6.6 lack the first: not read here) */
  c.pos = n - 64;
  if (g32(&c) != DU_MAGIC_HI || g32(&c) != DU_MAGIC_LO)
    return bad_file(d, err, "no index record at its end (truncated, or older than DUMPI 0.6.6)");
  uint64_t off[7];
  for (int i = 0; i < 7; i++) {
    off[i] = g64(&c);
    if (off[i] >= n - 64) return bad_file(d, err, "an index offset past the end of the file (truncated?)");
  }
  uint64_t sizelbl = off[0], header = off[3], body = off[4], footer = off[5];
  c.pos = (size_t)header;
  for (int i = 0; i < 3; i++) d->version[i] = (int)g8(&c);
  d->nsizes = 0;
  free(d->sizes);
  d->sizes = NULL;
  if (sizelbl) {
    c.pos = (size_t)sizelbl;
    long k = glen(&c, 4);
    d->sizes = xcalloc((size_t)k + 1, sizeof(int));
    for (long i = 0; i < k; i++) d->sizes[i] = (int)g32(&c);
    d->nsizes = k;
    if (c.bad) return bad_file(d, err, "the datatype size table runs past the end of the file");
  }
  if (footer) {
    c.pos = (size_t)footer;
    if (g64(&c) != DU_FOOT_MAGIC) return bad_file(d, err, "bad footer magic");
    c.pos += 4 * DU_NCALLS;
    for (int i = 0; i < DU_NCALLS; i++) ignored[i] += (long)g32(&c);
    if (c.bad) return bad_file(d, err, "the footer runs past the end of the file");
  }
  c.pos = (size_t)body;
  double cpu_bias = (double)g32(&c), wall_bias = (double)g32(&c);
  rstate *S = &d->R[r];
  S->last_end = -1;
  for (long rec = 1;; rec++) {
    size_t at = c.pos;
    uint32_t label = g16(&c);
    if (c.bad) return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: record %ld at byte %zu: the call stream ends without its end-of-stream mark (truncated)", rec, at);
    if (label == DU_END_OF_STREAM) break;
    const du_call *k = find_call((int)label);
    if (!k)
      return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0,
                       "DUMPI trace: record %ld at byte %zu: call id %u %s", rec, at, label,
                       label < DU_NCALLS ? "has an argument layout psim does not know (the rest of the stream cannot be read)"
                                         : "is not a DUMPI call (corrupted file)");
    uint8_t mask = (uint8_t)g8(&c);
    if (mask & 0x40) g16(&c);   /* thread id: TIT ranks have one thread */
    double t[2][2] = {{0, 0}, {0, 0}};   /* [cpu, wall][start, stop] */
    for (int w = 0; w < 2; w++) {
      if (!(mask & (w ? 8 : 4))) continue;
      for (int s = 0; s < 2; s++) {
        double sec = (double)g16(&c) + (w ? wall_bias : cpu_bias);
        uint32_t ns = g32(&c);
        if (ns >= 1000000000u && !c.bad)
          return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: record %ld (MPI_%s) at byte %zu: nanoseconds %u out of range", rec, k->name, at, ns);
        t[w][s] = sec + ns * 1e-9;
      }
    }
    if (mask & 0x80) { long pc = (long)g8(&c); take(&c, (size_t)pc * 16); }
    arg a;
    if (c.bad || parse_args(d, &c, k, mask, &a) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: record %ld (MPI_%s) at byte %zu runs past the end of the file (truncated)", rec, k->name, at);
    if (d->pass == 2) {
      /* compute: from leaving the previous call to entering this one, in the clock the trace
       * recorded (wall time when present: it is what a replay reproduces) */
      int w = d->timer == 8 ? 1 : 0;
      if (d->timer && (mask & d->timer)) {
        if (t[w][1] < t[w][0] || (S->last_end >= 0 && t[w][0] < S->last_end))
          return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: record %ld (MPI_%s) at byte %zu goes back in time", rec, k->name, at);
        if (S->last_end >= 0 && t[w][0] > S->last_end) fx_push(d->t, r, TIT_COMPUTE)->secs = t[w][0] - S->last_end;
      }
    }
    if (apply(d, r, (int)label, &a) < 0)
      return psim_errf(err, PSIM_EXIT_INPUT, d->file, 0, "DUMPI trace: record %ld (MPI_%s) at byte %zu: a datatype or count outside the trace's type table (%ld types)", rec, k->name, at, d->nsizes);
    if (d->pass == 2 && d->timer && (mask & d->timer)) S->last_end = t[d->timer == 8 ? 1 : 0][1];
  }
  return 0;
}

/* ------------------------------------------------------------------ the .meta */

static int meta(const char *path, long *np, char **prefix, psim_err *err) {
  fx_lines L;
  fx_lines_open(&L, path);
  const char *l;
  size_t n;
  int rc;
  *np = -1;
  *prefix = NULL;
  while ((rc = fx_line(&L, &l, &n, err)) == 1) {
    const char *eq = memchr(l, '=', n);
    if (!n) continue;
    if (!eq) { rc = fx_bad(err, path, L.line, "DUMPI .meta: expected key=value", l, n); break; }
    size_t kl = (size_t)(eq - l);
    const char *v = eq + 1;
    size_t vl = n - kl - 1;
    if (kl == 8 && !memcmp(l, "numprocs", 8)) {
      if (fx_long(v, vl, np) < 0) { rc = fx_bad(err, path, L.line, "DUMPI .meta: numprocs: expected a number", v, vl); break; }
    } else if (kl == 10 && !memcmp(l, "fileprefix", 10)) {
      if (!vl || memchr(v, '/', vl)) { rc = fx_bad(err, path, L.line, "DUMPI .meta: fileprefix: expected a file name", v, vl); break; }
      free(*prefix);
      *prefix = xcalloc(vl + 1, 1);
      memcpy(*prefix, v, vl);
    }
  }
  fx_lines_close(&L);
  if (rc >= 0 && (*np < 0 || !*prefix))
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "DUMPI .meta: numprocs= and fileprefix= are required");
  if (rc < 0) { free(*prefix); *prefix = NULL; }
  return rc < 0 ? -1 : 0;
}

static uint8_t *slurp(const char *path, size_t *n, psim_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open DUMPI rank file: %s", strerror(errno)); return NULL; }
  VEC(uint8_t) b = {0};
  uint8_t buf[65536];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    if (b.len + k > (size_t)DU_MAX_FILE) { fclose(f); VEC_FREE(b); psim_errf(err, PSIM_EXIT_INPUT, path, 0, "DUMPI rank file larger than 2 GiB"); return NULL; }
    VEC_RESERVE(b, b.len + k);
    memcpy(b.data + b.len, buf, k);
    b.len += k;
  }
  int e = ferror(f);
  fclose(f);
  if (e) { VEC_FREE(b); psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot read DUMPI rank file"); return NULL; }
  *n = b.len;
  return b.data ? b.data : xcalloc(1, 1);
}

static int cmp_split(const void *x, const void *y) {
  const split_ev *a = x, *b = y;
  if (a->color != b->color) return a->color < b->color ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->rank - b->rank;
}

/* Comm_split memberships: the k-th split of every rank is the same call (MPI requires the
 * ranks of a communicator to call collectives in the same order; psim assumes every split is
 * on a communicator whose members all split, which holds for splits of MPI_COMM_WORLD). */
static void resolve_splits(du_reader *d) {
  int N = d->t->nranks;
  d->split_members = xcalloc((size_t)(d->nseq ? d->nseq : 1) * (size_t)N, sizeof(ivec));
  for (long s = 0; s < d->nseq; s++) {
    split_vec *v = &d->splits[s];
    if (v->len) qsort(v->data, v->len, sizeof *v->data, cmp_split);   /* never NULL to qsort */
    for (size_t i = 0; i < v->len;) {
      size_t j = i;
      while (j < v->len && v->data[j].color == v->data[i].color) j++;
      for (size_t k = i; k < j; k++) {
        ivec *m = &d->split_members[s * N + v->data[k].rank];
        m->n = (long)(j - i);
        m->v = xcalloc(j - i, sizeof(int));
        for (size_t q = i; q < j; q++) m->v[q - i] = v->data[q].rank;
      }
      i = j;
    }
  }
}

int fx_dumpi_read(const char *path, fx_trace *t, psim_err *err) {
  long np;
  char *prefix;
  if (meta(path, &np, &prefix, err) < 0) return -1;
  if (fx_set_nranks(t, np, 0, err) < 0) { free(prefix); return -1; }
  int N = t->nranks;
  size_t dl = strlen(path);
  while (dl && path[dl - 1] != '/') dl--;
  uint8_t **bin = xcalloc((size_t)N, sizeof *bin);
  size_t *len = xcalloc((size_t)N, sizeof *len);
  char **names = xcalloc((size_t)N, sizeof *names);
  long ignored[DU_NCALLS] = {0};
  du_reader d = {0};
  d.t = t;
  d.R = xcalloc((size_t)N, sizeof *d.R);
  int rc = 0;
  for (int r = 0; r < N && !rc; r++) {
    size_t sz = dl + strlen(prefix) + 32;
    names[r] = xcalloc(sz, 1);
    snprintf(names[r], sz, "%.*s%s-%04d.bin", (int)dl, path, prefix, r);
    bin[r] = slurp(names[r], &len[r], err);
    if (!bin[r]) rc = -1;
  }
  /* the clock for compute: wall time if the first record of rank 0 has it, else CPU time */
  if (!rc && len[0] > 80) {
    cur c = {bin[0], len[0], 0, 0};
    c.pos = len[0] - 64 + 8 + 4 * 8;
    uint64_t body = g64(&c);
    if (body + 10 < len[0]) {
      uint8_t mask = bin[0][body + 10];
      d.timer = (mask & 8) ? 8 : (mask & 4) ? 4 : 0;
    }
  }
  for (d.pass = 1; d.pass <= 2 && !rc; d.pass++) {
    if (d.pass == 2) resolve_splits(&d);
    for (int r = 0; r < N && !rc; r++) {
      d.file = names[r];
      hfree(&d.R[r].comms);
      hfree(&d.R[r].groups);
      d.R[r].nsplit = 0;
      long ign[DU_NCALLS] = {0};
      rc = read_bin(&d, r, bin[r], len[r], ign, err);
      if (d.pass == 2)
        for (int i = 0; i < DU_NCALLS; i++) ignored[i] += ign[i];
    }
  }
  if (!rc) {
    long tot = 0;
    char names_buf[256] = "";
    for (int i = 0; i < DU_NCALLS; i++) {
      if (!ignored[i]) continue;
      tot += ignored[i];
      const du_call *k = find_call(i);
      size_t u = strlen(names_buf);
      if (u < sizeof names_buf - 40)
        snprintf(names_buf + u, sizeof names_buf - u, "%s%s %ld", u ? ", " : "", k ? k->name : "call", ignored[i]);
    }
    if (tot) fx_warn(t, "%ld calls were made but not recorded (DUMPI's footer: %s): replayed without them, their time counted as compute", tot, names_buf);
    if (!d.timer) fx_warn(t, "the trace records no times: no compute is replayed");
    else fx_warn(t, "compute is the %s time between leaving one MPI call and entering the next", d.timer == 8 ? "wall-clock" : "CPU");
    if (d.unknown_peer) fx_warn(t, "%ld point-to-point calls on communicators or peers the trace does not define: not replayed", d.unknown_peer);
    if (d.sub_comm_coll) fx_warn(t, "%ld collectives on communicators smaller than MPI_COMM_WORLD (or unknown): not replayed", d.sub_comm_coll);
    if (d.not_replayed[0]) fx_warn(t, "%ld persistent-request calls (Send_init, Recv_init, Start...): not replayed", d.not_replayed[0]);
    if (d.not_replayed[1]) fx_warn(t, "%ld MPI_Cart_sub calls: the sub-communicators are unknown", d.not_replayed[1]);
  }
  for (int r = 0; r < N; r++) {
    free(bin[r]);
    free(names[r]);
    hfree(&d.R[r].comms);
    hfree(&d.R[r].groups);
    VEC_FREE(d.R[r].req_id);
    VEC_FREE(d.R[r].req_op);
  }
  for (long s = 0; s < d.nseq; s++) VEC_FREE(d.splits[s]);
  free(d.splits);
  for (long i = 0; d.split_members && i < d.nseq * N; i++) free(d.split_members[i].v);
  free(d.split_members);
  free(d.R);
  free(d.sizes);
  free(bin);
  free(len);
  free(names);
  free(prefix);
  return rc;
}

/* A .meta file: key=value lines including numprocs= and fileprefix=. */
int fx_dumpi_is_meta(const char *l, size_t n) {
  return (n > 9 && !memcmp(l, "numprocs=", 9)) || (n > 11 && !memcmp(l, "fileprefix=", 11));
}
