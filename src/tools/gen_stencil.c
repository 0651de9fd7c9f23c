/* Generator of the 2-D stencil halo-exchange workload (the replay benchmark's trace). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "psim/tools.h"

void gen_stencil_defaults(gen_stencil_opts *o) {
  memset(o, 0, sizeof *o);
  o->px = 8;
  o->py = 8;
  o->iters = 100;
  o->halo_bytes = 16384;
  o->flops = 1e6;
  o->allreduce_bytes = 8;
}

int tools_mkdir_p(const char *dir, psim_err *err) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) < 0 && errno != EEXIST)
      return psim_errf(err, PSIM_EXIT_INPUT, buf, 0, "cannot create directory: %s", strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0777) < 0 && errno != EEXIST)
    return psim_errf(err, PSIM_EXIT_INPUT, buf, 0, "cannot create directory: %s", strerror(errno));
  return 0;
}

/* A small output abstraction over plain, gzip and zstd files. */
typedef struct out {
  FILE *f;
  gzFile gz;
  ZSTD_CCtx *zc;
  char *zbuf;
  size_t zcap;
} out;

static int out_open(out *o, const char *path, int compress, psim_err *err) {
  memset(o, 0, sizeof *o);
  if (compress == 1) {
    o->gz = gzopen(path, "wb6");
    if (!o->gz) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing");
    return 0;
  }
  o->f = fopen(path, "wb");
  if (!o->f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno));
  if (compress == 2) {
    o->zc = ZSTD_createCCtx();
    o->zcap = ZSTD_CStreamOutSize();
    o->zbuf = xmalloc(o->zcap);
  }
  return 0;
}

static void out_zstd(out *o, const char *s, size_t n, ZSTD_EndDirective mode) {
  ZSTD_inBuffer in = {s, n, 0};
  for (;;) {
    ZSTD_outBuffer ob = {o->zbuf, o->zcap, 0};
    size_t left = ZSTD_compressStream2(o->zc, &ob, &in, mode);
    fwrite(o->zbuf, 1, ob.pos, o->f);
    if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
  }
}

static void out_write(out *o, const char *s, size_t n) {
  if (o->gz) gzwrite(o->gz, s, (unsigned)n);
  else if (o->zc) out_zstd(o, s, n, ZSTD_e_continue);
  else fwrite(s, 1, n, o->f);
}

static int out_close(out *o, const char *path, psim_err *err) {
  int bad = 0;
  if (o->gz) bad = gzclose(o->gz) != Z_OK;
  else {
    if (o->zc) {
      out_zstd(o, "", 0, ZSTD_e_end);
      ZSTD_freeCCtx(o->zc);
      free(o->zbuf);
    }
    bad = fclose(o->f) != 0;
  }
  if (bad) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "error while writing (disk full?)");
  return 0;
}

int gen_stencil(const gen_stencil_opts *o, const char *dir, psim_err *err) {
  if (o->px < 1 || o->py < 1 || o->iters < 0)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "stencil: the grid must be at least 1x1 and iterations >= 0");
  if (tools_mkdir_p(dir, err) < 0) return -1;
  int n = o->px * o->py;
  const char *ext = o->compress == 1 ? ".gz" : o->compress == 2 ? ".zst" : "";
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s/list", dir);
  FILE *list = fopen(path, "w");
  if (!list) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open for writing: %s", strerror(errno));
  out sh;
  if (o->shared) {
    snprintf(path, sizeof path, "%s/trace.txt%s", dir, ext);
    if (out_open(&sh, path, o->compress, err) < 0) { fclose(list); return -1; }
    fprintf(list, "trace.txt%s\n", ext);
  }
  /* Per-rank files are written one after the other; a shared file gets rank-grouped lines. */
  for (int r = 0; r < n; r++) {
    out one, *w = &sh;
    char rpath[4096];
    if (!o->shared) {
      snprintf(rpath, sizeof rpath, "%s/rank-%d.txt%s", dir, r, ext);
      if (out_open(&one, rpath, o->compress, err) < 0) { fclose(list); return -1; }
      fprintf(list, "rank-%d.txt%s\n", r, ext);
      w = &one;
    }
    int x = r % o->px, y = r / o->px;
    int nb[4] = {((y + o->py - 1) % o->py) * o->px + x, ((y + 1) % o->py) * o->px + x,
                 y * o->px + (x + o->px - 1) % o->px, y * o->px + (x + 1) % o->px};
    int len = snprintf(line, sizeof line, "%d init\n", r);
    out_write(w, line, (size_t)len);
    for (int it = 0; it < o->iters; it++) {
      for (int d = 0; d < 4; d++) {
        len = snprintf(line, sizeof line, "%d irecv %d 0 %.0f\n", r, nb[d], o->halo_bytes);
        out_write(w, line, (size_t)len);
      }
      for (int d = 0; d < 4; d++) {
        len = snprintf(line, sizeof line, "%d isend %d 0 %.0f\n", r, nb[d], o->halo_bytes);
        out_write(w, line, (size_t)len);
      }
      len = snprintf(line, sizeof line, "%d waitall\n%d compute %g\n", r, r, o->flops);
      out_write(w, line, (size_t)len);
      if (o->allreduce_bytes > 0) {
        len = snprintf(line, sizeof line, "%d allreduce %.0f 0\n", r, o->allreduce_bytes);
        out_write(w, line, (size_t)len);
      }
    }
    len = snprintf(line, sizeof line, "%d finalize\n", r);
    out_write(w, line, (size_t)len);
    if (!o->shared && out_close(&one, rpath, err) < 0) { fclose(list); return -1; }
  }
  if (o->shared && out_close(&sh, path, err) < 0) { fclose(list); return -1; }
  if (fclose(list) != 0) return psim_errf(err, PSIM_EXIT_INPUT, dir, 0, "cannot write the list file");
  return 0;
}
