/* Paraver traces (Extrae's .prv, plain or gzipped), read into TIT actions.
 *
 * What is read: the header's task count (application 1; Paraver's tasks 1..N are ranks
 * 0..N-1), MPI call events (types 50000001..50000005: value v > 0 enters call v, 0 leaves it),
 * the collective details Extrae writes with a collective's entry (50100001 bytes sent,
 * 50100002 bytes received, 50100003 root, 50100004 communicator), communication records
 * (type 3: sender, receiver, logical and physical times, size, tag) and communicator records
 * (`c:`). Call names come from the .pcf beside the trace (same name, .pcf instead of .prv),
 * else from Extrae's default numbering.
 *
 * Compute is the time from leaving one MPI call to entering the next (from the task's first
 * Running state to its first call): time inside MPI calls is never compute. A task's messages
 * are attached to its calls in time order: a send record to the send call during which it was
 * sent (logical send time), a receive record to the next receive call. */
#include "trace_foreign.h"

#include <stdlib.h>
#include <string.h>

enum { K_NONE = 0, K_SEND, K_ISEND, K_RECV, K_IRECV, K_SENDRECV, K_WAIT, K_WAITALL, K_COLL, K_IGNORE };

typedef struct call {
  double tin, tout;
  int type, value;
  double ssize, rsize;
  int root, comm;
  double ins;       /* the counter's count in the burst before the call (--compute-counter), -1 */
} call;

typedef struct msg {
  double t;
  int peer, tag;
  double size;
  long seq;   /* order in the file: records of the same time keep it */
} msg;

typedef struct ptask {
  VEC(call) calls;
  VEC(msg) sends, recvs;
  double start;     /* first Running state, -1 */
  int open;         /* index of the call being executed + 1, 0 outside MPI */
  double last;      /* time of its last MPI event (records must not go back in time) */
  double acc;       /* the counter's count since it left its last call, -1 when none came */
} ptask;

/* name of call (type, value) from the .pcf */
typedef struct pcf_name {
  int type, value;
  char *name;
} pcf_name;

typedef struct prv {
  fx_trace *t;
  ptask *task;
  VEC(pcf_name) names;
  VEC(int) comm_size;   /* communicator id -> number of tasks, 0 unknown */
  long unbalanced, stray_exit, unknown;
  long counter;         /* the event type of --compute-counter, 0 when compute is time */
  const char *counter_name;
  long uncounted;       /* bursts without a value of the counter (their time is their volume) */
} prv;

/* Extrae's default values of its MPI call events (used when no .pcf is beside the trace). */
static const struct { int value; const char *name; } extrae_defaults[] = {
    {1, "MPI_Send"}, {2, "MPI_Recv"}, {3, "MPI_Isend"}, {4, "MPI_Irecv"}, {5, "MPI_Wait"},
    {6, "MPI_Waitall"}, {7, "MPI_Bcast"}, {8, "MPI_Barrier"}, {9, "MPI_Reduce"},
    {10, "MPI_Allreduce"}, {11, "MPI_Alltoall"}, {12, "MPI_Alltoallv"}, {13, "MPI_Gather"},
    {14, "MPI_Gatherv"}, {15, "MPI_Scatter"}, {16, "MPI_Scatterv"}, {17, "MPI_Allgather"},
    {18, "MPI_Allgatherv"}, {19, "MPI_Comm_rank"}, {20, "MPI_Comm_size"}, {21, "MPI_Comm_create"},
    {22, "MPI_Comm_dup"}, {23, "MPI_Comm_split"}, {31, "MPI_Init"}, {32, "MPI_Finalize"},
    {33, "MPI_Bsend"}, {34, "MPI_Ssend"}, {35, "MPI_Rsend"}, {36, "MPI_Ibsend"},
    {37, "MPI_Issend"}, {38, "MPI_Irsend"}, {39, "MPI_Test"}, {41, "MPI_Sendrecv"},
    {42, "MPI_Sendrecv_replace"}, {62, "MPI_Waitany"}, {63, "MPI_Waitsome"},
    {80, "MPI_Reduce_scatter"}, {81, "MPI_Scan"},
};

