/* Readers of other tools' trace formats (src/trace/trace_*.c), shared by their files:
 *   trace_foreign.c  recognising a format by its content, the per-rank action lists every
 *                    reader fills (fx_trace), what TIT cannot say resolved before writing
 *                    (ANY_SOURCE receives), and the TIT text tit_source.c then indexes;
 *   trace_prv.c      Paraver (.prv, with its .pcf beside it), trace_dim.c Dimemas (.dim),
 *   trace_goal.c     LogGOPSim's GOAL schedules, trace_dumpi.c SST DUMPI (.meta and one .bin
 *                    per rank), trace_otf2.c Score-P OTF2 (through libotf2, when built with it).
 * A reader validates everything it reads and fails naming the file and the line, so that the
 * TIT it hands on never fails to parse: errors are about the user's file, not a temporary one.
 * Compute is kept in seconds until writing, where the reference speed turns it into flops. */
#ifndef PSIM_TRACE_FOREIGN_H
#define PSIM_TRACE_FOREIGN_H

#include <stdio.h>

#include "tit_internal.h"

typedef enum { FX_NONE = 0, FX_PRV, FX_DIM, FX_GOAL, FX_DUMPI, FX_OTF2 } fx_format;

/* One action of one rank. Point-to-point: peer, tag, bytes (receives: peer -1 = ANY_SOURCE
 * until fx_finish resolves it). wait: req = index, in the same rank's list, of the isend or
 * irecv it completes (its TIT key is derived from that request when writing). Collectives:
 * bytes = send size, bytes2 = receive size (per peer for the all-to-all kinds), root.
 * compute: secs, or count (>= 0) when read from a counter (tit_compute_counter). */
typedef struct fx_op {
  tit_kind kind;
  int peer, tag, root;
  long req;
  double bytes, bytes2, secs, count;
} fx_op;

typedef struct fx_ops {
  fx_op *data;
  size_t len, cap;
} fx_ops;

typedef struct fx_trace {
  const char *format;   /* "Paraver", "Dimemas", "GOAL" */
  const char *path;
  int nranks;
  fx_ops *ranks;
  VEC(char *) warnings; /* what was not recorded or had to be approximated, one line each */
} fx_trace;

/* Sets the number of ranks (once): 1..TIT limit, else an error naming file and line. */
int fx_set_nranks(fx_trace *t, long n, long line, psim_err *err);
/* Appends an action of kind k to rank r (0 <= r < nranks), fields zeroed, peer/root/req -1. */
fx_op *fx_push(fx_trace *t, int r, tit_kind k);
/* Adds a warning unless the same text was already given (counts are in the text). */
void fx_warn(fx_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fx_free(fx_trace *t);

/* The format of path from its first bytes (gzip-compressed files are looked into). */
fx_format fx_detect(const char *path);
/* In directory dir, the one file that is a DUMPI .meta or an OTF2 anchor (malloc'd path, its
 * format in *f), or NULL when there is none or more than one. */
char *fx_detect_dir(const char *dir, fx_format *f);
/* Reads path in format f into t, resolves ANY_SOURCE receives and checks the result (peers
 * in range, every rank has actions). */
int fx_read(const char *path, fx_format f, fx_trace *t, psim_err *err);
/* Writes t as TIT text, ranks one after the other, compute in flops at ref_speed flop/s. */
int fx_write_tit(const fx_trace *t, FILE *f, int rank, double ref_speed);

int fx_prv_read(const char *path, fx_trace *t, psim_err *err);
int fx_dim_read(const char *path, fx_trace *t, psim_err *err);
int fx_goal_read(const char *path, fx_trace *t, psim_err *err);
int fx_dumpi_read(const char *path, fx_trace *t, psim_err *err);
int fx_otf2_read(const char *path, fx_trace *t, psim_err *err);
/* A line of a DUMPI .meta that only such a file has (numprocs=, fileprefix=). */
int fx_dumpi_is_meta(const char *l, size_t n);

/* Lines of a file, plain or compressed, through tit_io (one stream). */
typedef struct fx_lines {
  tit_io io;
  tit_stream st;
  const char *path;
  long line;
} fx_lines;
void fx_lines_open(fx_lines *L, const char *path);
/* 1 with the next line (trailing '\r' removed), 0 at the end, -1 with err. */
int fx_line(fx_lines *L, const char **l, size_t *n, psim_err *err);
void fx_lines_close(fx_lines *L);

/* Splits [l, l+n) at sep into at most max fields; returns how many. */
int fx_split(const char *l, size_t n, char sep, const char **f, size_t *fl, int max);
/* Decimal integer / finite number filling the whole field: 0, else -1. */
int fx_long(const char *s, size_t n, long *v);
int fx_double(const char *s, size_t n, double *v);
/* An error about file:line for field `what`, showing the field safely. */
int fx_bad(psim_err *err, const char *file, long line, const char *what, const char *s, size_t n);

#endif
