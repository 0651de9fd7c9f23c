#!/bin/sh
# psim calibrate --machine (docs/calibrate.md): the platform written from fixed measurements
# (tests/data/calib/mpich-np2.txt, MPICH on the development machine) is the same every time,
# loads in psim and in SimGrid, and replays each ping-pong in twice the model's one-way time
# (the table the command prints); bad measurements and a missing MPI are errors that say what
# is wrong; with MPICH installed, a quick calibration of this machine runs end to end.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
M=$PSIM_TESTDATA/calib/mpich-np2.txt

"$PSIM" calibrate --machine --measurements "$M" --cores 2 -o "$TMPD/p.xml" >"$TMPD/fit.txt" 2>"$TMPD/err" ||
  bad "calibrate from measurements: exit $? ($(head -c 300 "$TMPD/err"))"
"$PSIM" calibrate --machine --measurements "$M" --cores 2 -o "$TMPD/p2.xml" >/dev/null 2>&1
cmp -s "$TMPD/p.xml" "$TMPD/p2.xml" || bad "two fits of the same measurements differ"
grep -q 'radical="0-1"' "$TMPD/p.xml" || bad "the platform has not one host per core (2)"
grep -q '<prop id="smpi/bw-factor"' "$TMPD/p.xml" || bad "no smpi/bw-factor in the platform's <config>"
grep -q '<prop id="smpi/host-speed" value="7.53035e+09f"/>' "$TMPD/p.xml" || bad "smpi/host-speed is not the measured flop rate"
grep -q '<prop id="smpi/wtime" value="2.41217e-08"/>' "$TMPD/p.xml" || bad "smpi/wtime is not the measured MPI_Wtime cost"
# SMPI's injected polling sleeps grow with every failed MPI_Testany: not a cost model
! grep -q 'smpi/test\|smpi/iprobe' "$TMPD/p.xml" || bad "the platform injects SMPI's polling sleeps"
grep -q '^worst residual: ping-pong' "$TMPD/fit.txt" || bad "no residuals printed"
# psim run's own: the polls' costs and the collectives of psimcc's programs (the MPI measured)
grep -q '<prop id="psim/run/iprobe-cost" value="1.97123e-08"/>' "$TMPD/p.xml" || bad "no MPI_Iprobe cost"
grep -q '<prop id="psim/run/test-cost" value="3.72365e-09"/>' "$TMPD/p.xml" || bad "no MPI_Test cost"
grep -q '<prop id="psim/run/psimcc-coll-selector" value="mpich"/>' "$TMPD/p.xml" || bad "no collective selection for psimcc's programs"
# a collective's own cost: the 8-byte allreduce measured (0.5199 us) less the model's exchange
# of 8 B, its first segment's 0.3114 us + 8 B at the segment's 1.093 GB/s, shared by the two
# transfers (bus / 2 under bw): 0.3192 us; 0.2007 us
grep -q '<prop id="psim/run/coll-cost" value="2.0065e-07"/>' "$TMPD/p.xml" || bad "no collective cost: $(grep coll-cost "$TMPD/p.xml")"
grep -q '^collectives: MPI_Allreduce of 8 B 0.5199 us, the model.s exchange of 8 B 0.3192 us: 0.201 us a call$' "$TMPD/fit.txt" ||
  bad "the collective cost is not printed: $(grep '^collectives' "$TMPD/fit.txt")"
# what psim run charges such an allreduce on its own (its run of the probe's allreduce, less
# the same without measuring) is not the collective's cost: 0.2007 - 0.05 = 0.1507 us
sed 's/^end$/run-charges 5e-08\nend/' "$M" > "$TMPD/rc.txt"
"$PSIM" calibrate --machine --measurements "$TMPD/rc.txt" --cores 2 -o "$TMPD/rc.xml" >"$TMPD/rcfit.txt" 2>"$TMPD/err" ||
  bad "calibrate with run-charges: exit $? ($(head -c 300 "$TMPD/err"))"
grep -q '<prop id="psim/run/coll-cost" value="1.5065e-07"/>' "$TMPD/rc.xml" || bad "run-charges: $(grep coll-cost "$TMPD/rc.xml")"
grep -q '^collectives: .* 0.3192 us, what psim run charges on its own 0.05 us: 0.151 us a call$' "$TMPD/rcfit.txt" ||
  bad "run-charges are not printed: $(grep '^collectives' "$TMPD/rcfit.txt")"
# processes that waited for a CPU: a small message of milliseconds inside a node is written
# as measured, with a warning (none for the development machine's 0.3 us)
! grep -q 'warning' "$TMPD/err" || bad "a warning on the quiet machine's measurements: $(cat "$TMPD/err")"
awk '$1 == "pingpong" && $2 <= 8 { $3 = "2.0e-03" } { print }' "$M" > "$TMPD/busy.txt"
"$PSIM" calibrate --machine --measurements "$TMPD/busy.txt" --cores 2 -o "$TMPD/busy.xml" >/dev/null 2>"$TMPD/err" ||
  bad "calibrate of a busy machine's measurements: exit $?"
