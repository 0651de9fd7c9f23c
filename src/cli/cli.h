/* The psim command line: one file per subcommand, each exporting cmd_<name>(argc, argv).
 * Nothing below src/cli/ knows about argv. */
#ifndef PSIM_CLI_H
#define PSIM_CLI_H

#include <stdio.h>

#include "psim/util.h"

int cmd_replay(int argc, char **argv);
int cmd_replay_with(int argc, char **argv, int (*prepare)(void *ctx), void *ctx);
int cmd_demo(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_critpath(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sensitivity(int argc, char **argv);
/* Writes the HTML report of a JSON result document to out (see cmd_report.c); exit status. */
int cli_write_report_file(const char *out, const char *json, size_t len, const char *title);
int cmd_balance(int argc, char **argv);
int cmd_lb(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_forecast(int argc, char **argv);
int cmd_calibrate_kernels(int argc, char **argv);   /* psim calibrate --kernels */
int cmd_calibrate_machine(int argc, char **argv);   /* psim calibrate --machine */
int cmd_sweep(int argc, char **argv);   /* cmd_sweep.c */
int cmd_plan(int argc, char **argv);    /* sweep_plan.c */
int cmd_gen_stencil2d(int argc, char **argv);   /* argv[1] == "stencil2d" */

/* Prints err as "psim: file:line: message" and returns its exit status. */
int cli_fail(const psim_err *err);
/* Usage error: prints the message and a hint, returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens "-" as stdout, else the file for writing; NULL with an error printed. */
FILE *cli_open_out(const char *path);
/* Finishes an output of cli_open_out: flushes it and closes it (stdout is only flushed).
 * Returns 0, or 2 after printing "psim: cannot write PATH: REASON": output that could not be
 * written is never lost silently. NULL is a no-op. */
int cli_close_out(FILE *f, const char *path);
/* Before a run: whether path ("-" = stdout, NULL = none) can be written (an existing writable
 * file, or a new name in a writable directory). 0, or 2 after printing why not, so that a run
 * does not end with its results lost. */
int cli_check_out(const char *path);
/* Flushes stdout; reports a failure at once (with its reason), and main exits non-zero. */
void cli_flush_stdout(void);
/* Prints "psim: cannot write PATH: strerror(e)" ("-" = standard output) and returns 2. */
int cli_write_error(const char *path, int e);
/* Whether s is one of the NULL-terminated names. */
int cli_is_one_of(const char *s, const char *const *names);
/* Parses a non-negative integer option value; -1 on error (printed). */
long cli_int(const char *cmd, const char *opt, const char *v);
/* Parses a finite non-negative number into *x; -1 on error (printed), 0 otherwise. */
int cli_num(const char *cmd, const char *opt, const char *v, double *x);
/* Parses AxB (two positive integers up to 2^20, nothing after) into *a and *b; -1 on error
 * (printed), 0 otherwise. */
int cli_dims(const char *cmd, const char *opt, const char *v, int *a, int *b);

#endif