int tit_prv_call_value(const char *name) {
  for (size_t i = 0; i < sizeof extrae_defaults / sizeof *extrae_defaults; i++)
    if (!strcmp(extrae_defaults[i].name, name)) return extrae_defaults[i].value;
  return 0;
}

static const char *call_name(const prv *P, int type, int value) {
  for (size_t i = 0; i < P->names.len; i++)
    if (P->names.data[i].type == type && P->names.data[i].value == value) return P->names.data[i].name;
  if (P->names.len) return NULL;
  for (size_t i = 0; i < sizeof extrae_defaults / sizeof *extrae_defaults; i++)
    if (extrae_defaults[i].value == value) return extrae_defaults[i].name;
  return NULL;
}

/* What psim does with an MPI call, from its name; *k the TIT kind of a collective. */
static int classify(const char *n, tit_kind *k) {
  static const struct { const char *name; int cls; tit_kind kind; } tab[] = {
      {"MPI_Send", K_SEND, 0}, {"MPI_Bsend", K_SEND, 0}, {"MPI_Ssend", K_SEND, 0},
      {"MPI_Rsend", K_SEND, 0}, {"MPI_Isend", K_ISEND, 0}, {"MPI_Ibsend", K_ISEND, 0},
      {"MPI_Issend", K_ISEND, 0}, {"MPI_Irsend", K_ISEND, 0}, {"MPI_Recv", K_RECV, 0},
      {"MPI_Irecv", K_IRECV, 0}, {"MPI_Sendrecv", K_SENDRECV, 0},
      {"MPI_Sendrecv_replace", K_SENDRECV, 0}, {"MPI_Wait", K_WAIT, 0},
      {"MPI_Waitany", K_WAIT, 0}, {"MPI_Waitsome", K_WAIT, 0}, {"MPI_Waitall", K_WAITALL, 0},
      {"MPI_Barrier", K_COLL, TIT_BARRIER}, {"MPI_Bcast", K_COLL, TIT_BCAST},
      {"MPI_Reduce", K_COLL, TIT_REDUCE}, {"MPI_Allreduce", K_COLL, TIT_ALLREDUCE},
      {"MPI_Alltoall", K_COLL, TIT_ALLTOALL}, {"MPI_Alltoallv", K_COLL, TIT_ALLTOALL},
      {"MPI_Gather", K_COLL, TIT_GATHER}, {"MPI_Gatherv", K_COLL, TIT_GATHER},
      {"MPI_Scatter", K_COLL, TIT_SCATTER}, {"MPI_Scatterv", K_COLL, TIT_SCATTER},
      {"MPI_Allgather", K_COLL, TIT_ALLGATHER}, {"MPI_Allgatherv", K_COLL, TIT_ALLGATHER},
      {"MPI_Reduce_scatter", K_COLL, TIT_REDUCESCATTER}, {"MPI_Scan", K_COLL, TIT_SCAN},
      {"MPI_Exscan", K_COLL, TIT_EXSCAN},
  };
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
    if (!strcmp(n, tab[i].name)) {
      *k = tab[i].kind;
      return tab[i].cls;
    }
  return K_IGNORE;   /* Init, Finalize, Comm_*, Test, ...: nothing to replay but their time */
}

/* The .pcf beside path: VALUES of the EVENT_TYPE blocks of MPI call types. A missing .pcf is
 * fine (defaults); an unreadable one is too: it only names things. */
static void read_pcf(prv *P, const char *path) {
  size_t n = strlen(path);
  const char *ext = n > 7 && !strcmp(path + n - 7, ".prv.gz") ? path + n - 7
                    : n > 4 && !strcmp(path + n - 4, ".prv")  ? path + n - 4 : NULL;
  if (!ext) return;
  char *pcf = xmalloc((size_t)(ext - path) + 5);
  memcpy(pcf, path, (size_t)(ext - path));
  memcpy(pcf + (ext - path), ".pcf", 5);
  FILE *f = fopen(pcf, "r");
  free(pcf);
  if (!f) return;
  char line[1024];
  int types[16], ntypes = 0, in_values = 0;
  while (fgets(line, sizeof line, f)) {
    int a, b;
    char name[256];
    if (!strncmp(line, "EVENT_TYPE", 10)) { ntypes = 0; in_values = 0; continue; }
    if (!strncmp(line, "VALUES", 6)) { in_values = 1; continue; }
    if (line[0] == '\n' || line[0] == '\r') { if (in_values) ntypes = 0; in_values = 0; continue; }
    if (!in_values && sscanf(line, "%d %d %255s", &a, &b, name) == 3 && P->counter_name && !P->counter &&
        !strcmp(name, P->counter_name))
      P->counter = b;   /* "7  42000050 PAPI_TOT_INS [Instr completed]" */
    if (!in_values && sscanf(line, "%d %d", &a, &b) == 2) {
      if (b >= 50000001 && b <= 50000005 && ntypes < 16) types[ntypes++] = b;
    } else if (in_values && ntypes && sscanf(line, "%d %255s", &a, name) == 2 && a > 0) {
      for (int i = 0; i < ntypes; i++) {
        pcf_name pn = {types[i], a, xstrdup(name)};
        VEC_PUSH(P->names, pn);
      }
    }
  }
  fclose(f);
}

