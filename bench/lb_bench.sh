#!/bin/sh
# psim lb benchmark: simulated throughput on the Ondes3D-like workload (256 VPs on 16 PEs,
# 500 iterations) and the wall time of the SAMPI thesis' exploration: 4 VP counts (256, 128,
# 64, 32) x 2 balancers (greedy, refine-classic) x 3 periods (10, 20, 30) = 24 simulations,
# the use case that took the thesis' workflow about 5 hours. Prints figures; checks nothing.
set -eu
PSIM=${PSIM:-$(cd "$(dirname "$0")/.." && pwd)/build/psim}
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-lbbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
ITERS=${ITERS:-500}
for g in 16x16 16x8 8x8 8x4; do
  "$PSIM" gen stencil2d --grid $g --iters "$ITERS" -o "$W/$g" 2>/dev/null
done
now() { date +%s.%N; }
echo "== throughput: 256 VPs on 16 PEs, $ITERS iterations (default platform, smpi model)"
for b in none greedy refine-classic; do
  "$PSIM" lb "$W/16x16" --pes 16 --balancer $b --period 20 2>&1 >/dev/null | sed 's/^psim lb: /  /'
done
echo "== exploration: 4 VP counts x 2 balancers x 3 periods = 24 simulations"
t0=$(now)
for g in 16x16 16x8 8x8 8x4; do
  "$PSIM" lb "$W/$g" --pes 16 --balancer greedy,refine-classic --period 10,20,30 --quiet --json "$W/$g.json"
done
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "  24 simulations in %.2f s wall (sequential, one core)\n", b - a }'
for g in 16x16 16x8 8x8 8x4; do
  printf '  %-6s ' "$g"
  grep -o '"balancer": "[a-z-]*", "period": [0-9]*\|"simulated_time": [0-9.e+-]*' "$W/$g.json" |
    sed 's/"balancer": "\([a-z-]*\)", "period": \([0-9]*\)/\1@\2/; s/"simulated_time": //' | paste -sd' ' | sed 's/ \([0-9]\)/=\1/g'
done
