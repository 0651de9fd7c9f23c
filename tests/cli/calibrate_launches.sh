#!/bin/sh
# psim calibrate --machine --launches N (docs/calibrate.md): the probe runs N times and each
# size keeps its best launch. A fake MPI here (an mpicc that writes a script, an mpiexec that
# runs it) makes launch 1 slow at 1 KiB and launch 2 slow at 1 B and at MPI_Iprobe; every
# other time is 2 us + size x 1 ns. The best of the two is that line everywhere, so the fit
# is one segment of 2 us and 1 GB/s; with one launch (--quick's default) the 1 KiB point
# stays 2x slow. The probe's scratch directory is gone afterwards.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
F=$TMPD/fake
mkdir -p "$F" "$TMPD/tmp"
cat > "$F/mpicc" <<'X'
#!/bin/sh
# the fake MPI's compiler: -O2 -o EXE SRC writes EXE, a script printing the probe's format
while [ $# -gt 0 ]; do [ "$1" = -o ] && { exe=$2; shift; }; shift; done
cat > "$exe" <<'Y'
#!/bin/sh
d=$(dirname "$0")/../fake
n=$(cat "$d/count" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$d/count"
echo "probe 1 $1"
for s in 1 1024 65536 1048576; do
  t=$(awk -v s=$s -v n=$n 'BEGIN { t = 2e-6 + s * 1e-9; if (n == 1 && s == 1024) t *= 2;
                                    if (n == 2 && s == 1) t *= 3; printf "%.9e", t }')
  echo "pingpong $s $t"
done
[ $n = 2 ] && echo "iprobe 4e-08" || echo "iprobe 2e-08"
echo end
Y
chmod +x "$exe"
X
cat > "$F/mpiexec" <<'X'
#!/bin/sh
# the fake MPI's launcher: --version names Hydra; -n 2 EXE ARGS... runs EXE once
[ "$1" = --version ] && { echo "HYDRA build details: fake"; exit 0; }
echo "$*" >> "$(dirname "$0")/calls"
shift 2
exec "$@"
X
chmod +x "$F/mpicc" "$F/mpiexec"

# the probe is built in $TMPDIR/psim-calibrate.XXXXXX: the fake probe finds its counter beside it
ln -s "$F" "$TMPD/tmp/fake"
TMPDIR=$TMPD/tmp "$PSIM" calibrate --machine --quick --launches 2 --mpiexec "$F/mpiexec" --mpicc "$F/mpicc" \
  -o "$TMPD/p.xml" --save-measurements "$TMPD/m.txt" >"$TMPD/out" 2>"$TMPD/err" ||
  bad "calibrate with the fake MPI: exit $? ($(tail -n 3 "$TMPD/err"))"
[ "$(wc -l < "$F/calls")" = 2 ] && grep -q "^-n 2 $TMPD/tmp/psim-calibrate\.......\/psim_probe 4194304 3$" "$F/calls" ||
  bad "the probe was not launched twice as 'mpiexec -n 2 probe 4194304 3': $(cat "$F/calls")"
grep -q "launch 2 of 2" "$TMPD/err" || bad "stderr does not name the launches: $(cat "$TMPD/err")"
grep -q "^2 launches of the probe, each size's best: the 1-byte ping-pong took 2.001, 6.003 us$" "$TMPD/out" ||
  bad "the summary does not print each launch's 1-byte time: $(head -n 2 "$TMPD/out")"
for want in "pingpong 1 2.001000000e-06" "pingpong 1024 3.024000000e-06" "pingpong 65536 6.753600000e-05" \
            "iprobe 2.000000000e-08"; do
  grep -q "^$want$" "$TMPD/m.txt" || bad "saved measurements: no '$want' (each size's best): $(cat "$TMPD/m.txt")"
done
grep -q "1 segments\|1 segment" "$TMPD/out" || bad "the best of the launches is not one line: $(grep segment "$TMPD/out")"
grep -q 'bw="1e+09Bps"' "$TMPD/p.xml" || bad "the bandwidth is not 1 GB/s: $(grep bw= "$TMPD/p.xml")"
[ -z "$(ls "$TMPD/tmp" | grep -v '^fake$')" ] || bad "the scratch directory is left: $(ls -R "$TMPD/tmp")"

# one launch (--quick's default): the slow 1 KiB point stays
rm -f "$F/count" "$F/calls"
TMPDIR=$TMPD/tmp "$PSIM" calibrate --machine --quick --mpiexec "$F/mpiexec" --mpicc "$F/mpicc" \
  -o "$TMPD/p1.xml" --save-measurements "$TMPD/m1.txt" >"$TMPD/out1" 2>"$TMPD/err1" ||
  bad "one launch: exit $? ($(tail -n 3 "$TMPD/err1"))"
[ "$(wc -l < "$F/calls")" = 1 ] || bad "--quick launched the probe $(wc -l < "$F/calls") times, not once"
grep -q "^pingpong 1024 6.048000000e-06$" "$TMPD/m1.txt" || bad "one launch: 1 KiB is not launch 1's: $(grep 'pingpong 1024' "$TMPD/m1.txt")"
grep -q "launches of the probe" "$TMPD/out1" && bad "one launch prints the launches' line"
grep -q "launch 1 of" "$TMPD/err1" && bad "one launch names 'launch 1 of'"

"$PSIM" calibrate --machine --launches 0 >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q -- "--launches must be at least 1" "$TMPD/err" || bad "--launches 0: $(cat "$TMPD/err")"
finish $fails