static int task_of(prv *P, const char **f, const size_t *fl, int i, long line, psim_err *err) {
  long app, task;
  if (fx_long(f[i], fl[i], &app) < 0) return fx_bad(err, P->t->path, line, "Paraver record: expected an application number", f[i], fl[i]);
  if (fx_long(f[i + 1], fl[i + 1], &task) < 0 || task < 1 || task > P->t->nranks) {
    char what[128];
    snprintf(what, sizeof what, "Paraver record: expected a task number in 1..%d", P->t->nranks);
    return fx_bad(err, P->t->path, line, what, f[i + 1], fl[i + 1]);
  }
  return app == 1 ? (int)task - 1 : -2;   /* -2: another application, not read */
}

static int num(prv *P, const char *s, size_t n, long line, const char *what, double *v, psim_err *err) {
  long x;
  if (fx_long(s, n, &x) < 0 || x < 0) return fx_bad(err, P->t->path, line, what, s, n);
  *v = (double)x;
  return 0;
}

/* Header: #Paraver (date at time):ftime[_unit]:nodes:nappl:ntasks(threads:node,...),...
 * Returns the factor from trace time units to seconds. */
static int header(prv *P, const char *l, size_t n, double *unit, psim_err *err) {
  const char *p = memchr(l, ')', n);
  if (!p || (size_t)(p - l) + 2 > n || p[1] != ':')
    return fx_bad(err, P->t->path, 1, "Paraver header: expected '#Paraver (date):time:...'", l, n);
  p += 2;
  const char *e = l + n;
  /* top-level ':' fields (parentheses hold their own ':') */
  const char *f[8];
  size_t fl[8];
  int k = 0, depth = 0;
  const char *s = p;
  for (const char *q = p; q <= e && k < 8; q++) {
    if (q < e && *q == '(') depth++;
    else if (q < e && *q == ')') depth--;
    if (q == e || (*q == ':' && depth == 0)) { f[k] = s; fl[k] = (size_t)(q - s); k++; s = q + 1; }
  }
  if (k < 4) return fx_bad(err, P->t->path, 1, "Paraver header: expected time, nodes, applications and tasks", l, n);
  *unit = 1e-6;   /* Paraver's time unit when the header names none: microseconds */
  const char *us = memchr(f[0], '_', fl[0]);
  if (us) {
    size_t ul = fl[0] - (size_t)(us - f[0]);
    if (ul == 3 && !memcmp(us, "_ns", 3)) *unit = 1e-9;
    else if (ul == 3 && !memcmp(us, "_us", 3)) *unit = 1e-6;
    else if (ul == 3 && !memcmp(us, "_ms", 3)) *unit = 1e-3;
    else return fx_bad(err, P->t->path, 1, "Paraver header: unknown time unit", us, ul);
  }
  long napps, ntasks;
  if (fx_long(f[2], fl[2], &napps) < 0 || napps < 1)
    return fx_bad(err, P->t->path, 1, "Paraver header: expected the number of applications", f[2], fl[2]);
  const char *par = memchr(f[3], '(', fl[3]);
  size_t tl = par ? (size_t)(par - f[3]) : fl[3];
  if (fx_long(f[3], tl, &ntasks) < 0) return fx_bad(err, P->t->path, 1, "Paraver header: expected the number of tasks", f[3], tl);
  if (napps > 1) fx_warn(P->t, "%ld applications in the trace: only the first is read", napps);
  return fx_set_nranks(P->t, ntasks, 1, err);
}

