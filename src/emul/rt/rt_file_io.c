/* MPI-IO's reads and writes: at explicit offsets, through the individual file pointer, the
 * shared one, in rank order; blocking, non-blocking, collective; and the pointers' seeks.
 *
 * The data moves at the call, with pread/pwrite through the rank's view (rt_file_view.c):
 * written data is packed from the buffer with the program's datatype (rt_pack), read data
 * unpacked into it (rt_unpack). Only the time is simulated: the bytes actually moved are an
 * I/O on the disk of the rank's host (emu_io, src/models/disk.c), which a blocking call waits
 * for and a non-blocking one's request completes with (MPI_Wait, MPI_Test...). A read past
 * the end of the file moves what there is: MPI_Get_count tells how much.
 *
 * Collective calls synchronise as SMPI 3.32's (File::op_all in smpi_file.hpp): two
 * MPI_Allgather of one MPI_OFFSET each (the ranks' lowest and highest offsets), then each rank
 * does its own I/O on its own host's disk. SMPI then reorganises interleaved accesses (its
 * two-phase exchange, an MPI_Alltoallv); psim does not: every rank accesses its own data. The
 * ordered calls (MPI_File_read_ordered, _write_ordered) are one MPI_Allgather of two
 * MPI_OFFSET (each rank's count and rank 0's shared pointer), MPI_File_seek_shared likewise of
 * three. The non-blocking collectives (MPI_File_iread_all...) do not synchronise: they start
 * the rank's own I/O, as the non-collective forms. A split collective's _begin is the blocking
 * collective (its data moved, its time spent); its _end gives the status (one split collective
 * at a time per file and rank: MPI_ERR_OTHER otherwise). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul/rt/rt_file.h"

enum { AT_EXPLICIT, AT_INDIV, AT_SHARED, AT_ORDERED };

/* Moves len packed bytes between pk and the file, from data offset d of view v. Returns the
 * bytes moved (fewer when a read meets the end of the file), -1 with *err = errno. */
static long long move(const rt_file *f, const rt_fview *v, int write, char *pk, size_t len, MPI_Offset d, int *err) {
  size_t done = 0;
  while (done < len) {
    MPI_Offset run, at = rt_view_map(v, d + (MPI_Offset)done, &run);
    if (run <= 0) break;   /* a filetype without data */
    size_t n = (size_t)run < len - done ? (size_t)run : len - done;
    ssize_t k = write ? pwrite(f->fd, pk + done, n, (off_t)at) : pread(f->fd, pk + done, n, (off_t)at);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) { *err = errno; return -1; }
    if (k == 0 && write) { *err = ENOSPC; return -1; }
    done += (size_t)k;
    if (k == 0) break;   /* end of file */
  }
  return (long long)done;
}

static void io_status(MPI_Status *st, long long bytes) {
  if (!st) return;   /* MPI_ERROR is left as it was: a single status's is not set (MPI 3.7.5) */
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->psim_cancelled = 0;
  st->psim_bytes = bytes;
}

/* SMPI's collective I/O synchronisation: the ranks' lowest and highest byte offsets gathered. */
static void coll_sync(const rt_file *f, MPI_Offset lo, MPI_Offset hi) {
  int n = rt_comm_get(f->comm)->size;
  MPI_Offset *all = xmalloc((size_t)n * sizeof *all);
  MPI_Allgather(&lo, 1, MPI_OFFSET, all, 1, MPI_OFFSET, f->comm);
  MPI_Allgather(&hi, 1, MPI_OFFSET, all, 1, MPI_OFFSET, f->comm);
  free(all);
}

/* The collectives on the shared pointer (ordered accesses, MPI_File_seek_shared): gathers each
 * rank's `mine` (k offsets, the last one the shared pointer as the rank sees it) into all[]; the
 * pointer's new value is then rt_file_shared_set's. */
static MPI_Offset *shared_gather(rt_file *f, MPI_Offset *mine, int k) {
  int n = rt_comm_get(f->comm)->size;
  MPI_Offset *all = xmalloc((size_t)n * (size_t)k * sizeof *all);
  MPI_Allgather(mine, k, MPI_OFFSET, all, k, MPI_OFFSET, f->comm);
  return all;
}

static const char *what(int write) { return write ? "write" : "read"; }

