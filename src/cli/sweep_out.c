/* psim sweep: what the runs gave, as a table, JSON and CSV, and read back for --resume.
 *
 * Everything here is a function of the configurations and their results only, never of the
 * order in which runs finished: the outputs of --jobs 1, --jobs 8 and an MPI job are the same
 * bytes. A run's own JSON is kept in one canonical line (numbers printed so they read back
 * exactly), so a resumed run is written exactly as a fresh one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "psim/observe.h"

/* --- results --- */

static void write_compact(FILE *f, const jv *v) {
  switch (v->type) {
  case JV_NULL: fputs("null", f); break;
  case JV_BOOL: fputs(v->num != 0 ? "true" : "false", f); break;
  case JV_NUM: obs_json_number(f, v->num); break;
  case JV_STR: obs_json_string(f, v->str); break;
  case JV_ARR:
  case JV_OBJ:
    fputc(v->type == JV_ARR ? '[' : '{', f);
    for (size_t i = 0; i < v->n; i++) {
      if (i) fputs(", ", f);
      if (v->type == JV_OBJ) { obs_json_string(f, v->keys[i]); fputs(": ", f); }
      write_compact(f, &v->items[i]);
    }
    fputc(v->type == JV_ARR ? ']' : '}', f);
    break;
  }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Hosts a result ran on: the distinct hosts of its ranks, else its PEs, else its ranks (brief
 * results have no ranks array: PEs or ranks, so a resumed brief run counts as a fresh one). */
static double result_hosts(const jv *doc, int brief) {
  const jv *ranks = brief ? NULL : jv_get(doc, "ranks");
  size_t n = jv_len(ranks);
  if (n) {
    const char **h = xcalloc(n, sizeof *h);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
      const char *s = jv_str(jv_get(jv_at(ranks, i), "host"), NULL);
      if (s) h[k++] = s;
    }
    qsort(h, k, sizeof *h, cmp_str);
    size_t d = 0;
    for (size_t i = 0; i < k; i++) if (!i || strcmp(h[i], h[i - 1])) d++;
    free(h);
    if (d) return (double)d;
  }
  double pes = jv_num(jv_get(doc, "pes"), NAN);
  return isnan(pes) ? jv_num(jv_get(doc, "np"), NAN) : pes;
}

void sweep_take_result(sweep_run *r, const jv *doc, int brief) {
  char *out = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&out, &len);
  if (!m) return;
  if (brief && doc->type == JV_OBJ) {
    /* only the run's top-level numbers, strings, booleans and nulls */
    int first = 1;
    fputc('{', m);
    for (size_t i = 0; i < doc->n; i++) {
      if (doc->items[i].type == JV_ARR || doc->items[i].type == JV_OBJ) continue;
      if (!first) fputs(", ", m);
      first = 0;
      obs_json_string(m, doc->keys[i]);
      fputs(": ", m);
      write_compact(m, &doc->items[i]);
    }
    fputc('}', m);
  } else {
    write_compact(m, doc);
  }
  fclose(m);
  r->result = out;
  r->time = jv_num(jv_get(doc, "simulated_time"), NAN);
  r->doc_hosts = result_hosts(doc, brief);
}

static int run_ok(const sweep_run *r) { return r->state == RUN_DONE && r->status == 0 && r->result; }

/* Runs of one series share the values of every parameter but the first (a line of the report;
 * zipped parameters form one series). Its key: the configuration with the first at value 0. */
static size_t series_key(const sweep_job *job, size_t i) {
  const sweep_space *s = &job->space;
  if (s->zip || !s->params.len) return 0;
  size_t stride = s->total / s->params.data[0].n;
  return i % stride;
}

