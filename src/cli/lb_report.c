/* psim lb results for people (tables) and programs (JSON). Deterministic: wall times are not
 * written to the JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/lb_report.h"

static double ratio(double max, double avg) { return avg > 0 ? max / avg : 1; }

void lb_report_one(FILE *f, const lb_run *r) {
  const adapt_result *a = &r->res;
  fprintf(f, "%d VPs on %d PEs, balancer %s, period %d: makespan %.6f s\n", a->nvp, a->npes,
          lb_kind_name(r->balancer), r->period, a->run.simulated_time);
  fprintf(f, "%d balancing steps, %d VPs migrated, %.0f bytes moved\n", a->lb_steps, a->migrations,
          a->bytes_migrated);
  obs_time_totals t;
  if (obs_shares(&a->run, &t))
    fprintf(f, "time of all VPs: %.1f%% computing, %.1f%% communicating, %.1f%% waiting for "
               "messages, %.1f%% waiting for a PE, %.1f%% at balancing steps, %.1f%% idle after "
               "finishing\n", 100 * t.compute, 100 * t.comm, 100 * t.wait,
            100 * t.pe_wait, 100 * t.lb, 100 * (1 - t.finish));
  if (!a->steps.len) {
    if (a->run.dyn.niters || a->run.dyn.nevents) fputc('\n', f);
    obs_write_summary_dyn(f, &a->run);
    return;
  }
  fprintf(f, "\n%5s %12s %10s %10s %10s %10s %10s %6s %14s\n", "step", "time", "max_bef", "avg_bef",
          "imb_bef", "max_aft", "imb_aft", "moved", "bytes");
  size_t n = a->steps.len;
  for (size_t i = 0; i < n; i++) {
    if (n > 40 && i == 20) fprintf(f, "  ... (%zu steps; all of them in --json)\n", n - 40);
    if (n > 40 && i >= 20 && i < n - 20) continue;
    const adapt_step *s = &a->steps.data[i];
    fprintf(f, "%5zu %12.6f %10.6f %10.6f %10.4f %10.6f %10.4f %6d %14.0f\n", i + 1, s->time,
            s->max_before, s->avg_before, ratio(s->max_before, s->avg_before), s->max_after,
            ratio(s->max_after, s->avg_after), s->migrations, s->bytes);
  }
  if (a->run.dyn.niters || a->run.dyn.nevents) fputc('\n', f);
  obs_write_summary_dyn(f, &a->run);
}

static void mean_imbalance(const adapt_result *a, double *before, double *after) {
  *before = *after = 0;
  if (!a->steps.len) return;
  for (size_t i = 0; i < a->steps.len; i++) {
    *before += ratio(a->steps.data[i].max_before, a->steps.data[i].avg_before);
    *after += ratio(a->steps.data[i].max_after, a->steps.data[i].avg_after);
  }
  *before /= (double)a->steps.len;
  *after /= (double)a->steps.len;
}

/* The VPs' time in percent of nvp x makespan: comm, waiting for messages, waiting for a PE. */
static void vp_split(const adapt_result *a, double *comm, double *wait, double *pe) {
  obs_time_totals t;
  int ok = obs_shares(&a->run, &t);
  *comm = ok ? 100 * t.comm : 0;
  *wait = ok ? 100 * t.wait : 0;
  *pe = ok ? 100 * t.pe_wait : 0;
}

void lb_report_table(FILE *f, const lb_run *runs, int n) {
  fprintf(f, "%-15s %7s %14s %6s %10s %14s %9s %9s %6s %6s %6s %9s\n", "balancer", "period", "makespan_s",
          "steps", "migrations", "bytes_moved", "imb_bef", "imb_aft", "comm%", "wmsg%", "wpe%", "wall_s");
  for (int i = 0; i < n; i++) {
    const adapt_result *a = &runs[i].res;
    double b, af, cm, wm, wp;
    mean_imbalance(a, &b, &af);
    vp_split(a, &cm, &wm, &wp);
    fprintf(f, "%-15s %7d %14.6f %6d %10d %14.0f %9.4f %9.4f %6.1f %6.1f %6.1f %9.3f\n",
            lb_kind_name(runs[i].balancer), runs[i].period, a->run.simulated_time, a->lb_steps,
            a->migrations, a->bytes_migrated, b, af, cm, wm, wp, runs[i].wall);
  }
  fputs("(comm%, wmsg%, wpe%: the VPs' time communicating, waiting for messages, waiting for a PE)\n", f);
}