grep -q 'warning: a 1-byte message inside this node took 2000 us, .* waited for a CPU' "$TMPD/err" ||
  bad "no warning for 2 ms messages inside a node: $(cat "$TMPD/err")"
grep -q 'measured it with MPICH' "$TMPD/p.xml" || bad "the platform's comment does not name MPICH"
# the model's one-way time of SIZE bytes, as the fit's table prints it (us)
model_us() { awk -v s="$1" '$1 == s && $3 == "us" { print $4; exit }' "$TMPD/fit.txt"; }
printf 'core0\ncore1\n' >"$TMPD/hosts"
for s in 8 4096 65536 1048576 33554432; do
  printf '0 init\n1 init\n0 send 1 0 %s\n1 recv 0 0 %s\n1 send 0 0 %s\n0 recv 1 0 %s\n0 finalize\n1 finalize\n' \
    "$s" "$s" "$s" "$s" >"$TMPD/pp$s.txt"
  "$PSIM" replay --np 2 --platform "$TMPD/p.xml" --hostfile "$TMPD/hosts" --json "$TMPD/pp$s.json" "$TMPD/pp$s.txt" \
    >/dev/null 2>"$TMPD/rerr" || { bad "replay of a $s-byte ping-pong on the platform failed"; continue; }
  ! grep -q "ignoring" "$TMPD/rerr" || bad "replay ignores some of the platform's <config>: $(grep ignoring "$TMPD/rerr")"
  got=$(json_get "$TMPD/pp$s.json" simulated_time)
  want=$(awk -v m="$(model_us "$s")" 'BEGIN { print 2 * m * 1e-6 }')
  # the table prints 4 significant digits
  rel_close "$got" "$want" 1e-3 || bad "ping-pong of $s bytes replayed in $got s, the model says $want s"
  if [ "$s" = 1048576 ] && command -v smpirun >/dev/null 2>&1; then
    sg=$("$PSIM_SHARED/tools/simgrid-oracle" --np 2 --platform "$TMPD/p.xml" --hostfile "$TMPD/hosts" "$TMPD/pp$s.txt" 2>"$TMPD/sgerr")
    ps=$(awk -v t="$got" 'BEGIN { printf "%.6f", t }')
    [ "$sg" = "$ps" ] || bad "SimGrid replays the 1 MiB ping-pong on the platform in '$sg' s, psim in $ps s ($(head -c 300 "$TMPD/sgerr"))"
  fi
done

# Data the sender has just written (the probe's 'written' lines): a fit of their own, as psim's
# network/written-* factors of the same latency and bandwidth, which a collective's messages
# take. Given 1 us + s / 5 GB/s up to 12 KiB and 4 us + s / 2 GB/s from 16 KiB, the fit is
# those two segments, and a replayed bcast of 1 MiB at 2 ranks (one message) takes 4 us +
# 1048576 / 2 GB/s = 528.288 us, where a send of 1 MiB keeps the ping-pong's model.
awk '$1 == "end" { for (i = 1; i <= n; i++) { s = sz[i]; if (s >= 64) printf "written %d %.9e\n", s, s < 16384 ? 1e-6 + s / 5e9 : 4e-6 + s / 2e9 } }
     { print } $1 == "pingpong" { sz[++n] = $2 }' "$M" > "$TMPD/w.txt"
"$PSIM" calibrate --machine --measurements "$TMPD/w.txt" --cores 2 -o "$TMPD/w.xml" > "$TMPD/wfit.txt" 2> "$TMPD/err" ||
  bad "calibrate with written data: exit $? ($(head -c 300 "$TMPD/err"))"
grep -q "^written data .* fit in 2 segments:" "$TMPD/wfit.txt" &&
  grep -q "^ *64 - *12288 B: 1 us + 5 GB/s" "$TMPD/wfit.txt" && grep -q "^ *16384 - *268435456 B: 4 us + 2 GB/s" "$TMPD/wfit.txt" ||
  bad "the written data's fit is not the two segments: $(sed -n '/^written data/,/bytes/p' "$TMPD/wfit.txt")"
grep -q '<prop id="psim/network/written-bw-factor"' "$TMPD/w.xml" && grep -q '<prop id="psim/network/written-lat-factor"' "$TMPD/w.xml" ||
  bad "no written factors in the platform"
! grep -q 'written' "$TMPD/p.xml" || bad "written factors without written data"
[ "$(sed -n '/<config>/,/<\/config>/p' "$TMPD/p.xml")" = "$(sed -n '/<config>/,/<\/config>/p' "$TMPD/w.xml")" ] ||
  bad "written data changed SMPI's factors"
