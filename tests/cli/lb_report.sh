#!/bin/sh
# The HTML report of psim lb (--report, and --json --timeline through psim report): replay's
# charts plus the per-iteration views. Headless Chromium loads it without errors; the PE and
# VP heatmaps, the PE load chart and the efficiency chart are drawn; the load chart has one
# step marker per balancing step of the run (counted in the loaded DOM, compared with the
# document's lb_steps); every efficiency value (DOM and JSON) is in [0, 1], one per
# iteration; the report is deterministic; --report with several configurations is refused.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
[ -n "$BROWSER" ] || { echo "FAIL chromium missing (scripts/deps.sh test installs it)"; exit 1; }

# shapes DOM ID: drawn shapes inside the svg of that id
shapes() {
  awk -v id="id=\"$2\"" 'index($0, id) { on = 1 } on && /<(rect|line|polyline|circle)/ { n++ } on && /<\/svg>/ { on = 0 } END { print n + 0 }' "$1"
}
# count DOM ID CLASS: elements of that class inside the svg of that id
count() {
  awk -v id="id=\"$2\"" -v cl="class=\"$3\"" 'index($0, id) { on = 1 } on { n += gsub(cl, "") } on && /<\/svg>/ { on = 0 } END { print n + 0 }' "$1"
}

"$PSIM" gen stencil2d --grid 8x8 --iters 60 -o "$TMPD/o3d" 2> /dev/null || bad "gen stencil2d failed"

check() { # name balancer period expected-steps
  name=$1
  html=$TMPD/$name.html json=$TMPD/$name.json
  if ! "$PSIM" lb "$TMPD/o3d" --pes 8 --balancer "$2" --period "$3" --quiet --report "$html" --json "$json" --timeline; then
    bad "$name: psim lb failed"; return
  fi
  steps=$(json_get "$json" lb_steps)
  [ "$steps" = "$4" ] || bad "$name: $steps balancing steps, expected $4"
  python3 - "$json" <<'PY' || bad "$name: the --timeline document is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
it = d["iterations"]
assert it["count"] == 60 and len(it["efficiency"]) == 60 and len(it["pe_load"]) == 60, "60 iterations"
assert all(len(r) == 8 for r in it["pe_load"]) and all(len(r) == 64 for r in it["vp_load"]), "matrix shapes"
assert all(e is not None and 0 <= e <= 1 for e in it["efficiency"]), "efficiency outside [0, 1]"
assert len(it["step_after"]) == d["lb_steps"], "a step_after per step"
assert all(k in d for k in ("ranks", "timeline", "comm_matrix", "critical_path")), "report sections"
ends = it["end"]
assert all(a <= b for a, b in zip(ends, ends[1:])) and ends[-1] <= d["simulated_time"], "iteration ends in order"
PY
  [ -s "$html" ] || { bad "$name: no report written"; return; }
  if grep -qi '<script src\|src="http\|href="http\|@import\|url([^#]' "$html"; then bad "$name: report is not self-contained"; fi
  if ! dom "$html" "$TMPD/$name.dom"; then bad "$name: chromium failed to load the report"; return; fi
  if grep -qi 'Uncaught\|SyntaxError' "$TMPD/$name.dom.log"; then bad "$name: errors while loading: $(grep -i 'Uncaught\|SyntaxError' "$TMPD/$name.dom.log" | head -3)"; fi
  for chart in lb-pe-heatmap-chart lb-vp-heatmap-chart lb-load-chart lb-efficiency-chart \
               time-split pe-timeline-chart heatmap-chart load-time-chart comm-matrix-chart rank-bars-chart critical-path-chart; do
    [ "$(shapes "$TMPD/$name.dom" $chart)" -gt 0 ] || bad "$name: chart $chart is missing or empty in the loaded page"
  done
  # heatmaps: a cell per PE and iteration (8 x 60), per VP and iteration (64 x 60)
  n=$(awk 'index($0, "id=\"lb-pe-heatmap-chart\"") { on = 1 } on && /<rect/ && /<title>PE / { n++ } on && /<\/svg>/ { on = 0 } END { print n + 0 }' "$TMPD/$name.dom")
  [ "$n" -eq 480 ] || bad "$name: PE heatmap has $n cells, expected 8 x 60"
  marks=$(count "$TMPD/$name.dom" lb-load-chart lb-step)
  [ "$marks" -eq "$4" ] || bad "$name: load chart shows $marks step markers, expected $4"
  pts=$(grep -o 'data-efficiency="[^"]*"' "$TMPD/$name.dom" | sed 's/.*="//; s/"//')
  npts=$(printf '%s\n' "$pts" | grep -c .)
  [ "$npts" -eq 60 ] || bad "$name: efficiency chart has $npts points, expected 60"
  printf '%s\n' "$pts" | awk '$1 < 0 || $1 > 1 { bad = 1 } END { exit bad }' || bad "$name: efficiency point outside [0, 1]"
  grep -q 'id="timeline-canvas"[^>]*data-drawn="1"' "$TMPD/$name.dom" || bad "$name: timeline not drawn"
  # PEs over time: an arrow per VP that moved, as many as the steps' migrations
  arrows=$(grep -o 'class="migration"' "$TMPD/$name.dom" | wc -l)
  moved=$(python3 -c "import json,sys; print(sum(s['migrations'] for s in json.load(open(sys.argv[1]))['steps']))" "$json")
  [ "$arrows" -eq "$moved" ] || bad "$name: $arrows migration arrows, the steps moved $moved VPs"
  echo "ok   $name: timeline and 11 charts drawn, $marks step markers, $npts efficiency points in [0, 1]"
}
check greedy greedy 10 6
check refine refine-classic 25 2
check none none 10 0

# psim report draws the same page from the --timeline document (title aside)
"$PSIM" report "$TMPD/greedy.json" -o "$TMPD/from-json.html" || bad "psim report of an lb document failed"
sed 1,7d "$TMPD/greedy.html" > "$TMPD/a" && sed 1,7d "$TMPD/from-json.html" > "$TMPD/b"
cmp -s "$TMPD/a" "$TMPD/b" || bad "psim report of the --timeline document differs from --report"
# deterministic
"$PSIM" lb "$TMPD/o3d" --pes 8 --balancer greedy --period 10 --quiet --report "$TMPD/again.html"
cmp -s "$TMPD/greedy.html" "$TMPD/again.html" || bad "lb report differs between two runs"
# without --timeline, the lb document is unchanged
"$PSIM" lb "$TMPD/o3d" --pes 8 --balancer greedy --period 10 --quiet --json "$TMPD/plain.json"
# (its "iterations" array of dynamic efficiency is not the report's "iterations" object)
if grep -q '"iterations": {\|"timeline"\|"ranks"' "$TMPD/plain.json"; then bad "default lb JSON grew report sections"; fi
# one configuration only
if "$PSIM" lb "$TMPD/o3d" --pes 8 --balancer greedy,refine --period 10 --quiet --report "$TMPD/x.html" 2> "$TMPD/err"; then
  bad "--report with two configurations accepted"
elif ! grep -q "one balancer and one period" "$TMPD/err"; then bad "--report with two configurations: unclear message: $(cat "$TMPD/err")"; fi
finish $fails