static int record_event(prv *P, const char **f, const size_t *fl, int nf, long line, psim_err *err) {
  if (nf < 8 || nf % 2) return fx_bad(err, P->t->path, line, "Paraver event record: expected 2:cpu:app:task:thread:time:type:value...", f[0], fl[0]);
  int r = task_of(P, f, fl, 2, line, err);
  if (r == -1) return -1;
  if (r < 0) return 0;
  double time = 0;
  if (num(P, f[5], fl[5], line, "Paraver event record: expected a time", &time, err)) return -1;
  ptask *T = &P->task[r];
  /* Extrae reads the counters at each event and writes what they counted since the last read:
   * the values beside a call's entry are the burst's before it, beside its exit the call's */
  double counted = 0;
  int has_count = 0, entered = 0, exited = 0;
  for (int i = 6; i + 1 < nf; i += 2) {
    long type, value;
    if (fx_long(f[i], fl[i], &type) < 0) return fx_bad(err, P->t->path, line, "Paraver event record: expected an event type", f[i], fl[i]);
    if (fx_long(f[i + 1], fl[i + 1], &value) < 0) return fx_bad(err, P->t->path, line, "Paraver event record: expected an event value", f[i + 1], fl[i + 1]);
    if (P->counter && type == P->counter) {
      counted += (double)(value < 0 ? 0 : value);
      has_count = 1;
      continue;
    }
    if (type >= 50000001 && type <= 50000005) {
      if (time < T->last)
        return psim_errf(err, PSIM_EXIT_INPUT, P->t->path, line,
                         "Paraver event record: task %d goes back in time (%.0f after %.0f): the "
                         "records are not in time order", r + 1, time, T->last);
      T->last = time;
      if (value == 0) {
        exited = 1;
        if (!T->open) P->stray_exit++;
        else T->calls.data[T->open - 1].tout = time;
        T->open = 0;
      } else {
        if (T->open) {   /* entered a call without leaving the previous one */
          P->unbalanced++;
          T->calls.data[T->open - 1].tout = time;
        }
        call c = {time, time, (int)type, (int)value, 0, 0, -1, -1, -1};
        VEC_PUSH(T->calls, c);
        T->open = (int)T->calls.len;
        entered = 1;
      }
    } else if (type >= 50100001 && type <= 50100004 && T->open) {
      call *c = &T->calls.data[T->open - 1];
      if (type == 50100001) c->ssize = (double)(value < 0 ? 0 : value);
      else if (type == 50100002) c->rsize = (double)(value < 0 ? 0 : value);
      else if (type == 50100003) c->root = (int)(value < 0 || value > 1000000 ? -1 : value);
      else c->comm = (int)(value < 0 || value > 1000000 ? -1 : value);
    }
  }
  if (!P->counter) return 0;
  if (entered) {   /* the burst ends: its count is what came since the last call's exit */
    call *c = &T->calls.data[T->open - 1];
    if (has_count || T->acc >= 0) c->ins = (T->acc >= 0 ? T->acc : 0) + counted;
    T->acc = -1;
  } else if (!exited && !T->open && has_count) {   /* inside a burst (a user event, a sample) */
    T->acc = (T->acc >= 0 ? T->acc : 0) + counted;
  } else if (exited) {
    T->acc = -1;   /* the call's own count; the next burst starts */
  }
  return 0;
}

static int record_comm(prv *P, const char **f, const size_t *fl, int nf, long line, psim_err *err) {
  if (nf != 15) return fx_bad(err, P->t->path, line, "Paraver communication record: expected 15 fields (3:cpu:app:task:thread:lsend:psend:cpu:app:task:thread:lrecv:precv:size:tag)", f[0], fl[0]);
  int s = task_of(P, f, fl, 2, line, err);
  if (s == -1) return -1;
  int d = task_of(P, f, fl, 8, line, err);
  if (d == -1) return -1;
  if (s < 0 || d < 0) return 0;
  double ls = 0, lr = 0, size = 0;
  long tag;
  if (num(P, f[5], fl[5], line, "Paraver communication record: expected the logical send time", &ls, err) ||
      num(P, f[11], fl[11], line, "Paraver communication record: expected the logical receive time", &lr, err) ||
      num(P, f[13], fl[13], line, "Paraver communication record: expected a size in bytes", &size, err))
    return -1;
  if (fx_long(f[14], fl[14], &tag) < 0 || tag < 0 || tag > 2147483647L)
    return fx_bad(err, P->t->path, line, "Paraver communication record: expected a tag", f[14], fl[14]);
  msg ms = {ls, d, (int)tag, size, line}, mr = {lr, s, (int)tag, size, line};
  VEC_PUSH(P->task[s].sends, ms);
  VEC_PUSH(P->task[d].recvs, mr);
  return 0;
}

