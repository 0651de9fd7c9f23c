/* The CPU model's options in every simulation command's --help (docs/models.md). */
#ifndef PSIM_CLI_CPU_HELP_H
#define PSIM_CLI_CPU_HELP_H

#define CLI_CPU_HELP                                                                           \
  "  --background FILE   background processes on the hosts: lines 'time host cpu_seconds\n"  \
  "                      nice' ('#' comments; cpu_seconds inf = stays), sharing the CPUs by\n"  \
  "                      Linux nice weights (= --cfg background/trace:FILE)\n"                  \
  "  CPU model (--cfg, docs/models.md): cpu/send-cost:F cpu/recv-cost:F (fraction of a\n"      \
  "                      core a flowing transfer takes on its sender / receiver),\n"            \
  "                      cpu/app-nice:N, background/count:N background/nice:N (N processes\n"   \
  "                      on every host), background/poisson:RATE,MEANCPU,NICE,SEED,\n"          \
  "                      loadavg/period:S (5) loadavg/betas:B1,B2,B3 (1, 5, 15 minutes)\n"      \
  "                      loadavg/max-samples:N; adds \"cpu_model\", \"hosts\", \"loadavg\" to --json\n"

#endif
