/* MPI-IO: opening, closing and deleting files, their size, mode, group, hints and atomicity
 * (rt_file.h says how a file is kept). The data is the local file system's: a program that
 * reads back what it wrote, or a file after the run, finds the bytes written.
 *
 * Errors return their MPI error class under the file's handler, MPI_ERRORS_RETURN unless the
 * program set another (MPI_FILE_NULL's for MPI_File_open and MPI_File_delete), with a message
 * naming the call, the rank, the file and the class (MPI_ERRORS_ARE_FATAL prints it).
 *
 * The collective calls synchronise as SMPI 3.32's do (src/smpi/mpi/smpi_file.cpp): opening is
 * two broadcasts from rank 0 of the communicator (SMPI's of its shared pointer and mutex),
 * closing, MPI_File_set_view, MPI_File_sync, set_size and preallocate a barrier. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul/rt/rt_file.h"

static rt_files *files(void) {
  rt_world *w = rt_w();
  if (!w->files) {
    w->files = xcalloc(1, sizeof *w->files);
    VEC_PUSH(w->files->f, NULL);   /* MPI_FILE_NULL */
  }
  return w->files;
}

static void file_free(rt_file *f) {
  if (f->fd >= 0) close(f->fd);
  for (int i = 0; i < f->size; i++) free(f->r[i].v.runs);
  free(f->r);
  free(f->path);
  free(f);
}

/* The run ended with files open (a rank stopped it): their descriptors are closed, and a
 * file opened with MPI_MODE_DELETE_ON_CLOSE is deleted as its last close would have. */
void rt_files_free(rt_world *w) {
  if (!w->files) return;
  for (size_t i = 0; i < w->files->f.len; i++) {
    rt_file *f = w->files->f.data[i];
    if (!f) continue;
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) unlink(f->path);
    file_free(f);
  }
  VEC_FREE(w->files->f);
  free(w->files);
  w->files = NULL;
}

rt_frank *rt_file_me(rt_file *f) {
  const rt_comm *c = rt_comm_get(f->comm);
  return &f->r[c->local[rt_world_rank()]];
}

rt_file *rt_file_get(MPI_File fh, const char *call, int *rc) {
  rt_files *fs = files();
  rt_file *f = fh > 0 && (size_t)fh < fs->f.len ? fs->f.data[fh] : NULL;
  if (f) {
    const rt_comm *c = rt_comm_get(f->comm);
    int me = c->local[rt_world_rank()];
    if (me >= 0 && f->r[me].open) return f;
  }
  *rc = rt_file_error(MPI_FILE_NULL, MPI_ERR_FILE, "%s: rank %d: %d is not a file this rank has open (MPI_ERR_FILE)",
                      call, rt_world_rank(), fh);
  return NULL;
}

void rt_file_shared_set(rt_file *f, rt_frank *r, MPI_Offset v) {
  if (f->shared_epoch < ++r->epoch) {
    f->shared_epoch = r->epoch;
    f->shared = v;
  }
}

int rt_file_errno_class(int err) {
  switch (err) {
  case ENOENT: return MPI_ERR_NO_SUCH_FILE;
  case EEXIST: return MPI_ERR_FILE_EXISTS;
  case EACCES: case EPERM: return MPI_ERR_ACCESS;
  case EROFS: return MPI_ERR_READ_ONLY;
  case ENOSPC: return MPI_ERR_NO_SPACE;
  case EDQUOT: return MPI_ERR_QUOTA;
  case ENAMETOOLONG: case EISDIR: case ENOTDIR: case ELOOP: case EINVAL: return MPI_ERR_BAD_FILE;
  default: return MPI_ERR_IO;
  }
}

static const char *class_name(int cls) {
  static char s[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(cls, s, &len);
  char *colon = strchr(s, ':');
  if (colon) *colon = 0;
  return s;
}

/* ROMIO's file names may start with the file system's name ("ufs:out.dat"): the local file
 * system is psim's only one, the prefix is dropped. */
static const char *local_name(const char *name) {
  static const char *const fs[] = {"ufs:", "nfs:", "testfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:", "daos:"};
  for (size_t i = 0; i < sizeof fs / sizeof *fs; i++)
    if (strncmp(name, fs[i], strlen(fs[i])) == 0) return name + strlen(fs[i]);
  return name;
}

/* MPI 14.2.1: exactly one of RDONLY, RDWR and WRONLY; RDONLY without CREATE or EXCL; RDWR
 * without SEQUENTIAL. 0, or why not. */
static const char *amode_wrong(int amode) {
  int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
  if (rw != 1) return "exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and MPI_MODE_WRONLY is needed";
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) return "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE |
              MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~known) return "unknown bits";
  return NULL;
}

