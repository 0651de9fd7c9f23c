#!/bin/sh
# psim run's report (issue 36, newcomer item 6): the page names the program and its arguments
# ("program: ./jacobi 128 50 1e-4"), not "traces: ./jacobi"; the timeline's legend comes
# before its rows (below them it fell off the first screen); the critical path's top
# contributors give each MPI call's file:line, the call sites psimcc's mpi.h records
# (psim_at), in the report and in --json --timeline's critical_path.top. psim critical-path's
# chain names the trace line of each step.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
[ -n "$BROWSER" ] || { echo "FAIL chromium missing (scripts/deps.sh test installs it)"; exit 1; }
PSIMCC="$(dirname "$PSIM")/psimcc"
SRC="$PSIM_SRC/examples/jacobi.c"
"$PSIMCC" -O2 -o "$TMPD/jacobi" "$SRC" -lm 2> "$TMPD/cc.err" || { bad "psimcc jacobi.c: $(head -3 "$TMPD/cc.err")"; finish $fails; }
# without measurement: the same path every time
"$PSIM" run --np 4 --no-measure --quiet --report "$TMPD/r.html" --json "$TMPD/r.json" --timeline \
  -- "$TMPD/jacobi" 128 50 1e-4 > /dev/null 2> "$TMPD/run.err" || bad "psim run failed: $(head -3 "$TMPD/run.err")"
dom "$TMPD/r.html" "$TMPD/r.dom" || bad "chromium failed to load the report"

# the program and its arguments, under the title and in the summary; no "traces" row
grep -q '<p>program: [^<]*/jacobi 128 50 1e-4</p>' "$TMPD/r.dom" || bad "the page's title line is not 'program: .../jacobi 128 50 1e-4'"
grep -q '<th>program</th><td id="program">[^<]*/jacobi 128 50 1e-4</td>' "$TMPD/r.dom" || bad "no 'program' row with the arguments"
if grep -q '<th>traces</th>' "$TMPD/r.dom"; then bad "a program's page says 'traces'"; fi
python3 - "$TMPD/r.json" <<'PY' || bad "the document's argv is not the program's command line"
import json, sys
a = json.load(open(sys.argv[1]))["argv"]
assert a[0].endswith("/jacobi") and a[1:] == ["128", "50", "1e-4"], a
PY

# the legend is the first thing of the timeline's figure, before the controls and the canvas
awk '/id="fig-timeline"/ { on = 1 } on && /class="legend"/ && !l { l = NR } on && /id="timeline-canvas"/ && !c { c = NR }
     END { exit !(l && c && l < c) }' "$TMPD/r.dom" ||
  bad "the timeline's legend is not before its canvas"
tr -d '\n' < "$TMPD/r.dom" | grep -q 'id="fig-timeline"[^>]*>[^<]*<div class="legend">' ||
  bad "the timeline's figure does not open with its legend"

# the critical path's sources: every top contributor that is an MPI call names jacobi.c and a
# line of it that makes that call; the Sendrecv exchanges (the path's transfers) are there
python3 - "$TMPD/r.json" "$SRC" <<'PY' || bad "critical_path.top's sources are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
call = {"sendRecv": "MPI_Sendrecv", "allreduce": "MPI_Allreduce", "reduce": "MPI_Reduce"}
seen = set()
for t in d["critical_path"]["top"]:
    if t["action"] in call:
        assert t["file"].endswith("/examples/jacobi.c"), t
        assert call[t["action"]] + "(" in src[t["line"] - 1], (t, src[t["line"] - 1])
        seen.add(t["line"])
    elif t["action"] == "compute":
        assert t["file"] is None and t["line"] == 0, t   # a computation has no call site
sr = {i + 1 for i, l in enumerate(src) if "MPI_Sendrecv(" in l}
assert seen & sr, (seen, sr)
print("sources:", sorted(seen))
PY
n=$(tr -d '\n' < "$TMPD/r.dom" | sed 's/.*id="cp-top"//; s/<\/table>.*//' | grep -o '<td style="text-align:left">[^<]*jacobi\.c:[0-9][0-9]*</td>' | wc -l)
[ "$n" -gt 0 ] || bad "the report's critical path has no 'jacobi.c:LINE' source"

# psim critical-path's chain gives each step's trace line (SimGrid's isend_test_wait: the path
# is rank 2's computations; the row's line of the shared trace is "2 compute 2e9")
C="$PSIM_SHARED/cases/simgrid"
T="$C/traces/actions_with_isend.txt"
"$PSIM" critical-path --platform "$C/small_platform.xml" --hostfile "$C/hostfile" --np 3 "$T" > "$TMPD/cp.txt" ||
  bad "psim critical-path failed"
row=$(grep ' compute ' "$TMPD/cp.txt" | grep " at $T:[0-9]" | head -n 1)
line=$(printf '%s\n' "$row" | sed 's/.*:\([0-9]*\).*/\1/')
[ -n "$row" ] && sed -n "${line}p" "$T" | grep -qx '2 compute 2e9' || bad "critical-path's compute row names no line of rank 2's compute: '$row'"
finish $fails