static void num(FILE *f, const char *k, double v, const char *sep) {
  fprintf(f, "\"%s\": ", k);
  obs_json_number(f, v);
  fputs(sep, f);
}

/* Drawing data: 9 significant digits, null for what is not a number. */
static void num9(FILE *f, double x) {
  if (!isfinite(x)) fputs("null", f);
  else if (x == floor(x) && fabs(x) < 1e15) fprintf(f, "%.0f", x);
  else fprintf(f, "%.9g", x);
}

static void num9_list(FILE *f, const double *x, int n) {
  fputc('[', f);
  for (int i = 0; i < n; i++) { if (i) fputc(',', f); num9(f, x[i]); }
  fputc(']', f);
}

/* Computing time of all ranks in each window (end[i-1], end[i]] (from 0), the record's
 * compute intervals clipped to the windows (end[] never decreases). */
static void compute_per_window(const obs_record *rec, const double *end, int n, double *out) {
  for (int i = 0; i < n; i++) out[i] = 0;
  if (!rec || n <= 0) return;
  for (int k = 0; k < rec->np; k++)
    for (size_t j = 0; j < rec->acts[k].len; j++) {
      const obs_act *a = &rec->acts[k].data[j];
      if (obs_category((tit_kind)a->kind) != OBS_CAT_COMPUTE || a->end <= a->start) continue;
      int lo = 0, hi = n;   /* first window whose end is after the start */
      while (lo < hi) { int mid = (lo + hi) / 2; if (end[mid] <= a->start) lo = mid + 1; else hi = mid; }
      for (int i = lo; i < n; i++) {
        double w0 = i ? end[i - 1] : 0, s = a->start > w0 ? a->start : w0, e = a->end < end[i] ? a->end : end[i];
        if (e > s) out[i] += e - s;
        if (a->end <= end[i]) break;
      }
    }
}

/* "iterations": what the report's per-iteration views draw (see lb_report.h). An iteration's
 * wall time is (end[i-1], end[i]]: from the moment the last VP finished the previous one to
 * the moment the last VP finished it. Its dynamic efficiency (the DPS paper's Fig. 12) is the
 * computing done in that interval by all VPs, whatever iteration each was in, over PEs x its
 * length: VPs drift apart between steps, and counting an iteration's own loads there instead
 * would credit work done before its interval began (values above 1). A PE computes for one VP
 * at a time, so this stays in [0, 1]; a balancing step's pause and migrations fall in the
 * iteration that follows it. */
static void iterations_json(FILE *f, const lb_run *r, const obs_record *rec) {
  const adapt_result *a = &r->res;
  int n = a->iterations, P = a->npes, V = a->nvp;
  double *pe = xmalloc((size_t)(P > 0 ? P : 1) * sizeof *pe);
  double *eff = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *eff);
  fputs(",\n  \"iterations\": {", f);
  num(f, "count", n, ", ");
  fputs("\"step_after\": [", f);
  /* step s (1-based) happens at every VP's (s x period)-th migrate, after that iteration */
  for (size_t s = 0; s < a->steps.len; s++) fprintf(f, "%s%ld", s ? ", " : "", (long)(s + 1) * r->period);
  fputs("],\n    \"end\": ", f);
  num9_list(f, a->it_end, n);
  fputs(",\n    \"pe_load\": [", f);
  for (int it = 0; it < n; it++) {
    adapt_pe_loads(a, it, pe);
    fputs(it ? ",\n      " : "\n      ", f);
    num9_list(f, pe, P);
  }
  fputs("],\n    \"vp_load\": [", f);
  for (int it = 0; it < n; it++) {
    fputs(it ? ",\n      " : "\n      ", f);
    num9_list(f, a->loads + (size_t)it * (size_t)V, V);
  }
  compute_per_window(rec, a->it_end, n, eff);
  for (int it = 0; it < n; it++) {
    double w = a->it_end[it] - (it ? a->it_end[it - 1] : 0);
    eff[it] = w > 0 && P > 0 ? eff[it] / (P * w) : NAN;
  }
  fputs("],\n    \"efficiency\": ", f);
  num9_list(f, eff, n);
  fputs("}", f);
  free(pe);
  free(eff);
}

