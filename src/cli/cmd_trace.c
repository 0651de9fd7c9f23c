#include "cli/cli.h"
int cmd_trace(int argc, char **argv) { (void)argc; (void)argv; return 2; }
