/* The extra sections of a replay's JSON document that the HTML report draws (written only
 * when asked, so the default document does not change):
 *   "timeline":    per rank, its actions [start, end, kind, line, state, ...] with the file of each
 *                  rank (omitted past MAX_SEGMENTS, too big to draw), per rank the dominant
 *                  state of each time bin ("rank_states"), and per group of ranks (at most MAX_GROUPS rows) the fraction of each of
 *                  NBINS time bins spent computing and in MPI calls;
 *   "comm_matrix": bytes sent between groups of ranks;
 *   "critical_path".
 * Numbers are written with 9 significant digits: these are for drawing, not for checking. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_record_src.h"
#include "obs_split.h"
#include "psim/observe.h"

enum { NBINS = 200, MAX_GROUPS = 64, MAX_SEGMENTS = 200000 };

static void num9(FILE *f, double x) {
  if (!isfinite(x)) fputs("null", f);
  else if (x == floor(x) && fabs(x) < 1e15) fprintf(f, "%.0f", x);
  else fprintf(f, "%.9g", x);
}

static int group_of(int r, int np, int g) { return (int)((long long)r * g / np); }

/* Adds the part of [s, e) falling in each bin to acc[bin]. */
static void spread(double *acc, double s, double e, double dt) {
  if (e <= s || dt <= 0) return;
  int b0 = (int)(s / dt), b1 = (int)(e / dt);
  if (b0 >= NBINS) b0 = NBINS - 1;
  if (b1 >= NBINS) b1 = NBINS - 1;
  for (int b = b0; b <= b1; b++) {
    double lo = b * dt > s ? b * dt : s, hi = (b + 1) * dt < e ? (b + 1) * dt : e;
    if (b == NBINS - 1) hi = e;
    if (hi > lo) acc[b] += hi - lo;
  }
}

/* Every action, cut into the pieces of one state (obs_split.c), so the report can say what
 * it was and where it came from: per rank [start, end, kind, line, state, ...] (kind indexes
 * "kinds"), and the file of each rank. Omitted past MAX_SEGMENTS actions: the report then
 * draws the per-rank state bins. */
typedef struct piece_out { FILE *f; size_t n; } piece_out;

static void put_piece(void *ctx, const obs_act *a, double s, double e, int st) {
  piece_out *p = ctx;
  if (p->n++) fputs(", ", p->f);
  num9(p->f, s); fputs(", ", p->f); num9(p->f, e);
  fprintf(p->f, ", %d, %u, %d", a->kind, obs_act_line(a), st);
}

static void write_actions(FILE *f, const obs_record *rec, obs_split *sp) {
  size_t total = 0;
  for (int r = 0; r < rec->np; r++) total += rec->acts[r].len;
  fputs("\"kinds\": [", f);
  for (int k = 0; k < TIT_NKINDS; k++) fprintf(f, "%s\"%s\"", k ? ", " : "", obs_state_name((tit_kind)k));
  fputs("],\n    \"files\": [", f);
  for (int r = 0; r < rec->np; r++) {
    if (r) fputs(", ", f);
    /* one file per rank: a rank whose actions came from several (a psim run program's
     * source files) has none here rather than a wrong one for some of its actions */
    if (rec->file[r] && obs_record_one_file(rec, r)) obs_json_string(f, rec->file[r]); else fputs("null", f);
  }
  fputs("],\n    ", f);
  if (total > MAX_SEGMENTS) {
    fputs("\"actions_omitted\": true", f);
    return;
  }
  fputs("\"actions\": [", f);
  for (int r = 0; r < rec->np; r++) {
    fputs(r ? ",\n      [" : "\n      [", f);
    piece_out p = {f, 0};
    for (size_t i = 0; i < rec->acts[r].len; i++) obs_split_action(sp, r, i, put_piece, &p);
    fputc(']', f);
  }
  fputs("]", f);
}

/* Per rank, the state it spent most of each time bin in (one character per bin, '0' + state,
 * idle included): what the report draws when the actions are too many, and what it averages
 * into blocks of ranks. */
typedef struct bin_acc { double *acc, dt; } bin_acc;

static void add_piece(void *ctx, const obs_act *a, double s, double e, int st) {
  (void)a;
  bin_acc *b = ctx;
  if (e <= s || b->dt <= 0) return;
  int b0 = (int)(s / b->dt), b1 = (int)(e / b->dt);
  if (b0 >= NBINS) b0 = NBINS - 1;
  if (b1 >= NBINS) b1 = NBINS - 1;
  for (int k = b0; k <= b1; k++) {
    double lo = k * b->dt > s ? k * b->dt : s, hi = (k + 1) * b->dt < e ? (k + 1) * b->dt : e;
    if (k == NBINS - 1) hi = e;
    if (hi > lo) b->acc[k * OBS_NSTATES + st] += hi - lo;
  }
}

