#!/bin/sh
# The report at 4, 64, 1024 and 16,384 ranks, the model sections, the comparison page and psim
# run's report, loaded in headless Chromium (16,384 ranks x 2 iterations on the constant network
# here, to keep the suite quick; bench/report_bench.sh measures 16,384 x 100):
#   - no script error on the console; the timeline canvas is drawn, with one row per rank up to
#     64, else 64 blocks of ranks, and a link to #expand=0 opens the first block (16 more rows);
#   - every chart (every svg.chart, the timeline's figure) has a legend and labelled axes;
#   - the time split the summary shows is the document's (sums of the ranks' parts, idle =
#     ranks x makespan - the rest);
#   - hand-derived widths of the CPU bars of a hand-made document with the model sections;
#   - the comparison of two documents, and of psim lb's list of runs.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
[ -n "$BROWSER" ] || { echo "FAIL chromium missing (scripts/deps.sh test installs it)"; exit 1; }

# check_dom NAME HTML.DOM [JSON]: legends and axes everywhere, no script error, and (with a
# run document) the summary's split equals the document's
check_dom() {
  if grep -qi 'Uncaught\|SyntaxError\|TypeError\|ReferenceError' "$2.log"; then
    bad "$1: script errors: $(grep -i 'Uncaught\|Error' "$2.log" | head -3)"; fi
  python3 - "$2" "${3:-}" <<'PY' || bad "$1: legend, axes or time split wrong"
import json, re, sys
dom = open(sys.argv[1]).read()
charts = 0
for m in re.finditer(r'<svg[^>]*class="chart"[^>]*>', dom):
    cid = re.search(r'id="([^"]*)"', m.group(0)).group(1)
    body = dom[m.start():dom.index('</svg>', m.start())]
    assert 'class="legend' in body, cid + ": no legend"
    assert 'class="axis-label"' in body, cid + ": no axis label"
    charts += 1
for m in re.finditer(r'<figure class="chart" id="([^"]*)"', dom):
    body = dom[m.start():dom.index('</figure>', m.start())]
    assert 'class="legend"' in body, m.group(1) + ": no legend"
    assert 'class="axis-label x"' in body and 'class="axis-label y"' in body, m.group(1) + ": axes"
    charts += 1
assert charts > 0
if sys.argv[2]:
    d = json.load(open(sys.argv[2]))
    T = d["simulated_time"]
    want = {k: sum(r.get(k, 0) for r in d["ranks"]) for k in ("compute_time", "comm_time", "wait_time")}
    want["idle_time"] = T * len(d["ranks"]) - sum(want.values())
    split = dom[dom.index('id="time-split"'):]
    split = split[:split.index('</svg>')]
    got = {m.group(1): float(m.group(2)) for m in re.finditer(r'data-part="([a-z_]*)" data-seconds="([^"]*)"', split)}
    for k, v in want.items():
        assert abs(got[k] - v) <= 1e-8 * max(1, abs(v)), (k, got[k], v)
print(charts)
PY
}

# report NAME RANKS ITERS ROWS [REPLAY OPTIONS]: a stencil's report, its DOM, then the checks
report() {
  name=$1
  "$PSIM" gen stencil --ranks "$2" --iters "$3" -o "$TMPD/$name" 2> /dev/null
  # shellcheck disable=SC2086
  "$PSIM" replay --quiet ${5:-} "$TMPD/$name" --json "$TMPD/$name.json" --timeline || { bad "$name: psim failed"; return; }
  "$PSIM" report "$TMPD/$name.json" -o "$TMPD/$name.html" || { bad "$name: psim report failed"; return; }
  if grep -qi '<script src\|src="http\|href="http\|@import\|url(' "$TMPD/$name.html"; then bad "$name: not self-contained"; fi
  dom "$TMPD/$name.html" "$TMPD/$name.dom" || { bad "$name: chromium failed"; return; }
  rows=$(grep -o 'id="timeline-canvas"[^>]*' "$TMPD/$name.dom" | grep -o 'data-rows="[0-9]*"' | grep -o '[0-9]*')
  grep -q 'id="timeline-canvas"[^>]*data-drawn="1"' "$TMPD/$name.dom" || bad "$name: timeline not drawn"
  [ "${rows:-0}" -eq "$4" ] || bad "$name: timeline has ${rows:-no} rows, expected $4"
  n=$(check_dom "$name" "$TMPD/$name.dom" "$TMPD/$name.json")
  echo "ok   $name: $2 ranks, timeline of $rows rows, ${n:-0} charts with legends and axes, time split = JSON's"
}
report r4 4 10 4
report r64 64 20 64
report r1024 1024 20 64
report r16384 16384 2 64 "--network constant"
# 1024 ranks x 20 iterations: too many actions to keep (> 200000); the state bins remain
grep -q '"acts":null' "$TMPD/r1024.html" || bad "r1024: the actions should have been left out"
grep -q '"acts":\["' "$TMPD/r64.html" || bad "r64: every action should be in the report"
# a link opens the first block of 16 ranks expanded: 64 - 1 + 16 rows
cp "$TMPD/r1024.html" "$TMPD/x.html"
prof=$(mktemp -d "$TMPD/chrome.XXXXXX")
timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
  --dump-dom "file://$TMPD/x.html#expand=0" > "$TMPD/x.dom" 2> /dev/null
