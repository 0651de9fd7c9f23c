/* Call sites of a precompiled program's MPI calls, for the report's source column.
 *
 * A program psimcc built says where each blocking MPI call is (mpi.h's psim_at). A program
 * built by MPICH's or Open MPI's own mpicc calls psim's MPI libraries (src/emul/abi/) with no
 * such note, so its call site is found the way a debugger finds it: the return address of the
 * program's frame that called into psim. Walking up from here (emu_leave, still on the rank's
 * stack inside the call), the first frames are psim's own (the psim binary, the libraries of
 * its lib/ directory); the site is the first frame after them in the program itself, or, when
 * none is near (a call made for it by a library, e.g. MPICH's Fortran bindings), in whatever
 * object called psim.
 *
 * The address is named as well as the binary allows: FILE:LINE from its DWARF line table when
 * it was built with -g and psim with libdw (elfutils), else FUNCTION+0xOFFSET (BINARY) from its
 * symbols (libdw reads .symtab; without libdw, dladdr only knows exported ones), else
 * BINARY+0xOFFSET. A site is looked up once per return address: the next calls from the same
 * place are a hash look-up (the stack walk itself is a few frames). */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#ifdef PSIM_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "emul/emu.h"

/* How many frames past psim's own the program's may be (a library between them). */
#define SITE_DEPTH 6
#define SITE_FRAMES 24

typedef struct site_ent { uintptr_t pc; char *where; int line; } site_ent;

/* One object met, with what reads its symbols. */
typedef struct site_obj {
  uintptr_t base;           /* its load bias (link_map l_addr) */
  char *path, *name;        /* the file read, the name shown */
#ifdef PSIM_HAVE_LIBDW
  Dwfl *dwfl;
  Dwfl_Module *mod;
#endif
} site_obj;

/* The code of one loaded object (an executable segment), for telling whose a frame is
 * without asking the dynamic loader at each frame. */
typedef struct site_range { uintptr_t lo, hi, base; char *file; int psim; } site_range;

struct emu_sites {
  site_ent *tab;            /* open addressing on the key (see emu_site_of_call); 0: empty */
  size_t cap, n;
  VEC(site_obj) objs;
  VEC(site_range) ranges;   /* sorted by lo; rebuilt when a frame is in none (a later load) */
  char self_dir[4096];      /* psim's directory: its binary, lib/ the MPI libraries */
  size_t self_len;
};

static struct emu_sites *sites_new(void) {
  struct emu_sites *s = xcalloc(1, sizeof *s);
  s->cap = 64;
  s->tab = xcalloc(s->cap, sizeof *s->tab);
  ssize_t k = readlink("/proc/self/exe", s->self_dir, sizeof s->self_dir - 1);
  if (k > 0) {
    s->self_dir[k] = 0;
    char *slash = strrchr(s->self_dir, '/');
    if (slash) *slash = 0;
    s->self_len = strlen(s->self_dir);
  }
  return s;
}

static void free_ranges(struct emu_sites *s) {
  for (size_t i = 0; i < s->ranges.len; i++) free(s->ranges.data[i].file);
  s->ranges.len = 0;
}

void emu_sites_free(struct emu_sites *s) {
  if (!s) return;
  for (size_t i = 0; i < s->cap; i++) free(s->tab[i].where);
  for (size_t i = 0; i < s->objs.len; i++) {
#ifdef PSIM_HAVE_LIBDW
    if (s->objs.data[i].dwfl) dwfl_end(s->objs.data[i].dwfl);
#endif
    free(s->objs.data[i].path);
    free(s->objs.data[i].name);
  }
  VEC_FREE(s->objs);
  free_ranges(s);
  VEC_FREE(s->ranges);
  free(s->tab);
  free(s);
}

/* psim's own code: the psim binary (the main object, named "") and the libraries beside it
 * (build/lib/libmpich.so.12...). */
static int is_psim(const struct emu_sites *s, const char *file) {
  if (!file || !*file) return 1;
  if (!s->self_len || strncmp(file, s->self_dir, s->self_len) || file[s->self_len] != '/') return 0;
  const char *rest = file + s->self_len + 1;
  return !strchr(rest, '/') || !strncmp(rest, "lib/", 4);
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct emu_sites *s = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    site_range r = {info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz, info->dlpi_addr,
                    xstrdup(info->dlpi_name ? info->dlpi_name : ""), 0};
    r.psim = is_psim(s, r.file);
    VEC_PUSH(s->ranges, r);
  }
  return 0;
}

static int range_cmp(const void *a, const void *b) {
  const site_range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void load_ranges(struct emu_sites *s) {
  free_ranges(s);
  dl_iterate_phdr(add_object, s);
  if (s->ranges.len) qsort(s->ranges.data, s->ranges.len, sizeof *s->ranges.data, range_cmp);
}

static const site_range *range_at(const struct emu_sites *s, uintptr_t pc) {
  size_t lo = 0, hi = s->ranges.len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->ranges.data[mid].hi <= pc) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->ranges.len && s->ranges.data[lo].lo <= pc ? &s->ranges.data[lo] : NULL;
}

/* The walk up the rank's stack: stops at the program's frame, or SITE_DEPTH frames past the
 * first that is not psim's, or at a frame in no object (the ranges are rebuilt once). */
typedef struct walk {
  struct emu_sites *s;
  uintptr_t prog_base;
  int n, first, reloaded;
  uintptr_t pc, base;       /* the site so far */
  const char *file;
} walk;