static int record_communicator(prv *P, const char **f, const size_t *fl, int nf, long line, psim_err *err) {
  long id, n;
  if (nf < 4 || fx_long(f[2], fl[2], &id) < 0 || id < 0 || id > 1000000 || fx_long(f[3], fl[3], &n) < 0 || n < 0 || nf != 4 + n)
    return fx_bad(err, P->t->path, line, "Paraver communicator record: expected c:app:id:ntasks:task...", f[0], fl[0]);
  while (P->comm_size.len <= (size_t)id) VEC_PUSH(P->comm_size, 0);
  P->comm_size.data[id] = (int)n;
  return 0;
}

static int by_time(const void *a, const void *b) {
  const msg *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Gives each record of m[0..n) (sorted by time) to a call of class `want` (send-like or
 * receive-like): the call entered last at or before the record's logical time (Extrae's
 * logical send and receive times are the entries of the calls), the first of several entered
 * at that same time that has none yet, if the record's time is not past the call's end.
 * got[i] = the record of call i, or -1. A call without a side (MPI_Sendrecv with
 * MPI_PROC_NULL) thus takes no record of the next call, as taking each class's next record in
 * turn did. Returns the records given to no call. */
static long attach(const ptask *T, const prv *P, const msg *m, size_t n, int want, long *got) {
  VEC(size_t) idx = {0};   /* the calls of that class, in order */
  for (size_t i = 0; i < T->calls.len; i++) {
    got[i] = -1;
    const call *c = &T->calls.data[i];
    tit_kind k;
    const char *name = call_name(P, c->type, c->value);
    int cls = name ? classify(name, &k) : K_NONE;
    int is = want == K_SEND ? cls == K_SEND || cls == K_ISEND || cls == K_SENDRECV
                            : cls == K_RECV || cls == K_IRECV || cls == K_SENDRECV;
    if (is) VEC_PUSH(idx, i);
  }
  long left = 0;
  for (size_t r = 0; r < n; r++) {
    size_t lo = 0, hi = idx.len;   /* the first call entered after the record's time */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (T->calls.data[idx.data[mid]].tin <= m[r].t) lo = mid + 1;
      else hi = mid;
    }
    size_t j = lo, first = lo;
    if (j == 0) { left++; continue; }
    double tin = T->calls.data[idx.data[j - 1]].tin;
    while (first > 0 && T->calls.data[idx.data[first - 1]].tin == tin) first--;
    size_t q = first;
    while (q < j && got[idx.data[q]] >= 0) q++;
    if (q == j || m[r].t > T->calls.data[idx.data[q]].tout) { left++; continue; }
    got[idx.data[q]] = (long)r;
  }
  VEC_FREE(idx);
  return left;
}

/* Is call c a collective the replay keeps (on MPI_COMM_WORLD's size, or an unknown
 * communicator)? *k its TIT kind. */
static int kept_coll(const prv *P, const call *c, tit_kind *k) {
  const char *name = call_name(P, c->type, c->value);
  if (!name || classify(name, k) != K_COLL) return 0;
  int csize = c->comm >= 0 && (size_t)c->comm < P->comm_size.len ? P->comm_size.data[c->comm] : 0;
  return !csize || csize == P->t->nranks;
}

