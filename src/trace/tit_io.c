/* Byte streams of the trace reader: large-block reads, streaming decompression, and an LRU
 * that bounds how many files and buffers are live at once.
 *
 * Why an LRU of "slots": a replay of 65536 per-rank files must run under `ulimit -n` 1024 and
 * must not hold 65536 x 64 KiB of buffers either. A stream owns a slot (buffer + fd +
 * decompressor) only while it is being read; when all slots are taken the least recently used
 * one is reclaimed and its stream keeps just its offset, to reopen and pread from there later.
 * Plain files are read with pread at the stream's offset, so reopening needs no lseek and a
 * shared file can serve every rank through one fd. A compressed stream that loses its slot is
 * reopened and decompressed again up to its offset (the source avoids that case by spilling
 * compressed files to plain temporary files when there are more streams than slots). */
#include "tit_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define ZIN_SIZE ((size_t)64 * 1024)

/* struct tit_slot is in tit_internal.h (the line fast path reads it). */

void tit_io_init(tit_io *io, int cap) {
  memset(io, 0, sizeof *io);
  io->cap = cap > 0 ? cap : 1;
  io->shared_fd = -1;
  io->chunk = TIT_IO_BUFSIZE;
  io->lru = 1;
}

/* The mapped traces, for the SIGBUS that touching one past its end gives once another program
 * has made it shorter (truncated or rewritten it): the process would die with no word. The
 * handler names the file and exits as on bad input (PSIM_EXIT_INPUT); a fault elsewhere goes
 * to the handler there was before (psim run's crash report) or to the default action. A few
 * guards: one per shared trace alive in the process. */
enum { MAP_GUARDS = 8 };
static struct map_guard {
  const char *base;
  size_t len;
  int n;
  char msg[480];
} guards[MAP_GUARDS];
static struct sigaction bus_before;
static int bus_set;

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
  const char *a = si->si_addr;
  for (int i = 0; i < MAP_GUARDS; i++)
    if (guards[i].base && a >= guards[i].base && a < guards[i].base + guards[i].len) {
      (void)!write(2, guards[i].msg, (size_t)guards[i].n);
      _exit(PSIM_EXIT_INPUT);
    }
  if ((bus_before.sa_flags & SA_SIGINFO) && bus_before.sa_sigaction) {
    bus_before.sa_sigaction(sig, si, uc);
    return;
  }
  if (bus_before.sa_handler != SIG_DFL && bus_before.sa_handler != SIG_IGN) {
    bus_before.sa_handler(sig);
    return;
  }
  sigaction(SIGBUS, &bus_before, NULL);   /* the fault comes again on return, as if never caught */
}

static int guard_map(const char *base, size_t len, const char *name) {
  for (int i = 0; i < MAP_GUARDS; i++) {
    struct map_guard *g = &guards[i];
    if (g->base) continue;
    int n = snprintf(g->msg, sizeof g->msg, "psim: %s: " TIT_SHRUNK_MSG "\n", name ? name : "(the shared trace)");
    g->n = n < 0 ? 0 : n < (int)sizeof g->msg ? n : (int)sizeof g->msg - 1;
    g->len = len;
    g->base = base;
    if (!bus_set) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO;
      sigemptyset(&sa.sa_mask);
      if (sigaction(SIGBUS, &sa, &bus_before) == 0) bus_set = 1;
    }
    return 0;
  }
  return -1;
}

static void unguard_map(const char *base) {
  for (int i = 0; i < MAP_GUARDS; i++)
    if (guards[i].base == base) guards[i].base = NULL;
}

/* The pages of the mapping that the process has read count in its resident set (GNU time's
 * peak), although they are the page cache's, clean and reclaimable: the whole trace, 308 bytes
 * a rank of a 1 M-rank stencil (issue 38, part 3), since the ranks take turns line by line
 * over the whole file. So the copies may read at most io->map_keep (TIT_MAP_KEEP_BLOCKS)
 * blocks of TIT_MAP_BLOCK bytes (64 KiB: the kernel maps a read page's neighbours in the page
 * cache up to that, its fault-around) before the mapping's pages are given back
 * (MADV_DONTNEED: they stay in the page cache; the next copy from one is a minor fault; the
 * bytes read are the file's either way). A trace under 16 MiB is never given back; a larger
 * one keeps about that much resident.
 *
 * When the ranks read in rank order, each block serves thousands of copies before the next
 * one is needed, and giving the pages back costs a fault a block. In a scattered order (a
 * binomial broadcast wakes its ranks across the whole file) nearly every copy would fault,
 * mapping 16 pages to use one: once the blocks are used up after fewer than MAP_SEQ_COPIES
 * copies each, refills outside them are read (pread, as without a mapping) until the copies
 * reach that rate, and only then are the pages given back. */
