/* Paraver trace writer (BSC's Paraver; the .prv, .pcf and .row files Extrae writes).
 *
 * The format (BSC, "Paraver: trace file description"; tools.bsc.es/paraver): a header
 *   #Paraver (dd/mm/yyyy at hh:mm):FTIME_ns:NODES(CPUS,...):1:TASKS(1:NODE,...),NCOMMS
 * then records sorted by time, one per line:
 *   1:cpu:appl:task:thread:begin:end:state                          a state
 *   2:cpu:appl:task:thread:time:type:value[:type:value...]          events
 *   3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag   a message
 *   c:appl:id:ntasks:task...                                        a communicator
 * psim writes application 1, task r+1 for rank r (one thread), a node per host used and a CPU
 * per rank on it. As Extrae: a state per action (Running for compute, Blocking Send, Waiting a
 * message, Wait/WaitAll, Group Communication, ...), MPI call events (types 50000001
 * point-to-point, 50000002 collectives, 50000003 others; value v at the call's entry, 0 at its
 * exit, Extrae's values where the reader knows them, names in the .pcf), collectives' sizes,
 * root and communicator at their entry (50100001..50100004 as Extrae writes them: the sizes
 * this rank moved, the root event on the root only; src/trace/trace_prv.c reads them back), and a communication record per point-to-point message:
 * logical send = entry of the send call, physical send = the transfer's start, logical
 * receive = entry of the receive call, physical receive = the arrival (or the receive's
 * posting, when the message arrived first). Times in nanoseconds. The header's date is fixed
 * (01/01/1970 at 00:00) so that the same run gives the same file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_calls.h"

/* Paraver's (Extrae's) states: the names the .pcf gives them, and the colours Paraver's
 * default configuration draws them in. */
enum { ST_IDLE = 0, ST_RUNNING = 1, ST_WAITMSG = 3, ST_BSEND = 4, ST_SYNC = 5, ST_TEST = 6, ST_WAIT = 8,
       ST_ISEND = 10, ST_IRECV = 11, ST_GROUP = 13, ST_OTHERS = 15, ST_SENDRECV = 16, ST_N = 17 };
static const char *const ST_NAME[ST_N] = {
    "Idle", "Running", "Not created", "Waiting a message", "Blocking Send", "Synchronization", "Test/Probe",
    "Scheduling and Fork/Join", "Wait/WaitAll", "Blocked", "Immediate Send", "Immediate Receive", "I/O",
    "Group Communication", "Tracing Disabled", "Others", "Send Receive"};
static const char *const ST_RGB[ST_N] = {
    "117,195,255", "0,0,255", "255,255,255", "255,0,0", "255,0,174", "179,0,0", "0,255,0", "255,255,0",
    "235,0,0", "0,162,0", "255,0,255", "100,100,177", "172,174,41", "255,144,26", "2,255,177", "192,224,0",
    "66,66,66"};

enum { EV_P2P = 50000001, EV_COLL = 50000002, EV_OTHER = 50000003 };
enum { EV_SSIZE = 50100001, EV_RSIZE, EV_ROOT, EV_COMM };

struct obs_prv {
  FILE *f;
  char *base;          /* the .prv's path without ".prv": base.pcf, base.row */
  const platform *plat;
  const int *rank_host;
  int np;
  obs_calls c;
  int *value;          /* per function name: its event value */
  int *type;           /* per function name: its event type (EV_*) */
};

/* A record to sort: kind R_*, at time t, production order seq. */
enum { R_STATE, R_ENTER, R_EXIT, R_COMM };
typedef struct prec {
  long long t, t2;     /* t2: a state's end */
  uint64_t seq;
  int kind, rank, state;
  long ref;            /* call index (events), message index (comm) */
} prec;

static long long ns(double t) { return t <= 0 ? 0 : llround(t * 1e9); }

obs_prv *obs_prv_new(FILE *f, const char *path, const platform *plat, const int *rank_host, int np) {
  obs_prv *w = xcalloc(1, sizeof *w);
  w->f = f;
  size_t n = strlen(path);
  w->base = xstrdup(path);
  if (n > 4 && !strcmp(path + n - 4, ".prv")) w->base[n - 4] = 0;
  w->plat = plat;
  w->rank_host = rank_host;
  w->np = np;
  obs_calls_init(&w->c, np);
  return w;
}

replay_observer obs_prv_observer(obs_prv *w) { return obs_calls_observer(&w->c); }

