/* Each rank's live heap, for MPI_Migrate's `migrate BYTES` in a recorded trace (the memory a
 * load balancer would move with the rank).
 *
 * psimcc links programs with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free, so
 * the program's own calls land here (libc's internal allocations, e.g. inside strdup, do
 * not). Every block allocated while a rank runs is remembered with its size and owner in an
 * open-addressing table; freeing it, from any rank, takes it off its owner's count. A block
 * the table does not know (allocated by libc, or before the run) is simply freed. The
 * requested sizes are counted, not malloc's rounding, so the figure does not depend on the
 * C library. The table costs 24 bytes per live block. At the end of a run the blocks still
 * live are freed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

typedef struct hslot { uintptr_t p; size_t size; int owner; } hslot;   /* owner -1: empty */

static hslot *tab;
static size_t cap, used, tomb;

enum { TOMB = -2 };

static size_t hash(uintptr_t p) { return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull); }

static void grow(void) {
  hslot *old = tab;
  size_t ocap = cap;
  cap = cap ? 2 * cap : 1024;
  tab = malloc(cap * sizeof *tab);
  if (!tab) abort();
  for (size_t i = 0; i < cap; i++) tab[i].owner = -1;
  used = tomb = 0;
  for (size_t i = 0; i < ocap; i++) {
    if (old[i].owner < 0) continue;
    size_t j = hash(old[i].p) & (cap - 1);
    while (tab[j].owner != -1) j = (j + 1) & (cap - 1);
    tab[j] = old[i];
    used++;
  }
  free(old);
}

/* Under --threads ranks allocate at once on their workers (emu_par.c): the table is shared. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#define LOCKED(S, stmt) do { if ((S)->par) { pthread_mutex_lock(&mu); stmt; pthread_mutex_unlock(&mu); } else { stmt; } } while (0)

static void remember_in(emu_sim *S, emu_rank *k, void *p, size_t n) {
  if (4 * (used + tomb + 1) > 3 * cap) grow();
  size_t j = hash((uintptr_t)p) & (cap - 1);
  while (tab[j].owner >= 0) j = (j + 1) & (cap - 1);
  if (tab[j].owner == TOMB) tomb--;
  tab[j].p = (uintptr_t)p;
  tab[j].size = n;
  tab[j].owner = k->id;
  used++;
  k->heap += (double)n;
  (void)S;
}

static void remember(void *p, size_t n) {
  emu_sim *S = emu_current;
  emu_rank *k = S ? emu_running() : NULL;
  if (!p || !k) return;
  LOCKED(S, remember_in(S, k, p, n));
}

/* Returns the block's size (0 when unknown). */
static size_t forget_in(emu_sim *S, void *p) {
  if (!cap) return 0;
  size_t j = hash((uintptr_t)p) & (cap - 1);
  for (; tab[j].owner != -1; j = (j + 1) & (cap - 1)) {
    if (tab[j].owner < 0 || tab[j].p != (uintptr_t)p) continue;
    if (tab[j].owner < S->np) S->ranks[tab[j].owner].heap -= (double)tab[j].size;
    tab[j].owner = TOMB;
    used--;
    tomb++;
    return tab[j].size;
  }
  return 0;
}

static size_t forget(void *p) {
  emu_sim *S = emu_current;
  if (!p || !S) return 0;
  size_t n;
  LOCKED(S, n = forget_in(S, p));
  return n;
}

/* The run is over: what its ranks still hold is released, as their processes' exit would
 * (a rank that failed or returned without freeing does not leak into psim). */
void rt_heap_reset(void) {
  for (size_t i = 0; i < cap; i++)
    if (tab[i].owner >= 0) free((void *)tab[i].p);
  free(tab);
  tab = NULL;
  cap = used = tomb = 0;
}

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t m, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n) {
  void *p = malloc(n);
  remember(p, n);
  return p;
}

void *__wrap_calloc(size_t m, size_t n) {
  void *p = calloc(m, n);
  remember(p, m * n);
  return p;
}

void *__wrap_realloc(void *p, size_t n) {
  size_t old = forget(p);   /* before: p is dead once realloc succeeds */
  void *q = realloc(p, n);
  if (q) remember(q, n);
  else if (n && old) remember(p, old);   /* failed: p lives on */
  return q;
}

void __wrap_free(void *p) {
  forget(p);
  free(p);
}