static int io(const char *call, MPI_File fh, int write, int where, int coll, MPI_Offset off, void *buf, int count,
              MPI_Datatype dt, MPI_Status *st, MPI_Request *req) {
  emu_enter(call);
  if (req) *req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS, me = rt_world_rank();
  rt_file *f = rt_file_get(fh, call, &rc);
  if (!f) goto out;
  const rt_dtype *t = rt_type(dt);
  if (count < 0)
    rc = rt_file_error(fh, MPI_ERR_COUNT, "%s: rank %d, file '%s': negative count %d (MPI_ERR_COUNT)", call, me, f->path, count);
  else if (!t->committed)
    rc = rt_file_error(fh, MPI_ERR_TYPE, "%s: rank %d, file '%s': the datatype is not committed (MPI_ERR_TYPE)", call, me, f->path);
  else if (write && (f->amode & MPI_MODE_RDONLY))
    rc = rt_file_error(fh, MPI_ERR_READ_ONLY, "%s: rank %d, file '%s': %s of a file opened MPI_MODE_RDONLY (MPI_ERR_READ_ONLY)",
                       call, me, f->path, what(write));
  else if (!write && (f->amode & MPI_MODE_WRONLY))
    rc = rt_file_error(fh, MPI_ERR_ACCESS, "%s: rank %d, file '%s': %s of a file opened MPI_MODE_WRONLY (MPI_ERR_ACCESS)",
                       call, me, f->path, what(write));
  else if (where != AT_SHARED && where != AT_ORDERED && (f->amode & MPI_MODE_SEQUENTIAL))
    rc = rt_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION,
                       "%s: rank %d, file '%s': opened MPI_MODE_SEQUENTIAL: only the shared file pointer may be used "
                       "(MPI_ERR_UNSUPPORTED_OPERATION)", call, me, f->path);
  else if (where == AT_EXPLICIT && off < 0)
    rc = rt_file_error(fh, MPI_ERR_ARG, "%s: rank %d, file '%s': negative offset %lld (MPI_ERR_ARG)", call, me, f->path, off);
  if (rc != MPI_SUCCESS) goto out;
  rt_frank *r = rt_file_me(f);
  size_t len = rt_pack_size(dt, count);
  MPI_Offset es = (MPI_Offset)r->v.esize, start = off;   /* in etypes */
  if (where == AT_INDIV) start = r->pos;
  else if (where == AT_SHARED) {   /* taken and moved at once: no other rank runs meanwhile */
    start = f->shared;
    f->shared += (MPI_Offset)len / es;
  } else if (where == AT_ORDERED) {
    int n = rt_comm_get(f->comm)->size, lr = rt_comm_rank(rt_comm_get(f->comm));
    MPI_Offset mine[2] = {(MPI_Offset)len / es, f->shared};
    MPI_Offset *all = shared_gather(f, mine, 2), total = 0;
    start = all[1];   /* rank 0's pointer */
    for (int i = 0; i < n; i++) {
      if (i < lr) start += all[2 * i];
      total += all[2 * i];
    }
    rt_file_shared_set(f, r, all[1] + total);
    free(all);
  }
  if (coll && where != AT_ORDERED) coll_sync(f, start * es, start * es + (MPI_Offset)len);
  emu_self()->call = call;   /* the collectives inside named theirs */
  /* a contiguous datatype's buffer is its packed data: no copy (MPICH's io/bigtype moves 2 GB) */
  int direct = t->contig;
  char *pk = buf;
  size_t plen = len;
  if (!direct) pk = write ? rt_pack_alloc(buf, count, dt, &plen) : xmalloc(len ? len : 1);
  int err = 0;
  long long moved = move(f, &r->v, write, pk, len, start * es, &err);
  if (!direct && moved >= 0 && !write) rt_unpack(pk, (size_t)moved, buf, count, dt);
  if (!direct) free(pk);
  if (moved < 0) {
    int cls = rt_file_errno_class(err);
    rc = rt_file_error(fh, cls == MPI_ERR_NO_SUCH_FILE ? MPI_ERR_IO : cls, "%s: rank %d, file '%s': %s of %zu bytes: %s",
                       call, me, f->path, what(write), len, strerror(err));
    goto out;
  }
  if (where == AT_INDIV) r->pos = start + moved / es;
  if (req) *req = rt_req_io(emu_io_start((double)moved, write), moved);
  else {
    emu_io((double)moved, write);
    io_status(st, moved);
  }
out:
  emu_leave();
  return rc;
}

