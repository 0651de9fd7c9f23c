#!/bin/sh
# A collective call's own cost (issue 34, "the MPI runtime's own work"): run/coll-cost charges
# each collective call that CPU time on every rank, before its messages (the real MPI's checks,
# its choice of algorithm, its progress loop: what psim calibrate --machine measures as an
# 8-byte allreduce less the model's exchange, and writes as <prop id="psim/run/coll-cost">).
# tests/data/emul/allreduce_loop.c makes 100 allreduces on every rank: a cost of 1 ms adds
# 100 x 1 ms = 0.1 s to the loop, from --cfg or from the platform; nothing with --no-measure
# (psim measures nothing then, the MPI's costs included).
. "$(dirname "$0")/../lib/common.sh"
fails=0
allreduce_loop_setup run/coll-cost 1e-3
run() {   # run NAME PLATFORM ARGS...: the loop's simulated time in $t
  n=$1 p=$2
  shift 2
  allreduce_loop "$n" "$p" --host-speed-ref 1e9 -q "$@"
}
run base "$TMPD/p0.xml"; base=$t
run cfg "$TMPD/p0.xml" --cfg run/coll-cost:1e-3; cfg=$t
run plat "$TMPD/p.xml"; fromplat=$t
run over "$TMPD/p.xml" --cfg run/coll-cost:0; over=$t
run nomeasure "$TMPD/p.xml" --no-measure; nm=$t
run nomeasure0 "$TMPD/p0.xml" --no-measure; nm0=$t
echo "100 allreduces: $base s, with run/coll-cost:1e-3 $cfg s (--cfg), $fromplat s (platform), $over s (--cfg 0 over the platform); --no-measure $nm s, $nm0 s"
d=$(awk -v a="$cfg" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
# the loop's own passes are measured in both runs (well under a microsecond each)
close_to "$d" 0.1 0.002 || bad "--cfg run/coll-cost:1e-3: +$d s, want +0.1 s (100 x 1 ms)"
d=$(awk -v a="$fromplat" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
close_to "$d" 0.1 0.002 || bad "psim/run/coll-cost: +$d s, want +0.1 s"
d=$(awk -v a="$over" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
close_to "$d" 0 0.002 || bad "--cfg run/coll-cost:0 over the platform's: +$d s, want 0"
[ "$nm" = "$nm0" ] || bad "--no-measure charged the collectives' cost: $nm s against $nm0 s"
# a cost under smpi/cpu-threshold (what calibrate measures: 0.1-0.2 us) is paid at every call
# on every rank, not through the ranks' carries, which would charge it at different calls on
# different ranks and make each wait for the others' charges too (0.1 us cost 0.19 us a call)
# (--repeat 3: each burst its least measurement, so that one disturbed burst of the loop does
# not move a run by more than the 80 us looked for)
run base3 "$TMPD/p0.xml" --repeat 3 --cfg smpi/coll-selector:mpich; base3=$t
# Not under a sanitizer: there the loop's own measured bursts move a run by -100 to +50 us.
if ldd "$PSIM" 2> /dev/null | grep -q libasan; then
  echo "note: a sanitized psim: the cost under smpi/cpu-threshold is not checked"
else
  run small "$TMPD/p0.xml" --repeat 3 --cfg smpi/coll-selector:mpich --cfg run/coll-cost:8e-7; small=$t
  d=$(awk -v a="$small" -v b="$base3" 'BEGIN { printf "%.9f", a - b }')
  echo "run/coll-cost:8e-7: +$d s"
  close_to "$d" 8e-5 3.2e-5 || bad "run/coll-cost:8e-7: +$d s, want +8e-5 s (100 x 0.8 us)"
fi
# The ranks' carries go with the collective's cost, every rank at every collective
# (tests/data/emul/carry_allreduce.c: two polls a round, rank 0 two more before the first).
# Scaled up so that the loop's own bursts (tens of ns) do not count: smpi/cpu-threshold 1 ms,
# a poll 0.25 ms, so each rank carries 0.5 ms a round, under the threshold. Charged at the
# allreduce, every rank's at once, a round takes 0.5 ms more, and the first 0.5 ms more again
# (rank 0's two polls before it): 100 x 0.5 + 0.5 = 50.5 ms. Before, each carry was charged
# where it passed the threshold, rank 0's at the odd rounds and rank 1's at the even ones, and
# each round waited 1 ms for one of them: 98 ms.
"$(dirname "$PSIM")/psimcc" -O1 -o "$TMPD/car" "$PSIM_TESTDATA/emul/carry_allreduce.c" || bad "psimcc carry_allreduce.c"
carry() {   # carry IPROBE_COST: the rounds' simulated time in $t
  "$PSIM" run --np 2 --platform "$TMPD/p0.xml" --host-speed-ref 1e9 -q --cfg smpi/cpu-threshold:1e-3 \
    --cfg run/iprobe-cost:"$1" -- "$TMPD/car" > "$TMPD/car.out" 2> "$TMPD/car.err" || bad "carry_allreduce: $(cat "$TMPD/car.err")"
  t=$(sed -n 's/^rounds \([0-9.]*\) sum 2$/\1/p' "$TMPD/car.out")
}
carry 0; c0=$t
carry 2.5e-4; c1=$t
d=$(awk -v a="$c1" -v b="$c0" 'BEGIN { printf "%.6f", a - b }')
echo "carries at the collective: +$d s ($c0 s without the polls' cost)"
close_to "$d" 0.0505 0.0005 || bad "carries at the collective: +$d s, want +0.0505 s (100 x 0.5 ms + 0.5 ms)"
"$PSIM" run --np 2 -q --cfg run/coll-cost:-1 -- "$TMPD/ar" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'run/coll-cost expects a non-negative number' "$TMPD/err" || bad "run/coll-cost:-1: rc $rc, $(cat "$TMPD/err")"
finish $fails
