/* Over-decomposition for psim lb (see replay_vp in include/psim/replay.h): the trace's ranks
 * are VPs run on PEs, one at a time per PE, in FIFO order; every period-th migrate is a
 * balancing step (all VPs wait, the strategy decides, moving VPs' memory crosses the network,
 * all resume). Rank stepping itself is replay_rank.c's; this file only decides when a VP may
 * run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_internal.h"

void replay_vp_init(replay *R) {
  const replay_vp *vp = R->vp;
  for (int i = 0; i < R->np; i++) R->rank_host[i] = vp->pe_host[vp->vp_pe[i]];
  R->pe_running = xmalloc((size_t)vp->npes * sizeof *R->pe_running);
  R->pe_qhead = xmalloc((size_t)vp->npes * sizeof *R->pe_qhead);
  R->pe_qtail = xmalloc((size_t)vp->npes * sizeof *R->pe_qtail);
  for (int p = 0; p < vp->npes; p++) R->pe_running[p] = R->pe_qhead[p] = R->pe_qtail[p] = -1;
  R->step_loads = xcalloc((size_t)R->np, sizeof *R->step_loads);
  R->step_bytes = xcalloc((size_t)R->np, sizeof *R->step_bytes);
  R->load_mark = xcalloc((size_t)R->np, sizeof *R->load_mark);
  R->new_pe = xcalloc((size_t)R->np, sizeof *R->new_pe);
}

void replay_vp_free(replay *R) {
  free(R->pe_running);
  free(R->pe_qhead);
  free(R->pe_qtail);
  free(R->step_loads);
  free(R->step_bytes);
  free(R->load_mark);
  free(R->new_pe);
}

void replay_vp_acquire(replay *R, rank *k) {
  int pe = R->vp->vp_pe[k->id];
  if (R->pe_running[pe] < 0) {
    R->pe_running[pe] = k->id;
    k->state = RK_READY;
    sim_make_ready(R->sim, k->id);
    return;
  }
  replay_cold(R, k)->qnext = -1;
  if (R->pe_qtail[pe] >= 0) R->cold[R->pe_qtail[pe]].qnext = k->id;
  else R->pe_qhead[pe] = k->id;
  R->pe_qtail[pe] = k->id;
  k->state = RK_QUEUED;
  replay_rank_account(R, k, PH_PE);
}

void replay_vp_release(replay *R, rank *k) {
  int pe = R->vp->vp_pe[k->id];
  if (R->pe_running[pe] != k->id) return;
  R->pe_running[pe] = -1;
  int next = R->pe_qhead[pe];
  if (next < 0) return;
  R->pe_qhead[pe] = R->cold[next].qnext;
  if (R->pe_qhead[pe] < 0) R->pe_qtail[pe] = -1;
  R->pe_running[pe] = next;
  R->ranks[next].state = RK_READY;
  sim_make_ready(R->sim, next);
}

/* ---- balancing steps ---- */
/* Every VP is at the step and every migration has arrived: VPs take their new PEs and queue
 * for them in VP order. */
static void step_resume(replay *R) {
  const replay_vp *vp = R->vp;
  for (int v = 0; v < R->np; v++) {
    dyn_place(R->dyn, v, R->new_pe[v], sim_now(R->sim));
    vp->vp_pe[v] = R->new_pe[v];
    R->rank_host[v] = vp->pe_host[R->new_pe[v]];
  }
  R->at_step = 0;
  for (int v = 0; v < R->np; v++) {
    rank *k = &R->ranks[v];
    k->state = RK_BLOCKED;
    replay_vp_acquire(R, k);
  }
  if (vp->resumed) vp->resumed(vp->ctx, R->nsteps, sim_now(R->sim));
}

static void migration_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  if (R->step_ev >= 0) {   /* the moves of a step that applied --pe-events */
    int v = (int)a->tag, from = R->vp->vp_pe[v], to = R->new_pe[v];
    dyn_move_rec(R->dyn, R->step_ev, v, from, to, R->step_bytes[v], R->mig_start, sim_now(R->sim));
  }
  if (--R->migrating == 0) step_resume(R);
}

