#!/bin/sh
# One-sided communication under psim run (issue 9):
# - MPI_Win_lock_all(MPI_MODE_NOCHECK) takes no lock (tests/data/emul/rma_nocheck.c, 2-5
#   ranks): the other ranks' exclusive locks on rank 0 are granted while it waits in such an
#   epoch for their accumulates, as under MPICH (OpenCoarrays' events); before, a hang;
# - the data: tests/data/emul/rma.c checks fence (Put, Get, Accumulate), exclusive locks
#   (a counter incremented under the lock by every rank), Win_allocate + lock_all +
#   Fetch_and_op + Compare_and_swap, PSCW with a vector target type, Get_accumulate(NO_OP),
#   Accumulate(REPLACE), the window attributes and group, on 1 to 7 ranks;
# - the time: tests/data/emul/rma_time.c, hand-derived (docs/EMULATION.md, "One-sided
#   communication"; with smpi/wtime:0, so that the reads of MPI_Wtime cost nothing): on flat:2,1Gf,1GBps,10us with --network constant a transfer of S bytes
#   takes the route's two latencies plus S / bandwidth: t(S) = 2 x 10us + S / 1e9 B/s, so
#     lock (request + grant, 0 bytes each)            = 2 t(0)          = 40 us
#     put returns at once; unlock = put's t(S) + release t(0) = 20 + 1000 + 20 = 1040 us
#     get + flush = request t(0) + reply t(S)          = 1040 us;  unlock (release) = 20 us
#   and under the SMPI model the same structure: lock = 2 x unlock2, get+flush = unlock;
# - the mistakes: an operation outside an epoch, past the end of the window, an unlock
#   without a lock stop the run (exit 4) with the MPI error class.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/rma" "$PSIM_TESTDATA/emul/rma.c" || { echo "FAIL: psimcc rma.c"; exit 1; }
for np in 1 2 3 4 7; do
  out=$(timeout 60 "$PSIM" run --np "$np" -q -- "$TMPD/rma" 2>&1)
  [ "$out" = " No Errors" ] || bad "rma.c at np $np: $out"
done
# deterministic: two runs print the same summary
a=$("$PSIM" run --np 4 --no-measure -- "$TMPD/rma" 2>&1 | grep -v wall)
b=$("$PSIM" run --np 4 --no-measure -- "$TMPD/rma" 2>&1 | grep -v wall)
[ "$a" = "$b" ] || bad "two runs differ"

