/* OTF2 trace writer (Vampir; Score-P's format), through libotf2 (Debian's libotf2-trace-dev)
 * when psim was built with it (PSIM_HAVE_OTF2); without it, asking for OTF2 is an error naming
 * the package.
 *
 * The archive is what Score-P writes for an MPI run: a location (CPU thread) per rank in a
 * location group (process) per rank, on a system-tree node per host; MPI_COMM_WORLD (the
 * COMM_LOCATIONS group of the ranks' locations and a COMM_GROUP of ranks 0..N-1). Each MPI
 * call is an Enter and a Leave of its region (paradigm MPI, the function's name); compute and
 * sleep actions are user regions "compute" and "sleep". Point-to-point messages are MpiSend /
 * MpiRecv in blocking calls, MpiIsend + MpiIsendComplete and MpiIrecvRequest + MpiIrecv
 * (request id: the message's index + 1) in non-blocking ones; MPI_Sendrecv gets the
 * non-blocking pair inside its own region, so that a reader replays it as the exchange it is.
 * Collectives are MpiCollectiveBegin / MpiCollectiveEnd with Score-P's sizes (what the rank
 * sent and received in all: a Bcast's root N x the message, its other ranks receive it once;
 * src/trace/trace_otf2.c reads them back). Timestamps are nanoseconds of simulated time
 * (timer resolution 1e9, offset 0); no wall-clock time is written (the clock properties'
 * realtime stamp is left undefined), so the same run gives the same archive. */
#include <stdlib.h>
#include <string.h>

#include "obs_calls.h"

#ifndef PSIM_HAVE_OTF2

obs_otf2 *obs_otf2_new(const char *dir, const char *name, const platform *plat, const int *rank_host, int np,
                       psim_err *err) {
  (void)name, (void)plat, (void)rank_host, (void)np;
  psim_errf(err, PSIM_EXIT_INPUT, dir, 0,
            "OTF2 output: this psim was built without libotf2 (install Debian's libotf2-trace-dev, then "
            "rebuild psim)");
  return NULL;
}
replay_observer obs_otf2_observer(obs_otf2 *w) { (void)w; return (replay_observer){0}; }
int obs_otf2_write(obs_otf2 *w, psim_err *err) { (void)w, (void)err; return 0; }
void obs_otf2_free(obs_otf2 *w) { (void)w; }

#else

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <otf2/otf2.h>

struct obs_otf2 {
  char *dir, *name;
  const platform *plat;
  const int *rank_host;
  int np;
  obs_calls c;
  char lib_msg[256];
};

static uint64_t ticks(double t) { return t <= 0 ? 0 : (uint64_t)llround(t * 1e9); }

obs_otf2 *obs_otf2_new(const char *dir, const char *name, const platform *plat, const int *rank_host, int np,
                       psim_err *err) {
  (void)err;
  obs_otf2 *w = xcalloc(1, sizeof *w);
  w->dir = xstrdup(dir);
  w->name = xstrdup(name);
  w->plat = plat;
  w->rank_host = rank_host;
  w->np = np;
  obs_calls_init(&w->c, np);
  return w;
}

replay_observer obs_otf2_observer(obs_otf2 *w) { return obs_calls_observer(&w->c); }

void obs_otf2_free(obs_otf2 *w) {
  if (!w) return;
  obs_calls_free(&w->c);
  free(w->dir);
  free(w->name);
  free(w);
}

/* libotf2 prints its errors unless given a handler: the message goes into psim's error. */
static OTF2_ErrorCode lib_error(void *u, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                const char *fmt, va_list va) {
  (void)file, (void)line, (void)fn;
  obs_otf2 *w = u;
  char m[200] = "";
  if (fmt) vsnprintf(m, sizeof m, fmt, va);
  snprintf(w->lib_msg, sizeof w->lib_msg, "%s%s%s", OTF2_Error_GetName(code), *m ? ": " : "", m);
  return code;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final) {
  (void)u, (void)ft, (void)loc, (void)caller, (void)final;
  return OTF2_FLUSH;
}

