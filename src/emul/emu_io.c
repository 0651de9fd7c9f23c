/* Disk I/O of a rank (MPI-IO, src/emul/rt/rt_file*.c): the simulated time of its reads and
 * writes, on the disk of the rank's host (src/models/disk.c). The data itself is moved by the
 * runtime at once, with the C library; only its time is simulated here. */
#include <stdio.h>

#include "emul/emu.h"

/* The disk activity ended: its request is done; the rank waiting for it wakes. */
static void io_done(sim *s, activity *a) {
  (void)s;
  emu_sim *S = emu_current;
  emu_req *r = a->data;
  r->done = 1;
  if (r->orphan) {   /* MPI_Request_free'd while under way */
    r->orphan = 0;
    emu_req_free(r);
    return;
  }
  emu_rank *k = &S->ranks[r->owner];
  if (r->waited && k->state == EK_BLOCKED && --k->nwait == 0) emu_wake(S, k);
  emu_wake_pollers();
}

emu_req *emu_io_start(double bytes, int write) {
  emu_sim *S = emu_current;
  emu_rank *k = S->running;
  if (!S->io_warned && bytes > 0 && !models_disk_of(S->models, k->host, NULL, NULL, NULL)) {
    S->io_warned = 1;
    fprintf(stderr,
            "psim: warning: rank %d does I/O (%s) on host '%s', which has no <disk>: its I/O takes "
            "no simulated time (declare a <disk id=... read_bw=... write_bw=.../> in the host, or "
            "give diskless hosts one with --cfg disk/bandwidth:BW); warned once\n",
            k->id, k->call ? k->call : "MPI-IO", plat_host_at(S->o->plat, k->host)->name);
  }
  emu_req *r = emu_req_new();
  r->io = 1;
  r->len = (size_t)bytes;
  k->poll_streak = 0;
  models_io(S->models, k->host, bytes, write, io_done, r, k->id);
  return r;
}

void emu_io(double bytes, int write) {
  emu_req *r = emu_io_start(bytes, write);
  emu_wait(&r, 1, 1);
  emu_req_free(r);
}
