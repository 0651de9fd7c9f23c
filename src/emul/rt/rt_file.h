/* MPI-IO inside psim run: what rt_file.c (opening, closing, the file's attributes),
 * rt_file_view.c (views) and rt_file_io.c (reads and writes) share. Not public.
 *
 * A file opened by a communicator is one rt_file shared by its ranks (they all live in psim's
 * process): one descriptor of the C library, used with pread/pwrite only, so that each rank's
 * file pointer is its own; the shared file pointer is a field. Per rank: its view, its
 * individual file pointer, its hints. Handles are indices into the run's table, never reused
 * (error handlers are kept per handle, rt_errors.c). */
#ifndef PSIM_RT_FILE_H
#define PSIM_RT_FILE_H

#include "emul/rt/rt.h"

/* A rank's view: data offsets (bytes of the etype stream) map onto the file through the
 * filetype tiled from disp. The filetype's runs are copied: the program may free its type. */
typedef struct rt_fview {
  MPI_Offset disp;
  MPI_Datatype etype, filetype;   /* psim's duplicates of derived types (MPI_File_get_view) */
  size_t esize;                   /* bytes of one etype */
  size_t tsize;                   /* bytes of data in one filetype */
  ptrdiff_t text;                 /* the filetype's extent: one tile */
  int nruns;
  rt_block *runs;                 /* the filetype's runs, adjacent ones merged */
} rt_fview;

typedef struct rt_frank {
  int open;                       /* this rank has not closed it */
  rt_fview v;
  MPI_Offset pos;                 /* individual file pointer, in etypes of the view */
  MPI_Info hints;                 /* MPI_File_get_info's copy; MPI_INFO_NULL: none given */
  uint64_t epoch;                 /* shared-pointer collectives this rank made on it */
  const char *split;              /* the split collective begun (its _begin's name), or NULL */
  long long split_bytes;          /* ... and the bytes it moved (its _end's status) */
} rt_frank;

typedef struct rt_file {
  MPI_File handle;
  char *path;
  int fd;
  int amode;
  int atomic;
  MPI_Comm comm;                  /* psim's duplicate of the opening communicator */
  int size, nopen;                /* its ranks, those that have not closed it */
  MPI_Offset shared;              /* shared file pointer, in etypes of the view */
  uint64_t shared_epoch;          /* the last collective that set it (rt_file_io.c) */
  rt_frank *r;                    /* per rank of comm */
} rt_file;

typedef struct rt_files { VEC(rt_file *) f; } rt_files;   /* 0: MPI_FILE_NULL */

/* rt_file.c: the calling rank's file fh, NULL after raising MPI_ERR_FILE (*rc) on it when it
 * is not one the rank has open. */
rt_file *rt_file_get(MPI_File fh, const char *call, int *rc);
rt_frank *rt_file_me(rt_file *f);   /* the calling rank's part */
/* A C library error of `call` on f: its MPI error class. */
int rt_file_errno_class(int err);

/* The shared pointer's new value after a collective of rank r that all its ranks make
 * (ordered accesses, seek_shared, set_view): set by the first rank out of the collective's
 * synchronisation only, as another may already have moved it by a non-collective access. */
void rt_file_shared_set(rt_file *f, rt_frank *r, MPI_Offset v);

/* rt_file_view.c */
void rt_view_default(rt_fview *v);   /* bytes, from 0 */
void rt_view_free(rt_fview *v);
/* The file offset of data offset d (bytes of the view's data) and, in *run, how many bytes
 * of data follow contiguously there. */
MPI_Offset rt_view_map(const rt_fview *v, MPI_Offset d, MPI_Offset *run);
/* The data offset of file offset `end` (the data of the view before it): where MPI_SEEK_END
 * puts a pointer when the file has `end` bytes. */
MPI_Offset rt_view_data_before(const rt_fview *v, MPI_Offset end);

#endif
