/* Score-P OTF2 archives, read with libotf2 (Debian's libotf2-trace-dev) when psim was built
 * with it (PSIM_HAVE_OTF2). Without it, an archive recognised as OTF2 is an error naming the
 * package, not a silent "unknown format".
 *
 * With it: the global definitions give the ranks (the MPI COMM_LOCATIONS group: rank i is its
 * i-th location), the communicators (their groups hold world ranks), the MPI regions and the
 * timer resolution; then each rank's event file is read in order. Compute is the time outside
 * MPI regions, from leaving one MPI call to entering the next; point-to-point and collective
 * records are the actions. libotf2 applies the per-location id mappings of the local .def
 * files itself, so those are read (without callbacks) before the events. */
#include "trace_foreign.h"

#ifndef PSIM_HAVE_OTF2
int fx_otf2_read(const char *path, fx_trace *t, psim_err *err) {
  (void)t;
  return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                   "an OTF2 trace: this psim was built without libotf2 (install Debian's "
                   "libotf2-trace-dev, then rebuild psim)");
}
#else

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/* Definitions are kept in arrays indexed by their reference: Score-P numbers them densely from
 * 0, so a larger reference means a corrupted file, not a big trace. */
#define O2_MAX_REF (1u << 22)

typedef struct o2_group {
  int set, type;   /* OTF2_GroupType */
  uint32_t n;
  uint64_t *m;
} o2_group;

typedef struct o2_region {
  int set, mpi;
  uint32_t name;
  int icoll;   /* index in ICOLL + 1: a non-blocking collective, recorded as a region only */
} o2_region;

typedef struct o2_req {
  uint64_t id;
  long op;     /* index of the isend/irecv in the rank's list */
  int posted;  /* an irecv posted by MpiIrecvRequest whose peer is not known yet */
} o2_req;

/* The non-blocking collectives, whose OTF2 records (Score-P 2) are only their regions. */
static const char *const ICOLL[] = {
  "Ibarrier", "Ibcast", "Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather",
  "Iallgatherv", "Ialltoall", "Ialltoallv", "Ialltoallw", "Iallreduce", "Ireduce",
  "Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan",
};
#define O2_NICOLL (sizeof ICOLL / sizeof *ICOLL)

typedef struct o2 {
  fx_trace *t;
  psim_err *err;
  int failed;
  char lib_msg[256];        /* libotf2's last error message */
  char *base;               /* the anchor without ".otf2": <base>.def, <base>/<loc>.evt */
  char file[4096];          /* the file being read, for errors */
  /* global definitions */
  char **str;
  size_t nstr;
  o2_region *reg;
  size_t nreg;
  o2_group *grp;
  size_t ngrp;
  uint32_t *comm_grp;       /* comm -> group + 1 (0: undefined) */
  size_t ncomm;
  VEC(uint64_t) locs;       /* locations in definition order */
  uint64_t resolution;
  /* ranks: sorted (location, rank) pairs */
  uint64_t *rank_loc, *loc_of;   /* loc_of[rank]: its location */
  int *rank_of;
  size_t nmap;
  /* the rank being read */
  int rank;
  uint64_t loc, pos, last_time, last_leave, off_since;
  int have_time, have_leave, depth, off;
  VEC(o2_req) reqs;
  VEC(long) *colls;         /* per rank, the indices of its replayed collectives */
  /* what was not recorded or not replayed, for the warnings */
  long icoll[O2_NICOLL], unbalanced_leave, nested_enter, ended_inside, off_count;
  long sub_comm_coll, unknown_peer, unknown_req, cancelled, unposted_irecv, never_done;
  long other_coll, extra_locs;
  double off_secs;
} o2;

static const char *str_of(const o2 *d, uint32_t ref) {
  return ref < d->nstr && d->str[ref] ? d->str[ref] : "";
}