static _Unwind_Reason_Code on_frame(struct _Unwind_Context *ctx, void *arg) {
  walk *w = arg;
  if (w->n++ == SITE_FRAMES) return _URC_END_OF_STACK;
  uintptr_t pc = (uintptr_t)_Unwind_GetIP(ctx);
  const site_range *r = range_at(w->s, pc);
  /* not before a site is noted: it points into the ranges */
  if (!r && !w->reloaded && w->first < 0) { w->reloaded = 1; load_ranges(w->s); r = range_at(w->s, pc); }
  if (!r) return _URC_END_OF_STACK;
  if (r->psim) return _URC_NO_REASON;
  if (w->first < 0 || r->base == w->prog_base) { w->pc = pc; w->base = r->base; w->file = r->file; }
  if (w->first < 0) w->first = w->n;
  if (r->base == w->prog_base || w->n - w->first >= SITE_DEPTH) return _URC_END_OF_STACK;
  return _URC_NO_REASON;
}

/* The object whose file is path (key: its load bias, 0 for the program, whose copies are one
 * file), set up for look-ups the first time it is met. */
static site_obj *object(struct emu_sites *s, uintptr_t key, const char *path) {
  for (size_t i = 0; i < s->objs.len; i++)
    if (s->objs.data[i].base == key) return &s->objs.data[i];
  site_obj o = {0};
  o.base = key;
  o.path = xstrdup(path && *path ? path : "?");
  const char *slash = strrchr(o.path, '/');
  o.name = xstrdup(slash ? slash + 1 : o.path);
#ifdef PSIM_HAVE_LIBDW
  static const Dwfl_Callbacks cb = {.find_elf = dwfl_build_id_find_elf,
                                    .find_debuginfo = dwfl_standard_find_debuginfo,
                                    .section_address = dwfl_offline_section_address};
  o.dwfl = dwfl_begin(&cb);
  if (o.dwfl) {
    /* at bias 0: the module's addresses are the file's */
    o.mod = dwfl_report_elf(o.dwfl, o.name, o.path, -1, 0, false);
    dwfl_report_end(o.dwfl, NULL, NULL);
  }
#endif
  VEC_PUSH(s->objs, o);
  return &s->objs.data[s->objs.len - 1];
}

/* Names return address pc, at file address a of o: the call is the instruction before it. */
static void name_site(const site_obj *o, uintptr_t pc, uintptr_t a, char **where, int *line) {
  char buf[1024];
  *line = 0;
#ifdef PSIM_HAVE_LIBDW
  if (o->mod) {
    Dwfl_Line *l = dwfl_module_getsrc(o->mod, a - 1);
    int ln = 0;
    const char *src = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
    if (src && ln > 0) { *where = xstrdup(src); *line = ln; return; }
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *fn = dwfl_module_addrinfo(o->mod, a - 1, &off, &sym, NULL, NULL, NULL);
    if (fn) {
      snprintf(buf, sizeof buf, "%s+0x%lx (%s)", fn, (unsigned long)off + 1, o->name);
      *where = xstrdup(buf);
      return;
    }
  }
#endif
  /* dladdr knows the exported symbols only, and names the nearest below pc: trusted when pc
   * lies inside that function */
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (dladdr1((void *)(pc - 1), &info, (void **)&sym, RTLD_DL_SYMENT) && info.dli_sname && info.dli_saddr && sym &&
      (sym->st_info & 0xf) == STT_FUNC && pc - 1 - (uintptr_t)info.dli_saddr < sym->st_size)
    snprintf(buf, sizeof buf, "%s+0x%lx (%s)", info.dli_sname, (unsigned long)(pc - (uintptr_t)info.dli_saddr), o->name);
  else
    snprintf(buf, sizeof buf, "%s+0x%lx", o->name, (unsigned long)a);
  *where = xstrdup(buf);
}

static size_t slot(const struct emu_sites *s, uintptr_t key) {
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (s->cap - 1);
  while (s->tab[h].pc && s->tab[h].pc != key) h = (h + 1) & (s->cap - 1);
  return h;
}

static void grow(struct emu_sites *s) {
  site_ent *old = s->tab;
  size_t oc = s->cap;
  s->cap *= 2;
  s->tab = xcalloc(s->cap, sizeof *s->tab);
  for (size_t i = 0; i < oc; i++)
    if (old[i].pc) s->tab[slot(s, old[i].pc)] = old[i];
  free(old);
}

int emu_site_of_call(emu_sim *S, int rank, const char **file, int *line) {
  if (!S->sites) { S->sites = sites_new(); load_ranges(S->sites); }
  struct emu_sites *s = S->sites;
  walk w = {.s = s, .first = -1};
  if (S->prog.mains) {
    uintptr_t m = (uintptr_t)S->prog.mains[emu_copy_of(&S->prog, rank)];
    const site_range *r = range_at(s, m);
    if (!r) { load_ranges(s); r = range_at(s, m); }
    if (r) w.prog_base = r->base;
  }
  _Unwind_Backtrace(on_frame, &w);
  if (w.first < 0) return 0;
  /* keyed by the place in the file for the program (its copies are one binary, at other
   * biases), by the address for the rest: odd and even keys */
  int in_prog = w.prog_base && w.base == w.prog_base;
  uintptr_t key = in_prog ? (w.pc - w.base) * 2 + 1 : w.pc * 2;
  size_t h = slot(s, key);
  if (!s->tab[h].pc) {
    site_obj *o = object(s, in_prog ? 0 : w.base, in_prog ? S->o->program : w.file);
    s->tab[h].pc = key;
    name_site(o, w.pc, w.pc - w.base, &s->tab[h].where, &s->tab[h].line);
    if (++s->n * 2 > s->cap) {
      grow(s);
      h = slot(s, key);
    }
  }
  *file = s->tab[h].where;
  *line = s->tab[h].line;
  return 1;
}