void obs_prv_free(obs_prv *w) {
  if (!w) return;
  obs_calls_free(&w->c);
  free(w->base);
  free(w->value);
  free(w->type);
  free(w);
}

static int state_of(const obs_calls *c, const obs_call *k) {
  switch (k->role) {
  case OC_COMPUTE: return ST_RUNNING;
  case OC_SLEEP: return ST_IDLE;
  case OC_SEND: return ST_BSEND;
  case OC_ISEND: return ST_ISEND;
  case OC_RECV: return ST_WAITMSG;
  case OC_IRECV: return ST_IRECV;
  case OC_SENDRECV: return ST_SENDRECV;
  case OC_DONE: return k->kind == TIT_TEST ? ST_TEST : ST_WAIT;
  case OC_COLL: return k->kind == TIT_BARRIER ? ST_SYNC : ST_GROUP;
  default: break;
  }
  const char *f = obs_call_name(c, k);
  return !strcmp(f, "MPI_Probe") || !strcmp(f, "MPI_Iprobe") ? ST_TEST : ST_OTHERS;
}

static int type_of(const obs_call *k) {
  if (k->role == OC_COLL) return EV_COLL;
  if (k->role == OC_MPI && k->kind != TIT_RECV && k->kind != TIT_TEST) return EV_OTHER;   /* Probe, Iprobe: p2p */
  return EV_P2P;
}

/* Event values: Extrae's where the Paraver reader knows them, then 1000, 1001... in order of
 * first use (named in the .pcf either way). */
static void number_functions(obs_prv *w) {
  size_t n = w->c.names.len;
  w->value = xcalloc(n + 1, sizeof *w->value);
  w->type = xcalloc(n + 1, sizeof *w->type);
  int next = 1000;
  for (size_t i = 0; i < n; i++) {
    int v = tit_prv_call_value(w->c.names.data[i]);
    w->value[i] = v > 0 ? v : next++;
  }
  for (int r = 0; r < w->np; r++)
    for (size_t j = 0; j < w->c.rank[r].len; j++) {
      const obs_call *k = &w->c.rank[r].data[j];
      if (k->name >= 0) w->type[k->name] = type_of(k);
    }
}

/* A collective's sizes as Extrae records them: what this rank sent and received (a Bcast's
 * root sends the message once and receives 0, the others the reverse: pypop's EPOCH traces),
 * totals for what the Paraver reader divides per peer (src/trace/trace_prv.c); the bytes
 * moved when the action gave no sizes. */
static void coll_sizes(const obs_call *k, int rank, int np, double *s, double *r) {
  if (!k->known) { *s = k->moved_sent; *r = k->moved_recvd; return; }
  double n = np;
  int me = k->root == rank;
  *s = k->b1 < 0 ? 0 : k->b1;
  *r = k->b2 < 0 ? 0 : k->b2;
  switch (k->kind) {
  case TIT_ALLTOALL: *s *= n; *r *= n; break;
  case TIT_SCATTER: *s = me ? *s * n : 0; break;
  case TIT_GATHER: *r = me ? *r * n : 0; break;
  case TIT_ALLGATHER: *r *= n; break;
  case TIT_BCAST: *r = me ? 0 : *s; *s = me ? *s : 0; break;
  case TIT_REDUCE: *r = me ? *s : 0; break;
  case TIT_ALLREDUCE: case TIT_SCAN: case TIT_EXSCAN: *r = *s; break;
  default: break;
  }
}

