/* Per-rank copies of the thread-local state of the OpenMP runtime.
 *
 * Every rank runs in psim's one thread, but to the libraries the ranks share (they are not
 * privatized: emu_abi.c) each rank is a process's main thread of its own. For most that makes
 * no difference; OpenMP's runtime keeps in its thread-local variables which team the thread is
 * in. A rank that calls MPI inside a parallel region (the master thread, as FUNNELED allows)
 * lets the next rank run while that team is still the thread's: the other rank's own parallel
 * region then looks nested, gets one thread, and cp2k.psmp stops ("Number of threads has
 * changed from 2 to 1"). So each rank gets its own copy of those variables, swapped in when it
 * runs (emu_sched.c, rank_run): each rank is then a master thread with its own team and thread
 * pool, as in a real MPI job.
 *
 * The runtimes are found by name among the loaded objects (dl_iterate_phdr: PT_TLS gives the
 * size of their block of thread-local storage, __tls_get_addr its address in this thread).
 * Copies are swapped lazily, only when another rank runs next: two copies of 136 bytes for
 * libgomp. */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "emul/emu.h"
#include "emul/emu_elf.h"

static const char *const runtimes[] = {"libgomp.so", "libomp.so", "libomp5.so", "libiomp5.so"};


/* The TLS ABI's lookup of a module's block in the calling thread (ld.so's; "ELF Handling For
 * Thread-Local Storage"): it also brings the thread's view up to date for a runtime loaded
 * after the thread started (with the program, by dlopen), which dl_iterate_phdr does not. */
typedef struct { unsigned long module, offset; } tls_index;
extern void *__tls_get_addr(tls_index *ti);

static int scan(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  emu_tls *t = arg;
  if (!info->dlpi_name || !elf_name_is(info->dlpi_name, runtimes, sizeof runtimes / sizeof *runtimes) || !info->dlpi_tls_modid) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_phdr[i].p_memsz > 0 && t->nblocks < EMU_TLS_MAX) {
      tls_index ti = {info->dlpi_tls_modid, 0};
      t->blocks[t->nblocks].addr = __tls_get_addr(&ti);
      t->blocks[t->nblocks].size = info->dlpi_phdr[i].p_memsz;
      t->total += info->dlpi_phdr[i].p_memsz;
      t->nblocks++;
    }
  return 0;
}

static void copy(emu_tls *t, unsigned char *save, int out) {
  for (int b = 0; b < t->nblocks; b++) {
    if (out) memcpy(save, t->blocks[b].addr, t->blocks[b].size);
    else memcpy(t->blocks[b].addr, save, t->blocks[b].size);
    save += t->blocks[b].size;
  }
}

void emu_tls_init(emu_tls *t, int np) {
  memset(t, 0, sizeof *t);
  t->owner = -1;
  dl_iterate_phdr(scan, t);
  if (!t->total) return;
  /* every rank starts from the thread's state now (the program loaded, no rank run yet), as
   * every process of a real job starts from its own */
  t->copies = xmalloc((size_t)np * t->total);
  for (int r = 0; r < np; r++) copy(t, t->copies + (size_t)r * t->total, 1);
  t->host = xmalloc(t->total);
  copy(t, t->host, 1);
}

void emu_tls_switch(emu_tls *t, int rank) {
  if (!t->total || t->owner == rank) return;
  copy(t, t->owner < 0 ? t->host : t->copies + (size_t)t->owner * t->total, 1);
  copy(t, rank < 0 ? t->host : t->copies + (size_t)rank * t->total, 0);
  t->owner = rank;
}

void emu_tls_free(emu_tls *t) {
  emu_tls_switch(t, -1);   /* the thread's own state back, for what runs after the simulation */
  free(t->copies);
  free(t->host);
  memset(t, 0, sizeof *t);
}
