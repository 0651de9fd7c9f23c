/* Trace layouts and per-rank cursors (see include/psim/trace.h).
 *
 * Shared file: one indexing pass records, for each rank, "runs": byte ranges of the file in
 * which its lines lie, with the line number where each starts. A run absorbs a later line of
 * the same rank when the bytes in between (other ranks' lines) are few, so a rank-grouped file
 * costs one run per rank and an interleaved one at most one run per line; other ranks' lines
 * inside a run are skipped on reading. Cursors then pread their runs from one shared fd, so
 * memory is O(ranks + runs), never O(lines), unlike SimGrid which queues other ranks' lines.
 * A compressed shared file is first decompressed into an unlinked temporary file.
 *
 * Per-rank files: each cursor streams its own file through the io LRU (tit_io.c).
 *
 * When there are more cursors than io slots, a cursor's buffer may be reclaimed while the
 * caller still holds its last action, so lines are then copied into per-cursor storage (the
 * contract: an action stays valid until the next tit_next for the same rank). */
#include "tit_internal.h"
#include "trace_foreign.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TIT_MAX_RANKS (1L << 24)   /* 16 M ranks (issue 38 asks for 10 M) */
/* Other ranks' bytes a run may span rather than starting a new run (32 bytes of memory). */
#define RUN_GAP 512

typedef struct tit_run {
  uint64_t start, end;
  long line;      /* number of the line at start */
  int32_t next;   /* next run of the same rank, -1 */
} tit_run;

typedef struct tit_cursor {
  tit_stream st;
  long line;         /* number of the last line read */
  int32_t run;       /* shared file: 1 + index of the current run, 0 when none is left */
  uint8_t done;
  uint8_t seen;      /* per-rank file: its first action line was read (and was this rank's) */
  tit_rank_state rs;
} tit_cursor;

/* A rank's copy of its last line, when lines must outlive the io buffer (tit_source.copies:
 * not in the cursor, since a reader that borrows its lines, as psim replay's, has none;
 * issue 38: 72 bytes a cursor, not 88). */
typedef struct line_copy {
  char *p;
  uint32_t cap;
} line_copy;

struct tit_source {
  int nranks;
  int shared;
  int copy_lines;
  long skipped;        /* lines for another rank found in per-rank files */
  int present;         /* ranks that have lines (shared file; per-rank files: nranks) */
  int first_missing;   /* the first rank without lines, -1 when none */
  tit_io io;
  tit_cursor *cur;
  line_copy *copies;   /* per rank, allocated at the first copy (copy_lines), else NULL */
  char **paths;        /* owned: per-rank files, or [0] = the shared file */
  int npaths;
  tit_run *runs;
  size_t nruns;
  /* Shared file: each rank's first run (-1: none), for nfirst ranks; a cursor is set up at
   * its rank's first read, so that a process of psim replay over MPI, which reads only its
   * own ranks, never touches the other ranks' cursors (72 bytes each). */
  int32_t *first;
  long nfirst;
  const char *format;  /* "TIT", or the foreign format the trace was converted from */
};

static const char *trim(const char *p, const char *e, const char **pe) {
  while (p < e && (tit_is_blank(*p) || *p == '\r')) p++;
  while (e > p && (tit_is_blank(e[-1]) || e[-1] == '\r')) e--;
  *pe = e;
  return p;
}

static const char *field_end(const char *p, const char *e) {
  while (p < e && !tit_is_blank(*p)) p++;
  return p;
}

static int bad_rank_field(psim_err *err, const char *file, long line, const char *p,
                          const char *e) {
  char shown[TIT_SHOW_BUF];
  return psim_errf(err, PSIM_EXIT_INPUT, file, line,
                   "expected a rank number as the first field, got '%s'%s", tit_show(p, e, shown),
                   tit_is_binary(p, e) ? " (binary data: expected a text trace, plain or compressed "
                                         "with gzip or zstd)"
                                       : "");
}

