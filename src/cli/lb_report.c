/* psim lb results for people (tables) and programs (JSON). Deterministic: wall times are not
 * written to the JSON. */
#include <math.h>
#include <string.h>

#include "cli/lb_report.h"

static double ratio(double max, double avg) { return avg > 0 ? max / avg : 1; }

void lb_report_one(FILE *f, const lb_run *r) {
  const adapt_result *a = &r->res;
  fprintf(f, "%d VPs on %d PEs, balancer %s, period %d: makespan %.6f s\n", a->nvp, a->npes,
          lb_kind_name(r->balancer), r->period, a->run.simulated_time);
  fprintf(f, "%d balancing steps, %d VPs migrated, %.0f bytes moved\n", a->lb_steps, a->migrations,
          a->bytes_migrated);
  if (!a->steps.len) return;
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

void lb_report_table(FILE *f, const lb_run *runs, int n) {
  fprintf(f, "%-15s %7s %14s %6s %10s %14s %9s %9s %9s\n", "balancer", "period", "makespan_s",
          "steps", "migrations", "bytes_moved", "imb_bef", "imb_aft", "wall_s");
  for (int i = 0; i < n; i++) {
    const adapt_result *a = &runs[i].res;
    double b, af;
    mean_imbalance(a, &b, &af);
    fprintf(f, "%-15s %7d %14.6f %6d %10d %14.0f %9.4f %9.4f %9.3f\n", lb_kind_name(runs[i].balancer),
            runs[i].period, a->run.simulated_time, a->lb_steps, a->migrations, a->bytes_migrated, b,
            af, runs[i].wall);
  }
}

static void num(FILE *f, const char *k, double v, const char *sep) {
  fprintf(f, "\"%s\": ", k);
  obs_json_number(f, v);
  fputs(sep, f);
}

static void run_json(FILE *f, const lb_run *r, const adapt_opts *o, const run_meta *m, const char *in) {
  const adapt_result *a = &r->res;
  fprintf(f, "%s{\n%s  \"command\": \"lb\", \"platform\": ", in, in);
  obs_json_string(f, m->platform);
  fputs(", \"network_model\": ", f);
  obs_json_string(f, m->network);
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
  fprintf(f, "%s]\n%s}", a->steps.len ? "\n" : "", in);
  (void)in;
}

void lb_report_json(FILE *f, const lb_run *runs, int n, const adapt_opts *o, const run_meta *m) {
  if (n == 1) {
    run_json(f, &runs[0], o, m, "");
    fputc('\n', f);
    return;
  }
  fputs("{\"runs\": [\n", f);
  for (int i = 0; i < n; i++) {
    run_json(f, &runs[i], o, m, "  ");
    fputs(i + 1 < n ? ",\n" : "\n", f);
  }
  fputs("]}\n", f);
}
