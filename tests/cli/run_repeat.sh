#!/bin/sh
# psim run --repeat K (docs/EMULATION.md, "Reproducible predictions"): the program runs K
# times; each burst of the last run is charged the least of its K measurements, as long as the
# rank makes the same calls in the same order. repeat.c: 20 rounds of a loop, a declared 1e9
# flops on rank 1 and a barrier; rank 0 has 22 bursts (each ended by a call: MPI_Comm_rank, 20
# barriers, MPI_Finalize), rank 1 42 (20 psim_compute more). The program's stdout of the first K-1 runs is discarded; what is declared is
# the same in every run, so without measurement --repeat changes nothing at all.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/rep" "$PSIM_TESTDATA/emul/repeat.c" || { echo "FAIL: psimcc"; exit 1; }
cd "$TMPD" || exit 1
"$PSIM" run --np 2 --platform flat:2,1Gf --host-speed-ref 1e9 --repeat 3 --json r3.json -- ./rep > out3 2> err3 || bad "--repeat 3: rc $?: $(cat err3)"
[ "$(grep -c 'rank 0 done' out3)" = 1 ] || bad "the program's output is not there once: $(cat out3)"
grep -q "^psim: --repeat 3: each of 64 bursts charged the least of its 3 measurements$" err3 || bad "repeat line: $(grep repeat err3)"
t3=$(json_get r3.json simulated_time)
# rank 1's 20 x 1 s declared are in every run; the measured loops add a little (a few ms here,
# under a second under a sanitizer)
awk -v t="$t3" 'BEGIN { exit !(t >= 20 && t < 21) }' || bad "--repeat 3: simulated $t3 s, want 20 s and the loops"
# nothing measured: the same prediction, byte for byte
"$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q --json n1.json -- ./rep > /dev/null || bad "--no-measure: rc $?"
"$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q --repeat 4 --json n4.json -- ./rep > /dev/null || bad "--no-measure --repeat 4: rc $?"
a=$(json_get n1.json simulated_time); b=$(json_get n4.json simulated_time)
# 20 x 1 s and 20 barriers' messages
[ -n "$a" ] && [ "$a" = "$b" ] && awk -v t="$a" 'BEGIN { exit !(t > 20 && t < 20.001) }' ||
  bad "--no-measure: $a s once, $b s after --repeat 4 (want the same, 20 s and the barriers)"
# another path: rank 0 makes one more call in the first run only
rm -f mark
"$PSIM" run --np 2 --platform flat:2,1Gf --host-speed-ref 1e9 --repeat 2 -- ./rep path > outp 2> errp || bad "path: rc $?"
grep -q "1 rank took another path in some run (its later bursts are that run's own)" errp || bad "another path: $(grep repeat errp)"
[ -f mark ] || bad "the first run did not run (no mark file)"
"$PSIM" run --np 2 --repeat 0 -- ./rep > /dev/null 2> err0
[ $? -eq 2 ] && grep -q -- "--repeat must be at least 1" err0 || bad "--repeat 0: $(cat err0)"
finish $fails
