/* Loading a program built by a real MPI's mpicc (a PIE executable needing MPICH's
 * libmpich.so.12 or Open MPI's libmpi.so.40), one private copy per rank, as emu_load.c does
 * for psimcc's shared objects.
 *
 * What it takes (docs/EMULATION.md, "Precompiled MPICH and Open MPI binaries"):
 * - psim's library of that MPI's ABI (build/lib/libmpich.so.12 or build/lib/libmpi.so.40,
 *   src/emul/abi/) is loaded first, so the program's NEEDED name is satisfied by it (the loader
 *   matches a NEEDED name against the sonames already loaded before searching the disk), and
 *   bound to psim's MPI functions;
 * - each rank's copy of the executable is patched before dlopen: DF_1_PIE cleared (glibc will
 *   not dlopen an object marked PIE), copy relocations (stdout, stderr, environ... that the
 *   executable keeps in its own .bss) turned into R_X86_64_NONE and done here after loading,
 *   NEEDED names of privatized libraries renamed to that rank's copies;
 * - it is loaded with RTLD_DEEPBIND: its own dependencies (psim's MPI library first) come
 *   before the global scope, where the psim binary exports psim's own MPI_* (another ABI);
 * - main is not a dynamic symbol of an executable: found in .symtab, or, stripped, in what
 *   _start passes to __libc_start_main;
 * - --privatize-libs: each listed library is copied per rank with its SONAME renamed to a
 *   same-length name unique to the rank (the first characters become "RANK@"), and the NEEDED
 *   entries naming it (in the executable and in the other privatized libraries) renamed alike,
 *   so that each rank's copies find each other by soname. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emul/emu.h"
#include "emul/emu_abi.h"
#include "emul/emu_elf.h"

#if defined(__SANITIZE_ADDRESS__)
#define ABI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ABI_ASAN 1
#endif
#endif

/* ---- the per-rank copies ---- */

/* A relocation of a privatized library naming a symbol the executable defines: set to the
 * executable's definition once both are loaded (see interpose below); or, with sym set, to the
 * definition of sym in the rank's copy of privatized library `from` (-1: psim's MPI library):
 * the MPI's own COMMON blocks (see "One MPI_IN_PLACE"). */
typedef struct interp_reloc { uint64_t at; uint32_t type; int64_t addend; uint64_t exe_va; const char *sym; int from; } interp_reloc;
typedef VEC(interp_reloc) interp_vec;

typedef struct abi_lib {
  char *path, *soname;
  char *data;
  size_t len;
  elf_info e;
  interp_vec interp;
  int loaded;                  /* in the current rank */
  void *handle;                /* the current rank's copy */
} abi_lib;

typedef struct copy_reloc { uint64_t at, size; char *name; } copy_reloc;

struct emu_abi {
  const char *path;
  char *data;                  /* the executable, patched once for what is the same in every rank */
  size_t len;
  elf_info e;
  const char *dir;
  VEC(copy_reloc) copies;
  interp_vec interp;           /* its references to the C library's live variables */
  abi_lib *libs;
  int nlibs;
  uint64_t main_va;            /* 0: find it through _start */
  uint64_t entry;
  int origin_loaded;           /* the libraries its RUNPATH's $ORIGIN finds are loaded */
  int mpi;                     /* the MPI whose ABI it speaks: ELF_MPICH or ELF_OMPI */
};

/* psim's MPI-ABI libraries, by ELF_MPICH and ELF_OMPI: loaded once per process when a program
 * needs one, never closed */
static void *stubs[3];
static const char *const stub_files[3] = {NULL, "libmpich.so.12", "libmpi.so.40"};
static const char *const stub_envs[3] = {NULL, "PSIM_MPICH_ABI_LIB", "PSIM_OMPI_ABI_LIB"};
static const char *const stub_names[3] = {NULL, "MPICH-ABI", "Open MPI-ABI"};

static int load_stub(int mpi, psim_err *err) {
  if (stubs[mpi]) return 0;
  char exe[4096];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 64);
  if (k <= 0) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot find the psim binary (/proc/self/exe)");
  exe[k] = 0;
  char *slash = strrchr(exe, '/');
  snprintf(slash ? slash + 1 : exe, 64, "lib/%s", stub_files[mpi]);
  const char *env = getenv(stub_envs[mpi]);
  const char *lib = env && *env ? env : exe;
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) return psim_errf(err, PSIM_EXIT_INPUT, lib, 0, "cannot load psim's %s library: %s", stub_names[mpi], dlerror());
  int (*init)(void *);
  void *f = dlsym(h, "psim_abi_init");
  if (!f) return psim_errf(err, PSIM_EXIT_INPUT, lib, 0, "is not psim's %s library (no psim_abi_init)", stub_names[mpi]);
  memcpy(&init, &f, sizeof init);
  void *self = dlopen(NULL, RTLD_NOW);
  if (init(self) <= 0) return psim_errf(err, PSIM_EXIT_INPUT, lib, 0, "found none of psim's MPI functions");
  stubs[mpi] = h;
  return 0;
}

/* Which copy of the program the calling rank runs, for psim's libmpi.so.40 (its predefined
 * objects lie in each copy: abi_xlate_ompi.c). */
int psim_abi_copy_index(void);
int psim_abi_copy_index(void) {
  if (emu_loading_prog) return emu_loading_copy;
  return emu_current && emu_current->running ? emu_copy_of(&emu_current->prog, emu_current->running->id) : 0;
}

static char *find_lib(const char *name, const emu_abi *a) {
  return elf_search_lib(name, a->path, a->e.runpath != UINT64_MAX ? elf_str(a->data, &a->e, a->e.runpath) : "");
}

#define MPI_HINT "psim run loads programs built by MPICH's mpicc (libmpich.so.12, e.g. Debian's " \
  "/usr/bin/mpicc.mpich), by Open MPI 4's mpicc (libmpi.so.40, e.g. /usr/bin/mpicc.openmpi) or by psimcc"

