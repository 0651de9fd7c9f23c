#!/bin/sh
# The data semantics of psim's MPI subset (tests/data/emul/colls.c checks every collective,
# derived datatypes, communicator split/dup, probe, waitany, persistent requests, MINLOC) on
# communicator sizes that exercise the collective algorithms' special cases.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/colls" "$PSIM_TESTDATA/emul/colls.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 1 2 3 4 7 16 33; do
  out=$("$PSIM" run --np "$np" -q -- "$TMPD/colls")
  if [ "$out" != " No Errors" ]; then echo "FAIL: np $np: $out"; fails=$((fails + 1)); fi
done
finish $fails
