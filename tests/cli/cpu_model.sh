#!/bin/sh
# The CPU model (docs/models.md): CPU used by communication (DPS), background users with CFS
# nice weights and the load average (CLUE). Every expected value is derived by hand in the
# comments. Platform tests/data/cpu/cpu2.xml: one-core hosts a and b, a two-core host c, 1e9
# flop/s per core (1e9 flops = 1 CPU-second), 1e6 B/s links without latency.
set -u
. "$(dirname "$0")/../lib/common.sh"
D="$PSIM_TESTDATA/cpu"
PLAT="$D/cpu2.xml"
fails=0
J=$(tmpfile)
# run NAME ARGS...: psim replay --json $J (quiet); a failure counts
run() {
  name=$1; shift
  if ! "$PSIM" replay --quiet --platform "$PLAT" --json "$J" "$@" >"$TMPD/out" 2>&1; then
    bad "$name: psim failed: $(cat "$TMPD/out")"; : >"$J"; return 1
  fi
}
finish_of() { grep "\"rank\": $1," "$J" | sed -n 's/.*"finish_time": \([^,]*\),.*/\1/p'; }
# host_val HOST KEY: cpu_app, cpu_comm or cpu_background of HOST in "hosts"
host_val() { grep "{\"host\": \"$1\", \"cpu_app\"" "$J" | grep -o "\"$2\": [-0-9.eE+]*" | sed 's/.*: //'; }
# expect NAME GOT WANT [TOL]: relative tolerance (1e-9 by default)
expect() {
  if rel_close "$2" "$3" "${4:-1e-9}"; then echo "ok   $1: $2"
  else bad "$1: psim '$2', hand-derived $3"; fi
}
trace() { f=$1; shift; : >"$f"; for l in "$@"; do printf '%s\n' "$l" >>"$f"; done; }
CONST="--network constant"
# smpi with every factor 1 and no cross-traffic: 999984 + 16 envelope bytes take 1 s
SMPI="--cfg network/crosstraffic:no --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"

# ---- 1. DPS's example: rank 1 (b) computes 1e9 flops (1 s) while receiving 1e6 bytes
#      (1 s). With recv-cost 0.5 the computation gets half of b's CPU during [0, 1]: 0.5 s of
#      work done, 0.5 s left at full speed: it ends at 1.5 s. b's communication CPU: 0.5 x 1 s.
T=$TMPD/overlap.txt
trace "$T" "0 init" "1 init" "0 send 1 0 1000000" "1 irecv 0 0 1000000" "1 compute 1e9" "1 wait 0 1 0"
run "no cost" $CONST --hostfile "$D/ab.hosts" "$T" && expect "no cost: rank 1 ends at 1" "$(finish_of 1)" 1
grep -q '"cpu_model"' "$J" && bad "no CPU option: the JSON must not have cpu_model"
run "recv-cost 0.5 (constant)" $CONST --hostfile "$D/ab.hosts" --cfg cpu/recv-cost:0.5 "$T" && {
  expect "recv-cost 0.5 constant: rank 1" "$(finish_of 1)" 1.5
  expect "recv-cost 0.5 constant: cpu_comm b" "$(host_val b cpu_comm)" 0.5
  expect "recv-cost 0.5 constant: cpu_app b" "$(host_val b cpu_app)" 1
  expect "recv-cost 0.5 constant: cpu_comm a (sender, send-cost 0)" "$(host_val a cpu_comm)" 0 0
  grep -q '"cpu_model": {"send_cost": 0, "recv_cost": 0.5, "app_nice": 0, "background": "none"}' "$J" ||
    bad "cpu_model section: $(grep cpu_model "$J")"
}
T=$TMPD/overlap_smpi.txt
trace "$T" "0 init" "1 init" "0 send 1 0 999984" "1 irecv 0 0 999984" "1 compute 1e9" "1 wait 0 1 0"
run "recv-cost 0.5 (smpi)" $SMPI --hostfile "$D/ab.hosts" --cfg cpu/recv-cost:0.5 "$T" &&
  expect "recv-cost 0.5 smpi: rank 1" "$(finish_of 1)" 1.5
run "recv-cost 0.5 (smpi, optim Full)" $SMPI --cfg network/optim:Full --hostfile "$D/ab.hosts" --cfg cpu/recv-cost:0.5 "$T" &&
  expect "recv-cost 0.5 smpi Full: rank 1" "$(finish_of 1)" 1.5