void sweep_metrics(sweep_job *job) {
  const sweep_space *s = &job->space;
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  size_t *ref = xcalloc(s->total + 1, sizeof *ref);   /* per series key: 1 + reference run */
  for (size_t i = 0; i < s->total; i++) {
    sweep_run *r = &job->runs[i];
    r->hosts = r->cost = r->efficiency = NAN;
    if (!run_ok(r)) continue;
    r->hosts = r->doc_hosts;
    double h;
    if (job->hosts_param >= 0) {
      sweep_space_config(s, i, idx);
      if (sweep_number(sweep_value(s, idx, (size_t)job->hosts_param), &h) == 0) r->hosts = h;
    }
    r->cost = r->hosts * r->time;
    /* the reference of a series: its run on the fewest hosts (the first of them) */
    size_t k = series_key(job, i);
    if (isnan(r->cost)) continue;
    if (!ref[k] || r->hosts < job->runs[ref[k] - 1].hosts) ref[k] = i + 1;
  }
  for (size_t i = 0; i < s->total; i++) {
    sweep_run *r = &job->runs[i];
    size_t k = series_key(job, i);
    if (run_ok(r) && ref[k] && r->cost > 0) r->efficiency = job->runs[ref[k] - 1].cost / r->cost;
  }
  free(ref);
  free(idx);
}

double sweep_metric(const sweep_run *r, int metric) {
  return metric == METRIC_COST ? r->cost : metric == METRIC_EFFICIENCY ? r->efficiency : r->time;
}

const char *sweep_metric_label(int metric) {
  return metric == METRIC_COST ? "cost (host.s)" : metric == METRIC_EFFICIENCY ? "efficiency" : "makespan (s)";
}

/* --- writing --- */

static void json_value(FILE *f, const char *v) {
  double x;
  if (sweep_number(v, &x) == 0) obs_json_number(f, x);
  else obs_json_string(f, v);
}

/* The numbers of a run, in the order of the JSON members and CSV columns. */
enum { NNUM = 4 };
static const char *const NUM_NAME[NNUM] = {"simulated_time", "host_count", "cost", "efficiency"};
static void run_numbers(const sweep_run *r, double v[NNUM]) {
  v[0] = r->time;
  v[1] = r->hosts;
  v[2] = r->cost;
  v[3] = r->efficiency;
}

static void json_array(FILE *f, char *const *items, size_t n, void (*item)(FILE *, const char *)) {
  fputc('[', f);
  for (size_t j = 0; j < n; j++) {
    if (j) fputs(", ", f);
    item(f, items[j]);
  }
  fputc(']', f);
}

static void write_json_doc(FILE *f, const sweep_job *job, int complete, const char *extra) {
  const sweep_space *s = &job->space;
  fputs("{\n  \"command\": \"sweep\",\n  \"parameters\": [", f);
  for (size_t p = 0; p < s->params.len; p++) {
    const sweep_param *q = &s->params.data[p];
    fputs(p ? ", {\"name\": " : "{\"name\": ", f);
    obs_json_string(f, q->name);
    fputs(", \"values\": ", f);
    json_array(f, q->values, q->n, json_value);
    fputs("}", f);
  }
  fprintf(f, "],\n  \"combination\": \"%s\",\n  \"template\": ", s->zip ? "zip" : "cross");
  json_array(f, job->tmpl.data, job->tmpl.len, obs_json_string);
  size_t done = 0, failed = 0;
  for (size_t i = 0; i < s->total; i++)
    if (job->runs[i].state == RUN_DONE) { done++; failed += !run_ok(&job->runs[i]); }
  fprintf(f, ",\n  \"total\": %zu, \"done\": %zu, \"failed\": %zu, \"complete\": %s,\n", s->total, done, failed,
          complete ? "true" : "false");
  if (extra) fprintf(f, "  %s,\n", extra);
  fputs("  \"runs\": [", f);
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  int first = 1;
  for (size_t i = 0; i < s->total; i++) {
    const sweep_run *r = &job->runs[i];
    if (r->state != RUN_DONE) continue;
    sweep_space_config(s, i, idx);
    fputs(first ? "\n    {\"params\": {" : ",\n    {\"params\": {", f);
    first = 0;
    for (size_t p = 0; p < s->params.len; p++) {
      if (p) fputs(", ", f);
      obs_json_string(f, s->params.data[p].name);
      fputs(": ", f);
      json_value(f, sweep_value(s, idx, p));
    }
    fprintf(f, "}, \"status\": %d, \"error\": ", r->status);
    if (r->error) obs_json_string(f, r->error); else fputs("null", f);
    double v[NNUM];
    run_numbers(r, v);
    for (int k = 0; k < NNUM; k++) {
      fprintf(f, ", \"%s\": ", NUM_NAME[k]);
      obs_json_number(f, v[k]);
    }
    fputs(", \"result\": ", f);
    fputs(r->result ? r->result : "null", f);
    fputc('}', f);
  }
  free(idx);
  fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

/* Opens path for writing: stdout for "-", else a temporary file beside it, renamed over it
 * by finish_out (a reader, or an interrupted sweep, never sees half a file). */
static FILE *start_out(const char *path, char *tmp, size_t n) {
  if (!strcmp(path, "-")) return stdout;
  snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) fprintf(stderr, "psim sweep: %s: cannot open for writing\n", path);
  return f;
}