int emu_abi_detect(const char *path, const char *d, size_t n, psim_err *err) {
  elf_info e;
  if (elf_parse(path, d, n, &e, err) < 0) return -1;
  if (!e.exec && !e.pie) return 0;   /* a shared object: psimcc's */
  /* the MPI it needs, itself or through a library */
  elf_walk w;
  elf_walk_program(&w, path, d, &e);
  int rc = 0;
  if (!w.mpis && w.other)
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "needs another Open MPI (%s): " MPI_HINT, w.other);
  else if (!w.mpis)
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                   "is an executable that does not use MPI (neither it nor the %zu libraries it "
                   "needs NEED libmpich.so.12 or libmpi.so.40): build it with psimcc, which makes "
                   "the shared object psim run loads once per rank (an interpreter that loads MPI "
                   "later, python3 with mpi4py, cannot be run)", w.libs.len);
  else if (w.mpis == (ELF_MPICH | ELF_OMPI))
    rc = psim_errf(err, PSIM_EXIT_INPUT, path, 0, "needs both MPICH (libmpich.so.12) and Open MPI (libmpi.so.40) "
                   "through its libraries: one process has one MPI");
  elf_walk_free(&w);
  if (rc < 0) return rc;
  if (e.exec)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                     "is a non-PIE executable (linked at fixed addresses, -no-pie): psim run can load "
                     "one copy per rank only of position-independent executables (mpicc's default)");
  if (e.tls)
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                     "has thread-local variables of its own (static TLS of an executable): not "
                     "supported for mpicc binaries; build it with psimcc");
#ifdef ABI_ASAN
  return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                   "is an MPICH or Open MPI binary: this psim is built with AddressSanitizer, which refuses the "
                   "RTLD_DEEPBIND that loading it needs; use a build without PSIM_SANITIZE");
#else
  return 1;
#endif
}

int emu_prog_mpi(const char *path) {
  char *d = NULL;
  size_t n = 0;
  psim_err err;
  psim_err_clear(&err);
  if (emu_read_file(path, "the program", &d, &n, &err) < 0) return 0;
  elf_info e;
  int mpi = 0;
  if (elf_parse(path, d, n, &e, &err) == 0 && (e.exec || e.pie)) {
    elf_walk w;
    elf_walk_program(&w, path, d, &e);
    mpi = w.mpis == ELF_MPICH ? EMU_MPI_MPICH : w.mpis == ELF_OMPI ? EMU_MPI_OMPI : 0;
    elf_walk_free(&w);
  }
  free(d);
  return mpi;
}

/* Reads library `name` (a name searched as the loader would, or a path) to be copied per
 * rank. why: "--privatize-libs" (the user's list) or NULL (a library calling MPI, found by
 * elf_walk: already listed is fine). */
static int add_lib(emu_abi *a, const char *name, const char *why, psim_err *err) {
  char *path = find_lib(name, a);
  if (!path)
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--privatize-libs: cannot find %s (searched the program's RUNPATH, "
                     "LD_LIBRARY_PATH, /usr/local/lib, /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, "
                     "/lib64, /usr/lib64, /lib, /usr/lib): give its path", name);
  for (int j = 0; j < a->nlibs; j++)
    if (!strcmp(a->libs[j].path, path)) { free(path); return 0; }
  const char *what = why ? why : "it calls MPI, so each rank needs its own copy (as --privatize-libs makes)";
  a->libs = xrealloc(a->libs, (size_t)(a->nlibs + 1) * sizeof *a->libs);
  abi_lib *l = &a->libs[a->nlibs++];
  memset(l, 0, sizeof *l);
  l->path = path;
  if (emu_read_file(l->path, "the library", &l->data, &l->len, err) < 0) return -1;
  if (elf_parse(l->path, l->data, l->len, &l->e, err) < 0) return -1;
  if (l->e.exec || l->e.pie || l->e.soname == UINT64_MAX)
    return psim_errf(err, PSIM_EXIT_INPUT, l->path, 0, "%s: not a shared library with a SONAME", what);
  l->soname = xstrdup(elf_str(l->data, &l->e, l->e.soname));
  if (!strncmp(l->soname, "libmpich.", 9) || !strncmp(l->soname, "libmpi.", 7))
    return psim_errf(err, PSIM_EXIT_INPUT, l->path, 0, "%s: %s is the MPI library, which psim supplies", what, l->soname);
  if (strlen(l->soname) < 8)
    return psim_errf(err, PSIM_EXIT_INPUT, l->path, 0, "%s: its SONAME '%s' is too short to be renamed per rank", what, l->soname);
  return 0;
}

static int parse_libs(emu_abi *a, const char *list, psim_err *err) {
  char *copy = xstrdup(list);
  int rc = 0;
  for (char *save = NULL, *name = strtok_r(copy, ",", &save); name && rc == 0; name = strtok_r(NULL, ",", &save))
    rc = add_lib(a, name, "--privatize-libs", err);
  free(copy);
  return rc;
}

/* A library whose state is the process's, of which each rank needs its own as in its own
 * process: the Fortran runtime (its table of I/O units: three ranks each writing unit 10 to a
 * file of their own wrote into one another's files; its random generator: OpenCoarrays'
 * random_init test saw the images' seeds mixed). */
static int per_process(const char *path) {
  static const char *const fortran[] = {"libgfortran.so"};
  return elf_name_is(path, fortran, 1);
}