# ---- 2. send vs receive cost: both ranks compute 1e9 while rank 0 (a) sends 1e6 bytes to
#      rank 1 (b) in 1 s. send-cost 0.2: a's computation does 0.8 in [0, 1], ends at 1.2;
#      recv-cost 0.6: b's does 0.4, ends at 1.6. CPU for communication: a 0.2, b 0.6.
T=$TMPD/both.txt
trace "$T" "0 init" "1 init" "0 isend 1 0 1000000" "1 irecv 0 0 1000000" "0 compute 1e9" "1 compute 1e9" "0 wait 0 1 0" "1 wait 0 1 0"
for net in constant smpi; do
  if [ $net = smpi ]; then sed 's/1000000/999984/' "$T" > "$T.s"; tr="$T.s"; args=$SMPI; else tr=$T; args=$CONST; fi
  # shellcheck disable=SC2086
  run "send/recv $net" $args --hostfile "$D/ab.hosts" --cfg cpu/send-cost:0.2 --cfg cpu/recv-cost:0.6 "$tr" && {
    expect "$net send-cost 0.2: rank 0" "$(finish_of 0)" 1.2
    expect "$net recv-cost 0.6: rank 1" "$(finish_of 1)" 1.6
    expect "$net cpu_comm a" "$(host_val a cpu_comm)" 0.2
    expect "$net cpu_comm b" "$(host_val b cpu_comm)" 0.6
  }
done

# ---- 3. cap at the whole CPU: b receives from a and from c at once (1 s each, separate
#      links) while computing 1e9. recv-cost 0.75: demand 1.5 > 1 core, capped: no CPU left
#      during [0, 1], then 1 s alone: ends at 2; communication CPU = 1 core x 1 s.
#      recv-cost 0.25: demand 0.5: 0.5 done in [0, 1], ends at 1.5; communication 0.5.
T=$TMPD/cap.txt
trace "$T" "0 init" "1 init" "2 init" "0 send 1 0 1000000" "2 send 1 0 1000000" "1 irecv 0 0 1000000" \
  "1 irecv 2 0 1000000" "1 compute 1e9" "1 wait 0 1 0" "1 wait 2 1 0"
run "cap" $CONST --hostfile "$D/abc.hosts" --cfg cpu/recv-cost:0.75 "$T" && {
  expect "cap: rank 1" "$(finish_of 1)" 2
  expect "cap: cpu_comm b" "$(host_val b cpu_comm)" 1
}
run "two receives" $CONST --hostfile "$D/abc.hosts" --cfg cpu/recv-cost:0.25 "$T" && {
  expect "two receives 0.25: rank 1" "$(finish_of 1)" 1.5
  expect "two receives 0.25: cpu_comm b" "$(host_val b cpu_comm)" 0.5
}

# ---- 4. the left-over CPU is shared evenly: ranks 1 and 2 both compute 1e9 on b, rank 1
#      receives for 1 s at recv-cost 0.5. [0, 1]: 0.5 core left, 0.25 each (0.75 s left
#      each); then 0.5 each: 1.5 s more: both end at 2.5.
T=$TMPD/share.txt
trace "$T" "0 init" "1 init" "2 init" "0 send 1 0 1000000" "1 irecv 0 0 1000000" "1 compute 1e9" \
  "2 compute 1e9" "1 wait 0 1 0"
run "share" $CONST --hostfile "$D/abb.hosts" --cfg cpu/recv-cost:0.5 "$T" && {
  expect "share: rank 1" "$(finish_of 1)" 2.5
  expect "share: rank 2" "$(finish_of 2)" 2.5
}
# ---- 5. multi-core (c: 2 cores): communication takes 0.5 core, 1.5 cores are left. One
#      computation (at most 1 core) is not slowed: 1 s. Two: 0.75 core each during [0, 1],
#      then 0.25 s left at 1 core each: 1.25.
run "2 cores, 1 computation" $CONST --hostfile "$D/ac.hosts" --cfg cpu/recv-cost:0.5 "$TMPD/overlap.txt" &&
  expect "2 cores, 1 computation: rank 1" "$(finish_of 1)" 1
