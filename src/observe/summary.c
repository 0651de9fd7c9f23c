/* Results as JSON and as a human summary. Both are deterministic: no wall-clock figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/observe.h"

void obs_json_number(FILE *f, double x) {
  if (!isfinite(x)) { fputs("null", f); return; }
  if (x == floor(x) && fabs(x) < 1e15) { fprintf(f, "%.0f", x); return; }
  char buf[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) break;
  }
  fputs(buf, f);
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates, up to
 * U+10FFFF), 0 when there is none. */
static int utf8_len(const unsigned char *p) {
  unsigned char c = p[0];
  int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!n) return 0;
  unsigned char lo = 0x80, hi = 0xBF;   /* the second byte's range */
  if (c == 0xE0) lo = 0xA0;
  else if (c == 0xED) hi = 0x9F;
  else if (c == 0xF0) lo = 0x90;
  else if (c == 0xF4) hi = 0x8F;
  if (p[1] < lo || p[1] > hi) return 0;
  for (int i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return n;
}

/* A JSON string (RFC 8259: UTF-8). Names come from the user's files and command line, in
 * whatever encoding: a byte that is not part of valid UTF-8 is written as the Latin-1
 * character it would be (\u00XX), so the document stays valid and psim can read it back.
 * '<' is escaped too, so that the string is also safe inside an HTML <script> (the report). */
void obs_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p == '<') fprintf(f, "\\u%04x", *p);
    else if (*p < 0x80) fputc(*p, f);
    else {
      int n = utf8_len(p);
      if (!n) { fprintf(f, "\\u%04x", *p); continue; }
      fwrite(p, 1, (size_t)n, f);
      p += n - 1;
    }
  }
  fputc('"', f);
}

static void kv_num(FILE *f, const char *k, double v, int comma) {
  fprintf(f, "\"%s\": ", k);
  obs_json_number(f, v);
  if (comma) fputs(", ", f);
}

/* psim lb's VPs also wait for their PE and at balancing steps. */
static int vp_mode(const run_meta *m) { return m->command && !strcmp(m->command, "lb"); }

/* Everything but the closing brace, so that obs_write_json_full can add its sections. */
void obs_write_json_body(FILE *f, const replay_result *r, const run_meta *m) {
  fputs("{\n  \"psim_version\": \"0.1\",\n  \"command\": ", f);
  obs_json_string(f, m->command);
  fputs(",\n  \"platform\": ", f);
  obs_json_string(f, m->platform);
  fputs(",\n  \"network_model\": ", f);
  obs_json_string(f, m->network);
  if (m->machine_file) {
    fputs(",\n  \"machine_file\": ", f);
    obs_json_string(f, m->machine_file);
  }
  fputs(",\n  \"traces\": [", f);
  for (int i = 0; i < m->ntraces; i++) {
    if (i) fputs(", ", f);
    obs_json_string(f, m->traces[i]);
  }
  fputs("],\n  ", f);
  if (m->coll) {
    fputs("\"collectives\": {", f);
    for (int k = 0; k < COLL_NKINDS; k++) {
      if (k) fputs(", ", f);
      obs_json_string(f, coll_kind_name((coll_kind)k));
      fputs(": ", f);
      obs_json_string(f, coll_selector_algorithm(m->coll, (coll_kind)k));
    }
    fputs("},\n  ", f);
  }
  kv_num(f, "np", r->np, 1);
  kv_num(f, "simulated_time", r->simulated_time, 1);
  kv_num(f, "actions", (double)r->actions, 1);
  kv_num(f, "messages", (double)r->messages, 1);
  kv_num(f, "bytes", r->bytes, 0);
  fputs(",\n  \"deadlock\": ", f);
  if (r->deadlock) obs_json_string(f, r->deadlock); else fputs("null", f);
  fputs(",\n  ", f);
  obs_write_json_ranks(f, r, m);
  obs_write_json_cpu(f, r, "");
  obs_write_json_dyn(f, r, 1);
}