static int finish_out(FILE *f, const char *path, const char *tmp) {
  if (f == stdout) { fflush(f); return 0; }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
    fprintf(stderr, "psim sweep: %s: cannot write\n", path);
    unlink(tmp);
    return -1;
  }
  return 0;
}

int sweep_write_json(const sweep_job *job, const char *path, int complete, const char *extra) {
  char tmp[4200];
  FILE *f = start_out(path, tmp, sizeof tmp);
  if (!f) return -1;
  write_json_doc(f, job, complete, extra);
  return finish_out(f, path, tmp);
}

static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) { fputs(s, f); return; }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int sweep_write_csv(const sweep_job *job, const char *path) {
  char tmp[4200];
  FILE *f = start_out(path, tmp, sizeof tmp);
  if (!f) return -1;
  const sweep_space *s = &job->space;
  for (size_t p = 0; p < s->params.len; p++) {
    csv_field(f, s->params.data[p].name);
    fputc(',', f);
  }
  fputs("status,", f);
  for (int k = 0; k < NNUM; k++) fprintf(f, "%s,", NUM_NAME[k]);
  fputs("error\n", f);
  size_t *idx = xcalloc(s->params.len + 1, sizeof *idx);
  for (size_t i = 0; i < s->total; i++) {
    const sweep_run *r = &job->runs[i];
    if (r->state != RUN_DONE) continue;
    sweep_space_config(s, i, idx);
    for (size_t p = 0; p < s->params.len; p++) {
      csv_field(f, sweep_value(s, idx, p));
      fputc(',', f);
    }
    fprintf(f, "%d,", r->status);
    double v[NNUM];
    run_numbers(r, v);
    for (int k = 0; k < NNUM; k++) {
      if (!isnan(v[k])) obs_json_number(f, v[k]);
      fputc(',', f);
    }
    csv_field(f, r->error ? r->error : "");
    fputc('\n', f);
  }
  free(idx);
  return finish_out(f, path, tmp);
}

void sweep_write_table(const sweep_job *job, FILE *f) {
  const sweep_space *s = &job->space;
  size_t np = s->params.len;
  int *w = xcalloc(np + 1, sizeof *w);
  for (size_t p = 0; p < np; p++) {
    const sweep_param *q = &s->params.data[p];
    w[p] = (int)strlen(q->name);
    for (size_t j = 0; j < q->n; j++) if ((int)strlen(q->values[j]) > w[p]) w[p] = (int)strlen(q->values[j]);
  }
  int wi = 1;
  for (size_t t = s->total; t >= 10; t /= 10) wi++;
  fprintf(f, "%*s", wi + 1, "#");
  for (size_t p = 0; p < np; p++) fprintf(f, "  %-*s", w[p], s->params.data[p].name);
  fprintf(f, "  %14s  %10s  %14s  %10s  %s\n", "makespan (s)", "host_count", "cost (host.s)", "efficiency", "status");
  size_t *idx = xcalloc(np + 1, sizeof *idx);
  for (size_t i = 0; i < s->total; i++) {
    const sweep_run *r = &job->runs[i];
    if (r->state != RUN_DONE) continue;
    sweep_space_config(s, i, idx);
    fprintf(f, "%*zu", wi + 1, i + 1);
    for (size_t p = 0; p < np; p++) fprintf(f, "  %-*s", w[p], sweep_value(s, idx, p));
    char t[32] = "-", h[32] = "-", c[32] = "-", e[32] = "-";
    if (!isnan(r->time)) snprintf(t, sizeof t, "%.6f", r->time);
    if (!isnan(r->hosts)) snprintf(h, sizeof h, "%g", r->hosts);
    if (!isnan(r->cost)) snprintf(c, sizeof c, "%.6g", r->cost);
    if (!isnan(r->efficiency)) snprintf(e, sizeof e, "%.4f", r->efficiency);
    fprintf(f, "  %14s  %10s  %14s  %10s  ", t, h, c, e);
    if (run_ok(r)) fputs("ok\n", f);
    else {
      const char *m = r->error ? r->error : "";
      const char *nl = strchr(m, '\n');
      fprintf(f, "FAILED (exit %d): %.*s\n", r->status, nl ? (int)(nl - m) : (int)strlen(m), m);
    }
  }
  size_t done = 0, failed = 0;
  for (size_t i = 0; i < s->total; i++)
    if (job->runs[i].state == RUN_DONE) { done++; failed += !run_ok(&job->runs[i]); }
  fprintf(f, "%zu of %zu runs done", done, s->total);
  if (failed) fprintf(f, ", %zu failed", failed);
  if (job->nresumed) fprintf(f, ", %zu taken from --resume", job->nresumed);
  fputs("\n", f);
  free(idx);
  free(w);
}

