#!/bin/sh
# Output that cannot be written is never lost silently: a full device (/dev/full) or a missing
# directory for --json, --actions, --trace, --loads, --report, -o and a full standard output
# makes psim exit non-zero and name the file ("psim: cannot write /dev/full: No space left on
# device"). Unwritable paths are found before the run.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0 checks=0
T="$SG/traces/actions_bcast.txt"
LBT=$TMPD/lb.txt
printf '0 init\n0 compute 1e6\n0 migrate\n1 init\n1 compute 3e6\n1 migrate\n' >"$LBT"
ln -s /dev/full "$TMPD/full.paje"
ln -s /dev/full "$TMPD/full.json"
printf 'pe 0 bg 0\nvp 0 load 1 pe 0\n' >"$TMPD/sit.txt"
NOWHERE=$TMPD/no/such/dir/out

# fails_writing NAME-IN-MESSAGE REASON ARGS...: psim ARGS (stdout to /dev/null) must exit
# non-zero with one "cannot write"/"error while writing" message naming the file and REASON
fails_writing() {
  name=$1 reason=$2; shift 2
  checks=$((checks + 1))
  timeout 120 "$PSIM" "$@" >/dev/null 2>"$TMPD/err"
  check_failure $? "$*"
}
# full_stdout ARGS...: psim ARGS > /dev/full
full_stdout() {
  name="standard output (/dev/full)" reason="No space left on device"
  checks=$((checks + 1))
  timeout 120 "$PSIM" "$@" >/dev/full 2>"$TMPD/err"
  check_failure $? "$* > /dev/full"
}
check_failure() {
  rc=$1 why=""
  [ "$rc" -ne 0 ] || why="exit status 0"
  [ "$rc" -lt 128 ] || why="killed by a signal ($rc)"
  grep -Eq "psim: (cannot write |.*error while writing)" "$TMPD/err" || why="$why; no write error reported"
  grep -qF -- "$name" "$TMPD/err" || why="$why; message does not name '$name'"
  grep -qF -- "$reason" "$TMPD/err" || why="$why; message does not say '$reason'"
  n=$(grep -c "cannot write\|error while writing" "$TMPD/err")
  [ "$n" -le 1 ] || why="$why; reported $n times"
  if [ -z "$why" ]; then echo "ok   psim $2: $(grep -m1 'write' "$TMPD/err")"
  else echo "FAIL psim $2: ${why#; }"; sed 's/^/     | /' "$TMPD/err" | head -n 5; fails=$((fails + 1)); fi
}
FULL="No space left on device"
MISSING="No such file or directory"

# replay
fails_writing /dev/full "$FULL" replay -q "$T" --json /dev/full
fails_writing /dev/full "$FULL" replay -q "$T" --actions /dev/full
fails_writing /dev/full "$FULL" replay -q "$T" --report /dev/full
fails_writing /dev/full "$FULL" replay -q "$T" --json /dev/full --timeline
fails_writing full.paje "disk full" replay -q "$T" --trace "$TMPD/full.paje"
fails_writing full.json "disk full" replay -q "$T" --trace "$TMPD/full.json"
fails_writing "$NOWHERE.json" "$MISSING" replay -q "$T" --json "$NOWHERE.json"
fails_writing "$NOWHERE.html" "$MISSING" replay -q "$T" --report "$NOWHERE.html"
fails_writing "$NOWHERE.txt" "$MISSING" replay -q "$T" --actions "$NOWHERE.txt"
full_stdout replay "$T"
full_stdout replay -q "$T" --json -
full_stdout replay -q "$T" --actions -
full_stdout demo
# lb
L="lb $LBT --pes 2 --balancer greedy --period 1 -q"
# shellcheck disable=SC2086
fails_writing /dev/full "$FULL" $L --json /dev/full
# shellcheck disable=SC2086
fails_writing /dev/full "$FULL" $L --loads /dev/full
# shellcheck disable=SC2086
fails_writing /dev/full "$FULL" $L --report /dev/full
# shellcheck disable=SC2086
fails_writing "$NOWHERE.csv" "$MISSING" $L --loads "$NOWHERE.csv"
full_stdout lb "$LBT" --pes 2 --balancer greedy,none --period 1
# critical-path, sensitivity, report
fails_writing /dev/full "$FULL" critical-path -q "$T" --json /dev/full
full_stdout critical-path "$T"
fails_writing /dev/full "$FULL" sensitivity "$T" -j 1 --vary latency --json /dev/full
fails_writing /dev/full "$FULL" sensitivity "$T" -j 1 --vary latency --report /dev/full
fails_writing "$NOWHERE.json" "$MISSING" sensitivity "$T" --json "$NOWHERE.json"
full_stdout sensitivity "$T" -j 1 --vary latency
"$PSIM" replay -q "$T" --json "$TMPD/r.json" --timeline || { echo "FAIL replay --json"; fails=$((fails + 1)); }
fails_writing /dev/full "$FULL" report "$TMPD/r.json" -o /dev/full
full_stdout report "$TMPD/r.json" -o -
# trace tools, gen, platform, balance, calibrate
"$PSIM" gen stencil2d --grid 2x2 --domain 8x8 --iters 3 -o "$TMPD/s2" 2>/dev/null || { echo "FAIL gen"; fails=$((fails + 1)); }
fails_writing /dev/full "$FULL" trace aggregate --from 2x2 --to 1x1 "$TMPD/s2" -o /dev/full
full_stdout trace aggregate --from 2x2 --to 1x1 "$TMPD/s2"
full_stdout trace stats "$T"
full_stdout platform --default
full_stdout platform "$SG/small_platform.xml"
full_stdout balance "$TMPD/sit.txt" --balancer greedy
full_stdout calibrate --seconds 0.01
full_stdout replay --list-algorithms
full_stdout --help
# run: --json, --actions and the program's own output
if "$PSIMCC" -O2 -o "$TMPD/ring" "$PSIM_SRC/examples/ring.c" 2>"$TMPD/cc.err"; then
  R="run --np 2 --no-measure -q"
  # shellcheck disable=SC2086
  fails_writing /dev/full "$FULL" $R --json /dev/full -- "$TMPD/ring" 2
  # shellcheck disable=SC2086
  fails_writing /dev/full "$FULL" $R --actions /dev/full -- "$TMPD/ring" 2
  # shellcheck disable=SC2086
  fails_writing "$NOWHERE.json" "$MISSING" $R --json "$NOWHERE.json" -- "$TMPD/ring" 2
  # shellcheck disable=SC2086
  fails_writing "$NOWHERE" "$MISSING" $R --trace-tit "$NOWHERE" -- "$TMPD/ring" 2
  full_stdout run --np 2 --no-measure -- "$TMPD/ring" 2
else
  echo "FAIL psimcc ring.c:"; cat "$TMPD/cc.err"; fails=$((fails + 1))
fi

# and a writable output still works
"$PSIM" replay -q "$T" --json "$TMPD/ok.json" && grep -q '"simulated_time"' "$TMPD/ok.json" ||
  { echo "FAIL replay --json to a writable file"; fails=$((fails + 1)); }
echo "$checks checks"
finish $fails