grep -q 'id="timeline-canvas"[^>]*data-rows="79"' "$TMPD/x.dom" || bad "r1024: #expand=0 should give 79 rows"
# the critical path's top contributors name the trace file and line of each action
python3 - "$TMPD/r64.json" <<'PY' || bad "r64: top contributors of the critical path"
import json, sys
d = json.load(open(sys.argv[1]))
top = d["critical_path"]["top"]
assert 0 < len(top) <= 20
assert all(a["time"] >= b["time"] for a, b in zip(top, top[1:])), "sorted by time"
comp = [t for t in top if t["part"] == "compute"]
assert comp and all(t["file"].endswith("rank-%d.txt" % t["rank"]) and t["line"] > 0 for t in comp), comp[:2]
assert sum(t["time"] for t in top) <= d["critical_path"]["length"] * (1 + 1e-9)
PY

# model sections of a hand-made document (issue 10's schema)
M="$PSIM_TESTDATA/report/model.json"
"$PSIM" report "$M" -o "$TMPD/model.html" || bad "model: psim report failed"
dom "$TMPD/model.html" "$TMPD/model.dom" || bad "model: chromium failed"
check_dom model "$TMPD/model.dom" "$M" > /dev/null
python3 - "$TMPD/model.dom" <<'PY' || bad "model: sections drawn wrong"
import re, sys
dom = open(sys.argv[1]).read()
def svg(i):
    s = dom[dom.index('id="%s"' % i):]
    return s[:s.index('</svg>')]
# CPU bars: plot width 960 - 110 - 40 = 810 for the busiest host (a: 6 + 2 + 4 = 12 CPU-s):
# a: app 810 x 6/12 = 405, comm 135, background 270; b: app 810 x 4/12 = 270, comm 67.5, bg 0
w = [float(x) for x in re.findall(r'class="cpu-\d" x="[^"]*" y="[^"]*" width="([^"]*)"', svg("host-cpu-chart"))]
assert w == [405, 135, 270, 270, 67.5, 0], w
# load average: 3 curves (1, 5, 15 min) for host a, the last 1-min sample (2 = the top) at y 0
la = re.findall(r'class="loadavg-curve"[^>]*points="([^"]*)"', svg("loadavg-chart"))
assert len(la) == 3 and la[0].split()[-1] == "920.0,0.0", la
# dynamic efficiency: 2 iterations, a host event at t = 5 s (x = 110 + 810 / 2)
de = svg("dyn-efficiency-chart")
assert re.search(r'class="host-event" x1="515.0"', de), "host event marker"
assert "remove" in dom[dom.index('id="host-events"'):] and ">1000<" in dom, "host events table"
assert "two.clue" in dom and "star" in dom, "machine file and network model"
PY
echo "ok   model: CPU bars, load averages, efficiency per iteration, host events"