enum { MAP_SEQ_COPIES = 16 };

/* The blocks are the fault-around's windows: aligned on their size in the address space (the
 * mapping is aligned on a page only), so that a block's copies map its 16 pages at most. */
static uint64_t map_lead(const tit_io *io) { return (uintptr_t)io->shared_map % TIT_MAP_BLOCK; }
static size_t map_words(const tit_io *io) {
  return (size_t)((map_lead(io) + io->shared_size) / TIT_MAP_BLOCK / 64 + 1);
}

/* Whether the refill of [off, off + n) (n > 0) copies from the mapping (1) or reads (0). */
static int map_use(tit_io *io, uint64_t off, size_t n) {
  const uint64_t at = map_lead(io) + off, b0 = at / TIT_MAP_BLOCK, b1 = (at + n - 1) / TIT_MAP_BLOCK;
  size_t fresh = 0;
  io->map_copies++;
  for (uint64_t b = b0; b <= b1; b++) fresh += !(io->map_read[b / 64] >> (b % 64) & 1);
  if (!fresh) return 1;
  if (io->map_nread + fresh > io->map_keep) {
    if (io->map_copies < (uint64_t)MAP_SEQ_COPIES * io->map_nread) {
      io->map_preads++;
      return 0;
    }
    (void)madvise((void *)(uintptr_t)io->shared_map, (size_t)io->shared_size, MADV_DONTNEED);
    memset(io->map_read, 0, map_words(io) * sizeof *io->map_read);
    io->map_nread = 0;
    io->map_copies = 1;
    io->map_drops++;
  }
  for (uint64_t b = b0; b <= b1; b++) io->map_read[b / 64] |= (uint64_t)1 << (b % 64);
  io->map_nread += fresh;
  return 1;
}

/* Mapped, a refill is a copy: with more cursors than slots (65,536 ranks, 9,976 slots), every
 * rank's slot is taken back between two of its lines, since the ranks take turns action by
 * action, and each line was one pread (776,000 of them on a one-iteration 65,536-rank
 * stencil, about a third of the replay's perf samples). The cost: a file truncated by
 * someone else during the replay faults (SIGBUS) where a read would fail; guard_map turns
 * that into an error naming the file. */
void tit_io_map_shared(tit_io *io, const char *name) {
  struct stat sb;
  if (io->shared_fd < 0 || fstat(io->shared_fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) return;
  void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, io->shared_fd, 0);
  if (p == MAP_FAILED) return;   /* read as before */
  if (guard_map(p, (size_t)sb.st_size, name) < 0) {   /* no guard left: read as before */
    munmap(p, (size_t)sb.st_size);
    return;
  }
  io->shared_map = p;
  io->shared_size = (uint64_t)sb.st_size;
  io->map_read = xcalloc(map_words(io), sizeof *io->map_read);
  io->map_keep = TIT_MAP_KEEP_BLOCKS;
  /* A mapped slot holds about one line (a refill copies up to the next line's end; a longer
   * line grows its buffer, make_room): 128-byte buffers, not 1 KiB (9,976 slots: 1.2 MiB, not
   * 10 MiB). */
  io->chunk = 128;
}

int tit_io_shrunk(const tit_io *io) {
  struct stat sb;
  return io->shared_map && fstat(io->shared_fd, &sb) == 0 && (uint64_t)sb.st_size < io->shared_size;
}

int tit_io_default_cap(void) {
  /* Up to 65536 open files: with many streams the buffers are small (see tit_source.c), so
   * files are the limit. Beyond it, streams reopen their file at their saved offset. */
  int cap = 65536;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    /* Leave half of the descriptors (and a few dozen) to the rest of the process. */
    long avail = ((long)rl.rlim_cur - 48) / 2;
    if (avail < cap) cap = avail < 4 ? 4 : (int)avail;
  }
  return cap;
}

static void z_free(tit_slot *s) {
  if (!s->z) return;
  if (s->comp == TIT_COMP_GZIP) {
    inflateEnd((z_stream *)s->z);
    free(s->z);
  } else {
    ZSTD_freeDStream((ZSTD_DStream *)s->z);
  }
  s->z = NULL;
}