static int is_rooted(tit_kind k) {
  return k == TIT_BCAST || k == TIT_REDUCE || k == TIT_GATHER || k == TIT_GATHERV || k == TIT_SCATTER ||
         k == TIT_SCATTERV;
}

static OTF2_CollectiveOp otf2_coll_op(tit_kind k) {
  switch (k) {
  case TIT_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
  case TIT_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
  case TIT_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
  case TIT_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
  case TIT_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
  case TIT_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
  case TIT_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
  case TIT_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
  case TIT_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
  case TIT_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
  case TIT_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
  case TIT_REDUCESCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
  case TIT_SCAN: return OTF2_COLLECTIVE_OP_SCAN;
  case TIT_EXSCAN: return OTF2_COLLECTIVE_OP_EXSCAN;
  default: return OTF2_COLLECTIVE_OP_BARRIER;
  }
}

/* A collective's sizes as Score-P records them, from the trace's per-message sizes; the bytes
 * its messages moved when the action gave none (psim run). */
static void coll_sizes(const obs_call *k, int rank, int np, uint64_t *sent, uint64_t *recvd) {
  double s = k->moved_sent, r = k->moved_recvd;
  if (k->known) {
    double b1 = k->b1 < 0 ? 0 : k->b1, b2 = k->b2 < 0 ? 0 : k->b2, n = np;
    int me = k->root == rank;
    switch (k->kind) {
    case TIT_BARRIER: s = r = 0; break;
    case TIT_BCAST: s = me ? n * b1 : 0; r = me ? 0 : b1; break;
    case TIT_GATHER: s = b1; r = me ? n * b2 : 0; break;
    case TIT_GATHERV: s = b1; r = me ? b2 : 0; break;
    case TIT_SCATTER: s = me ? n * b1 : 0; r = b2; break;
    case TIT_SCATTERV: s = me ? b1 : 0; r = b2; break;
    case TIT_ALLGATHER: case TIT_ALLTOALL: s = n * b1; r = n * b2; break;
    case TIT_ALLGATHERV: s = n * b1; r = b2; break;
    case TIT_ALLTOALLV: s = b1; r = b2; break;
    case TIT_ALLREDUCE: s = r = n * b1; break;
    case TIT_REDUCE: s = b1; r = me ? n * b1 : 0; break;
    case TIT_REDUCESCATTER: s = b1; r = b2; break;
    default: s = r = b1; break;   /* scan, exscan */
    }
  }
  *sent = s > 0 ? (uint64_t)llround(s) : 0;
  *recvd = r > 0 ? (uint64_t)llround(r) : 0;
}

static void write_msg_event(OTF2_EvtWriter *ew, const obs_calls *c, const obs_mev *e) {
  const obs_cmsg *m = &c->msgs.data[e->msg];
  uint64_t t = ticks(e->t), len = m->bytes > 0 ? (uint64_t)llround(m->bytes) : 0, req = (uint64_t)e->msg + 1;
  uint32_t tag = (uint32_t)m->tag;
  switch (e->what) {
  case OE_SEND: OTF2_EvtWriter_MpiSend(ew, NULL, t, (uint32_t)m->dst, 0, tag, len); break;
  case OE_ISEND: OTF2_EvtWriter_MpiIsend(ew, NULL, t, (uint32_t)m->dst, 0, tag, len, req); break;
  case OE_ISEND_DONE: OTF2_EvtWriter_MpiIsendComplete(ew, NULL, t, req); break;
  case OE_RECV: OTF2_EvtWriter_MpiRecv(ew, NULL, t, (uint32_t)m->src, 0, tag, len); break;
  case OE_IRECV_POST: OTF2_EvtWriter_MpiIrecvRequest(ew, NULL, t, req); break;
  default: OTF2_EvtWriter_MpiIrecv(ew, NULL, t, (uint32_t)m->src, 0, tag, len, req); break;
  }
}

/* Rank r's events; its number of events in *nev. Region refs: the function names' indices,
 * then compute, then sleep. */
