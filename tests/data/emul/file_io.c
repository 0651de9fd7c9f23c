/* MPI-IO under psim run (tests/cli/run_file_io.sh): plain MPI, built by psimcc and by MPICH's
 * mpicc. Every check that fails prints a line; rank 0 prints " No Errors" when none did.
 *
 *   file_io data FILE     each rank's block at explicit offsets, read back another rank's
 *                         (read_at, and read_at_all_begin/end), and through indexed,
 *                         struct and contiguous filetypes;
 *                         a vector filetype (write_all through the individual pointer), a
 *                         subarray one (write_at_all), non-blocking forms, ordered and shared
 *                         pointers, sizes, amode, group, info, handlers, DELETE_ON_CLOSE,
 *                         APPEND; FILE read after close. FILE stays (the script checks its bytes).
 *   file_io errors DIR    the mistakes return their error class under MPI_ERRORS_RETURN, a
 *                         handler of the program's is called; prints one line per mistake
 *   file_io fatal DIR     MPI_ERRORS_ARE_FATAL set on a file: reading a WRONLY file stops the run
 *   file_io time DIR      each rank on MPI_COMM_SELF (no communication: all start at 0): the
 *                         durations of its reads and writes, "rank R name seconds"
 *   file_io coll DIR      the duration of two MPI_Allgather of one MPI_OFFSET, then of a
 *                         write_at_all of 1 MB per rank, both after a barrier */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_check.h"

#define B 4   /* ints per rank's block */

static int cls(int rc) {
  int c;
  MPI_Error_class(rc, &c);
  return c;
}

static void fill(int *v, int base) {
  for (int i = 0; i < B; i++) v[i] = base + rank * 10 + i;
}

/* Descriptors this process has open (all ranks' under psim: one process). */
static int open_fds(void) {
  int n = 0;
  char p[64];
  for (int fd = 0; fd < 4096; fd++) {
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    n += access(p, F_OK) == 0;
  }
  return n;
}

