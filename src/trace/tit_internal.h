/* Internals of the TIT trace reader (src/trace/), shared by its three files:
 *   tit_io.c      byte streams: buffered plain files read with pread, gzip/zstd streaming
 *                 decompression, and the LRU that bounds open files and buffers;
 *   tit_parse.c   one line (without its rank field) -> one tit_action;
 *   tit_source.c  layouts (shared file, per-rank files, list file, directory) and cursors.
 * Nothing here is global: every piece of state hangs off a tit_source. */
#ifndef PSIM_TIT_INTERNAL_H
#define PSIM_TIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "psim/trace.h"

/* ---------------------------------------------------------------- tit_io.c */

enum { TIT_COMP_UNKNOWN = 0, TIT_COMP_NONE, TIT_COMP_GZIP, TIT_COMP_ZSTD };

#define TIT_IO_BUFSIZE ((size_t)64 * 1024)
/* A line longer than this is an error rather than an unbounded allocation. */
#define TIT_IO_MAXLINE ((size_t)64 * 1024 * 1024)
#define TIT_IO_NOEND UINT64_MAX
/* A mapped shared trace keeps about TIT_MAP_KEEP_BLOCKS x TIT_MAP_BLOCK bytes resident
 * (tit_io.c, map_use) */
#define TIT_MAP_BLOCK ((uint64_t)64 * 1024)
#define TIT_MAP_KEEP_BLOCKS 256

struct tit_slot;

/* The persistent, small part of one sequential reader: what survives when its buffer and file
 * descriptor are taken back by the LRU. `off` is the stream offset (in decompressed bytes) of
 * the next byte the reader has not consumed; reading stops at `end`. */
typedef struct tit_stream {
  const char *path;        /* file to open (owned by the source) */
  uint64_t off, end;
  struct tit_slot *slot;   /* NULL while inactive */
  uint8_t comp;            /* TIT_COMP_*, learnt at the first activation */
  uint8_t use_shared_fd;   /* read the io's shared fd instead of opening path */
} tit_stream;

/* Active readers: at most `cap` slots exist, each holding a buffer and, for per-rank files,
 * an open file (and a decompressor for compressed ones). Least recently used first to go. */
typedef struct tit_io {
  struct tit_slot *head, *tail; /* LRU list, head = most recent */
  struct tit_slot *free_slots;  /* released slots kept for their buffers */
  int nslots, cap;
  int shared_fd;                /* the shared trace (or its decompressed copy), -1 if none */
  const char *shared_map;       /* shared_fd mapped (tit_io_map_shared), else NULL */
  uint64_t shared_size;
  /* shared_map's blocks of TIT_MAP_BLOCK bytes read since its pages were last given back
   * (tit_io.c, map_use): one bit each, their count, and the refills since; the count allowed
   * (TIT_MAP_KEEP_BLOCKS; tests set fewer); how many times the pages were given back, and
   * how many refills read instead of copying */
  uint64_t *map_read;
  size_t map_nread, map_keep;
  uint64_t map_copies, map_drops, map_preads;
  size_t chunk;                 /* bytes per read: smaller when slots get reclaimed, since a
                                   reclaimed buffer's unread bytes are wasted */
  int lru;                      /* keep the LRU order on every read (1, the default); 0 when
                                   the caller has no more streams than cap, so that no slot is
                                   ever reclaimed and the order does not matter */
} tit_io;

/* One active reader: a buffer and, for per-rank files, an open file and a decompressor. */
typedef struct tit_slot {
  tit_stream *owner;
  struct tit_slot *prev, *next;
  int fd, own_fd;
  char *buf;
  size_t pos, len, cap;   /* buf[pos] is at stream offset owner->off */
  uint64_t rd_off;        /* plain: file offset of the byte after buf[len-1] */
  int eof;                /* no more bytes after buf[len-1] */
  int comp;
  const char *map;        /* the io's shared_map when it reads the shared fd: copied from, not read */
  uint64_t map_size;
  void *z;                /* z_stream* or ZSTD_DStream* */
  unsigned char *zin;
  size_t zin_pos, zin_len;
  int zin_eof;
  int z_ended;            /* gzip: the last member ended cleanly; zstd: the last frame did */
  uint64_t skip;          /* decompressed bytes still to discard (reopened stream) */
} tit_slot;

static inline void lru_unlink(tit_io *io, tit_slot *s) {
  if (s->prev) s->prev->next = s->next; else io->head = s->next;
  if (s->next) s->next->prev = s->prev; else io->tail = s->prev;
  s->prev = s->next = NULL;
}