static int rank_out_of_range(psim_err *err, const char *file, long line, long r, int nranks) {
  return psim_errf(err, PSIM_EXIT_INPUT, file, line,
                   "rank %ld out of range, expected 0..%d (%d ranks)", r, nranks - 1, nranks);
}

/* ------------------------------------------------------------------ opening */

static int is_readable_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode) && access(p, R_OK) == 0;
}

static char *join(const char *dir, const char *name, size_t n) {
  size_t d = strlen(dir);
  char *r = xmalloc(d + n + 2);
  memcpy(r, dir, d);
  r[d] = '/';
  memcpy(r + d + 1, name, n);
  r[d + n + 1] = 0;
  return r;
}

static char *dir_of(const char *path) {
  const char *sl = strrchr(path, '/');
  if (!sl) return xstrdup(".");
  if (sl == path) return xstrdup("/");
  return xstrndup(path, (size_t)(sl - path));
}

/* A list entry names a file relative to the current directory (as SimGrid opens it) or to
 * the list's directory; a directory written by `psim gen` prefers its own files. */
static char *resolve(const char *entry, size_t n, const char *dir, int dir_first) {
  char *plain = xstrndup(entry, n);
  if (plain[0] == '/') {
    if (is_readable_file(plain)) return plain;
    free(plain);
    return NULL;
  }
  char *rel = join(dir, entry, n);
  char *first = dir_first ? rel : plain, *second = dir_first ? plain : rel;
  if (is_readable_file(first)) {
    free(second);
    return first;
  }
  if (is_readable_file(second)) {
    free(first);
    return second;
  }
  free(plain);
  free(rel);
  return NULL;
}

/* Whether path is a list file: not compressed, and its first non-empty line names a file. */
static int looks_like_list(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int result = 0;
  if (tit_io_detect(fd) == TIT_COMP_NONE) {
    char buf[4096];
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    const char *p = buf, *e = buf + (n > 0 ? n : 0);
    while (p < e) {
      const char *nl = memchr(p, '\n', (size_t)(e - p));
      const char *le = nl ? nl : e, *te;
      const char *t = trim(p, le, &te);
      if (t < te) {
        if (nl || n < (ssize_t)sizeof buf) {
          char *dir = dir_of(path);
          char *r = resolve(t, (size_t)(te - t), dir, 0);
          result = r != NULL;
          free(r);
          free(dir);
        }
        break;
      }
      p = le + 1;
    }
  }
  close(fd);
  return result;
}

/* Reads the list file's entries into *out (resolved paths). */
static int read_list(const char *list, int dir_first, char ***out, int *nout, psim_err *err) {
  tit_io io;
  tit_io_init(&io, 1);
  tit_stream st = {.path = list, .end = TIT_IO_NOEND};
  char *dir = dir_of(list);
  VEC(char *) v = {0};
  const char *l;
  size_t n;
  long lineno = 0;
  int rc;
  while ((rc = tit_io_line(&io, &st, list, &l, &n, err)) == 1) {
    lineno++;
    const char *e, *t = trim(l, l + n, &e);
    if (t == e) continue;
    if (v.len >= (size_t)TIT_MAX_RANKS) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, list, lineno, "too many trace files (at most %ld)",
                     TIT_MAX_RANKS);
      break;
    }
    char *r = resolve(t, (size_t)(e - t), dir, dir_first);
    if (!r) {
      int len = (int)(e - t);
      if (len > 256) len = 256;
      rc = psim_errf(err, PSIM_EXIT_INPUT, list, lineno,
                     "trace file '%.*s' listed here cannot be read (looked for it from the "
                     "current directory and from %s)",
                     len, t, dir);
      break;
    }
    VEC_PUSH(v, r);
  }
  tit_io_fini(&io);
  free(dir);
  if (rc == 0 && v.len == 0)
    rc = psim_errf(err, PSIM_EXIT_INPUT, list, 0, "the list file names no trace file");
  if (rc < 0) {
    for (size_t i = 0; i < v.len; i++) free(v.data[i]);
    VEC_FREE(v);
    return -1;
  }
  *out = v.data;
  *nout = (int)v.len;
  return 0;
}

