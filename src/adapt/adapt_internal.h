/* Shared helpers of the balancers (src/adapt/lb_*.c); not a public interface. */
#ifndef PSIM_ADAPT_INTERNAL_H
#define PSIM_ADAPT_INTERNAL_H

#include "psim/adapt.h"

static inline double lb_speed(const lb_situation *s, int p) {
  return s->pe_speed ? s->pe_speed[p] : 1.0;
}
static inline double lb_bg(const lb_situation *s, int p) { return s->pe_bg ? s->pe_bg[p] : 0.0; }
/* Work of VP v: its measured load times the speed of the PE it was measured on. */
static inline double lb_work(const lb_situation *s, int v) {
  return s->vp_load[v] * lb_speed(s, s->vp_pe[v]);
}
/* Load VP v adds to PE p. */
static inline double lb_cost_on(const lb_situation *s, int v, int p) {
  return lb_work(s, v) / lb_speed(s, p);
}

/* VP ids by (load descending, id ascending); caller frees. */
int *lb_order_desc(const lb_situation *s);
/* Maximum of loads[0..n). */
double lb_max(const double *loads, int n);

/* One function per strategy; each writes out[0..nvp) and returns 0. */
int lb_greedy(const lb_situation *s, int *out);
int lb_greedy_refine(const lb_situation *s, int *out);
int lb_refine_classic(const lb_situation *s, int *out);
int lb_refine_a(const lb_situation *s, int *out);
int lb_greedy_comm(const lb_situation *s, int *out);
int lb_refine_comm(const lb_situation *s, int *out);
int lb_rotate(const lb_situation *s, int *out);
int lb_random(const lb_situation *s, int *out);

#endif
