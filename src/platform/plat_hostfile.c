/* Hostfiles: one host name per line, `name:N` for N consecutive entries, blank lines ignored. */
#include "platform/plat_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 100000000L

int plat_hostfile_load(const platform *p, const char *path, int **hosts, psim_err *err) {
  *hosts = NULL;
  if (err) psim_err_clear(err);
  FILE *f = fopen(path, "r");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open the hostfile: expected a readable file");
  VEC(int) v = {0};
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long ln = 0;
  int rc = 0;
  while ((len = getline(&line, &cap, f)) >= 0) {
    ln++;
    char *s = line, *e = line + len;
    while (s < e && isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) e--;
    if (s == e) continue;
    *e = 0;
    long count = 1;
    char *colon = strrchr(s, ':');
    if (colon) {
      char *end;
      errno = 0;
      count = strtol(colon + 1, &end, 10);
      if (end == colon + 1 || *end || errno || count < 1 || count > MAX_ENTRIES) {
        rc = psim_errf(err, PSIM_EXIT_INPUT, path, ln, "bad entry '%s': expected 'host' or 'host:N' with N >= 1", s);
        break;
      }
      *colon = 0;
    }
    int h = plat_host_find(p, s);
    if (h < 0) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, ln, "unknown host '%s' (expected a host of platform %s)", s,
                     plat_name(p));
      break;
    }
    /* The same bound for the whole file as for one line: the count is returned as an int
     * (22 lines of host:100000000 wrapped it negative) and every entry takes memory. */
    if (count > MAX_ENTRIES - (long)v.len) {
      rc = psim_errf(err, PSIM_EXIT_INPUT, path, ln, "too many entries: expected at most %ld in the whole hostfile",
                     MAX_ENTRIES);
      break;
    }
    for (long i = 0; i < count; i++) VEC_PUSH(v, h);
  }
  free(line);
  fclose(f);
  if (rc < 0) { VEC_FREE(v); return -1; }
  if (v.len == 0) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "empty hostfile: expected host names");
  *hosts = v.data;
  return (int)v.len;
}
