#!/bin/sh
# Short computations are carried over, not dropped (issue 34, item 4; emu_sched.c,
# charge_cpu): a rank that polls with MPI_Iprobe between pieces of work each shorter than
# --cpu-threshold (HPCC's RandomAccess) is charged the sum of them. Before, each was dropped
# and the loop took no simulated time at all. Hosts of 1 Gflop/s with a host speed reference
# of 1e9: a CPU second of the program is a simulated second.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
cat > "$TMPD/carry.c" <<'C'
/* N passes of {spin of B seconds of CPU, B about 0.3 us, MPI_Iprobe that finds nothing}, and
 * an MPI_Wtime every 16 passes (a call that is no poll). B is measured by the program with
 * the thread CPU clock read by a raw system call (psim maps clock_gettime to its clocks),
 * over passes without MPI calls, before the timed loop. Prints B and the loop's simulated
 * time: it must be about N x B, and the spin's k. "tail K": 3 passes of spin(K), nothing else,
 * then MPI_Finalize (the carry left at the rank's end is charged). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
static double cpu(void) {
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static volatile double sink;
static void spin(long k) { double x = sink; for (long i = 0; i < k; i++) x = x * 0.999999 + 1e-9; sink = x; }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 2 && !strcmp(argv[1], "tail")) {
    long k = atol(argv[2]);
    double t0 = MPI_Wtime();   /* after MPI_Init, whose burst (the program's start) is charged */
    for (int i = 0; i < 3; i++) { spin(k); MPI_Wtime(); }
    MPI_Finalize();
    printf("T0 %.9f\n", t0);   /* not charged: after MPI_Finalize (its first use costs microseconds) */
    return 0;
  }
  long k = 1;
  /* k such that spin(k) takes about 0.3 us */
  for (;;) {
    double t0 = cpu();
    for (int i = 0; i < 1000; i++) spin(k);
    if ((cpu() - t0) / 1000 >= 0.3e-6 || k > (1L << 30)) break;
    k *= 2;
  }
  k = k * 3 / 4 + 1;
  int flag, n = 100000;
  double t0 = cpu();
  for (int i = 0; i < 20000; i++) spin(k);
  double b = (cpu() - t0) / 20000;
  double w0 = MPI_Wtime();
  for (int i = 0; i < n; i++) {
    spin(k);
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (i % 16 == 15) MPI_Wtime();
  }
  double w = MPI_Wtime() - w0;
  printf("B %.4g N %d loop %.6g expected %.6g k %ld\n", b, n, w, n * b, k);
  MPI_Finalize();
  return 0;
}
C
# -z now: the dynamic linker binds MPI_Finalize at load, not in the tail's last burst (its
# lazy binding costs microseconds, more than the tail)
"$PSIMCC" -O2 -Wl,-z,now -o "$TMPD/carry" "$TMPD/carry.c" || { echo "FAIL: psimcc"; exit 1; }
run() { out=$1; shift; "$PSIM" run --np 1 --platform flat:1,1Gf -q --host-speed-ref 1e9 --json "$TMPD/$out.json" "$@" > "$TMPD/$out.out"; }
# the loop: N x B of simulated time. The bound is wide (a loaded machine stretches bursts, and
# psim's own code between two calls, tens of ns, is part of each), but the old behaviour gave
# N/16 reads of MPI_Wtime at 10 ns, under 1 % of it.
run loop -- "$TMPD/carry" || bad "run: rc $?"
line=$(cat "$TMPD/loop.out")
echo "default threshold (1 us): $line"
set -- $line
b=$2 k=${10}
if [ "$1" = B ] && [ "$5" = loop ] && [ -n "$k" ]; then
  awk -v w="$6" -v e="$8" 'BEGIN { exit !(w >= 0.7 * e && w <= 1.8 * e) }' ||
    bad "loop of $4 passes of $2 s: $6 s simulated, expected about $8 s (0.7x to 1.8x)"
  # with the threshold at 0 every burst is charged as it comes: the same time (SMPI's
  # smpi/cpu-threshold:0, docs/VALIDATION.md's RandomAccess within 5 %)
  run zero --cpu-threshold 0 -- "$TMPD/carry" || bad "run --cpu-threshold 0: rc $?"
  set -- $(cat "$TMPD/zero.out")
  echo "threshold 0: loop $6 s, expected $8 s"
  awk -v w="$6" -v e="$8" 'BEGIN { exit !(w >= 0.7 * e && w <= 1.8 * e) }' ||
    bad "threshold 0: $6 s simulated, expected about $8 s"
else
  bad "unexpected output: $line"
fi
# the carry left at the rank's end is charged: 3 passes of about B (under the threshold
# together) and nothing else before MPI_Finalize are charged there; before, nothing was (0)
run tail -- "$TMPD/carry" tail "$k" || bad "run tail: rc $?"
t0=$(sed -n 's/^T0 //p' "$TMPD/tail.out")
f=$(json_get "$TMPD/tail.json" finish_time)
echo "tail: 3 passes of $b s from $t0 s: rank 0 ends at $f s"
# (the upper bound leaves room for a page fault or an interruption in one of the bursts on a
# loaded machine, microseconds; the old behaviour gave 3 reads of MPI_Wtime, 30 ns)
awk -v f="$f" -v t="$t0" -v b="$b" 'BEGIN { c = f - t; exit !(f != "" && t != "" && c >= 2 * b && c <= 20e-6 + 10 * b) }' ||
  bad "tail: 3 passes of $b s from $t0 s end at $f s (expected about $(awk -v b="$b" 'BEGIN { print 3 * b }') s later)"
finish $fails
