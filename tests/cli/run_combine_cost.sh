#!/bin/sh
# A reduction's operator costs each rank what its algorithm combines (issue 34, item 3): psim
# run measures the call's operator on the call's own data and charges the CO_COMBINE bytes of
# the rank's program at that cost per byte, after the collective (SimGrid's comp). tests/data/emul/combine_cost.c: 10 allreduces of
# 4096 doubles with a user operator of a fixed cost C per call (whatever the count). Hand-derived
# shares of C per allreduce, on the rank that finishes last:
#   np=2, MPICH's selection (32 KiB > 2 KiB, commutative: Rabenseifner): one reduce-scatter step
#         combines the half received: C/2;
#   np=2, SimGrid's default (reduce to 0 by linear fan-in, then bcast): the root combines the
#         other contribution: C;
#   np=4, MPICH's: two halving steps, 1/2 + 1/4: 3C/4;
#   np=4, SimGrid's default: the root combines 3 contributions: 3C.
# C is this machine's, so the test checks the ratios (within 15 %: one CPU loop measured 80
# times), and that run/charge-copies:no charges none.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/cc" "$PSIM_TESTDATA/emul/combine_cost.c" || { echo "FAIL: psimcc"; exit 1; }
run() {   # run NP SELECTOR CHARGE: the loop's simulated time in $t
  "$PSIM" run --np "$1" -q --cfg smpi/coll-selector:"$2" --cfg run/charge-copies:"$3" -- "$TMPD/cc" \
    > "$TMPD/out" 2> "$TMPD/err" || bad "np=$1 $2 $3: rc $?: $(cat "$TMPD/err")"
  sum=$(awk -v n="$1" 'BEGIN { print n * (n + 1) / 2 }')
  grep -q "^allreduce .* sum $sum\$" "$TMPD/out" || bad "np=$1 $2 $3: $(cat "$TMPD/out")"
  t=$(sed -n 's/^allreduce \([0-9.]*\).*/\1/p' "$TMPD/out")
}
run 2 mpich no; m2n=$t
run 2 default no; d2n=$t
run 4 mpich no; m4n=$t
run 4 default no; d4n=$t
run 2 mpich yes; m2=$t
run 2 default yes; d2=$t
run 4 mpich yes; m4=$t
run 4 default yes; d4=$t
echo "combining charged (s, 10 calls): np=2 mpich $m2 (none: $m2n), default $d2 ($d2n); np=4 mpich $m4 ($m4n), default $d4 ($d4n)"
awk -v m2="$m2" -v m2n="$m2n" -v d2="$d2" -v d2n="$d2n" -v m4="$m4" -v m4n="$m4n" -v d4="$d4" -v d4n="$d4n" 'BEGIN {
  c = (d2 - d2n) / 10                       # C: one call of the operator on a full buffer
  if (!(c > 1e-4)) { print "FAIL: the default algorithm at np=2 charged " c " s a call for combining, want C > 0.1 ms"; exit 1 }
  bad = 0
  r = (m2 - m2n) / 10 / c; if (r < 0.85 * 0.5 || r > 1.15 * 0.5) { print "FAIL: np=2 mpich charged " r " C a call, want 1/2"; bad = 1 }
  r = (m4 - m4n) / 10 / c; if (r < 0.85 * 0.75 || r > 1.15 * 0.75) { print "FAIL: np=4 mpich charged " r " C a call, want 3/4"; bad = 1 }
  r = (d4 - d4n) / 10 / c; if (r < 0.85 * 3 || r > 1.15 * 3) { print "FAIL: np=4 default charged " r " C a call, want 3"; bad = 1 }
  # without the charge the loop is its messages alone: a small part of what combining adds
  if (m2n > 0.2 * (m2 - m2n) || d2n > 0.2 * (d2 - d2n)) { print "FAIL: run/charge-copies:no still charges combining (" m2n ", " d2n " s)"; bad = 1 }
  exit bad }' || fails=$((fails + 1))
finish $fails
