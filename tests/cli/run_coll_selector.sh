#!/bin/sh
# Collectives as the real MPI chooses them (issue 34, item 7): psim run of a program built by
# MPICH's mpicc (run through psim's libmpich.so.12) takes MPICH's algorithm selection by
# default (smpi/coll-selector:mpich), one built by Open MPI's takes Open MPI's (ompi); a
# psimcc build keeps SimGrid's default, as psim replay does. An explicit smpi/coll-selector,
# on the command line or in the platform's <config>, wins. The run's summary and its JSON say
# which selector was used. Allreduce of 8 bytes at np=4: MPICH's choice is recursive doubling
# (2 exchange steps), SimGrid's default a binomial reduce then a binomial bcast (4 steps).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
MPICC=$(command -v mpicc.mpich || true)
[ -n "$MPICC" ] || { echo "skip: no MPICH mpicc (mpicc.mpich)"; exit 77; }
[ -z "$PSIM_SANITIZED" ] || { echo "skip: a sanitized psim cannot load MPICH binaries"; exit 77; }
"$MPICC" -O1 -o "$TMPD/ar_mpich" "$PSIM_TESTDATA/emul/allreduce_loop.c" || { echo "FAIL: mpicc.mpich"; exit 1; }
"$PSIMCC" -O1 -o "$TMPD/ar_psimcc" "$PSIM_TESTDATA/emul/allreduce_loop.c" || { echo "FAIL: psimcc"; exit 1; }
P=flat:4,1Gf,1GBps,10us
# run NAME PROG ARGS...: the program's time in $t (and NAME.t), its output and summary in
# NAME.all, the JSON in NAME.json
run() {
  name=$1 prog=$2; shift 2
  "$PSIM" run --np 4 --platform "$P" --no-measure --json "$TMPD/$name.json" "$@" -- "$prog" > "$TMPD/$name.all" 2> "$TMPD/$name.err" ||
    bad "$name: rc $?: $(cat "$TMPD/$name.err")"
  grep -q '^allreduce .* sum 10$' "$TMPD/$name.all" || bad "$name: wrong sum: $(grep '^allreduce' "$TMPD/$name.all")"
  t=$(sed -n 's/^allreduce \([0-9.]*\).*/\1/p' "$TMPD/$name.all")
}
run auto "$TMPD/ar_mpich"; auto=$t
run mpich "$TMPD/ar_mpich" --cfg smpi/coll-selector:mpich; mpich=$t
run def "$TMPD/ar_mpich" --cfg smpi/coll-selector:default; def=$t
run algo "$TMPD/ar_mpich" --cfg smpi/allreduce:rdb; algo=$t
run psimcc "$TMPD/ar_psimcc"; psimcc=$t
echo "MPICH binary: $auto s (default), $mpich s (smpi/coll-selector:mpich), $def s (smpi/coll-selector:default), $algo s (smpi/allreduce:rdb); psimcc build: $psimcc s"
[ -n "$auto" ] && [ "$auto" = "$mpich" ] || bad "an MPICH binary's allreduce takes $auto s by default, $mpich s with MPICH's selection"
awk -v a="$auto" -v d="$def" 'BEGIN { exit !(a != "" && d != "" && (a - d > 0.01 * d || d - a > 0.01 * d)) }' ||
  bad "MPICH's selection ($auto s) does not differ from SimGrid's default ($def s)"
# MPICH's choice here is recursive doubling: the same messages as smpi/allreduce:rdb
[ "$auto" = "$algo" ] || bad "MPICH's selection ($auto s) is not recursive doubling ($algo s) at 8 bytes, 4 ranks"
[ "$psimcc" = "$def" ] || bad "the psimcc build ($psimcc s) does not keep SimGrid's default ($def s)"
# the summary and the JSON say which selector ran
grep -q "collectives: smpi/coll-selector:mpich (MPICH's algorithm selection: the program was built with MPICH)" "$TMPD/auto.all" ||
  bad "summary (MPICH binary): $(grep collectives "$TMPD/auto.all")"
grep -q '"allreduce": "mpich"' "$TMPD/auto.json" || bad "JSON (MPICH binary): $(grep -o '"allreduce": "[^"]*"' "$TMPD/auto.json")"
grep -q "collectives: smpi/coll-selector:default (SimGrid's, as given)" "$TMPD/def.all" ||
  bad "summary (explicit default): $(grep collectives "$TMPD/def.all")"
grep -q "collectives: smpi/coll-selector:default (SimGrid's: the program was built with psimcc)" "$TMPD/psimcc.all" ||
  bad "summary (psimcc): $(grep collectives "$TMPD/psimcc.all")"
grep -q '"allreduce": "reduce+bcast"' "$TMPD/psimcc.json" || bad "JSON (psimcc): $(grep -o '"allreduce": "[^"]*"' "$TMPD/psimcc.json")"
# the platform's <config> wins over the program's MPI too
cat > "$TMPD/plat.xml" <<'X'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="smpi/coll-selector" value="default"/>
  </config>
  <cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="10us"/>
</platform>
X
P="$TMPD/plat.xml"
run pdef "$TMPD/ar_mpich"; pdef=$t
run pmpich "$TMPD/ar_mpich" --cfg smpi/coll-selector:mpich; pmpich=$t
echo "platform with smpi/coll-selector:default: $pdef s; with --cfg smpi/coll-selector:mpich too: $pmpich s"
grep -q "collectives: smpi/coll-selector:default (SimGrid's, as given)" "$TMPD/pdef.all" ||
  bad "summary (platform's <config>): $(grep collectives "$TMPD/pdef.all")"
awk -v a="$pdef" -v d="$pmpich" 'BEGIN { exit !(a != "" && d != "" && a != d) }' ||
  bad "the platform's smpi/coll-selector:default ($pdef s) is not SimGrid's default (MPICH's: $pmpich s)"
# an Open MPI binary takes Open MPI's selection
OMPICC=$(command -v mpicc.openmpi || true)
if [ -n "$OMPICC" ] && "$OMPICC" -O1 -o "$TMPD/ar_ompi" "$PSIM_TESTDATA/emul/allreduce_loop.c" 2> /dev/null; then
  P=flat:4,1Gf,1GBps,10us
  run ompi "$TMPD/ar_ompi"; ompi=$t
  run ompi2 "$TMPD/ar_ompi" --cfg smpi/coll-selector:ompi; ompi2=$t
  echo "Open MPI binary: $ompi s (default), $ompi2 s (smpi/coll-selector:ompi)"
  [ -n "$ompi" ] && [ "$ompi" = "$ompi2" ] || bad "an Open MPI binary's allreduce takes $ompi s by default, $ompi2 s with Open MPI's selection"
  grep -q "collectives: smpi/coll-selector:ompi (Open MPI's algorithm selection: the program was built with Open MPI)" "$TMPD/ompi.all" ||
    bad "summary (Open MPI binary): $(grep collectives "$TMPD/ompi.all")"
  grep -q '"allreduce": "ompi"' "$TMPD/ompi.json" || bad "JSON (Open MPI binary)"
else
  echo "no Open MPI mpicc: its selection left unchecked"
fi
"$PSIM" run --np 1 -q --no-measure --cfg smpi/coll-selector:nosuch -- "$TMPD/ar_psimcc" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'smpi/coll-selector expects default, mpich or ompi' "$TMPD/err" || bad "smpi/coll-selector:nosuch: rc $rc, $(cat "$TMPD/err")"
finish $fails
