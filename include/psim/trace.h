/* psim trace layer: streaming reader of SimGrid time-independent traces (TIT).
 *
 * A tit_source gives each rank a cursor over its own actions, whatever the layout on disk:
 * one shared file holding every rank's lines, one file per rank, a list file naming those
 * files (SimGrid's -replay argument), or a directory written by `psim gen` (its list file is
 * used). Files may be gzip- or zstd-compressed (detected from their magic bytes).
 *
 * Memory does not grow with trace length: a cursor keeps a position, not the lines. The
 * number of files open at once is bounded (a small LRU of plain-text files re-opened at their
 * saved offset), so 65536 per-rank files replay under the default `ulimit -n`.
 *
 * Traces in other tools' formats (Paraver .prv, Dimemas .dim, LogGOPSim GOAL), recognised by
 * their content, are converted on opening into TIT actions (docs/TRACES.md): every command
 * reading a tit_source reads them unchanged. Their compute, recorded as time, becomes flops at
 * the reference speed (tit_set_ref_speed); what they do not record is warned about on stderr.
 *
 * Ownership: tit_open allocates, tit_close frees. A tit_action's pointers (text, counts) are
 * owned by the source and valid until the next tit_next() for the same rank. */
#ifndef PSIM_TRACE_H
#define PSIM_TRACE_H

#include <stdint.h>

#include "psim/util.h"

typedef enum {
  TIT_INIT, TIT_FINALIZE, TIT_NOOP, /* comm_size, comm_split, comm_dup */
  TIT_SEND, TIT_ISEND, TIT_RECV, TIT_IRECV, TIT_SENDRECV,
  TIT_WAIT, TIT_TEST, TIT_WAITALL,
  TIT_BARRIER, TIT_BCAST, TIT_REDUCE, TIT_ALLREDUCE, TIT_ALLTOALL, TIT_ALLTOALLV,
  TIT_GATHER, TIT_ALLGATHER, TIT_GATHERV, TIT_ALLGATHERV, TIT_SCATTER, TIT_SCATTERV,
  TIT_REDUCESCATTER, TIT_SCAN, TIT_EXSCAN,
  TIT_COMPUTE, TIT_SLEEP, TIT_LOCATION, TIT_MIGRATE,
  TIT_ITERATION,   /* psim's iteration marker (dynamic efficiency, --host-events iter=N) */
  TIT_NKINDS
} tit_kind;

const char *tit_kind_name(tit_kind k);

/* One parsed action. All sizes are already in BYTES (count x datatype size, using the rank's
 * default datatype when the line has no code: MPI_BYTE after a bare `init`, MPI_DOUBLE after
 * `init <anything>`). Field use per kind:
 *   send/isend        peer=dst tag bytes
 *   recv/irecv        peer=src tag bytes (bytes < 0: take the matching send's size)
 *   sendrecv          peer=dst bytes (send), peer2=src bytes2 (recv); tags are 0
 *   wait/test         peer=src peer2=dst tag (request keys: not range-checked, any int)
 *   bcast             bytes root
 *   reduce            bytes amount=flops root
 *   allreduce/scan/exscan  bytes amount=flops
 *   alltoall/allgather     bytes=send per peer, bytes2=recv per peer
 *   gather/scatter    bytes=send, bytes2=recv (per rank), root
 *   alltoallv         counts[0..n-1]=send bytes per peer, counts2[0..n-1]=recv bytes per peer
 *                     (bytes, bytes2 = the declared send/recv buffer sizes, in bytes)
 *   gatherv           bytes=send, counts2[]=recv bytes per rank, root
 *   allgatherv        bytes=send, counts2[]=recv bytes per rank (one datatype code for both
 *                     sides, then optional displacements, as SimGrid reads them)
 *   scatterv          counts[]=send bytes per rank, bytes2=recv, root
 *   reducescatter     counts2[]=recv bytes per rank, amount=flops
 *   compute           amount=flops     sleep  amount=seconds
 *   migrate           bytes (-1 when absent: use the default VP memory)
 *   iteration         (no fields: ends the rank's current iteration)
 *   location          (no fields; text keeps the file and line)
 * `ncounts` is the communicator size the v-collectives were parsed with. */
