/* Records a run (every action's dates and kind, every message) for the analyses that need
 * the whole history: the critical path walks it backwards, the report draws it. Actions cost
 * 32 bytes each (their source line included) (plus their text when asked), messages 64, phases (overheads, reductions'
 * computations, VPs waiting for their PE) 24. */
#include <stdlib.h>
#include <string.h>

#include "psim/observe.h"

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len,
                      double start, double end) {
  obs_record *r = ctx;
  if (rank < 0 || rank >= r->np || a->kind == TIT_INIT || a->kind == TIT_FINALIZE) return;
  obs_act x = {.start = start, .end = end, .kind = (uint8_t)a->kind,
               .line = a->line > 0 && a->line < 0xFFFFFFFFL ? (uint32_t)a->line : 0};
  /* the file of its first action: per-rank files hold one rank each, a shared file all */
  if (!r->file[rank] && a->file) r->file[rank] = xstrdup(a->file);
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
      .xfer_start = send->xfer_start >= 0 ? send->xfer_start : send->posted,
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
  obs_record *r = xcalloc(1, sizeof *r);
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
  for (int i = 0; i < r->np; i++) { VEC_FREE(r->acts[i]); VEC_FREE(r->phases[i]); free(r->file[i]); }
  free(r->file);
  free(r->acts);
  free(r->phases);
  VEC_FREE(r->msgs);
  VEC_FREE(r->text);
  free(r);
}
