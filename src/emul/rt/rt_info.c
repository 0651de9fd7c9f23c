/* MPI_Info objects (key/value hints) and MPI_Alloc_mem / MPI_Free_mem.
 *
 * psim takes no hints: an info is only stored and given back, as MPI allows an implementation
 * to ignore every key. Infos are local objects (not collective): each MPI_Info_create makes a
 * new handle in the world's table. Handle 0 is MPI_INFO_NULL, 1 is MPI_INFO_ENV (read-only:
 * "command", the program's path, and "maxprocs", the number of ranks, the keys MPI reserves
 * for how the job was started). Keys keep their insertion order (MPI_Info_get_nthkey). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

struct rt_info {
  int used, readonly;
  int n, cap;
  char **keys, **vals;
};

static rt_info *info_new(void) {
  rt_world *w = rt_w();
  for (size_t i = 2; i < w->infos.len; i++)
    if (!w->infos.data[i]->used) { w->infos.data[i]->used = 1; return w->infos.data[i]; }
  rt_info *in = xcalloc(1, sizeof *in);
  in->used = 1;
  VEC_PUSH(w->infos, in);
  return in;
}

static int info_handle(const rt_info *in) {
  rt_world *w = rt_w();
  for (size_t i = 0; i < w->infos.len; i++) if (w->infos.data[i] == in) return (int)i;
  return MPI_INFO_NULL;
}

static void info_set(rt_info *in, const char *key, const char *val) {
  for (int i = 0; i < in->n; i++)
    if (!strcmp(in->keys[i], key)) { free(in->vals[i]); in->vals[i] = xstrdup(val); return; }
  if (in->n == in->cap) {
    in->cap = in->cap ? 2 * in->cap : 8;
    in->keys = xrealloc(in->keys, (size_t)in->cap * sizeof *in->keys);
    in->vals = xrealloc(in->vals, (size_t)in->cap * sizeof *in->vals);
  }
  in->keys[in->n] = xstrdup(key);
  in->vals[in->n] = xstrdup(val);
  in->n++;
}

static void info_clear(rt_info *in) {
  for (int i = 0; i < in->n; i++) { free(in->keys[i]); free(in->vals[i]); }
  in->n = 0;
}

static void tables_init(rt_world *w) {
  if (w->infos.len) return;
  VEC_PUSH(w->infos, xcalloc(1, sizeof(rt_info)));   /* MPI_INFO_NULL: never used */
  rt_info *env = xcalloc(1, sizeof *env);
  env->used = 1;
  char np[32];
  snprintf(np, sizeof np, "%d", emu_current->np);
  const emu_rank *k = emu_self();
  info_set(env, "command", k && k->argc > 0 && k->argv[0] ? k->argv[0] : "");
  info_set(env, "maxprocs", np);
  env->readonly = 1;
  VEC_PUSH(w->infos, env);
}

/* (Not checked after MPI_Finalize: MPI-4 lets the info functions be called then, as before
 * MPI_Init; MPICH's infocrenvf does.) */
rt_info *rt_info_get(MPI_Info h) {
  rt_world *w = rt_w();
  tables_init(w);
  if (h <= 0 || (size_t)h >= w->infos.len || !w->infos.data[h]->used)
    emu_fatal("invalid info %d (MPI_ERR_INFO)", h);
  return w->infos.data[h];
}

void rt_infos_free(rt_world *w) {
  for (size_t i = 0; i < w->infos.len; i++) {
    rt_info *in = w->infos.data[i];
    info_clear(in);
    free(in->keys);
    free(in->vals);
    free(in);
  }
  VEC_FREE(w->infos);
}

static void check_key(const char *key) {
  size_t n = key ? strlen(key) : 0;
  if (n == 0 || n > MPI_MAX_INFO_KEY) emu_fatal("info key of %zu characters (1 to %d allowed, MPI_ERR_INFO_KEY)", n, MPI_MAX_INFO_KEY);
}

static int find(const rt_info *in, const char *key) {
  for (int i = 0; i < in->n; i++) if (!strcmp(in->keys[i], key)) return i;
  return -1;
}