/* Takes the slot away from its stream: the stream keeps only its offset. */
static void deactivate(tit_io *io, tit_slot *s) {
  if (s->owner) s->owner->slot = NULL;
  s->owner = NULL;
  if (s->own_fd && s->fd >= 0) close(s->fd);
  s->fd = -1;
  s->own_fd = 0;
  z_free(s);
  s->pos = s->len = 0;
  s->zin_pos = s->zin_len = 0;
  lru_unlink(io, s);
}

static void slot_destroy(tit_slot *s) {
  free(s->buf);
  free(s->zin);
  free(s);
}

void tit_io_fini(tit_io *io) {
  while (io->head) {
    tit_slot *s = io->head;
    deactivate(io, s);
    slot_destroy(s);
  }
  while (io->free_slots) {
    tit_slot *s = io->free_slots;
    io->free_slots = s->next;
    slot_destroy(s);
  }
  if (io->shared_map) {
    unguard_map(io->shared_map);
    munmap((void *)io->shared_map, (size_t)io->shared_size);
  }
  io->shared_map = NULL;
  free(io->map_read);
  io->map_read = NULL;
  if (io->shared_fd >= 0) close(io->shared_fd);
  io->shared_fd = -1;
}

int tit_io_detect(int fd) {
  unsigned char m[4];
  ssize_t n;
  do n = pread(fd, m, sizeof m, 0); while (n < 0 && errno == EINTR);
  if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) return TIT_COMP_GZIP;
  if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return TIT_COMP_ZSTD;
  return TIT_COMP_NONE;
}

static int z_init(tit_slot *s, const char *name, psim_err *err) {
  if (s->comp == TIT_COMP_GZIP) {
    z_stream *z = xcalloc(1, sizeof *z);
    if (inflateInit2(z, 15 + 32) != Z_OK) { /* 15+32: gzip or zlib header, detected */
      free(z);
      return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "cannot initialise gzip decompression");
    }
    s->z = z;
  } else {
    ZSTD_DStream *d = ZSTD_createDStream();
    if (!d) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "cannot initialise zstd decompression");
    ZSTD_initDStream(d);
    s->z = d;
  }
  if (!s->zin) s->zin = xmalloc(ZIN_SIZE);
  s->zin_pos = s->zin_len = 0;
  s->zin_eof = 0;
  s->z_ended = 0;
  return 0;
}

/* Gives st a slot: reuses its own, a released one, a new one, or the least recently used. */
static int activate(tit_io *io, tit_stream *st, const char *name, psim_err *err) {
  tit_slot *s = st->slot;
  if (s) {
    if (io->lru && io->head != s) {
      lru_unlink(io, s);
      lru_push_front(io, s);
    }
    return 0;
  }
  if (io->free_slots) {
    s = io->free_slots;
    io->free_slots = s->next;
    s->next = NULL;
  } else if (io->nslots < io->cap) {
    s = xcalloc(1, sizeof *s);
    s->fd = -1;
    io->nslots++;
  } else {
    s = io->tail;
    deactivate(io, s);
  }
  if (!s->buf) {
    s->cap = io->chunk < TIT_IO_BUFSIZE ? io->chunk : TIT_IO_BUFSIZE;
    s->buf = xmalloc(s->cap);
  }
  s->pos = s->len = 0;
  s->eof = 0;
  s->skip = 0;
  s->map = NULL;
  if (st->use_shared_fd) {
    s->fd = io->shared_fd;
    s->own_fd = 0;
    s->map = io->shared_map;
    s->map_size = io->shared_size;
  } else {
    int fd;
    do fd = open(st->path, O_RDONLY | O_CLOEXEC); while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      int e = errno;
      s->next = io->free_slots;
      io->free_slots = s;
      return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "cannot open trace file: %s", strerror(e));
    }
    s->fd = fd;
    s->own_fd = 1;
  }
  if (st->comp == TIT_COMP_UNKNOWN) st->comp = (uint8_t)tit_io_detect(s->fd);
  s->comp = st->comp;
  if (s->comp == TIT_COMP_NONE) {
    s->rd_off = st->off;
  } else {
    if (z_init(s, name, err) < 0) {
      if (s->own_fd) close(s->fd);
      s->fd = -1;
      s->next = io->free_slots;
      io->free_slots = s;
      return -1;
    }
    s->skip = st->off; /* a reopened compressed stream restarts from its first byte */
  }
  s->owner = st;
  st->slot = s;
  lru_push_front(io, s);
  return 0;
}