grep -q "the model.s exchange of 8 B of written data" "$TMPD/wfit.txt" || bad "the collective's cost is not taken from the written data's model"
printf '0 init\n1 init\n0 bcast 1048576 0\n1 bcast 1048576 0\n0 finalize\n1 finalize\n' > "$TMPD/bc.txt"
printf '0 init\n1 init\n0 send 1 0 1048576\n1 recv 0 0 1048576\n0 finalize\n1 finalize\n' > "$TMPD/s.txt"
for t in bc s; do
  "$PSIM" replay --np 2 --platform "$TMPD/w.xml" --hostfile "$TMPD/hosts" --json "$TMPD/$t.json" "$TMPD/$t.txt" > /dev/null 2> "$TMPD/rerr" ||
    bad "replay of $t.txt on the written platform: $(cat "$TMPD/rerr")"
done
rel_close "$(json_get "$TMPD/bc.json" simulated_time)" 528.288e-6 1e-4 ||
  bad "bcast of 1 MiB on the written platform: $(json_get "$TMPD/bc.json" simulated_time) s, expected 528.288 us"
want=$(awk -v m="$(model_us 1048576)" 'BEGIN { print m * 1e-6 }')
rel_close "$(json_get "$TMPD/s.json" simulated_time)" "$want" 1e-3 ||
  bad "a send of 1 MiB on the written platform: $(json_get "$TMPD/s.json" simulated_time) s, the ping-pong's model says $want s"

# bad measurements name the file and the line; a missing MPI says what to install
head -n 20 "$M" >"$TMPD/cut.txt"
"$PSIM" calibrate --machine --measurements "$TMPD/cut.txt" >/dev/null 2>"$TMPD/err"
rc=$?
[ $rc -eq 2 ] && grep -q "cut.txt:20: the measurements end before 'end'" "$TMPD/err" ||
  bad "truncated measurements: exit $rc, $(cat "$TMPD/err")"
"$PSIM" calibrate --machine --mpiexec /nonexistent/mpiexec -o "$TMPD/x.xml" >/dev/null 2>"$TMPD/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no /nonexistent/mpiexec on PATH: install" "$TMPD/err" && [ ! -s "$TMPD/x.xml" ] ||
  bad "missing mpiexec: exit $rc, $(cat "$TMPD/err")"
"$PSIM" calibrate --machine --reps 0 >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q -- "--reps must be at least 1" "$TMPD/err" || bad "--reps 0: $(cat "$TMPD/err")"

# this machine, for real, when MPICH is here (make check installs it)
if command -v mpiexec.mpich >/dev/null 2>&1 && command -v mpicc.mpich >/dev/null 2>&1; then
  "$PSIM" calibrate --machine --quick -o "$TMPD/live.xml" --report "$TMPD/live.html" \
    --save-measurements "$TMPD/live.txt" >"$TMPD/live.out" 2>"$TMPD/err" ||
    bad "psim calibrate --machine --quick: exit $? ($(tail -n 5 "$TMPD/err"))"
  n=$(grep -c '^pingpong ' "$TMPD/live.txt" 2>/dev/null)
  [ "${n:-0}" -ge 40 ] && grep -q '^end$' "$TMPD/live.txt" || bad "saved measurements: ${n:-0} ping-pong sizes"
  n=$(grep -c '^written ' "$TMPD/live.txt" 2>/dev/null)
  [ "${n:-0}" -ge 30 ] || bad "saved measurements: ${n:-0} sizes of written data"
  # psim run ran the probe's allreduce: its own charges, a fraction of the allreduce (not a
  # sanitized psim, which cannot load an MPICH binary: it says so, and the cost keeps it all)
  ldd "$PSIM" 2> /dev/null | grep -q libasan ||
  awk '$1 == "allreduce" { a = $2 } $1 == "run-charges" { c = $2 } END { exit !(a > 0 && c > 0 && c < a) }' "$TMPD/live.txt" ||
    bad "saved measurements: no psim run charges under the allreduce ($(grep -E '^(allreduce|run-charges)' "$TMPD/live.txt"))"
  grep -q '<svg' "$TMPD/live.html" 2>/dev/null || bad "the report has no chart"
  "$PSIM" platform "$TMPD/live.xml" >/dev/null 2>"$TMPD/err" || bad "psim platform refuses the measured platform: $(cat "$TMPD/err")"
  "$PSIM" replay --np 2 --platform "$TMPD/live.xml" --hostfile "$TMPD/hosts" "$TMPD/pp65536.txt" >/dev/null 2>"$TMPD/err" ||
    bad "replay on the measured platform failed: $(cat "$TMPD/err")"
else
  echo "note: no MPICH (mpiexec.mpich, mpicc.mpich): the live calibration is not checked"
fi
finish $fails
