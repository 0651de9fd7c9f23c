#!/bin/sh
# psim run benchmarks: cost of a block/resume (two context switches and a timer event), small
# messages per second with one and with many in flight, and wall vs simulated time of the
# examples. Usage: bench/emul_bench.sh [BUILD_DIR]
B=${1:-build}
PSIM=$B/psim
CC=$B/psimcc
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$CC -O2 -o "$T/pp" bench/emul_pingpong.c || exit 1
for p in ring jacobi pi; do $CC -O2 -o "$T/$p" examples/$p.c -lm || exit 1; done
wall() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -n 1; }
n=1000000
w=$(wall $PSIM run --np 1 --no-measure -q -- "$T/pp" $n sleep)
echo "block+resume (psim_sleep): $(awk -v w=$w -v n=$n 'BEGIN{printf "%.0f ns", w/n*1e9}') per call ($n calls, $w s)"
for np in 2 64 1024; do
  n=$((400000 / np * 2)); [ $n -lt 1000 ] && n=1000
  msgs=$((np / 2 * 2 * n))
  w=$(wall $PSIM run --np $np --no-measure -q -- "$T/pp" $n)
  echo "ping-pong, $np ranks ($((np / 2)) messages in flight): $(awk -v w=$w -v m=$msgs 'BEGIN{printf "%.0f", m/w}') messages/s ($msgs messages, $w s)"
done
# measuring must not cost what it measures: a 1-byte ping-pong's one-way time, measured CPU
# time (1 Gflop/s hosts, reference 1e9: a CPU second is a simulated second) against declared
# costs only (the model's latency)
for m in "--host-speed-ref 1e9" --no-measure; do
  $PSIM run --np 2 --platform flat:2,1Gf $m -q --json "$T/l.json" -- "$T/pp" 100000 1 > /dev/null
  s=$(grep -o '"simulated_time": [0-9.e+-]*' "$T/l.json" | head -n1 | sed 's/.*: //')
  echo "ping-pong one-way time ($m): $(awk -v s=$s 'BEGIN{printf "%.3f", s / 200000 * 1e6}') us"
done
for np in 16 256; do
  w=$(wall $PSIM run --np $np --no-measure -q -- "$T/jacobi" 512 200 1e-12 --declare)
  $PSIM run --np $np --no-measure --json "$T/j.json" -q -- "$T/jacobi" 512 200 1e-12 --declare >/dev/null
  m=$(grep -o '"messages": [0-9]*' "$T/j.json" | head -n1 | sed 's/.*: //')
  s=$(grep -o '"simulated_time": [0-9.e+-]*' "$T/j.json" | head -n1 | sed 's/.*: //')
  echo "jacobi 512x512, 200 iterations, $np ranks (declared costs): $w s wall, $s s simulated, $(awk -v w=$w -v m=$m 'BEGIN{printf "%.0f", m/w}') messages/s"
done
w=$(wall $PSIM run --np 1024 --no-measure -q -- "$T/ring" 100)
echo "ring of 1024 ranks, 100 rounds (one message in flight): $(awk -v w=$w 'BEGIN{printf "%.0f", 102400/w}') messages/s ($w s)"
/usr/bin/time -f "%M" $PSIM run --np 1024 --no-measure -q -- "$T/jacobi" 1024 10 1e-12 --declare 2> "$T/mem" >/dev/null
/usr/bin/time -f "%M" $PSIM run --np 1024 --no-measure -q --shared-globals -- "$T/jacobi" 1024 10 1e-12 --declare 2> "$T/mem2" >/dev/null
echo "jacobi 1024x1024 on 1024 ranks: peak RSS $(tail -n1 "$T/mem") kB private globals, $(tail -n1 "$T/mem2") kB shared globals"
w1=$(wall $PSIM run --np 4 --host-speed-ref 2e9 -q -- "$T/pi" 100000000)
$PSIM run --np 4 --host-speed-ref 2e9 --json "$T/p.json" -q -- "$T/pi" 100000000 >/dev/null
echo "pi 1e8 intervals, 4 ranks, measured: $w1 s wall, $(grep -o '"simulated_time": [0-9.e+-]*' "$T/p.json" | head -n1 | sed 's/.*: //') s simulated (10 Gflop/s hosts, ref 2e9)"
