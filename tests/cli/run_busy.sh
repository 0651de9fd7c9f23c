#!/bin/sh
# psim run says how busy the machine was while it measured (src/emul/emu_busy.c): one stderr
# line with the share of the machine's CPUs other processes used, and advice from a tenth on.
# spin.c's rank 0 computes 0.8 s of its CPU time between two barriers. Beside it, this test runs
# a busy loop of its own: on this 2-core machine alone that is half of the CPUs; the line must
# say at least 30 % (CI's other tests can only add to it) and give the advice. Not measured
# (--no-measure) or quiet (-q): no line. How quiet the machine is otherwise is not the test's
# to know, so it asserts no figure without the loop.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/spin" "$PSIM_TESTDATA/emul/spin.c" || { echo "FAIL: psimcc"; exit 1; }
cd "$TMPD" || exit 1
sh -c 'while :; do :; done' &
loop=$!
trap 'kill $loop 2>/dev/null; rm -rf "$TMPD"' EXIT
"$PSIM" run --np 2 --platform flat:2,1Gf --host-speed-ref 1e9 -- ./spin 0.8 > out 2> err || bad "busy: rc $?: $(cat err)"
kill $loop 2>/dev/null
line=$(grep "^psim: while it measured, other processes used" err)
pct=$(echo "$line" | sed -n 's/.* used \([0-9]*\) % of this machine.s CPUs.*/\1/p')
[ -n "$pct" ] && [ "$pct" -ge 30 ] && [ "$pct" -le 100 ] || bad "with a busy loop beside it: want at least 30 %: '$line'"
echo "$line" | grep -q "so this predicts the busy machine; measure on a quiet one" || bad "no advice at $pct %: '$line'"
# simulated: rank 0's 0.8 s of measured work, whatever the loop did to the wall time
t=$(sed -n 's/^simulated time: \([0-9.]*\) s$/\1/p' out)
awk -v t="$t" 'BEGIN { exit !(t >= 0.8 && t < 0.9) }' || bad "simulated $t s, want 0.8 s and the barriers"
"$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -- ./spin 0.1 > /dev/null 2> err2 || bad "--no-measure: rc $?"
grep -q "while it measured" err2 && bad "--no-measure measured nothing, yet: $(grep 'while it' err2)"
"$PSIM" run --np 2 --platform flat:2,1Gf -q -- ./spin 0.1 > /dev/null 2> err3 || bad "-q: rc $?"
[ -s err3 ] && bad "-q wrote: $(cat err3)"
finish $fails
