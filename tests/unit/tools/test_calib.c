/* psim calibrate --machine's fit and model (src/tools/calib_fit.c, calib_io.c), against
 * hand-derived values: points drawn from known piecewise lines are fitted back exactly, the
 * model's factors follow from the segments by the formulas in calib.h, and bad measurement
 * files name the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "psim/calib.h"

/* Sizes 1, 2, 3, 4, 6, 8, ... up to max (the probe's), n of them. */
static int sizes(double *s, double max) {
  int n = 0;
  for (double x = 1; x <= max; x = x == 1 ? 2 : (fmod(log2(x), 1) == 0 ? x / 2 * 3 : x / 3 * 4)) s[n++] = x;
  return n;
}

/* Three protocols: 1 us + s / 1 GB/s below 8 KiB, 3 us + s / 5 GB/s to 1 MiB, s / 2 GB/s above. */
static double truth(double s) {
  return s < 8192 ? 1e-6 + s / 1e9 : s <= 1048576 ? 3e-6 + s / 5e9 : s / 2e9;
}

static void fit_recovers_three_segments(void **state) {
  (void)state;
  double s[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = sizes(s, 16777216);
  for (int i = 0; i < n; i++) t[i] = truth(s[i]);
  calib_seg g[CALIB_MAXSEG];
  psim_err err;
  psim_err_clear(&err);
  int k = calib_fit_segments(s, t, n, CALIB_MAXSEG, 1e-9, 0, g, &err);
  assert_int_equal(k, 3);
  assert_true(g[1].from == 8192 && g[0].to == 6144);
  assert_true(g[2].from == 1572864 && g[1].to == 1048576);
  assert_true(fabs(g[0].a - 1e-6) < 1e-15 && fabs(g[0].b - 1e-9) < 1e-18);
  assert_true(fabs(g[1].a - 3e-6) < 1e-15 && fabs(g[1].b - 2e-10) < 1e-19);
  assert_true(fabs(g[2].a) < 1e-12 && fabs(g[2].b - 5e-10) < 1e-19);
  for (int i = 0; i < n; i++) assert_true(fabs(calib_segments_eval(g, k, s[i]) / t[i] - 1) < 1e-9);
}

/* A single size 3 times slower than its neighbours (MPICH's 96 B here) is left out: the three
 * segments are found as without it, and the spike keeps its error. */
static void fit_leaves_out_a_spike(void **state) {
  (void)state;
  double s[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = sizes(s, 16777216), spike = 10;
  for (int i = 0; i < n; i++) t[i] = truth(s[i]) * (i == spike ? 3 : 1);
  calib_seg g[CALIB_MAXSEG];
  psim_err err;
  psim_err_clear(&err);
  int k = calib_fit_segments(s, t, n, CALIB_MAXSEG, 1e-9, 0, g, &err);
  assert_int_equal(k, 3);
  assert_true(fabs(g[0].a - 1e-6) < 1e-15 && fabs(g[0].b - 1e-9) < 1e-18);
  for (int i = 0; i < n; i++)
    if (i != spike) assert_true(fabs(calib_segments_eval(g, k, s[i]) / t[i] - 1) < 1e-9);
  assert_true(fabs(calib_segments_eval(g, k, s[spike]) / t[spike] - 1.0 / 3) < 1e-9);
}

/* A bend sharper than any line of a, b >= 0 (the data leaving the cache: 1 us + s / 1 GB/s to
 * 768 KiB, twice that at 1 MiB, s / (1 / 3 ns) from 1.5 MiB) gets a segment of one size, the
 * line through it and (-16 B, 0): exact there, and so is the model of 1 MiB (latency factor
 * 0, P = 1 MiB + 16 B at t / P bytes a second). Without segments of one size no split of
 * three is exact there. */
static void fit_gives_a_bend_its_own_size(void **state) {
  (void)state;
  double s[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = sizes(s, 16777216), bend = -1;
  for (int i = 0; i < n; i++) {
    t[i] = s[i] <= 786432 ? 1e-6 + s[i] / 1e9 : s[i] == 1048576 ? 2 * (1e-6 + s[i] / 1e9) : s[i] * 3e-9;
    if (s[i] == 1048576) bend = i;
  }
  assert_false(calib_is_spike(t, n, bend));
  calib_seg g[CALIB_MAXSEG];
  psim_err err;
  psim_err_clear(&err);
  int k = calib_fit_segments(s, t, n, CALIB_MAXSEG, 1e-9, 16, g, &err);
  assert_int_equal(k, 3);
  assert_true(g[1].from == 1048576 && g[1].to == 1048576);
  assert_true(fabs(g[1].b - t[bend] / (1048576 + 16)) < 1e-21 && fabs(g[1].a - 16 * g[1].b) < 1e-21);
  for (int i = 0; i < n; i++) assert_true(fabs(calib_segments_eval(g, k, s[i]) / t[i] - 1) < 1e-9);
  calib_probe p = {0};
  calib_model m = {0};
  m.envelope = 16;
  calib_model_from_fit(&m, g, k, &p);
  assert_true(m.latf[1] == 0);
  assert_true(fabs(calib_model_time(&m, 1048576, 1) / t[bend] - 1) < 1e-12);
}

/* The first segment is never one size: its line is what the sizes under the smallest measured
 * one take, and a line through one size and (-16 B, 0) has no latency. Written data measured
 * from 64 B: 0.38 us there, 0.45 us + s / 6 GB/s from 96 B (64 B lies 17.5 % under that line,
 * as in the calibration of 2026-12-02 17:29). With a first segment of 64 B alone (allowed
 * before), 8 B took 0.38 x 24 / 80 = 0.114 us, a third of what any message takes here; now the
 * first segment holds 64 B and the sizes after it, with a latency: 8 B takes over 0.3 us. */
static void fit_first_segment_has_a_latency(void **state) {
  (void)state;
  double s[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = 0;
  s[n] = 64, t[n++] = 0.38e-6;
  for (double x = 96; x <= 1048576; x *= 2) {
    s[n] = x, t[n++] = 0.45e-6 + x / 6e9;
    if (x * 1.5 < 1048576) s[n] = x * 1.5, t[n++] = 0.45e-6 + x * 1.5 / 6e9;
  }
  calib_seg g[CALIB_MAXSEG];
  psim_err err;
  psim_err_clear(&err);
  int k = calib_fit_segments(s, t, n, CALIB_MAXSEG, 0.05, 16, g, &err);
  assert_true(k >= 1);
  assert_true(g[0].from == 64 && g[0].to >= 128);
  double t8 = calib_segments_eval(g, k, 8);
  assert_true(t8 > 0.3e-6 && t8 < 0.45e-6);
  for (int i = 0; i < n; i++) assert_true(fabs(calib_segments_eval(g, k, s[i]) / t[i] - 1) < 0.1);
}

/* With a 10 % tolerance one line is enough for points within 5 % of it: fewest segments. */
static void fit_takes_the_fewest_segments(void **state) {
  (void)state;
  double s[CALIB_MAXPTS], t[CALIB_MAXPTS];
  int n = sizes(s, 65536);
  for (int i = 0; i < n; i++) t[i] = (2e-6 + s[i] / 4e9) * (i % 2 ? 1.04 : 0.96);
  calib_seg g[CALIB_MAXSEG];
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(calib_fit_segments(s, t, n, CALIB_MAXSEG, 0.10, 0, g, &err), 1);
  assert_int_equal(calib_fit_segments(s, t, 2, CALIB_MAXSEG, 0.10, 0, g, &err), -1);
  assert_non_null(strstr(err.msg, "3 points"));
}

/* A slope fitted negative (noise on latency-bound sizes) is a flat line, never a negative
 * bandwidth; an intercept fitted negative goes through the origin. */
static void fit_keeps_a_and_b_non_negative(void **state) {
  (void)state;
  double s[4] = {1, 2, 3, 4}, t[4] = {4e-7, 3.9e-7, 3.8e-7, 3.7e-7};
  calib_seg g[1];
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(calib_fit_segments(s, t, 4, 1, 0, 0, g, &err), 1);
  assert_true(g[0].b == 0 && g[0].a > 3.7e-7 && g[0].a < 4e-7);
  double s2[3] = {1e6, 2e6, 4e6}, t2[3] = {0.9e-3, 2e-3, 4.1e-3};
  assert_int_equal(calib_fit_segments(s2, t2, 3, 1, 0, 0, g, &err), 1);
  assert_true(g[0].a == 0 && g[0].b > 0);
}

/* calib.h's model: latf(P) lat + P / (bwf(P) min(bw, bus / s)), P = size + 16. From the
 * segments of fit_recovers_three_segments: lat = 1e-6 - 16e-9, bw = 5 GB/s (the fastest);
 * the second segment's factors are (3e-6 - 16 x 2e-10) / lat and 1; the third's 0 and 0.4. */
static void model_follows_the_segments(void **state) {
  (void)state;
  calib_seg g[3] = {{1, 6144, 1e-6, 1e-9}, {8192, 1048576, 3e-6, 2e-10}, {1572864, 16777216, 0, 5e-10}};
  calib_probe p = {0};
  /* exchanges 1.25x slower than ping-pongs at the largest third of the sizes, faster below */
  double ps[6] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  for (int i = 0; i < 6; i++) {
    p.pp_size[i] = p.ex_size[i] = ps[i];
    p.pp_time[i] = 1e-3;
    p.ex_time[i] = i >= 4 ? 1.25e-3 : 0.5e-3;
  }
  p.npp = p.nex = 6;
  p.iprobe = 2e-8, p.test = -1, p.wtime = 3e-8;
  calib_model m = {0};
  m.envelope = 16;
  m.cores = 2;
  m.speed = 1e9;
  calib_model_from_fit(&m, g, 3, &p);
  double lat = 1e-6 - 16e-9;
  assert_true(fabs(m.lat - lat) < 1e-18);
  assert_true(fabs(m.bw - 5e9) < 1e-3);
  assert_int_equal(m.nseg, 3);
  assert_true(m.thr[0] == 0);
  assert_true(fabs(m.thr[1] - (sqrt(6144.0 * 8192) + 16)) < 1e-9);
  assert_true(fabs(m.thr[2] - (sqrt(1048576.0 * 1572864) + 16)) < 1e-6);
  assert_true(fabs(m.latf[0] - 1) < 1e-12 && fabs(m.bwf[0] - 0.2) < 1e-12);
  assert_true(fabs(m.latf[1] - (3e-6 - 16 * 2e-10) / lat) < 1e-12 && fabs(m.bwf[1] - 1) < 1e-12);
  assert_true(m.latf[2] == 0 && fabs(m.bwf[2] - 0.4) < 1e-12);
  /* the median of 1.25, 1.25 (the largest third of 6): bus = 2 bw / 1.25 */
  assert_true(fabs(m.exch_ratio - 1.25) < 1e-12);
  assert_true(fabs(m.bus - 8e9) < 1e-3);
  /* alone, a message takes its segment's a + b size, but for a latency that cannot be
   * negative: the third segment's a = 0 gives (size + 16) b */
  for (int i = 0; i < 3; i++) {
    double size = g[i].to, want = (i < 2 ? g[i].a : 16 * g[i].b) + g[i].b * size;
    assert_true(fabs(calib_model_time(&m, size, 1) / want - 1) < 1e-12);
  }
  /* two at once share bus = 8 GB/s */
  double big = 16777216;
  assert_true(fabs(calib_model_time(&m, big, 2) - (big + 16) / (0.4 * 4e9)) < 1e-12);
  assert_true(m.iprobe == 2e-8 && m.test < 0 && m.wtime == 3e-8);
}

/* Written data's segments as factors of the ping-pong's latency and bandwidth. Ping-pong: one
 * segment 1 us + size / 5 GB/s, so lat = 1 us - 16 x 0.2 ns and bw = 5 GB/s; written: 1 us +
 * size / 5 GB/s up to 8 KiB, then 4 us + size / 2 GB/s: factors 1 and 1, then (4 us - 16 x
 * 0.5 ns) / lat and 0.4, from sqrt(8192 x 16384) + 16 bytes. The allreduce of 8 B less the
 * model's exchange of 8 written bytes is the collective's cost. Files carry the points. */
static void written_data(void **state) {
  (void)state;
  calib_seg g[1] = {{1, 16777216, 1e-6, 2e-10}};
  calib_seg w[2] = {{64, 8192, 1e-6, 2e-10}, {16384, 16777216, 4e-6, 5e-10}};
  calib_probe p = {0};
  p.npp = p.nex = 3;
  for (int i = 0; i < 3; i++) p.pp_size[i] = p.ex_size[i] = 1e6 * (i + 1), p.pp_time[i] = p.ex_time[i] = 1e-3;
  p.allreduce = 1e-6;
  calib_model m = {0};
  m.envelope = 16;
  calib_model_from_fit(&m, g, 1, &p);
  double lat = 1e-6 - 16 * 2e-10, before = m.coll;
  assert_true(fabs(m.lat - lat) < 1e-18 && fabs(m.bw - 5e9) < 1e-3);
  assert_int_equal(m.nwseg, 0);
  /* no fit of written data: their messages are the ping-pong's */
  assert_true(calib_model_time_written(&m, 1e6, 1) == calib_model_time(&m, 1e6, 1));
  calib_model_written(&m, w, 2, &p);
  assert_int_equal(m.nwseg, 2);
  /* the first written section from P = 64 + 16 B on (whole bytes: above 79); under it the
   * ping-pong's factors */
  assert_true(m.wthr[0] == 79 && fabs(m.wthr[1] - (sqrt(8192.0 * 16384) + 16)) < 1e-9);
  assert_true(fabs(m.wlatf[0] - 1) < 1e-12 && fabs(m.wbwf[0] - 1) < 1e-12);
  assert_true(fabs(m.wlatf[1] - (4e-6 - 16 * 5e-10) / lat) < 1e-12 && fabs(m.wbwf[1] - 0.4) < 1e-12);
  /* each segment's a + b size alone; the ping-pong model unchanged */
  assert_true(fabs(calib_model_time_written(&m, 1e6, 1) / (4e-6 + 1e6 * 5e-10) - 1) < 1e-12);
  assert_true(fabs(calib_model_time_written(&m, 4096, 1) / (1e-6 + 4096 * 2e-10) - 1) < 1e-12);
  assert_true(fabs(calib_model_time(&m, 1e6, 1) / (1e-6 + 1e6 * 2e-10) - 1) < 1e-12);
  /* a written fit whose line under 64 B would be faster than the ping-pong's: 8 B (P = 24)
   * take the ping-pong's 1e-6 + 8 x 2e-10, 64 B the written line's 0.5e-6 + 64 x 1e-9 */
  calib_model m2 = m;
  calib_seg w2[1] = {{64, 16777216, 0.5e-6, 1e-9}};
  calib_model_written(&m2, w2, 1, &p);
  assert_true(fabs(calib_model_time_written(&m2, 8, 1) / (1e-6 + 8 * 2e-10) - 1) < 1e-12);
  assert_true(fabs(calib_model_time_written(&m2, 63, 1) / (1e-6 + 63 * 2e-10) - 1) < 1e-12);
  assert_true(fabs(calib_model_time_written(&m2, 64, 1) / (0.5e-6 + 64 * 1e-9) - 1) < 1e-12);
  assert_true(fabs(m2.coll - (1e-6 - calib_model_time(&m2, 8, 2))) < 1e-18);
  /* 8 B are in the first segment, the same as the ping-pong's: the same collective's cost */
  assert_true(fabs(m.coll - before) < 1e-18 && fabs(m.coll - (1e-6 - calib_model_time(&m, 8, 2))) < 1e-18);
  /* what psim run charges such a call on its own (run-charges) comes off the cost */
  p.run_charges = 2e-7;
  calib_model_coll(&m, &p);
  assert_true(fabs(m.coll - (1e-6 - calib_model_time(&m, 8, 2) - 2e-7)) < 1e-18);
  p.run_charges = -1;
  calib_model_coll(&m, &p);
  assert_true(fabs(m.coll - before) < 1e-18);
  /* the probe's lines, read and written back */
  psim_err err;
  psim_err_clear(&err);
  const char *text = "probe 1 8\npingpong 1 1e-6\npingpong 2 1e-6\npingpong 4 1.1e-6\n"
                     "written 64 2e-6\nwritten 128 3e-6\nend\n";
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_int_equal(calib_probe_read(f, "m.txt", &p, NULL, &err), 0);
  fclose(f);
  assert_true(p.nwr == 2 && p.wr_size[1] == 128 && p.wr_time[1] == 3e-6);
  char buf[1024];
  f = fmemopen(buf, sizeof buf, "w");
  calib_probe_write(f, &p, 0);
  fclose(f);
  assert_non_null(strstr(buf, "written 64 2.000000000e-06\nwritten 128 3.000000000e-06\n"));
  /* the platform: the factors as the cluster's psim/ properties */
  m.cores = 2, m.speed = 1e9;
  char xml[4096];
  f = fmemopen(xml, sizeof xml, "w");
  calib_write_platform(f, &m, NULL);
  fclose(f);
  char want[200];
  /* the ping-pong's section under 79 bytes, then the written ones */
  snprintf(want, sizeof want, "<prop id=\"psim/network/written-bw-factor\" value=\"0:1;79:1;%.0f:0.4\"/>",
           sqrt(8192.0 * 16384) + 16);
  if (!strstr(xml, want)) fail_msg("no '%s' in\n%s", want, xml);
  assert_non_null(strstr(xml, "<prop id=\"psim/network/written-lat-factor\" value=\"0:1;"));
}

/* Exchanges no slower than ping-pongs: no sharing (bus = 2 bw); more than twice slower: the
 * most sharing can give (bus = bw). */
static void bus_bounds(void **state) {
  (void)state;
  calib_seg g[1] = {{1, 1e8, 1e-6, 1e-9}};
  calib_probe p = {0};
  p.npp = p.nex = 3;
  for (int i = 0; i < 3; i++) p.pp_size[i] = p.ex_size[i] = 1e6 * (i + 1), p.pp_time[i] = 1e-3, p.ex_time[i] = 0.9e-3;
  calib_model m = {0};
  calib_model_from_fit(&m, g, 1, &p);
  assert_true(fabs(m.bus - 2 * m.bw) < 1e-3);
  for (int i = 0; i < 3; i++) p.ex_time[i] = 3e-3;
  calib_model_from_fit(&m, g, 1, &p);
  assert_true(m.bus == m.bw);
}

static int read_text(const char *text, calib_probe *p, psim_err *err) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  int r = calib_probe_read(f, "m.txt", p, NULL, err);
  fclose(f);
  return r;
}

static void probe_files(void **state) {
  (void)state;
  calib_probe p;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(read_text("probe 1 8\npingpong 1 1e-6\npingpong 2 1e-6\npingpong 4 1.1e-6\nflops 2e9\n"
                             "exchange 4 2e-6\niprobe 3e-8\nend\n", &p, &err), 0);
  assert_int_equal(p.npp, 3);
  assert_int_equal(p.nex, 1);
  assert_true(p.pp_size[2] == 4 && p.pp_time[2] == 1.1e-6 && p.iprobe == 3e-8 && p.test < 0);
  /* written back, read again: the same */
  char buf[1024];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  calib_probe_write(f, &p, 0);
  fclose(f);
  calib_probe q;
  assert_int_equal(read_text(buf, &q, &err), 0);
  assert_true(q.npp == 3 && q.pp_time[1] == 1e-6 && q.ex_time[0] == 2e-6 && q.iprobe == 3e-8 && q.flops == 2e9);
  static const struct { const char *text, *want; long line; } bad[] = {
      {"pingpong 1 1e-6\n", "header", 1},
      {"probe 1 8\npingpong 1 1e-6\npingpong 2 1e-6\npingpong 4 1e-6\n", "before 'end'", 4},
      {"probe 1 8\npingpong 2 1e-6\npingpong 1 1e-6\n", "sizes must grow", 3},
      {"probe 1 8\nping 2 1e-6\n", "unknown measurement 'ping'", 2},
      {"probe 1 8\npingpong 2 -1\n", "positive time", 2},
      {"probe 1 8\npingpong 2\n", "SIZE SECONDS", 2},
      {"probe 1 8\npingpong 1 1e-6\nend\n", "1 ping-pong sizes", 3},
      {"probe 2 8\n", "format 1", 1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    psim_err_clear(&err);
    assert_int_equal(read_text(bad[i].text, &p, &err), -1);
    if (!strstr(err.msg, bad[i].want) || err.line != bad[i].line)
      fail_msg("case %zu: line %ld '%s', expected line %ld '%s'", i, err.line, err.msg, bad[i].line, bad[i].want);
  }
}

/* The best of two launches: each size the lower time where both measured it, a size only one
 * launch has as the first has it, each cost the lower of those measured. */
static void best_of_launches(void **state) {
  (void)state;
  calib_probe a, b;
  psim_err err;
  psim_err_clear(&err);
  assert_int_equal(read_text("probe 1 8\npingpong 1 1e-6\npingpong 2 3e-6\npingpong 4 1.1e-6\n"
                             "exchange 4 2e-6\nwritten 2 5e-6\nwritten 4 6e-6\niprobe 3e-8\nend\n", &a, &err), 0);
  assert_int_equal(read_text("probe 1 8\npingpong 1 2e-6\npingpong 2 1e-6\npingpong 8 1e-7\n"
                             "exchange 4 1e-6\nwritten 4 4e-6\ntest 5e-9\niprobe 4e-8\nend\n", &b, &err), 0);
  calib_probe_best(&a, &b);
  assert_int_equal(a.npp, 3);
  assert_true(a.pp_time[0] == 1e-6 && a.pp_time[1] == 1e-6 && a.pp_size[2] == 4 && a.pp_time[2] == 1.1e-6);
  assert_true(a.ex_time[0] == 1e-6 && a.wr_time[0] == 5e-6 && a.wr_time[1] == 4e-6);
  assert_true(a.iprobe == 3e-8 && a.test == 5e-9 && a.wtime < 0 && a.allreduce < 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(best_of_launches), cmocka_unit_test(fit_gives_a_bend_its_own_size),
      cmocka_unit_test(fit_recovers_three_segments), cmocka_unit_test(fit_first_segment_has_a_latency),
      cmocka_unit_test(fit_leaves_out_a_spike), cmocka_unit_test(fit_takes_the_fewest_segments),
      cmocka_unit_test(fit_keeps_a_and_b_non_negative), cmocka_unit_test(model_follows_the_segments),
      cmocka_unit_test(written_data),
      cmocka_unit_test(bus_bounds), cmocka_unit_test(probe_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
