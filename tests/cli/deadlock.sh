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

# the same traces made complete run to the end (the deadlock is the trace's, not psim's)
w "$D/ok.txt" "0 init" "1 init" "2 init" "0 recv 2 0 10" "1 recv 0 0 10" "2 send 0 0 10" "2 recv 1 0 10" \
  "0 send 1 0 10" "1 send 2 0 10" "0 barrier" "1 barrier" "2 barrier"
checks=$((checks + 1))
# shellcheck disable=SC2086
if "$PSIM" replay --quiet $P --np 3 "$D/ok.txt" 2>"$D/err"; then echo "ok   a complete trace runs to the end"
else fail "a complete trace: exit status $?, expected 0"; fi

echo "$checks checks"
finish $fails