static inline void lru_push_front(tit_io *io, tit_slot *s) {
  s->prev = NULL;
  s->next = io->head;
  if (io->head) io->head->prev = s; else io->tail = s;
  io->head = s;
}

void tit_io_init(tit_io *io, int cap);
void tit_io_fini(tit_io *io);
/* Reads the next line of st (without its '\n'); the pointer is valid until the next call on
 * any stream of io (another stream's activation may steal the buffer when streams > cap).
 * Returns 1, 0 at the end, -1 with err naming `name` on an I/O or decompression error. */
int tit_io_line(tit_io *io, tit_stream *st, const char *name, const char **line, size_t *len,
                psim_err *err);

/* tit_io_line, with the common case inline: st is active and its buffer holds the whole line. */
static inline int tit_io_line_fast(tit_io *io, tit_stream *st, const char *name, const char **line,
                                   size_t *len, psim_err *err) {
  tit_slot *s = st->slot;
  if (s && st->off < st->end) {
    size_t avail = s->len - s->pos;
    uint64_t lim = st->end - st->off;
    if (avail > lim) avail = (size_t)lim;
    char *p = s->buf + s->pos;
    char *nl = avail ? memchr(p, '\n', avail) : NULL;
    if (nl) {
      if (io->lru && io->head != s) {
        lru_unlink(io, s);
        lru_push_front(io, s);
      }
      size_t n = (size_t)(nl - p);
      *line = p;
      *len = n;
      s->pos += n + 1;
      st->off += n + 1;
      return 1;
    }
  }
  return tit_io_line(io, st, name, line, len, err);
}
/* Repositions st at [off, end) (plain streams only); keeps buffered bytes when they cover off. */
void tit_io_seek(tit_io *io, tit_stream *st, uint64_t off, uint64_t end);
/* Maps io->shared_fd, when it can be: its streams then copy their bytes from the mapping
 * instead of reading them (no system call per refill). */
void tit_io_map_shared(tit_io *io, const char *name);
/* What a replay says of a shared trace made shorter while it read it (the SIGBUS handler's
 * line and the reader's error, tit_io.c and tit_source.c, after "psim: FILE: "). */
#define TIT_SHRUNK_MSG \
  "the trace file became shorter while psim read it (truncated or rewritten by another program); a trace must " \
  "not change during its replay"
/* Whether the mapped shared file is now shorter than its mapping (another program cut it). */
int tit_io_shrunk(const tit_io *io);
/* Gives st's slot back (closing its file): for streams that reached their end. */
void tit_io_release(tit_io *io, tit_stream *st);
/* Compression of the file behind fd, from its first bytes (reads with pread at 0). */
int tit_io_detect(int fd);
/* Decompresses path into an unlinked temporary file and returns its fd, or -1 with err. */
int tit_io_spill(const char *path, int comp, psim_err *err);
/* Default number of slots: bounded by RLIMIT_NOFILE so that the process keeps spare fds. */
int tit_io_default_cap(void);

/* ---------------------------------------------------------------- tit_parse.c */

/* What a rank's parser remembers between lines. */
typedef struct tit_rank_state {
  uint8_t dt_size;         /* default datatype size: 1 (MPI_BYTE; 0 = no init yet, same) or 8
                            (MPI_DOUBLE after `init x`) */
  int ncounts;             /* capacity of counts (2 x nranks when allocated) */
  double *counts;          /* v-collective arrays, freed when a line does not need them */
} tit_rank_state;

/* Parses the text of one line after its rank field: [p, e) trimmed, non-empty. Fills a
 * (kind, fields, text) and returns 0, or -1 with err about file:line. */
int tit_parse_action(const char *p, const char *e, int nranks, tit_rank_state *rs, tit_action *a,
                     const char *file, long line, psim_err *err);
void tit_rank_state_free(tit_rank_state *rs);

/* A field for an error message: its first TIT_SHOW_MAX bytes, with control bytes, bytes
 * beyond ASCII and the backslash written \xNN (a NUL would cut the message short and make it
 * lie about the field; raw binary garbles the terminal). buf holds TIT_SHOW_BUF bytes; returns
 * buf. */
#define TIT_SHOW_MAX 64
#define TIT_SHOW_BUF (4 * TIT_SHOW_MAX + 1)
const char *tit_show(const char *s, const char *se, char *buf);
/* Whether [s, se) holds a control byte other than a tab: not text (a binary file, or a
 * compression psim does not read). */
int tit_is_binary(const char *s, const char *se);

/* Parses a rank field [p, e): decimal digits with an optional '-'. Returns 0 or -1. */
int tit_parse_rank(const char *p, const char *e, long *out);

static inline int tit_is_blank(char c) { return c == ' ' || c == '\t'; }

#endif