# comparison: two documents (the 64-rank stencil on the smpi and constant network models)
"$PSIM" replay --quiet "$TMPD/r64" --network constant --json "$TMPD/c64.json" --timeline || bad "c64: psim failed"
"$PSIM" report "$TMPD/r64.json" "$TMPD/c64.json" -o "$TMPD/cmp.html" || bad "compare: psim report failed"
dom "$TMPD/cmp.html" "$TMPD/cmp.dom" || bad "compare: chromium failed"
check_dom compare "$TMPD/cmp.dom" > /dev/null
python3 - "$TMPD/cmp.dom" "$TMPD/r64.json" "$TMPD/c64.json" <<'PY' || bad "compare: page wrong"
import json, re, sys
dom = open(sys.argv[1]).read()
docs = [json.load(open(p)) for p in sys.argv[2:]]
tab = dom[dom.index('id="cmp-runs"'):]
tab = tab[:tab.index('</table>')]
rows = re.findall(r'<tr><td[^>]*>[^<]*</td><td>([^<]*)</td>', tab)
assert [float(x) for x in rows] == [float("%.9g" % d["simulated_time"]) for d in docs], rows
bars = re.findall(r'class="bar" data-value="([^"]*)"', dom[dom.index('id="cmp-makespan"'):])[:2]
assert [float(b) for b in bars] == [float("%.9g" % d["simulated_time"]) for d in docs], bars
assert len(re.findall(r'class="load-curve"', dom)) == 2, "one load curve per run"
assert 'id="cmp-diff"' in dom
PY
echo "ok   compare: two documents side by side"
# psim lb's list of runs (several balancers): no longer "not a psim result"
"$PSIM" gen stencil2d --grid 4x4 --domain 32x32 --iters 20 -o "$TMPD/o3d" > /dev/null 2>&1
"$PSIM" lb "$TMPD/o3d" --pes 4 --balancer greedy,none --period 5 --quiet --json "$TMPD/lbl.json" > /dev/null || bad "lb list failed"
"$PSIM" report "$TMPD/lbl.json" -o "$TMPD/lbl.html" || bad "psim report of lb's list failed"
grep -q 'greedy, period 5' "$TMPD/lbl.html" && grep -q 'none, period 5' "$TMPD/lbl.html" || bad "lb list: runs not labelled"
dom "$TMPD/lbl.html" "$TMPD/lbl.dom" && check_dom lblist "$TMPD/lbl.dom" > /dev/null
# each run's average load (its dynamic efficiency per iteration), overlaid: one curve per run
[ "$(grep -o 'class="load-curve"' "$TMPD/lbl.dom" | wc -l)" -eq 2 ] || bad "lb list: expected 2 load curves"
echo "ok   compare: psim lb's list of runs, with their load curves"
# a sweep's document: a run per combination, labelled by its parameters
"$PSIM" sweep --quiet --vary hosts=2,4 --json "$TMPD/sw.json" -- replay --platform 'flat:{hosts}' --np 4 "$TMPD/r4" ||
  bad "sweep failed"
"$PSIM" report "$TMPD/sw.json" -o "$TMPD/sw.html" || bad "psim report of a sweep failed"
[ "$(grep -c '<td style="text-align:left">hosts=[24]</td>' "$TMPD/sw.html")" -eq 2 ] || bad "sweep: runs not labelled by parameters"
echo "ok   compare: a sweep's runs"

# psim run: the same observation options as replay
PSIMCC="$(dirname "$PSIM")/psimcc"
if "$PSIMCC" -O2 -o "$TMPD/ring" "$PSIM_SRC/examples/ring.c" 2> "$TMPD/cc.err"; then
  "$PSIM" run --np 8 --no-measure --quiet --json "$TMPD/ring.json" --timeline --report "$TMPD/ring.html" \
    --trace "$TMPD/ring.paje" --trace "$TMPD/ringc.json" -- "$TMPD/ring" 50 > /dev/null || bad "psim run with observers failed"
  python3 -m json.tool "$TMPD/ringc.json" > /dev/null || bad "run: Chrome trace is not JSON"
  grep -q '^6 0 r7 RANK' "$TMPD/ring.paje" || bad "run: Paje trace has no rank 7"
  python3 - "$TMPD/ring.json" <<'PY' || bad "run: --timeline document wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["timeline"]["actions"]) == 8
assert abs(d["critical_path"]["length"] - d["simulated_time"]) < 1e-12
PY
  dom "$TMPD/ring.html" "$TMPD/ring.dom" && check_dom run "$TMPD/ring.dom" "$TMPD/ring.json" > /dev/null
  # --progress: a line on stderr even for a short run (the first clock reading comes at once)
  "$PSIM" run --np 4 --no-measure --quiet --progress -- "$TMPD/ring" 10 > /dev/null 2> "$TMPD/prog.err"
  grep -q 'simulated .* actions' "$TMPD/prog.err" || bad "run --progress printed nothing"
  echo "ok   run: --report, --trace (Paje, Chrome), --json --timeline, --progress"
else bad "psimcc failed: $(head -3 "$TMPD/cc.err")"; fi

# bad input: a document that is neither a run nor a list of runs
printf '{"hello": 1}\n' > "$TMPD/other.json"
if "$PSIM" report "$TMPD/r4.json" "$TMPD/other.json" -o "$TMPD/y.html" 2> "$TMPD/err"; then bad "a foreign document was accepted"
elif ! grep -q 'other.json.*not a psim result' "$TMPD/err"; then bad "foreign document: unclear message: $(cat "$TMPD/err")"; fi
finish $fails
