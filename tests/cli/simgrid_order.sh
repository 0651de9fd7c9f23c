#!/bin/sh
# SimGrid 3.32's order of same-date events, one small hand-built trace per rule (issue 8).
# Each expected value was computed by SimGrid 3.32 (../shared/tools/simgrid-oracle --actions on
# the same trace and platform) and is written here as a constant; the comments derive it.
# Rules 2 and 3 (the order of ties) are psim's with --cfg network/tie-order:simgrid; by default
# psim keeps its own order of ties (checked last).
set -u
. "$(dirname "$0")/../lib/common.sh"
X="$PSIM_SHARED/cases/simgrid/extra"
PLAT="$X/platforms/cluster_backbone.xml" HOSTS="$X/hostfiles/cluster_backbone"
fails=0

# act LOG RANK N: the end date and duration of rank RANK's N-th logged action of kind $4
act() { awk -v r="$2" -v n="$3" -v k="$4" '$2 == r && $3 == k && ++c == n { print $1, $NF }' "$1"; }

# ends_in_order WHAT NP TRACE DATE WANT: in both orders of ties, the actions that end at DATE
# are logged as WANT ("RANK ACTION, RANK ACTION, ..."), the order in which the ranks went on.
ends_in_order() {
  for cfg in network/tie-order:psim network/tie-order:simgrid; do
    log=$(tmpfile)
    if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np "$2" --actions "$log" --cfg "$cfg" "$3"; then
      bad "$1 ($cfg): psim failed"; continue
    fi
    got=$(awk -v d="$4" '$1 == d { printf "%s%s %s", sep, $2, $3; sep = ", " }' "$log")
    if [ "$got" = "$5" ]; then echo "ok   $1 ($cfg): at $4 $got"
    else bad "$1 ($cfg): at $4 psim logs '$got', SimGrid '$5'"; fi
  done
}

# 1. A test's answer is a simcall: the rank yields after its sleep, before it updates the count.
# Rank 0 tests at 0.01 (nsleeps 1, sleep 1e-4 s to 0.0101; its message comes at 1 s: fails).
# Rank 2 computes 10099999.5 flops (to 0.0100999995 s, within SimGrid's 1e-9 s of 0.0101, so
# both end at one date, the computation first: its heap entry is older and its date smaller).
# Rank 2 posts its irecv (a simcall: it yields), rank 0 asks for its test's answer (a simcall:
# it yields), rank 2 starts its test sleep with nsleeps still 1: 1e-4 s, ending at 0.0102;
# only then rank 0 sees its failure (nsleeps 2). Updating the count at once (no yield) would
# give rank 2 a 2e-4 s sleep ending at 0.0103.
T="$TMPD/test_yield.txt"
cat > "$T" <<'EOF'
0 init
1 init
2 init
3 init
0 irecv 1 0 100
0 compute 1e7
0 test 1 0 0
0 wait 1 0 0
1 compute 1e9
1 send 0 0 100
2 compute 10099999.5
2 irecv 3 0 100
2 test 3 2 0
2 wait 3 2 0
3 compute 1e9
3 send 2 0 100
0 finalize
1 finalize
2 finalize
3 finalize
EOF
log=$(tmpfile)
if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 4 --actions "$log" "$T"; then
  bad "test yield: psim failed"
else
  # SimGrid 3.32: rank 0's test ends at 0.010100 (1e-4 s), rank 2's at 0.010200 (1e-4 s)
  set -- $(act "$log" 2 1 test)
  if [ "${1:-}" = 0.010200 ] && [ "${2:-}" = 0.000100 ]; then
    echo "ok   a test yields before it counts: rank 2's test ends at $1 after $2 s"
  else
    bad "test yield: rank 2's test ends at ${1:-?} after ${2:-?} s, SimGrid 0.010200 after 0.000100"
  fi
  set -- $(act "$log" 0 1 test)
  [ "${1:-}" = 0.010100 ] || bad "test yield: rank 0's test ends at ${1:-?}, SimGrid 0.010100"
fi

