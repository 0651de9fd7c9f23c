/* psim calibrate: measures this machine's flop rate (the default --host-speed-ref of psim run);
 * --machine and --kernels are their own files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/emul.h"

static const char *HELP =
    "usage: psim calibrate [--seconds S]\n"
    "       psim calibrate --machine [-o FILE] [--mpiexec CMD] [--report F.html]   (a platform\n"
    "                  of this machine measured with its MPI, for psim run; see --machine --help)\n"
    "       psim calibrate --kernels [-o FILE] [--report F.html]   (BLAS kernel models for\n"
    "                  psim forecast; see psim calibrate --kernels --help)\n"
    "\n"
    "Measures this machine's floating-point rate (flop/s of a scalar multiply-add loop, one\n"
    "core), the reference psim run uses to turn a rank's CPU seconds into flops. Pass the value\n"
    "to psim run --host-speed-ref to make runs use the same reference (psim run measures it\n"
    "for 0.2 s when not given).\n"
    "\n"
    "example:\n"
    "  psim calibrate            # prints e.g. 2.1e+09 (flop/s)\n";

int cmd_calibrate(int argc, char **argv) {
  double secs = 1.0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--kernels")) return cmd_calibrate_kernels(argc, argv);
    else if (!strcmp(argv[i], "--machine")) return cmd_calibrate_machine(argc, argv);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(HELP, stdout); return 0; }
    if (strcmp(argv[i], "--seconds")) return cli_usage("calibrate", "unknown option '%s'", argv[i]);
    if (i + 1 >= argc) return cli_usage("calibrate", "--seconds needs a value");
    char *end;
    secs = strtod(argv[++i], &end);
    if (end == argv[i] || *end || !(secs > 0) || secs > 3600)
      return cli_usage("calibrate", "--seconds expects a positive number of seconds (at most 3600), got '%s'", argv[i]);
  }
  printf("%.6g\n", emu_calibrate(secs));
  return 0;
}
