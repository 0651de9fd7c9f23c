#!/bin/sh
# How long psim forecast takes for every grid of 1-1024 processes (7,262 grids), pdgemm (closed
# form) and pdtrsm (per-process clocks: O(ceil(N/R) q) per grid; N = 4096, R = 64), best of 3
# runs, wall and CPU (user) seconds of the whole command, JSON written. Needs time (Debian).
#   bench/forecast_speed.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PSIM=${PSIM:-$ROOT/build/psim}
OUT=$(mktemp -d /tmp/fcspeed.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
NET="--latency 50us --bandwidth 100Mbps --kernel-rate 5e8"
best_of_3() {
  for i in 1 2 3; do
    /usr/bin/time -f "%e %U" -o "$OUT/t$i" "$PSIM" forecast "$@" --procs 1-1024 $NET --quiet --json "$OUT/f.json" >/dev/null
  done
  grids=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["grids"]))' "$OUT/f.json")
  cat "$OUT/t1" "$OUT/t2" "$OUT/t3" | sort -n | head -n 1 |
    awk -v r="$1" -v g="$grids" '{ printf "%s: %d grids of 1-1024 processes in %.2f s wall, %.2f s CPU (best of 3, with the JSON)\n", r, g, $1, $2 }'
}
best_of_3 pdgemm --m 4096 --n 4096 --k 4096 --nb 64
best_of_3 pdtrsm --m 4096 --n 4096 --nb 64
