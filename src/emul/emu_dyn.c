/* psim run's side of nodes leaving and joining and of dynamic efficiency (see replay_dyn.c
 * for the tracker and the placement rule, docs/models.md for the rules): iteration markers
 * from psim_iteration() and MPI_Migrate(), and moves of ranks at the start of their MPI
 * calls, when an event due sends them to another host. A move costs the rank's live heap
 * (what the program allocated; --rank-memory when none) over the network. */
#include <stdio.h>
#include <stdlib.h>

#include "emul/emu.h"

int emu_dyn_init(emu_sim *S, psim_err *err) {
  const emu_opts *o = S->o;
  int nh = plat_nhosts(o->plat);
  if (o->host_events && o->host_events->n) {
    S->maps = dyn_events_maps(o->host_events, S->np, S->rank_host, nh, o->move_policy, "--host-events", err);
    if (!S->maps) return -1;
  }
  S->dyn = dyn_new(S->np, nh, S->rank_host);
  return 0;
}

void emu_dyn_marker(emu_rank *k) {
  emu_sim *S = emu_current;
  dyn_marker(S->dyn, k->id, sim_now(S->sim));
  /* an iter=N event applies at the marker itself, not at the next call */
  if (S->maps) emu_dyn_boundary(S, k);
}

static void move_done(sim *s, activity *a) {
  (void)s;
  emu_sim *S = a->data;
  emu_wake(S, &S->ranks[a->tag]);
}

void emu_dyn_boundary(emu_sim *S, emu_rank *k) {
  const dyn_events *E = S->o->host_events;
  const double now = sim_now(S->sim);
  int e = -1, to = dyn_events_due(S->dyn, E, S->maps, S->np, k->id, &k->ev_next, now, &e);   /* replay's rule */
  if (to < 0 || to == k->host) return;
  double bytes = k->heap > 0 ? k->heap : S->o->rank_memory;
  if (!models_transfer(S->models, k->host, to, bytes, move_done, S, k->id, S->err)) {
    emu_fatal("cannot move rank %d: %s", k->id, S->err->msg);
  }
  emu_block();
  double end = sim_now(S->sim);
  dyn_move_rec(S->dyn, e, k->id, k->host, to, bytes, now, end);
  k->st.move += end - now;
  k->call_compute += end - now;   /* inside MPI_Migrate/psim_iteration: not the call's own time */
  S->rank_host[k->id] = k->host = k->st.host = to;
  dyn_place(S->dyn, k->id, to, end);
}

static const char *host_name(void *ctx, int u) { return plat_host_at(ctx, u)->name; }

void emu_dyn_finish(emu_sim *S, replay_result *res) {
  dyn_finish(S->dyn, res->simulated_time, host_name, (void *)S->o->plat, &res->dyn);
  S->dyn = NULL;
  free(S->maps);
  S->maps = NULL;
}