typedef struct tit_action {
  tit_kind kind;
  int rank;
  int peer, peer2, root, tag;
  double bytes, bytes2;
  double amount;
  const double *counts, *counts2;
  int ncounts;
  int dtsize;            /* bytes per element of the (send) datatype used for this action */
  const char *text;      /* the line without its leading rank field, trimmed (not NUL-terminated) */
  int text_len;
  const char *file;      /* the file it came from */
  long line;             /* its 1-based line number there */
  /* psim run's report of an MPI call (src/emul/emu_observe.c) names the function and gives
   * no fields, but for a collective on MPI_COMM_WORLD: then this is 1, and root, sizes and
   * amount are the call's, as a trace line gives them */
  unsigned char run_fields;
} tit_action;

typedef struct tit_source tit_source;

/* Opens a trace given as paths[0..npaths-1]:
 *  - one path that is a directory: its list file (`<dir>/list` or the only *.list file)
 *  - one path that is a list file (every non-empty line names an existing file): as SimGrid
 *  - one path otherwise: a shared file holding all ranks' lines
 *  - several paths: one file per rank, in rank order.
 * nranks: the communicator size (--np); 0 = deduce it (per-rank files: their number; shared
 * file: 1 + the largest rank seen, which costs one pass over the file).
 * Returns NULL with err filled (missing file, unreadable, bad list entry...). */
tit_source *tit_open(const char *const *paths, int npaths, int nranks, psim_err *err);

int tit_nranks(const tit_source *s);

/* The caller keeps (copies) an action's text before the next tit_next of ANY rank, instead of
 * the next one of the same rank: the source then keeps no copy of each rank's last line
 * (64 bytes or more a rank, issue 38), and a's text may point into a read buffer that another
 * rank's read reuses. Its counts and file stay valid as tit_next says. psim replay does so. */
void tit_borrow_lines(tit_source *s);

/* Number of ranks in 0..tit_nranks-1 that have at least one line, and (when first_missing is
 * not NULL) the first rank that has none, -1 when every rank has lines. A shared file opened
 * with more ranks than it holds, or with a gap, gives those ranks no actions: the command
 * line reports it (such a rank would end at once and its peers wait for it). Per-rank files:
 * every rank counts; one whose file holds no action is reported by tit_next at its first read,
 * as is a file whose first action belongs to another rank (files given out of order). */
int tit_ranks_present(const tit_source *s, int *first_missing);

/* Reads rank r's next action. Returns 1 with *a filled, 0 at the end of its actions, -1 on a
 * malformed line with err naming file, line and what was expected (unknown action, missing
 * argument, a number that does not parse, a rank out of range, ...). Lines for another rank in
 * a per-rank file are skipped, as SimGrid does, except when they come first: a per-rank file
 * whose first action is another rank's, or that holds no action, is an error. Unlike SimGrid, a last line without a newline
 * is read. */
int tit_next(tit_source *s, int r, tit_action *a, psim_err *err);

void tit_close(tit_source *s);

/* Extrae's value of MPI function `name` in its MPI call events ("MPI_Send" 1, "MPI_Recv" 2...:
 * the numbering the Paraver reader assumes without a .pcf), 0 when it has none here. */
int tit_prv_call_value(const char *name);

/* "TIT", or the format a foreign trace was converted from ("Paraver", "Dimemas", "GOAL"). */
const char *tit_format(const tit_source *s);

/* Reference speed (flop/s) turning a foreign trace's compute time into flops: the traced
 * machine's speed, so that a replay on a platform of that speed reproduces the traced compute
 * time. Process-wide, read by tit_open; commands set it from --ref-speed, else from their
 * platform's host speed. Unset (or set to a value <= 0): TIT_DEFAULT_REF_SPEED. */
#define TIT_DEFAULT_REF_SPEED 1e9
void tit_set_ref_speed(double flops);
double tit_ref_speed(void);
int tit_ref_speed_is_set(void);
/* A foreign trace's compute from a hardware counter instead of its time (--compute-counter
 * NAME|TYPE; Paraver alone: Extrae's counter events, PAPI_TOT_INS = 42000050): a burst's volume
 * is what the counter counted between leaving one MPI call and entering the next. NULL (the
 * default): time at the reference speed. --compute-scale F multiplies every compute volume read
 * from a foreign trace, time- or counter-based (default 1). Process-wide, read by tit_open. */
void tit_set_compute_counter(const char *name_or_type);
const char *tit_compute_counter(void);
void tit_set_compute_scale(double factor);
double tit_compute_scale(void);

/* Number of lines skipped so far because a per-rank file held another rank's line (SimGrid
 * warns about each; psim counts them so the command line can warn once). */
long tit_skipped_lines(const tit_source *s);

/* Size in bytes of TIT datatype code c (0 double ... 59 COUNT), or -1 when unknown. */
int tit_datatype_size(int code);

#endif
