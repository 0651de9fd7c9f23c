/* getopt, getopt_long, getopt_long_only called by a rank (psimcc links with
 * --wrap=getopt,getopt_long,getopt_long_only).
 *
 * The C library keeps one option-parsing state (optind, optarg, and its own position inside
 * an argument) for the process. With one thread, psim gives each rank its own optind, opterr,
 * optopt and optarg as it switches ranks (emu_sched.c, rank_run), and a rank parses its whole
 * command line between two MPI calls. Under --threads ranks parse at once on their workers
 * (emu_par.c): a call waits for the rank's turn, which the rank keeps until the parse ends
 * (getopt returns -1), so its whole parsing loop runs alone, with its own state set for it;
 * a loop left early keeps the turn until the rank's next MPI call ends. */
#include <getopt.h>
#include <unistd.h>

#include "emul/rt/rt.h"

int __wrap_getopt(int argc, char *const argv[], const char *opts);
int __wrap_getopt_long(int argc, char *const argv[], const char *opts, const struct option *lo, int *li);
int __wrap_getopt_long_only(int argc, char *const argv[], const char *opts, const struct option *lo, int *li);

/* What the last call left in optind (in a turn: one rank at a time). A value that differs at
 * the next call was written by the program since (optind = 1 to parse again), in all
 * likelihood by the rank now calling, which writes it before its loop: that rank's state takes
 * it. opterr stays the process's: every rank runs the same code, which sets it alike (opterr =
 * 0 before the loop), and whichever rank wrote it last, the ranks would all read their own. */
static int left_ind = 1;

/* The rank's own state set for its call (under --threads), or NULL. */
static emu_rank *own_state(void) {
  emu_sim *S = emu_current;
  emu_rank *k = S && S->par ? emu_running() : NULL;
  if (!k) return NULL;
  if (k->par_u) emu_par_own(k, 1);
  if (optind != left_ind) k->go_ind = optind;
  optind = k->go_ind; optopt = k->go_opt; optarg = k->go_arg;
  return k;
}

/* The parse is over (-1): the rank gives its turn back and goes on in its own code. */
static int keep_state(emu_rank *k, int rc) {
  if (!k) return rc;
  k->go_ind = left_ind = optind; k->go_opt = optopt; k->go_arg = optarg;
  if (rc == -1 && !k->depth) emu_par_give_back(k);
  return rc;
}

int __wrap_getopt(int argc, char *const argv[], const char *opts) {
  emu_rank *k = own_state();
  return keep_state(k, getopt(argc, argv, opts));
}

int __wrap_getopt_long(int argc, char *const argv[], const char *opts, const struct option *lo, int *li) {
  emu_rank *k = own_state();
  return keep_state(k, getopt_long(argc, argv, opts, lo, li));
}

int __wrap_getopt_long_only(int argc, char *const argv[], const char *opts, const struct option *lo, int *li) {
  emu_rank *k = own_state();
  return keep_state(k, getopt_long_only(argc, argv, opts, lo, li));
}