/* Rank 0 of the communicator opens the file for all: its handle, or -(error class) and errno. */
static void open_first(rt_comm *c, const char *name, int amode, MPI_Aint res[2]) {
  int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
  if (amode & MPI_MODE_CREATE) flags |= O_CREAT;
  if (amode & MPI_MODE_EXCL) flags |= O_EXCL;
  int fd = open(name, flags | O_CLOEXEC, 0666);
  if (fd < 0) { res[0] = -rt_file_errno_class(errno); res[1] = errno; return; }
  rt_files *fs = files();
  rt_file *f = xcalloc(1, sizeof *f);
  f->fd = fd;
  f->path = xstrdup(name);
  f->amode = amode;
  f->size = f->nopen = c->size;
  f->r = xcalloc((size_t)c->size, sizeof *f->r);
  f->comm = MPI_COMM_NULL;
  f->handle = (MPI_File)fs->f.len;
  VEC_PUSH(fs->f, f);
  res[0] = f->handle;
  res[1] = 0;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
  emu_enter("MPI_File_open");
  rt_need_init();
  rt_comm *c = rt_comm_get(comm);
  rt_no_inter(c, "MPI_File_open");
  *fh = MPI_FILE_NULL;
  const char *name = local_name(filename ? filename : "");
  const char *why = amode_wrong(amode);
  if (why) {
    int rc = rt_file_error(MPI_FILE_NULL, MPI_ERR_AMODE, "MPI_File_open: rank %d, file '%s': access mode %d: %s (MPI_ERR_AMODE)",
                           rt_world_rank(), name, amode, why);
    emu_leave();
    return rc;
  }
  MPI_Aint res[2] = {0, 0};
  if (rt_comm_rank(c) == 0) open_first(c, name, amode, res);
  MPI_Bcast(&res[0], 1, MPI_AINT, 0, comm);
  MPI_Bcast(&res[1], 1, MPI_AINT, 0, comm);
  if (res[0] < 0) {
    int cls = (int)-res[0];
    int rc = rt_file_error(MPI_FILE_NULL, cls, "MPI_File_open: rank %d, file '%s': %s (%s)", rt_world_rank(), name,
                           strerror((int)res[1]), class_name(cls));
    emu_leave();
    return rc;
  }
  rt_file *f = files()->f.data[res[0]];
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);   /* the file's own context: its collectives never meet the program's */
  f->comm = dup;
  rt_frank *r = &f->r[rt_comm_rank(c)];
  r->open = 1;
  rt_view_default(&r->v);
  r->hints = MPI_INFO_NULL;
  if (info != MPI_INFO_NULL) MPI_Info_dup(info, &r->hints);
  if (amode & MPI_MODE_APPEND) {   /* every file pointer starts at the end of the file */
    struct stat sb;
    r->pos = fstat(f->fd, &sb) == 0 ? (MPI_Offset)sb.st_size : 0;
    f->shared = r->pos;
  }
  *fh = f->handle;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_File_close(MPI_File *fh) {
  emu_enter("MPI_File_close");
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(*fh, "MPI_File_close", &rc);
  if (!f) { emu_leave(); return rc; }
  MPI_Barrier(f->comm);
  rt_frank *r = rt_file_me(f);
  rt_view_free(&r->v);
  if (r->hints != MPI_INFO_NULL) MPI_Info_free(&r->hints);
  r->open = 0;
  MPI_Comm comm = f->comm;
  MPI_Comm_free(&comm);
  rt_err_file_free(*fh);
  if (--f->nopen == 0) {   /* the last rank closes the descriptor */
    if (close(f->fd) < 0)
      rc = rt_file_error(MPI_FILE_NULL, MPI_ERR_IO, "MPI_File_close: rank %d, file '%s': %s (MPI_ERR_IO)",
                         rt_world_rank(), f->path, strerror(errno));
    f->fd = -1;
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->path) < 0 && rc == MPI_SUCCESS)
      rc = rt_file_error(MPI_FILE_NULL, rt_file_errno_class(errno), "MPI_File_close: rank %d, file '%s': deleting it: %s",
                         rt_world_rank(), f->path, strerror(errno));
    files()->f.data[*fh] = NULL;
    file_free(f);
  }
  *fh = MPI_FILE_NULL;
  emu_leave();
  return rc;
}

