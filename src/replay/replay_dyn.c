/* Nodes leaving and joining mid-run (DPS's dynamic node allocation) and dynamic efficiency
 * (see include/psim/replay.h and docs/models.md): the event spec parser, the placement rule,
 * the tracker of iterations, allocated hosts and moves that replay, lb and run feed, and the
 * events due at a rank's boundary (dyn_events_due: replay's and run's rule). Bookkeeping: how
 * a rank moves and what it costs is the drivers' business. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/replay.h"

/* ---- the spec ---- */
typedef struct spec_cur {
  const char *opt, *spec, *p;
  psim_err *err;
} spec_cur;

static int spec_fail(spec_cur *c, const char *expected) {
  return psim_errf(c->err, PSIM_EXIT_INPUT, NULL, 0, "%s '%s': at character %d: expected %s", c->opt, c->spec,
                   (int)(c->p - c->spec) + 1, expected);
}

static int eat(spec_cur *c, const char *lit) {
  size_t n = strlen(lit);
  if (strncmp(c->p, lit, n)) return 0;
  c->p += n;
  return 1;
}

static int read_uint(spec_cur *c, long *v) {
  if (!isdigit((unsigned char)*c->p)) return -1;
  char *end;
  *v = strtol(c->p, &end, 10);
  if (*v > 1000000000L) return -1;
  c->p = end;
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* One item: a name (the longest run up to ',' or ';'), else INDEX or FIRST-LAST. */
typedef VEC(int) int_vec;

static int read_item(spec_cur *c, int nunits, const char *(*name_of)(void *, int), void *ctx,
                     int_vec *out) {
  size_t n = strcspn(c->p, ",;");
  if (name_of && n) {
    for (int u = 0; u < nunits; u++) {
      const char *nm = name_of(ctx, u);
      if (nm && strlen(nm) == n && !strncmp(nm, c->p, n)) {
        VEC_PUSH(*out, u);
        c->p += n;
        return 0;
      }
    }
  }
  char what[160];
  snprintf(what, sizeof what, "%s index (0..%d) or range FIRST-LAST", name_of ? "a name or an" : "an",
           nunits - 1);
  long a, b;
  const char *start = c->p;
  if (read_uint(c, &a) < 0) return spec_fail(c, what);
  b = a;
  if (*c->p == '-') {
    c->p++;
    if (read_uint(c, &b) < 0) return spec_fail(c, "the last index of the range");
  }
  if (*c->p && *c->p != ',' && *c->p != ';') return spec_fail(c, "',', ';' or the end after the item");
  if (a >= nunits || b >= nunits || b < a) {
    c->p = start;
    snprintf(what, sizeof what, "indices in 0..%d with FIRST <= LAST", nunits - 1);
    return spec_fail(c, what);
  }
  for (long i = a; i <= b; i++) VEC_PUSH(*out, (int)i);
  return 0;
}

int dyn_events_parse(const char *opt, const char *spec, int nunits,
                     const char *(*name_of)(void *ctx, int unit), void *ctx, dyn_events *out,
                     psim_err *err) {
  memset(out, 0, sizeof *out);
  spec_cur c = {opt, spec, spec, err};
  VEC(dyn_event) evs = {0};
  for (;;) {
    dyn_event ev = {.date = -1};
    if (eat(&c, "iter=")) {
      long n;
      const char *num = c.p;
      if (read_uint(&c, &n) < 0 || n < 1) { c.p = num; goto bad_iter; }
      ev.iteration = (int)n;
    } else if (eat(&c, "t=")) {
      char *end;
      double d = strtod(c.p, &end);
      if (end == c.p || !isfinite(d) || d < 0 || *c.p == '-' || *c.p == '+') {
        spec_fail(&c, "a date in seconds (>= 0) after t=");
        goto fail;
      }
      c.p = end;
      ev.date = d;
    } else {
      spec_fail(&c, "iter=N or t=DATE");
      goto fail;
    }
    if (!eat(&c, ":")) { spec_fail(&c, "':' then remove=LIST or add=LIST"); goto fail; }
    if (eat(&c, "remove=")) ev.action = DYN_REMOVE;
    else if (eat(&c, "add=")) ev.action = DYN_ADD;
    else { spec_fail(&c, "remove=LIST or add=LIST"); goto fail; }
    int_vec units = {0};
    for (;;) {
      if (read_item(&c, nunits, name_of, ctx, &units) < 0) { VEC_FREE(units); goto fail; }
      if (*c.p != ',') break;
      c.p++;
    }
    qsort(units.data, units.len, sizeof *units.data, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < units.len; i++)
      if (!k || units.data[k - 1] != units.data[i]) units.data[k++] = units.data[i];
    ev.units = units.data;
    ev.nunits = (int)k;
    VEC_PUSH(evs, ev);
    if (!*c.p) break;
    c.p++;   /* ';' */
    if (!*c.p) { spec_fail(&c, "another event after ';'"); goto fail; }
  }
  out->ev = evs.data;
  out->n = (int)evs.len;
  return 0;
bad_iter:
  spec_fail(&c, "an iteration number >= 1 after iter=");
fail:
  for (size_t i = 0; i < evs.len; i++) free(evs.data[i].units);
  VEC_FREE(evs);
  return -1;
}

void dyn_events_free(dyn_events *e) {
  for (int i = 0; i < e->n; i++) free(e->ev[i].units);
  free(e->ev);
  memset(e, 0, sizeof *e);
}

/* ---- the placement rule ---- */
int *dyn_events_maps(const dyn_events *e, int np, const int *home, int nunits, int policy,
                     const char *opt, psim_err *err) {
  int *maps = xmalloc((size_t)(e->n ? e->n : 1) * (size_t)(np ? np : 1) * sizeof *maps);
  char *pool = xcalloc((size_t)nunits, 1), *is_home = xcalloc((size_t)nunits, 1);
  int *count = xcalloc((size_t)nunits, sizeof *count), *cur = xmalloc((size_t)(np ? np : 1) * sizeof *cur);
  for (int r = 0; r < np; r++) { cur[r] = home[r]; pool[home[r]] = 1; is_home[home[r]] = 1; count[home[r]]++; }
  for (int i = 0; i < e->n; i++) {
    const dyn_event *ev = &e->ev[i];
    for (int j = 0; j < ev->nunits; j++) pool[ev->units[j]] = ev->action == DYN_ADD;
    int npool = 0;
    for (int u = 0; u < nunits; u++) npool += pool[u];
    if (!npool) {
      psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s: event %d (%s) leaves no %s to run on", opt, i + 1,
                ev->iteration ? "an iteration event" : "a date event", !strcmp(opt, "--pe-events") ? "PE" : "host");
      free(maps); maps = NULL;
      goto out;
    }
    if (ev->action == DYN_ADD) {
      /* ranks whose home is added go back; a unit that is no rank's home takes ranks from
       * the crowded ones */
      char *added = xcalloc((size_t)nunits, 1);
      for (int j = 0; j < ev->nunits; j++) added[ev->units[j]] = 1;
      for (int r = 0; r < np; r++)
        if (cur[r] != home[r] && added[home[r]]) { count[cur[r]]--; cur[r] = home[r]; count[cur[r]]++; }
      free(added);
      for (int j = 0; j < ev->nunits; j++) {
        int u = ev->units[j];
        if (is_home[u]) continue;
        for (;;) {
          int big = -1;
          for (int v = 0; v < nunits; v++)
            if (pool[v] && v != u && (big < 0 || count[v] > count[big])) big = v;
          if (big < 0 || count[big] < count[u] + 2) break;
          int r = np - 1;
          while (cur[r] != big) r--;
          count[big]--; cur[r] = u; count[u]++;
        }
      }
    }
    /* displaced ranks (on units out of the pool), in rank order */
    int k = 0;
    for (int r = 0; r < np; r++) {
      if (pool[cur[r]]) continue;
      int to = -1;
      if (policy == DYN_POLICY_LEAST) {
        for (int v = 0; v < nunits; v++)
          if (pool[v] && (to < 0 || count[v] < count[to])) to = v;
      } else {
        int want = k % npool;
        for (int v = 0; v < nunits; v++)
          if (pool[v] && want-- == 0) { to = v; break; }
      }
      k++;
      count[cur[r]]--; cur[r] = to; count[to]++;
    }
    memcpy(maps + (size_t)i * (size_t)np, cur, (size_t)np * sizeof *cur);
  }
out:
  free(pool); free(is_home); free(count); free(cur);
  return maps;
}