static void data(const char *path) {
  int fds0 = open_fds();   /* before the barrier: no rank opens a file before all counted */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_Status st;
  int v[B], w[B], n, rc;
  MPI_Offset blk = B * sizeof(int), region = blk * size, pos, off;
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS && fh != MPI_FILE_NULL, "open: rc %d", rc);
  MPI_Errhandler eh;
  MPI_File_get_errhandler(fh, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "a file's default handler is not MPI_ERRORS_RETURN");
  CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh, "c2f/f2c");
  int amode;
  MPI_File_get_amode(fh, &amode);
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);
  MPI_Group g;
  MPI_File_get_group(fh, &g);
  MPI_Group_size(g, &n);
  CHECK(n == size, "group size %d", n);
  MPI_Group_free(&g);

  /* region 0: each rank's block at explicit offsets; read back the next rank's */
  fill(v, 0);
  MPI_File_write_at(fh, rank * blk, v, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B, "write_at count %d", n);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  int next = (rank + 1) % size;
  MPI_File_read_at(fh, next * blk, w, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B && w[0] == next * 10 && w[B - 1] == next * 10 + B - 1, "read_at of rank %d: %d ints, %d..%d", next, n, w[0], w[B - 1]);
  /* the same through a split collective */
  memset(w, 0, sizeof w);
  MPI_File_read_at_all_begin(fh, next * blk, w, B, MPI_INT);
  MPI_File_read_at_all_end(fh, w, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B && w[B - 1] == next * 10 + B - 1, "read_at_all_begin/end of rank %d: %d ints, %d", next, n, w[B - 1]);

  /* region 0 read back through views of other filetypes: indexed (ints 0, 2, 3 of each
   * 4-int tile), struct (ints 1 and 3 of each tile: lb 0, extent 4 ints), contiguous */
  MPI_Datatype ix, sx, sxr, cx;
  int bl[2] = {1, 2}, dp[2] = {0, 2}, sbl[2] = {1, 1};
  MPI_Aint sdp[2] = {sizeof(int), 3 * sizeof(int)};
  MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
  MPI_Type_indexed(2, bl, dp, MPI_INT, &ix);
  MPI_Type_commit(&ix);
  MPI_File_set_view(fh, 0, MPI_INT, ix, "native", MPI_INFO_NULL);
  int x[3 * 8];
  MPI_File_read_at(fh, 3 * rank, x, 3, MPI_INT, &st);   /* tile `rank`: that rank's block */
  CHECK(x[0] == rank * 10 && x[1] == rank * 10 + 2 && x[2] == rank * 10 + 3, "indexed view: %d %d %d", x[0], x[1], x[2]);
  MPI_Type_create_struct(2, sbl, sdp, sty, &sx);
  MPI_Type_create_resized(sx, 0, blk, &sxr);
  MPI_Type_commit(&sxr);
  MPI_File_set_view(fh, 0, MPI_INT, sxr, "native", MPI_INFO_NULL);
  int nr = size < 4 ? size : 4;
  MPI_File_read_at(fh, 0, x, 2 * nr, MPI_INT, &st);
  for (int i = 0; i < nr; i++)
    CHECK(x[2 * i] == i * 10 + 1 && x[2 * i + 1] == i * 10 + 3, "struct view, block %d: %d %d", i, x[2 * i], x[2 * i + 1]);
  MPI_Type_contiguous(2, MPI_INT, &cx);
  MPI_Type_commit(&cx);
  MPI_File_set_view(fh, blk, MPI_INT, cx, "native", MPI_INFO_NULL);   /* from rank 1's block */
  MPI_File_read_at(fh, 0, x, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(size == 1 || (n == B && x[0] == 10 && x[3] == 13), "contiguous view: %d ints, %d", n, x[0]);
  MPI_Type_free(&ix);
  MPI_Type_free(&sx);
  MPI_Type_free(&sxr);
  MPI_Type_free(&cx);

  /* region 1: a vector filetype (2 ints, stride size) resized to 2*size ints, the view shifted
   * by the rank: int k of the rank lands at ints r + k*size of the region (write_all) */
  MPI_Datatype vec, ft;
  MPI_Type_vector(2, 1, size, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 2 * size * (MPI_Aint)sizeof(int), &ft);
  MPI_Type_commit(&ft);
  MPI_Type_free(&vec);
  MPI_File_set_view(fh, region + rank * (MPI_Offset)sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
  MPI_Type_free(&ft);   /* the view keeps its own */
  fill(v, 1000);
  MPI_File_write_all(fh, v, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B, "write_all count %d", n);
  MPI_File_get_position(fh, &pos);
  CHECK(pos == B, "position after write_all %lld", pos);
  MPI_File_get_byte_offset(fh, 3, &off);   /* int 3 of the rank: tile 1, its second int */
  CHECK(off == region + (rank + 3 * size) * (MPI_Offset)sizeof(int), "byte offset of 3: %lld", off);
  MPI_Offset disp;
  MPI_Datatype et, ft2;
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &et, &ft2, rep);
  MPI_Type_size(ft2, &n);
  CHECK(disp == region + rank * (MPI_Offset)sizeof(int) && et == MPI_INT && n == 2 * (int)sizeof(int) && !strcmp(rep, "native"),
        "get_view: disp %lld size %d rep %s", disp, n, rep);
  MPI_Type_free(&ft2);
  /* read back through the view from the start: the rank's own ints */
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  MPI_File_read(fh, w, B, MPI_INT, &st);
  CHECK(w[0] == v[0] && w[3] == v[3], "read through the vector view: %d %d", w[0], w[3]);

  /* region 2: a 2 x 2*size array of ints, rank r's 2 x 2 subarray at column 2r (write_at_all) */
  int gs[2] = {2, 2 * size}, ss[2] = {2, 2}, st0[2] = {0, 2 * rank};
  MPI_Datatype sub;
  MPI_Type_create_subarray(2, gs, ss, st0, MPI_ORDER_C, MPI_INT, &sub);
  MPI_Type_commit(&sub);
  MPI_File_set_view(fh, 2 * region, MPI_INT, sub, "native", MPI_INFO_NULL);
  fill(v, 2000);
  MPI_File_write_at_all(fh, 0, v, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B, "write_at_all count %d", n);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_read_at_all(fh, 0, w, B, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(!memcmp(v, w, sizeof v), "read_at_all through the subarray: %d %d %d %d", w[0], w[1], w[2], w[3]);
  MPI_Type_free(&sub);

  /* region 3 (iwrite_at, iread_at) and 4 (iwrite, iread through the individual pointer) */
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_Request rq[2];
  fill(v, 3000);
  MPI_File_iwrite_at(fh, 3 * region + rank * blk, v, B, MPI_INT, &rq[0]);
  int u[B];
  fill(u, 4000);
  MPI_File_seek(fh, 4 * region + rank * blk, MPI_SEEK_SET);
  MPI_File_iwrite(fh, u, B, MPI_INT, &rq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  MPI_Get_count(&sts[1], MPI_INT, &n);
  CHECK(n == B, "iwrite count %d", n);
  MPI_File_get_position(fh, &pos);
  CHECK(pos == 4 * region + (rank + 1) * blk, "position after iwrite %lld", pos);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_iread_at(fh, 3 * region + next * blk, w, B, MPI_INT, &rq[0]);
  MPI_Wait(&rq[0], &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == B && w[0] == 3000 + next * 10, "iread_at of rank %d: %d ints, %d", next, n, w[0]);
  MPI_File_seek(fh, 4 * region + next * blk, MPI_SEEK_SET);
  MPI_File_iread_all(fh, w, B, MPI_INT, &rq[0]);
  int flag = 0;
  while (!flag) MPI_Test(&rq[0], &flag, &st);
  CHECK(w[B - 1] == 4000 + next * 10 + B - 1, "iread_all of rank %d: %d", next, w[B - 1]);
  MPI_Offset fsize;
  MPI_File_get_size(fh, &fsize);
  CHECK(fsize == 5 * region, "size %lld", fsize);
  /* a read past the end: what there is */
  MPI_File_read_at(fh, 5 * region - 2 * (MPI_Offset)sizeof(int), w, B, MPI_INT, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 2, "read past the end: %d ints", n);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "psim_hint", "kept");
  MPI_File_set_info(fh, info);
  MPI_Info_free(&info);
  MPI_File_get_info(fh, &info);
  char val[32];
  MPI_Info_get(info, "psim_hint", sizeof val - 1, val, &flag);
  /* psim keeps the program's hints; MPI lets an implementation drop those it ignores (ROMIO does) */
  CHECK(!flag || !strcmp(val, "kept"), "get_info: hint %s", val);
  MPI_Info_free(&info);
  MPI_File_close(&fh);
  CHECK(fh == MPI_FILE_NULL, "close leaves MPI_FILE_NULL");

  /* after close: rank 0 alone reads the whole file and checks every int */
  if (rank == 0) {
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int total = 5 * B * size, *all = malloc(total * sizeof *all), bad = 0;
    MPI_File_read(fh, all, total, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == total, "read after close: %d ints of %d", n, total);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < B; i++) {
        bad += all[r * B + i] != r * 10 + i;
        bad += all[B * size + r + i * size] != 1000 + r * 10 + i;
        bad += all[2 * B * size + (i / 2) * 2 * size + 2 * r + i % 2] != 2000 + r * 10 + i;
        bad += all[3 * B * size + r * B + i] != 3000 + r * 10 + i;
        bad += all[4 * B * size + r * B + i] != 4000 + r * 10 + i;
      }
    CHECK(!bad, "read after close: %d ints wrong", bad);
    free(all);
    MPI_File_close(&fh);
  }

  /* ordered and shared pointers, on a second file deleted at close */
  char p2[4096];
  snprintf(p2, sizeof p2, "%s.ordered", path);
  MPI_File_open(MPI_COMM_WORLD, p2, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  int two[2] = {2 * rank, 2 * rank + 1}, got[2];
  MPI_File_write_ordered(fh, two, 2, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_get_position_shared(fh, &pos);
  CHECK(pos == 2 * size * (MPI_Offset)sizeof(int), "shared pointer after write_ordered: %lld", pos);
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  MPI_File_read_ordered(fh, got, 2, MPI_INT, &st);
  CHECK(got[0] == two[0] && got[1] == two[1], "read_ordered: %d %d", got[0], got[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_write_shared(fh, two, 1, MPI_INT, &st);   /* at the end: int 2*size */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_get_size(fh, &fsize);
  CHECK(fsize == (2 * size + 1) * (MPI_Offset)sizeof(int), "size after write_shared %lld", fsize);
  MPI_File_seek_shared(fh, -1, MPI_SEEK_END);   /* the last int, in bytes of the default view */
  MPI_File_get_position_shared(fh, &pos);
  CHECK(pos == fsize - 1, "seek_shared from the end: %lld", pos);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);   /* deleted once every rank closed it */
  if (rank == 0) CHECK(access(p2, F_OK) != 0, "%s survived MPI_MODE_DELETE_ON_CLOSE", p2);

  /* APPEND: the pointers start at the end; set_size and preallocate */
  if (rank == 0) {
    char p3[4096];
    snprintf(p3, sizeof p3, "%s.append", path);
    MPI_File_open(MPI_COMM_SELF, p3, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write(fh, two, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_SELF, p3, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh);
    MPI_File_get_position(fh, &pos);
    CHECK(pos == 2 * (MPI_Offset)sizeof(int), "APPEND: position %lld", pos);
    MPI_File_write(fh, two, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 3 * (MPI_Offset)sizeof(int), "APPEND: size %lld", fsize);
    MPI_File_preallocate(fh, 100);
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 100, "preallocate: size %lld", fsize);
    MPI_File_preallocate(fh, 10);
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 100, "preallocate does not shrink: size %lld", fsize);
    MPI_File_set_size(fh, 8);
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == 8, "set_size: size %lld", fsize);
    MPI_File_close(&fh);
    rc = MPI_File_delete(p3, MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS && access(p3, F_OK) != 0, "delete: rc %d", rc);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fds = open_fds();
  CHECK(fds == fds0, "%d descriptors open after every file was closed, %d before", fds, fds0);
}

static int handler_calls, handler_code;
static MPI_File handler_file;
static void on_error(MPI_File *f, int *code, ...) {
  handler_calls++;
  handler_code = *code;
  handler_file = *f;
}

static void say(const char *what, int rc, int want) {
  if (rank == 0) printf("%s: %s\n", what, cls(rc) == want ? "class ok" : "WRONG CLASS");
  CHECK(cls(rc) == want, "%s: class %d, want %d", what, cls(rc), want);
}

static void errors(const char *dir) {
  char p[4096], missing[4096];
  snprintf(p, sizeof p, "%s/errors.dat", dir);
  snprintf(missing, sizeof missing, "%s/missing.dat", dir);
  MPI_File fh;
  int v[B] = {0}, rc;
  rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  say("open a missing file without MPI_MODE_CREATE", rc, MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL, "a failed open's handle is not MPI_FILE_NULL");
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  say("MPI_MODE_RDONLY | MPI_MODE_RDWR", rc, MPI_ERR_AMODE);
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  say("MPI_MODE_RDONLY | MPI_MODE_CREATE", rc, MPI_ERR_AMODE);
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  say("MPI_MODE_CREATE alone", rc, MPI_ERR_AMODE);
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "open WRONLY: rc %d", rc);
  rc = MPI_File_read_at(fh, 0, v, B, MPI_INT, MPI_STATUS_IGNORE);
  say("read of a MPI_MODE_WRONLY file", rc, MPI_ERR_ACCESS);
  rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL);
  say("data representation external32", rc, MPI_ERR_UNSUPPORTED_DATAREP);
  rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
  say("seek before the start", rc, MPI_ERR_ARG);
  /* the program's handler is called, with the file and the code, and the call returns it */
  MPI_Errhandler eh;
  MPI_File_create_errhandler(on_error, &eh);
  MPI_File_set_errhandler(fh, eh);
  rc = MPI_File_read(fh, v, B, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(handler_calls == 1 && handler_file == fh && cls(handler_code) == MPI_ERR_ACCESS && cls(rc) == MPI_ERR_ACCESS,
        "handler: %d calls, class %d", handler_calls, cls(handler_code));
  if (rank == 0) printf("the program's file error handler: %s\n", handler_calls == 1 ? "called" : "NOT CALLED");
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  MPI_File_close(&fh);
  /* split collectives: one at a time, an end needs its begin */
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "open RDWR: rc %d", rc);
  rc = MPI_File_write_all_end(fh, v, MPI_STATUS_IGNORE);
  say("a split collective's end without its begin", rc, MPI_ERR_OTHER);
  MPI_File_write_at_all_begin(fh, rank * sizeof v, v, B, MPI_INT);
  rc = MPI_File_read_all_begin(fh, v, B, MPI_INT);
  say("a second split collective begun", rc, MPI_ERR_OTHER);
  rc = MPI_File_write_at_all_end(fh, v, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "write_at_all_end: rc %d", rc);
  MPI_File_close(&fh);
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &fh);
  say("MPI_MODE_EXCL on an existing file", rc, MPI_ERR_FILE_EXISTS);
  rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "open RDONLY: rc %d", rc);
  rc = MPI_File_write(fh, v, B, MPI_INT, MPI_STATUS_IGNORE);
  say("write of a MPI_MODE_RDONLY file", rc, MPI_ERR_READ_ONLY);
  MPI_File_close(&fh);
  rc = MPI_File_close(&fh);
  say("close of MPI_FILE_NULL", rc, MPI_ERR_FILE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    rc = MPI_File_delete(p, MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "delete: rc %d", rc);
    rc = MPI_File_delete(p, MPI_INFO_NULL);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  say("delete a missing file", rc, MPI_ERR_NO_SUCH_FILE);
}