/* Makes room at the end of the buffer: drops consumed bytes, grows when a line fills it. */
static int make_room(tit_slot *s, const char *name, psim_err *err) {
  if (s->pos > 0 && (s->pos == s->len || s->cap - s->len < s->cap / 2)) {
    memmove(s->buf, s->buf + s->pos, s->len - s->pos);
    s->len -= s->pos;
    s->pos = 0;
  }
  if (s->len == s->cap) {
    if (s->cap >= TIT_IO_MAXLINE)
      return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "a line is longer than %zu bytes",
                       TIT_IO_MAXLINE);
    s->cap *= 2;
    s->buf = xrealloc(s->buf, s->cap);
  }
  return 0;
}

static int read_zin(tit_slot *s, const char *name, psim_err *err) {
  ssize_t n;
  do n = read(s->fd, s->zin, ZIN_SIZE); while (n < 0 && errno == EINTR);
  if (n < 0) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "read error: %s", strerror(errno));
  s->zin_pos = 0;
  s->zin_len = (size_t)n;
  if (n == 0) s->zin_eof = 1;
  return 0;
}

/* Decompresses some bytes into buf[len..cap). Returns the count, 0 at the end, -1 on error. */
static long fill_compressed(tit_slot *s, const char *name, psim_err *err) {
  for (;;) {
    if (s->zin_pos == s->zin_len && !s->zin_eof && read_zin(s, name, err) < 0) return -1;
    int in_left = s->zin_pos < s->zin_len;
    size_t produced;
    if (s->comp == TIT_COMP_GZIP) {
      z_stream *z = s->z;
      if (!in_left) {
        if (s->z_ended) return 0;
        return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "truncated gzip data");
      }
      if (s->z_ended) { /* another gzip member follows (concatenated files) */
        inflateReset(z);
        s->z_ended = 0;
      }
      z->next_in = s->zin + s->zin_pos;
      z->avail_in = (uInt)(s->zin_len - s->zin_pos);
      z->next_out = (Bytef *)s->buf + s->len;
      size_t room = s->cap - s->len;
      z->avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
      uInt out0 = z->avail_out, in0 = z->avail_in;
      int r = inflate(z, Z_NO_FLUSH);
      s->zin_pos += in0 - z->avail_in;
      produced = out0 - z->avail_out;
      if (r == Z_STREAM_END) s->z_ended = 1;
      else if (r != Z_OK && !(r == Z_BUF_ERROR && (produced || in0 != z->avail_in)))
        return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "corrupt gzip data (%s)",
                         z->msg ? z->msg : "inflate failed");
      if (!produced && in0 == z->avail_in && r != Z_STREAM_END)
        return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "corrupt gzip data (no progress)");
    } else {
      if (!in_left && s->zin_eof) {
        /* Flush what the decoder still holds; then the last frame must have ended. */
        ZSTD_inBuffer in = {s->zin, 0, 0};
        ZSTD_outBuffer out = {s->buf + s->len, s->cap - s->len, 0};
        size_t r = ZSTD_decompressStream(s->z, &out, &in);
        if (ZSTD_isError(r))
          return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "corrupt zstd data (%s)",
                           ZSTD_getErrorName(r));
        produced = out.pos;
        if (!produced) {
          if (s->z_ended) return 0;
          return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "truncated zstd data");
        }
      } else {
        ZSTD_inBuffer in = {s->zin, s->zin_len, s->zin_pos};
        ZSTD_outBuffer out = {s->buf + s->len, s->cap - s->len, 0};
        size_t r = ZSTD_decompressStream(s->z, &out, &in);
        if (ZSTD_isError(r))
          return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "corrupt zstd data (%s)",
                           ZSTD_getErrorName(r));
        s->zin_pos = in.pos;
        s->z_ended = (r == 0);
        produced = out.pos;
      }
    }
    if (!produced) continue;
    s->len += produced;
    if (s->skip) { /* discard what a reopened stream had already consumed */
      size_t k = s->len - s->pos;
      if (k > s->skip) k = (size_t)s->skip;
      s->pos += k;
      s->skip -= k;
      if (s->pos == s->len) s->pos = s->len = 0;
      if (s->len == s->pos) continue;
      produced = s->len - s->pos;
    }
    return (long)produced;
  }
}