static void write_rank_states(FILE *f, const obs_record *rec, obs_split *sp, double dt) {
  bin_acc ba = {xmalloc((size_t)NBINS * OBS_NSTATES * sizeof(double)), dt};
  char line[NBINS + 1];
  fputs("\"rank_states\": [", f);
  for (int r = 0; r < rec->np; r++) {
    memset(ba.acc, 0, (size_t)NBINS * OBS_NSTATES * sizeof(double));
    for (size_t i = 0; i < rec->acts[r].len; i++) obs_split_action(sp, r, i, add_piece, &ba);
    for (int b = 0; b < NBINS; b++) {
      double busy = 0, best = -1;
      int st = OBS_ST_IDLE;
      for (int k = 0; k < OBS_NSTATES; k++) {
        busy += ba.acc[b * OBS_NSTATES + k];
        if (ba.acc[b * OBS_NSTATES + k] > best) best = ba.acc[b * OBS_NSTATES + k], st = k;
      }
      if (dt - busy > best) st = OBS_ST_IDLE;
      line[b] = (char)('0' + st);
    }
    line[NBINS] = 0;
    fprintf(f, "%s\"%s\"", r ? (r % 16 ? "," : ",\n      ") : "\n      ", line);
  }
  fputs("]", f);
  free(ba.acc);
}

void obs_write_json_full(FILE *f, const replay_result *r, const run_meta *m,
                         const obs_record *rec, const obs_critpath *cp) {
  obs_write_json_body(f, r, m);
  obs_write_json_sections(f, r, rec, cp);
  fputs("\n}\n", f);
}

void obs_write_json_sections(FILE *f, const replay_result *r, const obs_record *rec,
                             const obs_critpath *cp) {
  int np = rec ? rec->np : 0;
  if (rec && np > 0) {
    int G = np < MAX_GROUPS ? np : MAX_GROUPS;
    double T = r->simulated_time > 0 ? r->simulated_time : rec->end_time;
    double dt = T > 0 ? T / NBINS : 0;
    fputs(",\n  \"timeline\": {\"categories\": [", f);
    for (int c = 0; c < OBS_NCATS; c++) fprintf(f, "%s\"%s\"", c ? ", " : "", obs_category_name(c));
    fputs("], \"states\": [", f);
    for (int k = 0; k < OBS_NSTATES; k++) fprintf(f, "%s\"%s\"", k ? ", " : "", obs_state_label(k));
    fputs("], \"end\": ", f);
    num9(f, T);
    fputs(",\n    ", f);
    obs_split *sp = obs_split_new(rec);
    write_actions(f, rec, sp);
    fputs(",\n    ", f);
    write_rank_states(f, rec, sp, dt);
    obs_split_free(sp);
    fprintf(f, ",\n    \"bins\": %d, \"bin_width\": ", NBINS);
    num9(f, dt);
    fputs(", \"groups\": [", f);
    for (int g = 0; g < G; g++) {
      int lo = (int)(((long long)g * np + G - 1) / G), hi = (int)(((long long)(g + 1) * np + G - 1) / G) - 1;
      fprintf(f, "%s[%d, %d]", g ? ", " : "", lo, hi);
    }
    fputs("],", f);
    double *comp = xcalloc((size_t)G * NBINS, sizeof *comp), *mpi = xcalloc((size_t)G * NBINS, sizeof *mpi);
    int *gsize = xcalloc((size_t)G, sizeof *gsize);
    for (int k = 0; k < np; k++) {
      int g = group_of(k, np, G);
      gsize[g]++;
      for (size_t i = 0; i < rec->acts[k].len; i++) {
        const obs_act *a = &rec->acts[k].data[i];
        int c = obs_category((tit_kind)a->kind);
        if (c == OBS_CAT_COMPUTE) spread(comp + (size_t)g * NBINS, a->start, a->end, dt);
        else if (c != OBS_CAT_OTHER) spread(mpi + (size_t)g * NBINS, a->start, a->end, dt);
      }
    }
    const char *names[2] = {"compute", "mpi"};
    double *arrs[2] = {comp, mpi};
    for (int w = 0; w < 2; w++) {
      fprintf(f, "\n    \"%s\": [", names[w]);
      for (int g = 0; g < G; g++) {
        fputs(g ? ",\n      [" : "\n      [", f);
        for (int b = 0; b < NBINS; b++) {
          double x = dt > 0 && gsize[g] ? arrs[w][(size_t)g * NBINS + b] / (dt * gsize[g]) : 0;
          fprintf(f, "%s%.3g", b ? "," : "", x > 1 ? 1 : x);
        }
        fputc(']', f);
      }
      fputs(w ? "]" : "],", f);
    }
    fputs("},\n  \"comm_matrix\": {\"groups\": ", f);
    fprintf(f, "%d, \"bytes\": [", G);
    double *mat = xcalloc((size_t)G * G, sizeof *mat);
    for (size_t i = 0; i < rec->msgs.len; i++) {
      const obs_msg *x = &rec->msgs.data[i];
      mat[(size_t)group_of(x->src, np, G) * G + group_of(x->dst, np, G)] += x->bytes;
    }
    for (int a = 0; a < G; a++) {
      fputs(a ? ",\n    [" : "\n    [", f);
      for (int b = 0; b < G; b++) { if (b) fputc(',', f); num9(f, mat[(size_t)a * G + b]); }
      fputc(']', f);
    }
    fputs("]}", f);
    free(mat);
    free(comp);
    free(mpi);
    free(gsize);
  }
  if (cp && rec) {
    fputs(",\n  \"critical_path\": ", f);
    obs_critpath_write_json(f, cp, rec, 2);
  }
}