/* The roots and sizes of rooted collectives, across tasks (the k-th kept collective of every
 * task is the same call). Extrae writes the root event (50100003) on the root's entry only,
 * value 1 (the EPOCH traces of pypop's examples: task 1 alone, at 436 Bcasts of 8 tasks), and
 * sizes as each task moved them: a Bcast's root sends the message (50100001) and receives 0,
 * the others send 0 and receive it (50100002). So the root is the task whose entry carries
 * the event; when every task carries it with one value, that value is the root (a rank);
 * else, for a Bcast or Scatter, the one task that sent bytes; else 0. Every task then takes
 * the root's message: a Bcast's and a Scatter's send size, a Gather's receive size. */
static void coll_roots(prv *P) {
  int n = P->t->nranks;
  VEC(size_t) *idx = xcalloc((size_t)n, sizeof *idx);
  size_t ncoll = (size_t)-1;
  for (int r = 0; r < n; r++) {
    for (size_t i = 0; i < P->task[r].calls.len; i++) {
      tit_kind k;
      if (kept_coll(P, &P->task[r].calls.data[i], &k)) VEC_PUSH(idx[r], i);
    }
    if (idx[r].len < ncoll) ncoll = idx[r].len;
  }
  for (size_t j = 0; n > 0 && j < ncoll; j++) {
    tit_kind k;
    call *c0 = &P->task[0].calls.data[idx[0].data[j]];
    /* c0 was kept above, so k is set; -O3 cannot see it (-Wmaybe-uninitialized) */
    if (!kept_coll(P, c0, &k)) continue;
    if (k != TIT_BCAST && k != TIT_REDUCE && k != TIT_GATHER && k != TIT_SCATTER) continue;
    int flagged = -1, nflag = 0, same = 1, senders = 0, sender = -1;
    for (int r = 0; r < n; r++) {
      const call *c = &P->task[r].calls.data[idx[r].data[j]];
      if (c->root >= 0) { flagged = r; nflag++; }
      if (c->root != c0->root) same = 0;
      if (c->ssize > 0) { senders++; sender = r; }
    }
    int root = nflag == 1 ? flagged
               : nflag == n && same && c0->root < n ? c0->root
               : (k == TIT_BCAST || k == TIT_SCATTER) && senders == 1 ? sender : 0;
    const call *rc = &P->task[root].calls.data[idx[root].data[j]];
    double ss = rc->ssize, rs = rc->rsize;
    for (int r = 0; r < n; r++) {
      call *c = &P->task[r].calls.data[idx[r].data[j]];
      c->root = root;
      if (k == TIT_BCAST || k == TIT_SCATTER) c->ssize = ss;
      if (k == TIT_GATHER) c->rsize = rs;
    }
  }
  for (int r = 0; r < n; r++) VEC_FREE(idx[r]);
  free(idx);
}

