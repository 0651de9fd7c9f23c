/* Names and categories of rank states, shared by every trace writer and the report, so that a
 * Paje file, a Chrome trace and the HTML report call the same thing by the same name. */
#include "psim/observe.h"

int *obs_rank_hosts(const platform *plat, const int *hostfile, int nhostfile, int np) {
  /* Must stay what replay_run does (rank i on entry i mod n), or traces would misplace ranks. */
  int nh = plat_nhosts(plat);
  int *h = xmalloc((size_t)(np > 0 ? np : 1) * sizeof *h);
  for (int i = 0; i < np; i++) h[i] = hostfile && nhostfile > 0 ? hostfile[i % nhostfile] : i % nh;
  return h;
}

const char *obs_state_name(tit_kind k) {
  switch (k) {
  case TIT_SEND: case TIT_ISEND: return "send";
  case TIT_RECV: case TIT_IRECV: return "recv";
  case TIT_WAIT: case TIT_WAITALL: return "wait";
  case TIT_TEST: return "test";
  case TIT_NOOP: return "noop";
  default: return tit_kind_name(k);   /* compute, sleep, sendrecv, migrate, each collective */
  }
}

int obs_category(tit_kind k) {
  switch (k) {
  case TIT_COMPUTE: case TIT_SLEEP: return OBS_CAT_COMPUTE;
  case TIT_SEND: case TIT_ISEND: case TIT_RECV: case TIT_IRECV: case TIT_SENDRECV: return OBS_CAT_P2P;
  case TIT_WAIT: case TIT_WAITALL: case TIT_TEST: return OBS_CAT_WAIT;
  case TIT_INIT: case TIT_FINALIZE: case TIT_NOOP: case TIT_LOCATION: case TIT_MIGRATE: case TIT_ITERATION:
  case TIT_NKINDS: return OBS_CAT_OTHER;
  default: return OBS_CAT_COLL;
  }
}

const char *obs_category_name(int cat) {
  static const char *const n[OBS_NCATS] = {"compute", "p2p", "wait", "collective", "other"};
  return cat >= 0 && cat < OBS_NCATS ? n[cat] : "?";
}

int obs_state_of(tit_kind k) {
  switch (k) {
  case TIT_COMPUTE: case TIT_SLEEP: return OBS_ST_COMPUTE;
  case TIT_SEND: case TIT_ISEND: case TIT_SENDRECV: return OBS_ST_SEND;
  case TIT_RECV: case TIT_IRECV: return OBS_ST_RECV;
  case TIT_WAIT: case TIT_WAITALL: case TIT_TEST: return OBS_ST_WAIT;
  case TIT_MIGRATE: return OBS_ST_LB;
  case TIT_INIT: case TIT_FINALIZE: case TIT_NOOP: case TIT_LOCATION: case TIT_NKINDS: return OBS_ST_IDLE;
  default: return OBS_ST_COLL;
  }
}

/* Colours chosen once for all charts: green work, blues for a rank's own messages, red for
 * waiting (the colour every tool uses for time lost), orange collectives, grey idle. */
static const char *const ST_LABEL[OBS_NSTATES] = {"compute", "sending", "receiving", "waiting", "collective",
                                                  "idle", "balancing", "waiting for its PE"};
static const char *const ST_COLOUR[OBS_NSTATES] = {"#2e9e44", "#2f6fd6", "#6fb3f2", "#d8362a", "#f09a1a",
                                                   "#dcdcdc", "#8c6d31", "#a25fc4"};

const char *obs_state_label(int st) { return st >= 0 && st < OBS_NSTATES ? ST_LABEL[st] : "?"; }
const char *obs_state_colour(int st) { return st >= 0 && st < OBS_NSTATES ? ST_COLOUR[st] : "#000000"; }
