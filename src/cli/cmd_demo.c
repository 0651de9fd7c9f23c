/* psim demo: the main job on embedded inputs (the default platform and a generated stencil). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "psim/tools.h"

static int rmtree(const char *dir, int n) {
  char p[4096];
  for (int r = 0; r < n; r++) { snprintf(p, sizeof p, "%s/rank-%d.txt", dir, r); unlink(p); }
  snprintf(p, sizeof p, "%s/list", dir);
  unlink(p);
  return rmdir(dir);
}

/* Where the demo writes its trace, and where it says what the trace is: stderr when stdout
 * carries replay's JSON or action log (--json -, --actions -), which must be alone there. */
typedef struct demo_ctx {
  char *dir;
  FILE *say;
} demo_ctx;

/* Writes the demo's trace into dir and says what it is (once the options are known good). */
static int demo_trace(void *arg) {
  const demo_ctx *c = arg;
  const char *dir = c->dir;
  gen_stencil_opts o;
  gen_stencil_defaults(&o);
  o.iters = 50;
  psim_err err;
  psim_err_clear(&err);
  if (gen_stencil(&o, dir, &err) < 0) return cli_fail(&err);
  fprintf(c->say, "psim demo: a 64-rank 2-D stencil (50 iterations of 4+4 halo messages of 16 KiB, 1 Mflop,\n"
         "an 8-byte allreduce) replayed on the embedded 64-node cluster.\n"
         "Equivalent command: psim gen stencil --ranks 64 --iters 50 -o DIR && psim replay DIR\n\n");
  cli_flush_stdout();
  return 0;
}

int cmd_demo(int argc, char **argv) {
  FILE *say = stdout;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      puts("usage: psim demo [REPLAY-OPTIONS]\n\n"
           "Generates a 2-D stencil (64 ranks, 50 iterations: halo exchange, compute,\n"
           "allreduce) and replays it on the embedded 64-node cluster (10 Gf nodes, 10 Gbps / 1 us\n"
           "links, 100 Gbps backbone), with the SMPI network model. See 'psim platform --default'.\n"
           "Options of psim replay are passed on (--json, --report, --network, --cfg, ...: see\n"
           "'psim replay --help').\n\n"
           "example:\n"
           "  psim demo\n"
           "  psim demo --report demo.html --json demo.json");
      return 0;
    }
    /* options only (with their values): the trace is the demo's own */
    static const char *const with_value[] = {"--platform", "--hostfile", "--np", "--network", "--cfg",
                                             "--json", "--actions", "--trace", "--report", NULL};
    if (cli_is_one_of(argv[i], with_value)) {
      if (i + 1 < argc && !strcmp(argv[i + 1], "-") && (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--actions")))
        say = stderr;
      i++;
    }
    else if (argv[i][0] != '-')
      return cli_usage("demo", "unexpected argument '%s' (the demo replays its own trace)", argv[i]);
  }
  char dir[] = "/tmp/psim-demo-XXXXXX";
  if (!mkdtemp(dir)) { perror("psim demo: mkdtemp"); return PSIM_EXIT_INPUT; }
  /* psim replay DIR followed by the demo's options: replay checks them (and names "demo" in
   * its messages) before demo_trace writes the trace into DIR. */
  char **args = xcalloc((size_t)argc + 2, sizeof *args);
  args[0] = "demo";
  args[1] = dir;
  for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
  demo_ctx ctx = {dir, say};
  int rc = cmd_replay_with(argc + 1, args, demo_trace, &ctx);
  free(args);
  rmtree(dir, 64);
  return rc;
}