/* Grows *p (of *n elements of sz bytes) to hold index i, zeroing the new part. */
static int grow(void **p, size_t *n, uint64_t i, size_t sz) {
  if (i >= O2_MAX_REF) return -1;
  if (i < *n) return 0;
  size_t m = *n ? *n : 16;
  while (m <= i) m *= 2;
  *p = xrealloc(*p, m * sz);
  memset((char *)*p + *n * sz, 0, (m - *n) * sz);
  *n = m;
  return 0;
}

/* An error about the file being read, at the current event; the callback then interrupts. */
static OTF2_CallbackCode ev_fail(o2 *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_CallbackCode ev_fail(o2 *d, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!d->failed)
    psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: location %" PRIu64 " (rank %d), event %" PRIu64 ": %s",
              d->loc, d->rank, d->pos, msg);
  d->failed = 1;
  return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_fail(o2 *d, const char *what, uint64_t ref) {
  if (!d->failed)
    psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: %s definition %" PRIu64 " out of range", what, ref);
  d->failed = 1;
  return OTF2_CALLBACK_INTERRUPT;
}

/* libotf2 prints its errors on stderr unless given a handler: psim keeps the message for its
 * own error, which names the file. */
static OTF2_ErrorCode lib_error(void *u, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                const char *fmt, va_list va) {
  (void)file, (void)line, (void)fn;
  o2 *d = u;
  char m[200] = "";
  if (fmt) vsnprintf(m, sizeof m, fmt, va);
  snprintf(d->lib_msg, sizeof d->lib_msg, "%s%s%s", OTF2_Error_GetName(code), *m ? ": " : "", m);
  return code;
}

/* ------------------------------------------------------------------ global definitions */

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s) {
  o2 *d = u;
  if (grow((void **)&d->str, &d->nstr, self, sizeof *d->str)) return def_fail(d, "string", self);
  free(d->str[self]);
  d->str[self] = xstrdup(s ? s : "");
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef cname,
                                    OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm par,
                                    OTF2_RegionFlag flags, OTF2_StringRef src, uint32_t l0, uint32_t l1) {
  (void)cname, (void)desc, (void)role, (void)flags, (void)src, (void)l0, (void)l1;
  o2 *d = u;
  if (grow((void **)&d->reg, &d->nreg, self, sizeof *d->reg)) return def_fail(d, "region", self);
  d->reg[self] = (o2_region){1, par == OTF2_PARADIGM_MPI, name, 0};
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nev, OTF2_LocationGroupRef lg) {
  (void)name, (void)type, (void)nev, (void)lg;
  o2 *d = u;
  VEC_PUSH(d->locs, self);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm par, OTF2_GroupFlag flags, uint32_t n, const uint64_t *m) {
  (void)name, (void)flags;
  o2 *d = u;
  if (grow((void **)&d->grp, &d->ngrp, self, sizeof *d->grp)) return def_fail(d, "group", self);
  o2_group *g = &d->grp[self];
  free(g->m);
  /* only MPI's groups say who is in a communicator; other paradigms' are not used */
  g->set = par == OTF2_PARADIGM_MPI || type == OTF2_GROUP_TYPE_COMM_SELF;
  g->type = type;
  g->n = n;
  g->m = xcalloc(n ? n : 1, sizeof *g->m);
  if (n) memcpy(g->m, m, n * sizeof *m);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags) {
  (void)name, (void)parent, (void)flags;
  o2 *d = u;
  if (grow((void **)&d->comm_grp, &d->ncomm, self, sizeof *d->comm_grp)) return def_fail(d, "communicator", self);
  d->comm_grp[self] = group + 1;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt) {
  (void)off, (void)len, (void)rt;
  ((o2 *)u)->resolution = res;
  return OTF2_CALLBACK_SUCCESS;
}

