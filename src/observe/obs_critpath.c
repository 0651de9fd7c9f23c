/* The critical path of a recorded run: the chain of computations and messages that fixed the
 * makespan.
 *
 * It is walked backwards from the last rank to finish, at its finish date t. On rank r at t,
 * the interval of r's time just before t is an action (or the gap after its last action,
 * where it waits for its pending requests):
 *  - a computation (or sleep): it was the cause of the time it took: `compute`, go to its start;
 *  - inside an MPI call, a recorded phase ending at or after t and starting before it (a
 *    reduction's computation, an os/ois/or overhead, a VP waiting for its PE): it is
 *    `compute`, `overhead` or `pe_wait`; go to its start;
 *  - else, in an MPI call: the latest message not yet used that reached r (or, for a sender
 *    that is not detached, left r) after the call's start and after r's last phase is what it
 *    waited for. The time after the arrival is `wait`, the transfer is `transfer`, and the
 *    path goes on at the later of the two postings: the receiver's, when the bytes waited for
 *    the receive to be posted (rendez-vous), else the sender's. With no such message, the time
 *    back to the last phase or the call's start is `wait` (test sleeps, a message that had
 *    already arrived, a VP at a balancing step).
 * Each step moves t back or uses a message (never twice), so the walk ends. Transfers count
 * for the rank that waited for them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_record_src.h"

static void add_seg(obs_critpath *cp, int what, int rank, int peer, double s, double e,
                    double bytes, long act, int src, int dst) {
  if (e <= s && what != OBS_CP_TRANSFER) return;
  double d = e > s ? e - s : 0;
  switch (what) {
  case OBS_CP_COMPUTE: cp->compute += d; cp->rank_compute[rank] += d; break;
  case OBS_CP_TRANSFER: cp->transfer += d; cp->rank_transfer[rank] += d; break;
  case OBS_CP_OVERHEAD: cp->overhead += d; cp->rank_overhead[rank] += d; break;
  case OBS_CP_PE: cp->pe_wait += d; cp->rank_pe[rank] += d; break;
  default: cp->wait += d; cp->rank_wait[rank] += d; break;
  }
  obs_cp_seg g = {what, rank, peer, src, dst, s, e, bytes, act};
  VEC_PUSH(cp->segs, g);
}

/* Index of the last action of the list starting before t, or -1. */
static long last_before(const obs_act *a, long n, double t) {
  long lo = 0, hi = n;   /* starts never decrease along a rank */
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (a[mid].start < t) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

/* The first phase of list (ends never decrease) ending at or after t, or n. */
static long phase_at(const obs_phase *p, long n, double t) {
  long lo = 0, hi = n;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (p[mid].end < t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

static int phase_seg(int what) {
  return what == REPLAY_PHASE_COMPUTE ? OBS_CP_COMPUTE : what == REPLAY_PHASE_PE ? OBS_CP_PE : OBS_CP_OVERHEAD;
}

/* Per rank, the messages whose arrival could end one of its calls, in arrival order. */
typedef VEC(long) idx_vec;

/* The latest unused message of list with lo < arrival <= t, or -1. */
static long pick_msg(const obs_record *rec, const idx_vec *list, const char *used, double lo,
                     double t) {
  long a = 0, b = (long)list->len;   /* first index arriving after t */
  while (a < b) {
    long mid = a + (b - a) / 2;
    if (rec->msgs.data[list->data[mid]].xfer_end <= t) a = mid + 1; else b = mid;
  }
  for (long i = a - 1; i >= 0; i--) {
    long m = list->data[i];
    if (rec->msgs.data[m].xfer_end <= lo) break;
    if (!used[m]) return m;
  }
  return -1;
}

void obs_critpath_compute(const obs_record *rec, const replay_result *res, obs_critpath *cp) {
  memset(cp, 0, sizeof *cp);
  int np = rec->np;
  cp->np = np;
  cp->rank_compute = xcalloc((size_t)(np > 0 ? np : 1), sizeof(double));
  cp->rank_transfer = xcalloc((size_t)(np > 0 ? np : 1), sizeof(double));
  cp->rank_wait = xcalloc((size_t)(np > 0 ? np : 1), sizeof(double));
  cp->rank_overhead = xcalloc((size_t)(np > 0 ? np : 1), sizeof(double));
  cp->rank_pe = xcalloc((size_t)(np > 0 ? np : 1), sizeof(double));
  cp->last_rank = -1;
  if (np <= 0) return;
  /* where the path ends: the last rank to finish (the lowest-numbered one on ties) */
  double t = -1;
  for (int r = 0; r < np; r++) {
    double f = res && res->ranks && r < res->np ? res->ranks[r].finish : 0;
    if (rec->acts[r].len && rec->acts[r].data[rec->acts[r].len - 1].end > f)
      f = rec->acts[r].data[rec->acts[r].len - 1].end;
    if (f > t) { t = f; cp->last_rank = r; }
  }
  cp->length = t;
  idx_vec *lists = xcalloc((size_t)np, sizeof *lists);
  for (size_t i = 0; i < rec->msgs.len; i++) {
    const obs_msg *m = &rec->msgs.data[i];
    if (m->received) VEC_PUSH(lists[m->dst], (long)i);
    if (!m->detached && m->src != m->dst) VEC_PUSH(lists[m->src], (long)i);
  }
  char *used = xcalloc(rec->msgs.len + 1, 1);
  int r = cp->last_rank;
  while (t > 0) {
    const obs_act *acts = rec->acts[r].data;
    long n = (long)rec->acts[r].len;
    long ai = last_before(acts, n, t);
    double s;
    int compute;
    if (ai < 0) s = 0, compute = 0;                       /* before its first action */
    else if (acts[ai].end < t) s = acts[ai].end, compute = 0, ai = -1;  /* after its last */
    else s = acts[ai].start, compute = obs_category((tit_kind)acts[ai].kind) == OBS_CAT_COMPUTE;
    if (compute) { add_seg(cp, OBS_CP_COMPUTE, r, -1, s, t, 0, ai, -1, -1); t = s; continue; }
    const obs_phase *ph = rec->phases[r].data;
    long pi = phase_at(ph, (long)rec->phases[r].len, t);
    if (pi < (long)rec->phases[r].len && ph[pi].start < t) {   /* t falls in a phase */
      double ps = ph[pi].start > s ? ph[pi].start : s;
      if (ps >= t) ps = ph[pi].start;   /* a phase from before the action's recorded start */
      add_seg(cp, phase_seg(ph[pi].what), r, -1, ps, t, 0, ai, -1, -1);
      t = ps;
      continue;
    }
    if (pi > 0 && ph[pi - 1].end > s) s = ph[pi - 1].end;   /* the wait after r's last phase */
    long mi = pick_msg(rec, &lists[r], used, s, t);
    if (mi < 0) {
      if (s >= t) break;   /* cannot happen: t > 0 and s < t; stop rather than loop */
      add_seg(cp, OBS_CP_WAIT, r, -1, s, t, 0, ai, -1, -1);
      t = s;
      continue;
    }
    const obs_msg *m = &rec->msgs.data[mi];
    used[mi] = 1;
    add_seg(cp, OBS_CP_WAIT, r, -1, m->xfer_end, t, 0, ai, -1, -1);
    int by_recv = m->received && m->recv_posted > m->send_posted && m->recv_posted <= m->xfer_start;
    int g = by_recv ? m->dst : m->src;
    double gt = by_recv ? m->recv_posted : m->send_posted;
    if (gt > m->xfer_start) gt = m->xfer_start;
    add_seg(cp, OBS_CP_TRANSFER, r, r == m->dst ? m->src : m->dst, gt, m->xfer_end, m->bytes, -1,
            m->src, m->dst);
    r = g;
    t = gt;
  }
  /* segments were found from the end: put them in date order */
  for (size_t i = 0, j = cp->segs.len; i + 1 < j; i++, j--) {
    obs_cp_seg x = cp->segs.data[i];
    cp->segs.data[i] = cp->segs.data[j - 1];
    cp->segs.data[j - 1] = x;
  }
  for (int i = 0; i < np; i++) VEC_FREE(lists[i]);
  free(lists);
  free(used);
}

void obs_critpath_free(obs_critpath *cp) {
  VEC_FREE(cp->segs);
  free(cp->rank_compute);
  free(cp->rank_transfer);
  free(cp->rank_wait);
  free(cp->rank_overhead);
  free(cp->rank_pe);
  memset(cp, 0, sizeof *cp);
}

static const char *what_name(int w) {
  return w == OBS_CP_COMPUTE ? "compute" : w == OBS_CP_TRANSFER ? "transfer" : w == OBS_CP_OVERHEAD ? "overhead"
         : w == OBS_CP_PE ? "pe_wait" : "wait";
}

static int rank_on_path(const obs_critpath *cp, int r) {
  return cp->rank_compute[r] > 0 || cp->rank_transfer[r] > 0 || cp->rank_wait[r] > 0 ||
         cp->rank_overhead[r] > 0 || cp->rank_pe[r] > 0;
}

/* Consecutive segments of one rank and kind (not transfers) print as one row. */
static size_t merged_end(const obs_critpath *cp, size_t i) {
  const obs_cp_seg *a = &cp->segs.data[i];
  size_t j = i + 1;
  if (a->what != OBS_CP_TRANSFER)
    while (j < cp->segs.len && cp->segs.data[j].what == a->what && cp->segs.data[j].rank == a->rank) j++;
  return j;
}

static double pct(double x, double tot) { return tot > 0 ? 100 * x / tot : 0; }

/* The action of a segment: its own, or for a transfer the call of its rank that waited for
 * it, the one under way at the arrival (the walk took the message for the call it was in,
 * which started before the arrival): where in the code the wait is. -1 when none. */
static long seg_act(const obs_record *rec, const obs_cp_seg *s) {
  if (!rec || s->rank < 0 || s->rank >= rec->np) return -1;
  long n = (long)rec->acts[s->rank].len;
  if (s->what != OBS_CP_TRANSFER) return s->act < n ? s->act : -1;
  long i = last_before(rec->acts[s->rank].data, n, s->end);
  return i >= 0 && rec->acts[s->rank].data[i].end >= s->end ? i : -1;
}

void obs_critpath_write_text(FILE *f, const obs_critpath *cp, const obs_record *rec) {
  fprintf(f, "critical path: %.6f s, ending on rank %d\n", cp->length, cp->last_rank);
  fprintf(f, "  computation %.6f s (%.1f%%), transfers %.6f s (%.1f%%), MPI overheads %.6f s (%.1f%%), "
             "waiting %.6f s (%.1f%%)",
          cp->compute, pct(cp->compute, cp->length), cp->transfer, pct(cp->transfer, cp->length),
          cp->overhead, pct(cp->overhead, cp->length), cp->wait, pct(cp->wait, cp->length));
  if (cp->pe_wait > 0)
    fprintf(f, ", waiting for a PE %.6f s (%.1f%%)", cp->pe_wait, pct(cp->pe_wait, cp->length));
  fprintf(f, "\n\n%6s %14s %14s %14s %14s %14s\n", "rank", "compute(s)", "transfer(s)", "overhead(s)",
          "wait(s)", "pe_wait(s)");
  for (int r = 0; r < cp->np; r++)
    if (rank_on_path(cp, r))
      fprintf(f, "%6d %14.6f %14.6f %14.6f %14.6f %14.6f\n", r, cp->rank_compute[r], cp->rank_transfer[r],
              cp->rank_overhead[r], cp->rank_wait[r], cp->rank_pe[r]);
  size_t rows = 0;
  for (size_t i = 0; i < cp->segs.len; i = merged_end(cp, i)) rows++;
  fprintf(f, "\nthe chain, from the start (%zu steps):\n%14s %14s  %-9s %-9s %s\n", rows, "start(s)",
          "end(s)", "rank", "what", "action / message");
  size_t row = 0;
  for (size_t i = 0; i < cp->segs.len; row++) {
    size_t j = merged_end(cp, i);
    const obs_cp_seg *a = &cp->segs.data[i];
    if (rows > 60 && row == 30) fprintf(f, "%14s (%zu steps omitted; --json has them all)\n", "...", rows - 60);
    if (rows <= 60 || row < 30 || row >= rows - 30) {
      char who[32];
      if (a->what == OBS_CP_TRANSFER) snprintf(who, sizeof who, "%d->%d", a->src, a->dst);
      else snprintf(who, sizeof who, "%d", a->rank);
      fprintf(f, "%14.6f %14.6f  %-9s %-9s ", a->start, cp->segs.data[j - 1].end, who, what_name(a->what));
      if (a->what == OBS_CP_TRANSFER) {
        fprintf(f, "%.0f bytes", a->bytes);
        long w = seg_act(rec, a);
        const char *src = w >= 0 ? obs_record_act_file(rec, a->rank, (size_t)w) : NULL;
        if (src) fprintf(f, ", waited for at %s", src);
        if (src && obs_act_line(&rec->acts[a->rank].data[w])) fprintf(f, ":%u", obs_act_line(&rec->acts[a->rank].data[w]));
      } else {
        const obs_act *x = a->act >= 0 ? &rec->acts[a->rank].data[a->act] : NULL;
        if (x && x->text_len) fprintf(f, "%.*s", (int)x->text_len, rec->text.data + x->text);
        else if (x) fputs(obs_state_name((tit_kind)x->kind), f);
        else fputs("(end of trace: pending requests)", f);
        /* where to look: the trace line, or the program's call site under psim run */
        const char *src = x ? obs_record_act_file(rec, a->rank, (size_t)a->act) : NULL;
        if (src) fprintf(f, " at %s", src);
        if (src && obs_act_line(x)) fprintf(f, ":%u", obs_act_line(x));
        if (j - i > 1) fprintf(f, " (+%zu more)", j - i - 1);
      }
      fputc('\n', f);
    }
    i = j;
  }
}

/* The top contributors: the path's time summed per (rank, part, action kind, source line), or
 * per (receiving rank, sending rank) for transfers, largest first: where to look in the code. */
typedef struct cp_contrib {
  int rank, what, kind, peer;
  unsigned file;            /* obs_record_act_file_id: the same line of two files differs */
  uint32_t line;
  const char *name;         /* the file's name */
  double time;
  long count;
} cp_contrib;

static int contrib_cmp_key(const void *a, const void *b) {
  const cp_contrib *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->what != y->what) return x->what < y->what ? -1 : 1;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  if (x->file != y->file) return x->file < y->file ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static int contrib_cmp_time(const void *a, const void *b) {
  const cp_contrib *x = a, *y = b;
  if (x->time != y->time) return x->time > y->time ? -1 : 1;
  return contrib_cmp_key(a, b);   /* ties in a fixed order: deterministic output */
}

enum { CP_TOP = 20 };

/* Sums the contributions of one key (times and counts); returns how many remain. */
static size_t merge_contribs(cp_contrib *c, size_t n) {
  qsort(c, n, sizeof *c, contrib_cmp_key);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && !contrib_cmp_key(&c[m - 1], &c[i])) { c[m - 1].time += c[i].time; c[m - 1].count += c[i].count; }
    else c[m++] = c[i];
  }
  return m;
}

static void write_top(FILE *f, const obs_critpath *cp, const obs_record *rec, const char *pad) {
  size_t n = cp->segs.len;
  cp_contrib *c = xmalloc((n ? n : 1) * sizeof *c);
  for (size_t i = 0; i < n; i++) {
    const obs_cp_seg *s = &cp->segs.data[i];
    long ai = seg_act(rec, s);
    const obs_act *a = ai >= 0 ? &rec->acts[s->rank].data[ai] : NULL;
    c[i] = (cp_contrib){s->rank, s->what, a ? a->kind : -1, s->what == OBS_CP_TRANSFER ? s->src : -1,
                        a ? obs_record_act_file_id(rec, s->rank, (size_t)ai) : 0, a ? obs_act_line(a) : 0,
                        a ? obs_record_act_file(rec, s->rank, (size_t)ai) : NULL,
                        s->end > s->start ? s->end - s->start : 0, 1};
  }
  size_t m = merge_contribs(c, n);
  /* A transfer is listed with the call that waited for it where that call waited again: a
   * program's call site (psim run). A trace's lines are each one action: its transfers are
   * summed per sender alone, so that they do not scatter over one row per line. */
  int again = 0;
  for (size_t i = 0; i < m; i++)
    if (c[i].what == OBS_CP_TRANSFER && c[i].count == 1 && c[i].kind >= 0) {
      c[i].kind = -1, c[i].file = 0, c[i].line = 0, c[i].name = NULL;
      again = 1;
    }
  if (again) m = merge_contribs(c, m);
  qsort(c, m, sizeof *c, contrib_cmp_time);
  fprintf(f, ",\n%s  \"top\": [", pad);
  for (size_t i = 0; i < m && i < CP_TOP; i++) {
    const cp_contrib *x = &c[i];
    fprintf(f, "%s\n%s    {\"rank\": %d, \"part\": \"%s\", \"action\": ", i ? "," : "", pad, x->rank, what_name(x->what));
    if (x->kind >= 0) obs_json_string(f, obs_state_name((tit_kind)x->kind)); else fputs("null", f);
    fputs(", \"file\": ", f);
    if (x->name && x->kind >= 0) obs_json_string(f, x->name); else fputs("null", f);
    fprintf(f, ", \"line\": %u, \"from\": %d, \"count\": %ld, \"time\": ", x->name && x->kind >= 0 ? (unsigned)x->line : 0,
            x->peer, x->count);
    obs_json_number(f, x->time);
    fputc('}', f);
  }
  fprintf(f, "%s]", m ? "\n" : "");
  free(c);
}

void obs_critpath_write_json(FILE *f, const obs_critpath *cp, const obs_record *rec, int indent) {
  char pad[16];
  snprintf(pad, sizeof pad, "%*s", indent > 12 ? 12 : indent, "");
  fprintf(f, "{\n%s  \"length\": ", pad);
  obs_json_number(f, cp->length);
  fprintf(f, ", \"last_rank\": %d, \"compute\": ", cp->last_rank);
  obs_json_number(f, cp->compute);
  fputs(", \"transfer\": ", f);
  obs_json_number(f, cp->transfer);
  fputs(", \"wait\": ", f);
  obs_json_number(f, cp->wait);
  fputs(", \"overhead\": ", f);
  obs_json_number(f, cp->overhead);
  fputs(", \"pe_wait\": ", f);
  obs_json_number(f, cp->pe_wait);
  fprintf(f, ",\n%s  \"ranks\": [", pad);
  int first = 1;
  for (int r = 0; r < cp->np; r++) {
    if (!rank_on_path(cp, r)) continue;
    fprintf(f, "%s\n%s    {\"rank\": %d, \"compute\": ", first ? "" : ",", pad, r);
    obs_json_number(f, cp->rank_compute[r]);
    fputs(", \"transfer\": ", f);
    obs_json_number(f, cp->rank_transfer[r]);
    fputs(", \"wait\": ", f);
    obs_json_number(f, cp->rank_wait[r]);
    fputs(", \"overhead\": ", f);
    obs_json_number(f, cp->rank_overhead[r]);
    fputs(", \"pe_wait\": ", f);
    obs_json_number(f, cp->rank_pe[r]);
    fputc('}', f);
    first = 0;
  }
  fprintf(f, "\n%s  ]", pad);
  write_top(f, cp, rec, pad);
  fprintf(f, ",\n%s  \"segments\": [", pad);
  /* [start, end, rank, peer, what], merged like the text listing */
  first = 1;
  for (size_t i = 0; i < cp->segs.len;) {
    size_t j = merged_end(cp, i);
    const obs_cp_seg *a = &cp->segs.data[i];
    fprintf(f, "%s\n%s    [", first ? "" : ",", pad);
    obs_json_number(f, a->start);
    fputs(", ", f);
    obs_json_number(f, cp->segs.data[j - 1].end);
    /* transfers: [start, end, dst, src, "transfer"]; others: [start, end, rank, -1, what] */
    if (a->what == OBS_CP_TRANSFER) fprintf(f, ", %d, %d, \"transfer\"]", a->dst, a->src);
    else fprintf(f, ", %d, -1, \"%s\"]", a->rank, what_name(a->what));
    first = 0;
    i = j;
  }
  fprintf(f, "\n%s  ]\n%s}", pad, pad);
}
