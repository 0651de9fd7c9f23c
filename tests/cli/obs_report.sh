#!/bin/sh
# The HTML report: written by psim replay --report and by psim report from a --timeline JSON
# document; self-contained (inline script only, no external resource); headless Chromium
# loads it, the timeline canvas is drawn and every chart is there with drawn content (svg
# with rect/line/polyline children). Checked on a SimGrid case, a 16-rank stencil (every
# action drawn) and a 256-rank stencil (64 blocks of ranks). tests/cli/report_views.sh checks
# legends, axes, the time split, sizes up to 1024 ranks, comparisons and psim run.
set -u
. "$(dirname "$0")/../lib/common.sh"
C="$PSIM_SHARED/cases/simgrid"
fails=0
[ -n "$BROWSER" ] || { echo "FAIL chromium missing (scripts/deps.sh test installs it)"; exit 1; }


check() { # name html
  name=$1 html=$2
  [ -s "$html" ] || { bad "$name: no report written"; return; }
  if grep -qi '<script src\|src="http\|href="http\|@import\|url(' "$html"; then bad "$name: report is not self-contained"; fi
  if ! dom "$html" "$TMPD/$name.dom"; then bad "$name: chromium failed to load the report"; return; fi
  # a script error would show as an uncaught exception on the console
  if grep -qi 'Uncaught\|SyntaxError' "$TMPD/$name.dom.log"; then bad "$name: errors while loading: $(grep -i 'Uncaught\|SyntaxError' "$TMPD/$name.dom.log" | head -3)"; fi
  grep -q 'id="timeline-canvas"[^>]*data-drawn="1"' "$TMPD/$name.dom" || bad "$name: timeline not drawn"
  for chart in time-split heatmap-chart load-time-chart comm-matrix-chart rank-bars-chart critical-path-chart; do
    # the chart's svg, up to its end, must hold drawn shapes
    n=$(awk -v id="id=\"$chart\"" 'index($0, id) { on = 1 } on && /<(rect|line|polyline)/ { n++ } on && /<\/svg>/ { on = 0 } END { print n + 0 }' "$TMPD/$name.dom")
    [ "$n" -gt 0 ] || bad "$name: chart $chart is missing or empty in the loaded page"
  done
  echo "ok   $name: loaded by chromium, timeline and 6 charts drawn"
}

"$PSIM" replay --quiet --platform "$C/small_platform.xml" --hostfile "$C/hostfile" --np 3 \
  "$C/traces/actions_with_isend.txt" --report "$TMPD/isend.html" || bad "isend_test_wait: psim failed"
check isend "$TMPD/isend.html"

"$PSIM" gen stencil --ranks 16 --iters 10 -o "$TMPD/st16" 2> /dev/null
"$PSIM" replay --quiet "$TMPD/st16" --json "$TMPD/st16.json" --timeline || bad "st16: psim failed"
python3 -m json.tool "$TMPD/st16.json" > /dev/null || bad "st16: --timeline JSON is invalid"
"$PSIM" report "$TMPD/st16.json" -o "$TMPD/st16.html" || bad "st16: psim report failed"
check st16 "$TMPD/st16.html"
grep -q '"acts":\["' "$TMPD/st16.html" || bad "st16: the timeline should have every action"

"$PSIM" gen stencil --ranks 256 --iters 5 -o "$TMPD/st256" 2> /dev/null
"$PSIM" replay --quiet "$TMPD/st256" --report "$TMPD/st256.html" || bad "st256: psim failed"
check st256 "$TMPD/st256.html"
grep -q 'id="timeline-canvas"[^>]*data-rows="64"' "$TMPD/st256.dom" || bad "st256: the timeline should show 64 blocks of ranks"

# the default JSON document has none of the report sections
"$PSIM" replay --quiet "$TMPD/st16" --json "$TMPD/plain.json"
if grep -q '"timeline"\|"comm_matrix"\|"critical_path"' "$TMPD/plain.json"; then bad "default JSON grew report sections"; fi
# a report of a plain document still works (its timeline sections say how to get them)
"$PSIM" report "$TMPD/plain.json" -o "$TMPD/plain.html" && grep -q 'No timeline in this document' "$TMPD/plain.html" ||
  bad "report of a plain document"
