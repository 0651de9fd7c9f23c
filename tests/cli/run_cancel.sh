#!/bin/sh
# MPI_Cancel under psim run (tests/data/emul/cancel.c): an unmatched receive (concrete and
# wildcard, plain and persistent) is cancelled and completes at once, with MPI_Test_cancelled
# true and its buffer untouched; a receive that already matched and a send are not cancelled
# (MPI allows cancel to fail) and deliver their data. A recorded trace replays (the cancelled
# irecv leaves no pending request behind).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/cancel" "$PSIM_TESTDATA/emul/cancel.c" || { echo "FAIL: psimcc"; exit 1; }
out=$("$PSIM" run --np 2 -q --no-measure --trace-tit "$TMPD/tit" -- "$TMPD/cancel") || bad "run failed"
want="unmatched: cancelled=1 null=1 got=-1 dt=1e-08
wildcard: done=1 cancelled=1
persistent: first cancelled=1, second cancelled=0 got=42
matched: cancelled=0 got=43 source=1
send: cancelled=0
rank 1 got 99"
[ "$out" = "$want" ] || bad "output:
$out"
# the trace holds no irecv for the cancelled receives, and replays to the end
n=$(grep -c irecv "$TMPD/tit/rank-0.txt")
[ "$n" = 2 ] || bad "rank 0 records $n irecv (want 2: the two that matched)"
"$PSIM" replay --np 2 -q "$TMPD/tit" > /dev/null || bad "the recorded trace does not replay"
# psimcc no longer refuses it and the run is deterministic
out2=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/cancel")
[ "$out2" = "$want" ] || bad "second run differs"
finish $fails
