#!/bin/sh
# MPI_Alltoallw (per-peer types and byte displacements) and the non-blocking collectives
# (run as their blocking versions, the request already complete): tests/data/emul/nbc.c
# checks the data on 1 to 7 ranks.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/nbc" "$PSIM_TESTDATA/emul/nbc.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 1 2 3 4 7; do
  out=$("$PSIM" run --np "$np" -q --no-measure -- "$TMPD/nbc" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
finish $fails