static int cmp_loc(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The rank of a location, -1 when it is none. */
static int rank_of_loc(const o2 *d, uint64_t loc) {
  const uint64_t *p = bsearch(&loc, d->rank_loc, d->nmap, sizeof loc, cmp_loc);
  return p ? d->rank_of[p - d->rank_loc] : -1;
}

/* Ranks from the MPI COMM_LOCATIONS group (Score-P writes one: rank i is its i-th member);
 * without one, every location is a rank, in definition order. */
static int make_ranks(o2 *d) {
  const o2_group *world = NULL;
  for (size_t i = 0; i < d->ngrp && !world; i++)
    if (d->grp[i].set && d->grp[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS) world = &d->grp[i];
  size_t n = world ? world->n : d->locs.len;
  const uint64_t *m = world ? world->m : d->locs.data;
  if (fx_set_nranks(d->t, (long)n, 0, d->err)) return -1;
  /* locations sorted (for bsearch), each with its rank */
  uint64_t *key = xcalloc(n, sizeof *key);
  int *val = xcalloc(n, sizeof *val);
  for (size_t i = 0; i < n; i++) key[i] = m[i];
  if (n) qsort(key, n, sizeof *key, cmp_loc);   /* never NULL to qsort */
  for (size_t i = 0; i + 1 < n; i++)
    if (key[i] == key[i + 1]) {
      uint64_t twice = key[i];
      free(key), free(val);
      return psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: location %" PRIu64 " is two ranks", twice);
    }
  for (size_t i = 0; i < n; i++) {
    uint64_t *p = bsearch(&m[i], key, n, sizeof *key, cmp_loc);
    val[p - key] = (int)i;
  }
  d->rank_loc = key;
  d->rank_of = val;
  d->loc_of = xcalloc(n, sizeof *d->loc_of);
  if (n) memcpy(d->loc_of, m, n * sizeof *m);
  d->nmap = n;
  for (size_t i = 0; i < d->locs.len; i++) d->extra_locs += rank_of_loc(d, d->locs.data[i]) < 0;
  /* regions: MPI by paradigm (or by name, for writers that leave it undefined) */
  for (size_t i = 0; i < d->nreg; i++) {
    o2_region *r = &d->reg[i];
    const char *nm = str_of(d, r->name);
    if (!strncmp(nm, "MPI_", 4)) r->mpi = 1;
    if (!r->mpi || strncmp(nm, "MPI_", 4)) continue;
    for (size_t k = 0; k < O2_NICOLL; k++)
      if (!strcasecmp(nm + 4, ICOLL[k])) r->icoll = (int)k + 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ communicators */

/* The group of a communicator, NULL when unknown. */
static const o2_group *comm_group(const o2 *d, OTF2_CommRef c) {
  if (c >= d->ncomm || !d->comm_grp[c]) return NULL;
  uint32_t g = d->comm_grp[c] - 1;
  return g < d->ngrp && d->grp[g].set ? &d->grp[g] : NULL;
}

static long comm_size(const o2 *d, OTF2_CommRef c) {
  const o2_group *g = comm_group(d, c);
  if (!g) return -1;
  return g->type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : (long)g->n;
}

/* The world rank of communicator-local rank p, -1 when unknown. COMM_GROUP members are ranks
 * (indices in the COMM_LOCATIONS group), COMM_LOCATIONS members are locations. */
static int world_rank(const o2 *d, OTF2_CommRef c, uint64_t p) {
  const o2_group *g = comm_group(d, c);
  if (!g) return -1;
  if (g->type == OTF2_GROUP_TYPE_COMM_SELF) return p == 0 ? d->rank : -1;
  if (p >= g->n) return -1;
  if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) return rank_of_loc(d, g->m[p]);
  return g->m[p] < (uint64_t)d->t->nranks ? (int)g->m[p] : -1;
}

/* ------------------------------------------------------------------ events */

/* Every event: its position for errors, and time never going back. */
static int ev_at(o2 *d, OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos) {
  d->pos = pos;
  if (loc != d->loc) { ev_fail(d, "an event of location %" PRIu64 " in this location's file", loc); return -1; }
  if (d->have_time && time < d->last_time) { ev_fail(d, "time goes back"); return -1; }
  d->have_time = 1;
  d->last_time = time;
  return 0;
}

static double secs(const o2 *d, uint64_t ticks) { return (double)ticks / (double)d->resolution; }

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  if (region >= d->nreg || !d->reg[region].set) return ev_fail(d, "Enter of undefined region %" PRIu32, region);
  const o2_region *r = &d->reg[region];
  if (!r->mpi) return OTF2_CALLBACK_SUCCESS;   /* user code: its time is compute */
  if (r->icoll) d->icoll[r->icoll - 1]++;
  if (d->depth++ > 0) { d->nested_enter++; return OTF2_CALLBACK_SUCCESS; }
  if (d->have_leave && time > d->last_leave) fx_push(d->t, d->rank, TIT_COMPUTE)->secs = secs(d, time - d->last_leave);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  if (region >= d->nreg || !d->reg[region].set) return ev_fail(d, "Leave of undefined region %" PRIu32, region);
  if (!d->reg[region].mpi) return OTF2_CALLBACK_SUCCESS;
  if (d->depth == 0) d->unbalanced_leave++;   /* its Enter was not recorded */
  else d->depth--;
  if (d->depth == 0) { d->last_leave = time; d->have_leave = 1; }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_onoff(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_MeasurementMode mode) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  if (mode == OTF2_MEASUREMENT_OFF && !d->off) { d->off = 1; d->off_since = time; d->off_count++; }
  else if (mode == OTF2_MEASUREMENT_ON && d->off) { d->off = 0; d->off_secs += secs(d, time - d->off_since); }
  return OTF2_CALLBACK_SUCCESS;
}

/* MPI tags are 0..INT32_MAX; larger values are MPI_ANY_TAG stored unsigned (-1). */
static int tag_of(uint32_t tag) { return tag <= INT32_MAX ? (int)tag : -1; }

/* A point-to-point action to world rank w (or not replayed when the peer is unknown). */
static fx_op *p2p(o2 *d, tit_kind k, OTF2_CommRef comm, uint32_t peer, uint32_t tag, uint64_t len) {
  int w = world_rank(d, comm, peer);
  if (w < 0) { d->unknown_peer++; return NULL; }
  fx_op *o = fx_push(d->t, d->rank, k);
  o->peer = w;
  o->tag = tag_of(tag);
  o->bytes = (double)len;
  return o;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  p2p(d, TIT_SEND, comm, to, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  p2p(d, TIT_RECV, comm, from, tag, len);
  return OTF2_CALLBACK_SUCCESS;
}

static o2_req *find_req(o2 *d, uint64_t id) {
  for (size_t i = d->reqs.len; i-- > 0;)
    if (d->reqs.data[i].id == id) return &d->reqs.data[i];
  return NULL;
}

static void drop_req(o2 *d, o2_req *q) {
  size_t i = (size_t)(q - d->reqs.data);
  memmove(q, q + 1, (d->reqs.len - i - 1) * sizeof *q);
  d->reqs.len--;
}

/* An action that turned out not to be replayable once listed: a zero compute keeps the
 * indices of the later requests' waits valid. */
static void unlist(o2 *d, long op) {
  fx_op *o = &d->t->ranks[d->rank].data[op];
  memset(o, 0, sizeof *o);
  o->kind = TIT_COMPUTE;
  o->peer = o->root = -1;
  o->req = -1;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                  uint64_t req) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  if (!p2p(d, TIT_ISEND, comm, to, tag, len)) return OTF2_CALLBACK_SUCCESS;
  if (find_req(d, req)) return ev_fail(d, "MpiIsend with request %" PRIu64 ", which is still pending", req);
  VEC_PUSH(d->reqs, ((o2_req){req, (long)d->t->ranks[d->rank].len - 1, 0}));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                       OTF2_AttributeList *al, uint64_t req) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  o2_req *q = find_req(d, req);
  if (!q || q->posted) { d->unknown_req++; return OTF2_CALLBACK_SUCCESS; }
  fx_push(d->t, d->rank, TIT_WAIT)->req = q->op;
  drop_req(d, q);
  return OTF2_CALLBACK_SUCCESS;
}

/* OTF2 records an irecv twice: posted (MpiIrecvRequest, the request only) and completed
 * (MpiIrecv, with the source, tag and size). The irecv is listed where it was posted, so that
 * the replay posts it at the same point, and its fields are filled in at completion. */
static OTF2_CallbackCode ev_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, uint64_t req) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  if (find_req(d, req)) return ev_fail(d, "MpiIrecvRequest with request %" PRIu64 ", which is still pending", req);
  fx_push(d->t, d->rank, TIT_IRECV);
  VEC_PUSH(d->reqs, ((o2_req){req, (long)d->t->ranks[d->rank].len - 1, 1}));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                  uint64_t req) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  o2_req *q = find_req(d, req);
  if (!q || !q->posted) {   /* posting not recorded: replayed as posted here */
    d->unposted_irecv++;
    fx_op *o = p2p(d, TIT_IRECV, comm, from, tag, len);
    if (o) fx_push(d->t, d->rank, TIT_WAIT)->req = (long)d->t->ranks[d->rank].len - 1;
    return OTF2_CALLBACK_SUCCESS;
  }
  long op = q->op;
  drop_req(d, q);
  int w = world_rank(d, comm, from);
  if (w < 0) { d->unknown_peer++; unlist(d, op); return OTF2_CALLBACK_SUCCESS; }
  fx_op *o = &d->t->ranks[d->rank].data[op];
  o->peer = w;
  o->tag = tag_of(tag);
  o->bytes = (double)len;
  fx_push(d->t, d->rank, TIT_WAIT)->req = op;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, uint64_t req) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  o2_req *q = find_req(d, req);
  if (!q) return OTF2_CALLBACK_SUCCESS;
  d->cancelled++;
  unlist(d, q->op);
  drop_req(d, q);
  return OTF2_CALLBACK_SUCCESS;
}

