/* Reading ELF images (emu_elf.h): the dynamic section, the loader's library search, the walk
 * over the libraries a program needs, defined symbols. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul/emu_elf.h"

/* virtual address -> file offset through the PT_LOAD segments */
static int vaddr_off(const char *d, size_t n, uint64_t va, uint64_t *off) {
  uint64_t phoff = rd64(d + 32);
  uint16_t phentsize = rd16(d + 54), phnum = rd16(d + 56);
  for (uint16_t i = 0; i < phnum; i++) {
    uint64_t at = phoff + (uint64_t)i * phentsize;
    if (at + 56 > n) return -1;
    const char *ph = d + at;
    if (rd32(ph) != PT_LOAD_) continue;
    uint64_t o = rd64(ph + 8), v = rd64(ph + 16), fsz = rd64(ph + 32);
    if (va >= v && va < v + fsz) { *off = o + (va - v); return *off < n ? 0 : -1; }
  }
  return -1;
}

int elf_parse(const char *path, const char *d, size_t n, elf_info *e, psim_err *err) {
  memset(e, 0, sizeof *e);
  e->soname = e->runpath = UINT64_MAX;
  if (n < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2 || d[5] != 1 || rd16(d + 18) != 62)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "not an x86-64 ELF file");
  e->exec = rd16(d + 16) == 2;
  uint64_t phoff = rd64(d + 32);
  uint16_t phentsize = rd16(d + 54), phnum = rd16(d + 56);
  uint64_t dyn = 0, dynsz = 0, strtab = 0, symtab = 0, rela = 0, jmprel = 0;
  /* A truncated file (an interrupted copy or build) would crash the loader: glibc maps PT_LOAD
   * segments past the end of the file and faults (SIGBUS) when it touches them. */
  if (phentsize < 56 || phoff > n || (uint64_t)phnum * phentsize > n - phoff)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "is truncated or corrupt: its program headers (%u of %u bytes at offset %llu) "
                     "do not fit in its %zu bytes", (unsigned)phnum, (unsigned)phentsize, (unsigned long long)phoff, n);
  for (uint16_t i = 0; i < phnum; i++) {
    const char *ph = d + phoff + (uint64_t)i * phentsize;
    uint64_t off = rd64(ph + 8), size = rd64(ph + 32);
    if (rd32(ph) == PT_LOAD_ && (off > n || size > n - off))
      return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "is truncated: a loadable segment ends at byte %llu, but the file has %zu bytes",
                       (unsigned long long)(off + size), n);
    if (rd32(ph) == PT_TLS_) e->tls = 1;
    if (rd32(ph) == PT_DYNAMIC_) { dyn = rd64(ph + 8); dynsz = rd64(ph + 32); }
    if (rd32(ph) == PT_GNU_RELRO_) { e->relro_va = rd64(ph + 16); e->relro_size = rd64(ph + 40); }
  }
  if (!dyn || dyn > n || dynsz > n - dyn) return 0;   /* static: no dynamic section */
  for (uint64_t at = dyn; at + 16 <= dyn + dynsz; at += 16) {
    int64_t tag = (int64_t)rd64(d + at);
    uint64_t val = rd64(d + at + 8);
    if (tag == 0) break;
    if (tag == DT_NEEDED_ && e->nneeded < 64) e->needed[e->nneeded++] = val;
    else if (tag == DT_STRTAB_) strtab = val;
    else if (tag == DT_STRSZ_) e->str_size = val;
    else if (tag == DT_SYMTAB_) symtab = val;
    else if (tag == DT_RELA_) rela = val;
    else if (tag == DT_RELASZ_) e->rela_size = val;
    else if (tag == DT_JMPREL_) jmprel = val;
    else if (tag == DT_PLTRELSZ_) e->jmprel_size = val;
    else if (tag == DT_SONAME_) e->soname = val;
    else if (tag == DT_RUNPATH_ || tag == DT_RPATH_) e->runpath = val;
    else if (tag == DT_FLAGS_1_) { e->flags1_at = at + 8; e->pie = (val & DF_1_PIE_) != 0; }
  }
  if (!strtab || vaddr_off(d, n, strtab, &e->str_off) < 0 || e->str_size > n - e->str_off)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "bad ELF dynamic string table");
  if (symtab && vaddr_off(d, n, symtab, &e->sym_off) < 0) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "bad ELF dynamic symbol table");
  if (rela && (vaddr_off(d, n, rela, &e->rela_off) < 0 || e->rela_size > n - e->rela_off))
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "bad ELF relocation table");
  if (jmprel && (vaddr_off(d, n, jmprel, &e->jmprel_off) < 0 || e->jmprel_size > n - e->jmprel_off))
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "bad ELF PLT relocation table");
  return 0;
}

