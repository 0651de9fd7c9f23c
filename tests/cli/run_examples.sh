#!/bin/sh
# psim run on the example programs (examples/): their output is right, and their simulated
# times are exact when costs are declared (equal to a hand derivation, and to the replay of
# the equivalent trace), and scale inversely with --host-speed-ref when measured.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
check() { if ! "$@"; then echo "FAIL: $*"; fails=$((fails + 1)); fi; }
has() { grep -q "$2" "$1" || { echo "FAIL: '$2' not in output:"; cat "$1"; fails=$((fails + 1)); }; }

for p in ring pi jacobi master_worker globals; do
  "$PSIMCC" -O2 -o "$TMPD/$p" "$PSIM_SRC/examples/$p.c" -lm || { echo "FAIL: psimcc $p"; exit 1; }
done
out=$(tmpfile) js=$(tmpfile) js2=$(tmpfile)

# ring: the token is right; the time equals the replay of the same sends and receives, and of
# rank 0's read of MPI_Wtime at the end (smpi/wtime: 10 ns, as in SMPI)
"$PSIM" run --np 4 --no-measure --json "$js" -q -- "$TMPD/ring" 3 > "$out"; check test $? -eq 0
has "$out" "token 18 (ok)"
tr=$(tmpfile)
for r in 0 1 2 3; do
  echo "$r init"
  for i in 1 2 3; do
    if [ $r = 0 ]; then echo "$r send 1 0 8"; echo "$r recv 3 0 8"
    else echo "$r recv $((r - 1)) 0 8"; echo "$r send $(((r + 1) % 4)) 0 8"; fi
  done
  [ $r = 0 ] && echo "$r sleep 1e-8"
  echo "$r finalize"
done > "$tr"
"$PSIM" replay --np 4 --json "$js2" -q "$tr"
check test "$(json_get "$js" simulated_time)" = "$(json_get "$js2" simulated_time)"

# pi with declared costs: 5 flops per interval on the default platform's 10 Gflop/s hosts.
# One rank: no message at all, 1e6 intervals = 5e6 flops = 0.5 ms exactly.
"$PSIM" run --np 1 --no-measure --json "$js" -q -- "$TMPD/pi" 1000000 --declare > "$out"
has "$out" "(ok)"
check test "$(json_get "$js" simulated_time)" = "0.0005"
# Four ranks: as the trace bcast, compute 1.25e6, reduce
for r in 0 1 2 3; do printf '%s init\n%s bcast 8 0\n%s compute 1.25e6\n%s reduce 8 0 0\n%s finalize\n' $r $r $r $r $r; done > "$tr"
"$PSIM" run --np 4 --no-measure --json "$js" -q -- "$TMPD/pi" 1000000 --declare > "$out"
has "$out" "(ok)"
"$PSIM" replay --np 4 --json "$js2" -q "$tr"
check test "$(json_get "$js" simulated_time)" = "$(json_get "$js2" simulated_time)"

# pi measured: the simulated computing time is CPU time x ref / host speed, so doubling the
# reference speed doubles the simulated time (CPU time varies run to run: loose bounds)
"$PSIM" run --np 1 --host-speed-ref 1e9 --json "$js" -q -- "$TMPD/pi" 20000000 > "$out"
t1=$(json_get "$js" simulated_time)
"$PSIM" run --np 1 --host-speed-ref 4e9 --json "$js" -q -- "$TMPD/pi" 20000000 > "$out"
t4=$(json_get "$js" simulated_time)
check awk -v a="$t1" -v b="$t4" 'BEGIN { r = b / a; exit !(a > 0 && r > 2.5 && r < 6.5) }'

# jacobi: same answer on 1 and 4 ranks; declared costs give the same time twice
"$PSIM" run --np 1 -q -- "$TMPD/jacobi" 48 3000 1e-4 > "$out"; has "$out" "converged after"
s1=$(sed 's/.*sum //' "$out")
"$PSIM" run --np 4 -q -- "$TMPD/jacobi" 48 3000 1e-4 > "$out"; has "$out" "converged after"
s4=$(sed 's/.*sum //' "$out")
check test "$s1" = "$s4"
"$PSIM" run --np 4 --no-measure --json "$js" -q -- "$TMPD/jacobi" 48 50 1e-9 --declare > "$out"
"$PSIM" run --np 4 --no-measure --json "$js2" -q -- "$TMPD/jacobi" 48 50 1e-9 --declare > "$out"
check test "$(json_get "$js" simulated_time)" = "$(json_get "$js2" simulated_time)"

# master/worker with MPI_ANY_SOURCE: all results come back
"$PSIM" run --np 5 --no-measure -q -- "$TMPD/master_worker" 40 > "$out"; has "$out" "sum 20540 (ok)"
# one worker: 40 tasks of (t%7+1) Mflop at 10 Gflop/s, in sequence, plus the messages
"$PSIM" run --np 2 --no-measure --json "$js" -q -- "$TMPD/master_worker" 40 > "$out"
check awk -v t="$(json_get "$js" simulated_time)" 'BEGIN { c = 0; for (i = 0; i < 40; i++) c += (i % 7 + 1) * 1e6 / 1e10; exit !(t > c && t < c + 80 * 2e-5) }'

# globals: private per rank by default, shared with --shared-globals
"$PSIM" run --np 8 -q -- "$TMPD/globals" > "$out"; has "$out" "private globals ok"
"$PSIM" run --np 8 -q --shared-globals -- "$TMPD/globals" > "$out"; has "$out" "private globals SHARED"

# PSIM_SAMPLE: the block runs 3 times of 20, the simulated time still counts 20 of them
"$PSIMCC" -O2 -o "$TMPD/sample" "$PSIM_TESTDATA/emul/sample.c" || { echo "FAIL: psimcc sample"; exit 1; }
"$PSIM" run --np 2 --host-speed-ref 1e10 -q -- "$TMPD/sample" > "$out"; has "$out" "block ran 3 times of 20"

# 1024 ranks in one process
"$PSIM" run --np 1024 --no-measure -q -- "$TMPD/ring" 2 > "$out"; has "$out" "token 1047552 (ok)"
finish $fails