/* The strategy has run (lb_cost elapsed): the moving VPs' memory crosses the network. */
static void step_strategy_done(sim *s, activity *a) {
  (void)s;
  replay *R = a->data;
  R->migrating = 1;   /* held until every transfer is started */
  R->mig_start = sim_now(R->sim);
  for (int v = 0; v < R->np && !R->failed; v++) {
    int from = R->vp->vp_pe[v], to = R->new_pe[v];
    if (from == to) continue;
    R->migrating++;
    if (!models_transfer(R->models, R->vp->pe_host[from], R->vp->pe_host[to], R->step_bytes[v],
                         migration_done, R, v, R->err)) {
      replay_rank_fail(R);
      return;
    }
  }
  if (--R->migrating == 0) step_resume(R);
}

/* The last VP reached the step: measure, decide, then migrate. */
static void step_start(replay *R) {
  const replay_vp *vp = R->vp;
  R->nsteps++;
  if (R->force_step && R->force_step <= R->cold[0].migrates) R->force_step = 0;
  /* --pe-events due at this step (in order): iteration events up to this migrate, date
   * events up to now; removed PEs are flagged for step() */
  const dyn_events *E = vp->pe_events;
  int mig = R->cold[0].migrates;
  R->step_ev = -1;
  while (E && R->pe_ev_next < E->n) {
    const dyn_event *ev = &E->ev[R->pe_ev_next];
    if (ev->iteration ? ev->iteration > mig : ev->date > sim_now(R->sim)) break;
    for (int j = 0; j < ev->nunits; j++) vp->pe_out[ev->units[j]] = ev->action == DYN_REMOVE;
    dyn_event_fired(R->dyn, ev, R->pe_ev_next, sim_now(R->sim));
    R->step_ev = R->pe_ev_next++;
  }
  for (int v = 0; v < R->np; v++) {
    R->step_loads[v] = R->ranks[v].st.compute - R->load_mark[v];
    R->load_mark[v] = R->ranks[v].st.compute;
    R->new_pe[v] = vp->vp_pe[v];
  }
  if (vp->step(vp->ctx, R->nsteps, sim_now(R->sim), R->step_loads, R->step_bytes, R->new_pe, R->err) < 0) {
    replay_rank_fail(R);
    return;
  }
  for (int v = 0; v < R->np; v++)
    if (R->new_pe[v] < 0 || R->new_pe[v] >= vp->npes) {
      psim_errf(R->err, PSIM_EXIT_INPUT, NULL, 0, "balancing step %d put VP %d on PE %d (PEs are 0..%d)",
                R->nsteps, v, R->new_pe[v], vp->npes - 1);
      replay_rank_fail(R);
      return;
    }
  for (int v = 0; v < R->np && vp->pe_out; v++)
    if (vp->pe_out[R->new_pe[v]]) {
      psim_errf(R->err, PSIM_EXIT_INPUT, NULL, 0, "balancing step %d left VP %d on removed PE %d", R->nsteps, v,
                R->new_pe[v]);
      replay_rank_fail(R);
      return;
    }
  sim_start_timer(R->sim, vp->lb_cost, step_strategy_done, R, 0);
}

/* A migrate was reached on only some VPs: the others ended their trace. */
static void step_mismatch(replay *R) {
  int waiting = -1, ended = -1;
  for (int v = 0; v < R->np; v++) {
    if (R->ranks[v].state == RK_STEP && waiting < 0) waiting = v;
    if (R->ranks[v].state == RK_DONE && ended < 0) ended = v;
  }
  const rank *w = &R->ranks[waiting];
  psim_errf(R->err, PSIM_EXIT_INPUT, w->act_file, w->act_line,
            "migrate on only some VPs: VP %d is at its migrate number %d (a balancing step) but "
            "VP %d ended its trace after %d migrates; every VP must reach every migrate",
            waiting, replay_cold(R, w)->migrates, ended, R->cold[ended].migrates);
  replay_rank_fail(R);
}

/* Whether VP k's current migrate is a balancing step: every period-th, and those --pe-events
 * force (see replay_vp.pe_events). Every VP decides the same for the same migrate number. */
