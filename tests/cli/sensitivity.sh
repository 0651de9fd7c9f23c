#!/bin/sh
# psim sensitivity, against hand-derived times:
#  - the 3-rank chain of critical_path.sh (constant network: a message costs 1 ms + S / 1e8 s,
#    computations 4 s on the critical path, transfers of 1e8 B then 1e7 B):
#      base 5.102; latency x2: 5.104; bandwidth x2: 4 + 0.501 + 0.051 = 4.552;
#      host speed x2: 2 + 1.102 = 3.102; compute x2 = host speed x0.5: 8 + 1.102 = 9.102
#  - SimGrid's isend_test_wait: its critical path is rank 2 computing (39.320541 s) plus a
#    0.0002 s test sleep, so latency and bandwidth change nothing and host speed x2 gives
#    39.320541 / 2 + 0.0002 s.
#  - the output is the same with -j 1 and -j 4.
set -u
. "$(dirname "$0")/../lib/common.sh"
C="$PSIM_SHARED/cases/simgrid"
fails=0
# var FILE FACTOR K: simulated_time of that variant in the --json document
var() { grep "\"factor\": \"$2\", \"k\": $3," "$1" | sed 's/.*"simulated_time": \([^,]*\),.*/\1/'; }
expect() { if close_to "$2" "$3" 1e-6; then echo "ok   $1: $2"; else bad "$1: got '$2', hand-derived $3"; fi; }

# the 3-host chain of tests/data/chain (hand derivation above)
P=$PSIM_TESTDATA/chain/chain3.xml
T=$PSIM_TESTDATA/chain/chain3.txt
J=$TMPD/s.json
if "$PSIM" sensitivity --network constant --platform "$P" --np 3 "$T" --factors 2 --json "$J" -j 2 > "$TMPD/out"; then
  expect "chain base" "$(json_get "$J" base)" 5.102
  expect "chain latency x2" "$(var "$J" latency 2)" 5.104
  expect "chain bandwidth x2" "$(var "$J" bandwidth 2)" 4.552
  expect "chain speed x2" "$(var "$J" speed 2)" 3.102
  expect "chain compute x2" "$(var "$J" compute 2)" 9.102
  grep -q '"factor": "overheads"' "$J" && bad "chain: overheads are zero, the variant should be skipped"
else bad "chain: psim failed"; fi

S="--platform $C/small_platform.xml --hostfile $C/hostfile --np 3 $C/traces/actions_with_isend.txt"
# shellcheck disable=SC2086
if "$PSIM" sensitivity $S --json "$J" -j 3 > "$TMPD/out"; then
  expect "isend latency x0.5" "$(var "$J" latency 0.5)" 39.320741
  expect "isend bandwidth x2" "$(var "$J" bandwidth 2)" 39.320741
  expect "isend speed x2" "$(var "$J" speed 2)" "$(awk 'BEGIN { printf "%.6f", 39.320541 / 2 + 0.0002 }')"
else bad "isend: psim failed"; fi

# the human table, and -j does not change anything
"$PSIM" gen stencil --ranks 16 --iters 5 -o "$TMPD/st" 2> /dev/null
"$PSIM" sensitivity "$TMPD/st" -j 1 > "$TMPD/j1" || bad "stencil -j 1 failed"
"$PSIM" sensitivity "$TMPD/st" -j 4 > "$TMPD/j4" || bad "stencil -j 4 failed"
cmp -s "$TMPD/j1" "$TMPD/j4" || bad "-j 1 and -j 4 differ"
grep -q '^bandwidth x0.5 .*%$' "$TMPD/j1" || bad "table lacks the bandwidth x0.5 row: $(cat "$TMPD/j1")"
[ "$(grep -c 'x0.5\|x2' "$TMPD/j1")" -ge 8 ] || bad "table has too few variants"
echo "ok   stencil table, same with -j 1 and -j 4"
# a program's sensitivity writes --json and --report as a trace's does, the page titled by the
# program (before: a null trace name was read for the page's title, a crash with --report, and
# with --json alone once the output stage was shared, 76125dd; UBSan found it)
"$(dirname "$PSIM")/psimcc" -O2 -o "$TMPD/ring" "$PSIM_SRC/examples/ring.c" || bad "psimcc ring.c"
for o in "--json $TMPD/p.json" "--report $TMPD/p.html" "--json $TMPD/q.json --report $TMPD/q.html"; do
  # shellcheck disable=SC2086
  "$PSIM" sensitivity --np 4 --no-measure --vary latency:2 -j 2 $o -- "$TMPD/ring" 10 > /dev/null 2> "$TMPD/p.err" ||
    bad "sensitivity $o -- ring: exit $?: $(head -c 300 "$TMPD/p.err")"
done
for j in p q; do
  [ "$(json_get "$TMPD/$j.json" np)" = 4 ] || bad "sensitivity -- ring: $j.json has no np 4"
done
cmp -s "$TMPD/p.json" "$TMPD/q.json" || bad "sensitivity -- ring: --json differs with --report"
for h in p q; do
  grep -q "<title>[^<]*ring" "$TMPD/$h.html" || bad "sensitivity -- ring: $h.html is not titled by the program"
done
# bad input
"$PSIM" sensitivity "$TMPD/st" --factors 0,x 2> /dev/null && bad "--factors 0,x accepted"
"$PSIM" sensitivity "$TMPD/st" --vary nonsense 2> /dev/null && bad "--vary nonsense accepted"
finish $fails