const char *elf_str(const char *d, const elf_info *e, uint64_t off) {
  if (off >= e->str_size || !memchr(d + e->str_off + off, 0, e->str_size - off)) return "";
  return d + e->str_off + off;
}


/* main's address in the file, from .symtab (0 when stripped). */
uint64_t elf_symtab_main(const char *d, size_t n) {
  uint64_t shoff = rd64(d + 40);
  uint16_t shentsize = rd16(d + 58), shnum = rd16(d + 60);
  if (shentsize < 64) return 0;
  for (uint16_t i = 0; i < shnum; i++) {
    uint64_t at = shoff + (uint64_t)i * shentsize;
    if (at + 64 > n) return 0;
    const char *sh = d + at;
    if (rd32(sh + 4) != 2) continue;   /* SHT_SYMTAB */
    uint64_t off = rd64(sh + 24), size = rd64(sh + 32), link = rd32(sh + 40);
    uint64_t lat = shoff + link * shentsize;
    if (off > n || size > n - off || lat + 64 > n) return 0;
    uint64_t soff = rd64(d + lat + 24), ssize = rd64(d + lat + 32);
    if (soff > n || ssize > n - soff) return 0;
    for (uint64_t s = off; s + 24 <= off + size; s += 24) {
      uint32_t nm = rd32(d + s);
      if (nm + 5 > ssize || memcmp(d + soff + nm, "main", 5)) continue;
      if ((d[s + 4] & 0xf) == 2 && rd16(d + s + 6) != 0) return rd64(d + s + 8);   /* STT_FUNC, defined */
    }
  }
  return 0;
}


/* The directories the dynamic loader would search for a NEEDED name of the program at
 * exe_path: its RUNPATH (runpath, $ORIGIN expanded), LD_LIBRARY_PATH, then the system's (not
 * /etc/ld.so.conf's extra directories: give a full path for a library there). */
char *elf_search_lib(const char *name, const char *exe_path, const char *rp) {
  if (strchr(name, '/')) return realpath(name, NULL);
  char origin[4096];
  snprintf(origin, sizeof origin, "%s", exe_path);
  char *sl = strrchr(origin, '/');
  if (sl) *sl = 0; else strcpy(origin, ".");
  const char *llp = getenv("LD_LIBRARY_PATH");
  char *all = xmalloc(strlen(rp) + (llp ? strlen(llp) : 0) + 256);
  sprintf(all, "%s:%s:/usr/local/lib:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib",
          rp, llp ? llp : "");
  char *res = NULL;
  for (char *save = NULL, *dir = strtok_r(all, ":", &save); dir && !res; dir = strtok_r(NULL, ":", &save)) {
    char p[8192];
    if (!strncmp(dir, "$ORIGIN", 7)) snprintf(p, sizeof p, "%s%s/%s", origin, dir + 7, name);
    else snprintf(p, sizeof p, "%s/%s", dir, name);
    if (access(p, R_OK) == 0) res = realpath(p, NULL);
  }
  free(all);
  return res;
}


#define MAX_WALK 128


/* Parses the file at path (mapped read-only) and calls back with its image; 0 if unreadable. */
static int with_image(const char *path, int (*fn)(void *ctx, const char *d, size_t n, const elf_info *e),
                      void *ctx) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 64) {
    size_t n = (size_t)st.st_size;
    char *d = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (d != MAP_FAILED) {
      elf_info e;
      psim_err quiet = {0};
      if (elf_parse(path, d, n, &e, &quiet) == 0) rc = fn(ctx, d, n, &e);
      psim_err_clear(&quiet);
      munmap(d, n);
    }
  }
  close(fd);
  return rc;
}