# 2. Sleeps of one date end newest first. SimGrid's CPU model puts a new sleep at the FRONT of
# its modified action set (CpuCas01::sleep) and re-inserts that set into its action heap, in
# order, at the next solve; its heap (stable) pops equal dates in order of insertion.
# Ranks 0 and 2 compute 1e7 flops (0.01 s) and test at 0.01: both test sleeps take 1e-4 s
# (the process-wide count is 1) and end at 0.0101. Rank 0 ran first at 0.01 (its computation's
# heap entry is older), so rank 2's sleep is the newer: SimGrid ends it first. Rank 2's test
# fails (count 2), then rank 0's succeeds (its message came at once: count back to 1). Rank 2's
# second test sleeps 1e-4 s (to 0.0102, then count 2) and its third 2e-4 s: ends at 0.010500.
# Oldest first (psim before), rank 0 resets the count first and rank 2 leaves it at 2: its
# second test sleeps 2e-4 s, its third 3e-4 s, ending at 0.010600.
T="$TMPD/sleeps.txt"
cat > "$T" <<'EOF'
0 init
1 init
2 init
3 init
0 irecv 1 0 100
0 compute 1e7
0 test 1 0 0
0 wait 1 0 0
1 send 0 0 100
2 irecv 3 0 100
2 compute 1e7
2 test 3 2 0
2 test 3 2 0
2 test 3 2 0
2 wait 3 2 0
3 compute 1e9
3 send 2 0 100
0 finalize
1 finalize
2 finalize
3 finalize
EOF
log=$(tmpfile)
if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 4 --actions "$log" \
     --cfg network/tie-order:simgrid "$T"; then
  bad "sleeps newest first: psim failed"
else
  # SimGrid 3.32: rank 2's tests end at 0.010100, 0.010300 (2e-4 s), 0.010500 (2e-4 s)
  set -- $(act "$log" 2 3 test)
  if [ "${1:-}" = 0.010500 ] && [ "${2:-}" = 0.000200 ]; then
    echo "ok   sleeps of one date end newest first: rank 2's third test ends at $1 after $2 s"
  else
    bad "sleeps newest first: rank 2's third test ends at ${1:-?} after ${2:-?} s, SimGrid 0.010500 after 0.000200"
  fi
fi

# 3. Messages that end at one date wake their receivers in the order of SimGrid's network heap:
# after each solve every flow of the modified constraints is re-inserted, constraint by
# constraint in the order they joined the modified set, each constraint's flows newest first.
# Ranks 0, 1, 2 send 1000 bytes to 3, 4, 5 at 0 over identical routes: the three latencies end
# together, the flows switch on in the order they were sent (0, 1, 2) and end together at
# 0.001194. Flow 0's switching on brings its first link into the modified set first (flow 0
# listed), then the backbone, whose switched-on flows are listed newest first: 2, then 1. So
# the receivers wake in the order 3, 5, 4. Each then tests a message that comes at 1 s: three
# test sleeps of 1e-4 s that end together, newest first (4, 5, 3), each failure raising the
# process-wide count: the second tests sleep 2e-4 s (rank 4), 3e-4 s (rank 5), 4e-4 s (rank 3).
# Waking 3, 4, 5 (psim before) gives 4e-4 s to rank 5 and 2e-4 s to rank 3.
T="$TMPD/net.txt"
{
  for r in 0 1 2 3 4 5 6; do echo "$r init"; done
  echo "0 send 3 0 1000"; echo "1 send 4 0 1000"; echo "2 send 5 0 1000"
  for p in "3 0" "4 1" "5 2"; do
    set -- $p
    printf '%s irecv %s 0 1000\n%s irecv 6 1 100\n%s wait %s %s 0\n' "$1" "$2" "$1" "$1" "$2" "$1"
    printf '%s test 6 %s 1\n%s test 6 %s 1\n%s wait 6 %s 1\n' "$1" "$1" "$1" "$1" "$1" "$1"
  done
  echo "6 compute 1e9"; echo "6 send 3 1 100"; echo "6 send 4 1 100"; echo "6 send 5 1 100"
  for r in 0 1 2 3 4 5 6; do echo "$r finalize"; done
} > "$T"
log=$(tmpfile)
if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 7 --actions "$log" \
     --cfg network/tie-order:simgrid "$T"; then
  bad "network order: psim failed"