run "2 cores, 2 computations" $CONST --hostfile "$D/acc.hosts" --cfg cpu/recv-cost:0.5 "$T" && {
  expect "2 cores, 2 computations: rank 1" "$(finish_of 1)" 1.25
  expect "2 cores, 2 computations: rank 2" "$(finish_of 2)" 1.25
}

# ---- 6. background processes and nice (CFS weights: 1024 at nice 0, 15 at 19, 335 at 5).
#      Rank 0 on a computes 1e9 (1 s alone).
T=$TMPD/one.txt
trace "$T" "0 init" "0 compute 1e9"
# one nice-0 competitor: half the CPU: 2 s; it got 1 CPU-second
run "bg nice 0" --cfg background/count:1 --hostfile "$D/ab.hosts" "$T" && {
  expect "nice-0 competitor halves: finish" "$(finish_of 0)" 2
  expect "nice-0 competitor: cpu_background a" "$(host_val a cpu_background)" 1
  # the competitors are on every host: on c (2 cores, no rank) one got a whole core for 2 s
  expect "nice-0 competitor: cpu_background c (no rank)" "$(host_val c cpu_background)" 2
}
# nice 19: the application gets 1024 / 1039: 1039 / 1024 = 1.0146484375 s (1.5 % slower)
run "bg nice 19" --cfg background/count:1 --cfg background/nice:19 --hostfile "$D/ab.hosts" "$T" && {
  expect "nice-19 competitor: finish" "$(finish_of 0)" 1.0146484375
  expect "nice-19 competitor: cpu_background a" "$(host_val a cpu_background)" 0.0146484375
}
# the application at nice 5 (weight 335) against a nice-0 process: 1359 / 335 s
run "app nice 5" --cfg background/count:1 --cfg cpu/app-nice:5 --hostfile "$D/ab.hosts" "$T" &&
  expect "app nice 5: finish" "$(finish_of 0)" "$(awk 'BEGIN { printf "%.17g", 1359 / 335 }')"
# two nice-0 competitors: a third: 3 s
run "bg count 2" --cfg background/count:2 --hostfile "$D/ab.hosts" "$T" &&
  expect "two competitors: finish" "$(finish_of 0)" 3

# ---- 7. a trace of arrivals: rank 0 on a computes 4e9 (4 s alone); bg.trace: a process
#      arrives at 1 wanting 1 CPU-second, another at 2 wanting 0.5.
#      [0,1] app alone: 3 s left. [1,2] app and P1 at 1/2: app 2.5 left, P1 0.5 left.
#      [2,3.5] three at 1/3: P1 and P2 (0.5 each) leave at 3.5, app 2 left. [3.5,5.5] alone.
#      Load average every 0.75 s with betas 0, 0.5, 1: N at 0.75, 1.5, ..., 5.25 is
#      1 2 3 3 1 1 1; beta 0 gives N; beta 0.5: L = L/2 + N/2 = .5 1.25 2.125 2.5625 1.78125
#      1.390625 1.1953125; beta 1 stays 0.
T=$TMPD/four.txt
trace "$T" "0 init" "0 compute 4e9"
run "trace" --background "$D/bg.trace" --cfg loadavg/period:0.75 --cfg loadavg/betas:0,0.5,1 --hostfile "$D/ab.hosts" "$T" && {
  expect "trace: finish" "$(finish_of 0)" 5.5
  expect "trace: cpu_background a" "$(host_val a cpu_background)" 1.5
  want='[[0.75, 1, 0.5, 0], [1.5, 2, 1.25, 0], [2.25, 3, 2.125, 0], [3, 3, 2.5625, 0], [3.75, 1, 1.78125, 0], [4.5, 1, 1.390625, 0], [5.25, 1, 1.1953125, 0]]'
  grep -qF "{\"host\": \"a\", \"samples\": $want}" "$J" && echo "ok   trace: load average samples" ||
    bad "trace: load average samples $(grep '"samples"' "$J")"
  grep -qF '"labels": ["beta=0", "beta=0.5", "beta=1"]' "$J" || bad "trace: labels of custom betas"
  grep -q '"background": "trace"' "$J" || bad "trace: cpu_model.background"
}
# the same through --cfg background/trace
run "trace cfg" --cfg "background/trace:$D/bg.trace" --hostfile "$D/ab.hosts" "$T" &&
  expect "trace (cfg): finish" "$(finish_of 0)" 5.5
