/* Trace replay driver (see include/psim/replay.h): options, one run from set-up to results,
 * the deadlock report. Rank stepping is in replay_rank.c, VPs on PEs (psim lb) in
 * replay_vp.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_internal.h"

void replay_opts_init(replay_opts *o, const platform *p, int np) {
  memset(o, 0, sizeof *o);
  o->plat = p;
  o->np = np;
  net_config_init(&o->net);
  coll_selector_init(&o->coll);
  o->migrate_bytes = 0;
}

int replay_opts_cfg(replay_opts *o, const char *key, const char *value, psim_err *err) {
  int r = net_config_set(&o->net, key, value, err);
  if (r != 0) return r < 0 ? -1 : 0;
  if (!strncmp(key, "smpi/", 5) && coll_kind_from_name(key + 5) >= 0)
    return coll_selector_set(&o->coll, key + 5, value, err);
  if (!strcmp(key, "smpi/reduce_scatter"))
    return coll_selector_set(&o->coll, "reducescatter", value, err);
  if (!strcmp(key, "smpi/coll-selector")) {
    if (strcmp(value, "default") && strcmp(value, "smpi"))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0,
                       "--cfg smpi/coll-selector:%s is not supported by psim replay: SimGrid's "
                       "mpich and ompi selectors are not reproduced (psim run's own approximation "
                       "of MPICH's and Open MPI's choices is for programs built with them); choose "
                       "algorithms per collective with smpi/<collective>:<algorithm>", value);
    return 0;
  }
  return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0,
                   "unknown configuration key '%s' (expected a network/..., smpi/... property "
                   "or smpi/<collective>; see psim replay --help)", key);
}

static void observe_message(void *ctx, const mpi_req *send, const mpi_req *recv) {
  replay *R = ctx;
  for (int i = 0; i < R->o->nobservers; i++)
    if (R->o->observers[i].message) R->o->observers[i].message(R->o->observers[i].ctx, send, recv);
}

static const char *host_name(void *ctx, int u) {
  return plat_host_at(((const replay *)ctx)->o->plat, u)->name;
}

static const char *pe_name(void *ctx, int u) {
  replay *R = ctx;
  static char buf[64];   /* copied at once by dyn_finish */
  snprintf(buf, sizeof buf, "PE %d (%s)", u, plat_host_at(R->o->plat, R->vp->pe_host[u])->name);
  return buf;
}

/* One line per rank that has not finished: where it stands in its trace and what its
 * blocked operation waits for. `verb` says how the rank is held ("blocked in", "in"). Returns
 * the lines (malloc'd) and the number of such ranks in *n. */
char *replay_unfinished_lines(replay *R, const char *verb, int *n_out) {
  size_t cap = 4096, len = 0;
  char *buf = xmalloc(cap);
  buf[0] = 0;
  int nblocked = 0;
  for (int li = 0; li < R->nlocal; li++) {
    rank *k = &R->ranks[li];
    const int i = k->id;
    if (k->state == RK_DONE) continue;
    nblocked++;
    char line[2048], what[1024] = "";
    size_t wl = 0;
    /* what the blocked operation waits for */
    mpi_req *list[64];
    int n = 0;
    if (k->cur && !k->cur->done) list[n++] = k->cur;
    if (k->w)
      for (int j = k->w->pwaited; j < k->w->npreqs && n < 64; j++)
        if (k->w->preqs[j] && !k->w->preqs[j]->done) list[n++] = k->w->preqs[j];
    for (int j = 0; j < k->npend && n < 64; j++) {
      mpi_req *q = replay_pend_req(k, j);
      if (q && !q->done && q->waited) list[n++] = q;
    }
    for (int j = 0; j < n && wl + 100 < sizeof what; j++) {
      const mpi_req *q = list[j];
      if (q->is_send)
        wl += (size_t)(q->ctx == MPI_CTX_COLL
                           ? snprintf(what + wl, sizeof what - wl, "%ssend to rank %d (inside the collective) not received",
                                      wl ? "; " : "", q->dst)
                           : snprintf(what + wl, sizeof what - wl, "%ssend to rank %d (tag %d) not received",
                                      wl ? "; " : "", q->dst, q->tag));
      else
        wl += (size_t)(q->ctx == MPI_CTX_COLL
                           ? snprintf(what + wl, sizeof what - wl, "%sreceive from rank %d (inside the collective) never sent",
                                      wl ? "; " : "", q->src)
                           : snprintf(what + wl, sizeof what - wl, "%sreceive from rank %d (tag %d) never sent",
                                      wl ? "; " : "", q->src, q->tag));
    }
    const char *t = k->text_copied ? k->text : (k->has_action ? k->act_text : "");
    int tl = k->has_action || k->text_copied ? k->act_text_len : 0;
    if (!k->has_action)
      snprintf(line, sizeof line, "  rank %d (host %s): at the end of its trace (after %s:%ld), waiting for its pending requests: %s\n",
               i, plat_host_at(R->o->plat, replay_host(R, k))->name, k->act_file ? k->act_file : "?", k->act_line,
               what[0] ? what : "?");
    else
      snprintf(line, sizeof line, "  rank %d (host %s): %s '%d %.*s' at %s:%ld: %s\n", i,
               plat_host_at(R->o->plat, replay_host(R, k))->name, verb, i, tl, t, k->act_file ? k->act_file : "?",
               k->act_line, what[0] ? what : "waiting");
    size_t ll = strlen(line);
    if (len + ll + 1 > cap) { cap = 2 * (len + ll + 1); buf = xrealloc(buf, cap); }
    memcpy(buf + len, line, ll + 1);
    len += ll;
  }
  *n_out = nblocked;
  return buf;
}