/* "pe_timeline": which VP computed on each PE, per time bin (the one that computed longest
 * in it; -1: none), and each VP moved at a balancing step: [step, time, resume, vp, from, to].
 * A VP's iteration it (between its it-th and it+1-th migrate) ran on pe_of[it][v]. */
enum { PE_BINS = 400 };

static void pe_timeline_json(FILE *f, const lb_run *r, const obs_record *rec) {
  const adapt_result *a = &r->res;
  int P = a->npes, V = a->nvp, n = a->iterations;
  double T = a->run.simulated_time, dt = T > 0 ? T / PE_BINS : 0;
  size_t cells = (size_t)(P > 0 ? P : 1) * PE_BINS;
  double *best = xcalloc(cells, sizeof *best), *tmp = xcalloc(cells, sizeof *tmp);
  int *who = xmalloc(cells * sizeof *who);
  for (size_t i = 0; i < cells; i++) who[i] = -1;
  for (int v = 0; v < V && rec && v < rec->np && dt > 0; v++) {
    int it = 0;
    for (size_t j = 0; j < rec->acts[v].len; j++) {
      const obs_act *x = &rec->acts[v].data[j];
      if (x->kind == TIT_MIGRATE) { it++; continue; }
      if (obs_category((tit_kind)x->kind) != OBS_CAT_COMPUTE || !(x->end > x->start)) continue;
      int pe = it < n && a->pe_of ? a->pe_of[(size_t)it * (size_t)V + (size_t)v] : a->final_pe ? a->final_pe[v] : -1;
      if (pe < 0 || pe >= P) continue;
      int b0 = (int)(x->start / dt), b1 = (int)(x->end / dt);
      if (b0 >= PE_BINS) b0 = PE_BINS - 1;
      if (b1 >= PE_BINS) b1 = PE_BINS - 1;
      for (int b = b0; b <= b1; b++) {
        double lo = b * dt > x->start ? b * dt : x->start, hi = (b + 1) * dt < x->end ? (b + 1) * dt : x->end;
        if (b == PE_BINS - 1) hi = x->end;
        if (hi > lo) tmp[(size_t)pe * PE_BINS + (size_t)b] += hi - lo;
      }
    }
    for (size_t i = 0; i < cells; i++)
      if (tmp[i] > 0) {
        if (tmp[i] > best[i]) { best[i] = tmp[i]; who[i] = v; }
        tmp[i] = 0;
      }
  }
  fprintf(f, ",\n  \"pe_timeline\": {\"bins\": %d, \"bin_width\": ", PE_BINS);
  num9(f, dt);
  fputs(", \"vp\": [", f);
  for (int p = 0; p < P; p++) {
    fputs(p ? ",\n    [" : "\n    [", f);
    for (int b = 0; b < PE_BINS; b++) fprintf(f, "%s%d", b ? "," : "", who[(size_t)p * PE_BINS + (size_t)b]);
    fputc(']', f);
  }
  fputs("],\n    \"migrations\": [", f);
  int k = 0;
  for (size_t s = 0; s < a->steps.len && a->pe_of; s++) {
    long sp = (long)(s + 1) * r->period;   /* the first iteration after the step */
    if (sp <= 0 || sp > n) continue;
    for (int v = 0; v < V; v++) {
      int from = a->pe_of[(size_t)(sp - 1) * (size_t)V + (size_t)v];
      int to = sp < n ? a->pe_of[(size_t)sp * (size_t)V + (size_t)v] : a->final_pe[v];
      if (from == to) continue;
      fprintf(f, "%s[%zu, ", k++ ? ", " : "", s + 1);
      num9(f, a->steps.data[s].time);
      fputs(", ", f);
      num9(f, a->steps.data[s].resume);
      fprintf(f, ", %d, %d, %d]", v, from, to);
    }
  }
  fputs("]}", f);
  free(best);
  free(tmp);
  free(who);
}

