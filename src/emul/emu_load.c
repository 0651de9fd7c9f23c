/* Loading the user's program: one copy per rank, so that every rank has its own globals.
 *
 * psimcc builds the program as a position-independent shared object. The dynamic loader maps
 * a file only once however often it is dlopen'ed, so each rank gets its own *file*: the bytes
 * are written to a private temporary file per rank (unlinked as soon as it is loaded) which
 * is dlopen'ed with RTLD_LOCAL. Each copy has its own data, bss and TLS, relocated on its own; code pages
 * are private copies too (they cannot be shared between distinct files), about the size of
 * the program's text per rank. Nothing limits the count except memory and the kernel's
 * vm.max_map_count (about 6 mappings per copy, 65530 by default: ~10000 ranks); unlike
 * dlmopen namespaces (16 in glibc) this scales to thousands of ranks. The libraries the
 * program needs (libc, libm) are loaded once and shared, as in one MPI process per core.
 *
 * --shared-globals loads the program once: cheaper, for programs whose globals are constant
 * or which keep all per-rank state on the stack and heap. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emul/emu.h"

#include "emul/emu_elf.h"
#include "emul/emu_abi.h"

emu_prog *emu_loading_prog;
int emu_loading_copy = -1;

/* Reads a whole regular file (the program, or a library to privatize: emu_abi.c); `what`
 * names it in the error ("the program"). */
int emu_read_file(const char *path, const char *what, char **data, size_t *len, psim_err *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot open %s: %s", what, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "not a regular file");
  }
  *len = (size_t)st.st_size;
  *data = xmalloc(*len ? *len : 1);
  size_t got = 0;
  while (got < *len) {
    ssize_t n = read(fd, *data + got, *len - got);
    if (n <= 0) { close(fd); free(*data); return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "read error"); }
    got += (size_t)n;
  }
  close(fd);
  return 0;
}

/* ELF e_type at offset 16: 3 = ET_DYN (shared object or PIE), 2 = ET_EXEC. psimcc's programs
 * are shared objects with an interpreter (psim-start, so that ./prog runs); a PIE executable
 * (what mpicc makes) is marked DF_1_PIE in its dynamic section, and glibc refuses to dlopen it. */
/* A launcher script (Debian's HYPHYMPI, examl and ppuzzle are shell scripts that pick the
 * binary for the CPU and exec it): under mpirun each process runs the script, which execs the
 * program; psim run loads the program itself into its ranks, so it must be given the program.
 * The error names the directories and programs the script mentions. */
static int script_error(const char *path, const char *d, size_t n, psim_err *err) {
  size_t end = n < 8192 ? n : 8192, eol = 2;
  while (eol < end && d[eol] != '\n') eol++;
  char seen[512] = "";
  size_t used = 0;
  int found = 0;
  for (size_t i = eol; i < end && found < 3; i++) {
    if (d[i] != '/' || (i > 0 && d[i - 1] != ' ' && d[i - 1] != '=' && d[i - 1] != '"' && d[i - 1] != '\'' && d[i - 1] != '\n'))
      continue;
    size_t j = i;
    while (j < end && (isalnum((unsigned char)d[j]) || strchr("/._+-", d[j]))) j++;
    char p[256];
    if (j - i < 2 || j - i >= sizeof p) continue;
    memcpy(p, d + i, j - i);
    p[j - i] = 0;
    while (j - i > 1 && p[j - i - 1] == '/') p[--j - i] = 0;   /* a trailing slash */
    if (access(p, X_OK) != 0 || !strncmp(p, "/proc", 5) || !strncmp(p, "/dev", 4) || strstr(seen, p)) continue;
    int k = snprintf(seen + used, sizeof seen - used, "%s%s", found ? ", " : "", p);
    if (k < 0 || (size_t)k >= sizeof seen - used) break;
    used += (size_t)k;
    found++;
  }
  int il = (int)(eol - 2 < 60 ? eol - 2 : 60);
  return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                   "is a script (#!%.*s), not a program: under mpirun each process runs it and "
                   "it starts the MPI program, but psim run loads the program itself into every "
                   "rank: give psim run the program the script starts%s%s%s",
                   il, d + 2, found ? " (the script names " : "", seen, found ? ")" : "");
}

