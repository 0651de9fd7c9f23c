/* psim balance: run one load-balancing strategy on a stated situation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "psim/adapt.h"

static const char *HELP =
    "usage: psim balance FILE --balancer NAME\n"
    "\n"
    "Runs one load balancer of Charm++/AMPI on the situation described in FILE and prints the\n"
    "new mapping ('vp ID pe P', one line per VP), then the load of each PE ('pe ID load L')\n"
    "and a summary line ('# migrations N max M avg A').\n"
    "\n"
    "FILE lines ('#' starts a comment):\n"
    "  pe ID bg LOAD [speed S]              a PE, its background load and relative speed\n"
    "  vp ID load W pe P [bytes B]          a VP, its measured load and current PE\n"
    "  comm VP_A VP_B msgs M bytes B        A sent M messages, B bytes in all, to B\n"
    "  alpha A | beta B                     comm cost = A x msgs + B x bytes (3.5e-5, 8.5e-9)\n"
    "  seed N                               seed of 'random'\n"
    "\n"
    "balancers: greedy, greedy-refine, refine (Charm++ 7 RefineA), refine-classic (Charm++ 6\n"
    "RefineLB with its tolerance search), greedy-comm, refine-comm, rotate, random, dummy, none.\n"
    "Ties are broken by VPs (load desc, id asc) and PEs (load, id): results are deterministic.\n"
    "\n"
    "example:\n"
    "  printf 'pe 0 bg 0\\npe 1 bg 0\\nvp 0 load 3 pe 0\\nvp 1 load 1 pe 0\\n' > s.txt\n"
    "  psim balance s.txt --balancer greedy\n";

int cmd_balance(int argc, char **argv) {
  const char *file = NULL, *name = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(HELP, stdout); return 0; }
    if (!strcmp(a, "--balancer")) {
      if (!v) return cli_usage("balance", "--balancer needs a value");
      name = v;
      i++;
    } else if (a[0] == '-' && a[1]) return cli_usage("balance", "unknown option '%s'", a);
    else if (file) return cli_usage("balance", "one situation file only");
    else file = a;
  }
  if (!file) return cli_usage("balance", "no situation file given");
  if (!name) return cli_usage("balance", "--balancer is required (one of: %s)", lb_kind_list());
  int k = lb_kind_from_name(name);
  if (k < 0) return cli_usage("balance", "unknown balancer '%s' (expected one of: %s)", name, lb_kind_list());
  psim_err err;
  psim_err_clear(&err);
  lb_input in;
  if (lb_input_read(file, &in, &err) < 0) return cli_fail(&err);
  int *map = xmalloc((size_t)(in.s.nvp + 1) * sizeof *map);
  double *L = xmalloc((size_t)in.s.npe * sizeof *L);
  int rc = 0;
  if (lb_balance((lb_kind)k, &in.s, map, &err) < 0) { rc = cli_fail(&err); goto out; }
  int moves = 0;
  for (int v = 0; v < in.s.nvp; v++) {
    printf("vp %d pe %d\n", v, map[v]);
    moves += map[v] != in.s.vp_pe[v];
  }
  lb_pe_loads(&in.s, map, L);
  double max = 0, avg = 0;
  for (int p = 0; p < in.s.npe; p++) {
    printf("pe %d load %.10g\n", p, L[p]);
    if (L[p] > max) max = L[p];
    avg += L[p];
  }
  avg /= in.s.npe;
  printf("# migrations %d max %.10g avg %.10g\n", moves, max, avg);
out:
  free(map);
  free(L);
  lb_input_free(&in);
  return rc;
}