static char *with_head(const char *head, char *lines) {
  size_t hl = strlen(head), len = strlen(lines);
  char *full = xmalloc(hl + len + 1);
  memcpy(full, head, hl);
  memcpy(full + hl, lines, len + 1);
  free(lines);
  return full;
}

static void deadlock_report(replay *R, replay_result *res) {
  int nblocked;
  char *lines = replay_unfinished_lines(R, "blocked in", &nblocked);
  char head[256];
  snprintf(head, sizeof head, "deadlock at simulated time %.6f: %d of %d ranks cannot finish\n",
           sim_now(R->sim), nblocked, R->np);
  res->deadlock = with_head(head, lines);
}

/* An action whose end date overflows a double (sleep 1e308 twice, say) would otherwise never
 * end and look like a deadlock: an input error, reported with the actions in progress. */
static void overflow_report(replay *R, psim_err *err) {
  int n;
  char *lines = replay_unfinished_lines(R, "in", &n);
  char head[512];
  snprintf(head, sizeof head,
           "simulated time overflows at %.6g s: an action in progress would end after the largest "
           "date a double holds (%.3g s); check the volumes of the actions of the %d unfinished rank%s:\n",
           sim_now(R->sim), DBL_MAX, n, n == 1 ? "" : "s");
  char *full = with_head(head, lines);
  size_t fl = strlen(full);
  if (fl && full[fl - 1] == '\n') full[fl - 1] = 0;
  psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "%s", full);
  free(full);
}