/* OTF2's collective sizes are what this rank sent and received in total (Score-P's
 * convention, seen in the sample: a Bcast's root sends N x the message, its non-roots 0;
 * Allreduce and the all-to-all kinds count N x the buffer); TIT wants the message or the
 * per-peer size, hence the divisions by the communicator's size. */
static OTF2_CallbackCode ev_coll(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                 uint64_t sent, uint64_t recvd) {
  (void)al;
  o2 *d = u;
  if (ev_at(d, loc, time, pos)) return OTF2_CALLBACK_INTERRUPT;
  tit_kind k;
  switch (op) {
  case OTF2_COLLECTIVE_OP_BARRIER: k = TIT_BARRIER; break;
  case OTF2_COLLECTIVE_OP_BCAST: k = TIT_BCAST; break;
  case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: k = TIT_GATHER; break;
  case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV: k = TIT_SCATTER; break;
  case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV: k = TIT_ALLGATHER; break;
  case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV: case OTF2_COLLECTIVE_OP_ALLTOALLW:
    k = TIT_ALLTOALL;
    break;
  case OTF2_COLLECTIVE_OP_ALLREDUCE: k = TIT_ALLREDUCE; break;
  case OTF2_COLLECTIVE_OP_REDUCE: k = TIT_REDUCE; break;
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: k = TIT_REDUCESCATTER; break;
  case OTF2_COLLECTIVE_OP_SCAN: k = TIT_SCAN; break;
  case OTF2_COLLECTIVE_OP_EXSCAN: k = TIT_EXSCAN; break;
  default: d->other_coll++; return OTF2_CALLBACK_SUCCESS;   /* one-sided windows' create/free */
  }
  long n = comm_size(d, comm);
  if (n != d->t->nranks) { d->sub_comm_coll++; return OTF2_CALLBACK_SUCCESS; }
  int has_root = k == TIT_BCAST || k == TIT_GATHER || k == TIT_SCATTER || k == TIT_REDUCE;
  int w = has_root ? world_rank(d, comm, root) : -1;
  if (has_root && w < 0) return ev_fail(d, "collective with root %" PRIu32 " outside its communicator", root);
  int me = w == d->rank;
  double s = (double)sent, r = (double)recvd, N = (double)n;
  fx_op *o = fx_push(d->t, d->rank, k);
  o->root = w;
  switch (k) {
  case TIT_BCAST: o->bytes = me ? s / N : r; break;
  case TIT_GATHER: o->bytes = s; o->bytes2 = me ? r / N : s; break;
  case TIT_SCATTER: o->bytes = me ? s / N : r; o->bytes2 = r; break;
  case TIT_ALLGATHER: case TIT_ALLTOALL: o->bytes = s / N; o->bytes2 = r / N; break;
  case TIT_ALLREDUCE: o->bytes = s / N; break;
  case TIT_REDUCESCATTER: o->bytes = s / N; o->bytes2 = r; break;
  default: o->bytes = s; break;   /* reduce, scan, exscan: this rank's buffer */
  }
  VEC_PUSH(d->colls[d->rank], (long)d->t->ranks[d->rank].len - 1);
  return OTF2_CALLBACK_SUCCESS;
}

