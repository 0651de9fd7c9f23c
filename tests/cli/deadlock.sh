#!/bin/sh
# Deadlocks: psim must exit with status 3 and list EXACTLY the blocked ranks, each with its
# pending action's text, its file:line and what it waits for.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
D=$TMPD
P="--platform $SG/small_platform.xml --hostfile $SG/hostfile"
fails=0 checks=0

w() { f=$1; shift; : >"$f"; for l in "$@"; do printf '%s\n' "$l" >>"$f"; done; }
fail() { echo "FAIL $1"; sed 's/^/     | /' "$D/err" | head -n 8; fails=$((fails + 1)); }

# dead NAME NP 'RANKS' -- TRACE...: runs psim; expects status 3 and exactly RANKS (in order)
# on the report's "  rank N (host ...)" lines
dead() {
  name=$1 np=$2 want=$3; shift 4
  checks=$((checks + 1))
  # shellcheck disable=SC2086
  "$PSIM" replay --quiet $P --np "$np" --json "$D/json" "$@" >"$D/out" 2>"$D/err"
  rc=$?
  got=$(sed -n 's/^  rank \([0-9]*\) (host .*/\1/p' "$D/err" | tr '\n' ' ' | sed 's/ $//')
  if [ "$rc" -ne 3 ]; then fail "$name: exit status $rc, expected 3"
  elif grep -Eq 'Segmentation|AddressSanitizer|runtime error' "$D/out" "$D/err"; then fail "$name: crash report"
  elif [ "$got" != "$want" ]; then fail "$name: blocked ranks '$got', expected '$want'"
  elif ! grep -q "^psim: deadlock at simulated time .*: $(echo "$want" | wc -w | tr -d ' ') of $np ranks cannot finish" "$D/err"; then
    fail "$name: no (or a wrong) deadlock headline"
  else echo "ok   $name: ranks $got blocked"; fi
}
# line_has NAME RANK 'TEXT...': rank RANK's report line contains each fixed TEXT ('|'-separated)
line_has() {
  checks=$((checks + 1))
  l=$(grep "^  rank $2 (host " "$D/err")
  oldifs=$IFS; IFS='|'; miss=""
  for p in $3; do case "$l" in *"$p"*) ;; *) miss="$miss '$p'" ;; esac; done
  IFS=$oldifs
  if [ -z "$miss" ]; then echo "ok   $1: rank $2 line"; else fail "$1: rank $2's line lacks$miss"; fi
}

# 1. a receive that no one sends
w "$D/d1.txt" "0 init" "1 init" "0 compute 1e6" "1 recv 0 0 100"
dead "receive without a send" 2 "1" -- "$D/d1.txt"
line_has "receive without a send" 1 "'1 recv 0 0 100'|$D/d1.txt:4:|receive from rank 0 (tag 0) never sent"
checks=$((checks + 1))
if grep -q '"deadlock": "deadlock at' "$D/json"; then echo "ok   the JSON records the deadlock"
else fail "the JSON does not record the deadlock"; fi

# 2. a collective rank 2 never enters
w "$D/d2.txt" "0 init" "1 init" "2 init" "0 barrier" "1 barrier" "2 compute 1e6"
dead "barrier rank 2 never enters" 3 "0 1" -- "$D/d2.txt"
line_has "barrier rank 2 never enters" 0 "'0 barrier'|$D/d2.txt:4:|receive from rank 2"
line_has "barrier rank 2 never enters" 1 "'1 barrier'|$D/d2.txt:5:|rank 0"
w "$D/d2b.txt" "0 init" "1 init" "2 init" "0 allreduce 1000 10" "1 compute 5" "2 allreduce 1000 10"
dead "allreduce rank 1 never enters" 3 "0 2" -- "$D/d2b.txt"
line_has "allreduce rank 1 never enters" 0 "'0 allreduce 1000 10'|$D/d2b.txt:4:|rank 1"
line_has "allreduce rank 1 never enters" 2 "'2 allreduce 1000 10'|$D/d2b.txt:6:"

# 3. a rendez-vous send (>= 65536 B) never received blocks its sender; a detached one does not
w "$D/d3.txt" "0 init" "1 init" "0 send 1 0 1e6" "1 compute 1e6"
dead "rendez-vous send never received" 2 "0" -- "$D/d3.txt"
line_has "rendez-vous send never received" 0 "'0 send 1 0 1e6'|$D/d3.txt:3:|send to rank 1 (tag 0) not received"
w "$D/d3b.txt" "0 init" "1 init" "0 send 1 0 65535" "1 compute 1e6"
checks=$((checks + 1))
# shellcheck disable=SC2086
if "$PSIM" replay --quiet $P --np 2 "$D/d3b.txt" 2>"$D/err"; then echo "ok   a detached send never received is no deadlock"
else fail "a detached send (65535 B) never received: exit status $?, expected 0"; fi

# 4. circular blocking receives
w "$D/d4.txt" "0 init" "1 init" "2 init" "0 recv 2 0 10" "1 recv 0 0 10" "2 recv 1 0 10" "0 send 1 0 10"
dead "circular receives" 3 "0 1 2" -- "$D/d4.txt"
line_has "circular receives" 0 "'0 recv 2 0 10'|$D/d4.txt:4:|receive from rank 2 (tag 0) never sent"
line_has "circular receives" 1 "'1 recv 0 0 10'|$D/d4.txt:5:|receive from rank 0 (tag 0) never sent"
line_has "circular receives" 2 "'2 recv 1 0 10'|$D/d4.txt:6:|receive from rank 1 (tag 0) never sent"