static void fatal(const char *dir) {
  char p[4096];
  snprintf(p, sizeof p, "%s/fatal.dat", dir);
  MPI_File fh;
  int v[B];
  MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL);
  MPI_File_read_at(fh, 0, v, B, MPI_INT, MPI_STATUS_IGNORE);
  printf("rank %d: not stopped\n", rank);
  MPI_File_close(&fh);
}

static char *buffer;
static void timed(const char *name, double t0) {
  printf("rank %d %s %.9f\n", rank, name, MPI_Wtime() - t0);
}

/* On MPI_COMM_SELF: no communication, every rank's I/O starts at 0 and runs alongside the
 * others' on the disk of its host. */
static void times(const char *dir) {
  char p[4096];
  snprintf(p, sizeof p, "%s/time%d.dat", dir, rank);
  MPI_File fh;
  MPI_File_open(MPI_COMM_SELF, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  double t0 = MPI_Wtime();
  MPI_File_write_at(fh, 0, buffer, 1000000, MPI_BYTE, MPI_STATUS_IGNORE);
  timed("write", t0);
  t0 = MPI_Wtime();
  if (rank == 0) MPI_File_read_at(fh, 0, buffer, 1000000, MPI_BYTE, MPI_STATUS_IGNORE);
  else MPI_File_write_at(fh, 1000000, buffer, 1000000, MPI_BYTE, MPI_STATUS_IGNORE);
  timed(rank == 0 ? "read" : "write2", t0);
  if (rank == 0) {   /* alone now: a write and a read at once */
    MPI_Request rq[2];
    t0 = MPI_Wtime();
    MPI_File_iwrite_at(fh, 0, buffer, 1000000, MPI_BYTE, &rq[0]);
    MPI_File_iread_at(fh, 0, buffer + 1000000, 500000, MPI_BYTE, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    timed("iread", t0);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    timed("iwrite+iread", t0);
  }
  MPI_File_close(&fh);
}

static void coll(const char *dir) {
  char p[4096];
  snprintf(p, sizeof p, "%s/coll.dat", dir);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  MPI_Offset o = 0, all[64];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allgather(&o, 1, MPI_OFFSET, all, 1, MPI_OFFSET, MPI_COMM_WORLD);
  MPI_Allgather(&o, 1, MPI_OFFSET, all, 1, MPI_OFFSET, MPI_COMM_WORLD);
  timed("allgather2", t0);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  MPI_File_write_at_all(fh, rank * 1000000, buffer, 1000000, MPI_BYTE, MPI_STATUS_IGNORE);
  timed("write_at_all", t0);
  MPI_File_close(&fh);
}

int main(int argc, char **argv) {
  check_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "data", *arg = argc > 2 ? argv[2] : "file_io.dat";
  buffer = calloc(2000000, 1);
  if (!strcmp(mode, "data")) data(arg);
  else if (!strcmp(mode, "errors")) errors(arg);
  else if (!strcmp(mode, "fatal")) fatal(arg);
  else if (!strcmp(mode, "time")) times(arg);
  else if (!strcmp(mode, "coll")) coll(arg);
  free(buffer);
  return check_done();
}
