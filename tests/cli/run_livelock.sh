#!/bin/sh
# Livelocks (src/emul/emu_spin.c): a rank that polls in vain and passes time between its polls
# (usleep, nanosleep, a computation, SMPI's injected test sleeps) while the rank it waits for
# waits for it. Before: the simulated clock ran on for ever and the run hung until killed (the
# `timeout 60` below: exit 124). Now: exit 3, reported as a deadlock is, with the date, the
# spinner's poll and what each rank waits for. tests/data/emul/livelock.c, 2 ranks.
# Dates by hand: the n-th poll of rank 0 is at (n - 1) x its pause; the run stops at the
# 2^20-th quiet poll (run/spin-limit's default): 1048575 x 1 ms = 1048.575 s (usleep(1000)),
# x 2 ms = 2097.150 s (nanosleep), x 1 ms (1e6 flops on a 1 Gf host).
# Runs that must end well, the detection never firing: a time-out after 20000 polls (20 s), a
# 1 MB message in flight for 10 s at 100 kB/s while rank 0 polls every 100 us (~100,000 polls),
# and rank 1 polling twice then computing 200 s before it sends while rank 0 polls every 100 us
# (2,000,002 polls: past the limit, but rank 1 never polls again in the streak).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/livelock" "$PSIM_TESTDATA/emul/livelock.c" || { echo "FAIL: psimcc livelock.c"; exit 1; }
run() { # mode extra-options...
  m=$1; shift
  (cd "$TMPD" && timeout 60 "$PSIM" run --np 2 --no-measure -q --platform flat:2,1Gf "$@" -- ./livelock "$m" \
     > "$TMPD/out" 2> "$TMPD/err"); echo $?
}
livelock() { # mode date extra-options...
  m=$1 d=$2; shift 2
  rc=$(run "$m" "$@")
  if [ "$rc" = 3 ] && grep -q "^psim: livelock at simulated time $d: 2 of 2 ranks cannot finish; 1 of them polls in vain" "$TMPD/err" &&
     grep -q "rank 0 (host node-0): polls in vain with MPI_Test: receive from 1 tag 7" "$TMPD/err" &&
     grep -q "rank 1 (host node-1): blocked in MPI_Recv(peer 0, tag 5) at .*livelock.c:[0-9]*: receive from 0 tag 5" "$TMPD/err"; then
    echo "ok   $m: livelock at $d s"
  else
    bad "$m $*: exit status $rc, want 3 and a livelock at $d s: $(head -c 600 "$TMPD/err")"
  fi
}
livelock sleep 1048.575000
livelock nanosleep 2097.150000
livelock work 1048.575000
livelock timeout 0.999000 --cfg run/spin-limit:1000
# growing sleeps (OpenCoarrays' event wait), SMPI's injected test sleeps: no date by hand
for m in backoff "sleep --cfg smpi/test:1e-4"; do
  # shellcheck disable=SC2086
  rc=$(run $m)
  [ "$rc" = 3 ] && grep -q "^psim: livelock at simulated time" "$TMPD/err" && echo "ok   $m: livelock" ||
    bad "$m: exit status $rc, want 3 and a livelock: $(head -c 400 "$TMPD/err")"
done
# the JSON: the date, rank 0 stopped in its poll, rank 1 blocked since 0
rc=$(run sleep --json "$TMPD/l.json")
t=$(json_get "$TMPD/l.json" simulated_time)
close_to "$t" 1048.575 1e-6 && grep -q '"deadlock": "livelock at simulated time 1048.575000' "$TMPD/l.json" &&
  echo "ok   JSON: simulated time $t, the livelock reported" || bad "JSON: simulated time '$t', rc $rc"
# runs that end well
rc=$(run timeout)
[ "$rc" = 0 ] && grep -qx "rank 0 got 42 after 20001 polls at 20.001" "$TMPD/out" && echo "ok   timeout: ends at 20.001 s" ||
  bad "timeout: exit status $rc: $(cat "$TMPD/out" "$TMPD/err" | head -c 400)"
rc=$(run flight --platform flat:2,1Gf,100kBps,10us)
polls=$(sed -n 's/^rank 0 got 0 after \([0-9]*\) polls at .*/\1/p' "$TMPD/out")
[ "$rc" = 0 ] && [ -n "$polls" ] && [ "$polls" -gt 100000 ] && echo "ok   flight: $polls polls while the message moves" ||
  bad "flight: exit status $rc, polls '$polls': $(cat "$TMPD/err" | head -c 400)"
rc=$(run compute)
polls=$(sed -n 's/^rank 0 got 42 after \([0-9]*\) polls at 200.000$/\1/p' "$TMPD/out")
[ "$rc" = 0 ] && [ -n "$polls" ] && [ "$polls" -gt 1048576 ] && echo "ok   compute: $polls polls, ends at 200 s" ||
  bad "compute: exit status $rc: $(cat "$TMPD/out" "$TMPD/err" | head -c 400)"
# both ranks poll and compute, but also make other MPI calls: not a livelock, even with a
# limit of 1000 quiet polls (3000 iterations of 0.1 and 0.15 ms: 0.45 s)
rc=$(run busy --cfg run/spin-limit:1000)
[ "$rc" = 0 ] && grep -qx "rank 0 done at 0.450" "$TMPD/out" && echo "ok   busy: polls between other MPI calls are no livelock" ||
  bad "busy: exit status $rc: $(cat "$TMPD/out" "$TMPD/err" | head -c 400)"
# 0: never (a hang: not run); a bad value is a usage error
rc=$(run sleep --cfg run/spin-limit:-3)
[ "$rc" = 2 ] && grep -q "run/spin-limit expects a whole number of polls" "$TMPD/err" && echo "ok   bad run/spin-limit: exit 2" ||
  bad "bad run/spin-limit: exit status $rc: $(cat "$TMPD/err")"
finish $fails
