/* psim sweep: the parameter space of a what-if study (src/tools/sweep_space.c).
 *
 * A parameter is a name and an ordered list of values, written NAME=ITEM,ITEM,... where an item
 * is a value or a range: A..B (step 1), A..B+S (arithmetic), A..B*K (geometric). Several
 * parameters combine as a cross product (the last one varies fastest) or, zipped, pairwise.
 * A command template is instantiated by replacing every {NAME} with the value of NAME.
 * Pure functions: no I/O, no global state. */
#ifndef PSIM_SWEEP_H
#define PSIM_SWEEP_H

#include <stddef.h>

#include "psim/util.h"

typedef struct sweep_param {
  char *name;
  char **values;   /* the values as text, in order (what {NAME} becomes) */
  size_t n;
} sweep_param;

typedef struct sweep_space {
  VEC(sweep_param) params;
  int zip;         /* 1: configuration i takes value i of every parameter */
  size_t total;    /* number of configurations (set by sweep_space_finish) */
} sweep_space;

/* Largest number of values a range may produce, and of configurations of a space. */
enum { SWEEP_MAX_VALUES = 1000000 };
#define SWEEP_MAX_CONFIGS ((size_t)100000000)

/* Parses "NAME=ITEM,..." and appends the parameter to s. -1 with err (code 2) on a bad name,
 * an empty value, a bad range, or a name given twice. */
int sweep_space_add(sweep_space *s, const char *arg, psim_err *err);
/* Checks the space (zip: equal lengths) and computes s->total. -1 with err. */
int sweep_space_finish(sweep_space *s, psim_err *err);
void sweep_space_free(sweep_space *s);
/* The value index of each parameter in configuration i (0 <= i < total), into idx[params.len]. */
void sweep_space_config(const sweep_space *s, size_t i, size_t *idx);
/* The value of parameter p in configuration idx. */
const char *sweep_value(const sweep_space *s, const size_t *idx, size_t p);
/* Index of the parameter called name (n bytes), or -1. */
int sweep_space_find(const sweep_space *s, const char *name, size_t n);

/* tmpl with every {NAME} replaced by its value in configuration idx (a new string). A {NAME}
 * that is no parameter is an error (-> NULL, err); `used`, when given, gets a 1 for each
 * parameter that appears. Braces around anything else than a name are copied as they are. */
char *sweep_subst(const sweep_space *s, const size_t *idx, const char *tmpl, char *used, psim_err *err);

/* Parses a number that is the whole of text (for values used as numbers); 0 or -1. */
int sweep_number(const char *text, double *out);

/* Capacity planning (psim plan): the host counts to measure next when searching for the first
 * count in (lo, hi) whose answer is "yes", knowing no at lo and yes at hi, with k probes at
 * once (bisection for k = 1). Writes at most k distinct counts strictly between lo and hi into
 * out, in increasing order; returns how many (0 when hi - lo <= 1: the answer is hi). */
int sweep_probes(long lo, long hi, int k, long *out);

#endif