/* Every rank must have the same sequence of collectives on MPI_COMM_WORLD-sized
 * communicators (else the replay would hang); rooted ones take the root's sizes, since a
 * non-root's record may say 0 (a Bcast's non-roots send nothing). */
static int check_colls(o2 *d) {
  fx_trace *t = d->t;
  for (int r = 1; r < t->nranks; r++)
    if (d->colls[r].len != d->colls[0].len)
      return psim_errf(d->err, PSIM_EXIT_INPUT, t->path, 0,
                       "OTF2 trace: rank %d has %zu collectives, rank 0 %zu (the trace is inconsistent or incomplete)",
                       r, d->colls[r].len, d->colls[0].len);
  for (size_t k = 0; k < d->colls[0].len; k++) {
    const fx_op *o0 = &t->ranks[0].data[d->colls[0].data[k]];
    for (int r = 1; r < t->nranks; r++) {
      const fx_op *o = &t->ranks[r].data[d->colls[r].data[k]];
      if (o->kind != o0->kind || o->root != o0->root)
        return psim_errf(d->err, PSIM_EXIT_INPUT, t->path, 0,
                         "OTF2 trace: collective %zu is a %s (root %d) on rank %d, a %s (root %d) on rank 0", k + 1,
                         tit_kind_name(o->kind), o->root, r, tit_kind_name(o0->kind), o0->root);
    }
    if (o0->root < 0) continue;
    const fx_op *ro = &t->ranks[o0->root].data[d->colls[o0->root].data[k]];
    for (int r = 0; r < t->nranks; r++) {
      fx_op *o = &t->ranks[r].data[d->colls[r].data[k]];
      if (o0->kind == TIT_BCAST || o0->kind == TIT_SCATTER) o->bytes = ro->bytes;
      if (o0->kind == TIT_GATHER) o->bytes2 = ro->bytes2;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ reading */

static int lib_fail(o2 *d, const char *what, OTF2_ErrorCode rc) {
  if (d->failed) return -1;
  d->failed = 1;
  return psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: %s: %s", what,
                   *d->lib_msg ? d->lib_msg : OTF2_Error_GetName(rc));
}

static void set_file(o2 *d, const char *suffix, uint64_t loc) {
  if (suffix) snprintf(d->file, sizeof d->file, "%s%s", d->base, suffix);
  else snprintf(d->file, sizeof d->file, "%s/%" PRIu64 ".evt", d->base, loc);
}

static int read_global(o2 *d, OTF2_Reader *R) {
  set_file(d, ".def", 0);
  OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(R);
  if (!gd) return lib_fail(d, "cannot read the global definitions", OTF2_ERROR_INVALID);
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
  OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(R, gd, cb, d);
  uint64_t n = 0;
  if (rc == OTF2_SUCCESS) rc = OTF2_Reader_ReadAllGlobalDefinitions(R, gd, &n);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  OTF2_Reader_CloseGlobalDefReader(R, gd);
  if (d->failed) return -1;
  if (rc != OTF2_SUCCESS) return lib_fail(d, "reading the global definitions", rc);
  if (!d->resolution)
    return psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: no clock properties (timer resolution)");
  if (!d->locs.len) return psim_errf(d->err, PSIM_EXIT_INPUT, d->file, 0, "OTF2 trace: no location defined");
  return make_ranks(d);
}

static OTF2_EvtReaderCallbacks *event_callbacks(void) {
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, ev_onoff);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_req);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll);
  return cb;
}

