/* psim calibrate --machine's files: the probe's measurements (read and written back) and the
 * platform that describes the machine (include/psim/calib.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psim/calib.h"

static int add_point(double *sz, double *tm, int *n, double s, double t, const char *name, long line, psim_err *err) {
  if (*n == CALIB_MAXPTS)
    return psim_errf(err, PSIM_EXIT_INPUT, name, line, "more than %d sizes of one kind", CALIB_MAXPTS);
  if (*n && s <= sz[*n - 1])
    return psim_errf(err, PSIM_EXIT_INPUT, name, line, "sizes must grow (%.0f after %.0f)", s, sz[*n - 1]);
  sz[*n] = s, tm[*n] = t, ++*n;
  return 0;
}

static void probe_clear(calib_probe *p) {
  memset(p, 0, sizeof *p);
  p->iprobe = p->test = p->wtime = p->flops = p->allreduce = p->run_charges = -1;
}

static int probe_check(const calib_probe *p, const char *name, long line, int ended, psim_err *err) {
  if (!ended) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "the measurements end before 'end' (the probe did not finish)");
  if (p->npp < 3) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "%d ping-pong sizes measured: the fit needs 3 or more", p->npp);
  return 0;
}

int calib_probe_read(FILE *f, const char *name, calib_probe *p, calib_probe *between, psim_err *err) {
  probe_clear(p);
  calib_probe *cur = p;
  char buf[256];
  long line = 0;
  int ended = 0, header = 0, blocks = 1;
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (!strchr(buf, '\n') && !feof(f)) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "line too long");
    char kind[32];
    double x, y;
    int nf = sscanf(buf, "%31s %lf %lf", kind, &x, &y);
    if (nf <= 0 || kind[0] == '#') continue;
    if (!strcmp(kind, "mpi") && header && !ended) {   /* the MPI measured (psim's line) */
      char mpi[8] = "";   /* the size of calib_probe's: "mpich", "ompi" */
      if (sscanf(buf, "%*s %7s", mpi) != 1 || (strcmp(mpi, "mpich") && strcmp(mpi, "ompi")))
        return psim_errf(err, PSIM_EXIT_INPUT, name, line, "expected 'mpi mpich' or 'mpi ompi'");
      snprintf(cur->mpi, sizeof cur->mpi, "%s", mpi);
      continue;
    }
    int nodes = !strcmp(kind, "probe") && strstr(buf, "between-nodes");
    /* the measurements between two nodes follow those inside one (--hostfile) */
    if (ended && nodes && between && blocks == 1) {
      if (probe_check(p, name, line, ended, err) < 0) return -1;
      probe_clear(between);
      cur = between;
      blocks = 2, ended = header = 0;
    }
    if (ended) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "'%s' after 'end'", kind);
    if (!strcmp(kind, "end")) { ended = 1; continue; }
    if (!strcmp(kind, "probe")) {
      if (nf < 2 || x != 1) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "expected 'probe 1 MAXSIZE' (format 1)");
      if (header) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "a second header before 'end'");
      if (nodes && blocks == 1)
        return psim_errf(err, PSIM_EXIT_INPUT, name, line, between
                         ? "the measurements between nodes come after those inside a node (expected 'probe 1 MAXSIZE' first)"
                         : "measurements between nodes where one node's are expected");
      header = 1;
      continue;
    }
    if (!header) return psim_errf(err, PSIM_EXIT_INPUT, name, line, "expected the header 'probe 1 MAXSIZE' first, got '%s'", kind);
    int two = !strcmp(kind, "pingpong") || !strcmp(kind, "exchange") || !strcmp(kind, "written");
    int one = !strcmp(kind, "iprobe") || !strcmp(kind, "test") || !strcmp(kind, "wtime") || !strcmp(kind, "flops") ||
              !strcmp(kind, "allreduce") || !strcmp(kind, "run-charges");
    if (!one && !two)
      return psim_errf(err, PSIM_EXIT_INPUT, name, line,
                       "unknown measurement '%s' (expected pingpong, exchange, written, iprobe, test, wtime, allreduce, run-charges, flops or end)", kind);
    if (nf != (two ? 3 : 2))
      return psim_errf(err, PSIM_EXIT_INPUT, name, line, two ? "expected '%s SIZE SECONDS'" : "expected '%s SECONDS'", kind);
    double t = two ? y : x;
    if (!isfinite(t) || t <= 0 || (two && !(x >= 1 && x <= 1e12)))
      return psim_errf(err, PSIM_EXIT_INPUT, name, line, "'%s': expected a size of 1 byte or more and a positive time", kind);
    if (!strcmp(kind, "pingpong") && add_point(cur->pp_size, cur->pp_time, &cur->npp, x, t, name, line, err) < 0) return -1;
    if (!strcmp(kind, "exchange") && add_point(cur->ex_size, cur->ex_time, &cur->nex, x, t, name, line, err) < 0) return -1;
    if (!strcmp(kind, "written") && add_point(cur->wr_size, cur->wr_time, &cur->nwr, x, t, name, line, err) < 0) return -1;
    if (!strcmp(kind, "iprobe")) cur->iprobe = t;
    if (!strcmp(kind, "test")) cur->test = t;
    if (!strcmp(kind, "wtime")) cur->wtime = t;
    if (!strcmp(kind, "flops")) cur->flops = t;
    if (!strcmp(kind, "allreduce")) cur->allreduce = t;
    if (!strcmp(kind, "run-charges")) cur->run_charges = t;
  }
  if (ferror(f)) return psim_errf(err, PSIM_EXIT_INPUT, name, 0, "read error");
  if (probe_check(cur, name, line, ended, err) < 0) return -1;
  return blocks - 1;
}