/* A library the executable takes a variable from by a copy relocation (the program reads
 * and writes its own copy, in its .bss; in a normal process the library's code uses that copy
 * too), when the variable stays writable: shared by the ranks, the library would go on using
 * its own, which the program never writes. mpgrafic sets GSL's gsl_rng_default_seed per rank
 * and GSL read its own (0): ranks 1-3 drew rank 0's white noise and wrote wrong initial
 * conditions, silently. Such a library is each rank's own, as a process's; its copies then
 * use the rank's executable's (see "The executable's symbols come first"). Not the C and C++
 * runtimes (stdout, optind, std::cout: psim keeps those right otherwise; their copies would
 * not be shared by the other libraries that use them), nor a library with thread-local
 * storage (a copy per rank may not fit in the static TLS area). The variable's name, or NULL. */
static const char *state_var(const emu_abi *a, const char *path) {
  static const char *const runtimes[] = {"libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "libpthread.so",
                                         "libdl.so", "librt.so", "ld-linux", "libgomp.so", "libquadmath.so"};
  if (!a->copies.len || elf_name_is(path, runtimes, sizeof runtimes / sizeof *runtimes)) return NULL;
  char **names = xmalloc(a->copies.len * sizeof *names);
  for (size_t i = 0; i < a->copies.len; i++) names[i] = a->copies.data[i].name;
  int k = elf_lib_state_var(path, names, a->copies.len);
  free(names);
  return k < 0 ? NULL : a->copies.data[k].name;
}

/* The libraries that call MPI (elf_walk), each rank's own, whether the program calls MPI
 * itself too (an mpicc-linked ScaLAPACK driver) or only through them (the testers); and those
 * whose state is per process (per_process, state_var). */
static int add_mpi_libs(emu_abi *a, psim_err *err) {
  elf_walk w;
  elf_walk_program(&w, a->path, a->data, &a->e);
  int rc = 0;
  a->mpi = w.mpis & ELF_OMPI ? ELF_OMPI : ELF_MPICH;
  for (size_t i = 0; i < w.libs.len && rc == 0; i++) {
    const char *path = w.libs.data[i].path, *var;
    char why[300];
    if (w.libs.data[i].mpi) rc = add_lib(a, path, NULL, err);
    else if (per_process(path)) rc = add_lib(a, path, "the Fortran runtime's state is each process's own", err);
    else if ((var = state_var(a, path))) {
      snprintf(why, sizeof why, "the program keeps a copy of its variable %s, which is each process's own", var);
      rc = add_lib(a, path, why, err);
    }
  }
  elf_walk_free(&w);
  return rc;
}

/* The same-length name of a privatized library in rank r: "r@" over its first characters. */
static void tag_name(char *out, const char *soname, int rank) {
  char t[32];
  int k = snprintf(t, sizeof t, "%d@", rank);
  strcpy(out, soname);
  memcpy(out, t, (size_t)k);
}

/* In image d (parsed as e), renames the NEEDED entries naming privatized libraries to rank's
 * copies. */
static void rename_needed(char *d, const elf_info *e, const emu_abi *a, int rank) {
  for (int i = 0; i < e->nneeded; i++) {
    char *s = (char *)elf_str(d, e, e->needed[i]);
    for (int j = 0; j < a->nlibs; j++)
      if (!strcmp(s, a->libs[j].soname)) { tag_name(s, a->libs[j].soname, rank); break; }
  }
}

/* A variable of one of the program's own libraries that psim neither privatizes nor finds in
 * the global scope: loaded with the copy (RTLD_LOCAL), so only a handle of that library finds
 * it (NWChem's libpython3.11: PyExc_MemoryError). The program's NEEDED libraries in their
 * order, each with its own dependencies, as the loader's search (not the copy itself, whose
 * definition is the copy relocation's own slot). */
static void *needed_sym(const emu_abi *a, const char *sym) {
  for (int i = 0; i < a->e.nneeded; i++) {
    void *h = dlopen(elf_str(a->data, &a->e, a->e.needed[i]), RTLD_NOW | RTLD_NOLOAD);
    if (!h) continue;
    void *p = dlsym(h, sym);
    dlclose(h);
    if (p) return p;
  }
  return NULL;
}

/* The copy of the program lies in psim's temporary directory, so its RUNPATH's $ORIGIN names
 * that directory, not the program's: a library installed next to the program (-Wl,-rpath,
 * '$ORIGIN', a bundled application's layout) was not found and the copy did not load. Those
 * libraries are loaded first, from where the program's own RUNPATH finds them; the copy's
 * NEEDED names then match them by their SONAME, as the loader matches a loaded library. The
 * libraries psim copies per rank (a->libs) and MPICH's are left alone. */
static void load_origin_libs(emu_abi *a) {
  if (a->origin_loaded) return;
  a->origin_loaded = 1;
  if (a->e.runpath == UINT64_MAX || !strstr(elf_str(a->data, &a->e, a->e.runpath), "$ORIGIN")) return;
  for (int i = 0; i < a->e.nneeded; i++) {
    const char *n = elf_str(a->data, &a->e, a->e.needed[i]);
    int own = elf_mpi_of(n) != 0;
    for (int j = 0; j < a->nlibs && !own; j++) own = !strcmp(n, a->libs[j].soname);
    if (own) continue;
    char *path = find_lib(n, a);
    if (path) (void)dlopen(path, RTLD_NOW | RTLD_LOCAL);   /* kept for the process's life */
    free(path);
  }
}

