#!/bin/sh
# psim sweep benchmark: the wall time of one capacity-planning sweep (the 64-rank benchmark
# stencil on flat clusters of 8..64 hosts x 3 bandwidths = 12 replays) run by one process and
# by two: locally (--jobs 1 / --jobs 2) and, when the MPI build exists (make mpi), as an MPI
# job (mpirun -np 1 / -np 2, one run at a time per rank). Median of REPEAT (3) runs each;
# checks that every way writes the same JSON. Prints figures.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
PSIM=${PSIM:-$SRC/build/psim}
PSIM_MPI=${PSIM_MPI:-$SRC/build-mpi/psim}
REPEAT=${REPEAT:-3}
ITERS=${ITERS:-400}
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-sweepbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$PSIM" gen stencil --ranks 64 --iters "$ITERS" -o "$W/st" > /dev/null 2>&1
now() { date +%s.%N; }
# time_of NAME CMD...: median wall time of REPEAT runs, JSON in $W/NAME.json
time_of() {
  name=$1; shift
  for k in $(seq "$REPEAT"); do
    t0=$(now)
    "$@" --quiet --json "$W/$name.json" --vary hosts=8,16,32,64 --vary bw=1Gbps,10Gbps,100Gbps \
      -- replay --platform 'flat:{hosts},10Gf,{bw},1us' "$W/st" 2> "$W/$name.err"
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
  done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
t=$( { t0=$(now); "$PSIM" replay --quiet --platform 'flat:64,10Gf,10Gbps,1us' "$W/st" 2>/dev/null; t1=$(now); echo "$t0 $t1"; } | awk '{ printf "%.3f", $2 - $1 }')
echo "== one replay of the workload (64 ranks x $ITERS iterations, flat:64): $t s; 12 configurations per sweep, median of $REPEAT"
l1=$(time_of j1 "$PSIM" sweep -j 1)
l2=$(time_of j2 "$PSIM" sweep -j 2)
cmp -s "$W/j1.json" "$W/j2.json" || echo "  WARNING: --jobs 2 JSON differs"
echo "$l1 $l2" | awk '{ printf "  local:  --jobs 1 %6.2f s   --jobs 2 %6.2f s   speed-up %.2f\n", $1, $2, $1 / $2 }'
MPIRUN=$(command -v mpirun.mpich || command -v mpirun || true)
if [ -x "$PSIM_MPI" ] && [ -n "$MPIRUN" ]; then
  m1=$(time_of m1 "$MPIRUN" -np 1 "$PSIM_MPI" sweep)
  m2=$(time_of m2 "$MPIRUN" -np 2 "$PSIM_MPI" sweep)
  cmp -s "$W/j1.json" "$W/m1.json" || echo "  WARNING: mpirun -np 1 JSON differs"
  cmp -s "$W/j1.json" "$W/m2.json" || echo "  WARNING: mpirun -np 2 JSON differs"
  echo "$m1 $m2" | awk '{ printf "  MPI:    -np 1    %6.2f s   -np 2    %6.2f s   speed-up %.2f\n", $1, $2, $1 / $2 }'
  sed 's/^/  /' "$W/m2.err"
else
  echo "  (no MPI build: make mpi)"
fi
echo "  machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
