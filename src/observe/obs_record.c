/* Records a run (every action's dates and kind, every message) for the analyses that need
 * the whole history: the critical path walks it backwards, the report draws it. Actions cost
 * 32 bytes each (their source line included) (plus their text when asked, and 2 bytes for
 * their file on a rank whose actions came from several: a psim run program's source files),
 * messages 64, phases (overheads, reductions' computations, VPs waiting for their PE) 24. */
#include <stdlib.h>
#include <string.h>

#include "obs_record_src.h"

/* The record and what obs_record_src.h reads: obs_record_new allocates this, the public part
 * first, so a pointer to one is a pointer to the other. */
typedef struct rec_ext {
  obs_record pub;
  VEC(char *) files;          /* the files met besides each rank's first: id k + 1 is files[k] */
  VEC(uint16_t) *fid;         /* per rank with several files: each action's id (0: its first) */
  char *multi;                /* per rank: fid is kept */
  const char **last;          /* per rank: the file pointer of its last action, and its id */
  unsigned *last_id;
} rec_ext;

enum { MAX_FILES = 0xFFFF };

/* The last pointer is remembered so that a replay, whose actions point at their trace's one
 * name, compares no string per action; the names a run gives (trace files, a program's
 * __FILE__) live as long as the run. */
static unsigned file_id(rec_ext *x, int rank, const char *file) {
  if (file == x->last[rank]) return x->last_id[rank];
  unsigned id = 0;
  if (strcmp(file, x->pub.file[rank])) {
    size_t k = 0;
    while (k < x->files.len && strcmp(x->files.data[k], file)) k++;
    if (k == x->files.len && k < MAX_FILES) VEC_PUSH(x->files, xstrdup(file));
    id = k < MAX_FILES ? (unsigned)k + 1 : 0;   /* past 65535 files: shown as the rank's first */
  }
  x->last[rank] = file;
  x->last_id[rank] = id;
  return id;
}

/* Notes the file of the action about to be pushed on rank (NULL: none, its line is 0). */
static void note_file(rec_ext *x, int rank, const char *file) {
  obs_record *r = &x->pub;
  if (!file) {
    if (x->multi[rank]) VEC_PUSH(x->fid[rank], 0);
    return;
  }
  if (!r->file[rank]) r->file[rank] = xstrdup(file);
  unsigned id = file_id(x, rank, file);
  if (!x->multi[rank] && !id) return;
  if (!x->multi[rank]) {   /* its first action from another file: the earlier ones were its first's */
    x->multi[rank] = 1;
    VEC_RESERVE(x->fid[rank], r->acts[rank].len + 1);
    memset(x->fid[rank].data, 0, r->acts[rank].len * sizeof *x->fid[rank].data);
    x->fid[rank].len = r->acts[rank].len;
  }
  VEC_PUSH(x->fid[rank], (uint16_t)id);
}

static unsigned act_id(const obs_record *r, int rank, size_t i) {
  const rec_ext *x = (const rec_ext *)r;
  return x->multi[rank] && i < x->fid[rank].len ? x->fid[rank].data[i] : 0;
}

static int act_known(const obs_record *r, int rank, size_t i) {
  return r && rank >= 0 && rank < r->np && i < r->acts[rank].len && r->acts[rank].data[i].line > 0 && r->file[rank];
}

const char *obs_record_act_file(const obs_record *r, int rank, size_t i) {
  if (!act_known(r, rank, i)) return NULL;
  unsigned id = act_id(r, rank, i);
  return id ? ((const rec_ext *)r)->files.data[id - 1] : r->file[rank];
}

unsigned obs_record_act_file_id(const obs_record *r, int rank, size_t i) {
  return act_known(r, rank, i) ? act_id(r, rank, i) : 0;
}

