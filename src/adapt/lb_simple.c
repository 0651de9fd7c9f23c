/* The trivial strategies: rotate (every VP to the next PE) and random (uniform, seeded). */
#include "adapt/adapt_internal.h"

int lb_rotate(const lb_situation *s, int *out) {
  for (int v = 0; v < s->nvp; v++) out[v] = (s->vp_pe[v] + 1) % s->npe;
  return 0;
}

/* RandCent: the seed and the step number give the stream, so runs are reproducible and
 * successive steps differ. */
int lb_random(const lb_situation *s, int *out) {
  psim_rng r;
  psim_rng_seed(&r, s->seed * 0x9E3779B97F4A7C15ULL + s->step);
  for (int v = 0; v < s->nvp; v++) out[v] = (int)(psim_rng_next(&r) % (uint64_t)s->npe);
  return 0;
}
