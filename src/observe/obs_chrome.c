/* Chrome trace-event JSON writer (opens in Perfetto and chrome://tracing).
 *
 * One process ("psim"), one thread per rank named after the rank and its host; each action is
 * a complete ("X") event, each message a flow from the sender's slice at the transfer start to
 * the receiver's slice at its arrival ("s" then "f" bound to the enclosing slice). The format
 * does not need events in date order, so they are streamed as the run reports them: the file
 * costs no memory. Dates are in microseconds, written exactly (shortest round-trip form). */
#include <stdlib.h>

#include "psim/observe.h"

struct obs_chrome {
  FILE *f;
  int np;
  long nflows;
};

static void sep(obs_chrome *w) { fputs(",\n", w->f); }

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len,
                      double start, double end) {
  obs_chrome *w = ctx;
  if (a->kind == TIT_INIT || a->kind == TIT_FINALIZE) return;
  FILE *f = w->f;
  sep(w);
  fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":",
          obs_state_name(a->kind), obs_category_name(obs_category(a->kind)), rank);
  obs_json_number(f, start * 1e6);
  fputs(",\"dur\":", f);
  obs_json_number(f, (end - start) * 1e6);
  /* The trace line, escaped: it is what a user greps the original trace for. */
  char buf[256];
  int n = len < (int)sizeof buf - 1 ? len : (int)sizeof buf - 1;
  for (int i = 0; i < n; i++) buf[i] = text[i];
  buf[n > 0 ? n : 0] = 0;
  fputs(",\"args\":{\"action\":", f);
  obs_json_string(f, buf);
  fputs("}}", f);
}

static void on_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  obs_chrome *w = ctx;
  FILE *f = w->f;
  long id = ++w->nflows;
  const char *cat = send->ctx == MPI_CTX_COLL ? "coll" : "p2p";
  double t0 = mpi_req_start_or_post(send);
  sep(w);
  fprintf(f, "{\"name\":\"msg\",\"cat\":\"%s\",\"ph\":\"s\",\"id\":%ld,\"pid\":0,\"tid\":%d,\"ts\":",
          cat, id, send->src);
  obs_json_number(f, t0 * 1e6);
  fputs(",\"args\":{\"bytes\":", f);
  obs_json_number(f, send->bytes);
  fprintf(f, ",\"dst\":%d,\"received\":%s}}", send->dst, recv ? "true" : "false");
  sep(w);
  fprintf(f, "{\"name\":\"msg\",\"cat\":\"%s\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%ld,\"pid\":0,\"tid\":%d,\"ts\":",
          cat, id, send->dst);
  obs_json_number(f, send->xfer_end * 1e6);
  fputs("}", f);
}

static void on_end(void *ctx, double time) {
  obs_chrome *w = ctx;
  fputs("\n],\n\"otherData\":{\"simulated_time\":", w->f);
  obs_json_number(w->f, time);
  fputs("}\n}\n", w->f);
}

obs_chrome *obs_chrome_new(FILE *f, const platform *plat, const int *rank_host, int np) {
  obs_chrome *w = xcalloc(1, sizeof *w);
  w->f = f;
  w->np = np;
  fputs("{\"displayTimeUnit\":\"ms\",\n\"traceEvents\":[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"psim\"}}", f);
  for (int r = 0; r < np; r++) {
    char name[300];
    snprintf(name, sizeof name, "rank %d (%s)", r, plat_host_at(plat, rank_host[r])->name);
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":", r);
    obs_json_string(f, name);
    fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"sort_index\":%d}}", r, r);
  }
  return w;
}

replay_observer obs_chrome_observer(obs_chrome *w) {
  return (replay_observer){.ctx = w, .action = on_action, .message = on_message, .end = on_end};
}

void obs_chrome_free(obs_chrome *w) { free(w); }
