#!/bin/sh
# User operations on non-contiguous datatypes under psim run (tests/data/emul/uop_layout.c):
# the function sees its datatype's layout (3 ints at stride 2, extent 5 ints), not packed
# bytes. By hand, at np 4 (rank r gives r + 10k + 100e at element 2k of vec e; holes -7 in
# the receive buffer stay): element 2k of vec e = 0+1+2+3 + 4 (10k + 100e) =
#   6 46 86 | 406 446 486.
# Before the fix the function got packed data and added the wrong elements (r[2] = 13).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/uop" "$PSIM_TESTDATA/emul/uop_layout.c" || { echo "FAIL: psimcc"; exit 1; }
out=$(timeout 60 "$PSIM" run --np 4 -q --no-measure -- "$TMPD/uop" 2>&1)
want="r = 6 -7 46 -7 86 | 406 -7 446 -7 486
 No Errors"
[ "$out" = "$want" ] || bad "np 4: $out"
for np in 1 3 7; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/uop" 2>&1 | tail -n 1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
finish $fails