/* One rank's local definitions (the id mappings libotf2 applies to its events), then events. */
static int read_rank(o2 *d, OTF2_Reader *R, int r, OTF2_EvtReaderCallbacks *cb) {
  uint64_t loc = d->loc_of[r];
  d->rank = r;
  d->loc = loc;
  d->have_time = d->have_leave = d->depth = d->off = 0;
  d->reqs.len = 0;
  char suffix[40];
  snprintf(suffix, sizeof suffix, "/%" PRIu64 ".def", loc);
  set_file(d, suffix, loc);
  OTF2_DefReader *dr = OTF2_Reader_GetDefReader(R, loc);
  if (dr) {   /* a location without a .def file has no mappings */
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(R, dr, &n);
    OTF2_Reader_CloseDefReader(R, dr);
    if (rc != OTF2_SUCCESS) return lib_fail(d, "reading the location's definitions", rc);
  }
  set_file(d, NULL, loc);
  *d->lib_msg = 0;
  OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(R, loc);
  if (!er) return lib_fail(d, "cannot open the location's events", OTF2_ERROR_INVALID);
  OTF2_ErrorCode rc = OTF2_Reader_RegisterEvtCallbacks(R, er, cb, d);
  uint64_t n = 0;
  if (rc == OTF2_SUCCESS) rc = OTF2_Reader_ReadAllLocalEvents(R, er, &n);
  OTF2_Reader_CloseEvtReader(R, er);
  if (d->failed) return -1;
  if (rc != OTF2_SUCCESS) {
    d->pos = n;
    char what[80];
    snprintf(what, sizeof what, "location %" PRIu64 " (rank %d), after event %" PRIu64, loc, r, n);
    return lib_fail(d, what, rc);
  }
  if (d->depth > 0) d->ended_inside++;
  if (d->off) d->off_secs += secs(d, d->last_time - d->off_since);
  for (size_t i = 0; i < d->reqs.len; i++) {
    if (d->reqs.data[i].posted) unlist(d, d->reqs.data[i].op);   /* an irecv never completed */
    d->never_done++;
  }
  return 0;
}

