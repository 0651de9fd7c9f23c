#!/bin/sh
# The collectives of a program built with psimcc on a calibrated platform (issue 34, item 7):
# run/psimcc-coll-selector (a cluster's <prop id="psim/run/psimcc-coll-selector">, written by
# psim calibrate --machine with the MPI it measured, or --cfg) gives psimcc's programs that
# MPI's selection, as the same program built with that MPI's mpicc would run; an explicit
# smpi/coll-selector still wins; psim replay reads the platform without a word. 100 allreduces
# of 8 B at np=4: MPICH's choice is recursive doubling, SimGrid's default reduce + bcast.
. "$(dirname "$0")/../lib/common.sh"
fails=0
allreduce_loop_setup run/psimcc-coll-selector mpich
run() {   # run NAME PLATFORM ARGS...: the loop's simulated time in $t
  n=$1 p=$2
  shift 2
  allreduce_loop "$n" "$p" --no-measure --json "$TMPD/$n.json" "$@"
}
run fromplat "$TMPD/p.xml"; fromplat=$t
run mpich "$TMPD/p0.xml" --cfg smpi/coll-selector:mpich; mpich=$t

run def "$TMPD/p0.xml"; def=$t
run given "$TMPD/p.xml" --cfg smpi/coll-selector:default; given=$t
run cfg "$TMPD/p0.xml" --cfg run/psimcc-coll-selector:mpich; cfg=$t
echo "platform's psimcc selector $fromplat s, smpi/coll-selector:mpich $mpich s, SimGrid's default $def s, explicit default over the platform's $given s, --cfg $cfg s"
[ -n "$fromplat" ] && [ "$fromplat" = "$mpich" ] || bad "the platform's selection ($fromplat s) is not MPICH's ($mpich s)"
[ "$cfg" = "$mpich" ] || bad "--cfg run/psimcc-coll-selector:mpich: $cfg s, want $mpich s"
[ -n "$def" ] && [ "$def" != "$fromplat" ] && [ "$given" = "$def" ] || bad "explicit smpi/coll-selector:default ($given s) does not win, or is MPICH's (default $def s)"
grep -q "collectives: smpi/coll-selector:mpich (MPICH's algorithm selection: run/psimcc-coll-selector, the MPI the platform was calibrated with, for a program built with psimcc)" "$TMPD/fromplat.all" ||
  bad "summary: $(grep collectives "$TMPD/fromplat.all")"
grep -q "collectives: smpi/coll-selector:default (SimGrid's, as given)" "$TMPD/given.all" || bad "summary (given): $(grep collectives "$TMPD/given.all")"
grep -q '"allreduce": "mpich"' "$TMPD/fromplat.json" || bad "JSON: $(grep -o '"allreduce": "[^"]*"' "$TMPD/fromplat.json")"
# a bad value names the choices
"$PSIM" run --np 1 -q --no-measure --cfg run/psimcc-coll-selector:nosuch -- "$TMPD/ar" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'expects default, mpich or ompi' "$TMPD/err" || bad "nosuch: rc $rc, $(cat "$TMPD/err")"
# replay: a platform property for psim run, read without a word
printf '0 compute 1e9\n1 compute 1e9\n' > "$TMPD/t.txt"
"$PSIM" replay --platform "$TMPD/p.xml" "$TMPD/t.txt" > "$TMPD/r.out" 2> "$TMPD/r.err" || bad "replay: rc $?"
grep -q "ignoring" "$TMPD/r.err" && bad "replay warned: $(cat "$TMPD/r.err")"
finish $fails
