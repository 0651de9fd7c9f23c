/* Progress of a long run on a terminal: simulated time reached, actions done, and the rate in
 * actions per second of wall-clock time, rewritten in place at most four times a second. It
 * reads the clock at most every millisecond or so (every 4096 actions of a fast replay, every
 * action of a slow psim run), so it costs nothing measurable; it is meant for
 * stderr on a terminal only (the wall clock would make any file non-deterministic). */
#include <stdlib.h>
#include <time.h>

#include "psim/observe.h"

struct obs_progress {
  FILE *f;
  uint64_t actions, since, every;
  double t0, last, checked, sim_now;
  int shown;
};

static double wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void on_action(void *ctx, int rank, const tit_action *a, const char *text, int len,
                      double start, double end) {
  (void)rank; (void)a; (void)text; (void)len; (void)start;
  obs_progress *p = ctx;
  p->actions++;
  if (end > p->sim_now) p->sim_now = end;
  /* read the clock every `every` actions: up to 4096 when actions come fast (replay), down to
   * each one when they are slow (psim run, whose ranks really compute between calls) */
  if (++p->since < p->every) return;
  p->since = 0;
  double now = wall();
  if (now - p->checked < 1e-3 && p->every < 4096) p->every *= 2;
  else if (now - p->checked > 0.05 && p->every > 1) p->every /= 2;
  p->checked = now;
  if (now - p->last < 0.25) return;
  p->last = now;
  double rate = now > p->t0 ? (double)p->actions / (now - p->t0) : 0;
  fprintf(p->f, "\r\033[K[psim] simulated %.6f s, %llu actions, %.0f actions/s", p->sim_now,
          (unsigned long long)p->actions, rate);
  fflush(p->f);
  p->shown = 1;
}

static void on_end(void *ctx, double time) {
  (void)time;
  obs_progress *p = ctx;
  if (p->shown) { fputs("\r\033[K", p->f); fflush(p->f); }   /* leave the terminal clean */
}

obs_progress *obs_progress_new(FILE *f) {
  obs_progress *p = xcalloc(1, sizeof *p);
  p->f = f;
  p->t0 = wall();
  p->last = p->t0 - 1;   /* the first line comes at once: a short run shows one too */
  p->checked = p->t0;
  p->every = 1;   /* doubles while checks come less than 1 ms apart */
  return p;
}

replay_observer obs_progress_observer(obs_progress *p) {
  return (replay_observer){.ctx = p, .action = on_action, .end = on_end};
}

void obs_progress_free(obs_progress *p) { free(p); }