int replay_run(tit_source *src, const replay_opts *o, replay_result *res, psim_err *err) {
  memset(res, 0, sizeof *res);
  replay R = {0};
  R.o = o;
  R.src = src;
  tit_borrow_lines(src);   /* replay_rank_run keeps the text of an action in progress */
  R.np = o->np;
  R.err = err;
  R.test_count = 1;
  int nh = plat_nhosts(o->plat);
  R.rank_host = replay_place_ranks(o->plat, o->hostfile, o->nhostfile, R.np);
  if (o->vp) {
    R.vp = o->vp;
    replay_vp_init(&R);
  }
  if (o->host_events && o->host_events->n && !o->vp) {
    R.maps = dyn_events_maps(o->host_events, R.np, R.rank_host, nh, o->move_policy, "--host-events", err);
    if (!R.maps) { free(R.rank_host); replay_vp_free(&R); return -1; }
  }
  R.dyn = R.vp ? dyn_new(R.np, R.vp->npes, R.vp->vp_pe) : dyn_new(R.np, nh, R.rank_host);
  R.sim = sim_new();
  R.models = models_new(R.sim, o->plat, &o->net, err);
  if (!R.models) {
    sim_free(R.sim); free(R.rank_host); replay_vp_free(&R); free(R.maps);
    dyn_finish(R.dyn, 0, NULL, NULL, &res->dyn);
    dyn_result_free(&res->dyn);
    return -1;
  }
  R.world = mpi_world_new(R.sim, R.models, R.np, R.rank_host, replay_rank_req_done, &R);
  if (o->par && replay_par_init(&R) < 0) {
    replay_par_free(&R);
    mpi_world_free(R.world); models_free(R.models); sim_free(R.sim); free(R.rank_host); free(R.maps);
    dyn_finish(R.dyn, 0, NULL, NULL, &res->dyn);
    dyn_result_free(&res->dyn);
    return -1;
  }
  if (!R.par) R.nlocal = R.np;   /* else replay_par_init counted them */
  R.ranks = xcalloc((size_t)(R.nlocal > 0 ? R.nlocal : 1), sizeof *R.ranks);
  if (R.vp || R.maps) R.cold = xcalloc((size_t)R.np, sizeof *R.cold);
  if (o->nobservers) R.acts = xcalloc((size_t)R.np, sizeof *R.acts);
  if (o->nobservers || o->actions) R.dates = xcalloc((size_t)R.np, sizeof *R.dates);
  replay_mtx_init(&R);
  for (int i = 0, li = 0; i < R.np; i++) {
    if (!replay_local(&R, i)) continue;   /* another process runs it */
    rank *k = &R.ranks[li++];
    replay_rank_init(&R, k, i);
    if (R.vp) { k->state = RK_BLOCKED; replay_vp_acquire(&R, k); }   /* one VP per PE runs */
    else sim_make_ready(R.sim, i);
  }
  if (o->nobservers) mpi_world_observe(R.world, observe_message, &R);
  if (models_cpu_start(R.models, R.vp ? R.vp->pe_host : R.rank_host, R.vp ? R.vp->npes : R.np, err) < 0) R.failed = 1;
  else {
    if (R.par) replay_par_start(&R);
    res->events = sim_run(R.sim, replay_rank_run, &R);
  }
  res->cpu = models_cpu_report(R.models);
  for (int i = 0; i < o->nobservers; i++)
    if (o->observers[i].end) o->observers[i].end(o->observers[i].ctx, sim_now(R.sim));
  if (o->progress) fprintf(stderr, "\r\033[K");
  int rc = 0;
  if (!R.failed && sim_overflowed(R.sim)) { overflow_report(&R, err); R.failed = 1; }
  if (R.par) {
    rc = replay_par_finish(&R, res);
    goto done;
  }
  if (!R.failed && R.vp) replay_vp_final_checks(&R);
  if (R.failed) {
    rc = -1;
  } else {
    for (int i = 0; i < R.np; i++)
      if (R.ranks[i].state != RK_DONE) { rc = -1; break; }
    if (rc < 0) {
      deadlock_report(&R, res);
      psim_errf(err, PSIM_EXIT_DEADLOCK, NULL, 0, "%s", res->deadlock);
    }
  }
  res->np = R.np;
  res->ranks = xcalloc((size_t)R.np, sizeof *res->ranks);
  for (int i = 0; i < R.np; i++) {
    rank_stats *st = &res->ranks[i];
    *st = replay_rank_stats(&R, i);
    /* a rank that never finished: its times run up to the date it blocked for good */
    if (R.ranks[i].state != RK_DONE) { st->finish = R.ranks[i].acct_mark; st->blocked = 1; }
  }
  replay_result_close(res, sim_now(R.sim), R.world);
done:
  if (R.vp) dyn_finish(R.dyn, res->simulated_time, pe_name, &R, &res->dyn);
  else dyn_finish(R.dyn, res->simulated_time, host_name, &R, &res->dyn);
  R.dyn = NULL;
  free(R.maps);
  for (int li = 0; li < R.nlocal; li++) replay_rank_free(&R.ranks[li]);
  free(R.ranks);
  free(R.cold);
  free(R.acts);
  free(R.dates);
  coll_prog_free(&R.prog);
  mpi_world_free(R.world);
  models_free(R.models);
  sim_free(R.sim);
  free(R.rank_host);
  replay_vp_free(&R);
  replay_mtx_free(&R);
  replay_par_free(&R);
  return rc;
}

void replay_result_free(replay_result *r) {
  free(r->ranks);
  free(r->deadlock);
  cpu_report_free(r->cpu);
  dyn_result_free(&r->dyn);
  memset(r, 0, sizeof *r);
}