static void warn_all(o2 *d) {
  fx_trace *t = d->t;
  fx_warn(t, "compute is the time between leaving one MPI call and entering the next (timer: %" PRIu64 " ticks/s)",
          d->resolution);
  char names[400] = "";
  long ni = 0;
  for (size_t k = 0; k < O2_NICOLL; k++) {
    if (!d->icoll[k]) continue;
    ni += d->icoll[k];
    size_t l = strlen(names);
    snprintf(names + l, sizeof names - l, "%sMPI_%s %ld", l ? ", " : "", ICOLL[k], d->icoll[k]);
  }
  if (ni)
    fx_warn(t, "%ld non-blocking collectives recorded as regions only, without their sizes (%s): not replayed, their time "
               "is not compute", ni, names);
  if (d->off_count)
    fx_warn(t, "measurement was switched off %ld times (%.6g s in all): the MPI calls of those periods were not "
               "recorded, their time is replayed as compute", d->off_count, d->off_secs);
  if (d->unbalanced_leave)
    fx_warn(t, "%ld leaves of MPI calls whose enter was not recorded: the time before them is not compute",
            d->unbalanced_leave);
  if (d->nested_enter) fx_warn(t, "%ld MPI calls entered inside another: counted as part of the outer call", d->nested_enter);
  if (d->ended_inside) fx_warn(t, "%ld ranks' events end inside an MPI call (its leave was not recorded)", d->ended_inside);
  if (d->sub_comm_coll)
    fx_warn(t, "%ld collectives on communicators smaller than MPI_COMM_WORLD (or unknown): not replayed", d->sub_comm_coll);
  if (d->unknown_peer)
    fx_warn(t, "%ld point-to-point records on communicators or peers the trace does not define: not replayed",
            d->unknown_peer);
  if (d->unknown_req) fx_warn(t, "%ld send completions of requests no MpiIsend started: not replayed", d->unknown_req);
  if (d->unposted_irecv)
    fx_warn(t, "%ld irecv completions without their MpiIrecvRequest: posted where they completed", d->unposted_irecv);
  if (d->cancelled) fx_warn(t, "%ld cancelled requests: not replayed", d->cancelled);
  if (d->never_done) fx_warn(t, "%ld requests never completed in the trace (irecvs: not replayed)", d->never_done);
  if (d->other_coll) fx_warn(t, "%ld collective records that are not MPI collectives (one-sided windows...): not replayed",
                             d->other_coll);
  if (d->extra_locs)
    fx_warn(t, "%ld locations that are not MPI ranks (threads, devices): not read", d->extra_locs);
}