/* ---- the tracker ---- */
typedef struct alloc_rec { double t; int unit, dpool, dcount; long seq; } alloc_rec;
/* A computation in progress: its activity, its size in the activity's units and in seconds
 * of a dedicated host, and what was already credited to closed iterations. */
typedef struct dyn_open { const activity *a; double units, seconds, credited; } dyn_open;

struct dyn_track {
  int np, nunits;
  int *marks;                 /* per rank: markers reached */
  int *unit;                  /* per rank: the unit it occupies (for dyn_place) */
  VEC(double) useful;         /* per iteration (0-based), growing */
  VEC(double) end;            /* per iteration: the latest marker date */
  VEC(int) reached;           /* per iteration: ranks that reached its marker */
  size_t nfinal;              /* iterations every rank has ended: the one in progress */
  dyn_open *open;             /* per rank */
  VEC(alloc_rec) alloc;
  VEC(dyn_event_rec) events;
  int *event_of;              /* spec event index -> index in events, -1 */
  int nspec;
};

static void alloc_push(dyn_track *d, double t, int unit, int dpool, int dcount) {
  alloc_rec a = {t, unit, dpool, dcount, (long)d->alloc.len};
  VEC_PUSH(d->alloc, a);
}

dyn_track *dyn_new(int np, int nunits, const int *initial_unit) {
  dyn_track *d = xcalloc(1, sizeof *d);
  d->np = np;
  d->nunits = nunits;
  d->marks = xcalloc((size_t)(np ? np : 1), sizeof *d->marks);
  d->unit = xmalloc((size_t)(np ? np : 1) * sizeof *d->unit);
  d->open = xcalloc((size_t)(np ? np : 1), sizeof *d->open);
  /* One record per occupied unit at date 0, with its count of ranks (not one per rank: 32
   * bytes a rank, issue 38). dyn_finish keeps the allocated count at the last record of a
   * date, so the records of date 0 may come in any order and grouping. */
  int *count = xcalloc((size_t)(nunits ? nunits : 1), sizeof *count);
  for (int r = 0; r < np; r++) {
    d->unit[r] = initial_unit[r];
    count[initial_unit[r]]++;
  }
  for (int u = 0; u < nunits; u++)
    if (count[u]) { alloc_push(d, 0, u, 0, count[u]); alloc_push(d, 0, u, 1, 0); }
  free(count);
  return d;
}