/* ---- explicit offsets ---- */
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read_at", fh, 0, AT_EXPLICIT, 0, offset, buf, count, dt, st, NULL);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write_at", fh, 1, AT_EXPLICIT, 0, offset, (void *)buf, count, dt, st, NULL);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read_at_all", fh, 0, AT_EXPLICIT, 1, offset, buf, count, dt, st, NULL);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write_at_all", fh, 1, AT_EXPLICIT, 1, offset, (void *)buf, count, dt, st, NULL);
}
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iread_at", fh, 0, AT_EXPLICIT, 0, offset, buf, count, dt, NULL, req);
}
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iwrite_at", fh, 1, AT_EXPLICIT, 0, offset, (void *)buf, count, dt, NULL, req);
}
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iread_at_all", fh, 0, AT_EXPLICIT, 0, offset, buf, count, dt, NULL, req);
}
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt,
                           MPI_Request *req) {
  return io("MPI_File_iwrite_at_all", fh, 1, AT_EXPLICIT, 0, offset, (void *)buf, count, dt, NULL, req);
}

/* ---- the individual file pointer ---- */
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read", fh, 0, AT_INDIV, 0, 0, buf, count, dt, st, NULL);
}
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write", fh, 1, AT_INDIV, 0, 0, (void *)buf, count, dt, st, NULL);
}
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read_all", fh, 0, AT_INDIV, 1, 0, buf, count, dt, st, NULL);
}
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write_all", fh, 1, AT_INDIV, 1, 0, (void *)buf, count, dt, st, NULL);
}
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iread", fh, 0, AT_INDIV, 0, 0, buf, count, dt, NULL, req);
}
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iwrite", fh, 1, AT_INDIV, 0, 0, (void *)buf, count, dt, NULL, req);
}
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iread_all", fh, 0, AT_INDIV, 0, 0, buf, count, dt, NULL, req);
}
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iwrite_all", fh, 1, AT_INDIV, 0, 0, (void *)buf, count, dt, NULL, req);
}

/* ---- the shared file pointer ---- */
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read_shared", fh, 0, AT_SHARED, 0, 0, buf, count, dt, st, NULL);
}
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write_shared", fh, 1, AT_SHARED, 0, 0, (void *)buf, count, dt, st, NULL);
}
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iread_shared", fh, 0, AT_SHARED, 0, 0, buf, count, dt, NULL, req);
}
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *req) {
  return io("MPI_File_iwrite_shared", fh, 1, AT_SHARED, 0, 0, (void *)buf, count, dt, NULL, req);
}
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_read_ordered", fh, 0, AT_ORDERED, 1, 0, buf, count, dt, st, NULL);
}
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) {
  return io("MPI_File_write_ordered", fh, 1, AT_ORDERED, 1, 0, (void *)buf, count, dt, st, NULL);
}

/* ---- positions ---- */

/* The view's data before the end of the file, in etypes (MPI_SEEK_END's origin). */
static MPI_Offset end_of(const rt_file *f, const rt_frank *r) {
  struct stat sb;
  MPI_Offset size = fstat(f->fd, &sb) == 0 ? (MPI_Offset)sb.st_size : 0;
  return rt_view_data_before(&r->v, size) / (MPI_Offset)r->v.esize;
}

static int whence_ok(int whence) { return whence == MPI_SEEK_SET || whence == MPI_SEEK_CUR || whence == MPI_SEEK_END; }

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  int rc = MPI_SUCCESS, me = rt_world_rank();
  rt_file *f = rt_file_get(fh, "MPI_File_seek", &rc);
  if (!f) return rc;
  rt_frank *r = rt_file_me(f);
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return rt_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION,
                         "MPI_File_seek: rank %d, file '%s': opened MPI_MODE_SEQUENTIAL (MPI_ERR_UNSUPPORTED_OPERATION)", me, f->path);
  if (!whence_ok(whence))
    return rt_file_error(fh, MPI_ERR_ARG, "MPI_File_seek: rank %d, file '%s': whence %d (MPI_ERR_ARG)", me, f->path, whence);
  MPI_Offset to = whence == MPI_SEEK_SET ? offset : whence == MPI_SEEK_CUR ? r->pos + offset : end_of(f, r) + offset;
  if (to < 0)
    return rt_file_error(fh, MPI_ERR_ARG, "MPI_File_seek: rank %d, file '%s': position %lld before the view's start (MPI_ERR_ARG)",
                         me, f->path, to);
  r->pos = to;
  return MPI_SUCCESS;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_position", &rc);
  if (!f) return rc;
  *offset = rt_file_me(f)->pos;
  return MPI_SUCCESS;
}

int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_byte_offset", &rc);
  if (!f) return rc;
  if (offset < 0)
    return rt_file_error(fh, MPI_ERR_ARG, "MPI_File_get_byte_offset: rank %d, file '%s': negative offset %lld (MPI_ERR_ARG)",
                         rt_world_rank(), f->path, offset);
  const rt_frank *r = rt_file_me(f);
  MPI_Offset run;
  *disp = rt_view_map(&r->v, offset * (MPI_Offset)r->v.esize, &run);
  return MPI_SUCCESS;
}

