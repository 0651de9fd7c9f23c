/* Error records and checked allocation (see include/psim/util.h). */
#include "psim/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exit_status;
void psim_set_exit_status(int status) { exit_status = status; }
int psim_exit_status(void) { return exit_status; }

void psim_err_clear(psim_err *e) { memset(e, 0, sizeof *e); }

int psim_errf(psim_err *e, int code, const char *file, long line, const char *fmt, ...) {
  if (!e) return -1;
  /* Keep the first error: later ones are usually consequences of it. */
  if (e->code) return -1;
  e->code = code ? code : PSIM_EXIT_INPUT;
  e->line = line;
  snprintf(e->file, sizeof e->file, "%s", file ? file : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return -1;
}

void psim_err_format(const psim_err *e, char *buf, size_t n) {
  if (e->file[0] && e->line > 0)
    snprintf(buf, n, "%s:%ld: %s", e->file, e->line, e->msg);
  else if (e->file[0])
    snprintf(buf, n, "%s: %s", e->file, e->msg);
  else
    snprintf(buf, n, "%s", e->msg);
}

static void oom(size_t n) {
  fprintf(stderr, "psim: out of memory (allocating %zu bytes)\n", n);
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom(n * size);
  return p;
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}

void *xaligned_alloc(size_t align, size_t n) {
  void *p = aligned_alloc(align, n);
  if (!p) oom(n);
  return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}