static void grow_iters(dyn_track *d, size_t n) {
  while (d->useful.len < n) { VEC_PUSH(d->useful, 0); VEC_PUSH(d->end, 0); VEC_PUSH(d->reached, 0); }
}

/* Useful computation goes to the iteration in progress when it is done, not to the one its
 * rank is in: ranks drift apart between markers, and counting an iteration's work done
 * before its window began against it would give efficiencies above 1. An iteration's window
 * closes at the very date its last rank reaches its marker; the computations then in
 * progress are cut there, at their actual progress (the activity's remaining work), so the
 * split is exact even when their speed changed. */
static void credit(dyn_track *d, double seconds) {
  grow_iters(d, d->nfinal + 1);
  d->useful.data[d->nfinal] += seconds;
}

void dyn_compute_start(dyn_track *d, int rank, const activity *a, double seconds) {
  if (!d) return;
  dyn_open *o = &d->open[rank];
  o->a = seconds > 0 ? a : NULL;
  o->units = a ? a->remaining : 0;
  o->seconds = seconds;
  o->credited = 0;
  if (!a && seconds > 0) credit(d, seconds);   /* finished at once */
}

void dyn_compute_end(dyn_track *d, int rank) {
  if (!d || !d->open[rank].a) return;
  dyn_open *o = &d->open[rank];
  credit(d, o->seconds - o->credited);
  o->a = NULL;
}

/* The window of iteration nfinal closes now: cut the computations in progress. */
static void cut_open(dyn_track *d, double now) {
  for (int r = 0; r < d->np; r++) {
    dyn_open *o = &d->open[r];
    if (!o->a || !(o->units > 0)) continue;
    double rem = o->a->remaining - o->a->rate * (now - o->a->updated);
    if (rem < 0) rem = 0;
    double done = o->seconds * (1 - rem / o->units);
    if (done > o->credited) { credit(d, done - o->credited); o->credited = done; }
  }
}

void dyn_marker(dyn_track *d, int rank, double now) {
  if (!d) return;
  int i = d->marks[rank]++;
  grow_iters(d, (size_t)i + 2);
  if (now > d->end.data[i]) d->end.data[i] = now;
  if (++d->reached.data[i] == d->np && (size_t)i == d->nfinal) {
    while (d->nfinal < d->reached.len && d->reached.data[d->nfinal] == d->np) {
      cut_open(d, now);
      d->nfinal++;
    }
  }
}

int dyn_markers(const dyn_track *d, int rank) { return d ? d->marks[rank] : 0; }