/* Adds library `name` to the walk (once); its index, or -1 (not found, or past MAX_WALK). */
static int walk_add(elf_walk *w, const char *name) {
  char *p = elf_search_lib(name, w->exe_path, w->runpath);
  if (!p) return -1;
  for (size_t i = 0; i < w->libs.len; i++)
    if (!strcmp(w->libs.data[i].path, p)) { free(p); return (int)i; }
  if (w->libs.len >= MAX_WALK) { free(p); return -1; }
  elf_walk_lib l = {p, 0};
  VEC_PUSH(w->libs, l);
  return (int)w->libs.len - 1;
}

int elf_mpi_of(const char *needed) {
  return !strcmp(needed, "libmpich.so.12") ? ELF_MPICH : !strcmp(needed, "libmpi.so.40") ? ELF_OMPI : 0;
}

/* Adds the NEEDED of one image to the walk; returns the ELF_* it needs itself. */
static int walk_needed(void *ctx, const char *d, size_t n, const elf_info *e) {
  (void)n;
  elf_walk *w = ctx;
  int mpi = 0;
  for (int i = 0; i < e->nneeded; i++) {
    const char *s = elf_str(d, e, e->needed[i]);
    if (elf_mpi_of(s)) { mpi |= elf_mpi_of(s); continue; }
    if (!strncmp(s, "libmpi.so", 9) && !w->other) {
      snprintf(w->other_buf, sizeof w->other_buf, "%s", s);
      w->other = w->other_buf;
    }
    int to = walk_add(w, s);
    if (w->from >= 0 && to >= 0) {
      VEC_PUSH(w->edges, w->from);
      VEC_PUSH(w->edges, to);
    }
  }
  w->mpis |= mpi;
  return mpi;
}

void elf_walk_program(elf_walk *w, const char *path, const char *d, const elf_info *e) {
  memset(w, 0, sizeof *w);
  w->exe_path = path;
  w->runpath = e->runpath != UINT64_MAX ? elf_str(d, e, e->runpath) : "";
  w->from = -1;
  walk_needed(w, d, 0, e);
  for (size_t i = 0; i < w->libs.len; i++) {
    char *lib = w->libs.data[i].path;
    w->from = (int)i;
    int mpi = with_image(lib, walk_needed, w);   /* may grow (move) w->libs */
    w->libs.data[i].mpi = mpi;
  }
  /* A library that needs one calling MPI calls MPI too, through it: MUMPS's libdmumps calls
   * MPI through Open MPI's Fortran bindings (libmpi_mpifh.so.40, which needs libmpi.so.40),
   * and keeps its own state of that use (its load balancing's arrays, allocated per process).
   * Shared by the ranks, one rank's arrays were another's: "Attempt to DEALLOCATE unallocated
   * 'load_flops'". Propagated up the NEEDED edges until nothing changes. */
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t k = 0; k + 1 < w->edges.len; k += 2) {
      elf_walk_lib *f = &w->libs.data[w->edges.data[k]], *t = &w->libs.data[w->edges.data[k + 1]];
      if ((f->mpi | t->mpi) != f->mpi) { f->mpi |= t->mpi; changed = 1; }
    }
  }
}

void elf_walk_free(elf_walk *w) {
  for (size_t i = 0; i < w->libs.len; i++) free(w->libs.data[i].path);
  VEC_FREE(w->libs);
  VEC_FREE(w->edges);
}


