#!/bin/sh
# DPS's experiments with its block LU (examples/lu_dps.c; Schaeli et al., sections 5 and 8):
#  1. dynamic node allocation (its Figures 12-13): 8 nodes throughout, 4 nodes throughout, and
#     8 nodes of which 4 leave after iteration 1 -- running time, processor-seconds and the
#     dynamic efficiency of each iteration;
#  2. sensitivity (its Tables 2-3): each parameter changed alone, relative change in running
#     time, for r=324 (one column block per node) and r=108 (three per node).
# The cluster is DPS's: 8 nodes on a Fast Ethernet switch, DPS's star network model (each node's
# full-duplex port shared equally by its transfers; 1350 us and 11.85 MB/s), nodes computing
# 2/3 n^3 flops of the serial LU in DPS's 185 s (63 Mflop/s). The sensitivity study adds DPS's
# other parameters: communication CPU costs (send 0.1, receive 0.2 of a CPU) and one nice-19
# background user per node, each then changed alone with the network and the computation.
# Usage: examples/lu_dps.sh [BUILD_DIR] (default build); N (default 2592) from the environment.
set -eu
B=${1:-build}
N=${N:-2592}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/psimcc" -O2 -o "$T/lu_dps" "$(dirname "$0")/lu_dps.c"
PLAT="--platform flat:8,63Mf,11.85MBps,675us --network star --cfg star/latency:1350us --cfg star/bandwidth:11.85MBps"
SENS="--cfg cpu/send-cost:0.1 --cfg cpu/recv-cost:0.2 --cfg background/count:1 --cfg background/nice:19"
RUN="$B/psim run --no-measure $PLAT"

# iteration efficiency column of a summary: "iteration start end useful hosts efficiency ps"
effs() { awk '/^iteration +start/ {on=1; next} on && NF == 7 {printf "%s ", $6}' "$1"; }
stat() { awk -v k="$2" '$0 ~ k {print}' "$1"; }

echo "== dynamic node allocation: LU ${N}x${N}, r=324, basic flow graph =="
$RUN --np 8 -- "$T/lu_dps" "$N" 324 > "$T/8" 2>/dev/null
$RUN --np 4 -- "$T/lu_dps" "$N" 324 > "$T/4" 2>/dev/null
$RUN --np 8 --host-events 'iter=1:remove=4-7' -- "$T/lu_dps" "$N" 324 > "$T/k" 2>/dev/null
for c in "8 nodes throughout:8" "4 nodes throughout:4" "kill 4 after iteration 1:k"; do
  name=${c%:*}; f=$T/${c##*:}
  time=$(awk '/^simulated time:/ {print $3}' "$f")
  ps=$(awk '/^dynamic efficiency:/ {print $5}' "$f")
  printf '%-28s running time %9.3f s   processor-seconds %9.3f\n' "$name" "$time" "$ps"
  printf '%-28s efficiency per iteration: %s\n' "" "$(effs "$f")"
done
stat "$T/k" '^removed'

for R in 324 108; do
  echo
  echo "== sensitivity, r=$R (each parameter changed alone) =="
  "$B/psim" sensitivity --np 8 --no-measure $PLAT $SENS -j 2 \
      --vary latency:0.00148148,bandwidth:76.962,compute:0.9,cpu/send-cost:0.5,cpu/recv-cost:0.5,cpu/factor:0.9,background/count:2 \
      -- "$T/lu_dps" "$N" "$R" \
    | sed -e 's/latency x0.00148148/latency 1350us -> 2us/' -e 's/bandwidth x76.962/bandwidth 11.85 -> 912 MB\/s/' \
          -e 's/compute x0.9/computation 10% faster/' \
    | awk '/%$/ {d = $NF; t = $(NF - 1); $NF = ""; $(NF - 1) = ""; sub(/ +$/, ""); printf "%-32s %14s %11s\n", $0, t, d; next} {print}'
done
