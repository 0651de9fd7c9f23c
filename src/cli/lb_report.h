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
/* JSON: one object for n == 1, else {"runs": [...]}. */
void lb_report_json(FILE *f, const lb_run *runs, int n, const adapt_opts *o, const run_meta *m);

#endif