const char *elf_basename(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

int elf_name_is(const char *path, const char *const *names, size_t n) {
  const char *b = elf_basename(path);
  for (size_t i = 0; i < n; i++)
    if (!strncmp(b, names[i], strlen(names[i]))) return 1;
  return 0;
}

int elf_sym_cmp(const void *x, const void *y) {
  return strcmp(((const elf_sym *)x)->name, ((const elf_sym *)y)->name);
}

typedef struct { char *const *names; size_t count; int found; } state_ctx;

static int find_state_var(void *ctx, const char *d, size_t n, const elf_info *e) {
  state_ctx *c = ctx;
  if (e->tls) return 0;
  size_t ns;
  elf_sym *syms = elf_defined_symbols(d, n, e, &ns);
  uint64_t phoff = rd64(d + 32);
  uint16_t phentsize = rd16(d + 54), phnum = rd16(d + 56);
  for (size_t i = 0; i < c->count && c->found < 0 && ns; i++) {
    elf_sym key = {c->names[i], 0, 0};
    const elf_sym *s = bsearch(&key, syms, ns, sizeof *syms, elf_sym_cmp);
    if (!s || (s->va >= e->relro_va && s->va < e->relro_va + e->relro_size)) continue;
    for (uint16_t p = 0; p < phnum; p++) {
      const char *ph = d + phoff + (uint64_t)p * phentsize;
      uint64_t va = rd64(ph + 16), memsz = rd64(ph + 40);
      if (rd32(ph) == PT_LOAD_ && (rd32(ph + 4) & 2) && s->va >= va && s->va < va + memsz) { c->found = (int)i; break; }
    }
  }
  free(syms);
  return 0;
}

int elf_lib_state_var(const char *path, char *const *names, size_t count) {
  state_ctx c = {names, count, -1};
  with_image(path, find_state_var, &c);
  return c.found;
}

elf_sym *elf_defined_symbols(const char *d, size_t n, const elf_info *e, size_t *count) {
  *count = 0;
  uint64_t shoff = rd64(d + 40);
  uint16_t shentsize = rd16(d + 58), shnum = rd16(d + 60);
  if (shentsize < 64 || !e->sym_off) return NULL;
  uint64_t nsym = 0;
  for (uint16_t i = 0; i < shnum; i++) {
    uint64_t at = shoff + (uint64_t)i * shentsize;
    if (at + 64 > n) return NULL;
    if (rd32(d + at + 4) == 11) nsym = rd64(d + at + 32) / 24;   /* SHT_DYNSYM */
  }
  if (!nsym || e->sym_off + nsym * 24 > n) return NULL;
  elf_sym *v = xmalloc(nsym * sizeof *v);
  for (uint64_t k = 1; k < nsym; k++) {
    const char *sym = d + e->sym_off + k * 24;
    int type = sym[4] & 0xf, bind = (unsigned char)sym[4] >> 4;
    if (rd16(sym + 6) == 0 || (type != 1 && type != 2) || (bind != 1 && bind != 2)) continue;
    v[*count] = (elf_sym){elf_str(d, e, rd32(sym)), rd64(sym + 8), type};
    if (*v[*count].name) (*count)++;
  }
  qsort(v, *count, sizeof *v, elf_sym_cmp);
  return v;
}


int elf_refers_to(const char *d, size_t n, const elf_info *e, const char *const *names, size_t count) {
  uint64_t shoff = rd64(d + 40);
  uint16_t shentsize = rd16(d + 58), shnum = rd16(d + 60);
  if (shentsize < 64 || !e->sym_off) return -1;
  uint64_t nsym = 0;
  for (uint16_t i = 0; i < shnum; i++) {
    uint64_t at = shoff + (uint64_t)i * shentsize;
    if (at + 64 > n) return -1;
    if (rd32(d + at + 4) == 11) nsym = rd64(d + at + 32) / 24;   /* SHT_DYNSYM */
  }
  if (!nsym || e->sym_off + nsym * 24 > n) return -1;
  int found = -1;
  for (uint64_t k = 1; k < nsym; k++) {
    const char *sym = d + e->sym_off + k * 24;
    if (rd16(sym + 6) != 0) continue;   /* defined here */
    const char *name = elf_str(d, e, rd32(sym));
    for (size_t i = 0; i < count; i++)
      if (!strcmp(name, names[i]) && (found < 0 || (int)i < found)) found = (int)i;
  }
  return found;
}