void sweep_checkpoint(sweep_job *job) {
  sweep_metrics(job);
  if (job->json && strcmp(job->json, "-")) sweep_write_json(job, job->json, 0, NULL);
  if (job->csv && strcmp(job->csv, "-")) sweep_write_csv(job, job->csv);
}

/* --- reading back (--resume) --- */

/* The configuration whose values are the params object pv; -1 when none. */
static long match_config(const sweep_job *job, const jv *pv) {
  const sweep_space *s = &job->space;
  if (!pv || pv->type != JV_OBJ || pv->n != s->params.len || !s->params.len) return -1;
  long index = 0, zi = -1;
  for (size_t p = 0; p < s->params.len; p++) {
    const sweep_param *q = &s->params.data[p];
    const jv *v = jv_get(pv, q->name);
    if (!v) return -1;
    long found = -1;
    for (size_t j = 0; j < q->n && found < 0; j++) {
      double x;
      if (v->type == JV_NUM && sweep_number(q->values[j], &x) == 0 && x == v->num) found = (long)j;
      if (v->type == JV_STR && !strcmp(v->str, q->values[j])) found = (long)j;
    }
    if (found < 0) return -1;
    if (s->zip) {
      if (zi >= 0 && zi != found) return -1;
      zi = found;
    } else {
      index = index * (long)q->n + found;
    }
  }
  return s->zip ? zi : index;
}

int sweep_resume(sweep_job *job, const char *path) {
  size_t len = 0;
  char *text = sweep_slurp(path, &len);
  if (!text) {
    /* nothing to resume yet: the first attempt of a resumable script */
    fprintf(stderr, "psim sweep: --resume %s: no such file, starting from the beginning\n", path);
    return 0;
  }
  char why[512];
  jv *doc = jv_parse(text, len, why, sizeof why);
  free(text);
  if (!doc || jv_get(doc, "runs") == NULL || jv_get(doc, "runs")->type != JV_ARR) {
    fprintf(stderr, "psim sweep: --resume %s: not the JSON of a psim sweep (%s)\n", path, doc ? "no \"runs\" array" : why);
    jv_free(doc);
    return PSIM_EXIT_INPUT;
  }
  const jv *runs = jv_get(doc, "runs");
  size_t taken = 0, other = 0;
  for (size_t k = 0; k < jv_len(runs); k++) {
    const jv *r = jv_at(runs, k);
    const jv *res = jv_get(r, "result");
    long i = match_config(job, jv_get(r, "params"));
    if (i < 0) { other++; continue; }
    /* only successful runs are done; failed ones run again */
    if (jv_num(jv_get(r, "status"), -1) != 0 || !res || res->type != JV_OBJ) continue;
    sweep_run *run = &job->runs[i];
    if (run->state == RUN_DONE) continue;
    sweep_take_result(run, res, job->brief);
    run->status = 0;
    run->state = RUN_DONE;
    taken++;
  }
  jv_free(doc);
  job->nresumed = job->ndone = taken;
  job->ntodo = job->space.total - taken;
  if (other)
    fprintf(stderr, "psim sweep: --resume %s: %zu runs are not configurations of this sweep (ignored)\n", path, other);
  return 0;
}
