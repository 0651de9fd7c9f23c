/* Disks: the time of psim run's MPI-IO (src/emul/rt/rt_file*.c).
 *
 * SimGrid 3.32's disk model (DiskS19), which SMPI's MPI-IO uses: a disk is three solver
 * constraints, its read bandwidth, its write bandwidth and a read+write one of
 * max(read_bw, write_bw); a read of n bytes is a variable of n units of work with consumption
 * 1 on the read and the read+write constraints (a write likewise on the write one), so
 * concurrent I/Os on one disk share it max-min, as flows share a link. No latency. SMPI uses
 * the first disk of the host its rank runs on (Host::get_disks().front()): so does psim.
 *
 * A host without a <disk>: SMPI stops ("Trying to open file on a diskless host"). psim gives it
 * the disk --cfg disk/bandwidth describes (read and write at that bandwidth) when set;
 * otherwise its I/O takes no simulated time, and psim run warns once (src/emul/emu_io.c). */
#include <stdlib.h>

#include "models/models_internal.h"

typedef struct disk { int read, write, both; } disk;   /* solver constraints; read < 0: none */

struct disks {
  sim *sim;
  const platform *plat;
  int n;
  disk *d;           /* per host */
  double default_bw; /* disk/bandwidth, 0 when unset */
};

disks *disks_new(sim *s, const platform *p, const net_config *c) {
  disks *ds = xcalloc(1, sizeof *ds);
  ds->sim = s;
  ds->plat = p;
  ds->n = plat_nhosts(p);
  ds->default_bw = c->disk_bw;
  ds->d = xmalloc((size_t)ds->n * sizeof *ds->d);
  lmm_system *l = sim_lmm(s);
  for (int h = 0; h < ds->n; h++) {
    const plat_host *ph = plat_host_at(p, h);
    double r = ph->disk_read_bw > 0 ? ph->disk_read_bw : c->disk_bw;
    double w = ph->disk_read_bw > 0 ? ph->disk_write_bw : c->disk_bw;
    if (!(r > 0)) { ds->d[h] = (disk){-1, -1, -1}; continue; }
    /* made on first use would change the constraints' numbering of a run without I/O: they
     * come after every host's and link's, so the network's and CPUs' are untouched */
    ds->d[h].read = lmm_cnst_new(l, r, 0);
    ds->d[h].write = lmm_cnst_new(l, w, 0);
    ds->d[h].both = lmm_cnst_new(l, r > w ? r : w, 0);
  }
  return ds;
}

void disks_free(disks *ds) {
  if (!ds) return;
  free(ds->d);
  free(ds);
}

int models_disk_of(const models *m, int host, const char **name, double *read_bw, double *write_bw) {
  const disks *ds = models_disks(m);
  const plat_host *ph = plat_host_at(ds->plat, host);
  if (ds->d[host].read < 0) return 0;
  lmm_system *l = sim_lmm(ds->sim);
  if (name) *name = ph->disk_read_bw > 0 ? ph->disk_name : "disk/bandwidth";
  if (read_bw) *read_bw = lmm_cnst_capacity(l, ds->d[host].read);
  if (write_bw) *write_bw = lmm_cnst_capacity(l, ds->d[host].write);
  return 1;
}

activity *models_io(models *m, int host, double bytes, int write, activity_done_fn done, void *data, int tag) {
  disks *ds = models_disks(m);
  const disk *dk = &ds->d[host];
  if (dk->read < 0 || !(bytes > 0)) return sim_start_timer(ds->sim, 0, done, data, tag);
  lmm_system *l = sim_lmm(ds->sim);
  activity *a = sim_start_work(ds->sim, bytes, -1, 1.0, done, data, tag);
  int v = lmm_var_new(l, 1.0, -1, a);
  int dir = write ? dk->write : dk->read;
  lmm_expand(l, dir, v, 1.0);
  lmm_expand(l, dk->both, v, 1.0);
  lmm_touch_cnst(l, dir);
  lmm_touch_cnst(l, dk->both);
  a->var = v;
  return a;
}
