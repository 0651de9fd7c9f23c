/* libFuzzer harness: a platform nobody checked (the XML loader's input) under a fixed trace.
 * The platform's first hosts, round-robin, run a 4-rank trace (TRACE below, written once to a
 * temporary file). Loading errors are expected; so are replay errors (no route between two
 * hosts, say). What must not happen: a crash, a hang, a leak, or an outcome that
 * fuzz_check_result refuses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psim/platform.h"
#include "psim/replay.h"
#include "psim/trace.h"
#include "fuzz_check.h"

static char g_trace[300];

/* Written by hand: the main kinds of action, point to point and collective, on 4 ranks. */
static const char TRACE[] =
  "0 init\n1 init\n2 init\n3 init\n"
  "0 compute 1e6\n1 compute 2e6\n2 compute 5e5\n3 sleep 0.001\n"
  "0 send 1 0 10000\n1 recv 0 0 10000\n2 isend 3 0 2000000\n3 irecv 2 0 2000000\n2 waitall\n3 waitall\n"
  "0 allreduce 8 1e5\n1 allreduce 8 1e5\n2 allreduce 8 1e5\n3 allreduce 8 1e5\n"
  "0 bcast 4096 0\n1 bcast 4096 0\n2 bcast 4096 0\n3 bcast 4096 0\n"
  "0 alltoall 1000 1000\n1 alltoall 1000 1000\n2 alltoall 1000 1000\n3 alltoall 1000 1000\n"
  "0 sendRecv 100 1 100 3\n1 sendRecv 100 2 100 0\n2 sendRecv 100 3 100 1\n3 sendRecv 100 0 100 2\n"
  "0 barrier\n1 barrier\n2 barrier\n3 barrier\n"
  "0 finalize\n1 finalize\n2 finalize\n3 finalize\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_trace[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(g_trace, sizeof g_trace, "%s/fuzz-plat-replay-%ld.txt", t && *t ? t : "/tmp", (long)getpid());
    FILE *f = fopen(g_trace, "w");
    if (!f || fputs(TRACE, f) < 0 || fclose(f) != 0) abort();
  }
  char *warnings = NULL;
  psim_err err;
  psim_err_clear(&err);
  platform *p = plat_load_xml_mem("fuzz.xml", (const char *)data, size, &warnings, &err);
  free(warnings);
  if (!p) {
    if (!err.code) abort();
    return 0;
  }
  if (plat_nhosts(p) < 1) { plat_free(p); return 0; }
  const int np = 4;
  int hosts[4];
  for (int r = 0; r < np; r++) hosts[r] = r % plat_nhosts(p);
  const char *paths[1] = {g_trace};
  psim_err_clear(&err);
  tit_source *src = tit_open(paths, 1, np, &err);
  if (!src) abort();   /* the trace is fixed and valid */
  replay_opts o;
  replay_opts_init(&o, p, np);
  o.hostfile = hosts;
  o.nhostfile = np;
  replay_result res;
  memset(&res, 0, sizeof res);
  int rc = replay_run(src, &o, &res, &err);
  tit_close(src);
  fuzz_check_result(&res, rc, &err);
  replay_result_free(&res);
  plat_free(p);
  return 0;
}