static int by_time(const void *a, const void *b) {
  const prec *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Nodes: the hosts used, in order of their first rank; CPUs numbered node after node. */
typedef struct layout {
  int nnodes;
  int *node_host;      /* node -> host */
  int *node_cpus;      /* node -> its CPUs (ranks) */
  int *rank_node, *rank_cpu;   /* 1-based */
} layout;

static void make_layout(const obs_prv *w, layout *L) {
  int np = w->np;
  L->node_host = xcalloc((size_t)np + 1, sizeof(int));
  L->node_cpus = xcalloc((size_t)np + 1, sizeof(int));
  L->rank_node = xcalloc((size_t)np + 1, sizeof(int));
  L->rank_cpu = xcalloc((size_t)np + 1, sizeof(int));
  L->nnodes = 0;
  for (int r = 0; r < np; r++) {
    int n = 0;
    while (n < L->nnodes && L->node_host[n] != w->rank_host[r]) n++;
    if (n == L->nnodes) L->node_host[L->nnodes++] = w->rank_host[r];
    L->rank_node[r] = n + 1;
    L->node_cpus[n]++;
  }
  int *first = xcalloc((size_t)L->nnodes + 1, sizeof(int)), *used = xcalloc((size_t)L->nnodes + 1, sizeof(int));
  for (int n = 1; n < L->nnodes; n++) first[n] = first[n - 1] + L->node_cpus[n - 1];
  for (int r = 0; r < np; r++) {
    int n = L->rank_node[r] - 1;
    L->rank_cpu[r] = first[n] + ++used[n];
  }
  free(first);
  free(used);
}

static void free_layout(layout *L) {
  free(L->node_host);
  free(L->node_cpus);
  free(L->rank_node);
  free(L->rank_cpu);
}

static void write_header(obs_prv *w, const layout *L) {
  FILE *f = w->f;
  fprintf(f, "#Paraver (01/01/1970 at 00:00):%lld_ns:%d(", ns(w->c.end), L->nnodes);
  for (int n = 0; n < L->nnodes; n++) fprintf(f, "%s%d", n ? "," : "", L->node_cpus[n]);
  fprintf(f, "):1:%d(", w->np);
  for (int r = 0; r < w->np; r++) fprintf(f, "%s1:%d", r ? "," : "", L->rank_node[r]);
  fputs("),1\n", f);
  /* MPI_COMM_WORLD, the communicator of every collective (50100004 = 1) */
  fprintf(f, "c:1:1:%d", w->np);
  for (int r = 0; r < w->np; r++) fprintf(f, ":%d", r + 1);
  fputc('\n', f);
}

static void write_record(obs_prv *w, const layout *L, const prec *p) {
  FILE *f = w->f;
  int r = p->rank;
  if (p->kind == R_COMM) {
    const obs_cmsg *m = &w->c.msgs.data[p->ref];
    const obs_call *s = &w->c.rank[m->src].data[m->scall], *d = &w->c.rank[m->dst].data[m->rcall];
    long long ls = ns(s->start), ps = ns(m->xstart), lr = ns(d->start), pr = ns(m->xend);
    if (ps < ls) ps = ls;
    if (pr < lr) pr = lr;   /* it arrived first: the receive got it when posted */
    if (pr < ps) pr = ps;
    fprintf(f, "3:%d:1:%d:1:%lld:%lld:%d:1:%d:1:%lld:%lld:%lld:%d\n", L->rank_cpu[m->src], m->src + 1, ls, ps,
            L->rank_cpu[m->dst], m->dst + 1, lr, pr, m->bytes > 0 ? llround(m->bytes) : 0LL, m->tag < 0 ? 0 : m->tag);
    return;
  }
  fprintf(f, "%d:%d:1:%d:1:%lld", p->kind == R_STATE ? 1 : 2, L->rank_cpu[r], r + 1, p->t);
  if (p->kind == R_STATE) { fprintf(f, ":%lld:%d\n", p->t2, p->state); return; }
  const obs_call *k = &w->c.rank[r].data[p->ref];
  if (p->kind == R_EXIT) { fprintf(f, ":%d:0\n", type_of(k)); return; }
  fprintf(f, ":%d:%d", type_of(k), w->value[k->name]);
  if (k->role == OC_COLL) {
    double s, rv;
    coll_sizes(k, r, w->np, &s, &rv);
    fprintf(f, ":%d:%lld:%d:%lld", EV_SSIZE, llround(s), EV_RSIZE, llround(rv));
    if (k->root == r) fprintf(f, ":%d:1", EV_ROOT);   /* Extrae's: on the root's entry only */
    fprintf(f, ":%d:1", EV_COMM);
  }
  fputc('\n', f);
}

static void write_prv(obs_prv *w, const layout *L) {
  VEC(prec) v = {0};
  uint64_t seq = 0;
  for (int r = 0; r < w->np; r++) {
    const obs_call_vec *cv = &w->c.rank[r];
    long long at = 0;   /* end of the previous state */
    for (size_t i = 0; i < cv->len; i++) {
      const obs_call *k = &cv->data[i];
      long long b = ns(k->start), e = ns(k->end);
      if (b > at) VEC_PUSH(v, ((prec){at, b, seq++, R_STATE, r, ST_IDLE, -1}));
      if (e > b) VEC_PUSH(v, ((prec){b, e, seq++, R_STATE, r, state_of(&w->c, k), (long)i}));
      if (e > at) at = e;
      if (k->name < 0) continue;
      VEC_PUSH(v, ((prec){b, 0, seq++, R_ENTER, r, 0, (long)i}));
      VEC_PUSH(v, ((prec){e, 0, seq++, R_EXIT, r, 0, (long)i}));
    }
  }
  for (size_t i = 0; i < w->c.msgs.len; i++) {
    const obs_cmsg *m = &w->c.msgs.data[i];
    if (m->coll || m->scall < 0 || m->rcall < 0) continue;
    VEC_PUSH(v, ((prec){ns(w->c.rank[m->src].data[m->scall].start), 0, seq++, R_COMM, m->src, 0, (long)i}));
  }
  if (v.len) qsort(v.data, v.len, sizeof *v.data, by_time);
  write_header(w, L);
  for (size_t i = 0; i < v.len; i++) write_record(w, L, &v.data[i]);
  VEC_FREE(v);
}

/* The .pcf: states, their colours, the MPI call events with the names of the values used. */
static void write_pcf(const obs_prv *w, FILE *f) {
  fputs("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\nLOOK_BACK           100\n"
        "SPEED               1\nFLAG_ICONS          ENABLED\nNUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
        "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n", f);
  for (int s = 0; s < ST_N; s++) fprintf(f, "%-4d %s\n", s, ST_NAME[s]);
  fputs("\n\nSTATES_COLOR\n", f);
  for (int s = 0; s < ST_N; s++) fprintf(f, "%-4d {%s}\n", s, ST_RGB[s]);
  static const struct { int type; const char *name; } T[] = {
      {EV_P2P, "MPI Point-to-point"}, {EV_COLL, "MPI Collective Comm"}, {EV_OTHER, "MPI Other"}};
  for (size_t t = 0; t < sizeof T / sizeof *T; t++) {
    fprintf(f, "\n\nEVENT_TYPE\n9   %d    %s\nVALUES\n", T[t].type, T[t].name);
    for (size_t i = 0; i < w->c.names.len; i++)
      if (w->type[i] == T[t].type) fprintf(f, "%-4d %s\n", w->value[i], w->c.names.data[i]);
    fputs("0    Outside MPI\n", f);
  }
  fprintf(f, "\n\nEVENT_TYPE\n1   %d    Send Size in MPI Global OP\n1   %d    Recv Size in MPI Global OP\n"
             "1   %d    Root in MPI Global OP\n1   %d    Communicator in MPI Global OP\n",
          EV_SSIZE, EV_RSIZE, EV_ROOT, EV_COMM);
}

/* The .row: the names of the CPUs, nodes and threads. */
static void write_row(const obs_prv *w, const layout *L, FILE *f) {
  fprintf(f, "LEVEL CPU SIZE %d\n", w->np);
  for (int n = 0, cpu = 1; n < L->nnodes; n++)
    for (int k = 0; k < L->node_cpus[n]; k++) fprintf(f, "%d.%s\n", cpu++, plat_host_at(w->plat, L->node_host[n])->name);
  fprintf(f, "\nLEVEL NODE SIZE %d\n", L->nnodes);
  for (int n = 0; n < L->nnodes; n++) fprintf(f, "%s\n", plat_host_at(w->plat, L->node_host[n])->name);
  fprintf(f, "\nLEVEL THREAD SIZE %d\n", w->np);
  for (int r = 0; r < w->np; r++) fprintf(f, "rank %d\n", r);
}

static int write_side(const char *base, const char *ext, const obs_prv *w, const layout *L, psim_err *err) {
  size_t n = strlen(base);
  char *p = xmalloc(n + 5);
  memcpy(p, base, n);
  memcpy(p + n, ext, 5);
  FILE *f = fopen(p, "w");
  int bad = !f;
  if (f) {
    if (ext[1] == 'p') write_pcf(w, f);
    else write_row(w, L, f);
    bad = ferror(f) != 0;
    if (fclose(f) != 0) bad = 1;
  }
  if (bad) psim_errf(err, PSIM_EXIT_INPUT, p, 0, f ? "error while writing the trace (disk full?)" : "cannot open for writing");
  free(p);
  return bad ? -1 : 0;
}

int obs_prv_write(obs_prv *w, psim_err *err) {
  obs_calls_attach(&w->c);
  number_functions(w);
  layout L;
  make_layout(w, &L);
  write_prv(w, &L);
  int rc = write_side(w->base, ".pcf", w, &L, err);
  if (!rc) rc = write_side(w->base, ".row", w, &L, err);
  free_layout(&L);
  return rc;
}