static void run_json(FILE *f, const lb_run *r, const adapt_opts *o, const run_meta *m, const char *in,
                     const lb_report_extra *x) {
  const adapt_result *a = &r->res;
  fprintf(f, "%s{\n%s  \"command\": \"lb\", \"platform\": ", in, in);
  obs_json_string(f, m->platform);
  fputs(", \"network_model\": ", f);
  obs_json_string(f, m->network);
  if (m->machine_file) {
    fputs(", \"machine_file\": ", f);
    obs_json_string(f, m->machine_file);
  }
  fprintf(f, ",\n%s  \"traces\": [", in);
  for (int i = 0; i < m->ntraces; i++) {
    if (i) fputs(", ", f);
    obs_json_string(f, m->traces[i]);
  }
  fprintf(f, "],\n%s  \"balancer\": ", in);
  obs_json_string(f, lb_kind_name(r->balancer));
  fputs(", ", f);
  num(f, "period", r->period, ", ");
  num(f, "pes", a->npes, ", ");
  num(f, "vps", a->nvp, ", ");
  fputs("\"initial\": ", f);
  obs_json_string(f, o->initial == ADAPT_INIT_BLOCK ? "block" : o->initial == ADAPT_INIT_ROUND_ROBIN ? "round-robin" : o->initial_file);
  fputs(", ", f);
  num(f, "vp_memory", o->vp_memory, ", ");
  num(f, "lb_cost", o->lb_cost, ",\n");
  fprintf(f, "%s  ", in);
  num(f, "simulated_time", a->run.simulated_time, ", ");
  num(f, "lb_steps", a->lb_steps, ", ");
  num(f, "migrations", a->migrations, ", ");
  num(f, "bytes_migrated", a->bytes_migrated, ",\n");
  fprintf(f, "%s  ", in);
  num(f, "actions", (double)a->run.actions, ", ");
  num(f, "messages", (double)a->run.messages, ", ");
  num(f, "bytes", a->run.bytes, ",\n");
  fprintf(f, "%s  \"final_mapping\": [", in);
  for (int v = 0; v < a->nvp; v++) fprintf(f, "%s%d", v ? ", " : "", a->final_pe ? a->final_pe[v] : -1);
  fprintf(f, "],\n%s  \"steps\": [", in);
  for (size_t i = 0; i < a->steps.len; i++) {
    const adapt_step *s = &a->steps.data[i];
    fprintf(f, "%s\n%s    {", i ? "," : "", in);
    num(f, "step", (double)(i + 1), ", ");
    num(f, "time", s->time, ", ");
    num(f, "resume", s->resume, ", ");
    num(f, "max_before", s->max_before, ", ");
    num(f, "avg_before", s->avg_before, ", ");
    num(f, "imbalance_before", ratio(s->max_before, s->avg_before), ", ");
    num(f, "max_after", s->max_after, ", ");
    num(f, "avg_after", s->avg_after, ", ");
    num(f, "imbalance_after", ratio(s->max_after, s->avg_after), ", ");
    num(f, "migrations", s->migrations, ", ");
    num(f, "bytes", s->bytes, "}");
  }
  fprintf(f, "%s]", a->steps.len ? "\n" : "");
  if (!x) {   /* with x, the ranks' table carries them */
    fprintf(f, ",\n%s  ", in);
    obs_write_json_totals(f, &a->run, m);
  }
  /* dynamic efficiency (its "iterations" array only without x: x's "iterations" object has
   * the report's per-iteration views) and --pe-events; in a list of runs too (the comparison
   * page overlays their load curves) */
  obs_write_json_dyn(f, &a->run, !x);
  if (x) {
    fputs(",\n  ", f);
    num(f, "np", a->run.np, ", ");
    fputs("\"deadlock\": ", f);
    if (a->run.deadlock) obs_json_string(f, a->run.deadlock); else fputs("null", f);
    fputs(",\n  ", f);
    obs_write_json_ranks(f, &a->run, m);
    obs_write_json_sections(f, &a->run, x->rec, x->cp);
    iterations_json(f, r, x->rec);
    pe_timeline_json(f, r, x->rec);
  }
  obs_write_json_cpu(f, &a->run, in);
  fprintf(f, "\n%s}", in);
}

void lb_report_json(FILE *f, const lb_run *runs, int n, const adapt_opts *o, const run_meta *m,
                    const lb_report_extra *x) {
  if (n == 1) {
    run_json(f, &runs[0], o, m, "", x);
    fputc('\n', f);
    return;
  }
  fputs("{\"runs\": [\n", f);
  for (int i = 0; i < n; i++) {
    run_json(f, &runs[i], o, m, "  ", NULL);
    fputs(i + 1 < n ? ",\n" : "\n", f);
  }
  fputs("]}\n", f);
}