# 5. a waitall with one unmatched irecv (the other one is matched)
w "$D/d5.txt" "0 init" "1 init" "0 irecv 1 0 10" "0 irecv 1 1 10" "0 waitall" "1 send 0 0 10"
dead "waitall on an unmatched irecv" 2 "0" -- "$D/d5.txt"
line_has "waitall on an unmatched irecv" 0 "'0 waitall'|$D/d5.txt:5:|receive from rank 1 (tag 1) never sent"

# 6. per-rank files, a request left pending at the end of rank 0's trace; rank 2 blocked in
#    a wait on its own file's line
w "$D/e0.txt" "0 init" "0 irecv 1 0 10"
w "$D/e1.txt" "1 init" "1 compute 1"
w "$D/e2.txt" "2 init" "2 irecv 0 7 10" "2 compute 5" "2 wait 0 2 7"
dead "per-rank files" 3 "0 2" -- "$D/e0.txt" "$D/e1.txt" "$D/e2.txt"
line_has "per-rank files" 0 "end of its trace|$D/e0.txt:2|receive from rank 1 (tag 0) never sent"
line_has "per-rank files" 2 "'2 wait 0 2 7'|$D/e2.txt:4:|receive from rank 0 (tag 7) never sent"

# 7. the times of a deadlocked run: the simulated time is the date the deadlock was found (the
#    last event), each blocked rank's finish is the date it blocked for good, and its
#    compute + comm + wait add up to it. Hand-derived on a flat cluster (1 Gf hosts, 1 ms /
#    100 MBps private links, --network constant: a message of S bytes takes 2 ms + S/1e8 s):
#    rank 1 computes 1e8 flops (0.1 s) then sends 10 B to rank 0 (detached: rank 1 ends at
#    0.1 s); rank 0 waits [0, 0.1] in its first receive, communicates while the message moves
#    [0.1, 0.1020001], then blocks for good in a receive no one sends (tag 1). The last event
#    is that arrival: the deadlock is found at 0.1020001 s. Rank 2 computes 5e7 flops (0.05 s)
#    then receives from rank 0: it waits from 0.05 s on and is blocked for good then.
w "$D/d7.txt" "0 init" "1 init" "2 init" "0 recv 1 0 10" "0 recv 1 1 10" "1 compute 1e8" "1 send 0 0 10" \
  "2 compute 5e7" "2 recv 0 0 10"
checks=$((checks + 1))
"$PSIM" replay --network constant --platform "$PSIM_TESTDATA/platforms/flat8_1ms.xml" --np 3 --json "$D/json" "$D/d7.txt" >"$D/out" 2>"$D/err"
rc=$?
# rank: finish compute comm wait blocked
want='0 0.1020001 0 0.0020001 0.1 true
1 0.1 0.1 0 0 -
2 0.05 0.05 0 0 true'
got=$(grep '"finish_time"' "$D/json" | grep -v '"totals"' | sed 's/[{}",:]/ /g' | awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1); b = v["blocked"] == "" ? "-" : v["blocked"]
  printf "%d %.10g %.10g %.10g %.10g %s\n", v["rank"], v["finish_time"], v["compute_time"], v["comm_time"], v["wait_time"], b; delete v }')
if [ "$rc" -ne 3 ]; then fail "deadlock times: exit status $rc, expected 3"
elif [ "$got" != "$want" ]; then fail "deadlock times: ranks (rank finish compute comm wait blocked) are
$got
expected
$want"
elif ! close_to "$(json_get "$D/json" simulated_time)" 0.1020001 1e-12; then fail "deadlock times: simulated_time $(json_get "$D/json" simulated_time), expected 0.1020001"
elif ! grep -q '^simulated time: 0.102000 s (deadlock found at that date' "$D/out"; then fail "deadlock times: the summary's simulated time: $(grep 'simulated time' "$D/out")"
elif ! grep -q '^     0\* n0  *0.102000  *0.000000  *0.002000  *0.100000 ' "$D/out"; then fail "deadlock times: the summary's rank 0 row: $(grep '^     0' "$D/out")"
elif ! grep -q '^     2\* n2  *0.050000  *0.050000 ' "$D/out"; then fail "deadlock times: the summary's rank 2 row: $(grep '^     2' "$D/out")"
else echo "ok   deadlock times: found at 0.1020001 s, ranks blocked for good at 0.1020001 and 0.05 s"; fi

# the same traces made complete run to the end (the deadlock is the trace's, not psim's)
w "$D/ok.txt" "0 init" "1 init" "2 init" "0 recv 2 0 10" "1 recv 0 0 10" "2 send 0 0 10" "2 recv 1 0 10" \
  "0 send 1 0 10" "1 send 2 0 10" "0 barrier" "1 barrier" "2 barrier"
checks=$((checks + 1))
# shellcheck disable=SC2086
if "$PSIM" replay --quiet $P --np 3 "$D/ok.txt" 2>"$D/err"; then echo "ok   a complete trace runs to the end"
else fail "a complete trace: exit status $?, expected 0"; fi

echo "$checks checks"
finish $fails