static int check_elf(const char *path, const char *d, size_t n, psim_err *err) {
  if (n >= 2 && d[0] == '#' && d[1] == '!') return script_error(path, d, n, err);
  if (n < 64 || memcmp(d, "\177ELF", 4))
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                     "not an ELF shared object: build the program with psimcc (e.g. "
                     "build/psimcc -O2 -o prog prog.c) and run it with psim run -- ./prog");
  elf_info e;   /* also refuses a truncated file, which would crash the loader (emu_elf.c) */
  if (elf_parse(path, d, n, &e, err) < 0) return -1;
  if (d[16] != 3 || e.pie) {   /* not ET_DYN, or a position-independent executable */
    /* a program built by MPICH's mpicc (emu_abi.c), or why not */
    int abi = emu_abi_detect(path, d, n, err);
    if (abi != 0) return abi;
    return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                     "is an executable, not a shared object: build it with psimcc, which "
                     "makes the shared object psim run loads once per rank");
  }
  return 0;
}

int emu_prog_check(const char *path, psim_err *err) {
  char *data = NULL;
  size_t len = 0;
  if (emu_read_file(path, "the program", &data, &len, err) < 0) return -1;
  int rc = check_elf(path, data, len, err);
  free(data);
  return rc < 0 ? -1 : 0;
}

/* Writes rank's copy as DIR/rank-N.so, loads it and unlinks it at once (the mapping keeps the
 * file alive, and its inode cannot be reused for another copy while mapped). Distinct names
 * matter: the loader returns an already-loaded object when the path string is the same, which
 * rules out reusing /proc/self/fd/N of memfds (N comes back after close). */
