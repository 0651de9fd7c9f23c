/* Output of psim lb: the human table and the JSON document (see lb_report.c). */
#ifndef PSIM_CLI_LB_REPORT_H
#define PSIM_CLI_LB_REPORT_H

#include <stdio.h>

#include "psim/adapt.h"
#include "psim/observe.h"

/* One configuration that was run. */
typedef struct lb_run {
  lb_kind balancer;
  int period;
  adapt_result res;
  double wall;        /* seconds of wall time it took */
} lb_run;

/* One configuration: the summary and each step. */
void lb_report_one(FILE *f, const lb_run *r);
/* Several: one line per configuration. */
void lb_report_table(FILE *f, const lb_run *runs, int n);
/* What the HTML report draws besides the lb object (one configuration, --timeline or
 * --report): the recording of the run and its critical path (both borrowed). */
typedef struct lb_report_extra {
  const obs_record *rec;
  const obs_critpath *cp;
} lb_report_extra;

/* JSON: one object for n == 1, else {"runs": [...]}. With x (n == 1 only; the result must
 * have been run with keep_loads), the object also holds replay's "np", "deadlock", "ranks",
 * "timeline", "comm_matrix", "critical_path" and an "iterations" section (per-iteration
 * windows, PE and VP loads, dynamic efficiency), so psim report draws it. */
void lb_report_json(FILE *f, const lb_run *runs, int n, const adapt_opts *o, const run_meta *m,
                    const lb_report_extra *x);

#endif