/* Appends bytes to the buffer. Returns their count, 0 at the end of the file, -1 on error. */
static long fill(tit_io *io, tit_slot *s, size_t chunk, const char *name, psim_err *err) {
  if (s->eof) return 0;
  if (make_room(s, name, err) < 0) return -1;
  long n;
  if (s->comp == TIT_COMP_NONE) {
    ssize_t r;
    /* at least as much as is already buffered, so that a long line costs O(length) */
    size_t want = s->cap - s->len, lim = s->len - s->pos > chunk ? s->len - s->pos : chunk;
    if (want > lim) want = lim;
    size_t in_map = !s->map || s->rd_off >= s->map_size ? 0
                    : s->map_size - s->rd_off < want ? (size_t)(s->map_size - s->rd_off) : want;
    if (s->map && (!in_map || map_use(io, s->rd_off, in_map))) {
      /* up to the end of the next line only: mapped slots are those taken back after about
       * every line (tit_io_map_shared), so the rest of a 1 KiB copy would be thrown away */
      r = (ssize_t)in_map;
      const char *from = s->map + s->rd_off, *nl = r ? memchr(from, '\n', (size_t)r) : NULL;
      if (nl) r = nl - from + 1;
      memcpy(s->buf + s->len, from, (size_t)r);
    } else {
      do r = pread(s->fd, s->buf + s->len, want, (off_t)s->rd_off);
      while (r < 0 && errno == EINTR);
    }
    if (r < 0) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "read error: %s", strerror(errno));
    s->rd_off += (uint64_t)r;
    s->len += (size_t)r;
    n = (long)r;
  } else {
    n = fill_compressed(s, name, err);
    if (n < 0) return -1;
  }
  if (n == 0) s->eof = 1;
  return n;
}

int tit_io_line(tit_io *io, tit_stream *st, const char *name, const char **line, size_t *len,
                psim_err *err) {
  if (st->off >= st->end) return 0;
  if (activate(io, st, name, err) < 0) return -1;
  tit_slot *s = st->slot;
  for (;;) {
    size_t avail = s->len - s->pos;
    uint64_t lim = st->end - st->off;
    int at_end = 0;
    if (avail >= lim) {
      avail = (size_t)lim;
      at_end = 1;
    }
    char *p = s->buf + s->pos;
    char *nl = avail ? memchr(p, '\n', avail) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - p);
      *line = p;
      *len = n;
      s->pos += n + 1;
      st->off += n + 1;
      return 1;
    }
    if (!at_end) {
      long f = fill(io, s, io->chunk, name, err);
      if (f < 0) return -1;
      if (f > 0) continue;
    }
    /* End of the range or of the file: a last line without '\n' is still a line. */
    if (!avail) return 0;
    *line = p;
    *len = avail;
    s->pos += avail;
    st->off += avail;
    return 1;
  }
}

void tit_io_seek(tit_io *io, tit_stream *st, uint64_t off, uint64_t end) {
  tit_slot *s = st->slot;
  if (s) {
    uint64_t have = s->len - s->pos;
    if (off >= st->off && off - st->off <= have) {
      s->pos += (size_t)(off - st->off);
    } else if (s->comp == TIT_COMP_NONE) {
      s->pos = s->len = 0;
      s->rd_off = off;
      s->eof = 0;
    } else if (off > st->off) {
      s->skip = off - st->off - have;
      s->pos = s->len = 0;
    } else {
      deactivate(io, s); /* backwards in a compressed stream: reopen from the start */
      s->next = io->free_slots;
      io->free_slots = s;
    }
  }
  st->off = off;
  st->end = end;
}

void tit_io_release(tit_io *io, tit_stream *st) {
  tit_slot *s = st->slot;
  if (!s) return;
  deactivate(io, s);
  s->next = io->free_slots;
  io->free_slots = s;
}

int tit_io_spill(const char *path, int comp, psim_err *err) {
  (void)comp;
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char tmpl[1024];
  snprintf(tmpl, sizeof tmpl, "%s/psim-tit-XXXXXX", dir);
  int out = mkstemp(tmpl);
  if (out < 0)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                     "cannot create a temporary file in %s to decompress into: %s", dir,
                     strerror(errno));
  unlink(tmpl); /* lives as long as its descriptor */
  tit_io io;
  tit_io_init(&io, 1);
  tit_stream st = {.path = path, .end = TIT_IO_NOEND};
  int rc = activate(&io, &st, path, err);
  while (rc == 0) {
    tit_slot *s = st.slot;
    long n = fill(&io, s, TIT_IO_BUFSIZE, path, err);
    if (n < 0) { rc = -1; break; }
    if (n == 0) break;
    const char *p = s->buf + s->pos;
    size_t left = s->len - s->pos;
    while (left) {
      ssize_t w = write(out, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                       "cannot write the decompressed copy to %s: %s", dir, strerror(errno));
        break;
      }
      p += w;
      left -= (size_t)w;
    }
    s->pos = s->len = 0;
  }
  tit_io_fini(&io);
  if (rc < 0) {
    close(out);
    return -1;
  }
  return out;
}
