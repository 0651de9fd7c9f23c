/* Reading ELF images for psim run's loader of MPICH binaries (emu_abi.c): what an image says
 * about itself (its dynamic section, relocations, symbols), where the loader would find the
 * libraries it needs, and which of those call MPI. Nothing is loaded here: images are read
 * from memory or mapped read-only. Private to src/emul/. */
#ifndef PSIM_EMU_ELF_H
#define PSIM_EMU_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "psim/util.h"

enum { PT_LOAD_ = 1, PT_DYNAMIC_ = 2, PT_TLS_ = 7 };
enum { DT_NEEDED_ = 1, DT_PLTRELSZ_ = 2, DT_STRTAB_ = 5, DT_SYMTAB_ = 6, DT_RELA_ = 7,
       DT_RELASZ_ = 8, DT_STRSZ_ = 10, DT_SONAME_ = 14, DT_RPATH_ = 15, DT_JMPREL_ = 23,
       DT_RUNPATH_ = 29 };
#define PT_GNU_RELRO_ 0x6474e552u
#define R_X86_64_64_ 1u
#define R_X86_64_GLOB_DAT_ 6u
#define R_X86_64_JUMP_SLOT_ 7u
#define DT_FLAGS_1_ 0x6ffffffbLL
#define DF_1_PIE_ 0x08000000ULL
#define R_X86_64_COPY_ 5u

/* What one ELF image says about itself (file offsets, all checked against its length). */
typedef struct elf_info {
  int pie, exec, tls;
  uint64_t flags1_at;          /* file offset of DT_FLAGS_1's value, 0 if none */
  uint64_t str_off, str_size;  /* .dynstr */
  uint64_t sym_off;            /* .dynsym */
  uint64_t rela_off, rela_size;
  uint64_t jmprel_off, jmprel_size;  /* the PLT's relocations (DT_JMPREL) */
  uint64_t relro_va, relro_size;     /* PT_GNU_RELRO: read-only once relocated */
  uint64_t soname;             /* offset in .dynstr, or UINT64_MAX */
  uint64_t needed[64];
  int nneeded;
  uint64_t runpath;            /* offset in .dynstr, or UINT64_MAX */
} elf_info;

static inline uint64_t rd64(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t rd16(const char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* Parses the image d (n bytes, named path in errors) into e; 0, or -1 with err (code 2). */
int elf_parse(const char *path, const char *d, size_t n, elf_info *e, psim_err *err);
/* A string of .dynstr, or "" when out of range. */
const char *elf_str(const char *d, const elf_info *e, uint64_t off);
/* main's address in the file, from .symtab (0 when stripped). */
uint64_t elf_symtab_main(const char *d, size_t n);

/* The path of library `name` (malloc'ed), searched as the loader would for the program at
 * exe_path whose RUNPATH is rp ("" if none); NULL if not found. */
char *elf_search_lib(const char *name, const char *exe_path, const char *rp);

/* ---- Libraries that call MPI ----
 * A program may call MPI only through a library it needs: Debian's ScaLAPACK testers (xdlu...)
 * need libscalapack-mpich.so.2.2, which needs libmpich.so.12. psim's libmpich.so.12 (or
 * libmpi.so.40 for Open MPI), loaded first, satisfies that NEEDED too. Such a library keeps
 * the state of its MPI use in globals (BLACS: its grids and communicators), which must be each
 * rank's own: psim run (emu_abi.c) privatizes every library that needs the MPI library, as
 * --privatize-libs would (shared, the ranks overwrote each other's BLACS grids and the run
 * deadlocked), and every library that needs one of those (MUMPS needs Open MPI's Fortran
 * bindings, which need libmpi.so.40). The walk follows the NEEDED entries breadth first, as
 * the loader searches them (each library's own RUNPATH is not read: the program's and the
 * system's directories are), over at most 128 libraries. */
enum { ELF_MPICH = 1, ELF_OMPI = 2 };   /* the MPIs psim supplies: libmpich.so.12, libmpi.so.40 */
/* mpi: the ELF_* it needs, itself or through the libraries it needs, or 0 */
typedef struct { char *path; int mpi; } elf_walk_lib;
typedef struct {
  const char *exe_path, *runpath;
  VEC(elf_walk_lib) libs;
  VEC(int) edges;              /* NEEDED edges between libs: pairs (needing, needed) */
  int from;                    /* the library whose NEEDED are being read; -1: the program */
  int mpis;                    /* the ELF_* needed anywhere, the program's own NEEDED too */
  const char *other;           /* a NEEDED libmpi.so.* of another Open MPI met on the way */
  char other_buf[256];
} elf_walk;
/* Which MPI a NEEDED name is (ELF_*), or 0. */
int elf_mpi_of(const char *needed);
/* The libraries of the program (image d, parsed as e, at path), in walk order. */
void elf_walk_program(elf_walk *w, const char *path, const char *d, const elf_info *e);
void elf_walk_free(elf_walk *w);

/* The file name of path (after its last '/'), and whether it starts with one of names[0..n)
 * ("libgomp.so" matches /usr/lib/x86_64-linux-gnu/libgomp.so.1). */
const char *elf_basename(const char *path);
int elf_name_is(const char *path, const char *const *names, size_t n);

/* A defined dynamic symbol: its name (in the image), value and type (STT_OBJECT 1, STT_FUNC 2). */
typedef struct { const char *name; uint64_t va; int type; } elf_sym;
int elf_sym_cmp(const void *x, const void *y);   /* by name, for qsort and bsearch */
/* The image's defined dynamic symbols (global or weak functions and objects), sorted by name
 * (malloc'ed, NULL when none or no section headers). */
elf_sym *elf_defined_symbols(const char *d, size_t n, const elf_info *e, size_t *count);
/* Which of names[0..count) the library at path defines as a variable that stays writable once
 * loaded (in a writable segment, outside PT_GNU_RELRO): its index, or -1 (none, the file is
 * unreadable, or the library has thread-local storage). */
int elf_lib_state_var(const char *path, char *const *names, size_t count);
/* The first of names[0..count) the image refers to without defining it (an undefined dynamic
 * symbol: a function or variable of a library it calls), or -1 (none, or no section headers). */
int elf_refers_to(const char *d, size_t n, const elf_info *e, const char *const *names, size_t count);

#endif
