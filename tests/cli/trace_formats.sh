#!/bin/sh
# Foreign trace formats (issue 37): psim trace stats on the real sample traces of
# ../shared/cases/traces/ gives the counts of their README (computed with each format's own
# tools), psim replay accepts them, a truncated or corrupted trace is an error naming the file
# and line, and a tiny hand-made Dimemas trace replays in a time derived by hand.
set -u
. "$(dirname "$0")/../lib/common.sh"
CASES="${PSIM_CASES:-$PSIM_SRC/../shared/cases/traces}"
TINY="$PSIM_TESTDATA/traces/tiny.dim"
PLAT="$PSIM_TESTDATA/traces/tiny_1gf.xml"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
want() { # name file line-regex
  grep -Eq "$3" "$2" || { fail "$1: no line matching '$3' in:"; cat "$2"; }
}
stats() { # out trace [args]
  out=$1; shift
  "$PSIM" trace stats "$@" > "$out" 2> "$out.err" || { fail "trace stats $*: exit $?"; cat "$out.err"; }
}

# The tiny trace: task 0 computes 0.5 s, sends 1000 B (tag 7), computes 0.25 s; task 1
# computes 0.25 s, receives, computes 0.125 s. On 1 Gf hosts with 1000 B/s links and the
# constant network model (no latency): task 1 ends at 0.5 + 1000/1000 + 0.125 = 1.625 s; with
# --ref-speed 2e9 compute takes twice as long: 1.0 + 1.0 + 0.25 = 2.25 s.
o=$(tmpfile)
"$PSIM" replay --platform "$PLAT" --network constant "$TINY" > "$o" 2>&1 || fail "replay tiny: exit $?"
want tiny "$o" '^simulated time: 1\.625000 s'
"$PSIM" replay --platform "$PLAT" --network constant --ref-speed 2e9 "$TINY" > "$o" 2>&1 || fail "replay tiny --ref-speed: exit $?"
want "tiny --ref-speed" "$o" '^simulated time: 2\.250000 s'
stats "$o" --ref-speed 1 "$TINY"
want "tiny stats" "$o" '^compute flops +1.125$'
want "tiny stats" "$o" '^p2p bytes sent +1000$'

# Errors: truncated and corrupted traces name the file and the line; exit status 2.
bad=$(tmpfile)
head -n 3 "$TINY" > "$bad"; printf '2:0:0:1:0:1000\n' >> "$bad"
"$PSIM" trace stats "$bad" > "$o" 2>&1; rc=$?
[ $rc = 2 ] || fail "truncated dim: exit $rc, expected 2"
grep -q "$bad:4: Dimemas record 2: 6 fields, expected 9" "$o" || { fail "truncated dim message"; cat "$o"; }
printf 'num_ranks 2\nrank 0 {\nl1: send 8b to 5 tag 0\n}\n' > "$bad"
"$PSIM" trace stats "$bad" > "$o" 2>&1; rc=$?
[ $rc = 2 ] || fail "bad goal: exit $rc"
grep -q "$bad:3: GOAL: expected" "$o" || { fail "bad goal message"; cat "$o"; }
printf 'num_ranks 1\nrank 0 {\nl1: calc 5\n' > "$bad"
"$PSIM" trace stats "$bad" > "$o" 2>&1; rc=$?
[ $rc = 2 ] || fail "unclosed goal: exit $rc"
grep -q "not closed" "$o" || { fail "unclosed goal message"; cat "$o"; }

if [ ! -d "$CASES" ]; then echo "skip: no sample traces in $CASES"; exit $fails; fi
P="$CASES/paraver/ibflitsim_msgblast_4/mpi-blast.prv"
D="$CASES/dimemas/ibflitsim_msgblast_4/mpi-blast.dim"
G="$CASES/goal/lgs2_sphot_4/schedule.goal"

# Paraver: 200 messages of 10 B (Send 200, Recv 200), 4 tasks.
stats "$o" "$P"
want prv "$o" '^ranks +4$'
want prv "$o" '^  send +200$'
want prv "$o" '^  recv +200$'
want prv "$o" '^p2p bytes sent +2000$'
# a gzipped copy is the same trace
gz=$(tmpfile).prv.gz
gzip -c "$P" > "$gz"
stats "$o.gz" "$gz"
want prv.gz "$o.gz" '^  send +200$'

# Dimemas: 446 bursts, 200 sends and receives (2,000 B), 4 barriers; burst seconds per task
# 2.787991 + 2.786972 + 2.786492 + 2.786888 = 11.148343 (flops at 1 flop/s).
stats "$o" --ref-speed 1 "$D"
want dim "$o" '^  compute +446$'
want dim "$o" '^  send +200$'
want dim "$o" '^  recv +200$'
want dim "$o" '^  barrier +4$'
want dim "$o" '^p2p bytes sent +2000$'
want dim "$o" '^compute flops +11\.1483$'

# GOAL: 59 sends and 59 receives, 607,288 B; calc 106 summing to 11,435,352,000 ns.
stats "$o" --ref-speed 1 "$G"
want goal "$o" '^  isend +59$'
want goal "$o" '^  irecv +59$'
want goal "$o" '^  compute +106$'
want goal "$o" '^p2p bytes sent +607288$'
want goal "$o" '^compute flops +11\.4354$'
grep -q '6 ANY_SOURCE receives' "$o.err" || { fail "goal: no ANY_SOURCE warning"; cat "$o.err"; }

# Every sample replays and converts to TIT that replays the same (one reference speed).
for t in "$P" "$D" "$G"; do
  "$PSIM" replay --ref-speed 1e9 "$t" > "$o" 2>/dev/null || fail "replay $t: exit $?"
  a=$(sed -n 's/^simulated time: //p' "$o")
  dir=$(tmpfile).d
  "$PSIM" trace convert --ref-speed 1e9 "$t" -o "$dir" 2>/dev/null || fail "convert $t: exit $?"
  "$PSIM" replay "$dir" > "$o" 2>/dev/null || fail "replay converted $t: exit $?"
  b=$(sed -n 's/^simulated time: //p' "$o")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "converted $t replays in '$b', the trace in '$a'"
done
# the Paraver trace spans 2,788,714,867 ns: its replay on the default platform (speed taken
# as the traced machine's) lasts about as long
"$PSIM" replay "$P" > "$o" 2>/dev/null
want "prv time" "$o" '^simulated time: 2\.78[0-9]+ s'
exit $fails
