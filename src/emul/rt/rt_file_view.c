/* MPI-IO's file views: MPI_File_set_view and MPI_File_get_view, and the mapping of a view's
 * data onto the file that rt_file_io.c reads and writes through.
 *
 * A view is the filetype tiled from the displacement disp: tile i covers file bytes
 * [disp + i*extent, disp + (i+1)*extent) and its data are the filetype's runs (psim's
 * flattening of the type, rt_dtype.c) shifted there. A position in the view counts etypes of
 * that data. Only "native" is a data representation (MPI_ERR_UNSUPPORTED_DATAREP otherwise):
 * the bytes in the file are the memory's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt_file.h"

/* The view's runs from a filetype's, with the data before each (for a binary search). */
static void set_runs(rt_fview *v, const rt_dtype *ft) {
  v->nruns = ft->nblocks;
  v->runs = xmalloc((size_t)(ft->nblocks ? ft->nblocks : 1) * (sizeof *v->runs + sizeof(MPI_Offset)));
  memcpy(v->runs, ft->blocks, (size_t)ft->nblocks * sizeof *v->runs);
  MPI_Offset *before = (MPI_Offset *)(v->runs + (ft->nblocks ? ft->nblocks : 1)), sum = 0;
  for (int i = 0; i < ft->nblocks; i++) { before[i] = sum; sum += (MPI_Offset)ft->blocks[i].len; }
  v->tsize = ft->size;
  v->text = ft->ub - ft->lb;
}

static const MPI_Offset *runs_before(const rt_fview *v) {
  return (const MPI_Offset *)(v->runs + (v->nruns ? v->nruns : 1));
}

void rt_view_default(rt_fview *v) {
  memset(v, 0, sizeof *v);
  v->etype = v->filetype = MPI_BYTE;
  v->esize = 1;
  set_runs(v, rt_type(MPI_BYTE));
}

void rt_view_free(rt_fview *v) {
  free(v->runs);
  v->runs = NULL;
  if (!rt_type(v->etype)->predefined) MPI_Type_free(&v->etype);
  if (!rt_type(v->filetype)->predefined) MPI_Type_free(&v->filetype);
}

MPI_Offset rt_view_map(const rt_fview *v, MPI_Offset d, MPI_Offset *run) {
  if (v->tsize == 0 || v->nruns == 0) { *run = 0; return v->disp; }
  if (v->nruns == 1 && v->runs[0].off == 0 && (ptrdiff_t)v->runs[0].len == v->text) {
    /* tiles without holes (bytes, the default view; a contiguous type): one run to the end,
     * not one per tile (a pwrite per byte) */
    *run = INT64_MAX - d;
    return v->disp + d;
  }
  MPI_Offset tile = d / (MPI_Offset)v->tsize, rem = d % (MPI_Offset)v->tsize;
  const MPI_Offset *before = runs_before(v);
  int lo = 0, hi = v->nruns - 1;   /* the last run with before <= rem */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (before[mid] <= rem) lo = mid;
    else hi = mid - 1;
  }
  rem -= before[lo];
  *run = (MPI_Offset)v->runs[lo].len - rem;
  return v->disp + tile * (MPI_Offset)v->text + (MPI_Offset)v->runs[lo].off + rem;
}

MPI_Offset rt_view_data_before(const rt_fview *v, MPI_Offset end) {
  if (end <= v->disp || v->text <= 0) return 0;
  MPI_Offset x = end - v->disp, tiles = x / v->text, within = x % v->text;
  MPI_Offset d = tiles * (MPI_Offset)v->tsize;
  for (int i = 0; i < v->nruns; i++) {
    MPI_Offset in = within - (MPI_Offset)v->runs[i].off;
    if (in > (MPI_Offset)v->runs[i].len) in = (MPI_Offset)v->runs[i].len;
    if (in > 0) d += in;
  }
  return d;
}

/* MPI 13.3: an etype's and a filetype's displacements are nonnegative and monotonically
 * nondecreasing; overlaps only in a file opened to be read (MPI 13.1.1: a filetype that
 * overlaps cannot be written through). NULL, or what is wrong. */
static const char *runs_wrong(const rt_dtype *t, int rdonly) {
  for (int i = 0; i < t->nblocks; i++) {
    if (t->blocks[i].off < 0) return "are negative";
    if (i && t->blocks[i].off < t->blocks[i - 1].off) return "decrease";
    if (!rdonly && i && t->blocks[i].off < t->blocks[i - 1].off + (ptrdiff_t)t->blocks[i - 1].len) return "overlap";
  }
  return NULL;
}