/* A task's calls and messages into actions. */
static void convert_task(prv *P, int r, double unit, long *no_msg, long *sub_comm, long *left) {
  ptask *T = &P->task[r];
  fx_trace *t = P->t;
  /* an empty list has no array: qsort may not be given NULL (UBSan) */
  if (T->sends.len) qsort(T->sends.data, T->sends.len, sizeof(msg), by_time);
  if (T->recvs.len) qsort(T->recvs.data, T->recvs.len, sizeof(msg), by_time);
  long *sent = xcalloc(T->calls.len + 1, sizeof *sent), *got = xcalloc(T->calls.len + 1, sizeof *got);
  *left += attach(T, P, T->sends.data, T->sends.len, K_SEND, sent);
  *left += attach(T, P, T->recvs.data, T->recvs.len, K_RECV, got);
  VEC(long) pending = {0};   /* isend/irecv not yet waited, oldest first */
  /* the task starts at its first Running state, or at its first call when that comes first
   * (a task whose first state is an MPI call's: psim's --trace-prv of a rank that receives
   * before it computes) */
  double first = T->calls.len ? T->calls.data[0].tin : 0;
  double prev = T->start >= 0 && (T->start < first || !T->calls.len) ? T->start : first;
  /* Before its first Running state a task did not exist yet (Not created): not compute, but
   * the traced run waited for it, so the replay does too. */
  if (prev > 0) fx_push(t, r, TIT_SLEEP)->secs = prev * unit;
  for (size_t i = 0; i < T->calls.len; i++) {
    call *c = &T->calls.data[i];
    double gap = c->tin - prev;
    if (P->counter && c->ins < 0 && gap > 0) P->uncounted++;
    if (gap > 0 || (P->counter && c->ins > 0)) {
      fx_op *o = fx_push(t, r, TIT_COMPUTE);
      o->secs = gap > 0 ? gap * unit : 0;
      if (P->counter && c->ins >= 0) o->count = c->ins;
    }
    prev = c->tout > c->tin ? c->tout : c->tin;
    const char *name = call_name(P, c->type, c->value);
    tit_kind ck = TIT_NOOP;
    int cls = name ? classify(name, &ck) : K_NONE;
    if (!name) { P->unknown++; continue; }
    /* a sendrecv with one side only (MPI_PROC_NULL) is that side */
    int one_side = cls == K_SENDRECV && (sent[i] < 0) != (got[i] < 0);
    if (cls == K_SEND || cls == K_ISEND || cls == K_SENDRECV) {
      if (sent[i] >= 0) {
        msg *m = &T->sends.data[sent[i]];
        fx_op *o = fx_push(t, r, cls == K_ISEND ? TIT_ISEND : TIT_SEND);
        o->peer = m->peer; o->tag = m->tag; o->bytes = m->size;
        if (cls == K_ISEND) VEC_PUSH(pending, (long)t->ranks[r].len - 1);
      } else if (!one_side) (*no_msg)++;
    }
    if (cls == K_RECV || cls == K_IRECV || cls == K_SENDRECV) {
      if (got[i] >= 0) {
        msg *m = &T->recvs.data[got[i]];
        fx_op *o = fx_push(t, r, cls == K_IRECV ? TIT_IRECV : TIT_RECV);
        o->peer = m->peer; o->tag = m->tag; o->bytes = m->size;
        if (cls == K_IRECV) VEC_PUSH(pending, (long)t->ranks[r].len - 1);
      } else if (!one_side) (*no_msg)++;
    }
    if (cls == K_WAIT && pending.len) {
      fx_push(t, r, TIT_WAIT)->req = pending.data[0];
      memmove(pending.data, pending.data + 1, (pending.len - 1) * sizeof *pending.data);
      pending.len--;
    }
    if (cls == K_WAITALL && pending.len) {
      fx_push(t, r, TIT_WAITALL);
      pending.len = 0;
    }
    if (cls == K_COLL) {
      int csize = c->comm >= 0 && (size_t)c->comm < P->comm_size.len ? P->comm_size.data[c->comm] : 0;
      if (csize && csize != t->nranks) { (*sub_comm)++; continue; }
      fx_op *o = fx_push(t, r, ck);
      o->bytes = c->ssize;
      o->bytes2 = c->rsize;
      o->root = c->root >= 0 && c->root < t->nranks ? c->root : 0;   /* coll_roots' (0 when unknown) */
      if (ck == TIT_ALLTOALL || ck == TIT_ALLGATHER || ck == TIT_GATHER || ck == TIT_SCATTER) {
        /* Extrae records a collective's total sizes: TIT wants them per peer */
        o->bytes /= ck == TIT_ALLTOALL || ck == TIT_SCATTER ? t->nranks : 1;
        o->bytes2 /= ck == TIT_ALLTOALL || ck == TIT_GATHER || ck == TIT_ALLGATHER ? t->nranks : 1;
      }
    }
  }
  free(sent);
  free(got);
  VEC_FREE(pending);
}

static void free_names(prv *P) {
  for (size_t i = 0; i < P->names.len; i++) free(P->names.data[i].name);
  VEC_FREE(P->names);
}

