/* The CPU model's JSON sections (docs/models.md): "cpu_model" (its parameters), "hosts" (the
 * CPU-seconds each reported host gave to the application, to communication and to background
 * processes) and "loadavg" (the sampled load averages). Written only when the run used the
 * CPU model (replay_result.cpu). */
#include <stdio.h>

#include "psim/observe.h"

static void num(FILE *f, const char *k, double v, const char *after) {
  fprintf(f, "\"%s\": ", k);
  obs_json_number(f, v);
  fputs(after, f);
}

void obs_write_json_cpu(FILE *f, const replay_result *r, const char *in) {
  const cpu_report *c = r->cpu;
  if (!c) return;
  fprintf(f, ",\n%s  \"cpu_model\": {", in);
  num(f, "send_cost", c->cfg.send_cost, ", ");
  num(f, "recv_cost", c->cfg.recv_cost, ", ");
  num(f, "app_nice", c->cfg.app_nice, ", ");
  fputs("\"background\": ", f);
  obs_json_string(f, c->background);
  fprintf(f, "},\n%s  \"hosts\": [", in);
  for (int i = 0; i < c->nhosts; i++) {
    const cpu_host_report *h = &c->hosts[i];
    fprintf(f, "%s\n%s    {\"host\": ", i ? "," : "", in);
    obs_json_string(f, h->name);
    fputs(", ", f);
    num(f, "cpu_app", h->app, ", ");
    num(f, "cpu_comm", h->comm, ", ");
    num(f, "cpu_background", h->background, "}");
  }
  if (c->nhosts) fprintf(f, "\n%s  ", in);
  fprintf(f, "],\n%s  \"loadavg\": {", in);
  num(f, "period", c->cfg.la_period, ", ");
  fputs("\"betas\": [", f);
  for (int k = 0; k < 3; k++) {
    if (k) fputs(", ", f);
    obs_json_number(f, c->cfg.la_betas[k]);
  }
  fputs("], \"labels\": [", f);
  for (int k = 0; k < 3; k++) {
    if (k) fputs(", ", f);
    obs_json_string(f, c->labels[k]);
  }
  fputs("], \"hosts\": [", f);
  for (int i = 0; i < c->nhosts; i++) {
    const cpu_host_report *h = &c->hosts[i];
    fprintf(f, "%s\n%s    {\"host\": ", i ? "," : "", in);
    obs_json_string(f, h->name);
    fputs(", \"samples\": [", f);
    for (int j = 0; j < h->nsamples; j++) {
      fputs(j ? ", [" : "[", f);
      for (int k = 0; k < 4; k++) {
        if (k) fputs(", ", f);
        obs_json_number(f, h->samples[4 * j + k]);
      }
      fputc(']', f);
    }
    fputs("]}", f);
  }
  if (c->nhosts) fprintf(f, "\n%s  ", in);
  fputs("]}", f);
}

/* The human summary's lines: CPU-seconds per host (the first and last hosts when many). */
static void cpu_row(FILE *f, const cpu_host_report *h) {
  fprintf(f, "  %-14s %12.6f %12.6f %12.6f\n", h->name, h->app, h->comm, h->background);
}

void obs_write_summary_cpu(FILE *f, const replay_result *r) {
  const cpu_report *c = r->cpu;
  if (!c || !c->nhosts) return;
  double app = 0, comm = 0, bg = 0;
  for (int i = 0; i < c->nhosts; i++) {
    app += c->hosts[i].app;
    comm += c->hosts[i].comm;
    bg += c->hosts[i].background;
  }
  fprintf(f, "\nCPU model: send-cost %g, recv-cost %g, application nice %d, background %s\n",
          c->cfg.send_cost, c->cfg.recv_cost, c->cfg.app_nice, c->background);
  fprintf(f, "  %-14s %12s %12s %12s   (CPU-seconds)\n", "host", "application", "comm", "background");
  if (c->nhosts <= 16) {
    for (int i = 0; i < c->nhosts; i++) cpu_row(f, &c->hosts[i]);
  } else {
    for (int i = 0; i < 4; i++) cpu_row(f, &c->hosts[i]);
    fprintf(f, "  (%d more hosts: see --json)\n", c->nhosts - 8);
    for (int i = c->nhosts - 4; i < c->nhosts; i++) cpu_row(f, &c->hosts[i]);
  }
  fprintf(f, "  %-14s %12.6f %12.6f %12.6f\n", "all hosts", app, comm, bg);
}
