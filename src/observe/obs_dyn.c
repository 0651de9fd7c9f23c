/* Dynamic efficiency and host events in the outputs (see dyn_result in include/psim/replay.h):
 * the JSON sections "iterations", "processor_seconds", "host_events" and their lines in the
 * human summary. Written only when the run had iteration markers or host events. */
#include <math.h>
#include <stdio.h>

#include "psim/observe.h"

static void num(FILE *f, const char *k, double v, const char *after) {
  fprintf(f, "\"%s\": ", k);
  obs_json_number(f, v);
  fputs(after, f);
}

void obs_write_json_dyn(FILE *f, const replay_result *r, int with_iterations) {
  const dyn_result *d = &r->dyn;
  if (d->niters && with_iterations) {
    fputs(",\n  \"iterations\": [", f);
    for (int i = 0; i < d->niters; i++) {
      const dyn_iter *it = &d->iters[i];
      fputs(i ? ",\n    {" : "\n    {", f);
      num(f, "iteration", it->iteration, ", ");
      num(f, "start", it->start, ", ");
      num(f, "end", it->end, ", ");
      num(f, "useful_compute", it->useful, ", ");
      num(f, "hosts_allocated", it->hosts, ", ");
      num(f, "efficiency", it->efficiency, ", ");
      num(f, "processor_seconds", it->processor_seconds, "}");
    }
    fputs("\n  ]", f);
  }
  if (d->niters) {
    fputs(",\n  ", f);
    num(f, "processor_seconds", d->processor_seconds, "");
  }
  if (!d->nevents) return;
  fputs(",\n  \"host_events\": [", f);
  for (int i = 0; i < d->nevents; i++) {
    const dyn_event_rec *e = &d->events[i];
    fputs(i ? ",\n    {" : "\n    {", f);
    num(f, "date", e->date, ", ");
    fputs("\"iteration\": ", f);
    if (e->iteration) obs_json_number(f, e->iteration); else fputs("null", f);
    fprintf(f, ", \"action\": \"%s\", \"hosts\": [", e->action == DYN_ADD ? "add" : "remove");
    for (int j = 0; j < e->nnames; j++) {
      if (j) fputs(", ", f);
      obs_json_string(f, e->names[j]);
    }
    fputs("], \"moves\": [", f);
    for (int j = 0; j < e->nmoves; j++) {
      const dyn_move *m = &e->moves[j];
      fputs(j ? ",\n      {" : "\n      {", f);
      num(f, "rank", m->rank, ", ");
      fputs("\"from\": ", f);
      obs_json_string(f, d->unit_names[m->from]);
      fputs(", \"to\": ", f);
      obs_json_string(f, d->unit_names[m->to]);
      fputs(", ", f);
      num(f, "bytes", m->bytes, ", ");
      num(f, "start", m->start, ", ");
      num(f, "end", m->end, "}");
    }
    fputs(e->nmoves ? "]}" : "]}", f);
  }
  fputs("\n  ]", f);
}

void obs_write_summary_dyn(FILE *f, const replay_result *r) {
  const dyn_result *d = &r->dyn;
  for (int i = 0; i < d->nevents; i++) {
    const dyn_event_rec *e = &d->events[i];
    fprintf(f, "%s at %.6f s", e->action == DYN_ADD ? "added" : "removed", e->date);
    if (e->iteration) fprintf(f, " (iteration %d)", e->iteration);
    fputs(":", f);
    for (int j = 0; j < e->nnames && j < 8; j++) fprintf(f, " %s", e->names[j]);
    if (e->nnames > 8) fprintf(f, " ... (%d)", e->nnames);
    double b = 0, last = e->date;
    for (int j = 0; j < e->nmoves; j++) { b += e->moves[j].bytes; if (e->moves[j].end > last) last = e->moves[j].end; }
    fprintf(f, "; %d ranks moved (%.0f bytes), the last arrived at %.6f s\n", e->nmoves, b, last);
  }
  if (!d->niters) return;
  fprintf(f, "dynamic efficiency: %d iterations, %.6f processor-seconds used\n", d->niters,
          d->processor_seconds);
  fprintf(f, "%9s %12s %12s %12s %6s %10s %14s\n", "iteration", "start(s)", "end(s)", "useful(s)",
          "hosts", "efficiency", "proc-seconds");
  for (int i = 0; i < d->niters; i++) {
    if (d->niters > 20 && i == 10) fprintf(f, "%9s (%d more iterations: see --json)\n", "...", d->niters - 20);
    if (d->niters > 20 && i >= 10 && i < d->niters - 10) continue;
    const dyn_iter *it = &d->iters[i];
    fprintf(f, "%9d %12.6f %12.6f %12.6f %6d %10.4f %14.6f\n", it->iteration, it->start, it->end,
            it->useful, it->hosts, it->efficiency, it->processor_seconds);
  }
}