int fx_prv_read(const char *path, fx_trace *t, psim_err *err) {
  prv P = {.t = t};
  const char *cn = tit_compute_counter();
  if (cn) {   /* an event type, or a counter's name in the .pcf */
    char *e;
    long x = strtol(cn, &e, 10);
    if (*e || x <= 0) P.counter_name = cn;
    else P.counter = x;
  }
  read_pcf(&P, path);
  if (P.counter_name && !P.counter) {
    free_names(&P);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--compute-counter %s: the .pcf beside the trace names no "
                     "event type %s (give a counter it names, e.g. PAPI_TOT_INS, or its event type)", cn, cn);
  }
  fx_lines L;
  fx_lines_open(&L, path);
  const char *l;
  size_t n;
  int rc, first = 1;
  double unit = 1e-9;
  /* Extrae's event records carry a type:value pair per counter: room for 127 of them (more
   * are not read) */
  const char *f[256];
  size_t fl[256];
  while ((rc = fx_line(&L, &l, &n, err)) == 1) {
    if (first) {
      first = 0;
      if ((rc = header(&P, l, n, &unit, err)) < 0) break;
      P.task = xcalloc((size_t)t->nranks, sizeof *P.task);
      for (int r = 0; r < t->nranks; r++) P.task[r].start = P.task[r].acc = -1;
      continue;
    }
    if (!n || l[0] == '#') continue;
    int nf = fx_split(l, n, ':', f, fl, 256);
    if (fl[0] != 1) { rc = fx_bad(err, path, L.line, "Paraver: unknown record type", f[0], fl[0]); break; }
    switch (l[0]) {
    case '1': {
      if (nf != 8) { rc = fx_bad(err, path, L.line, "Paraver state record: expected 1:cpu:app:task:thread:begin:end:state", l, n); break; }
      int r = task_of(&P, f, fl, 2, L.line, err);
      double b = 0, e = 0, st = 0;
      if (r == -1 || num(&P, f[5], fl[5], L.line, "Paraver state record: expected a begin time", &b, err) ||
          num(&P, f[6], fl[6], L.line, "Paraver state record: expected an end time", &e, err) ||
          num(&P, f[7], fl[7], L.line, "Paraver state record: expected a state", &st, err)) { rc = -1; break; }
      if (e < b) { rc = fx_bad(err, path, L.line, "Paraver state record: ends before it begins", l, n); break; }
      if (r >= 0 && st == 1 && P.task[r].start < 0) P.task[r].start = b;
      break;
    }
    case '2': rc = record_event(&P, f, fl, nf, L.line, err); break;
    case '3': rc = record_comm(&P, f, fl, nf, L.line, err); break;
    case 'c': {
      /* its task list can be longer than the fields split (MPI_COMM_WORLD of 300 tasks):
       * counted on the whole line, not read */
      int all = 1;
      for (size_t i = 0; i < n; i++) all += l[i] == ':';
      rc = record_communicator(&P, f, fl, nf < 4 ? nf : all, L.line, err);
      break;
    }
    default: rc = fx_bad(err, path, L.line, "Paraver: unknown record type", f[0], fl[0]);
    }
    if (rc < 0) break;
  }
  fx_lines_close(&L);
  if (rc == 0 && first) rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "empty Paraver trace");
  if (rc == 0) {
    long no_msg = 0, sub = 0, left = 0, open = 0;
    coll_roots(&P);
    for (int r = 0; r < t->nranks; r++) {
      if (P.task[r].open) open++;
      convert_task(&P, r, unit, &no_msg, &sub, &left);
    }
    if (open) fx_warn(t, "%ld tasks end inside an MPI call (the trace was cut): the call's end is its start", open);
    if (P.uncounted)
      fx_warn(t, "%ld computations without a value of counter %s (--compute-counter): their volume is their time "
              "at the reference speed", P.uncounted, cn);
    if (P.unbalanced) fx_warn(t, "%ld MPI calls entered without leaving the previous one (unbalanced events): each ends where the next begins", P.unbalanced);
    if (P.stray_exit) fx_warn(t, "%ld MPI call exits without an entry: ignored", P.stray_exit);
    if (P.unknown) fx_warn(t, "%ld MPI calls of values the .pcf does not name: their time is not compute, nothing else is replayed", P.unknown);
    if (no_msg) fx_warn(t, "%ld point-to-point calls without a communication record (their peer was MPI_PROC_NULL, or it was not recorded): not replayed", no_msg);
    if (left) fx_warn(t, "%ld communication records attached to no MPI call: not replayed", left);
    if (sub) fx_warn(t, "%ld collective calls on communicators smaller than MPI_COMM_WORLD: not replayed (TIT collectives span every rank)", sub);
  }
  if (P.task)
    for (int r = 0; r < t->nranks; r++) {
      VEC_FREE(P.task[r].calls);
      VEC_FREE(P.task[r].sends);
      VEC_FREE(P.task[r].recvs);
    }
  free(P.task);
  free_names(&P);
  VEC_FREE(P.comm_size);
  return rc < 0 ? -1 : 0;
}
