#!/bin/sh
# psim calibrate --kernels: with a CBLAS, a quick calibration writes a model file that psim
# forecast reads, with each fit's error in comments and on stderr, and an HTML page of measured
# against fitted times (inline SVG); without one, it says so and exits 2. The file round-trips:
# an edited copy changes the forecast as the edit says.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
"$PSIM" calibrate --kernels --quick -o "$TMPD/k.txt" --report "$TMPD/k.html" 2>"$TMPD/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "built without BLAS" "$TMPD/err"; then
  echo "ok   built without BLAS: $(head -n 1 "$TMPD/err")"
  finish "$fails"
fi
[ $rc -eq 0 ] || { bad "calibrate --kernels exited $rc: $(cat "$TMPD/err")"; finish "$fails"; }
# The BLAS is loaded by calibrate --kernels only (dlopen), never linked: a linked OpenBLAS
# starts its thread pool in every psim process, whose idle threads cost CPU at each start.
if command -v readelf >/dev/null; then
  readelf -d "$PSIM" | grep NEEDED | grep -qi blas && bad "psim links a BLAS: $(readelf -d "$PSIM" | grep -i blas)"
fi
for k in dgemm dtrsm add; do
  grep -q "^# $k: [0-9]* points, fit rms relative error" "$TMPD/k.txt" || bad "no fit error comment for $k"
  grep -q "^$k .*rms error" "$TMPD/err" || bad "no fit error on stderr for $k"
  [ "$(grep -c "^$k " "$TMPD/k.txt")" -ge 2 ] || bad "$k: fewer than 2 terms"
done
[ "$(grep -c '<svg' "$TMPD/k.html")" -eq 3 ] || bad "report: expected 3 scatter plots"
G="--m 512 --n 512 --k 512 --nb 64 --latency 50us --bandwidth 1e8 --grid 2x2"
"$PSIM" forecast pdgemm $G --kernels "$TMPD/k.txt" --json "$TMPD/a.json" >/dev/null || bad "forecast with the calibrated file"
# double the m*n*k coefficient c of dgemm: the compute part grows by exactly
# ceil(512/64) = 8 steps x c x (256 x 256 x 64), the block product of a 2x2 grid
awk '$1 == "dgemm" && $2 == "m*n*k" { printf "dgemm m*n*k %.17g\n", 2 * $3; next } { print }' "$TMPD/k.txt" >"$TMPD/k2.txt"
"$PSIM" forecast pdgemm $G --kernels "$TMPD/k2.txt" --json "$TMPD/b.json" >/dev/null || bad "forecast with the edited file"
c=$(awk '$1 == "dgemm" && $2 == "m*n*k" { printf "%.17g", $3 }' "$TMPD/k.txt")
python3 - "$TMPD/a.json" "$TMPD/b.json" "$c" <<'PY' || bad "the edited model does not change the forecast as expected"
import json, sys
a = json.load(open(sys.argv[1]))["grids"][0]; b = json.load(open(sys.argv[2]))["grids"][0]
want = 8 * float(sys.argv[3]) * 256 * 256 * 64
assert a["compute"] > 0 and abs(b["compute"] - a["compute"] - want) <= 1e-9 * want, (a, b, want)
assert a["communication"] == b["communication"]
PY
# --at-once 2: every point is timed while a second process runs the same kernel; the file
# says so, and no process is left behind
"$PSIM" calibrate --kernels --quick --reps 1 --at-once 2 -o "$TMPD/k_two.txt" 2>"$TMPD/err2" ||
  bad "calibrate --at-once 2 failed: $(cat "$TMPD/err2")"
grep -q "^# Measured 2 at once: 1 other processes ran the same kernel at each point" "$TMPD/k_two.txt" ||
  bad "--at-once 2: the file does not say how it was measured"
[ "$(grep -c '^dgemm ' "$TMPD/k_two.txt" 2>/dev/null)" -ge 2 ] 2>/dev/null || bad "--at-once 2: no dgemm model"
left=$(ps -eo args | grep -c "[k]_two.txt")
[ "$left" -eq 0 ] || bad "--at-once 2: $left process(es) left running"
grep -q "at once" "$TMPD/k.txt" && bad "one process: the file says 'at once'"
finish "$fails"
