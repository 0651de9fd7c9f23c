/* psim observation: what a run produced, written for people and for programs.
 * Writers only read the result; the caller owns files and results. */
#ifndef PSIM_OBSERVE_H
#define PSIM_OBSERVE_H

#include <stddef.h>
#include <stdio.h>

#include "psim/replay.h"

/* Describes the run for the outputs (all borrowed). */
typedef struct run_meta {
  const char *command;        /* "replay", "lb", "run" */
  const char *platform;       /* its name */
  const char *network;        /* "smpi", "constant" or "star" */
  const char *const *traces;
  int ntraces;
  const platform *plat;
  const coll_selector *coll;
  const char *machine_file;   /* --machine, NULL when none */
} run_meta;

/* Writes a number so that it reads back exactly (shortest round-trip form). */
void obs_json_number(FILE *f, double x);
void obs_json_string(FILE *f, const char *s);

/* ---- psim's JSON documents read back (obs_json_read.c): the report, psim sweep's results and
 * its --resume read what the writers above wrote, as a tree ---- */
typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jv {
  jv_type type;
  double num;            /* JV_NUM, JV_BOOL (0/1) */
  char *str;             /* JV_STR (decoded, NUL-terminated) */
  struct jv *items;      /* JV_ARR, JV_OBJ: n values */
  char **keys;           /* JV_OBJ: n keys */
  size_t n;
} jv;

/* Parses text[0..len). Returns NULL with a message (byte offset included) in err. */
jv *jv_parse(const char *text, size_t len, char *err, size_t errlen);
void jv_free(jv *v);
/* Member of an object (NULL when absent or v is not an object). */
const jv *jv_get(const jv *v, const char *key);
/* Item i of an array (NULL when out of range or not an array). */
const jv *jv_at(const jv *v, size_t i);
/* Number value, or dflt when v is not a number. */
double jv_num(const jv *v, double dflt);
const char *jv_str(const jv *v, const char *dflt);
size_t jv_len(const jv *v);   /* items of an array or object, else 0 */

/* Text for HTML (element content and attribute values): the report's, and psim sweep's page. */
void obs_html_esc(FILE *f, const char *s);
/* "1.234 s", "12.3 ms", "4.5 us"; bytes as "1.2 MB". */
void obs_fmt_time(char *b, size_t n, double t);
void obs_fmt_bytes(char *b, size_t n, double x);

/* The JSON document of a replay: simulated_time, ranks[], totals. Deterministic. */
void obs_write_json(FILE *f, const replay_result *r, const run_meta *m);
/* The same document without its closing "\n}\n", for writers that add sections. */
void obs_write_json_body(FILE *f, const replay_result *r, const run_meta *m);
/* Only its "ranks": [...] and "totals": {...} members (no separator around them), for
 * documents of other shapes (psim lb's) that carry the per-rank table. Per rank and in the
 * totals: compute_time, comm_time, wait_time (see rank_stats), and for psim lb (command "lb")
 * pe_wait_time and lb_time; a rank that never finished (deadlock) has "blocked": true. */
void obs_write_json_ranks(FILE *f, const replay_result *r, const run_meta *m);
/* Only the "totals": {...} member. */
void obs_write_json_totals(FILE *f, const replay_result *r, const run_meta *m);
/* The CPU model's sections (",\n" first; `in` indents them): "cpu_model", "hosts",
 * "loadavg" (obs_cpu.c); nothing when r->cpu is NULL. */
void obs_write_json_cpu(FILE *f, const replay_result *r, const char *in);
/* The CPU model's lines of the human summary (nothing when r->cpu is NULL). */
void obs_write_summary_cpu(FILE *f, const replay_result *r);
/* Sums of the ranks' times (finish = the sum of their finish dates). */
typedef struct obs_time_totals { double finish, compute, comm, wait, pe_wait, lb, move; } obs_time_totals;
void obs_totals(const replay_result *r, obs_time_totals *t);
/* The same as shares of np x simulated time (0.25 = 25 %), safe from overflow when the times
 * are huge. Returns 0 (and nothing meaningful) when the simulated time is 0. */
int obs_shares(const replay_result *r, obs_time_totals *t);
/* The human summary (a table of ranks; condensed when there are many). */
void obs_write_summary(FILE *f, const replay_result *r, const run_meta *m);
/* Dynamic efficiency and host events (obs_dyn.c; r->dyn): the members ",\n  \"iterations\": [...]"
 * (when with_iterations), "processor_seconds" and "host_events", each when there is something
 * to say; and their lines for the summary. obs_write_json_body and obs_write_summary call
 * these; documents of other shapes (psim lb's) call them themselves. */
void obs_write_json_dyn(FILE *f, const replay_result *r, int with_iterations);
void obs_write_summary_dyn(FILE *f, const replay_result *r);

/* ---- observers of a run (each a replay_observer; also usable by lb and run) ----
 * Every writer below owns its ctx: build it with *_new, hand obs_*_observer() to the run in
 * replay_opts.observers, then call *_free after the run. Output is deterministic: it depends
 * only on the simulated events, which arrive in a deterministic order. */