static int write_copy(const char *dir, const char *name, const char *d, size_t n, char *out, size_t outsz,
                      psim_err *err) {
  snprintf(out, outsz, "%s/%s", dir, name);
  int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (fd < 0) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot create %s: %s", out, strerror(errno));
  size_t off = 0;
  while (off < n) {
    ssize_t k = write(fd, d + off, n - off);
    if (k <= 0) { close(fd); unlink(out); return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot write %s: %s", out, strerror(errno)); }
    off += (size_t)k;
  }
  close(fd);
  return 0;
}

/* ---- The executable's symbols come first ----
 * In a process started normally, the executable is first in the global lookup scope: a symbol
 * it defines is the one every library's reference binds to (interposition). ScaLAPACK's TRD
 * tester defines its own pjlaenv_ (the block sizes it tests); libscalapack's calls must reach
 * it. Here each rank's privatized library copy is loaded before the executable, with
 * RTLD_DEEPBIND, so its references bind to its own definitions: PSSYTTRD got the library's
 * block size while the tester sized the workspace for its own, and 24 of 134 tests failed.
 * So, once the rank's executable is loaded, each privatized library's relocations naming a
 * symbol the executable defines (GOT entries, PLT slots, absolute pointers) are set to the
 * executable's definition, as the loader would have. (Libraries loaded once for all ranks
 * keep their own: they cannot point at one rank's executable.) */


/* Per-rank variables: psim's libmpich.so.12 defines MPI_F_STATUS_IGNORE and friends once for
 * all ranks, but MPICH's Fortran bindings (a privatized library) store there addresses of their
 * own, each rank's (src/emul/abi/abi_fortran.c). Each library copy's references to them go to
 * storage of its rank instead, as if they were defined by the rank's executable. */
static const char *const rank_vars[] = {"MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE",
                                        "MPI_F08_STATUS_IGNORE", "MPI_F08_STATUSES_IGNORE"};
enum { NRANK_VARS = sizeof rank_vars / sizeof *rank_vars };
#define RANK_VAR (UINT64_MAX - NRANK_VARS)   /* interp_reloc.exe_va of rank_vars[k]: RANK_VAR + k */

/* The calls of the C library that psim's MPI libraries take over for the executable (its
 * lookup scope has them before libc: abi_exit.c, abi_sleep.c, abi_time.c, abi_rand.c,
 * abi_getopt.c; the names their version scripts export), from a privatized library. Loaded
 * with RTLD_DEEPBIND before the executable, a library's copy binds them to the C library's:
 * libgfortran's STOP and ERROR STOP called the C library's exit (a Fortran program ending with
 * STOP, the commonest ending there is), which ended the whole process under the other ranks'
 * feet ("called exit(0) from a library"); LAMMPS's library read the process's CPU time with
 * getrusage. They are set to psim's MPI library's, as the executable's are. */
static const char *const stub_syms[] = {
  "exit", "_exit", "__cxa_atexit", "sleep", "usleep", "nanosleep", "gettimeofday", "clock_gettime",
  "clock", "getrusage", "rand", "srand", "random", "srandom", "drand48", "lrand48", "mrand48",
  "srand48", "seed48", "getopt", "getopt_long", "getopt_long_only", "signal", "sigaction"};
enum { NSTUB_SYMS = sizeof stub_syms / sizeof *stub_syms };
#define STUB_SYM (RANK_VAR - NSTUB_SYMS)     /* interp_reloc.exe_va of stub_syms[k]: STUB_SYM + k */

/* The C library's variables that psim's own executable keeps (copy relocations: a PIE built by
 * gcc copies the variables it uses into its .bss, and the C library then uses that copy). A
 * rank's program or privatized library loaded with RTLD_DEEPBIND binds them to the C library's
 * own definition, which nobody writes any more: Debian's ffindex_apply_mpi reads optind through
 * its GOT, and getopt, which moves the live optind, seemed to leave it at 1 ("-d: No such
 * file"). They are pointed at the live ones (the global scope's: psim's copies). */
static const char *const proc_vars[] = {"optind", "optarg", "opterr", "optopt", "stdin", "stdout", "stderr"};
enum { NPROC_VARS = sizeof proc_vars / sizeof *proc_vars };
#define PROC_VAR (STUB_SYM - NPROC_VARS)     /* interp_reloc.exe_va of proc_vars[k]: PROC_VAR + k */

/* Storage of the per-rank variables: one block per rank, allocated as a rank is loaded and
 * kept for the life of the process (the ranks' library copies point into it). */
static void **rank_var_blocks;
static size_t nrank_var_blocks;

/* ---- One MPI_IN_PLACE ----
 * A Fortran library that includes mpif.h defines its own copy of MPI's COMMON blocks, whose
 * addresses are MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE... In a process every reference
 * binds to one definition, and the MPI's Fortran bindings recognize those arguments by that
 * address: Open MPI's libmpi_mpifh compares with libmpi's mpi_fortran_in_place_ (here psim's
 * libmpi.so.40), MPICH's libmpichfort registers its own mpipriv1_ as it initializes. A
 * privatized library's copy, loaded with RTLD_DEEPBIND, bound to its own: MUMPS's libdmumps
 * (under PETSc, in getdp) reduced "in place" from its COMMON block's bytes and crashed on the
 * result; a C program's Fortran library summing in place got zeros (abi_inplace_lib.f90).
 * Its references to a variable it defines itself that the MPI's bindings (or psim's MPI
 * library) define too are set to theirs, unless the executable defines it (it comes first). */
static int is_binding(const abi_lib *l) {
  static const char *const names[] = {"libmpichfort.", "libmpi_mpifh.", "libmpi_usempif08.", "libmpi_usempi_ignore_tkr."};
  return elf_name_is(l->soname, names, sizeof names / sizeof *names);
}

typedef struct { int lib; elf_sym *syms; size_t n; } binding_syms;
/* What scan_relocs needs to find them in one privatized library (not a binding itself). */
typedef struct {
  const elf_sym *own;           /* the library's defined symbols */
  size_t nown;
  const binding_syms *bind;     /* the privatized bindings' */
  int nbind;
  void *stub;                   /* psim's MPI library */
} commons;

/* Whose definition a reference to variable `name` of the library must use: a binding's index,
 * -1 psim's MPI library, or -2 its own (not one of MPI's COMMON blocks). */
static int common_owner(const commons *cm, const char *name) {
  elf_sym key = {name, 0, 0};
  const elf_sym *mine = cm->nown ? bsearch(&key, cm->own, cm->nown, sizeof *cm->own, elf_sym_cmp) : NULL;
  if (!mine || mine->type != 1) return -2;
  for (int b = 0; b < cm->nbind; b++) {
    const elf_sym *hit = cm->bind[b].n ? bsearch(&key, cm->bind[b].syms, cm->bind[b].n, sizeof *cm->bind[b].syms, elf_sym_cmp) : NULL;
    if (hit && hit->type == 1) return cm->bind[b].lib;
  }
  Dl_info di;
  const ElfW(Sym) *st = NULL;
  void *p = dlsym(cm->stub, name);
  if (p && dladdr1(p, &di, (void **)&st, RTLD_DL_SYMENT) && st && ELF64_ST_TYPE(st->st_info) == STT_OBJECT) return -1;
  return -2;
}

/* The relocations of image d (parsed as e) that psim sets itself once a rank's copies are
 * loaded: naming a symbol the executable defines (syms: for a privatized library), a rank
 * variable or a C library call psim takes over (a library), a live variable of the C library
 * (both). */
static void scan_relocs(const char *d, size_t len, const elf_info *e, const elf_sym *syms, size_t nsyms,
                        int lib, const commons *cm, interp_vec *out) {
  const uint64_t tables[2][2] = {{e->rela_off, e->rela_size}, {e->jmprel_off, e->jmprel_size}};
  for (int t = 0; t < 2; t++)
    for (uint64_t r = tables[t][0]; tables[t][0] && r + 24 <= tables[t][0] + tables[t][1]; r += 24) {
      uint64_t info = rd64(d + r + 8), k = info >> 32;
      uint32_t type = (uint32_t)info;
      if (!k || (type != R_X86_64_64_ && type != R_X86_64_GLOB_DAT_ && type != R_X86_64_JUMP_SLOT_)) continue;
      uint64_t sym = e->sym_off + k * 24;
      if (!e->sym_off || sym + 24 > len) continue;
      elf_sym key = {elf_str(d, e, rd32(d + sym)), 0, 0};
      const elf_sym *hit = nsyms ? bsearch(&key, syms, nsyms, sizeof *syms, elf_sym_cmp) : NULL;
      uint64_t va = hit ? hit->va : 0;
      for (int v = 0; v < NRANK_VARS && !hit && lib; v++)
        if (!strcmp(key.name, rank_vars[v])) { va = RANK_VAR + (uint64_t)v; hit = &key; }
      for (int v = 0; v < NSTUB_SYMS && !hit && lib; v++)
        if (!strcmp(key.name, stub_syms[v])) { va = STUB_SYM + (uint64_t)v; hit = &key; }
      for (int v = 0; v < NPROC_VARS && !hit && type != R_X86_64_JUMP_SLOT_; v++)
        if (!strcmp(key.name, proc_vars[v])) { va = PROC_VAR + (uint64_t)v; hit = &key; }
      int from = -2;   /* one of MPI's COMMON blocks (cm: a privatized library) */
      if (!hit && cm && type != R_X86_64_JUMP_SLOT_) from = common_owner(cm, key.name);
      if (!hit && from == -2) continue;
      interp_reloc ir = {rd64(d + r), type, (int64_t)rd64(d + r + 16), va, hit ? NULL : key.name, from};
      VEC_PUSH(*out, ir);
    }
}

static void find_interposed(emu_abi *a) {
  size_t nsyms;
  elf_sym *syms = elf_defined_symbols(a->data, a->len, &a->e, &nsyms);
  binding_syms *bind = xcalloc((size_t)a->nlibs + 1, sizeof *bind);
  int nbind = 0;
  for (int b = 0; b < a->nlibs; b++)
    if (is_binding(&a->libs[b])) {
      bind[nbind].lib = b;
      bind[nbind].syms = elf_defined_symbols(a->libs[b].data, a->libs[b].len, &a->libs[b].e, &bind[nbind].n);
      nbind++;
    }
  for (int j = 0; j < a->nlibs; j++) {
    abi_lib *l = &a->libs[j];
    commons cm = {NULL, 0, bind, nbind, stubs[a->mpi]};
    elf_sym *own = is_binding(l) ? NULL : elf_defined_symbols(l->data, l->len, &l->e, &cm.nown);
    cm.own = own;
    scan_relocs(l->data, l->len, &l->e, syms, nsyms, 1, own ? &cm : NULL, &l->interp);
    free(own);
  }
  for (int b = 0; b < nbind; b++) free(bind[b].syms);
  free(bind);
  scan_relocs(a->data, a->len, &a->e, NULL, 0, 0, NULL, &a->interp);
  /* A variable the executable keeps a copy of itself (a copy relocation) is its own, kept in
   * step by psim (psim_abi_getopt): its other references to it stay on that copy. */
  size_t kept = 0;
  for (size_t i = 0; i < a->interp.len; i++) {
    const char *name = proc_vars[a->interp.data[i].exe_va - PROC_VAR];
    int own = 0;
    for (size_t c = 0; c < a->copies.len && !own; c++) own = !strcmp(a->copies.data[c].name, name);
    if (!own) a->interp.data[kept++] = a->interp.data[i];
  }
  a->interp.len = kept;
  free(syms);
}

/* Points a rank's copy of an image (the program or a privatized library, loaded at base,
 * parsed as e) at the executable (loaded at exe_base), its rank's variables, psim's MPI
 * library (stub) and the C library's live variables, as find_interposed listed; the pages of
 * PT_GNU_RELRO are made writable for it, then read-only again. */
static int patch_relocs(const char *path, uintptr_t base, const elf_info *e, const interp_vec *rs,
                        uintptr_t exe_base, void **rank_block, void *stub, const abi_lib *libs, psim_err *err) {
  if (!rs->len) return 0;
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t r0 = 0, r1 = 0;
  if (e->relro_size) {
    r0 = (base + e->relro_va) & ~(uintptr_t)(pg - 1);
    r1 = base + e->relro_va + e->relro_size;
    if (mprotect((void *)r0, r1 - r0, PROT_READ | PROT_WRITE) != 0)
      return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot make a rank's copy writable: %s", strerror(errno));
  }
  for (size_t i = 0; i < rs->len; i++) {
    const interp_reloc *ir = &rs->data[i];
    uint64_t v;
    if (ir->sym) {   /* an MPI COMMON block: the rank's bindings' or psim's MPI library's */
      void *p = dlsym(ir->from < 0 ? stub : libs[ir->from].handle, ir->sym);
      if (!p) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "%s defines no %s", ir->from < 0 ? "psim's MPI library" : libs[ir->from].path, ir->sym);
      v = (uint64_t)(uintptr_t)p;
    } else if (ir->exe_va >= RANK_VAR) v = (uint64_t)(uintptr_t)&rank_block[ir->exe_va - RANK_VAR];
    else if (ir->exe_va >= PROC_VAR) {   /* psim's MPI library's function, or a live variable */
      int stubbed = ir->exe_va >= STUB_SYM;
      const char *name = stubbed ? stub_syms[ir->exe_va - STUB_SYM] : proc_vars[ir->exe_va - PROC_VAR];
      void *f = dlsym(stubbed ? stub : RTLD_DEFAULT, name);
      if (!f) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "%s defines no %s", stubbed ? "psim's MPI library" : "the C library", name);
      v = (uint64_t)(uintptr_t)f;
    } else v = exe_base + ir->exe_va;
    if (ir->type == R_X86_64_64_) v += (uint64_t)ir->addend;
    memcpy((void *)(base + ir->at), &v, sizeof v);
  }
  if (e->relro_size) mprotect((void *)r0, r1 - r0, PROT_READ);
  return 0;
}