static int step_due(replay *R, const rank *k) {
  const replay_vp *vp = R->vp;
  int m = replay_cold(R, k)->migrates;
  const dyn_events *E = vp->pe_events;
  if (E && R->pe_ev_next < E->n) {
    const dyn_event *ev = &E->ev[R->pe_ev_next];
    /* a date event: at the first migrate no VP had reached at that date. This is the first
     * migrate after the date (every migrate looks), so every migrate before it, and the
     * highest number reached so far, came before the date: no VP has passed the next one. */
    if (!ev->iteration && !R->force_step && sim_now(R->sim) >= ev->date) R->force_step = R->max_migrates + 1;
  }
  if (m > R->max_migrates) R->max_migrates = m;
  if (E && R->pe_ev_next < E->n) {
    const dyn_event *ev = &E->ev[R->pe_ev_next];
    if (ev->iteration && ev->iteration == m) return 1;
    for (int i = R->pe_ev_next; i < E->n; i++)
      if (E->ev[i].iteration == m) return 1;
  }
  if (R->force_step == m) return 1;
  return vp->period > 0 && m % vp->period == 0;
}

int replay_vp_migrate(replay *R, rank *k, const rop *op) {
  if (k->step == STEP_BALANCED) return 0;   /* resumed after the step */
  const replay_vp *vp = R->vp;
  rank_cold *c = replay_cold(R, k);
  c->migrates++;
  /* st.compute must include the computation that just ended */
  replay_rank_account(R, k, k->phase);
  if (vp->iteration)
    vp->iteration(vp->ctx, k->id, c->migrates, vp->vp_pe[k->id], k->st.compute - c->iter_mark,
                  sim_now(R->sim));
  c->iter_mark = k->st.compute;
  dyn_marker(R->dyn, k->id, sim_now(R->sim));
  if (!step_due(R, k)) return 0;
  k->step = STEP_BALANCED;
  R->step_bytes[k->id] = op->bytes >= 0 ? op->bytes : vp->vp_memory;
  replay_rank_block(R, k, PH_LB);
  k->state = RK_STEP;
  replay_vp_release(R, k);
  if (++R->at_step == R->np) step_start(R);
  else if (R->at_step + R->ndone == R->np) step_mismatch(R);
  return 1;
}

void replay_vp_rank_done(replay *R, rank *k) {
  replay_vp_release(R, k);
  R->ndone++;
  if (R->at_step && R->at_step + R->ndone == R->np) step_mismatch(R);
}

/* VPs still waiting at a step, or VPs that reached different numbers of migrates, mean the
 * trace has migrate points on only some VPs. */
void replay_vp_final_checks(replay *R) {
  if (R->at_step) {
    int waiting = -1, other = -1;
    for (int v = 0; v < R->np; v++) {
      if (R->ranks[v].state == RK_STEP) { if (waiting < 0) waiting = v; }
      else if (other < 0) other = v;
    }
    const rank *w = &R->ranks[waiting];
    if (other < 0) {   /* all there: the step started but never ended */
      psim_errf(R->err, PSIM_EXIT_INPUT, w->act_file, w->act_line,
                "balancing step %d never ended: every VP waits at it, and its cost or its "
                "migrations never complete", R->nsteps + 1);
      replay_rank_fail(R);
      return;
    }
    psim_errf(R->err, PSIM_EXIT_INPUT, w->act_file, w->act_line,
              "migrate on only some VPs: %d VPs wait at balancing step %d (VP %d at its migrate "
              "number %d) but VP %d never reaches it (it has %d migrates so far)",
              R->at_step, R->nsteps + 1, waiting, replay_cold(R, w)->migrates, other, R->cold[other].migrates);
    replay_rank_fail(R);
    return;
  }
  for (int v = 1; v < R->np; v++)
    if (R->ranks[v].state == RK_DONE && R->ranks[0].state == RK_DONE &&
        R->cold[v].migrates != R->cold[0].migrates) {
      psim_errf(R->err, PSIM_EXIT_INPUT, NULL, 0,
                "migrate on only some VPs: VP 0 reached %d migrates but VP %d reached %d; every "
                "VP must reach every migrate", R->cold[0].migrates, v, R->cold[v].migrates);
      replay_rank_fail(R);
      return;
    }
}