static void *open_copy(const char *path, const char *dir, const char *data, size_t len, int rank,
                       psim_err *err) {
  char name[4200];
  snprintf(name, sizeof name, "%s/rank-%d.so", dir, rank);
  int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (fd < 0) {
    psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot create %s: %s", name, strerror(errno));
    return NULL;
  }
  size_t off = 0;
  while (off < len) {
    ssize_t n = write(fd, data + off, len - off);
    if (n <= 0) { close(fd); unlink(name); psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot copy the program: %s", strerror(errno)); return NULL; }
    off += (size_t)n;
  }
  close(fd);
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  unlink(name);
  if (!h) psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot load rank %d's copy: %s", rank, dlerror());
  return h;
}

/* A rank is one thread on one core (its host's speed): psim measures the thread's CPU time.
 * A threaded BLAS (Debian's OpenBLAS is the pthread build) starts a pool of threads as it
 * loads and runs a large dgemm on them too, so a rank's computation was measured at a part of
 * its work: HPC Challenge's HPL at np=2 here predicted 138 Gflop/s without
 * OPENBLAS_NUM_THREADS=1, 89 with it (real MPICH, one thread per rank: 110, 2026-12-02). So
 * the BLAS libraries' own thread counts are 1 unless the user set them (read as the program's
 * libraries load, after this); a count above 1 set by the user is kept, with a warning. */
static void blas_one_thread(void) {
  static const char *const vars[] = {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (!v || !*v) {
      setenv(vars[i], "1", 1);
      continue;
    }
    char *end;
    long n = strtol(v, &end, 10);
    if (n > 1 || *end)
      fprintf(stderr, "psim: %s=%s: the BLAS's threads run beside each rank and their CPU time is not the "
              "rank's (psim measures one thread a rank): set it to 1 for a prediction of one rank a core\n",
              vars[i], v);
  }
}

int emu_prog_load(emu_prog *p, const char *path, int nranks, int shared_globals,
                  const char *privatize_libs, int thread_level, psim_err *err) {
  memset(p, 0, sizeof *p);
  blas_one_thread();
  p->thread_level = thread_level;
  char *data = NULL;
  size_t len = 0;
  if (emu_read_file(path, "the program", &data, &len, err) < 0) return -1;
  int abi = check_elf(path, data, len, err);
  if (abi < 0) { free(data); return -1; }
  if (!abi && privatize_libs)
    { free(data); return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "--privatize-libs is for programs built by MPICH's mpicc (psimcc programs: link the library's archive instead)"); }
  int ncopies = shared_globals ? 1 : nranks;
  char dir[4096] = "";
  emu_abi *ab = NULL;
  if (!shared_globals || abi) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/psim-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { free(data); return psim_errf(err, PSIM_EXIT_INPUT, dir, 0, "cannot create a directory for the rank copies: %s", strerror(errno)); }
  }
  if (abi && emu_abi_open(&ab, path, data, len, privatize_libs, dir, err) < 0) { free(data); rmdir(dir); return -1; }
  p->handles = xcalloc((size_t)ncopies, sizeof *p->handles);
  p->mains = xcalloc((size_t)nranks, sizeof *p->mains);
  p->ctor_init = xcalloc((size_t)ncopies, sizeof *p->ctor_init);
  emu_loading_prog = p;
  if (abi) p->getopt = xcalloc((size_t)ncopies, sizeof *p->getopt);
  if (abi && !shared_globals && emu_abi_probe_ctors(ab)) {
    p->abi_in_rank = ab;
    p->dir = xstrdup(dir);
    emu_abi_set_dir(ab, p->dir);
    p->nloaded = ncopies;   /* (copy i is rank i's, loaded when it starts) */
    free(data);
    emu_loading_prog = NULL;
    return 0;
  }
  for (int i = 0; i < ncopies; i++) {
    void *h;
    if (abi) {
      emu_main_fn fn = NULL;
      emu_loading_copy = i;
      int lrc = emu_abi_load_rank(ab, i, &h, &fn, &p->getopt[i], err);
      emu_loading_copy = -1;
      if (lrc < 0) { free(data); rmdir(dir); emu_abi_free(ab); emu_prog_unload(p); return -1; }
      p->handles[i] = h;
      p->nloaded = i + 1;
      if (shared_globals) for (int r = 0; r < nranks; r++) p->mains[r] = fn;
      else p->mains[i] = fn;
      continue;
    }
    if (shared_globals) {
      char *real = realpath(path, NULL);
      h = dlopen(real ? real : path, RTLD_NOW | RTLD_LOCAL);
      free(real);
      if (!h) psim_errf(err, PSIM_EXIT_INPUT, path, 0, "cannot load the program: %s", dlerror());
    } else {
      emu_loading_copy = i;
      h = open_copy(path, dir, data, len, i, err);
      emu_loading_copy = -1;
    }
    if (!h) { free(data); if (dir[0]) rmdir(dir); emu_prog_unload(p); return -1; }
    p->handles[i] = h;
    p->nloaded = i + 1;
    void *m = dlsym(h, "main");
    if (!m) {
      free(data);
      if (dir[0]) rmdir(dir);
      emu_prog_unload(p);
      return psim_errf(err, PSIM_EXIT_INPUT, path, 0, "the program has no main()");
    }
    emu_main_fn fn;
    memcpy(&fn, &m, sizeof fn);
    if (shared_globals) for (int r = 0; r < nranks; r++) p->mains[r] = fn;
    else p->mains[i] = fn;
  }
  free(data);
  emu_abi_free(ab);
  if (dir[0]) rmdir(dir);
  emu_loading_prog = NULL;
  return 0;
}

void emu_prog_unload(emu_prog *p) {
  /* The copies are not dlclose'd: user destructors would run after the simulation (and
   * atexit handlers registered by the program must keep their code mapped). */
  free(p->handles);
  free(p->mains);
  free(p->getopt);
  free(p->ctor_init);
  if (emu_loading_prog == p) emu_loading_prog = NULL;
  if (p->abi_in_rank) {
    emu_abi_free(p->abi_in_rank);
    rmdir(p->dir);
    free(p->dir);
  }
  memset(p, 0, sizeof *p);
}