int obs_record_one_file(const obs_record *r, int rank) {
  return !(rank >= 0 && rank < r->np && ((const rec_ext *)r)->multi[rank]);
}

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len,
                      double start, double end) {
  obs_record *r = ctx;
  if (rank < 0 || rank >= r->np || a->kind == TIT_INIT || a->kind == TIT_FINALIZE) return;
  /* a file without a line (a->line 0: psim run's FUNCTION+0xOFFSET sites) is kept as one */
  obs_act x = {.start = start, .end = end, .kind = (uint8_t)a->kind,
               .line = !a->file ? 0 : a->line > 0 && a->line < OBS_LINE_NONE ? (uint32_t)a->line
                       : a->line == 0 ? OBS_LINE_NONE : 0};
  /* r->file: the file of its first action (per-rank files hold one rank each, a shared file
   * all); an action from another file has it noted apart */
  note_file((rec_ext *)r, rank, x.line ? a->file : NULL);
  /* Text offsets are 32-bit: past 2 GiB of text, later actions are kept without it. */
  if (r->keep_text && len > 0 && r->text.len + (size_t)len < ((size_t)1 << 31)) {
    if (len > 0xFFFF) len = 0xFFFF;
    x.text = (uint32_t)r->text.len;
    x.text_len = (uint16_t)len;
    VEC_RESERVE(r->text, r->text.len + (size_t)len);
    memcpy(r->text.data + r->text.len, text, (size_t)len);
    r->text.len += (size_t)len;
  }
  VEC_PUSH(r->acts[rank], x);
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  obs_record *r = ctx;
  if (send->src < 0 || send->src >= r->np || send->dst < 0 || send->dst >= r->np) return;
  obs_msg m = {
      .src = send->src, .dst = send->dst, .bytes = send->bytes, .send_posted = send->posted,
      .recv_posted = recv ? recv->posted : -1,
      .xfer_start = mpi_req_start_or_post(send),
      .xfer_end = send->xfer_end, .coll = send->ctx == MPI_CTX_COLL, .detached = send->detached,
      .received = recv != NULL};
  VEC_PUSH(r->msgs, m);
}

static void on_phase(void *ctx, int rank, int what, double start, double end) {
  obs_record *r = ctx;
  if (rank < 0 || rank >= r->np || !(end > start)) return;
  obs_phase x = {start, end, (uint8_t)what};
  VEC_PUSH(r->phases[rank], x);
}

static void on_end(void *ctx, double time) { ((obs_record *)ctx)->end_time = time; }

obs_record *obs_record_new(int np, int keep_text) {
  rec_ext *x = xcalloc(1, sizeof *x);
  size_t n = (size_t)(np > 0 ? np : 1);
  x->fid = xcalloc(n, sizeof *x->fid);
  x->multi = xcalloc(n, 1);
  x->last = xcalloc(n, sizeof *x->last);
  x->last_id = xcalloc(n, sizeof *x->last_id);
  obs_record *r = &x->pub;
  r->np = np;
  r->keep_text = keep_text;
  r->acts = xcalloc((size_t)(np > 0 ? np : 1), sizeof *r->acts);
  r->phases = xcalloc((size_t)(np > 0 ? np : 1), sizeof *r->phases);
  r->file = xcalloc((size_t)(np > 0 ? np : 1), sizeof *r->file);
  VEC_PUSH(r->text, 0);   /* offset 0 = no text */
  return r;
}

replay_observer obs_record_observer(obs_record *r) {
  return (replay_observer){.ctx = r, .action = on_action, .message = on_message, .end = on_end,
                           .phase = on_phase};
}

void obs_record_free(obs_record *r) {
  if (!r) return;
  rec_ext *x = (rec_ext *)r;
  for (int i = 0; i < r->np; i++) {
    VEC_FREE(r->acts[i]);
    VEC_FREE(r->phases[i]);
    VEC_FREE(x->fid[i]);
    free(r->file[i]);
  }
  for (size_t k = 0; k < x->files.len; k++) free(x->files.data[k]);
  VEC_FREE(x->files);
  free(x->fid);
  free(x->multi);
  free(x->last);
  free(x->last_id);
  free(r->file);
  free(r->acts);
  free(r->phases);
  VEC_FREE(r->msgs);
  VEC_FREE(r->text);
  free(r);
}
