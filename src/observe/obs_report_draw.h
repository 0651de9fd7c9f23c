/* Drawing helpers shared by the sections of the HTML report (private to src/observe/):
 * escaping, number formats, axes. Every chart is inline SVG of this width. */
#ifndef PSIM_OBS_REPORT_DRAW_H
#define PSIM_OBS_REPORT_DRAW_H

#include <stddef.h>
#include <stdio.h>

#include "obs_json_read.h"

enum { OBS_W = 960, OBS_LEFT = 110, OBS_RIGHT = 40 };

/* Text for HTML (element content and attribute values). */
void obs_html_esc(FILE *f, const char *s);
/* "1.234 s", "12.3 ms", "4.5 us"; bytes as "1.2 MB". */
void obs_fmt_time(char *b, size_t n, double t);
void obs_fmt_bytes(char *b, size_t n, double x);
/* A time axis along y from x0 to x0+w for [t0, t1], 5 ticks. */
void obs_svg_time_axis(FILE *f, double x0, double w, double y, double t0, double t1);
/* An axis of iterations 1..n along y from x0 to x0+w (iteration i spans its 1/n). */
void obs_svg_iter_axis(FILE *f, double x0, double w, double y, int n);
/* The numbers of a JSON array into a new array of jv_len(v) (missing ones: NAN). */
double *obs_jv_numbers(const jv *v, size_t *n);

/* Sections drawn from a psim lb document (obs_report_lb.c) and a sensitivity document
 * (obs_report_sens.c). */
void obs_report_lb(FILE *f, const jv *doc);
void obs_report_sensitivity(FILE *f, const jv *doc);

#endif
