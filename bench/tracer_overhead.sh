#!/bin/sh
# bench/tracer_overhead.sh: what libpsimtrace.so adds to each MPI call. Two loops at np=2
# under real MPICH, each run without and with the tracer preloaded (PSIMTRACE_SPEED set, so
# that no calibration runs at MPI_Init): a ping-pong of 8-byte messages (rank 0's MPI_Send +
# MPI_Recv, two lines of trace per round trip) and a loop of MPI_Iprobe that finds nothing
# (the time is measured and summed into one sleep line); and at np=1, a message to itself
# (MPI_Isend, MPI_Recv, MPI_Wait: three lines per round), which no other process's scheduling
# disturbs. Prints ns per call, medians of 5 runs, and the load average (on a loaded machine
# the ping-pong is noise: the np=1 row is then the figure of what writing a line costs).
#   bench/tracer_overhead.sh [-n ROUNDS]        (default 20000 round trips, 10x as many probes)
# PSIM names the psim binary whose lib/libpsimtrace.so is measured (default build/psim).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PSIM:=$(dirname "$HERE")/build/psim}"
LIB=$(cd "$(dirname "$PSIM")" && pwd)/lib/libpsimtrace.so
: "${MPICC:=mpicc.mpich}"
: "${MPIEXEC:=mpiexec.mpich}"
N=20000
while getopts n: o; do
  case $o in
  n) N=$OPTARG ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
done
[ -f "$LIB" ] || { echo "tracer_overhead.sh: no $LIB" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/tracer_overhead.XXXXXX")
trap 'rm -rf "$W"' EXIT
cat > "$W/loops.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, np, n = atoi(argv[1]), flag;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char b[8] = {0}, c[8];
  MPI_Request q;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; i++) {
    if (np == 1) {   /* to itself: no partner to wait for, so no other process's scheduling */
      MPI_Isend(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q);
      MPI_Recv(c, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (r == 0) {
      MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  double t1 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  double t2 = MPI_Wtime();
  for (int i = 0; i < 10 * n; i++) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  double t3 = MPI_Wtime();
  if (r == 0) printf("%.1f %.1f\n", (t1 - t0) / ((np == 1 ? 3.0 : 2.0) * n) * 1e9, (t3 - t2) / (10.0 * n) * 1e9);
  MPI_Finalize();
  return 0;
}
C
"$MPICC" -O2 -o "$W/loops" "$W/loops.c" || exit 1
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in 1 2 3 4 5; do   # interleaved, so that both see the same load
  "$MPIEXEC" -n 2 "$W/loops" "$N" >> "$W/plain" || exit 1
  "$MPIEXEC" -n 2 env LD_PRELOAD="$LIB" PSIMTRACE_DIR="$W/trace" PSIMTRACE_SPEED=1e9 "$W/loops" "$N" >> "$W/traced" 2> /dev/null || exit 1
  "$MPIEXEC" -n 1 "$W/loops" "$N" >> "$W/plain1" || exit 1
  "$MPIEXEC" -n 1 env LD_PRELOAD="$LIB" PSIMTRACE_DIR="$W/trace1" PSIMTRACE_SPEED=1e9 "$W/loops" "$N" >> "$W/traced1" 2> /dev/null || exit 1
done
med() { sort -g | awk '{ v[NR] = $1 } END { print v[(NR + 1) / 2] }'; }
pp0=$(cut -d' ' -f1 "$W/plain" | med) pp1=$(cut -d' ' -f1 "$W/traced" | med)
ip0=$(cut -d' ' -f2 "$W/plain" | med) ip1=$(cut -d' ' -f2 "$W/traced" | med)
se0=$(cut -d' ' -f1 "$W/plain1" | med) se1=$(cut -d' ' -f1 "$W/traced1" | med)
echo "libpsimtrace.so overhead per MPI call, rank 0, $MPIEXEC -n 2 on $(hostname), medians of 5 runs"
echo "load average (1, 5, 15 min): $LOAD0 before, $(cut -d' ' -f1-3 /proc/loadavg) after ($(nproc) cores)"
printf '%-34s %12s %12s %12s\n' "" "without (ns)" "with (ns)" "overhead"
printf '%-34s %12.1f %12.1f %12.1f\n' "ping-pong 8 B (MPI_Send, MPI_Recv)" "$pp0" "$pp1" "$(echo "$pp1 - $pp0" | bc)"
printf '%-34s %12.1f %12.1f %12.1f\n' "MPI_Iprobe, nothing pending" "$ip0" "$ip1" "$(echo "$ip1 - $ip0" | bc)"
printf '%-34s %12.1f %12.1f %12.1f\n' "np=1 to itself (Isend, Recv, Wait)" "$se0" "$se1" "$(echo "$se1 - $se0" | bc)"
echo "trace written for the $N round trips: $(wc -c < "$W/trace/rank-0.txt") bytes on rank 0"