/* The lower time of each size of t[0..n) that o[0..no) measured too (both lists grow). */
static void best_times(const double *sz, double *t, int n, const double *osz, const double *ot, int no) {
  for (int i = 0, j = 0; i < n && j < no;) {
    if (sz[i] < osz[j]) i++;
    else if (osz[j] < sz[i]) j++;
    else {
      if (ot[j] < t[i]) t[i] = ot[j];
      i++, j++;
    }
  }
}

/* The lower of two costs, of those measured (>= 0; < 0 is "not measured"). */
static double best_cost(double a, double b) { return a < 0 ? b : b < 0 ? a : b < a ? b : a; }

void calib_probe_best(calib_probe *best, const calib_probe *o) {
  best_times(best->pp_size, best->pp_time, best->npp, o->pp_size, o->pp_time, o->npp);
  best_times(best->ex_size, best->ex_time, best->nex, o->ex_size, o->ex_time, o->nex);
  best_times(best->wr_size, best->wr_time, best->nwr, o->wr_size, o->wr_time, o->nwr);
  best->iprobe = best_cost(best->iprobe, o->iprobe);
  best->test = best_cost(best->test, o->test);
  best->wtime = best_cost(best->wtime, o->wtime);
  best->allreduce = best_cost(best->allreduce, o->allreduce);
  best->run_charges = best_cost(best->run_charges, o->run_charges);
}