int MPI_File_delete(const char *filename, MPI_Info info) {
  (void)info;
  emu_enter("MPI_File_delete");
  rt_need_init();
  const char *name = local_name(filename ? filename : "");
  int rc = MPI_SUCCESS;
  if (unlink(name) < 0) {
    int cls = rt_file_errno_class(errno);
    rc = rt_file_error(MPI_FILE_NULL, cls, "MPI_File_delete: rank %d, file '%s': %s (%s)", rt_world_rank(), name,
                       strerror(errno), class_name(cls));
  }
  emu_leave();
  return rc;
}

/* MPI_File_set_size and MPI_File_preallocate: rank 0 sets the size before the barrier, so that
 * no rank writes before it nor sees the file's former size after. */
static int resize(MPI_File fh, MPI_Offset size, int grow_only, const char *call) {
  emu_enter(call);
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, call, &rc);
  if (!f) { emu_leave(); return rc; }
  if (size < 0) {
    rc = rt_file_error(fh, MPI_ERR_ARG, "%s: rank %d, file '%s': negative size %lld (MPI_ERR_ARG)", call,
                       rt_world_rank(), f->path, size);
    emu_leave();
    return rc;
  }
  if (f->amode & MPI_MODE_RDONLY) {
    rc = rt_file_error(fh, MPI_ERR_READ_ONLY, "%s: rank %d, file '%s': opened MPI_MODE_RDONLY (MPI_ERR_READ_ONLY)",
                       call, rt_world_rank(), f->path);
    emu_leave();
    return rc;
  }
  int err = 0;
  if (rt_comm_rank(rt_comm_get(f->comm)) == 0) {
    struct stat sb;
    if (fstat(f->fd, &sb) < 0) err = errno;
    else if ((!grow_only || size > sb.st_size) && ftruncate(f->fd, (off_t)size) < 0) err = errno;
  }
  int all = 0;
  MPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MAX, f->comm);   /* a barrier that tells of rank 0's error */
  if (all)
    rc = rt_file_error(fh, rt_file_errno_class(all), "%s: rank %d, file '%s': size %lld: %s (%s)", call, rt_world_rank(),
                       f->path, size, strerror(all), class_name(rt_file_errno_class(all)));
  emu_leave();
  return rc;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) { return resize(fh, size, 0, "MPI_File_set_size"); }
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) { return resize(fh, size, 1, "MPI_File_preallocate"); }

int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_size", &rc);
  if (!f) return rc;
  struct stat sb;
  if (fstat(f->fd, &sb) < 0)
    return rt_file_error(fh, MPI_ERR_IO, "MPI_File_get_size: rank %d, file '%s': %s (MPI_ERR_IO)", rt_world_rank(),
                         f->path, strerror(errno));
  *size = (MPI_Offset)sb.st_size;
  return MPI_SUCCESS;
}

int MPI_File_get_group(MPI_File fh, MPI_Group *group) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_group", &rc);
  if (!f) return rc;
  return MPI_Comm_group(f->comm, group);
}

int MPI_File_get_amode(MPI_File fh, int *amode) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_amode", &rc);
  if (!f) return rc;
  *amode = f->amode;
  return MPI_SUCCESS;
}

/* Hints change nothing in psim: they are kept for MPI_File_get_info. */
int MPI_File_set_info(MPI_File fh, MPI_Info info) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_set_info", &rc);
  if (!f) return rc;
  rt_frank *r = rt_file_me(f);
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  if (r->hints != MPI_INFO_NULL) MPI_Info_free(&r->hints);
  return MPI_Info_dup(info, &r->hints);
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_info", &rc);
  if (!f) return rc;
  rt_frank *r = rt_file_me(f);
  return r->hints != MPI_INFO_NULL ? MPI_Info_dup(r->hints, info_used) : MPI_Info_create(info_used);
}

/* "native" is the only data representation: a type's extent in the file is its extent. */
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Aint *extent) {
  int rc = MPI_SUCCESS;
  if (!rt_file_get(fh, "MPI_File_get_type_extent", &rc)) return rc;
  *extent = rt_extent(dt);
  return MPI_SUCCESS;
}

/* psim's reads and writes are atomic whatever the flag: each is done whole before any other
 * rank runs (ranks are fibers of one thread). */
int MPI_File_set_atomicity(MPI_File fh, int flag) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_set_atomicity", &rc);
  if (!f) return rc;
  f->atomic = !!flag;
  return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int *flag) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_atomicity", &rc);
  if (!f) return rc;
  *flag = f->atomic;
  return MPI_SUCCESS;
}

/* The data is in the C library's hands already (every write is a pwrite): a barrier, as SMPI,
 * and no simulated disk time (SimGrid's disks have no cache to flush). */
int MPI_File_sync(MPI_File fh) {
  emu_enter("MPI_File_sync");
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_sync", &rc);
  if (f) MPI_Barrier(f->comm);
  emu_leave();
  return rc;
}