void obs_totals(const replay_result *r, obs_time_totals *t) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < r->np; i++) {
    const rank_stats *s = &r->ranks[i];
    t->compute += s->compute;
    t->comm += s->comm;
    t->wait += s->wait;
    t->pe_wait += s->pe_wait;
    t->lb += s->lb;
    t->move += s->move;
    t->finish += s->finish;
  }
}

int obs_shares(const replay_result *r, obs_time_totals *t) {
  obs_totals(r, t);
  double T = r->simulated_time, tot = T * r->np;
  if (!(tot > 0)) return 0;
  if (isfinite(tot) && isfinite(t->finish)) {
    t->compute /= tot; t->comm /= tot; t->wait /= tot; t->pe_wait /= tot;
    t->lb /= tot; t->move /= tot; t->finish /= tot;
    return 1;
  }
  /* huge times (a sleep of 1e300 s): the sums overflow, the shares of each rank do not */
  memset(t, 0, sizeof *t);
  for (int i = 0; i < r->np; i++) {
    const rank_stats *s = &r->ranks[i];
    t->compute += s->compute / T / r->np; t->comm += s->comm / T / r->np;
    t->wait += s->wait / T / r->np; t->pe_wait += s->pe_wait / T / r->np;
    t->lb += s->lb / T / r->np; t->move += s->move / T / r->np;
    t->finish += s->finish / T / r->np;
  }
  return 1;
}

void obs_write_json_ranks(FILE *f, const replay_result *r, const run_meta *m) {
  fputs("\"ranks\": [\n", f);
  for (int i = 0; i < r->np; i++) {
    const rank_stats *s = &r->ranks[i];
    fputs("    {", f);
    kv_num(f, "rank", i, 1);
    fputs("\"host\": ", f);
    obs_json_string(f, m->plat ? plat_host_at(m->plat, s->host)->name : "");
    fputs(", ", f);
    kv_num(f, "finish_time", s->finish, 1);
    kv_num(f, "compute_time", s->compute, 1);
    kv_num(f, "comm_time", s->comm, 1);
    kv_num(f, "wait_time", s->wait, 1);
    if (vp_mode(m)) {
      kv_num(f, "pe_wait_time", s->pe_wait, 1);
      kv_num(f, "lb_time", s->lb, 1);
    }
    if (r->dyn.nevents) kv_num(f, "move_time", s->move, 1);
    if (s->blocked) fputs("\"blocked\": true, ", f);
    kv_num(f, "actions", (double)s->actions, 1);
    kv_num(f, "messages_sent", (double)s->msgs_sent, 1);
    kv_num(f, "bytes_sent", s->bytes_sent, 1);
    kv_num(f, "messages_received", (double)s->msgs_recv, 1);
    kv_num(f, "bytes_received", s->bytes_recv, 0);
    fputs(i + 1 < r->np ? "},\n" : "}\n", f);
  }
  fputs("  ],\n  ", f);
  obs_write_json_totals(f, r, m);
}

/* The sums over the ranks (compute + comm + wait [+ pe_wait + lb] = the sum of finishes). */
void obs_write_json_totals(FILE *f, const replay_result *r, const run_meta *m) {
  obs_time_totals t;
  obs_totals(r, &t);
  fputs("\"totals\": {", f);
  kv_num(f, "finish_time", t.finish, 1);
  kv_num(f, "compute_time", t.compute, 1);
  kv_num(f, "comm_time", t.comm, 1);
  if (r->dyn.nevents) kv_num(f, "move_time", t.move, 1);
  if (vp_mode(m)) {
    kv_num(f, "wait_time", t.wait, 1);
    kv_num(f, "pe_wait_time", t.pe_wait, 1);
    kv_num(f, "lb_time", t.lb, 0);
  } else {
    kv_num(f, "wait_time", t.wait, 0);
  }
  fputs("}", f);
}

void obs_write_json(FILE *f, const replay_result *r, const run_meta *m) {
  obs_write_json_body(f, r, m);
  fputs("\n}\n", f);
}

