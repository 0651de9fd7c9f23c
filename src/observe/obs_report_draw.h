/* Drawing helpers shared by the sections of the HTML report (private to src/observe/):
 * escaping, number formats, axes. Every chart is inline SVG of this width. */
#ifndef PSIM_OBS_REPORT_DRAW_H
#define PSIM_OBS_REPORT_DRAW_H

#include <stddef.h>
#include <stdio.h>

#include "psim/observe.h"
#include "psim/util.h"

enum { OBS_W = 960, OBS_LEFT = 110, OBS_RIGHT = 40 };

/* obs_html_esc, obs_fmt_time and obs_fmt_bytes are in psim/observe.h: psim sweep's page (src/cli/)
 * uses them too. */
/* A time axis along y from x0 to x0+w for [t0, t1], 5 ticks. */
void obs_svg_time_axis(FILE *f, double x0, double w, double y, double t0, double t1);
/* A vertical axis title centred at (x, ymid). */
void obs_svg_ylabel(FILE *f, double x, double ymid, const char *text);
/* Colour k in [0, 1] between lo and hi (RGB) as "rgb(r,g,b)". */
void obs_ramp(double k, const int lo[3], const int hi[3], char *out, size_t n);
/* Where v falls in [lo, hi], 0..1 (log scale: lo > 0; v <= 0 gives 0). */
double obs_scale_pos(double v, double lo, double hi, int logscale);
/* A colour bar of width w at (x, y) from lo to hi with 5 labelled values and the unit. */
void obs_svg_colour_scale(FILE *f, double x, double y, double w, double lo, double hi, int logscale,
                          const int c0[3], const int c1[3], const char *title, const char *unit);
/* The report's fixed state legend (HTML), the states whose bit is set in mask. */
void obs_report_legend(FILE *f, unsigned mask);
/* The zoomable timeline section (obs_report_tl.c). */
void obs_report_timeline(FILE *f, const jv *doc);
/* An axis of iterations 1..n along y from x0 to x0+w (iteration i spans its 1/n). */
void obs_svg_iter_axis(FILE *f, double x0, double w, double y, int n);
/* The numbers of a JSON array into a new array of jv_len(v) (missing ones: NAN). */
double *obs_jv_numbers(const jv *v, size_t *n);

/* Sections drawn from a psim lb document (obs_report_lb.c) and a sensitivity document
 * (obs_report_sens.c). */
void obs_report_lb(FILE *f, const jv *doc);
void obs_report_sensitivity(FILE *f, const jv *doc);
/* psim lb's PE-level timeline: which VP ran on which PE, migrations at each step (obs_report_lb.c). */
void obs_report_pe_timeline(FILE *f, const jv *doc);
/* The sections of the model features when the document has them: CPU use per host, load
 * averages, dynamic efficiency per iteration, host events (obs_report_model.c). */
void obs_report_model(FILE *f, const jv *doc);
/* The comparison page of several runs: docs are whole documents (one run each, or psim lb's
 * {"runs": [...]}, or a sweep's); returns -1 with err when none holds a run (obs_report_cmp.c). */
int obs_report_compare(FILE *f, const jv *const *docs, const char *const *titles, int n, psim_err *err);
/* Whether doc is one run's result (has "ranks" and "simulated_time"). */
int obs_is_run_doc(const jv *doc);
/* The page's head (title, CSS) and tail. */
void obs_report_head(FILE *f, const char *title, const char *command);
void obs_report_tail(FILE *f);

#endif