else
  # SimGrid 3.32: the second tests end at 0.001494 (rank 4), 0.001594 (5), 0.001694 (3)
  got="$(act "$log" 3 2 test) / $(act "$log" 4 2 test) / $(act "$log" 5 2 test)"
  want="0.001694 0.000400 / 0.001494 0.000200 / 0.001594 0.000300"
  if [ "$got" = "$want" ]; then
    echo "ok   same-date message ends wake ranks 3, 5, 4: second tests $got"
  else
    bad "network order: ranks 3 / 4 / 5 second tests end $got, SimGrid $want"
  fi
fi

# 4. A waitall is a loop of waitany (SMPI's Request::waitall), and a rank woken in a blocking
# call goes on at once. Rank 0's sendRecv waits on its 1 MB send to rank 1 and its receive from
# rank 2 at 0; rank 1 posts its receive at 0.001 and waits; rank 2's 10 bytes arrive at
# 0.003209: rank 0 is answered and waits again on the send, now behind rank 1. The send ends
# at 0.016491 and answers rank 1 first: SimGrid logs rank 1's recv, then rank 0's sendRecv.
# Registering rank 0 once for the whole waitall (psim before), or making rank 1 yield after
# its wake-up as if it posted again (psim before), logs rank 0 first. Both tie orders.
W="$TMPD/waitall.txt"
cat > "$W" <<'EOF'
0 init
1 init
2 init
0 sendRecv 1000000 1 10 2 6 6
1 compute 1e6
1 recv 0 0 1000000 6
2 compute 2e6
2 send 0 0 10 6
0 finalize
1 finalize
2 finalize
EOF
ends_in_order "a waitall waits again behind the others" 3 "$W" 0.016491 "1 recv, 0 sendRecv"

# 5. A wait that finds its request complete is still a simcall (answered at once: the rank
# gives up its turn), except for a detached send's. In SMPI's scan each rank waits for its
# requests one at a time, in order. Rank 0 computes 0.01 s, then its scan's five messages end
# together at 0.012238 and wake ranks 5, 4, 3, 2, 1 (newest first, rule 3); rank r then finds
# its r-1 other receives complete and gives up r-1 turns, so SimGrid ends the scans of ranks
# 1, 2, 3, 4, 5 in that order. Without the turns, or with one waitall, psim ended 5 first.
W="$TMPD/scan.txt"
{
  for r in 0 1 2 3 4 5; do echo "$r init"; done
  echo "0 compute 1e7"
  for r in 0 1 2 3 4 5; do echo "$r scan 10000 0"; done
  for r in 0 1 2 3 4 5; do echo "$r finalize"; done
} > "$W"
ends_in_order "waits answered at once give up a turn" 6 "$W" 0.012238 "1 scan, 2 scan, 3 scan, 4 scan, 5 scan"

# Without SimGrid's order (--cfg network/tie-order:psim, the default: the fast mode) the
# receivers wake in the order psim re-rated them, 3, 4, 5, whose test sleeps then end oldest
# first (3, 4, 5): the second tests sleep 2e-4 (rank 3), 3e-4 (4), 4e-4 s (5).
log=$(tmpfile)
if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 7 --actions "$log" "$T"; then
  bad "tie-order:psim: psim failed"
else
  got="$(act "$log" 3 2 test) / $(act "$log" 4 2 test) / $(act "$log" 5 2 test)"
  want="0.001494 0.000200 / 0.001594 0.000300 / 0.001694 0.000400"
  if [ "$got" = "$want" ]; then
    echo "ok   by default (network/tie-order:psim) psim's own order: second tests $got"
  else
    bad "tie-order:psim: ranks 3 / 4 / 5 second tests end $got, expected $want"
  fi
fi
err=$(tmpfile)
if "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 7 --cfg network/tie-order:bogus "$T" 2> "$err"; then
  bad "tie-order:bogus accepted"
elif grep -q "network/tie-order: expected simgrid or psim, got 'bogus'" "$err"; then
  echo "ok   --cfg network/tie-order:bogus is refused"
else
  bad "tie-order:bogus: unclear error: $(cat "$err")"
fi

finish $fails