static int interpose(const abi_lib *libs, abi_lib *l, uintptr_t exe_base, void **rank_block, void *stub, psim_err *err) {
  if (!l->interp.len) return 0;
  struct link_map *lm = NULL;
  if (dlinfo(l->handle, RTLD_DI_LINKMAP, &lm) < 0 || !lm)
    return psim_errf(err, PSIM_EXIT_INPUT, l->path, 0, "cannot find where a rank's copy is loaded");
  return patch_relocs(l->path, (uintptr_t)lm->l_addr, &l->e, &l->interp, exe_base, rank_block, stub, libs, err);
}

int emu_abi_open(emu_abi **out, const char *path, const char *data, size_t len, const char *privatize,
                 const char *dir, psim_err *err) {
  *out = NULL;
  /* A Fortran program's units are buffered by libgfortran and flushed at process exit, after
   * psim's report: its output came after the report. Unbuffered (read by libgfortran as it
   * loads, with the program), it comes in order, as a C program's does. The user's setting
   * stands. */
  setenv("GFORTRAN_UNBUFFERED_PRECONNECTED", "y", 0);
  emu_abi *a = xcalloc(1, sizeof *a);
  a->path = path;
  a->dir = dir;
  a->len = len;
  a->data = xmalloc(len);
  memcpy(a->data, data, len);
  if (elf_parse(path, a->data, len, &a->e, err) < 0) { emu_abi_free(a); return -1; }
  a->entry = rd64(a->data + 24);
  a->main_va = elf_symtab_main(a->data, len);
  /* what every rank's copy has: no DF_1_PIE, copy relocations done by hand */
  if (a->e.flags1_at) {
    uint64_t v = rd64(a->data + a->e.flags1_at) & ~DF_1_PIE_;
    memcpy(a->data + a->e.flags1_at, &v, 8);
  }
  for (uint64_t r = a->e.rela_off; a->e.rela_off && r + 24 <= a->e.rela_off + a->e.rela_size; r += 24) {
    uint64_t info = rd64(a->data + r + 8);
    if ((uint32_t)info != R_X86_64_COPY_) continue;
    uint64_t sym = a->e.sym_off + (info >> 32) * 24;
    if (!a->e.sym_off || sym + 24 > len) continue;
    copy_reloc c = {rd64(a->data + r), rd64(a->data + sym + 16), xstrdup(elf_str(a->data, &a->e, rd32(a->data + sym)))};
    VEC_PUSH(a->copies, c);
    uint64_t none = info & ~(uint64_t)0xffffffffu;   /* R_X86_64_NONE, same symbol */
    memcpy(a->data + r + 8, &none, 8);
  }
  if (privatize && *privatize && parse_libs(a, privatize, err) < 0) { emu_abi_free(a); return -1; }
  if (add_mpi_libs(a, err) < 0) { emu_abi_free(a); return -1; }
  if (load_stub(a->mpi, err) < 0) { emu_abi_free(a); return -1; }
  find_interposed(a);
  *out = a;
  return 0;
}

