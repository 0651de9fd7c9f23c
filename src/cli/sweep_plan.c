/* psim plan: placeholder */
#include "cli/cli.h"
#include "cli/sweep_cli.h"
int cmd_plan(int argc, char **argv) { (void)argc; (void)argv; return 2; }