/* Where each rank runs: rank_host[r] is a host index of plat (what replay_run uses:
 * the hostfile's entries cycled over, else the platform's hosts in order). Caller frees. */
int *obs_rank_hosts(const platform *plat, const int *hostfile, int nhostfile, int np);

/* What a state is called in traces and reports ("compute", "send", "wait", "bcast", ...). */
const char *obs_state_name(tit_kind k);
/* Coarse category for charts: 0 compute, 1 point-to-point, 2 wait/test, 3 collective,
 * 4 other (migrate, location, noop). */
enum { OBS_CAT_COMPUTE, OBS_CAT_P2P, OBS_CAT_WAIT, OBS_CAT_COLL, OBS_CAT_OTHER, OBS_NCATS };
int obs_category(tit_kind k);
const char *obs_category_name(int cat);
/* The states of the report's one fixed legend (every chart, the summary bar included):
 * what a rank is doing, as Vampir or Paraver would colour it. OBS_ST_IDLE is a rank with
 * nothing to do (finished, or between recorded actions); OBS_ST_LB a VP at a balancing step
 * (psim lb's migrate); OBS_ST_PE a VP ready to run but waiting for its PE (psim lb). */
enum { OBS_ST_COMPUTE, OBS_ST_SEND, OBS_ST_RECV, OBS_ST_WAIT, OBS_ST_COLL, OBS_ST_IDLE, OBS_ST_LB,
       OBS_ST_PE, OBS_NSTATES };
int obs_state_of(tit_kind k);
const char *obs_state_label(int st);    /* "compute", "sending", ..., "waiting for its PE" */
const char *obs_state_colour(int st);   /* "#rrggbb" */

/* Paje trace (SimGrid's format, read by PajeNG/ViTE): a container per host holding one per
 * rank, a state per action, a link per message. */
typedef struct obs_paje obs_paje;
obs_paje *obs_paje_new(FILE *f, const platform *plat, const int *rank_host, int np);
replay_observer obs_paje_observer(obs_paje *w);
void obs_paje_free(obs_paje *w);

/* Chrome trace-event JSON (Perfetto, chrome://tracing): a track per rank, an "X" event per
 * action, a flow arrow per message. */
typedef struct obs_chrome obs_chrome;
obs_chrome *obs_chrome_new(FILE *f, const platform *plat, const int *rank_host, int np);
replay_observer obs_chrome_observer(obs_chrome *w);
void obs_chrome_free(obs_chrome *w);

/* Paraver trace (BSC's Paraver, Extrae's format): FILE.prv with FILE.pcf (names) and FILE.row
 * (resources) beside it: a state per action, MPI call events, a communication record per
 * point-to-point message. Everything is kept until obs_prv_write, after the run, which
 * writes the .prv to f (the caller closes it) and the .pcf and .row (-1 with err when they
 * cannot be written). */
typedef struct obs_prv obs_prv;
obs_prv *obs_prv_new(FILE *f, const char *path, const platform *plat, const int *rank_host, int np);
replay_observer obs_prv_observer(obs_prv *w);
int obs_prv_write(obs_prv *w, psim_err *err);
void obs_prv_free(obs_prv *w);

/* OTF2 archive (Vampir, Score-P's format) DIR/NAME.otf2, DIR/NAME.def, DIR/NAME/: regions per
 * MPI call, point-to-point and collective records. Kept until obs_otf2_write, after the run.
 * A psim built without libotf2: obs_otf2_new returns NULL with err naming the package. */
typedef struct obs_otf2 obs_otf2;
obs_otf2 *obs_otf2_new(const char *dir, const char *name, const platform *plat, const int *rank_host, int np,
                       psim_err *err);
replay_observer obs_otf2_observer(obs_otf2 *w);
int obs_otf2_write(obs_otf2 *w, psim_err *err);
void obs_otf2_free(obs_otf2 *w);

/* A trace writer chosen by the file name: *.paje / *.trace -> Paje, *.json -> Chrome,
 * *.prv -> Paraver, *.otf2 -> OTF2 (the anchor: its .def and directory go beside it), or by
 * the format named (--trace-prv FILE, --trace-otf2 DIR: the archive DIR/traces.otf2).
 * Returns NULL with err when the extension is unknown or the file cannot be opened. */
typedef enum { OBS_TRACE_BY_NAME, OBS_TRACE_PAJE, OBS_TRACE_CHROME, OBS_TRACE_PRV, OBS_TRACE_OTF2 } obs_trace_format;
typedef struct obs_trace obs_trace;
obs_trace *obs_trace_open(const char *path, const platform *plat, const int *rank_host, int np,
                          psim_err *err);
obs_trace *obs_trace_open_as(const char *path, obs_trace_format format, const platform *plat,
                             const int *rank_host, int np, psim_err *err);
replay_observer obs_trace_observer(obs_trace *t);
/* Writes what is written after the run (Paraver, OTF2) and closes the files; returns -1 with
 * err when writing failed. */