# the same arrivals out of order (sorted by date on reading), with a process that stays
# (inf) on b, where no rank runs: it gets b's whole CPU for the 5.5 s
printf '2 a 0.5 0\n0 b inf 0\n1 a 1 0\n' > "$TMPD/unsorted.trace"
run "trace unsorted" --background "$TMPD/unsorted.trace" --hostfile "$D/ab.hosts" "$T" && {
  expect "trace unsorted: finish" "$(finish_of 0)" 5.5
  expect "trace unsorted: cpu_background b" "$(host_val b cpu_background)" 5.5
}

# ---- 8. the load average in closed form: one constant competitor and the application
#      computing 99e9 (198 s at half speed): N = 2 at every sample (5, 10, ..., 195: 39
#      samples), so L_k(5j) = 2 (1 - b^j) with b = exp(-5/60), exp(-5/300), exp(-5/900).
T=$TMPD/long.txt
trace "$T" "0 init" "0 compute 99e9"
run "loadavg closed form" --cfg background/count:1 --hostfile "$D/ab.hosts" "$T" && {
  expect "loadavg: finish" "$(finish_of 0)" 198
  s=$(grep '{"host": "a", "samples"' "$J" | grep -o '\[[0-9.e+-]*, [0-9.e+-]*, [0-9.e+-]*, [0-9.e+-]*\]')
  n=$(printf '%s\n' "$s" | grep -c .)
  [ "$n" -eq 39 ] && echo "ok   loadavg: 39 samples" || bad "loadavg: $n samples, expected 39"
  last=$(printf '%s\n' "$s" | tail -n 1 | tr -d '[],')
  for k in 1 2 3; do
    got=$(echo "$last" | awk -v k=$k '{ print $(k + 1) }')
    want=$(awk -v k=$k 'BEGIN { w[1] = 60; w[2] = 300; w[3] = 900; printf "%.17g", 2 * (1 - exp(-5 / w[k] * 39)) }')
    expect "loadavg at 195 s, average $k" "$got" "$want" 1e-12
  done
  echo "$last" | awk '{ exit !($1 == 195) }' || bad "loadavg: last sample at $last"
  grep -qF '"labels": ["1min", "5min", "15min"]' "$J" || bad "loadavg: default labels"
}
# bounded: at most loadavg/max-samples per host (every other sample kept when full)
run "loadavg bounded" --cfg background/count:1 --cfg loadavg/max-samples:10 --hostfile "$D/ab.hosts" "$T" && {
  n=$(grep '{"host": "a", "samples"' "$J" | grep -o '\[[0-9.e+-]*, ' | grep -c .)
  # 39 samples, kept: every 4th once 10 were exceeded twice: 20, 40, ..., 180 -> 9 samples
  [ "$n" -eq 9 ] && echo "ok   loadavg bounded: 9 samples" || bad "loadavg bounded: $n samples, expected 9"
}

# ---- 9. Poisson users: reproducible by seed; on a one-core host the CPU is never idle while
#      the application runs, so its finish = its CPU + the background's CPU (exact identity).
T=$TMPD/p.txt
trace "$T" "0 init" "0 compute 100e9"
P="--cfg background/poisson:0.05,5,0,7 --hostfile $D/ab.hosts"
# shellcheck disable=SC2086
run "poisson" $P "$T" && {
  cp "$J" "$TMPD/p1.json"
  f=$(finish_of 0) bg=$(host_val a cpu_background)
  expect "poisson: finish = 100 + background CPU" "$f" "$(awk -v b="$bg" 'BEGIN { printf "%.17g", 100 + b }')"
  awk -v b="$bg" 'BEGIN { exit !(b > 5) }' || bad "poisson: background CPU $bg (0.05/s x 5 s over 100+ s)"
  grep -q '"background": "poisson"' "$J" || bad "poisson: cpu_model.background"
}
# shellcheck disable=SC2086
run "poisson again" $P "$T" && { cmp -s "$J" "$TMPD/p1.json" && echo "ok   poisson: same seed, same JSON" || bad "poisson: two runs differ"; }
run "poisson seed 8" --cfg background/poisson:0.05,5,0,8 --hostfile "$D/ab.hosts" "$T" &&
  { [ "$(finish_of 0)" != "$(json_get "$TMPD/p1.json" finish_time)" ] && echo "ok   poisson: another seed, another run" || bad "poisson: seed 8 = seed 7"; }