/* The list file of a directory: <dir>/list, else its only *.list file. */
static char *dir_list(const char *dir, psim_err *err) {
  char *l = join(dir, "list", 4);
  if (is_readable_file(l)) return l;
  free(l);
  DIR *d = opendir(dir);
  if (!d) {
    psim_errf(err, PSIM_EXIT_INPUT, dir, 0, "cannot read directory: %s", strerror(errno));
    return NULL;
  }
  char *found = NULL;
  int count = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n > 5 && strcmp(de->d_name + n - 5, ".list") == 0) {
      count++;
      free(found);
      found = join(dir, de->d_name, n);
    }
  }
  closedir(d);
  if (count != 1) {
    free(found);
    psim_errf(err, PSIM_EXIT_INPUT, dir, 0,
              count ? "directory holds several *.list files; expected %s/list or one *.list file"
                    : "directory holds no list file; expected %s/list or one *.list file",
              dir);
    return NULL;
  }
  return found;
}

static tit_source *source_new(int nranks) {
  tit_source *s = xcalloc(1, sizeof *s);
  s->nranks = nranks;
  tit_io_init(&s->io, tit_io_default_cap());
  return s;
}

/* All-zero is a valid cursor (no run, default datatype), so the pages of many idle cursors
 * are never touched. */
static void cursors_new(tit_source *s) {
  s->cur = xcalloc((size_t)s->nranks, sizeof *s->cur);
  s->copy_lines = s->nranks > s->io.cap;
  /* Each cursor holds at most one slot: with no more cursors than slots none is ever
   * reclaimed, so reads need not keep the LRU order. */
  s->io.lru = s->copy_lines;
  /* Many concurrent streams: small buffers (4 KiB x ranks), so that every rank can keep its
   * file open instead of reopening it for each line. */
  if (s->copy_lines || s->nranks > 256) s->io.chunk = s->nranks > 16384 ? 1024 : 4096;
}

/* list: the list file that named the files, or "" when they were given one by one. */
static int open_per_rank(tit_source *s, const char *list, psim_err *err) {
  if (s->nranks == 0) s->nranks = s->npaths;
  if (s->nranks != s->npaths)
    return psim_errf(err, PSIM_EXIT_INPUT, list, 0,
                     "the trace has %d ranks (--np %d): %d trace files for %d ranks, expected "
                     "one file per rank",
                     s->npaths, s->nranks, s->npaths, s->nranks);
  for (int i = 0; i < s->npaths; i++) {
    struct stat sb;
    if (stat(s->paths[i], &sb) != 0 || access(s->paths[i], R_OK) != 0)
      return psim_errf(err, PSIM_EXIT_INPUT, s->paths[i], 0,
                       "cannot read the trace file of rank %d: %s", i, strerror(errno));
    if (S_ISDIR(sb.st_mode))
      return psim_errf(err, PSIM_EXIT_INPUT, s->paths[i], 0,
                       "the trace file of rank %d is a directory", i);
  }
  s->present = s->nranks;
  s->first_missing = -1;
  cursors_new(s);
  for (int r = 0; r < s->nranks; r++) {
    s->cur[r].st.path = s->paths[r];
    s->cur[r].st.end = TIT_IO_NOEND;
  }
  return 0;
}

/* After indexing a shared file: how many ranks of the communicator have lines, and the first
 * that has none (first[r] < 0: rank r has none). */
static void count_present(tit_source *s, const int32_t *first, long maxr) {
  s->present = 0;
  s->first_missing = -1;
  for (long r = 0; r < s->nranks; r++) {
    if (r <= maxr && first[r] >= 0) s->present++;
    else if (s->first_missing < 0) s->first_missing = (int)r;
  }
}

