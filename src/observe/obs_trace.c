/* Picks a trace writer from the output file's name (or the format the option named), so
 * commands offer one --trace option. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psim/observe.h"

struct obs_trace {
  FILE *f;
  obs_paje *paje;
  obs_chrome *chrome;
  obs_prv *prv;
  obs_otf2 *otf2;
  char *path;
};

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

static obs_trace_format by_name(const char *path) {
  if (ends_with(path, ".paje") || ends_with(path, ".trace")) return OBS_TRACE_PAJE;
  if (ends_with(path, ".json")) return OBS_TRACE_CHROME;
  if (ends_with(path, ".prv")) return OBS_TRACE_PRV;
  if (ends_with(path, ".otf2")) return OBS_TRACE_OTF2;
  return OBS_TRACE_BY_NAME;
}

/* An OTF2 archive's directory and name: --trace-otf2 DIR is DIR/traces.otf2 (Score-P's
 * layout, which psim reads back as DIR), --trace X.otf2 the anchor X.otf2 itself. The
 * directory must be one psim can create or write in: checked now, not after the run. */
static obs_otf2 *open_otf2(const char *path, int named, const platform *plat, const int *rank_host, int np,
                           psim_err *err) {
  char *dir = xstrdup(path), *name;
  if (named) {
    name = xstrdup("traces");
  } else {
    dir[strlen(dir) - 5] = 0;   /* without ".otf2" */
    char *slash = strrchr(dir, '/');
    name = xstrdup(slash ? slash + 1 : dir);
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
  }
  struct stat st;
  char *parent = NULL;
  int ok;
  if (stat(dir, &st) == 0) {
    ok = S_ISDIR(st.st_mode) ? access(dir, W_OK | X_OK) == 0 : (errno = ENOTDIR, 0);
  } else {   /* to be created: its parent must be writable */
    parent = xstrdup(dir);
    char *slash = strrchr(parent, '/');
    if (!slash) strcpy(parent, ".");
    else if (slash == parent) parent[1] = 0;
    else *slash = 0;
    ok = stat(parent, &st) == 0 && (S_ISDIR(st.st_mode) || (errno = ENOTDIR, 0)) && access(parent, W_OK | X_OK) == 0;
  }
  obs_otf2 *w = NULL;
  if (!ok) psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot write an OTF2 archive there: %s", strerror(errno));
  else w = obs_otf2_new(dir, name, plat, rank_host, np, err);
  free(parent);
  free(dir);
  free(name);
  return w;
}

obs_trace *obs_trace_open_as(const char *path, obs_trace_format format, const platform *plat,
                             const int *rank_host, int np, psim_err *err) {
  int named = format != OBS_TRACE_BY_NAME;
  if (!named) format = by_name(path);
  if (format == OBS_TRACE_BY_NAME) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--trace: unknown trace format (name the file *.paje or *.trace "
              "for Paje, *.json for Chrome trace events, *.prv for Paraver, *.otf2 for OTF2)");
    return NULL;
  }
  obs_trace *t = xcalloc(1, sizeof *t);
  t->path = xstrdup(path);
  if (format == OBS_TRACE_OTF2) {
    t->otf2 = open_otf2(path, named, plat, rank_host, np, err);
    if (!t->otf2) { free(t->path); free(t); return NULL; }
    return t;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing");
    free(t->path);
    free(t);
    return NULL;
  }
  t->f = f;
  if (format == OBS_TRACE_PAJE) t->paje = obs_paje_new(f, plat, rank_host, np);
  else if (format == OBS_TRACE_CHROME) t->chrome = obs_chrome_new(f, plat, rank_host, np);
  else t->prv = obs_prv_new(f, path, plat, rank_host, np);
  return t;
}

obs_trace *obs_trace_open(const char *path, const platform *plat, const int *rank_host, int np,
                          psim_err *err) {
  return obs_trace_open_as(path, OBS_TRACE_BY_NAME, plat, rank_host, np, err);
}

replay_observer obs_trace_observer(obs_trace *t) {
  if (t->paje) return obs_paje_observer(t->paje);
  if (t->chrome) return obs_chrome_observer(t->chrome);
  if (t->prv) return obs_prv_observer(t->prv);
  return obs_otf2_observer(t->otf2);
}

int obs_trace_close(obs_trace *t, psim_err *err) {
  if (!t) return 0;
  int bad = 0, side = 0;
  if (t->prv && obs_prv_write(t->prv, err) < 0) side = 1;
  if (t->otf2 && obs_otf2_write(t->otf2, err) < 0) side = 1;
  if (t->f) {
    bad = ferror(t->f) != 0;
    if (fclose(t->f) != 0) bad = 1;
  }
  if (bad && !side) psim_errf(err, PSIM_EXIT_INPUT, t->path, 0, "error while writing the trace (disk full?)");
  obs_paje_free(t->paje);
  obs_chrome_free(t->chrome);
  obs_prv_free(t->prv);
  obs_otf2_free(t->otf2);
  free(t->path);
  free(t);
  return bad || side ? -1 : 0;
}