void dyn_pool(dyn_track *d, int unit, int in, double now) {
  if (d) alloc_push(d, now, unit, in ? 1 : -1, 0);
}

void dyn_place(dyn_track *d, int rank, int unit, double now) {
  if (!d || d->unit[rank] == unit) return;
  alloc_push(d, now, d->unit[rank], 0, -1);
  alloc_push(d, now, unit, 0, 1);
  d->unit[rank] = unit;
}

static dyn_event_rec *rec_of(dyn_track *d, int e) {
  if (e >= d->nspec) {
    d->event_of = xrealloc(d->event_of, (size_t)(e + 1) * sizeof *d->event_of);
    for (int i = d->nspec; i <= e; i++) d->event_of[i] = -1;
    d->nspec = e + 1;
  }
  return d->event_of[e] < 0 ? NULL : &d->events.data[d->event_of[e]];
}

void dyn_event_fired(dyn_track *d, const dyn_event *ev, int e, double now) {
  if (!d || rec_of(d, e)) return;
  dyn_event_rec r = {0};
  r.date = now;
  r.iteration = ev->iteration;
  r.action = ev->action;
  /* the names are given at dyn_finish */
  r.nnames = ev->nunits;
  r.units = xmalloc((size_t)(ev->nunits ? ev->nunits : 1) * sizeof *r.units);
  memcpy(r.units, ev->units, (size_t)ev->nunits * sizeof *r.units);
  d->event_of[e] = (int)d->events.len;
  VEC_PUSH(d->events, r);
  for (int j = 0; j < ev->nunits; j++) dyn_pool(d, ev->units[j], ev->action == DYN_ADD, now);
}

int dyn_events_due(dyn_track *d, const dyn_events *E, const int *maps, int np, int rank,
                   int *next, double now, int *event) {
  int to = -1;
  /* every event due (in order): the last one decides where the rank goes */
  while (*next < E->n) {
    const dyn_event *ev = &E->ev[*next];
    if (ev->iteration ? dyn_markers(d, rank) < ev->iteration : now < ev->date) break;
    dyn_event_fired(d, ev, *next, ev->iteration ? now : ev->date);
    *event = *next;
    to = maps[(size_t)*next * (size_t)np + (size_t)rank];
    (*next)++;
  }
  return to;
}

void dyn_move_rec(dyn_track *d, int e, int rank, int from, int to, double bytes, double start,
                  double end) {
  if (!d || e < 0) return;
  dyn_event_rec *r = rec_of(d, e);
  if (!r) return;
  r->moves = xrealloc(r->moves, (size_t)(r->nmoves + 1) * sizeof *r->moves);
  r->moves[r->nmoves++] = (dyn_move){rank, from, to, bytes, start, end};
}

