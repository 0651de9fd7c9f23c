#!/bin/sh
# Measuring computation must not cost what it measures (issue 9): a loop of MPI calls with
# nothing between them is charged (almost) no computation, so a ping-pong's predicted latency
# is the model's; a real computation is still measured. Hosts of 1 Gflop/s with a host speed
# reference of 1e9: a CPU second of the program is a simulated second.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O2 -o "$TMPD/spin" "$PSIM_TESTDATA/emul/spin.c" || { echo "FAIL: psimcc"; exit 1; }
n=20000
run() { name=$1; shift; "$PSIM" run --np 2 --platform flat:2,1Gf -q --json "$TMPD/$name.json" "$@" > /dev/null; }
# 20000 round trips = 40002+ MPI calls per rank with nothing between them
run empty --host-speed-ref 1e9 -- "$TMPD/spin" 0 $n || bad "run (measured): rc $?"
run exact --no-measure -- "$TMPD/spin" 0 $n || bad "run --no-measure: rc $?"
t=$(json_get "$TMPD/empty.json" simulated_time) t0=$(json_get "$TMPD/exact.json" simulated_time)
c=$(grep -o '"compute_time": [-0-9.eE+]*' "$TMPD/empty.json" | sed 's/.*: //' | sort -g | tail -n 1)
echo "ping-pong of $n round trips: measured $t s, declared-only $t0 s; largest rank compute $c s"
# bound: 0.4 us of computation per MPI call on average (reading the thread CPU clock around
# every call cost ~2 us per call before; about 25 ns is measured on a quiet machine, 130 ns
# when the other core runs tests too)
awk -v c="$c" -v n=$n 'BEGIN { exit !(c != "" && c + 0 <= 0.4e-6 * 2 * n) }' || bad "phantom computation: $c s for $((2 * n)) calls"
rel_close "$t" "$t0" 0.12 || bad "measured ping-pong $t s against the model's $t0 s"
# a real computation is measured: rank 0 spins for 0.05 s of CPU time
run spin --host-speed-ref 1e9 -- "$TMPD/spin" 0.05 0 || bad "run spin: rc $?"
c0=$(grep -o '"compute_time": [-0-9.eE+]*' "$TMPD/spin.json" | head -n 1 | sed 's/.*: //')
echo "rank 0 spinning 0.05 s of CPU: compute $c0 s"
awk -v c="$c0" 'BEGIN { exit !(c != "" && c + 0 >= 0.05 && c + 0 <= 0.06) }' || bad "spin of 0.05 s measured as $c0 s"
# sleep() uses no CPU but is simulated time (rt_sleep.c), measured or not: a rank's sleep(1)
# before MPI_Init and another inside make 2 s; a thread of the program's own sleeps for real
"$PSIMCC" -o "$TMPD/sleep_thread" "$PSIM_TESTDATA/emul/sleep_thread.c" -lpthread || bad "psimcc sleep_thread.c"
for m in --no-measure "--host-speed-ref 1e9"; do
  # shellcheck disable=SC2086
  out=$(timeout 60 "$PSIM" run --np 2 -q $m -- "$TMPD/sleep_thread") || bad "sleep_thread $m: rc $?"
  t=$(echo "$out" | sed -n 's/^rank 0 at //p')
  echo "sleep_thread $m: rank 0 at $t s"
  close_to "$t" 2 1e-3 || bad "sleep_thread $m: rank 0 at '$t' s, want 2 (two simulated sleeps of 1 s)"
done
finish $fails
