/* Picks a trace writer from the output file's name, so commands offer one --trace option. */
#include <stdlib.h>
#include <string.h>

#include "psim/observe.h"

struct obs_trace {
  FILE *f;
  obs_paje *paje;
  obs_chrome *chrome;
  char *path;
};

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

obs_trace *obs_trace_open(const char *path, const platform *plat, const int *rank_host, int np,
                          psim_err *err) {
  int paje = ends_with(path, ".paje") || ends_with(path, ".trace");
  int chrome = ends_with(path, ".json");
  if (!paje && !chrome) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--trace: unknown trace format (name the file *.paje or *.trace "
              "for Paje, *.json for Chrome trace events)");
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (!f) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing"); return NULL; }
  obs_trace *t = xcalloc(1, sizeof *t);
  t->f = f;
  t->path = xstrdup(path);
  if (paje) t->paje = obs_paje_new(f, plat, rank_host, np);
  else t->chrome = obs_chrome_new(f, plat, rank_host, np);
  return t;
}

replay_observer obs_trace_observer(obs_trace *t) {
  return t->paje ? obs_paje_observer(t->paje) : obs_chrome_observer(t->chrome);
}

int obs_trace_close(obs_trace *t, psim_err *err) {
  if (!t) return 0;
  int bad = ferror(t->f) != 0;
  if (fclose(t->f) != 0) bad = 1;
  if (bad) psim_errf(err, PSIM_EXIT_INPUT, t->path, 0, "error while writing the trace (disk full?)");
  obs_paje_free(t->paje);
  obs_chrome_free(t->chrome);
  free(t->path);
  free(t);
  return bad ? -1 : 0;
}