/* One pass over the shared file: each rank's runs. */
static int index_shared(tit_source *s, psim_err *err) {
  const char *name = s->paths[0];
  tit_stream st = {.path = name, .end = TIT_IO_NOEND, .use_shared_fd = 1,
                   .comp = TIT_COMP_NONE};
  VEC(tit_run) runs = {0};
  VEC(int32_t) first = {0};
  VEC(int32_t) last = {0};
  long lineno = 0, maxr = -1;
  const long limit = s->nranks ? s->nranks : TIT_MAX_RANKS;
  const char *l;
  size_t n;
  int rc;
  for (;;) {
    uint64_t off0 = st.off;
    rc = tit_io_line(&s->io, &st, name, &l, &n, err);
    if (rc <= 0) break;
    lineno++;
    const char *e, *p = trim(l, l + n, &e);
    if (p == e || *p == '#') continue;
    const char *fe = field_end(p, e);
    long r;
    if (tit_parse_rank(p, fe, &r) < 0) {
      rc = bad_rank_field(err, name, lineno, p, fe);
      break;
    }
    if (r < 0 || r >= limit) {
      if (s->nranks)
        rc = rank_out_of_range(err, name, lineno, r, s->nranks);
      else
        rc = psim_errf(err, PSIM_EXIT_INPUT, name, lineno,
                       "rank %ld out of range, expected 0..%ld", r, TIT_MAX_RANKS - 1);
      break;
    }
    if (r > maxr) {
      VEC_RESERVE(first, (size_t)r + 1);
      VEC_RESERVE(last, (size_t)r + 1);
      for (long i = maxr + 1; i <= r; i++) first.data[i] = last.data[i] = -1;
      first.len = last.len = (size_t)r + 1;
      maxr = r;
    }
    int32_t j = last.data[r];
    if (j >= 0 && off0 - runs.data[j].end <= RUN_GAP) {
      runs.data[j].end = st.off;
    } else {
      if (runs.len >= INT32_MAX) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, name, lineno, "too many interleaved lines");
        break;
      }
      tit_run run = {off0, st.off, lineno, -1};
      VEC_PUSH(runs, run);
      int32_t k = (int32_t)runs.len - 1;
      if (j >= 0) runs.data[j].next = k;
      else first.data[r] = k;
      last.data[r] = k;
    }
  }
  tit_io_release(&s->io, &st);
  VEC_FREE(last);
  if (rc == 0 && s->nranks == 0) {
    if (maxr < 0)
      rc = psim_errf(err, PSIM_EXIT_INPUT, name, 0,
                     "no action found: cannot deduce the number of ranks");
    else
      s->nranks = (int)maxr + 1;
  }
  if (rc == 0) count_present(s, first.data, maxr);
  if (rc < 0) {
    VEC_FREE(runs);
    VEC_FREE(first);
    return -1;
  }
  s->runs = runs.data;
  s->nruns = runs.len;
  cursors_new(s);
  s->first = first.data;
  s->nfirst = maxr + 1 < s->nranks ? maxr + 1 : s->nranks;
  return 0;
}

/* A shared file's cursor at its rank's first run, at its first read. */
static void cursor_start(tit_source *s, int r, tit_cursor *c) {
  if (r >= s->nfirst || s->first[r] < 0) return;   /* no line: stays empty */
  c->st.path = s->paths[0];
  c->st.use_shared_fd = 1;
  c->st.comp = TIT_COMP_NONE;
  c->run = s->first[r] + 1;
  const tit_run *ru = &s->runs[s->first[r]];
  tit_io_seek(&s->io, &c->st, ru->start, ru->end);
  c->line = ru->line - 1;
}

static int open_shared(tit_source *s, psim_err *err) {
  const char *name = s->paths[0];
  int fd = open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "cannot open trace file: %s", strerror(errno));
  int comp = tit_io_detect(fd);
  if (comp != TIT_COMP_NONE) {
    close(fd);
    fd = tit_io_spill(name, comp, err);
    if (fd < 0) return -1;
  }
  s->io.shared_fd = fd;
  if (index_shared(s, err) < 0) return -1;
  /* More cursors than slots: refills from a mapping (tit_io_map_shared), not reads. After the
   * index pass, which reads in large blocks anyway. */
  if (s->copy_lines) tit_io_map_shared(&s->io, name);
  return 0;
}

