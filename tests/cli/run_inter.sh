#!/bin/sh
# Inter-communicators under psim run (tests/data/emul/inter.c): MPI_Intercomm_create between
# the two halves of MPI_COMM_WORLD gives the right local and remote sizes and remote group;
# MPI_Intercomm_merge orders the groups by `high` (left first: merged rank = world rank; right
# first: the right half's ranks come first) and the merged communicator reduces correctly;
# communicating on the inter-communicator itself is an MPI error (exit 4) naming it.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/inter" "$PSIM_TESTDATA/emul/inter.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 2 3 4 7; do
  out=$(timeout 60 "$PSIM" run --np "$np" -q --no-measure -- "$TMPD/inter" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
# np 2: no rank is left inside a collective when the error stops the run
"$PSIM" run --np 2 -q --no-measure -- "$TMPD/inter" send > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -q "MPI_Send: point-to-point communication on an inter-communicator" "$TMPD/err" || { bad "send on an inter-communicator: rc $rc"; cat "$TMPD/err"; }
finish $fails