void calib_probe_write(FILE *f, const calib_probe *p, int between_nodes) {
  fprintf(f, "probe 1 %.0f%s\n", p->npp ? p->pp_size[p->npp - 1] : 0, between_nodes ? " between-nodes" : "");
  for (int i = 0; i < p->npp; i++) fprintf(f, "pingpong %.0f %.9e\n", p->pp_size[i], p->pp_time[i]);
  for (int i = 0; i < p->nex; i++) fprintf(f, "exchange %.0f %.9e\n", p->ex_size[i], p->ex_time[i]);
  for (int i = 0; i < p->nwr; i++) fprintf(f, "written %.0f %.9e\n", p->wr_size[i], p->wr_time[i]);
  if (p->iprobe > 0) fprintf(f, "iprobe %.9e\n", p->iprobe);
  if (p->test > 0) fprintf(f, "test %.9e\n", p->test);
  if (p->wtime > 0) fprintf(f, "wtime %.9e\n", p->wtime);
  if (p->allreduce > 0) fprintf(f, "allreduce %.9e\n", p->allreduce);
  if (p->run_charges > 0) fprintf(f, "run-charges %.9e\n", p->run_charges);
  if (p->flops > 0) fprintf(f, "flops %.9e\n", p->flops);
  if (p->mpi[0]) fprintf(f, "mpi %s\n", p->mpi);
  fputs("end\n", f);
}

static void sections_of(FILE *f, const char *key, int n, const double *thr, const double *v) {
  fprintf(f, "    <prop id=\"%s\" value=\"", key);
  for (int i = 0; i < n; i++) fprintf(f, "%s%.0f:%.6g", i ? ";" : "", thr[i], v[i]);
  fputs("\"/>\n", f);
}

static void sections(FILE *f, const char *key, const calib_model *m, const double *v) {
  sections_of(f, key, m->nseg, m->thr, v);
}

/* The written data's factors: the ping-pong's sections under the first written one (sizes the
 * probe did not measure written: calib_model_written), then the written sections. */
static void written_sections(FILE *f, const char *key, const calib_model *m, const double *pp, const double *w) {
  double thr[2 * CALIB_MAXSEG], v[2 * CALIB_MAXSEG];
  int n = 0;
  for (int i = 0; i < m->nseg && m->thr[i] < m->wthr[0]; i++) thr[n] = m->thr[i], v[n++] = pp[i];
  for (int i = 0; i < m->nwseg; i++) thr[n] = m->wthr[i], v[n++] = w[i];
  sections_of(f, key, n, thr, v);
}

/* The file's head and its <config>: the node's speed and MPI_Wtime's cost are those of `m`,
 * SMPI's factors those of `fac` (the network's, when the machine has several nodes). */
static void write_config(FILE *f, const calib_model *m, const calib_model *fac, const char *comment) {
  fputs("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n", f);
  if (comment) {   /* "--" ends nothing but is not allowed inside an XML comment */
    fputs("<!-- ", f);
    for (const char *c = comment; *c; c++) fputs(c[0] == '-' && (c[1] == '-' || c[1] == 0) ? "- " : (char[]){*c, 0}, f);
    fputs(" -->\n", f);
  }
  fputs("<platform version=\"4.1\">\n  <config>\n", f);
  /* what a measured CPU second is worth: a second on these hosts */
  fprintf(f, "    <prop id=\"smpi/host-speed\" value=\"%.6gf\"/>\n", m->speed);
  sections(f, "smpi/lat-factor", fac, fac->latf);
  sections(f, "smpi/bw-factor", fac, fac->bwf);
  /* two cores do not acknowledge as TCP does */
  fputs("    <prop id=\"network/crosstraffic\" value=\"0\"/>\n", f);
  /* A read of MPI_Wtime costs what it measured. Not smpi/iprobe nor smpi/test (the polls'
   * costs are psim's properties of the cluster, below): SMPI's
   * injected sleeps are a device to make polling loops advance simulated time, not their cost
   * (smpi/test grows with every MPI_Testany that fails, whatever smpi/grow-injected-times says,
   * and HPCC's RandomAccess, a Testany loop, was predicted 60x too slow with them); psim run's
   * own treatment of polls (docs/EMULATION.md, "Polling") predicted it within 25 %. */
  if (m->wtime > 0) fprintf(f, "    <prop id=\"smpi/wtime\" value=\"%.6g\"/>\n", m->wtime);
  fputs("  </config>\n", f);
}

