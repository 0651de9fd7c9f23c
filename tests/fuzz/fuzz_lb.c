/* libFuzzer harness for psim lb (adapt_run): a trace nobody checked, its ranks taken as virtual
 * processors (VPs) over-decomposed on fewer processing elements (PEs) of the embedded platform,
 * balanced at `migrate` points by one of psim's balancers.
 *
 * Input: byte 0 (low 3 bits) the number of VPs (1-8), byte 1 the number of PEs (1 to the VPs),
 * byte 2 the balancer (any of lb_kind) and, in its high bits, the period (1-4) and the initial
 * mapping (block or round-robin); keep_loads is always on. Then one shared TIT file. What must
 * not happen: a crash, a hang, a leak; an outcome that fuzz_check_result refuses (adapted to
 * VPs: a VP's time also counts waiting for its PE and balancing steps); a final mapping outside
 * the PEs; two runs that differ. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/adapt.h"
#include "psim/platform.h"
#include "psim/trace.h"
#include "fuzz_check.h"

static char g_lbpath[300];
static platform *g_lbplat;

static int run_once(int nvp, int npes, int kind, int period, int rr, adapt_result *res, psim_err *err) {
  const char *paths[1] = {g_lbpath};
  psim_err_clear(err);
  tit_source *src = tit_open(paths, 1, nvp, err);
  if (!src) {
    if (!err->code) abort();
    return -2;
  }
  adapt_opts o;
  adapt_opts_init(&o, g_lbplat, nvp);
  o.npes = npes;
  o.balancer = (lb_kind)kind;
  o.period = period;
  o.initial = rr ? ADAPT_INIT_ROUND_ROBIN : ADAPT_INIT_BLOCK;
  o.keep_loads = 1;
  memset(res, 0, sizeof *res);
  int rc = adapt_run(src, &o, res, err);
  tit_close(src);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_lbplat) {
    const char *t = getenv("TMPDIR");
    snprintf(g_lbpath, sizeof g_lbpath, "%s/fuzz-lb-%ld.txt", t && *t ? t : "/tmp", (long)getpid());
    g_lbplat = plat_default();
    if (!g_lbplat) abort();
  }
  if (size < 3) return 0;
  int nvp = (data[0] & 7) + 1;
  int npes = data[1] % nvp + 1;
  int kind = (data[2] & 15) % LB_NKINDS, period = ((data[2] >> 4) & 3) + 1, rr = data[2] >> 6 & 1;
  FILE *f = fopen(g_lbpath, "wb");
  if (!f) abort();
  if (size > 3 && fwrite(data + 3, 1, size - 3, f) != size - 3) abort();
  fclose(f);
  adapt_result a, b;
  psim_err ea, eb;
  int ra = run_once(nvp, npes, kind, period, rr, &a, &ea);
  if (ra == -2) return 0;
  /* VPs also wait for their PE and at balancing steps: fold those into wait for the check */
  for (int v = 0; v < a.run.np; v++) a.run.ranks[v].wait += a.run.ranks[v].pe_wait + a.run.ranks[v].lb;
  fuzz_check_result(&a.run, ra, &ea);
  if (ra == 0)
    for (int v = 0; v < a.nvp; v++)
      if (a.final_pe && (a.final_pe[v] < 0 || a.final_pe[v] >= npes)) abort();
  int rb = run_once(nvp, npes, kind, period, rr, &b, &eb);
  if (rb != ra || eb.code != ea.code || memcmp(&a.run.simulated_time, &b.run.simulated_time, sizeof(double)) != 0 ||
      a.migrations != b.migrations || a.lb_steps != b.lb_steps)
    abort();
  adapt_result_free(&a);
  adapt_result_free(&b);
  return 0;
}