/* main through _start: glibc's x86-64 _start loads main's address into %rdi for
 * __libc_start_main, either `lea main(%rip),%rdi` (48 8d 3d) or `mov main@GOTPCREL(%rip),%rdi`
 * (48 8b 3d), within its first 64 bytes. */
static void *start_main(uintptr_t base, uint64_t entry) {
  const unsigned char *p = (const unsigned char *)(base + entry);
  for (int i = 0; i < 64; i++) {
    if (p[i] != 0x48 || p[i + 2] != 0x3d || (p[i + 1] != 0x8d && p[i + 1] != 0x8b)) continue;
    int32_t rel;
    memcpy(&rel, p + i + 3, 4);
    const unsigned char *target = p + i + 7 + rel;
    if (p[i + 1] == 0x8d) return (void *)target;
    void *m;
    memcpy(&m, target, sizeof m);
    return m;
  }
  return NULL;
}

int emu_abi_load_rank(emu_abi *a, int rank, void **handle, emu_main_fn *main_fn, emu_getopt_vars *gv,
                      psim_err *err) {
  char name[4400];
  /* the privatized libraries, each after those it needs */
  for (int j = 0; j < a->nlibs; j++) a->libs[j].loaded = 0;
  for (int done = 0, pass = 0; done < a->nlibs; pass++) {
    if (pass > a->nlibs) return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "--privatize-libs: the libraries need each other in a cycle");
    for (int j = 0; j < a->nlibs; j++) {
      abi_lib *l = &a->libs[j];
      if (l->loaded) continue;
      int ready = 1;
      for (int i = 0; i < l->e.nneeded && ready; i++)
        for (int k = 0; k < a->nlibs; k++)
          if (k != j && !a->libs[k].loaded && !strcmp(elf_str(l->data, &l->e, l->e.needed[i]), a->libs[k].soname)) ready = 0;
      if (!ready) continue;
      char *d = xmalloc(l->len);
      memcpy(d, l->data, l->len);
      tag_name((char *)elf_str(d, &l->e, l->e.soname), l->soname, rank);
      rename_needed(d, &l->e, a, rank);
      /* named after the library: what dladdr tells of its code says which it is (psim's
       * signal handlers take back the faults libgfortran's copies claim: emu_signal.c) */
      char file[320];
      snprintf(file, sizeof file, "rank-%d-%.255s", rank, l->soname);
      int w = write_copy(a->dir, file, d, l->len, name, sizeof name, err);
      free(d);
      if (w < 0) return -1;
      /* Lazily bound: a library may call a function its program defines (NEURON's libnrniv
       * calls nrniv's modl_reg), which a process started normally finds in the executable,
       * first in the global scope; loaded before its rank's executable, the copy cannot bind
       * it now, and RTLD_NOW refused it ("undefined symbol: modl_reg"). interpose() sets
       * those calls to the executable's definition once it is loaded. */
      void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
      unlink(name);
      if (!h) return psim_errf(err, PSIM_EXIT_INPUT, l->path, 0, "cannot load rank %d's copy: %s", rank, dlerror());
      l->handle = h;
      l->loaded = 1;
      done++;
    }
  }
  /* When ranks load their copies themselves (emu_prog.abi_in_rank), a constructor of this
   * copy may block in MPI inside the dlopen below and another rank load its own meanwhile:
   * this rank's library handles are kept here and put back after it. */
  char *d = xmalloc(a->len);
  memcpy(d, a->data, a->len);
  rename_needed(d, &a->e, a, rank);
  char file[64];
  snprintf(file, sizeof file, "rank-%d", rank);
  int w = write_copy(a->dir, file, d, a->len, name, sizeof name, err);
  free(d);
  if (w < 0) return -1;
  void **own = xmalloc((size_t)(a->nlibs ? a->nlibs : 1) * sizeof *own);
  for (int j = 0; j < a->nlibs; j++) own[j] = a->libs[j].handle;
  load_origin_libs(a);
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  unlink(name);
  for (int j = 0; j < a->nlibs; j++) a->libs[j].handle = own[j];
  free(own);
  if (!h) return psim_errf(err, PSIM_EXIT_INPUT, a->path, 0, "cannot load rank %d's copy: %s", rank, dlerror());
  struct link_map *lm = NULL;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) < 0 || !lm) return psim_errf(err, PSIM_EXIT_INPUT, a->path, 0, "cannot find where rank %d's copy is loaded", rank);
  uintptr_t base = (uintptr_t)lm->l_addr;
  void **block = xcalloc(NRANK_VARS, sizeof *block);
  rank_var_blocks = xrealloc(rank_var_blocks, (nrank_var_blocks + 1) * sizeof *rank_var_blocks);
  rank_var_blocks[nrank_var_blocks++] = block;
  for (int j = 0; j < a->nlibs; j++)
    if (interpose(a->libs, &a->libs[j], base, block, stubs[a->mpi], err) < 0) return -1;
  if (patch_relocs(a->path, base, &a->e, &a->interp, base, block, stubs[a->mpi], a->libs, err) < 0) return -1;
  /* the copy relocations: the current value of the library's variable. A const variable's
   * copy (MPICH's MPI_UNWEIGHTED, `int *const`) lies in the executable's PT_GNU_RELRO,
   * read-only once loaded: writable for the copy, then read-only again */
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t r0 = 0, r1 = 0;
  if (a->copies.len && a->e.relro_size) {
    r0 = (base + a->e.relro_va) & ~(uintptr_t)(pg - 1);
    r1 = base + a->e.relro_va + a->e.relro_size;
    if (mprotect((void *)r0, r1 - r0, PROT_READ | PROT_WRITE) != 0)
      return psim_errf(err, PSIM_EXIT_INPUT, a->path, 0, "cannot make rank %d's copy writable: %s", rank, strerror(errno));
  }
  void (*copied)(int, void *) = NULL;
  if (a->mpi == ELF_OMPI) {
    void *f = dlsym(stubs[ELF_OMPI], "psim_abi_copied");
    memcpy(&copied, &f, sizeof copied);
  }
  for (size_t i = 0; i < a->copies.len; i++) {
    const copy_reloc *c = &a->copies.data[i];
    void *src = NULL;   /* a privatized library's (this rank's copy), or a shared one's */
    for (int j = 0; j < a->nlibs && !src; j++) src = dlsym(a->libs[j].handle, c->name);
    /* psim's MPI library (loaded RTLD_LOCAL): MPICH's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY
     * are variables a program reads (MPI_Dist_graph_create(..., MPI_UNWEIGHTED, ...)), Open
     * MPI's predefined objects (MPI_COMM_WORLD is &ompi_mpi_comm_world) */
    if (!src) src = dlsym(stubs[a->mpi], c->name);
    if (!src) src = dlsym(RTLD_DEFAULT, c->name);
    if (!src) src = needed_sym(a, c->name);
    if (!src) return psim_errf(err, PSIM_EXIT_INPUT, a->path, 0, "its variable %s (a copy relocation) is defined by no loaded library", c->name);
    memcpy((void *)(base + c->at), src, c->size);
    /* psim's libmpi.so.40 learns where this copy keeps its predefined objects (all of 256
     * bytes or more) */
    if (copied && c->size >= 256) copied(rank, (void *)(base + c->at));
    /* the program's own getopt variables, kept in step with the C library's around its calls
     * (psim_abi_getopt) */
    void *at = (void *)(base + c->at);
    if (!strcmp(c->name, "optarg")) gv->optarg = at;
    else if (!strcmp(c->name, "optind")) gv->optind = at;
    else if (!strcmp(c->name, "opterr")) gv->opterr = at;
    else if (!strcmp(c->name, "optopt")) gv->optopt = at;
  }
  /* as the loader protects it: the last partial page stays writable */
  r1 &= ~(uintptr_t)(pg - 1);
  if (r1 > r0) mprotect((void *)r0, r1 - r0, PROT_READ);
  void *m = a->main_va ? (void *)(base + a->main_va) : start_main(base, a->entry);
  if (!m) return psim_errf(err, PSIM_EXIT_INPUT, a->path, 0, "cannot find main (no symbol table, and _start is not glibc's)");
  *handle = h;
  memcpy(main_fn, &m, sizeof m);
  return 0;
}