/* --compute-counter and --compute-scale say how another tool's trace measures its compute.
 * A TIT trace's compute volumes are flops already, and a counter it cannot have: the options
 * would do nothing, so they are refused rather than ignored (the platform's speeds are what
 * scale a TIT trace's computations). */
static int refuse_compute_options(const char *path, psim_err *err) {
  const char *opt = tit_compute_counter() ? "--compute-counter" : tit_compute_scale() != 1 ? "--compute-scale" : NULL;
  if (!opt) return 0;
  return psim_errf(err, PSIM_EXIT_USAGE, path, 0, "%s applies to other tools' traces (Paraver, Dimemas, DUMPI, "
                   "OTF2%s); this is a SimGrid TIT trace, whose compute volumes are flops already (scale them "
                   "with the platform's host speeds)", opt, tit_compute_counter() ? ": counters from Paraver only" : "");
}

/* A trace in another tool's format: read whole (trace_foreign.c), written as TIT into an
 * unlinked temporary file, and indexed as a shared file. Its warnings (what the trace does not
 * record) are printed once here, so that every command replaying it says them. */
static int open_foreign(tit_source *s, const char *path, fx_format f, psim_err *err) {
  fx_trace t;
  if (fx_read(path, f, &t, err) < 0) return -1;
  s->format = t.format;
  if (s->nranks && s->nranks != t.nranks) {
    int n = t.nranks;
    fx_free(&t);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "the %s trace has %d ranks, not %d (--np)", s->format, n,
                     s->nranks);
  }
  for (size_t i = 0; i < t.warnings.len; i++)
    fprintf(stderr, "psim: %s: warning: %s\n", path, t.warnings.data[i]);
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char tmpl[1024];
  snprintf(tmpl, sizeof tmpl, "%s/psim-conv-XXXXXX", dir);
  int fd = mkstemp(tmpl);
  FILE *out = fd >= 0 ? fdopen(fd, "w+") : NULL;
  if (!out) {
    if (fd >= 0) close(fd);
    fx_free(&t);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot create a temporary file in %s to convert the %s trace into: %s",
                     dir, s->format, strerror(errno));
  }
  unlink(tmpl);   /* lives as long as its descriptor */
  int rc = fx_write_tit(&t, out, -1, tit_ref_speed());
  fx_free(&t);
  if (fflush(out) != 0 || rc < 0) {
    fclose(out);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot write the converted trace to %s (disk full?)", dir);
  }
  s->io.shared_fd = dup(fd);
  fclose(out);
  if (s->io.shared_fd < 0) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "dup: %s", strerror(errno));
  s->paths = xcalloc(1, sizeof *s->paths);
  s->paths[0] = xstrdup(path);
  s->npaths = 1;
  s->shared = 1;
  return index_shared(s, err);
}

