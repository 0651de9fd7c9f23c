/* psim support layer: error records, checked allocation, growable arrays.
 *
 * Errors are values: library code fills a psim_err and returns a failure code; only the
 * command line prints it and chooses the exit status. Nothing here keeps global state. */
#ifndef PSIM_UTIL_H
#define PSIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Exit statuses shared by every command. */
enum { PSIM_EXIT_OK = 0, PSIM_EXIT_USAGE = 2, PSIM_EXIT_INPUT = 2, PSIM_EXIT_DEADLOCK = 3 };

/* One error: where (file and line, when known) and what was expected. */
typedef struct psim_err {
  int code;           /* PSIM_EXIT_* to return from main; 0 = no error */
  long line;          /* 1-based, 0 when not about a line */
  char file[512];     /* the input file the error is about, "" when none */
  char msg[1536];     /* what went wrong and what was expected */
} psim_err;

void psim_err_clear(psim_err *e);
/* The status the process is exiting with (main sets it before returning), for code that runs
 * during exit and must end the process itself (emu_after_run). 0 until set. */
void psim_set_exit_status(int status);
int psim_exit_status(void);

/* Records an error and returns -1, so callers can write `return psim_errf(...)`. */
int psim_errf(psim_err *e, int code, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Formats "file:line: message" (or the parts that are known) into buf. */
void psim_err_format(const psim_err *e, char *buf, size_t n);

/* Allocation that aborts with a message on exhaustion: a simulator cannot do useful work
 * without memory, and checking every small allocation would hide the logic. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xaligned_alloc(size_t align, size_t n);   /* n a multiple of align (C11 aligned_alloc) */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Growable array of T: `VEC(int) v = {0}; VEC_PUSH(v, 3); v.data[0]; VEC_FREE(v);` */
#define VEC(T) struct { T *data; size_t len, cap; }
#define VEC_RESERVE(v, n)                                                        \
  do {                                                                           \
    if ((v).cap < (n)) {                                                         \
      size_t c_ = (v).cap ? (v).cap * 2 : 8;                                     \
      while (c_ < (n)) c_ *= 2;                                                  \
      (v).data = xrealloc((v).data, c_ * sizeof(*(v).data));                     \
      (v).cap = c_;                                                              \
    }                                                                            \
  } while (0)
#define VEC_PUSH(v, x)                                                           \
  do {                                                                           \
    VEC_RESERVE((v), (v).len + 1);                                               \
    (v).data[(v).len++] = (x);                                                   \
  } while (0)
#define VEC_FREE(v) do { free((v).data); (v).data = NULL; (v).len = (v).cap = 0; } while (0)

/* Fixed-size object allocator: objects carved from large chunks, recycled through a free
 * list. For the millions of short-lived requests and activities of a large run, it saves the
 * per-object malloc overhead and frees everything at once. */
typedef struct psim_slab {
  size_t size, per_chunk, used;   /* object size, objects per chunk, used in the last chunk */
  void *free;                     /* free list (first word of a free object = next) */
  void *owner;                    /* psim_slab_init_owned's, else NULL */
  VEC(char *) chunks;
} psim_slab;
void psim_slab_init(psim_slab *s, size_t size);
/* A slab whose objects need not hold a pointer to their owner (issue 38: a request's world,
 * 8 of its bytes, times the 8 requests a stencil's rank holds): its chunks are aligned on
 * their size, PSIM_SLAB_OWNED_CHUNK, and begin with `owner`, which psim_slab_owner finds
 * from any object's address. */
enum { PSIM_SLAB_OWNED_CHUNK = 1 << 19 };
void psim_slab_init_owned(psim_slab *s, size_t size, void *owner);
static inline void *psim_slab_owner(const void *obj) {
  return *(void *const *)((uintptr_t)obj & ~(uintptr_t)(PSIM_SLAB_OWNED_CHUNK - 1));
}
void *psim_slab_alloc(psim_slab *s);       /* uninitialised object */
void psim_slab_free(psim_slab *s, void *p);
void psim_slab_destroy(psim_slab *s);      /* frees every object */

/* Deterministic RNG (xoshiro256**), seeded explicitly: no hidden global state. */
typedef struct psim_rng { uint64_t s[4]; } psim_rng;
void psim_rng_seed(psim_rng *r, uint64_t seed);
uint64_t psim_rng_next(psim_rng *r);
double psim_rng_uniform(psim_rng *r); /* [0,1) */

/* Fast decimal parse of a double (strtod semantics for the forms traces use).
 * Returns the end pointer, or NULL when s does not start with a number. */
const char *psim_parse_double(const char *s, const char *end, double *out);

/* Units of SimGrid platform files (see specs/simgrid-compat.md §2). Each returns 0 and the
 * value in base units (flop/s, byte/s, seconds, bytes), or -1 with `why` describing what was
 * expected. A unit-less number is accepted (base unit) and *warned is set to 1. */
int psim_unit_speed(const char *s, double *out, int *warned, char *why, size_t whylen);
int psim_unit_bandwidth(const char *s, double *out, int *warned, char *why, size_t whylen);
int psim_unit_time(const char *s, double *out, int *warned, char *why, size_t whylen);
int psim_unit_size(const char *s, double *out, int *warned, char *why, size_t whylen);

/* A step function of message size (SimGrid's smpi/bw-factor, smpi/lat-factor, smpi/os|or|ois):
 * the value of the section with the largest threshold below the size (src/util/steps.c). */
typedef struct step_fn {
  int n;
  double thr[32], a[32], b[32];   /* value = a + b * size */
  double below;                   /* value at or below the smallest threshold, when fixed */
  int below_first;                /* 1: below the smallest threshold use the first section */
} step_fn;
/* Parses "t0:v0;t1:v1;..." (factors) or "t:a:b;..." (overheads). */
int step_fn_parse(step_fn *f, const char *s, int overhead, psim_err *err);
double step_fn_eval(const step_fn *f, double size);

#endif