int MPI_Info_create(MPI_Info *info) {
  tables_init(rt_w());
  *info = info_handle(info_new());
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value) {
  rt_info *in = rt_info_get(info);
  check_key(key);
  if (!value || strlen(value) > MPI_MAX_INFO_VAL) emu_fatal("info value too long (at most %d characters, MPI_ERR_INFO_VALUE)", MPI_MAX_INFO_VAL);
  if (in->readonly) emu_fatal("MPI_INFO_ENV cannot be modified (MPI_ERR_INFO)");
  info_set(in, key, value);
  return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
  rt_info *in = rt_info_get(info);
  check_key(key);
  if (valuelen < 0) emu_fatal("negative valuelen %d (MPI_ERR_ARG)", valuelen);
  int i = find(in, key);
  *flag = i >= 0;
  if (i < 0) return MPI_SUCCESS;
  /* at most valuelen characters, then the terminating null (value holds valuelen + 1) */
  size_t n = strlen(in->vals[i]);
  if (n > (size_t)valuelen) n = (size_t)valuelen;
  memcpy(value, in->vals[i], n);
  value[n] = 0;
  return MPI_SUCCESS;
}

/* MPI 4.0: *buflen is the size of value on input (0: only the length is asked); on output the
 * value's length with its terminating null. A longer value is cut, still terminated. */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
  rt_info *in = rt_info_get(info);
  check_key(key);
  if (*buflen < 0) emu_fatal("MPI_Info_get_string: negative buflen %d (MPI_ERR_ARG)", *buflen);
  int i = find(in, key);
  *flag = i >= 0;
  if (i < 0) return MPI_SUCCESS;
  size_t n = strlen(in->vals[i]);
  if (*buflen > 0) {
    size_t c = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
    memcpy(value, in->vals[i], c);
    value[c] = 0;
  }
  *buflen = (int)n + 1;
  return MPI_SUCCESS;
}

/* MPI 4.0: a new info holding what MPI_INFO_ENV holds (psim's ranks share one command line). */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info) {
  (void)argc; (void)argv;
  return MPI_Info_dup(MPI_INFO_ENV, info);
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
  rt_info *in = rt_info_get(info);
  check_key(key);
  int i = find(in, key);
  *flag = i >= 0;
  if (i >= 0) *valuelen = (int)strlen(in->vals[i]);
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
  *nkeys = rt_info_get(info)->n;
  return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
  rt_info *in = rt_info_get(info);
  if (n < 0 || n >= in->n) emu_fatal("MPI_Info_get_nthkey: key %d of an info with %d keys (MPI_ERR_ARG)", n, in->n);
  strcpy(key, in->keys[n]);
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key) {
  rt_info *in = rt_info_get(info);
  check_key(key);
  if (in->readonly) emu_fatal("MPI_INFO_ENV cannot be modified (MPI_ERR_INFO)");
  int i = find(in, key);
  if (i < 0) emu_fatal("MPI_Info_delete: no key '%s' (MPI_ERR_INFO_NOKEY)", key);
  free(in->keys[i]);
  free(in->vals[i]);
  memmove(in->keys + i, in->keys + i + 1, (size_t)(in->n - i - 1) * sizeof *in->keys);
  memmove(in->vals + i, in->vals + i + 1, (size_t)(in->n - i - 1) * sizeof *in->vals);
  in->n--;
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
  rt_info *in = rt_info_get(info);
  rt_info *d = info_new();
  for (int i = 0; i < in->n; i++) info_set(d, in->keys[i], in->vals[i]);
  *newinfo = info_handle(d);
  return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info) {
  rt_info *in = rt_info_get(*info);
  if (in->readonly) emu_fatal("MPI_INFO_ENV cannot be freed (MPI_ERR_INFO)");
  info_clear(in);
  in->used = 0;
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

/* Memory for one-sided communication: ordinary heap of the rank (psim needs no registered
 * memory); counted in the rank's live heap like its malloc'ed blocks (rt_heap.c). */
void *__wrap_calloc(size_t m, size_t n);
void __wrap_free(void *p);

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  if (size < 0) emu_fatal("MPI_Alloc_mem of %td bytes (MPI_ERR_SIZE)", size);
  if (info != MPI_INFO_NULL) rt_info_get(info);
  /* Zeroed, as the fresh pages real MPI implementations return for large allocations: some
   * programs (MPICH's pmandel_fence) read cells of it they never wrote. */
  void *p = __wrap_calloc(1, size ? (size_t)size : 1);
  if (!p) emu_fatal("MPI_Alloc_mem: out of memory for %td bytes (MPI_ERR_NO_MEM)", size);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}

int MPI_Free_mem(void *base) {
  __wrap_free(base);
  return MPI_SUCCESS;
}

/* Hints on communicators and windows: psim uses none, so MPI_*_get_info returns a new empty
 * info (the hints in use) whatever was set, as MPI allows. */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  if (info != MPI_INFO_NULL) rt_info_get(info);
  return MPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  rt_comm_get(comm);
  rt_info_get(info);
  return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info) {
  rt_comm_get(comm);
  return MPI_Info_create(info);
}
