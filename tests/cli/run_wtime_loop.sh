#!/bin/sh
# A loop waiting for MPI_Wtime to move (tests/data/emul/wtime_loop.c, as MPICH's
# bsendpending: `while (MPI_Wtime() - t0 < 2.0);`) ends under --no-measure, where the loop's
# own code takes no simulated time (rule in src/emul/rt/rt_init.c, docs/EMULATION.md).
# By hand: call 1 returns t0 = 0; calls 2..1000 return 0 without sleeping (streak 1..999);
# from call 1001 each call sleeps 1 us, 2 us, 4 us, ...: after 21 sleeps the clock is at
# (2^21 - 1) us = 2.097151 s >= 2 (after 20 it is 1.048575 s), so the loop makes 1021 calls
# and ends at 2.097151 s, at any np. Two calls around nothing else (a timing pair) see no
# injected time (pair 0). With measurement on, the loop ends too (its passes are shorter
# than smpi/cpu-threshold, whose bursts are dropped), between 2 and 2 x 2.1 s.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/wl" "$PSIM_TESTDATA/emul/wtime_loop.c" || { echo "FAIL: psimcc"; exit 1; }
want="start 0 calls 1021 end 2.097151
pair 0"
for np in 1 3; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/wl" 2>&1)
  [ "$out" = "$want" ] || bad "np $np: $out"
done
out=$(timeout 120 "$PSIM" run --np 2 -q -- "$TMPD/wl" 2>&1 | head -n 1)
end=$(echo "$out" | sed -n 's/.* end //p')
awk -v e="$end" 'BEGIN { exit !(e != "" && e >= 2 && e <= 4.2) }' || bad "measured: $out"
finish $fails
