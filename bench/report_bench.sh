#!/bin/sh
# Size and opening time of the HTML report at 4, 64, 1024 and 16,384 ranks (stencil, 100
# iterations at 16,384 ranks), in headless Chromium; writes a screenshot of each to OUT
# (default /tmp/report-bench). The page records when it was parsed and loaded
# (performance.now() after navigation: reading the HTML, the timeline's data and first
# drawing included) in body's data-parsed-ms / data-load-ms; the wall time of a whole
# headless screenshot (browser start included) is an upper bound.
#   bench/report_bench.sh [OUT]     (the 16,384-rank replay takes minutes)
# The runs use the constant network model (NETWORK=smpi to change it): the report's size and
# speed depend on ranks and actions, not on the model, and 16,384 ranks under SMPI's
# contention model take far longer to simulate.
set -eu
PSIM=${PSIM:-$(cd "$(dirname "$0")/.." && pwd)/build/psim}
OUT=${1:-/tmp/report-bench}
NETWORK=${NETWORK:-constant}
BROWSER=$(command -v chromium || command -v chromium-browser)
mkdir -p "$OUT"
printf '%-7s %-6s %-10s %-10s %-10s %-10s %-10s\n' ranks iters json_MB html_MB parsed_ms load_ms shot_s
for spec in 4:100 64:100 1024:100 16384:100; do
  n=${spec%%:*} it=${spec##*:}
  d="$OUT/st$n"
  [ -d "$d" ] || "$PSIM" gen stencil --ranks "$n" --iters "$it" -o "$d" 2> /dev/null
  [ -s "$d.json" ] || "$PSIM" replay --quiet --network "$NETWORK" "$d" --json "$d.json" --timeline
  "$PSIM" report "$d.json" -o "$d.html"
  prof=$(mktemp -d)
  "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
    --dump-dom "file://$d.html" > "$d.dom" 2> /dev/null
  parsed=$(grep -o 'data-parsed-ms="[0-9]*"' "$d.dom" | grep -o '[0-9]*')
  load=$(grep -o 'data-load-ms="[0-9]*"' "$d.dom" | grep -o '[0-9]*')
  t0=$(date +%s.%N)
  "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
    --window-size=1100,1250 --screenshot="$OUT/report-$n.png" "file://$d.html" > /dev/null 2>&1
  t1=$(date +%s.%N)
  rm -rf "$prof"
  printf '%-7s %-6s %-10.2f %-10.2f %-10s %-10s %-10.2f\n' "$n" "$it" \
    "$(echo "$(stat -c %s "$d.json") / 1e6" | bc -l)" "$(echo "$(stat -c %s "$d.html") / 1e6" | bc -l)" \
    "${parsed:-?}" "${load:-?}" "$(echo "$t1 - $t0" | bc -l)"
done