static int alloc_cmp(const void *x, const void *y) {
  const alloc_rec *a = x, *b = y;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static int move_cmp(const void *x, const void *y) {
  const dyn_move *a = x, *b = y;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

void dyn_finish(dyn_track *d, double makespan, const char *(*unit_name)(void *, int), void *ctx,
                dyn_result *out) {
  memset(out, 0, sizeof *out);
  if (!d) return;
  size_t nmarked = 0;
  for (int r = 0; r < d->np; r++) if ((size_t)d->marks[r] > nmarked) nmarked = (size_t)d->marks[r];
  int any_marker = 0;
  for (int r = 0; r < d->np; r++) any_marker |= d->marks[r] > 0;
  if (any_marker || d->nspec) {
    /* the allocated count as a step function: (date, count) after each change */
    qsort(d->alloc.data, d->alloc.len, sizeof *d->alloc.data, alloc_cmp);
    int *pool = xcalloc((size_t)d->nunits, sizeof *pool), *cnt = xcalloc((size_t)d->nunits, sizeof *cnt);
    VEC(double) st = {0};
    VEC(int) sc = {0};
    int alloc = 0;
    for (size_t i = 0; i < d->alloc.len; i++) {
      const alloc_rec *a = &d->alloc.data[i];
      int was = pool[a->unit] > 0 || cnt[a->unit] > 0;
      pool[a->unit] = a->dpool > 0 ? 1 : a->dpool < 0 ? 0 : pool[a->unit];
      cnt[a->unit] += a->dcount;
      int is = pool[a->unit] > 0 || cnt[a->unit] > 0;
      alloc += is - was;
      if (st.len && st.data[st.len - 1] == a->t) sc.data[sc.len - 1] = alloc;
      else { VEC_PUSH(st, a->t); VEC_PUSH(sc, alloc); }
    }
    free(pool);
    free(cnt);
    /* iterations: the marked ones (ends made monotonic: a marker some rank never reached
     * leaves an iteration ending with its predecessor), then the rest of the run */
    size_t n = nmarked;
    for (size_t i = 1; i < n; i++) if (d->end.data[i] < d->end.data[i - 1]) d->end.data[i] = d->end.data[i - 1];
    double last = n ? d->end.data[n - 1] : 0;
    grow_iters(d, n + 1);
    /* computations never ended (a deadlock): what they did so far, in the last iteration */
    cut_open(d, makespan);
    /* iterations some rank never ended (it finished with fewer markers) close at the end */
    for (size_t i = n + 1; i < d->useful.len; i++) d->useful.data[n] += d->useful.data[i];
    int tail = makespan > last || d->useful.data[n] > 0;
    out->niters = (int)n + tail;
    out->iters = xcalloc((size_t)(out->niters ? out->niters : 1), sizeof *out->iters);
    for (int i = 0; i < out->niters; i++) {
      dyn_iter *it = &out->iters[i];
      it->iteration = i + 1;
      it->start = i ? out->iters[i - 1].end : 0;
      it->end = (size_t)i < n ? d->end.data[i] : makespan;
      if (it->end < it->start) it->end = it->start;
      it->useful = (size_t)i < d->useful.len ? d->useful.data[i] : 0;
      /* integrate the step function over [start, end] and take its max over [start, end) */
      double ps = 0;
      int hmax = 0;
      for (size_t j = 0; j < st.len; j++) {
        double a = st.data[j], b = j + 1 < st.len ? st.data[j + 1] : INFINITY;
        double lo = a > it->start ? a : it->start, hi = b < it->end ? b : it->end;
        if (hi > lo) ps += (hi - lo) * sc.data[j];
        /* counted when it holds during the iteration (at its date, for an empty one) */
        int during = it->end > it->start ? hi > lo : a <= it->start && it->start < b;
        if (during && sc.data[j] > hmax) hmax = sc.data[j];
      }
      it->hosts = hmax;
      it->processor_seconds = ps;
      it->efficiency = ps > 0 ? it->useful / ps : 0;
      out->processor_seconds += ps;
    }
    /* the run beyond the last iteration's end (none: iterations cover [0, makespan]) */
    VEC_FREE(st);
    VEC_FREE(sc);
  }
  out->nevents = (int)d->events.len;
  out->events = d->events.data;
  d->events.data = NULL;
  for (int i = 0; i < out->nevents; i++) {
    dyn_event_rec *r = &out->events[i];
    r->names = xmalloc((size_t)(r->nnames ? r->nnames : 1) * sizeof *r->names);
    for (int j = 0; j < r->nnames; j++) {
      int u = r->units[j];
      const char *nm = unit_name ? unit_name(ctx, u) : NULL;
      char buf[32];
      if (!nm) { snprintf(buf, sizeof buf, "%d", u); nm = buf; }
      r->names[j] = xstrdup(nm);
    }
    if (r->nmoves > 1) qsort(r->moves, (size_t)r->nmoves, sizeof *r->moves, move_cmp);
  }
  if (out->nevents) {
    out->nunit_names = d->nunits;
    out->unit_names = xmalloc((size_t)d->nunits * sizeof *out->unit_names);
    for (int u = 0; u < d->nunits; u++) {
      const char *nm = unit_name ? unit_name(ctx, u) : NULL;
      char buf[32];
      if (!nm) { snprintf(buf, sizeof buf, "%d", u); nm = buf; }
      out->unit_names[u] = xstrdup(nm);
    }
  }
  free(d->marks);
  free(d->unit);
  free(d->event_of);
  VEC_FREE(d->useful);
  VEC_FREE(d->end);
  VEC_FREE(d->reached);
  free(d->open);
  VEC_FREE(d->alloc);
  VEC_FREE(d->events);
  free(d);
}

void dyn_result_free(dyn_result *r) {
  free(r->iters);
  for (int i = 0; i < r->nevents; i++) {
    for (int j = 0; j < r->events[i].nnames; j++) free(r->events[i].names[j]);
    free(r->events[i].names);
    free(r->events[i].units);
    free(r->events[i].moves);
  }
  free(r->events);
  for (int u = 0; u < r->nunit_names; u++) free(r->unit_names[u]);
  free(r->unit_names);
  memset(r, 0, sizeof *r);
}
