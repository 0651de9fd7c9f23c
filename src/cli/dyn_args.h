/* --host-events, --host-policy, --rank-memory (psim replay, psim run) and --pe-events
 * (psim lb): nodes leaving and joining mid-run (see dyn_args.c, docs/models.md). */
#ifndef PSIM_CLI_DYN_ARGS_H
#define PSIM_CLI_DYN_ARGS_H

#include "cli/cli.h"
#include "psim/replay.h"

#define CLI_DYN_HOST_HELP                                                                        \
  "  --host-events SPEC  hosts leave and join mid-run: EVENT[;EVENT...], EVENT =\n"              \
  "                      iter=N:remove=LIST | t=DATE:remove=LIST (or add=LIST); LIST = host\n"   \
  "                      names, indices, ranges FIRST-LAST; e.g. 'iter=1:remove=4-7' or\n"       \
  "                      't=2.5:remove=node-3;t=9:add=node-3'; a removed host's ranks move\n"     \
  "                      (their memory crosses the network) and share the remaining CPUs\n"      \
  "  --host-policy P     where a displaced rank goes: rr (default; round-robin over the\n"       \
  "                      remaining hosts) or least (the host with the fewest ranks)\n"          \
  "  --rank-memory BYTES what a rank moves when it has no `migrate SIZE` (replay; default\n"   \
  "                      1e6) or no heap (run)\n"

typedef struct cli_dyn {
  const char *spec;          /* --host-events / --pe-events */
  const char *policy;        /* --host-policy */
  double rank_memory;        /* --rank-memory, -1 when absent */
  dyn_events ev;
} cli_dyn;

void cli_dyn_init(cli_dyn *d);
/* Consumes argv[*i] (and its value) when it is one of the options above (opt_events is
 * "--host-events" or "--pe-events"; only the first takes the other two): 1; 0 otherwise; -1
 * after printing a usage error. */
int cli_dyn_option(cli_dyn *d, const char *cmd, const char *opt_events, int argc, char **argv, int *i);
/* Parses the spec over nunits units (named by name_of when not NULL). Returns 0, or the exit
 * status after printing the error. *policy gets DYN_POLICY_*. */
int cli_dyn_setup(cli_dyn *d, const char *cmd, const char *opt_events, int nunits,
                  const char *(*name_of)(void *, int), void *ctx, int *policy);
/* Host names of a platform, for cli_dyn_setup. */
const char *cli_dyn_host_name(void *plat, int i);
void cli_dyn_free(cli_dyn *d);

#endif
