/* Balancer registry and shared helpers (see include/psim/adapt.h). */
#include <stdlib.h>
#include <string.h>

#include "adapt/adapt_internal.h"

static const char *const NAMES[LB_NKINDS] = {
    [LB_NONE] = "none",           [LB_DUMMY] = "dummy",
    [LB_GREEDY] = "greedy",       [LB_GREEDY_REFINE] = "greedy-refine",
    [LB_REFINE] = "refine",       [LB_REFINE_CLASSIC] = "refine-classic",
    [LB_GREEDY_COMM] = "greedy-comm", [LB_REFINE_COMM] = "refine-comm",
    [LB_ROTATE] = "rotate",       [LB_RANDOM] = "random"};

int lb_kind_from_name(const char *name) {
  for (int k = 0; k < LB_NKINDS; k++)
    if (!strcmp(name, NAMES[k])) return k;
  return -1;
}

const char *lb_kind_name(lb_kind k) { return k >= 0 && k < LB_NKINDS ? NAMES[k] : "?"; }

const char *lb_kind_list(void) {
  return "greedy, greedy-refine, refine, refine-classic, greedy-comm, refine-comm, rotate, "
         "random, dummy, none";
}

void lb_situation_init(lb_situation *s) {
  memset(s, 0, sizeof *s);
  s->alpha = 3.5e-5;   /* Charm++'s +LBAlpha default */
  s->beta = 8.5e-9;    /* +LBBeta */
  s->seed = 1;
}

void lb_pe_loads(const lb_situation *s, const int *map, double *loads) {
  for (int p = 0; p < s->npe; p++) loads[p] = lb_bg(s, p);
  for (int v = 0; v < s->nvp; v++) loads[map[v]] += lb_cost_on(s, v, map[v]);
}

double lb_max(const double *loads, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) if (loads[i] > m) m = loads[i];
  return m;
}

/* qsort has no context argument in C11: sort (load, id) pairs instead. */
typedef struct keyed_vp { double w; int id; } keyed_vp;

static int by_load_desc(const void *a, const void *b) {
  const keyed_vp *x = a, *y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

int *lb_order_desc(const lb_situation *s) {
  keyed_vp *k = xmalloc((size_t)(s->nvp ? s->nvp : 1) * sizeof *k);
  for (int v = 0; v < s->nvp; v++) k[v] = (keyed_vp){s->vp_load[v], v};
  qsort(k, (size_t)s->nvp, sizeof *k, by_load_desc);
  int *order = xmalloc((size_t)(s->nvp ? s->nvp : 1) * sizeof *order);
  for (int v = 0; v < s->nvp; v++) order[v] = k[v].id;
  free(k);
  return order;
}

int lb_balance(lb_kind k, const lb_situation *s, int *out, psim_err *err) {
  if (s->npe < 1) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "load balancing needs at least one PE");
  for (int v = 0; v < s->nvp; v++) {
    if (s->vp_pe[v] < 0 || s->vp_pe[v] >= s->npe)
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "VP %d is on PE %d, out of range (0..%d)", v, s->vp_pe[v],
                       s->npe - 1);
    if (!(s->vp_load[v] >= 0))
      return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "VP %d has a negative load", v);
  }
  for (int p = 0; p < s->npe; p++)
    if (!(lb_speed(s, p) > 0)) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "PE %d has a speed <= 0", p);
  switch (k) {
  case LB_NONE:
  case LB_DUMMY:
    memcpy(out, s->vp_pe, (size_t)s->nvp * sizeof *out);
    return 0;
  case LB_GREEDY: return lb_greedy(s, out);
  case LB_GREEDY_REFINE: return lb_greedy_refine(s, out);
  case LB_REFINE: return lb_refine_a(s, out);
  case LB_REFINE_CLASSIC: return lb_refine_classic(s, out);
  case LB_GREEDY_COMM: return lb_greedy_comm(s, out);
  case LB_REFINE_COMM: return lb_refine_comm(s, out);
  case LB_ROTATE: return lb_rotate(s, out);
  case LB_RANDOM: return lb_random(s, out);
  case LB_NKINDS: break;
  }
  return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "unknown balancer");
}
