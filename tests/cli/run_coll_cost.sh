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
"$PSIM" run --np 2 -q --cfg run/coll-cost:-1 -- "$TMPD/ar" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'run/coll-cost expects a non-negative number' "$TMPD/err" || bad "run/coll-cost:-1: rc $rc, $(cat "$TMPD/err")"
finish $fails