static void write_rank(obs_otf2 *w, OTF2_EvtWriter *ew, int r, uint64_t *nev) {
  const obs_calls *c = &w->c;
  const obs_call_vec *v = &c->rank[r];
  const obs_mev_vec *ev = &c->ev[r];
  uint32_t nfun = (uint32_t)c->names.len;
  size_t e = 0;
  for (size_t i = 0; i < v->len; i++) {
    const obs_call *k = &v->data[i];
    uint32_t region = k->name >= 0 ? (uint32_t)k->name : k->role == OC_SLEEP ? nfun + 1 : nfun;
    OTF2_EvtWriter_Enter(ew, NULL, ticks(k->start), region);
    if (k->role == OC_COLL) OTF2_EvtWriter_MpiCollectiveBegin(ew, NULL, ticks(k->start));
    for (; e < ev->len && ev->data[e].call == (long)i; e++) write_msg_event(ew, c, &ev->data[e]);
    if (k->role == OC_COLL) {
      uint64_t s, rv;
      coll_sizes(k, r, w->np, &s, &rv);
      uint32_t root = !is_rooted(k->kind) ? OTF2_UNDEFINED_UINT32 : k->root >= 0 ? (uint32_t)k->root : 0;
      OTF2_EvtWriter_MpiCollectiveEnd(ew, NULL, ticks(k->end), otf2_coll_op(k->kind), 0, root, s, rv);
    }
    OTF2_EvtWriter_Leave(ew, NULL, ticks(k->end), region);
  }
  OTF2_EvtWriter_GetNumberOfEvents(ew, nev);
}

static OTF2_RegionRole role_of(const obs_calls *c, uint32_t f) {
  /* the role of the first call of that function */
  for (int r = 0; r < c->np; r++)
    for (size_t i = 0; i < c->rank[r].len; i++) {
      const obs_call *k = &c->rank[r].data[i];
      if (k->name != (int)f) continue;
      if (k->role == OC_COLL) {
        if (k->kind == TIT_BARRIER) return OTF2_REGION_ROLE_BARRIER;
        if (k->kind == TIT_BCAST || k->kind == TIT_SCATTER || k->kind == TIT_SCATTERV) return OTF2_REGION_ROLE_COLL_ONE2ALL;
        if (k->kind == TIT_REDUCE || k->kind == TIT_GATHER || k->kind == TIT_GATHERV) return OTF2_REGION_ROLE_COLL_ALL2ONE;
        if (k->kind == TIT_SCAN || k->kind == TIT_EXSCAN) return OTF2_REGION_ROLE_COLL_OTHER;
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
      }
      return k->role == OC_MPI && k->kind != TIT_RECV && k->kind != TIT_TEST ? OTF2_REGION_ROLE_FUNCTION
                                                                              : OTF2_REGION_ROLE_POINT2POINT;
    }
  return OTF2_REGION_ROLE_FUNCTION;
}

/* Strings are written as they are named: refs in order. */
typedef struct strs { OTF2_GlobalDefWriter *g; uint32_t n; } strs;
static uint32_t str(strs *s, const char *text) {
  OTF2_GlobalDefWriter_WriteString(s->g, s->n, text);
  return s->n++;
}