# deterministic
"$PSIM" replay --quiet "$TMPD/st16" --report "$TMPD/a.html" && "$PSIM" replay --quiet "$TMPD/st16" --report "$TMPD/b.html"
cmp -s "$TMPD/a.html" "$TMPD/b.html" || bad "report differs between two runs"
# sensitivity: psim report of its --json document (and --report) draws the tornado chart, a bar
# per variant that ran, factors sorted by the largest relative change they cause
"$PSIM" sensitivity "$TMPD/st16" -j 2 --factors 0.5,2 --json "$TMPD/sens.json" --report "$TMPD/sens-direct.html" > /dev/null ||
  bad "sensitivity failed"
"$PSIM" report "$TMPD/sens.json" -o "$TMPD/sens.html" || bad "psim report of a sensitivity document failed"
[ -s "$TMPD/sens-direct.html" ] || bad "sensitivity --report wrote nothing"
if grep -qi '<script src\|src="http\|href="http' "$TMPD/sens.html"; then bad "sensitivity report is not self-contained"; fi
if dom "$TMPD/sens.html" "$TMPD/sens.dom"; then
  if grep -qi 'Uncaught\|SyntaxError' "$TMPD/sens.dom.log"; then bad "sensitivity report: errors while loading"; fi
  python3 - "$TMPD/sens.json" "$TMPD/sens.dom" <<'PY' || bad "tornado chart does not match the document"
import json, re, sys
d = json.load(open(sys.argv[1]))
dom = open(sys.argv[2]).read()
svg = dom[dom.index('id="tornado-chart"'):]
svg = svg[:svg.index("</svg>")]
bars = re.findall(r'class="tornado-bar"[^>]*>\s*<title>([^<]*)</title>', svg)
ran = [v for v in d["variants"] if v["relative_difference"] is not None]
assert len(bars) == len(ran) == 8, (len(bars), len(ran))
# rows in order of decreasing largest |change|; a bar's title is "FACTOR xK: +R %"
label = {"speed": "host speed"}
mag = {}
for v in ran:
    f = label.get(v["factor"], v["factor"])
    mag[f] = max(mag.get(f, 0), abs(v["relative_difference"]))
order = []
for t in bars:
    f = t.split(" \u00d7")[0]
    if f not in order:
        order.append(f)
assert [mag[f] for f in order] == sorted(mag.values(), reverse=True), order
PY
  echo "ok   sensitivity: tornado chart with a bar per variant, sorted"
else bad "chromium failed to load the sensitivity report"; fi
# bad input
printf '{"ranks": [' > "$TMPD/broken.json"
if "$PSIM" report "$TMPD/broken.json" -o "$TMPD/x.html" 2> "$TMPD/err"; then bad "broken JSON accepted"
elif ! grep -q "JSON" "$TMPD/err"; then bad "broken JSON: unclear message: $(cat "$TMPD/err")"; fi
# a name that is not UTF-8 (a Latin-1 directory name) and a '<': the JSON stays valid (RFC 8259:
# UTF-8; the byte is written as the Latin-1 character, \u00e9) and the report reads it back
lat=$(printf '%s/caf\351<x>' "$TMPD")
"$PSIM" gen stencil --ranks 4 --iters 1 -o "$lat" > /dev/null 2>&1 || bad "gen into a Latin-1 directory name"
if ! "$PSIM" replay --quiet "$lat" --json "$TMPD/latin1.json" 2> "$TMPD/err"; then bad "replay of $lat: $(cat "$TMPD/err")"
elif ! python3 -m json.tool "$TMPD/latin1.json" > "$TMPD/latin1.txt" 2> "$TMPD/err"; then bad "Latin-1 name: invalid JSON: $(cat "$TMPD/err")"
elif ! grep -qF 'caf\u00e9<x>' "$TMPD/latin1.txt"; then bad "Latin-1 name: not written as \\u00e9: $(grep -m1 caf "$TMPD/latin1.txt")"
elif ! "$PSIM" report "$TMPD/latin1.json" -o "$TMPD/latin1.html" 2> "$TMPD/err"; then bad "report of a Latin-1 name: $(cat "$TMPD/err")"
else echo "ok   a name that is not UTF-8: valid JSON, read back by the report"; fi
finish $fails