static void o2_free(o2 *d) {
  for (size_t i = 0; i < d->nstr; i++) free(d->str[i]);
  free(d->str);
  free(d->reg);
  for (size_t i = 0; i < d->ngrp; i++) free(d->grp[i].m);
  free(d->grp);
  free(d->comm_grp);
  VEC_FREE(d->locs);
  free(d->rank_loc);
  free(d->rank_of);
  free(d->loc_of);
  VEC_FREE(d->reqs);
  for (int r = 0; d->colls && r < d->t->nranks; r++) VEC_FREE(d->colls[r]);
  free(d->colls);
  free(d->base);
}

int fx_otf2_read(const char *path, fx_trace *t, psim_err *err) {
  o2 d;
  memset(&d, 0, sizeof d);
  d.t = t;
  d.err = err;
  size_t n = strlen(path);
  d.base = xstrdup(path);
  if (n > 5 && !strcmp(path + n - 5, ".otf2")) d.base[n - 5] = 0;
  snprintf(d.file, sizeof d.file, "%s", path);
  /* libotf2's handler is process-wide: psim's replaces it while reading, then gives it back */
  OTF2_ErrorCallback prev = OTF2_Error_RegisterCallback(lib_error, &d);
  int rc = 0;
  OTF2_Reader *R = OTF2_Reader_Open(path);
  if (!R) rc = lib_fail(&d, "cannot open the archive", OTF2_ERROR_INVALID);
  OTF2_ErrorCode orc = OTF2_SUCCESS;
  if (!rc && (orc = OTF2_Reader_SetSerialCollectiveCallbacks(R)) != OTF2_SUCCESS)
    rc = lib_fail(&d, "cannot open the archive", orc);
  if (!rc) rc = read_global(&d, R);
  for (size_t i = 0; !rc && i < d.nmap; i++)
    if ((orc = OTF2_Reader_SelectLocation(R, d.rank_loc[i])) != OTF2_SUCCESS)
      rc = lib_fail(&d, "selecting the locations", orc);
  int def_open = 0, evt_open = 0;
  if (!rc) def_open = OTF2_Reader_OpenDefFiles(R) == OTF2_SUCCESS;   /* an archive may have no local .def */
  if (!rc && (orc = OTF2_Reader_OpenEvtFiles(R)) != OTF2_SUCCESS) rc = lib_fail(&d, "opening the event files", orc);
  evt_open = !rc;
  if (!rc) {
    d.colls = xcalloc((size_t)t->nranks, sizeof *d.colls);
    OTF2_EvtReaderCallbacks *cb = event_callbacks();
    for (int r = 0; r < t->nranks && !rc; r++) rc = read_rank(&d, R, r, cb);
    OTF2_EvtReaderCallbacks_Delete(cb);
  }
  if (def_open) OTF2_Reader_CloseDefFiles(R);
  if (evt_open) OTF2_Reader_CloseEvtFiles(R);
  if (R) OTF2_Reader_Close(R);
  OTF2_Error_RegisterCallback(prev, NULL);
  if (!rc) rc = check_colls(&d);
  if (!rc) warn_all(&d);
  o2_free(&d);
  return rc ? -1 : 0;
}
#endif
