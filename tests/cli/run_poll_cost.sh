#!/bin/sh
# The real MPI's cost of a poll (issue 34, item 5): run/iprobe-cost and run/test-cost charge
# each MPI_Iprobe and each MPI_Test* that CPU time, as the rank's computation (through its
# carry, charged with the next burst). poll_cost.c makes 1000 of each on rank 0; the costs
# 1 ms and 2 ms add 1000 x (1 + 2) ms = 3 s to its time, whatever the loop itself measures.
# They come from --cfg or from a platform's <prop id="psim/run/iprobe-cost"> (a zone's or a
# cluster's property: SimGrid keeps it as a property nobody reads, psim takes it as --cfg),
# which is what psim calibrate --machine writes; psim replay accepts them (a replay has no
# polls).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -o "$TMPD/pc" "$PSIM_TESTDATA/emul/poll_cost.c" || { echo "FAIL: psimcc"; exit 1; }
run() {   # run NAME ARGS...: the simulated time of poll_cost.c at np=2
  name=$1; shift
  "$PSIM" run --np 2 --host-speed-ref 1e9 -q --json "$TMPD/$name.json" "$@" -- "$TMPD/pc" > "$TMPD/$name.out" ||
    bad "$name: rc $?"
  grep -q "found 1000 got 42" "$TMPD/$name.out" || bad "$name: output $(cat "$TMPD/$name.out")"
  json_get "$TMPD/$name.json" simulated_time
}
base=$(run base --platform flat:2,1Gf)
cfg=$(run cfg --platform flat:2,1Gf --cfg run/iprobe-cost:1e-3 --cfg run/test-cost:2e-3)
d=$(awk -v a="$cfg" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
echo "without costs $base s, with $cfg s: +$d s"
# the loops' own passes are measured in both runs (about 1 us each here, tens of us under a
# sanitizer): 3 s within 0.1 s
close_to "$d" 3 0.1 || bad "--cfg costs: +$d s, want +3 s (1000 x 1 ms + 1000 x 2 ms)"
# the same costs from the platform file, as zone properties
cat > "$TMPD/p.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="node" prefix="core" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us">
    <prop id="psim/run/iprobe-cost" value="1e-3"/>
    <prop id="psim/run/test-cost" value="2e-3"/>
    <prop id="some/other" value="kept by SimGrid, not psim's"/>
  </cluster>
</platform>
XML
cat > "$TMPD/p0.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="node" prefix="core" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us"/>
</platform>
XML
base=$(run pbase --platform "$TMPD/p0.xml")
prop=$(run prop --platform "$TMPD/p.xml")
d=$(awk -v a="$prop" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
echo "platform properties: +$d s"
close_to "$d" 3 0.1 || bad "psim/ properties: +$d s, want +3 s"
# --cfg wins over the platform: no cost at all
none=$(run none --platform "$TMPD/p.xml" --cfg run/iprobe-cost:0 --cfg run/test-cost:0)
d=$(awk -v a="$none" -v b="$base" 'BEGIN { printf "%.6f", a - b }')
close_to "$d" 0 0.1 || bad "--cfg run/...-cost:0 over the platform's: +$d s, want 0"
# a bad value names the key
"$PSIM" run --np 2 --platform flat:2 -q --cfg run/iprobe-cost:fast -- "$TMPD/pc" > /dev/null 2> "$TMPD/err" && bad "bad cost accepted"
grep -q "run/iprobe-cost expects a non-negative number, got 'fast'" "$TMPD/err" || { bad "bad cost: message"; cat "$TMPD/err"; }
# replay reads the platform without a word about the properties
printf '0 compute 1e9\n1 compute 1e9\n' > "$TMPD/t.txt"
"$PSIM" replay --platform "$TMPD/p.xml" "$TMPD/t.txt" > "$TMPD/r.out" 2> "$TMPD/r.err" || bad "replay: rc $?"
grep -q "ignoring" "$TMPD/r.err" && { bad "replay warned:"; cat "$TMPD/r.err"; }
grep -q "^simulated time: 1.000000 s" "$TMPD/r.out" || { bad "replay output"; cat "$TMPD/r.out"; }
finish $fails