int emu_probing_ctors;

int emu_abi_probe_ctors(emu_abi *a) {
  fflush(NULL);   /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    /* the child: rank 0's copy loaded as psim run loads it, its constructors run; one that
     * calls MPI outside the simulation ends the child with 42 (emu_after_run) */
    emu_probing_ctors = 1;
    int ctor_init = 0;
    emu_prog scratch = {0};
    scratch.ctor_init = &ctor_init;
    scratch.thread_level = emu_loading_prog ? emu_loading_prog->thread_level : 1;   /* (FUNNELED) */
    emu_loading_prog = &scratch;
    emu_loading_copy = 0;
    void *h = NULL;
    emu_main_fn fn = NULL;
    emu_getopt_vars gv = {0};
    psim_err e;
    psim_err_clear(&e);
    _exit(emu_abi_load_rank(a, 0, &h, &fn, &gv, &e) < 0 ? 43 : 0);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  /* the child's copies, which it stopped loading before it could unlink them */
  DIR *dd = opendir(a->dir);
  for (struct dirent *de; dd && (de = readdir(dd));) {
    if (de->d_name[0] == '.') continue;
    char f[4400];
    snprintf(f, sizeof f, "%s/%s", a->dir, de->d_name);
    unlink(f);
  }
  if (dd) closedir(dd);
  return WIFEXITED(st) && WEXITSTATUS(st) == 42;
}