tit_source *tit_open(const char *const *paths, int npaths, int nranks, psim_err *err) {
  if (!paths || npaths <= 0) {
    psim_errf(err, PSIM_EXIT_INPUT, "", 0, "no trace file given");
    return NULL;
  }
  if (nranks < 0 || nranks > TIT_MAX_RANKS) {
    psim_errf(err, PSIM_EXIT_INPUT, "", 0, "invalid number of ranks %d (expected 1..%ld)",
              nranks, TIT_MAX_RANKS);
    return NULL;
  }
  tit_source *s = source_new(nranks);
  int rc;
  if (npaths > 1) {
    s->paths = xcalloc((size_t)npaths, sizeof *s->paths);
    s->npaths = npaths;
    for (int i = 0; i < npaths; i++) s->paths[i] = xstrdup(paths[i] ? paths[i] : "");
    rc = refuse_compute_options(s->paths[0], err);
    if (rc == 0) rc = open_per_rank(s, "", err);
  } else {
    const char *p = paths[0] ? paths[0] : "";
    struct stat sb;
    char *list = NULL;
    int dir_first = 0;
    if (stat(p, &sb) != 0) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, p, 0, "cannot open trace: %s", strerror(errno));
    } else if (S_ISDIR(sb.st_mode)) {
      /* a directory holding one DUMPI .meta or OTF2 anchor is that trace */
      fx_format f;
      char *anchor = fx_detect_dir(p, &f);
      if (anchor) {
        rc = open_foreign(s, anchor, f, err);
        free(anchor);
        if (rc < 0) { tit_close(s); return NULL; }
        return s;
      }
      list = dir_list(p, err);
      dir_first = 1;
      rc = list ? 0 : -1;
    } else if (access(p, R_OK) != 0) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, p, 0, "cannot read trace: %s", strerror(errno));
    } else {
      rc = 0;
      fx_format f = fx_detect(p);
      if (f != FX_NONE) {
        rc = open_foreign(s, p, f, err);
        if (rc < 0) { tit_close(s); return NULL; }
        return s;
      }
      if (looks_like_list(p)) list = xstrdup(p);
    }
    if (rc == 0) rc = refuse_compute_options(p, err);
    if (rc == 0 && list) {
      rc = read_list(list, dir_first, &s->paths, &s->npaths, err);
    } else if (rc == 0) {
      s->paths = xcalloc(1, sizeof *s->paths);
      s->paths[0] = xstrdup(p);
      s->npaths = 1;
    }
    if (rc == 0) rc = s->npaths == 1 ? open_shared(s, err) : open_per_rank(s, list ? list : "", err);
    free(list);
    s->shared = s->npaths == 1;
  }
  if (rc < 0) {
    tit_close(s);
    return NULL;
  }
  return s;
}

int tit_nranks(const tit_source *s) { return s->nranks; }

void tit_borrow_lines(tit_source *s) {
  s->copy_lines = 0;
  if (s->copies)
    for (int r = 0; r < s->nranks; r++) free(s->copies[r].p);
  free(s->copies);
  s->copies = NULL;
}

const char *tit_format(const tit_source *s) { return s->format ? s->format : "TIT"; }

int tit_ranks_present(const tit_source *s, int *first_missing) {
  if (first_missing) *first_missing = s->first_missing;
  return s->present;
}

long tit_skipped_lines(const tit_source *s) { return s->skipped; }

void tit_close(tit_source *s) {
  if (!s) return;
  tit_io_fini(&s->io);
  if (s->cur) {
    for (int r = 0; r < s->nranks; r++) tit_rank_state_free(&s->cur[r].rs);
    free(s->cur);
  }
  if (s->copies)
    for (int r = 0; r < s->nranks; r++) free(s->copies[r].p);
  free(s->copies);
  for (int i = 0; i < s->npaths; i++) free(s->paths[i]);
  free(s->paths);
  free(s->runs);
  free(s->first);
  free(s);
}

/* ------------------------------------------------------------------ reading */

/* A per-rank file whose first action belongs to another rank: the files were given out of
 * order (typically ti_trace*.txt expanded by the shell: ti_trace10 before ti_trace2). */
static int wrong_order(const tit_source *s, int r, long lr, const char *file, long line,
                       psim_err *err) {
  return psim_errf(err, PSIM_EXIT_INPUT, file, line,
                   "this file holds the lines of rank %ld, but was given for rank %d (position "
                   "%d of %d): give the per-rank files in rank order (this one in position %ld; "
                   "e.g. sort them with 'ls -v'), or a list file",
                   lr, r, r + 1, s->nranks, lr + 1);
}

/* Moves a shared-file cursor to its next run; 0 when it has none. */
static int next_run(tit_source *s, tit_cursor *c) {
  if (c->run == 0) return 0;
  c->run = s->runs[c->run - 1].next + 1;
  if (c->run == 0) return 0;
  const tit_run *ru = &s->runs[c->run - 1];
  tit_io_seek(&s->io, &c->st, ru->start, ru->end);
  c->line = ru->line - 1;
  return 1;
}

