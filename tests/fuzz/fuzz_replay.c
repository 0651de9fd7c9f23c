/* libFuzzer harness for the whole replay: a trace nobody checked, replayed on psim's embedded
 * platform (plat_default: 64 hosts, private links and a backbone).
 *
 * The first input byte chooses the run: its low 3 bits the number of ranks (1-8), bits 3-5 a
 * configuration (SimGrid's order of ties, the exact sharing, smpi/ overheads, collective
 * algorithms, cross-traffic off), bit 6 packs two ranks per host. The rest is one shared TIT
 * file ("RANK ACTION ARGS" lines). Errors are expected; what must not happen:
 *   - a crash, a hang, a leak, an out-of-bounds access (the sanitizers);
 *   - a failure without its reason (err.code 2 for bad input, 3 for a deadlock with its report);
 *   - a result that breaks the accounting identity compute + comm + wait = finish for a rank,
 *     a negative or non-finite date;
 *   - two replays of the same trace that differ (the output must be deterministic). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/platform.h"
#include "psim/replay.h"
#include "psim/trace.h"
#include "fuzz_check.h"

static char g_path[300];
static platform *g_plat;

static void write_file(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(d, 1, n, f) != n) abort();
  fclose(f);
}

static const char *const CFGS[8][2] = {
  {NULL, NULL},
  {"network/tie-order", "simgrid"},
  {"network/optim", "Full"},
  {"smpi/os", "0:1e-6:1e-9;1024:2e-6:5e-10"},
  {"smpi/or", "0:2e-6:1e-9"},
  {"smpi/allreduce", "rab_rdb"},
  {"smpi/async-small-thresh", "8192"},
  {"network/crosstraffic", "0"},
};

/* One replay; 0 when it ran (or failed as it should), the result in *res. */
static int replay_once(int np, int cfg, int packed, replay_result *res, int *rc, psim_err *err) {
  const char *paths[1] = {g_path};
  psim_err_clear(err);
  tit_source *src = tit_open(paths, 1, np, err);
  if (!src) {
    if (!err->code) abort();   /* a failure must say why */
    return 1;
  }
  replay_opts o;
  replay_opts_init(&o, g_plat, np);
  int hosts[8];
  if (packed) {
    for (int r = 0; r < np; r++) hosts[r] = r / 2;
    o.hostfile = hosts;
    o.nhostfile = np;
  }
  if (CFGS[cfg][0]) {
    psim_err e;
    psim_err_clear(&e);
    if (replay_opts_cfg(&o, CFGS[cfg][0], CFGS[cfg][1], &e) != 0) abort();   /* a valid property */
  }
  memset(res, 0, sizeof *res);
  *rc = replay_run(src, &o, res, err);
  tit_close(src);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_plat) {
    const char *t = getenv("TMPDIR");
    snprintf(g_path, sizeof g_path, "%s/fuzz-replay-%ld.txt", t && *t ? t : "/tmp", (long)getpid());
    g_plat = plat_default();
    if (!g_plat) abort();
  }
  if (size == 0) return 0;
  int np = (data[0] & 7) + 1, cfg = (data[0] >> 3) & 7, packed = (data[0] >> 6) & 1;
  write_file(g_path, data + 1, size - 1);
  replay_result a, b;
  psim_err ea, eb;
  int ra, rb;
  if (replay_once(np, cfg, packed, &a, &ra, &ea)) return 0;
  fuzz_check_result(&a, ra, &ea);
  if (replay_once(np, cfg, packed, &b, &rb, &eb)) abort();   /* opened once, so again */
  if (ra != rb || ea.code != eb.code || memcmp(&a.simulated_time, &b.simulated_time, sizeof(double)) != 0)
    abort();
  for (int r = 0; r < a.np && ra == 0; r++)
    if (memcmp(&a.ranks[r].finish, &b.ranks[r].finish, sizeof(double)) != 0) abort();
  replay_result_free(&a);
  replay_result_free(&b);
  return 0;
}