void emu_abi_set_dir(emu_abi *a, const char *dir) { a->dir = dir; }

void emu_abi_free(emu_abi *a) {
  if (!a) return;
  for (size_t i = 0; i < a->copies.len; i++) free(a->copies.data[i].name);
  VEC_FREE(a->copies);
  VEC_FREE(a->interp);
  for (int j = 0; j < a->nlibs; j++) {
    VEC_FREE(a->libs[j].interp);
    free(a->libs[j].path);
    free(a->libs[j].soname);
    free(a->libs[j].data);
  }
  free(a->libs);
  free(a->data);
  free(a);
}

/* Called by psim's MPI libraries for an MPI function psim does not implement. */
void psim_abi_unsupported(const char *name);
void psim_abi_unsupported(const char *name) {
  if (emu_current && emu_current->running) {
    emu_current->running->call = name;
    emu_fatal("psim does not implement this MPI call (docs/MPI_SUBSET.md lists what psim run provides)");
  }
  /* Outside a run: at load (a constructor) or during exit (an exit handler), where exit()
   * must not be called again. */
  fprintf(stderr, "psim: %s: psim does not implement this MPI call\n", name);
  fflush(NULL);
  _exit(PSIM_EXIT_APP);
}

/* exit() and _exit() of a program loaded through psim's libmpich.so.12 (abi_exit.c): as
 * psimcc's --wrap=exit (src/emul/rt/rt_exit.c), without the caller's name (the functions of an
 * executable are not in its dynamic symbol table). */
/* getopt and its kin, called by an MPICH-built program through psim's libmpich.so.12
 * (abi_getopt.c): the C library's getopt works on its own optind, opterr, optopt and optarg
 * (each rank's state, restored by the scheduler), the program reads and writes its copies:
 * they are copied in before the call and back after it. */
int psim_abi_getopt(int kind, int argc, char *const *argv, const char *opts, const struct option *longopts,
                    int *longind);
int psim_abi_getopt(int kind, int argc, char *const *argv, const char *opts, const struct option *longopts,
                    int *longind) {
  const emu_getopt_vars *v = NULL;
  if (emu_current && emu_current->running && emu_current->prog.getopt)
    v = &emu_current->prog.getopt[emu_copy_of(&emu_current->prog, emu_current->running->id)];
  if (v && v->optind) optind = *v->optind;
  if (v && v->opterr) opterr = *v->opterr;
  int r = kind == 0 ? getopt(argc, argv, opts)
        : kind == 1 ? getopt_long(argc, argv, opts, longopts, longind)
                    : getopt_long_only(argc, argv, opts, longopts, longind);
  if (v && v->optarg) *v->optarg = optarg;
  if (v && v->optind) *v->optind = optind;
  if (v && v->optopt) *v->optopt = optopt;
  return r;
}

void psim_abi_exit(int status, int underscore) __attribute__((noreturn));
void psim_abi_exit(int status, int underscore) {
  if (emu_current && emu_current->running && !emu_current->running->depth)
    emu_rank_called_exit(status, underscore ? "_exit" : "exit", NULL);
  if (underscore) _exit(status);
  exit(status);
}
