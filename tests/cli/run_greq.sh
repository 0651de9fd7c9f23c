#!/bin/sh
# Generalized requests under psim run (tests/data/emul/greq.c): incomplete until
# MPI_Grequest_complete (MPI_Test says 0, no function called); MPI_Cancel calls cancel_fn with
# complete=0; the wait calls query_fn (MPI_Status_set_elements: 3 ints, MPI_Get_count 3) then
# free_fn, once each (also with MPI_STATUS_IGNORE), and frees the handle; MPI_Request_free
# before completion defers free_fn (not query_fn) to MPI_Grequest_complete. They cost no
# simulated time (time=1e-08 under --no-measure: only the first MPI_Wtime's own cost, smpi/wtime).
# Waiting for one never completed stops the run
# (exit 4) naming MPI_Wait and the line instead of hanging: a rank is one thread in psim.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/greq" "$PSIM_TESTDATA/emul/greq.c" || { echo "FAIL: psimcc"; exit 1; }
out=$(timeout 60 "$PSIM" run --np 1 -q --no-measure -- "$TMPD/greq" 2>&1)
want=$(cat "$PSIM_TESTDATA/emul/greq.expected")
[ "$out" = "$want" ] || bad "output:
$out"
timeout 60 "$PSIM" run --np 1 -q --no-measure -- "$TMPD/greq" hang > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -q "greq.c:29: rank 0: MPI error in MPI_Wait: waiting for a generalized request" "$TMPD/err" ||
  { bad "hang: rc $rc"; cat "$TMPD/err"; }
finish $fails