"$PSIMCC" -O1 -o "$TMPD/rmat" "$PSIM_TESTDATA/emul/rma_time.c" || { echo "FAIL: psimcc rma_time.c"; exit 1; }
"$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --network constant --platform flat:2,1Gf,1GBps,10us -- "$TMPD/rmat" 1000000 > "$TMPD/c" || bad "constant run: rc $?"
v() { sed -n "s/^$1 //p" "$2"; }
L=1e-5 B=1e9 S=1000000
t0=$(awk -v L=$L 'BEGIN { printf "%.17g", 2 * L }')
tS=$(awk -v L=$L -v B=$B -v S=$S 'BEGIN { printf "%.17g", 2 * L + S / B }')
expect() { if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"; else bad "$1: psim $2, hand-derived $3"; fi; }
expect "lock" "$(v lock "$TMPD/c")" "$(awk -v a="$t0" 'BEGIN { printf "%.17g", 2 * a }')"
expect "put (returns at once)" "$(v put "$TMPD/c")" 0
expect "unlock after a put" "$(v unlock "$TMPD/c")" "$(awk -v a="$t0" -v b="$tS" 'BEGIN { printf "%.17g", a + b }')"
expect "get + flush" "$(v get+flush "$TMPD/c")" "$(awk -v a="$t0" -v b="$tS" 'BEGIN { printf "%.17g", a + b }')"
expect "unlock after a flush" "$(v unlock2 "$TMPD/c")" "$t0"
[ "$(v data "$TMPD/c")" = ok ] || bad "rma_time data"
"$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --platform flat:2,1Gf,1GBps,10us -- "$TMPD/rmat" 1000000 > "$TMPD/s" || bad "smpi run: rc $?"
expect "smpi: lock = 2 x release" "$(v lock "$TMPD/s")" "$(awk -v a="$(v unlock2 "$TMPD/s")" 'BEGIN { printf "%.17g", 2 * a }')"
expect "smpi: get + flush = put + release" "$(v get+flush "$TMPD/s")" "$(v unlock "$TMPD/s")"
awk -v a="$(v unlock "$TMPD/s")" -v b="$(v unlock "$TMPD/c")" 'BEGIN { exit !(a > b) }' || bad "smpi unlock not slower than constant (factors)"

"$PSIMCC" -O1 -o "$TMPD/bad" "$PSIM_TESTDATA/emul/rma_bad.c" || { echo "FAIL: psimcc rma_bad.c"; exit 1; }
for c in "noepoch:outside an access epoch" "range:MPI_ERR_RMA_RANGE" "unlock:no lock held"; do
  # one rank: no other rank is left blocked in a collective when the run stops
  "$PSIM" run --np 1 -q -- "$TMPD/bad" "${c%%:*}" > /dev/null 2> "$TMPD/err"; rc=$?
  [ $rc -eq 4 ] && grep -q "${c#*:}" "$TMPD/err" || { bad "${c%%:*}: rc $rc"; cat "$TMPD/err"; }
done
"$PSIMCC" -O1 -o "$TMPD/nocheck" "$PSIM_TESTDATA/emul/rma_nocheck.c" || { echo "FAIL: psimcc rma_nocheck.c"; exit 1; }
for np in 2 3 5; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/nocheck" 2>&1); rc=$?
  [ $rc -eq 0 ] && [ "$out" = "count $((np - 1))" ] && echo "ok   lock_all(NOCHECK) at np $np: count $((np - 1))" ||
    bad "lock_all(NOCHECK) at np $np: exit status $rc (124: hung), '$out'"
done
# empty flushes in a sweep over many windows (NWChem's Global Arrays) are not a wait: rank 0's
# 100 sweeps of 32 windows with 1 ms of work after each take 0.1 s while rank 1 computes 1 s
# (before: 1.099 s, the first sweep waiting for rank 1's computation to end)
"$PSIMCC" -O1 -o "$TMPD/sweep" "$PSIM_TESTDATA/emul/flush_sweep.c" || bad "psimcc flush_sweep.c"
out=$("$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --platform flat:2,1Gf -- "$TMPD/sweep" 2>&1)
t=$(echo "$out" | sed -n 's/^rank 0 swept in \([0-9.]*\) s$/\1/p')
close_to "$t" 0.1 1e-6 && echo "ok   100 sweeps of empty flushes over 32 windows: $t s" || bad "flush sweeps: '$out', want 0.100000 s"
# --trace-tit: TIT has no one-sided actions; the recording says the trace leaves them out
# (before: silently, and the replay was off; NWChem's by 0.3 %). A run without one-sided
# communication records without the warning.
"$PSIM" run --np 2 -q --no-measure --trace-tit "$TMPD/tit" -- "$TMPD/rmat" 1000 > /dev/null 2> "$TMPD/err" || bad "--trace-tit: rc $?"
grep -q "^psim: warning: --trace-tit: the trace leaves out the run's one-sided communication ([1-9][0-9]* messages" "$TMPD/err" &&
  echo "ok   --trace-tit of one-sided communication: warned" || bad "--trace-tit of RMA: no warning: $(cat "$TMPD/err")"
"$PSIMCC" -O1 -o "$TMPD/pi" "$PSIM_SRC/examples/pi.c" -lm || bad "psimcc pi.c"
"$PSIM" run --np 2 -q --no-measure --trace-tit "$TMPD/tit2" -- "$TMPD/pi" > /dev/null 2> "$TMPD/err" || bad "--trace-tit pi: rc $?"
grep -q "one-sided" "$TMPD/err" && bad "--trace-tit of pi (no RMA): warned: $(cat "$TMPD/err")"
finish $fails
