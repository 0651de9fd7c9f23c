/* Options shared by the commands that run a simulation of a trace (see run_args.c). */
#ifndef PSIM_CLI_RUN_ARGS_H
#define PSIM_CLI_RUN_ARGS_H

#include "cli/cli.h"
#include "psim/observe.h"
#include "psim/replay.h"

/* Help text of the shared options, for the commands' --help. */
#include "cli/cpu_help.h"

#define CLI_RUN_OPTIONS_HELP                                                                     \
  "  --platform FILE     SimGrid platform XML (v4.1); default: the embedded 64-node cluster\n"  \
  "                      (print it with 'psim platform --default')\n"                           \
  "  --hostfile FILE     host of each rank, one per line ('host:N' = N lines); ranks cycle\n"   \
  "                      over the entries; default: the platform's hosts in order\n"            \
  "  --np N              number of ranks; default: the number of ranks in the trace\n"          \
  "  --network MODEL     smpi (default): SimGrid/SMPI's flow model with contention;\n"          \
  "                      constant: latency + size/bandwidth along the route, no contention;\n"  \
  "                      star: DPS's star, each host's port shared equally by its transfers\n"  \
  "                      (--cfg star/bandwidth:V, star/latency:V override every port)\n"        \
  "  --machine FILE      CLUE machine file: host factors, send/recv/pack delays, pair\n"       \
  "                      transmission times (docs/models.md); --cfg cpu/factor:X scales all\n"  \
  "  --cfg KEY:VALUE     set a model property, as SimGrid's --cfg (repeatable)\n"              \
  CLI_CPU_HELP

typedef struct cli_run {
  const char *platform_path, *hostfile, *network, *machine_path;
  machine *machine;    /* --machine, loaded by cli_run_setup */
  const char *background;  /* --background FILE (= --cfg background/trace:FILE) */
  long np;
  VEC(char *) cfgs;
  VEC(const char *) traces;
  int no_traces;       /* set before cli_run_setup: a program is simulated, not traces
                          (psim sensitivity -- PROGRAM); np defaults to 1 */
  /* filled by cli_run_setup */
  platform *plat;
  tit_source *src;
  int *hosts;          /* the hostfile's entries */
  int *rank_host;      /* host of each rank */
  replay_opts o;
} cli_run;

/* Consumes argv[*i] (and its value) when it is a shared option or a trace path: returns 1;
 * 0 when it is another option; -1 after printing a usage error. */
int cli_run_option(cli_run *r, const char *cmd, int argc, char **argv, int *i);
/* --ref-speed, --compute-counter, --compute-scale (a foreign trace's compute): 1 applied (a
 * took v), 0 not one of them, -1 bad value (usage printed). */
int cli_foreign_option(const char *cmd, const char *a, const char *v);
/* Loads the platform, opens the traces, builds r->o. Returns 0, or the exit status after
 * printing the error. */
int cli_run_setup(cli_run *r, const char *cmd);
/* (Re)opens the trace source, e.g. for another run of the same traces. */
int cli_run_open_source(cli_run *r, psim_err *err);
/* Loads --hostfile for platform p into *hosts (the caller frees it): how many entries, at
 * least one; -1 after printing the error (exit status 2). psim run's and the trace commands'. */
int cli_hostfile_load(const platform *p, const char *path, int **hosts);
/* Loads a machine file (--machine) for platform p; NULL after printing the error. */
machine *cli_machine_load(const char *path, const platform *p);
run_meta cli_run_meta(const cli_run *r, const char *command);
void cli_run_free(cli_run *r);

/* psim run's --threads N (the ranks' own code on N OS threads; src/emul/emu_par.c): when
 * argv[*i] is it, parses its value into *threads and returns 1 (-1 after printing a usage
 * error); 0 for another option. */
#define CLI_THREADS_HELP                                                                         \
  "  --threads N         run the ranks' own code (between MPI calls) on N OS threads at once;\n" \
  "                      the simulation stays sequential, its order the same for every N\n"    \
  "                      (default: psim's own thread; docs/EMULATION.md)\n"
int cli_threads_option(int *threads, const char *cmd, int argc, char **argv, int *i);

#endif
