/* Inline-SVG charts of psim forecast and psim calibrate (--kernels, --machine) (offline HTML pages). */
#ifndef PSIM_CLI_FORECAST_REPORT_H
#define PSIM_CLI_FORECAST_REPORT_H

#include <stdio.h>

#include "psim/forecast.h"

void fcr_begin(FILE *f, const char *title);
void fcr_end(FILE *f);
/* Text escaped for HTML. */
void fcr_esc(FILE *f, const char *s);
/* Measured (x) against fitted (y) times, log-log, with the diagonal. */
void fcr_scatter(FILE *f, const char *title, const double *meas, const double *fit, int n);
/* Measured points and a model's curve of y against x (psim calibrate --machine), log-log,
 * then the same figures as a table. */
void fcr_curve(FILE *f, const char *title, const char *xlabel, const char *ylabel, const double *x,
               const double *meas, const double *model, int n);
/* Figure 4.2: one cell per grid (p across, q up), coloured by time; best outlined. */
void fcr_heatmap(FILE *f, const fc_grid *g, int n, int best);
/* Figure 3.1: the best grid's time against the number of processes (procs[i], t[i]). */
void fcr_best_curve(FILE *f, const int *procs, const double *t, const int *bp, const int *bq, int n);

#endif