/* Collective: every rank must give the same offset and whence (MPI_ERR_NOT_SAME otherwise). */
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  emu_enter("MPI_File_seek_shared");
  int rc = MPI_SUCCESS, me = rt_world_rank();
  rt_file *f = rt_file_get(fh, "MPI_File_seek_shared", &rc);
  if (!f) { emu_leave(); return rc; }
  rt_frank *r = rt_file_me(f);
  MPI_Offset mine[3] = {offset, whence, f->shared};
  MPI_Offset *all = shared_gather(f, mine, 3);
  int n = rt_comm_get(f->comm)->size, same = 1;
  for (int i = 1; i < n; i++) same &= all[3 * i] == all[0] && all[3 * i + 1] == all[1];
  MPI_Offset base = all[2];
  free(all);
  if (!same)
    rc = rt_file_error(fh, MPI_ERR_NOT_SAME, "MPI_File_seek_shared: rank %d, file '%s': the ranks gave different offsets or "
                       "whences (MPI_ERR_NOT_SAME)", me, f->path);
  else if (!whence_ok(whence))
    rc = rt_file_error(fh, MPI_ERR_ARG, "MPI_File_seek_shared: rank %d, file '%s': whence %d (MPI_ERR_ARG)", me, f->path, whence);
  if (rc != MPI_SUCCESS) { r->epoch++; emu_leave(); return rc; }
  MPI_Offset to = whence == MPI_SEEK_SET ? offset : whence == MPI_SEEK_CUR ? base + offset : end_of(f, r) + offset;
  if (to < 0)
    rc = rt_file_error(fh, MPI_ERR_ARG, "MPI_File_seek_shared: rank %d, file '%s': position %lld before the view's start "
                       "(MPI_ERR_ARG)", me, f->path, to);
  if (rc == MPI_SUCCESS) rt_file_shared_set(f, r, to);
  else r->epoch++;
  emu_leave();
  return rc;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_position_shared", &rc);
  if (!f) return rc;
  *offset = f->shared;
  return MPI_SUCCESS;
}

/* ---- split collectives ---- */
static int split_begin(const char *call, MPI_File fh, int write, int where, MPI_Offset off, void *buf, int count,
                       MPI_Datatype dt) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, call, &rc);
  if (!f) return rc;
  rt_frank *r = rt_file_me(f);
  if (r->split)
    return rt_file_error(fh, MPI_ERR_OTHER, "%s: rank %d, file '%s': %s is not ended (one split collective at a time; "
                         "MPI_ERR_OTHER)", call, rt_world_rank(), f->path, r->split);
  MPI_Status st;
  io_status(&st, 0);
  rc = io(call, fh, write, where, 1, off, buf, count, dt, &st, NULL);
  if (rc == MPI_SUCCESS) {
    r->split = call;
    r->split_bytes = st.psim_bytes;
  }
  return rc;
}

static int split_end(const char *call, const char *begin, MPI_File fh, MPI_Status *st) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, call, &rc);
  if (!f) return rc;
  rt_frank *r = rt_file_me(f);
  if (!r->split || strcmp(r->split, begin) != 0)
    return rt_file_error(fh, MPI_ERR_OTHER, "%s: rank %d, file '%s': no %s to end (MPI_ERR_OTHER)", call,
                         rt_world_rank(), f->path, begin);
  r->split = NULL;
  io_status(st, r->split_bytes);
  return MPI_SUCCESS;
}

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_read_at_all_begin", fh, 0, AT_EXPLICIT, offset, buf, count, dt);
}
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_read_at_all_end", "MPI_File_read_at_all_begin", fh, st);
}
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_write_at_all_begin", fh, 1, AT_EXPLICIT, offset, (void *)buf, count, dt);
}
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_write_at_all_end", "MPI_File_write_at_all_begin", fh, st);
}
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_read_all_begin", fh, 0, AT_INDIV, 0, buf, count, dt);
}
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_read_all_end", "MPI_File_read_all_begin", fh, st);
}
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_write_all_begin", fh, 1, AT_INDIV, 0, (void *)buf, count, dt);
}
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_write_all_end", "MPI_File_write_all_begin", fh, st);
}
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_read_ordered_begin", fh, 0, AT_ORDERED, 0, buf, count, dt);
}
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_read_ordered_end", "MPI_File_read_ordered_begin", fh, st);
}
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt) {
  return split_begin("MPI_File_write_ordered_begin", fh, 1, AT_ORDERED, 0, (void *)buf, count, dt);
}
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *st) {
  (void)buf;
  return split_end("MPI_File_write_ordered_end", "MPI_File_write_ordered_begin", fh, st);
}