static int next_action(tit_source *s, int r, tit_action *a, psim_err *err);

/* A mapped trace made shorter under the replay reads as zeros up to the end of its last page
 * (SIGBUS beyond it, tit_io.c): whatever the parser then said about them, that is the error. */
int tit_next(tit_source *s, int r, tit_action *a, psim_err *err) {
  int rc = next_action(s, r, a, err);
  if (rc < 0 && tit_io_shrunk(&s->io)) {
    psim_err_clear(err);   /* psim_errf keeps a first error: this one replaces it */
    return psim_errf(err, PSIM_EXIT_INPUT, s->paths[0], 0, "%s", TIT_SHRUNK_MSG);
  }
  return rc;
}

static int next_action(tit_source *s, int r, tit_action *a, psim_err *err) {
  if (r < 0 || r >= s->nranks)
    return psim_errf(err, PSIM_EXIT_INPUT, "", 0, "tit_next: rank %d out of range 0..%d", r,
                     s->nranks - 1);
  tit_cursor *c = &s->cur[r];
  if (c->done) return 0;
  if (s->first && !c->st.path && !c->run) cursor_start(s, r, c);
  const char *l, *file = c->st.path;
  size_t n;
  for (;;) {
    int rc = tit_io_line_fast(&s->io, &c->st, file, &l, &n, err);
    if (rc < 0) {
      c->done = 1;
      tit_io_release(&s->io, &c->st);
      return -1;
    }
    if (rc == 0) {
      if (s->shared && next_run(s, c)) continue;
      c->done = 1;
      tit_io_release(&s->io, &c->st);
      if (!s->shared && !c->seen)
        return psim_errf(err, PSIM_EXIT_INPUT, file, 0,
                         "no action in the trace file of rank %d (file %d of %d): every rank "
                         "needs at least one action",
                         r, r + 1, s->nranks);
      return 0;
    }
    c->line++;
    const char *p = l, *e = l + n;
    while (e > p && (tit_is_blank(e[-1]) || e[-1] == '\r')) e--;
    while (p < e && (tit_is_blank(*p) || *p == '\r')) p++;
    if (p == e || *p == '#') continue;
    /* The rank field, read while finding its end: plain digits (at most 10, as
     * tit_parse_rank accepts) ending the line or followed by a blank. */
    const char *fe = p;
    long lr = 0;
    while (fe < e && fe - p < 10 && (unsigned)(*fe - '0') < 10) lr = lr * 10 + (*fe++ - '0');
    if (fe == p || (fe < e && !tit_is_blank(*fe))) {
      fe = field_end(p, e);
      if (tit_parse_rank(p, fe, &lr) < 0) return bad_rank_field(err, file, c->line, p, fe);
    }
    if (lr != r) {
      if (s->shared) continue; /* another rank's line inside this rank's run */
      if (lr < 0 || lr >= s->nranks) return rank_out_of_range(err, file, c->line, lr, s->nranks);
      if (!c->seen) return wrong_order(s, r, lr, file, c->line, err);
      s->skipped++;
      continue;
    }
    c->seen = 1;
    while (fe < e && tit_is_blank(*fe)) fe++;
    if (s->copy_lines) {
      size_t len = (size_t)(e - fe);
      if (!s->copies) s->copies = xcalloc((size_t)s->nranks, sizeof *s->copies);
      line_copy *lc = &s->copies[r];
      if (!lc->p || len > lc->cap) {
        free(lc->p);
        lc->cap = (uint32_t)(len < 64 ? 64 : len);
        lc->p = xmalloc(lc->cap);
      }
      memcpy(lc->p, fe, len);
      fe = lc->p;
      e = lc->p + len;
    }
    a->rank = r;
    return tit_parse_action(fe, e, s->nranks, &c->rs, a, file, c->line, err) < 0 ? -1 : 1;
  }
}