static void write_global(obs_otf2 *w, OTF2_GlobalDefWriter *g, const uint64_t *nev) {
  const obs_calls *c = &w->c;
  int np = w->np;
  strs S = {g, 0};
  uint32_t empty = str(&S, "");
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, ticks(c->end), OTF2_UNDEFINED_TIMESTAMP);
  /* regions */
  uint32_t nfun = (uint32_t)c->names.len;
  for (uint32_t f = 0; f < nfun; f++) {
    uint32_t s = str(&S, c->names.data[f]);
    OTF2_GlobalDefWriter_WriteRegion(g, f, s, s, empty, role_of(c, f), OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                                     empty, 0, 0);
  }
  static const char *const user[2] = {"compute", "sleep"};
  for (uint32_t u = 0; u < 2; u++) {
    uint32_t s = str(&S, user[u]);
    OTF2_GlobalDefWriter_WriteRegion(g, nfun + u, s, s, empty, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, empty, 0, 0);
  }
  /* the system tree: psim's machine, a node per host used (in order of first rank) */
  uint32_t machine = str(&S, "psim"), machine_class = str(&S, "machine");
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  int *node = xcalloc((size_t)np + 1, sizeof *node), *host_of_node = xcalloc((size_t)np + 1, sizeof *host_of_node);
  int nnodes = 0;
  uint32_t node_class = str(&S, "node");
  for (int r = 0; r < np; r++) {
    int n = 0;
    while (n < nnodes && host_of_node[n] != w->rank_host[r]) n++;
    if (n == nnodes) {
      host_of_node[nnodes++] = w->rank_host[r];
      OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (uint32_t)nnodes, str(&S, plat_host_at(w->plat, w->rank_host[r])->name),
                                               node_class, 0);
    }
    node[r] = n + 1;
  }
  for (int r = 0; r < np; r++) {
    char name[64];
    snprintf(name, sizeof name, "MPI Rank %d", r);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, str(&S, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                            (uint32_t)node[r], OTF2_UNDEFINED_LOCATION_GROUP);
  }
  uint32_t thread = str(&S, "Master thread");
  for (int r = 0; r < np; r++)
    OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, thread, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], (uint32_t)r);
  free(node);
  free(host_of_node);
  /* MPI_COMM_WORLD: the ranks' locations (rank i is location i) and its group of ranks */
  uint64_t *m = xcalloc((size_t)np + 1, sizeof *m);
  for (int r = 0; r < np; r++) m[r] = (uint64_t)r;
  OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  (uint32_t)np, m);
  OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  (uint32_t)np, m);
  free(m);
  OTF2_GlobalDefWriter_WriteComm(g, 0, str(&S, "MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

/* libotf2 draws the archive's trace identifier from the clock, the host and the process (it
 * offers no way to set it), and writes it only into the anchor file (as 8 bytes, least
 * significant first, in OTF2 3.0): the only bytes of the archive that change from run to
 * run. They become a hash of the global definitions (the same run, the same identifier),
 * when found exactly once. */
static void fix_trace_id(const obs_otf2 *w) {
  size_t n = strlen(w->dir) + strlen(w->name) + 8;
  char *anchor = xmalloc(n), *defs = xmalloc(n);
  snprintf(anchor, n, "%s/%s.otf2", w->dir, w->name);
  snprintf(defs, n, "%s/%s.def", w->dir, w->name);
  uint64_t id = 0;
  OTF2_Reader *rd = OTF2_Reader_Open(anchor);
  if (rd) {
    OTF2_Reader_GetTraceId(rd, &id);
    OTF2_Reader_Close(rd);
  }
  uint64_t h = 14695981039346656037ull;   /* FNV-1a */
  FILE *f = fopen(defs, "rb");
  for (int ch; f && (ch = getc(f)) != EOF;) h = (h ^ (uint64_t)ch) * 1099511628211ull;
  if (f) fclose(f);
  unsigned char pat[8], rep[8], buf[4096];
  for (int i = 0; i < 8; i++) {
    pat[i] = (unsigned char)(id >> (8 * i));
    rep[i] = (unsigned char)(h >> (8 * i));
  }
  f = fopen(anchor, "r+b");
  size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
  long at = -1;
  int found = 0;
  for (size_t i = 0; i + 8 <= got; i++)
    if (!memcmp(buf + i, pat, 8)) { at = (long)i; found++; }
  if (found == 1 && fseek(f, at, SEEK_SET) == 0) fwrite(rep, 1, 8, f);
  if (f) fclose(f);
  free(anchor);
  free(defs);
}

static int fail(obs_otf2 *w, const char *what, OTF2_ErrorCode rc, psim_err *err) {
  return psim_errf(err, PSIM_EXIT_INPUT, w->dir, 0, "OTF2 output: %s: %s", what,
                   *w->lib_msg ? w->lib_msg : OTF2_Error_GetName(rc));
}

/* An archive of the same name written before (a run of more ranks, say) is removed first:
 * libotf2 overwrites the files it writes but leaves the others, so a location file of rank 7
 * from an earlier run of 8 ranks stayed beside the 4 of this one. Only the archive's own files
 * go: the anchor, the global definitions and, in its directory, the locations' N.evt and
 * N.def; anything else there is kept, and so is the directory. */
static int clear_archive(const obs_otf2 *w, psim_err *err) {
  size_t n = strlen(w->dir) + strlen(w->name) + 64;
  char *p = xmalloc(n);
  int rc = 0;
  static const char *const ext[] = {"otf2", "def"};
  for (int i = 0; i < 2 && !rc; i++) {
    snprintf(p, n, "%s/%s.%s", w->dir, w->name, ext[i]);
    if (unlink(p) < 0 && errno != ENOENT) rc = psim_errf(err, PSIM_EXIT_INPUT, p, 0, "OTF2 output: cannot remove the archive written before: %s", strerror(errno));
  }
  snprintf(p, n, "%s/%s", w->dir, w->name);
  DIR *d = rc ? NULL : opendir(p);
  for (struct dirent *e; d && !rc && (e = readdir(d));) {
    char *end;
    (void)strtoul(e->d_name, &end, 10);
    if (end == e->d_name || (strcmp(end, ".evt") && strcmp(end, ".def"))) continue;
    size_t m = strlen(p) + strlen(e->d_name) + 2;
    char *f = xmalloc(m);
    snprintf(f, m, "%s/%s", p, e->d_name);
    if (unlink(f) < 0 && errno != ENOENT) rc = psim_errf(err, PSIM_EXIT_INPUT, f, 0, "OTF2 output: cannot remove the archive written before: %s", strerror(errno));
    free(f);
  }
  if (d) closedir(d);
  free(p);
  return rc;
}

int obs_otf2_write(obs_otf2 *w, psim_err *err) {
  if (clear_archive(w, err) < 0) return -1;
  obs_calls_attach(&w->c);
  OTF2_ErrorCallback prev = OTF2_Error_RegisterCallback(lib_error, w);
  int rc = -1;
  OTF2_Archive *a = OTF2_Archive_Open(w->dir, w->name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  uint64_t *nev = xcalloc((size_t)w->np + 1, sizeof *nev);
  OTF2_ErrorCode e;
  static const OTF2_FlushCallbacks flush = {pre_flush, NULL};
  if (!a) { fail(w, "cannot create the archive", OTF2_ERROR_INVALID, err); goto out; }
  OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_SetCreator(a, "psim");
  OTF2_Archive_SetDescription(a, "a psim simulation: simulated times");
  if ((e = OTF2_Archive_OpenEvtFiles(a)) != OTF2_SUCCESS) { fail(w, "cannot open the event files", e, err); goto out; }
  for (int r = 0; r < w->np; r++) {
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(a, (uint64_t)r);
    if (!ew) { fail(w, "cannot write a location's events", OTF2_ERROR_INVALID, err); goto out; }
    write_rank(w, ew, r, &nev[r]);
    if ((e = OTF2_Archive_CloseEvtWriter(a, ew)) != OTF2_SUCCESS) { fail(w, "cannot write a location's events", e, err); goto out; }
  }
  if ((e = OTF2_Archive_CloseEvtFiles(a)) != OTF2_SUCCESS) { fail(w, "cannot close the event files", e, err); goto out; }
  /* each location's (empty) local definitions: readers open them */
  if ((e = OTF2_Archive_OpenDefFiles(a)) != OTF2_SUCCESS) { fail(w, "cannot open the definition files", e, err); goto out; }
  for (int r = 0; r < w->np; r++) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (uint64_t)r);
    if (!dw || (e = OTF2_Archive_CloseDefWriter(a, dw)) != OTF2_SUCCESS) {
      fail(w, "cannot write a location's definitions", OTF2_ERROR_INVALID, err);
      goto out;
    }
  }
  if ((e = OTF2_Archive_CloseDefFiles(a)) != OTF2_SUCCESS) { fail(w, "cannot close the definition files", e, err); goto out; }
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
  if (!g) { fail(w, "cannot write the global definitions", OTF2_ERROR_INVALID, err); goto out; }
  write_global(w, g, nev);
  rc = 0;
out:
  if (a && (e = OTF2_Archive_Close(a)) != OTF2_SUCCESS && rc == 0) rc = fail(w, "cannot close the archive", e, err);
  if (rc == 0) fix_trace_id(w);
  OTF2_Error_RegisterCallback(prev, NULL);
  free(nev);
  return rc;
}

#endif