int obs_trace_close(obs_trace *t, psim_err *err);

/* Progress on a terminal (simulated time, actions, actions/s), cleared at the end. Give it
 * stderr only when isatty(2): it reads the wall clock. */
typedef struct obs_progress obs_progress;
obs_progress *obs_progress_new(FILE *f);
replay_observer obs_progress_observer(obs_progress *p);
void obs_progress_free(obs_progress *p);

/* ---- recording: what the critical path, the timeline and the report are computed from ---- */
typedef struct obs_act {
  double start, end;
  uint32_t text;            /* offset of its text in obs_record.text (keep_text), else 0 */
  uint32_t line;            /* its line in its rank's file (obs_record.file), 0 unknown */
  uint16_t text_len;
  uint8_t kind;             /* tit_kind */
} obs_act;

typedef struct obs_msg {
  int src, dst;
  double bytes, send_posted, recv_posted, xfer_start, xfer_end;
  uint8_t coll, detached, received;   /* received: a receive was matched when it arrived */
} obs_msg;

/* A part of an action that is not waiting (replay_observer.phase): what = REPLAY_PHASE_*. */
typedef struct obs_phase {
  double start, end;
  uint8_t what;
} obs_phase;

typedef struct obs_record {
  int np, keep_text;
  VEC(obs_act) *acts;       /* per rank, in order */
  VEC(obs_phase) *phases;   /* per rank, in order of end */
  VEC(obs_msg) msgs;        /* in arrival order */
  VEC(char) text;
  char **file;              /* per rank: the trace file its first action came from (or NULL) */
  double end_time;
} obs_record;

obs_record *obs_record_new(int np, int keep_text);
replay_observer obs_record_observer(obs_record *r);
void obs_record_free(obs_record *r);

/* The critical path: walking back from the last rank to finish, each step is a segment of a
 * rank's time or a message transfer that made a rank wait. A rank's segment is computing
 * (compute actions, a reduction's computation), paying an MPI overhead (os, ois, or), a VP
 * waiting for its PE, or waiting (in an MPI call with neither a message of its own to blame
 * nor any of those). Segments are listed from the start of the run to its end. */
enum { OBS_CP_COMPUTE, OBS_CP_TRANSFER, OBS_CP_WAIT, OBS_CP_OVERHEAD, OBS_CP_PE };
typedef struct obs_cp_seg {
  int what;                 /* OBS_CP_* */
  int rank;                 /* the rank whose time it is (transfer: the receiving side) */
  int peer;                 /* transfer: the other rank; else -1 */
  int src, dst;             /* transfer: its direction (the waiting rank is either) */
  double start, end, bytes;
  long act;                 /* index of the action in rank's list (-1 for a transfer) */
} obs_cp_seg;

typedef struct obs_critpath {
  VEC(obs_cp_seg) segs;
  double length, compute, transfer, wait, overhead, pe_wait;
  double *rank_compute, *rank_transfer, *rank_wait, *rank_overhead, *rank_pe;   /* np each */
  int np, last_rank;
} obs_critpath;

/* res (may be NULL) gives each rank's finish time: the path starts at the last one to finish
 * (its trace's end can come after its last reported action: pending requests, finalize). */
void obs_critpath_compute(const obs_record *rec, const replay_result *res, obs_critpath *cp);
void obs_critpath_free(obs_critpath *cp);
/* The human listing (consecutive segments of one rank and kind merged). */
void obs_critpath_write_text(FILE *f, const obs_critpath *cp, const obs_record *rec);
/* As a JSON object (no trailing newline). */
void obs_critpath_write_json(FILE *f, const obs_critpath *cp, const obs_record *rec, int indent);

/* The JSON document of obs_write_json plus the sections the report draws: "timeline"
 * (per-rank state intervals by category, merged; per-rank time bins when too many),
 * "comm_matrix" (bytes between ranks), "critical_path". */
void obs_write_json_full(FILE *f, const replay_result *r, const run_meta *m,
                         const obs_record *rec, const obs_critpath *cp);
/* Only those sections, each preceded by ",\n" (nothing when rec is NULL), for documents that
 * add them to another body (psim lb's object). */
void obs_write_json_sections(FILE *f, const replay_result *r, const obs_record *rec,
                             const obs_critpath *cp);

/* Writes the self-contained HTML report of a JSON document written by obs_write_json_full
 * (plain obs_write_json documents give a report without the timeline sections).
 * Returns -1 with err when the document cannot be read. */
int obs_write_report(FILE *f, const char *json_text, size_t len, const char *title, psim_err *err);
/* The same for n documents: one run's document alone gives its page; several (or one holding
 * several runs: psim lb's {"runs": [...]}, a sweep's {"runs": [{"result": ...}]}) give a
 * comparison page: makespan, efficiency, imbalance side by side, overlaid average-load
 * curves, where the time goes and its difference from the first run. */
int obs_write_report_many(FILE *f, const char *const *texts, const size_t *lens, const char *const *titles, int n,
                          psim_err *err);

#endif