/* The polls' own costs, for psim run alone (run/iprobe-cost, run/test-cost: CPU time each call
 * takes in the real MPI, charged to the rank). They are the cluster's properties: SimGrid keeps
 * those without reading them, where it would stop on an unknown <config> key. */
static void write_poll_costs(FILE *f, const calib_model *m) {
  if (m->iprobe > 0) fprintf(f, "    <prop id=\"psim/run/iprobe-cost\" value=\"%.6g\"/>\n", m->iprobe);
  if (m->test > 0) fprintf(f, "    <prop id=\"psim/run/test-cost\" value=\"%.6g\"/>\n", m->test);
  if (m->coll > 0) fprintf(f, "    <prop id=\"psim/run/coll-cost\" value=\"%.6g\"/>\n", m->coll);
}

/* The collectives of a program built with psimcc are those of the MPI measured (psim run's
 * run/psimcc-coll-selector): it stands for the same program built with that MPI's mpicc. Not
 * smpi/coll-selector, which SimGrid's replay of its mpich selector aborts on and psim replay
 * refuses (precompiled binaries take their own MPI's selection anyway). */
static void write_psimcc_selector(FILE *f, const calib_model *m) {
  if (m->mpi) fprintf(f, "    <prop id=\"psim/run/psimcc-coll-selector\" value=\"%s\"/>\n", m->mpi);
}

void calib_write_platform(FILE *f, const calib_model *m, const char *comment) {
  write_config(f, m, m, comment);
  /* One host per core; a transfer crosses its source's link, the node's memory (the
   * backbone, shared by every transfer of the node, both ways) and its destination's link. */
  fprintf(f,
          "  <cluster id=\"node\" prefix=\"core\" suffix=\"\" radical=\"0-%d\" speed=\"%.6gf\"\n"
          "           bw=\"%.6gBps\" lat=\"%.6gs\" sharing_policy=\"FATPIPE\"\n"
          "           bb_bw=\"%.6gBps\" bb_lat=\"0s\" bb_sharing_policy=\"SHARED\">\n",
          m->cores - 1, m->speed, m->bw, m->lat / 2, m->bus);
  /* psim's: a collective's messages carry data just written (the cluster's properties, which
   * SimGrid keeps without reading) */
  if (m->nwseg) {
    written_sections(f, "psim/network/written-lat-factor", m, m->latf, m->wlatf);
    written_sections(f, "psim/network/written-bw-factor", m, m->bwf, m->wbwf);
  }
  write_poll_costs(f, m);
  write_psimcc_selector(f, m);
  fputs("  </cluster>\n</platform>\n", f);
}

void calib_write_platform_nodes(FILE *f, const calib_model *in, const calib_model *net, int nodes, const char *comment) {
  write_config(f, in, net, comment);
  /* One host per node with a core per core; ranks of one host talk through its loopback (the
   * node's memory, with its own factors: psim's, below), ranks of two hosts through their
   * private links (the network: SMPI's factors), both ways at once when the exchanges showed
   * it (SPLITDUPLEX), else sharing one link (SHARED). No backbone: the switch is not a limit
   * two nodes can measure. */
  fprintf(f,
          "  <cluster id=\"cluster\" prefix=\"node\" suffix=\"\" radical=\"0-%d\" speed=\"%.6gf\" core=\"%d\"\n"
          "           bw=\"%.6gBps\" lat=\"%.6gs\" sharing_policy=\"%s\"\n"
          "           loopback_bw=\"%.6gBps\" loopback_lat=\"%.6gs\">\n",
          nodes - 1, in->speed, in->cores, net->bw, net->lat / 2, calib_full_duplex(net) ? "SPLITDUPLEX" : "SHARED",
          in->bw, in->lat);
  sections(f, "psim/network/loopback-lat-factor", in, in->latf);
  sections(f, "psim/network/loopback-bw-factor", in, in->bwf);
  write_poll_costs(f, in);
  write_psimcc_selector(f, in);
  fputs("  </cluster>\n</platform>\n", f);
}