/* A handle of the program's type that stays valid after the program frees its own. */
static MPI_Datatype keep(MPI_Datatype t) {
  if (rt_type(t)->predefined) return t;
  MPI_Datatype d;
  MPI_Type_dup(t, &d);
  rt_type(d)->committed = 1;
  return d;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
  emu_enter("MPI_File_set_view");
  int rc = MPI_SUCCESS, me = rt_world_rank();
  rt_file *f = rt_file_get(fh, "MPI_File_set_view", &rc);
  if (!f) { emu_leave(); return rc; }
  const rt_dtype *et = rt_type(etype), *ft = rt_type(filetype);
  if (!datarep || strcmp(datarep, "native") != 0)
    rc = rt_file_error(fh, MPI_ERR_UNSUPPORTED_DATAREP,
                       "MPI_File_set_view: rank %d, file '%s': data representation '%s' (psim has \"native\" only; "
                       "MPI_ERR_UNSUPPORTED_DATAREP)", me, f->path, datarep ? datarep : "(null)");
  else if (!et->committed || !ft->committed)
    rc = rt_file_error(fh, MPI_ERR_TYPE, "MPI_File_set_view: rank %d, file '%s': the %s is not committed (MPI_ERR_TYPE)",
                       me, f->path, !et->committed ? "etype" : "filetype");
  else if (et->size == 0 || ft->size % et->size != 0)
    rc = rt_file_error(fh, MPI_ERR_TYPE,
                       "MPI_File_set_view: rank %d, file '%s': the filetype (%zu bytes) is not made of etypes (%zu bytes) "
                       "(MPI_ERR_TYPE)", me, f->path, ft->size, et->size);
  else if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
    rc = rt_file_error(fh, MPI_ERR_ARG,
                       "MPI_File_set_view: rank %d, file '%s': MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL (MPI_ERR_ARG)",
                       me, f->path);
  else if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
    rc = rt_file_error(fh, MPI_ERR_ARG, "MPI_File_set_view: rank %d, file '%s': negative displacement %lld (MPI_ERR_ARG)",
                       me, f->path, disp);
  if (rc != MPI_SUCCESS) { emu_leave(); return rc; }
  const char *bad = NULL;
  if ((bad = runs_wrong(et, f->amode & MPI_MODE_RDONLY))) {
    rc = rt_file_error(fh, MPI_ERR_IO, "MPI_File_set_view: rank %d, file '%s': the etype's displacements %s (MPI_ERR_IO, as "
                       "ROMIO)", me, f->path, bad);
  } else if ((bad = runs_wrong(ft, f->amode & MPI_MODE_RDONLY))) {
    rc = rt_file_error(fh, MPI_ERR_IO, "MPI_File_set_view: rank %d, file '%s': the filetype's displacements %s (MPI_ERR_IO, as "
                       "ROMIO)", me, f->path, bad);
  }
  if (rc != MPI_SUCCESS) { emu_leave(); return rc; }
  rt_frank *r = rt_file_me(f);
  if (disp == MPI_DISPLACEMENT_CURRENT) {   /* the shared pointer's byte in the file */
    MPI_Offset run;
    disp = rt_view_map(&r->v, f->shared * (MPI_Offset)r->v.esize, &run);
  }
  rt_view_free(&r->v);
  r->v.disp = disp;
  r->v.etype = keep(etype);
  r->v.filetype = keep(filetype);
  r->v.esize = et->size;
  set_runs(&r->v, rt_type(filetype));
  r->pos = 0;
  if (info != MPI_INFO_NULL) {
    if (r->hints != MPI_INFO_NULL) MPI_Info_free(&r->hints);
    MPI_Info_dup(info, &r->hints);
  }
  /* every rank has read the shared pointer (MPI_DISPLACEMENT_CURRENT) before the first out of
   * the barrier resets it */
  MPI_Barrier(f->comm);
  rt_file_shared_set(f, r, 0);
  emu_leave();
  return MPI_SUCCESS;
}

/* Derived types come back as new handles the program frees (MPI 14.3). */
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep) {
  int rc = MPI_SUCCESS;
  rt_file *f = rt_file_get(fh, "MPI_File_get_view", &rc);
  if (!f) return rc;
  const rt_frank *r = rt_file_me(f);
  *disp = r->v.disp;
  *etype = keep(r->v.etype);
  *filetype = keep(r->v.filetype);
  strcpy(datarep, "native");
  return MPI_SUCCESS;
}