static void human_bytes(char *buf, size_t n, double b) {
  const char *u[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int i = 0;
  while (b >= 1000 && i < 5) { b /= 1000; i++; }
  if (i == 0) snprintf(buf, n, "%.0f %s", b, u[i]);
  else snprintf(buf, n, "%.2f %s", b, u[i]);
}

static void rank_row(FILE *f, const replay_result *r, const run_meta *m, int i) {
  const rank_stats *s = &r->ranks[i];
  char bs[32], br[32];
  human_bytes(bs, sizeof bs, s->bytes_sent);
  human_bytes(br, sizeof br, s->bytes_recv);
  fprintf(f, "%6d%c %-14.14s %12.6f %12.6f %12.6f %12.6f %9llu %10s %9llu %10s\n", i,
          s->blocked ? '*' : ' ', m->plat ? plat_host_at(m->plat, s->host)->name : "?", s->finish,
          s->compute, s->comm, s->wait, (unsigned long long)s->msgs_sent, bs, (unsigned long long)s->msgs_recv, br);
}

void obs_write_summary(FILE *f, const replay_result *r, const run_meta *m) {
  char b[32];
  human_bytes(b, sizeof b, r->bytes);
  fprintf(f, "psim %s: %d ranks on %s, %s network model", m->command, r->np, m->platform, m->network);
  if (m->machine_file) fprintf(f, ", machine file %s", m->machine_file);
  fputc('\n', f);
  if (r->deadlock)
    fprintf(f, "simulated time: %.6f s (deadlock found at that date; a blocked rank's finish is "
               "when it blocked for good)\n", r->simulated_time);
  else
    fprintf(f, "simulated time: %.6f s\n", r->simulated_time);
  /* The two drivers count different things (docs/observe.md, "What an action is"): psim run
   * one per MPI call and per computation between calls, a replay one per trace line, and the
   * recorder writes one call as several lines (MPI_Sendrecv: isend, irecv, two waits). Saying
   * which keeps a run and the replay of its trace from looking like different work. */
  int is_run = m->command && !strcmp(m->command, "run");
  fprintf(f, "actions: %llu (%s)   messages: %llu (%s)\n", (unsigned long long)r->actions,
          is_run ? "MPI calls and computations" : "trace lines", (unsigned long long)r->messages, b);
  obs_time_totals t;
  if (obs_shares(r, &t)) {
    fprintf(f, "time of all ranks: %.1f%% computing, %.1f%% communicating, %.1f%% waiting, ",
            100 * t.compute, 100 * t.comm, 100 * t.wait);
    if (vp_mode(m))
      fprintf(f, "%.1f%% waiting for a PE, %.1f%% at balancing steps, ", 100 * t.pe_wait, 100 * t.lb);
    if (r->dyn.nevents) fprintf(f, "%.1f%% moving to another host, ", 100 * t.move);
    fprintf(f, "%.1f%% %s\n", 100 * (1 - t.finish),
            r->deadlock ? "after finishing or blocking for good" : "idle after finishing");
  }
  fprintf(f, "\n%6s  %-14s %12s %12s %12s %12s %9s %10s %9s %10s\n", "rank", "host", "finish(s)",
          "compute(s)", "comm(s)", "wait(s)", "msgs out", "bytes out", "msgs in", "bytes in");
  if (r->np <= 32) {
    for (int i = 0; i < r->np; i++) rank_row(f, r, m, i);
  } else {
    for (int i = 0; i < 8; i++) rank_row(f, r, m, i);
    fprintf(f, "%6s  (%d more ranks: see --json)\n", "...", r->np - 16);
    for (int i = r->np - 8; i < r->np; i++) rank_row(f, r, m, i);
  }
  if (r->deadlock) fputs("(* blocked for good at its finish time)\n", f);
  obs_write_summary_cpu(f, r);
  if (r->dyn.niters || r->dyn.nevents) fputc('\n', f);
  obs_write_summary_dyn(f, r);
}