# ---- 10. bad input: file:line errors, exit status 2
badtrace() { # NAME LINE-TEXT EXPECTED-MESSAGE-PART
  printf '# header\n0 a 1 0\n%s\n' "$2" > "$TMPD/bad.trace"
  "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$D/ab.hosts" --background "$TMPD/bad.trace" "$TMPD/one.txt" >/dev/null 2>"$TMPD/err"
  rc=$?
  if [ $rc -eq 2 ] && grep -q "bad.trace:3: .*$3" "$TMPD/err"; then echo "ok   bad trace ($1): $(cat "$TMPD/err")"
  else bad "bad trace ($1): exit $rc, $(cat "$TMPD/err")"; fi
}
badtrace "3 fields" "1 a 2" "3 fields"
badtrace "unknown host" "1 zz 2 0" "unknown host 'zz'"
badtrace "negative time" "-1 a 2 0" "bad time"
badtrace "bad cpu" "1 a x 0" "bad cpu_seconds"
badtrace "nice 20" "1 a 1 20" "bad nice"
"$PSIM" replay --quiet --platform "$PLAT" --background "$TMPD/none.trace" "$TMPD/one.txt" >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q "none.trace" "$TMPD/err" && echo "ok   missing trace file" || bad "missing trace file: $(cat "$TMPD/err")"
for c in cpu/send-cost:1.5 cpu/recv-cost:-0.1 cpu/app-nice:20 background/count:x background/poisson:1,2,3 \
  background/poisson:0,1,0,1 loadavg/betas:0.5,2,0.1 loadavg/period:0 loadavg/max-samples:0; do
  "$PSIM" replay --quiet --platform "$PLAT" --cfg "$c" "$TMPD/one.txt" >/dev/null 2>"$TMPD/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q -- "--cfg ${c%%:*}" "$TMPD/err" && echo "ok   --cfg $c rejected" || bad "--cfg $c: exit $rc, $(cat "$TMPD/err")"
done

# ---- 11. psim lb: 2 VPs on the PEs of a and b, the same overlap as in 1: 1.5 s; one
#      background process per PE host halves the speed of the 1-s computation of a VP.
T=$TMPD/overlap.txt
if "$PSIM" lb "$T" --platform "$PLAT" $CONST --pes 2 --balancer none --quiet --json "$J" --cfg cpu/recv-cost:0.5 >"$TMPD/out" 2>&1; then
  expect "lb recv-cost 0.5: makespan" "$(json_get "$J" simulated_time)" 1.5
  expect "lb recv-cost 0.5: cpu_comm b" "$(host_val b cpu_comm)" 0.5
else bad "psim lb: $(cat "$TMPD/out")"; fi
if "$PSIM" lb "$TMPD/one.txt" --platform "$PLAT" --pes 1 --balancer none --quiet --json "$J" --cfg background/count:1 >"$TMPD/out" 2>&1; then
  expect "lb nice-0 competitor: makespan" "$(json_get "$J" simulated_time)" 2
else bad "psim lb background: $(cat "$TMPD/out")"; fi

# ---- 12. psim run: a C program doing the overlap of 1 (psim_compute(1e9) while receiving
#      1e6 bytes): 1.5 s; with a nice-0 competitor on every host as well, rank 1 gets
#      (1 - 0.5) / 2 = 0.25 core during [0, 1] and 0.5 after: 1 + 0.75 / 0.5 = 2.5 s.
PSIMCC="$(dirname "$PSIM")/psimcc"
if "$PSIMCC" -O1 -o "$TMPD/overlap" "$D/overlap.c" 2>"$TMPD/err"; then
  for c in "--cfg cpu/recv-cost:0.5:1.5" "--cfg cpu/recv-cost:0.5 --cfg background/count:1:2.5"; do
    want=${c##*:} args=${c%:*}
    # shellcheck disable=SC2086
    if "$PSIM" run --np 2 --platform "$PLAT" --hostfile "$D/ab.hosts" $CONST --no-measure -q --json "$J" $args -- "$TMPD/overlap" >"$TMPD/out" 2>&1; then
      expect "run $args: simulated time" "$(json_get "$J" simulated_time)" "$want"
    else bad "psim run $args: $(cat "$TMPD/out")"; fi
  done
  expect "run: cpu_comm b" "$(host_val b cpu_comm)" 0.5
else bad "psimcc: $(cat "$TMPD/err")"; fi
finish $fails
