/* The situation file of `psim balance` (format in include/psim/adapt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/adapt.h"

typedef struct pe_line { int id; double bg, speed; long line; } pe_line;
typedef struct vp_line { int id, pe; double load, bytes; long line; } vp_line;

static int num(const char *path, long ln, const char *tok, double *x, psim_err *err) {
  char *end;
  *x = 0;   /* callers read it only on success; set so -O3's flow analysis sees it set */
  if (!tok) return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "missing number");
  *x = strtod(tok, &end);
  if (end == tok || *end) return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "'%s' is not a number", tok);
  return 0;
}

static int inum(const char *path, long ln, const char *tok, int *x, psim_err *err) {
  double d;
  if (num(path, ln, tok, &d, err) < 0) return -1;
  if (d < 0 || d != (double)(int)d) return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "'%s' is not a non-negative integer", tok);
  *x = (int)d;
  return 0;
}

/* Expects the keyword `kw` at tokens[i]. */
static int want(const char *path, long ln, char **t, int n, int i, const char *kw, psim_err *err) {
  if (i >= n || strcmp(t[i], kw))
    return psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected '%s'%s%s", kw, i < n ? ", got " : " at the end of the line", i < n ? t[i] : "");
  return 0;
}

int lb_input_read(const char *path, lb_input *in, psim_err *err) {
  memset(in, 0, sizeof *in);
  lb_situation_init(&in->s);
  FILE *f = fopen(path, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open: %s", strerror(errno));
  VEC(pe_line) pes = {0};
  VEC(vp_line) vps = {0};
  char buf[4096];
  long ln = 0;
  int rc = -1;
  while (fgets(buf, sizeof buf, f)) {
    ln++;
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    char *t[16];
    int n = 0;
    for (char *tok = strtok(buf, " \t\r\n"); tok && n < 16; tok = strtok(NULL, " \t\r\n")) t[n++] = tok;
    if (!n) continue;
    if (!strcmp(t[0], "pe")) {
      pe_line p = {0, 0, 1, ln};
      if (n != 4 && n != 6) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected 'pe ID bg LOAD [speed S]'"); goto out; }
      if (inum(path, ln, t[1], &p.id, err) < 0 || want(path, ln, t, n, 2, "bg", err) < 0 ||
          num(path, ln, t[3], &p.bg, err) < 0) goto out;
      if (n == 6 && (want(path, ln, t, n, 4, "speed", err) < 0 || num(path, ln, t[5], &p.speed, err) < 0)) goto out;
      if (p.bg < 0 || !(p.speed > 0)) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "bg must be >= 0 and speed > 0"); goto out; }
      VEC_PUSH(pes, p);
    } else if (!strcmp(t[0], "vp")) {
      vp_line v = {0, 0, 0, 0, ln};
      if (n != 6 && n != 8) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected 'vp ID load W pe P [bytes B]'"); goto out; }
      if (inum(path, ln, t[1], &v.id, err) < 0 || want(path, ln, t, n, 2, "load", err) < 0 ||
          num(path, ln, t[3], &v.load, err) < 0 || want(path, ln, t, n, 4, "pe", err) < 0 ||
          inum(path, ln, t[5], &v.pe, err) < 0) goto out;
      if (n == 8 && (want(path, ln, t, n, 6, "bytes", err) < 0 || num(path, ln, t[7], &v.bytes, err) < 0)) goto out;
      if (v.load < 0) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "a load must be >= 0"); goto out; }
      VEC_PUSH(vps, v);
    } else if (!strcmp(t[0], "comm")) {
      lb_edge e;
      if (n != 7) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected 'comm VP_A VP_B msgs M bytes B'"); goto out; }
      if (inum(path, ln, t[1], &e.a, err) < 0 || inum(path, ln, t[2], &e.b, err) < 0 ||
          want(path, ln, t, n, 3, "msgs", err) < 0 || num(path, ln, t[4], &e.msgs, err) < 0 ||
          want(path, ln, t, n, 5, "bytes", err) < 0 || num(path, ln, t[6], &e.bytes, err) < 0) goto out;
      VEC_PUSH(in->edges, e);   /* VP ranges are checked once every vp line is read */
    } else if (!strcmp(t[0], "alpha") || !strcmp(t[0], "beta") || !strcmp(t[0], "seed")) {
      double x;
      if (n != 2) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "expected '%s VALUE'", t[0]); goto out; }
      if (num(path, ln, t[1], &x, err) < 0) goto out;
      if (x < 0) { psim_errf(err, PSIM_EXIT_INPUT, path, ln, "%s must be >= 0", t[0]); goto out; }
      if (t[0][0] == 'a') in->s.alpha = x;
      else if (t[0][0] == 'b') in->s.beta = x;
      else in->s.seed = (uint64_t)x;
    } else {
      psim_errf(err, PSIM_EXIT_INPUT, path, ln, "unknown line '%s' (expected pe, vp, comm, alpha, beta or seed)", t[0]);
      goto out;
    }
  }
  if (!pes.len) { psim_errf(err, PSIM_EXIT_INPUT, path, 0, "no 'pe' line"); goto out; }
  int npe = (int)pes.len, nvp = (int)vps.len;
  in->bg = xcalloc((size_t)npe, sizeof *in->bg);
  in->speed = xcalloc((size_t)npe, sizeof *in->speed);
  char *seen = xcalloc((size_t)npe + (size_t)nvp + 1, 1);
  for (int i = 0; i < npe; i++) {
    const pe_line *p = &pes.data[i];
    if (p->id >= npe || seen[p->id]) {
      psim_errf(err, PSIM_EXIT_INPUT, path, p->line, "PE %d: ids must be 0..%d, each given once", p->id, npe - 1);
      free(seen); goto out;
    }
    seen[p->id] = 1;
    in->bg[p->id] = p->bg;
    in->speed[p->id] = p->speed;
  }
  memset(seen, 0, (size_t)npe + (size_t)nvp + 1);
  in->load = xcalloc((size_t)nvp + 1, sizeof *in->load);
  in->vp_bytes = xcalloc((size_t)nvp + 1, sizeof *in->vp_bytes);
  in->pe = xcalloc((size_t)nvp + 1, sizeof *in->pe);
  for (int i = 0; i < nvp; i++) {
    const vp_line *v = &vps.data[i];
    if (v->id >= nvp || seen[v->id]) {
      psim_errf(err, PSIM_EXIT_INPUT, path, v->line, "VP %d: ids must be 0..%d, each given once", v->id, nvp - 1);
      free(seen); goto out;
    }
    if (v->pe >= npe) {
      psim_errf(err, PSIM_EXIT_INPUT, path, v->line, "VP %d is on PE %d, but PEs are 0..%d", v->id, v->pe, npe - 1);
      free(seen); goto out;
    }
    seen[v->id] = 1;
    in->load[v->id] = v->load;
    in->pe[v->id] = v->pe;
    in->vp_bytes[v->id] = v->bytes;
  }
  free(seen);
  for (size_t i = 0; i < in->edges.len; i++)
    if (in->edges.data[i].a >= nvp || in->edges.data[i].b >= nvp) {
      psim_errf(err, PSIM_EXIT_INPUT, path, 0, "comm %d %d: VPs are 0..%d", in->edges.data[i].a, in->edges.data[i].b, nvp - 1);
      goto out;
    }
  in->s.npe = npe;
  in->s.nvp = nvp;
  in->s.pe_bg = in->bg;
  in->s.pe_speed = in->speed;
  in->s.vp_load = in->load;
  in->s.vp_pe = in->pe;
  in->s.edges = in->edges.data;
  in->s.nedges = (int)in->edges.len;
  rc = 0;
out:
  fclose(f);
  VEC_FREE(pes);
  VEC_FREE(vps);
  if (rc < 0) lb_input_free(in);
  return rc;
}

void lb_input_free(lb_input *in) {
  free(in->bg);
  free(in->speed);
  free(in->load);
  free(in->vp_bytes);
  free(in->pe);
  VEC_FREE(in->edges);
  memset(in, 0, sizeof *in);
}
