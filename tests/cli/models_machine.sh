#!/bin/sh
# CLUE's machine file (--machine, docs/models.md): hand-derived times. Platform flat:N,1e9,1e6,0
# (1 Gflop/s hosts node-0.., 1 MB/s links, no latency) under the constant network model unless
# said otherwise: a message of s bytes alone takes s / 1e6 s. Expected values are computed here
# by awk from the file's points; psim's --json times must agree to 1e-9 relative.
set -u
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
J=$(tmpfile)
M=$TMPD/machine.txt
finish_of() { grep "\"rank\": $1," "$J" | sed -n 's/.*"finish_time": \([^,]*\),.*/\1/p'; }
compute_of() { grep "\"rank\": $1," "$J" | sed -n 's/.*"compute_time": \([^,]*\),.*/\1/p'; }
expect() { # NAME GOT WANT
  if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"; else bad "$1: psim $2, hand-derived $3"; fi
}
calc() { awk "BEGIN { printf \"%.17g\n\", $1 }"; }
replay() { # NAME ARGS...: replay into $J
  name=$1; shift
  "$PSIM" replay --quiet --json "$J" "$@" > "$TMPD/out" 2>&1 || { bad "$name: psim failed: $(cat "$TMPD/out")"; : > "$J"; }
}
trace() { f=$1; shift; : > "$f"; for l in "$@"; do printf '%s\n' "$l" >> "$f"; done; }
machine() { : > "$M"; for l in "$@"; do printf '%s\n' "$l" >> "$M"; done; }

# ---- (a) performance factors: 1e9 flops = 1 s at factor 1. node-1 has 2.5 (a later line
#      overrides the earlier wildcard one), node-0 keeps 1.0; --cfg cpu/factor:2 doubles both.
TC=$TMPD/compute.txt
trace "$TC" "0 init" "1 init" "0 compute 1e9" "1 compute 1e9"
machine "# factors" "host node-*  factor=1.0   # every node" "host node-1  factor=2.5"
replay factor --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$TC"
grep -q "\"machine_file\": \"$M\"" "$J" || bad "JSON has no machine_file"
expect "factor 1.0" "$(finish_of 0)" 1
expect "factor 2.5" "$(finish_of 1)" 2.5
replay cpu_factor --platform flat:2,1e9,1e6,0 --network constant --machine "$M" --cfg cpu/factor:2 "$TC"
expect "cpu/factor 2 x 1.0" "$(finish_of 0)" 2
expect "cpu/factor 2 x 2.5" "$(finish_of 1)" 5
replay cpu_factor_alone --platform flat:2,1e9,1e6,0 --cfg cpu/factor:0.5 "$TC"
expect "cpu/factor 0.5 without a machine file" "$(finish_of 1)" 0.5

# ---- (b) delays: node-0 sends with send=0:20us,1MB:60us (interpolated: 20 + 40 s/1e6 us) and
#      pack=10us (one point: constant); node-1 receives with recv=0:30us. Rank 1 finishes at
#      send + pack + s/1e6 + recv; rank 0 (s >= 64 KiB: rendez-vous) once the bytes arrived.
#      0.5 MB interpolates; 2 MB extrapolates from the last two points (100 us); 1000 B is
#      below SMPI's detached threshold: the sender is done once its delays are paid.
machine "host node-0 send=0:20us,1MB:60us pack=10us" "host node-1 recv=0:30us"
for s in 500000 2000000; do
  TD=$TMPD/d$s.txt
  trace "$TD" "0 init" "1 init" "0 send 1 0 $s" "1 recv 0 0 $s"
  replay "delays $s" --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$TD"
  snd=$(calc "(20 + 40 * $s / 1e6) * 1e-6 + 10e-6")
  expect "delays $s B: receiver" "$(finish_of 1)" "$(calc "$snd + $s / 1e6 + 30e-6")"
  expect "delays $s B: sender" "$(finish_of 0)" "$(calc "$snd + $s / 1e6")"
done
TD=$TMPD/d1000.txt
trace "$TD" "0 init" "1 init" "0 send 1 0 1000" "1 recv 0 0 1000"
replay "delays 1000" --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$TD"
expect "delays 1000 B: detached sender" "$(finish_of 0)" "$(calc "(20 + 40 * 1000 / 1e6) * 1e-6 + 10e-6")"
expect "delays 1000 B: receiver" "$(finish_of 1)" "$(calc "(20.04 + 10) * 1e-6 + 1000 / 1e6 + 30e-6")"

# ---- (c) pair transmission replaces the network model (both ways): the issue's points
#      0:80us, 1500:120us, 1MB:9ms. 1000 B: 80 + 40 x 1000/1500 us; 500000 B in the second
#      segment; 2 MB extrapolated from the last two. A message, then the reply of the same size:
#      each costs one = send delay + transmission + receive delay, whatever the network model.
machine "host node-* factor=1.0 send=0:20us,1MB:60us recv=0:30us" "host slow-* factor=2.5" \
        "pair node-* node-*  transmit=0:80us,1500:120us,1MB:9ms"
for net in constant smpi star; do
  for s in 1000 500000 2000000; do
    TP=$TMPD/p$s.txt
    trace "$TP" "0 init" "1 init" "0 send 1 0 $s" "1 recv 0 0 $s" "1 send 0 0 $s" "0 recv 1 0 $s"
    replay "pair $s" --platform flat:2,1e9,1e6,0 --network $net --machine "$M" "$TP"
    x=$(calc "($s <= 1500) ? 80e-6 + 40e-6 * $s / 1500 : 120e-6 + 8880e-6 * ($s - 1500) / (1e6 - 1500)")
    one=$(calc "20e-6 + 40e-6 * $s / 1e6 + $x + 30e-6")
    # rank 1 replies after `one`: done once its send delay is paid (detached) or its bytes arrived
    expect "pair ($net) $s B: there" "$(finish_of 1)" "$(calc "$one + 20e-6 + 40e-6 * $s / 1e6 + ($s < 65536 ? 0 : $x)")"
    expect "pair ($net) $s B: and back" "$(finish_of 0)" "$(calc "2 * $one")"
  done
done
#      A pair line with a later date takes over from then on: a 1000 B message at t=0 takes
#      80 + 80/3 us; after 2 s of computation the next takes the new 1 s.
machine "pair node-0 node-1 transmit=0:80us,1500:120us" "at 1s pair node-* node-* transmit=0:1s"
TT=$TMPD/tt.txt
trace "$TT" "0 init" "1 init" "0 send 1 0 1000" "0 compute 2e9" "0 send 1 0 1000" "1 recv 0 0 1000" "1 recv 0 0 1000"
replay "dated pair" --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$TT"
expect "dated pair: new transmit after 1 s" "$(finish_of 1)" 3

# ---- (d) a pair of a host with itself (SMP node): ranks 0 and 1 on node-0. Without the line
#      a message within a host is instantaneous under star; with it, 1 MB takes 2 ms.
printf 'node-0:2\n' > "$TMPD/same.hosts"
TS=$TMPD/self.txt
trace "$TS" "0 init" "1 init" "0 send 1 0 1000000" "1 recv 0 0 1000000"
machine "pair node-0 node-0 transmit=0:1ms,1MB:2ms"
replay self --platform flat:2,1e9,1e6,0 --network star --hostfile "$TMPD/same.hosts" --machine "$M" "$TS"
expect "self pair" "$(finish_of 1)" 2e-3
replay self_none --platform flat:2,1e9,1e6,0 --network star --hostfile "$TMPD/same.hosts" "$TS"
expect "same host without the line" "$(finish_of 1)" 0

# ---- (e) a factor changed at a date: node-1 computes 4e9 flops; at 2 s (2e9 done) its factor
#      becomes 3, the 2e9 left take 6 s: 8. node-0's 1e9 are not affected: 1. A change at
#      100 s (after the end) does not lengthen the run.
machine "at 2s host node-1 factor=3" "at 100s host node-0 factor=2"
T2=$TMPD/at.txt
trace "$T2" "0 init" "1 init" "0 compute 1e9" "1 compute 4e9"
replay at --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$T2"
expect "factor changed at 2 s: running work rescaled" "$(finish_of 1)" 8
expect "other host unchanged" "$(finish_of 0)" 1
expect "a change after the end" "$(json_get "$J" simulated_time)" 8
#      Later in the file at the same date wins; an undated line written after a dated one
#      still starts at 0 (dates order the lines first): factor 2 until 1 s, then 4.
machine "at 1s host node-1 factor=5" "at 1s host node-1 factor=4" "host node-1 factor=2"
replay at_order --platform flat:2,1e9,1e6,0 --network constant --machine "$M" "$T2"
#      1 s at factor 2 does 0.5e9 flops; 3.5e9 left at factor 4: 14 s more
expect "order of dated lines" "$(finish_of 1)" 15

# ---- (f) psim lb: 2 VPs on 2 PEs of 1 flop/s (lb_free2.xml), VP v computes 3 s; node-1 has
#      factor 2: the makespan is 6.
TL=$TMPD/lb.txt
trace "$TL" "0 init" "1 init" "0 compute 3" "1 compute 3" "0 finalize" "1 finalize"
machine "host node-1 factor=2"
"$PSIM" lb "$TL" --platform "$PSIM_TESTDATA/platforms/lb_free2.xml" --network constant --pes 2 --balancer none \
  --machine "$M" --quiet --json "$J" || bad "psim lb failed"
expect "lb: factor 2" "$(json_get "$J" simulated_time)" 6
grep -q '"machine_file"' "$J" || bad "lb JSON has no machine_file"

# ---- (g) psim run: declared computations are scaled (star.c: 1e9 flops, then DPS's example
#      at 1 MB/s: r0 ends 2 s after, the others 3 s): with every factor 2, r0 at 2 + 2 = 4,
#      the others 5; a measured CPU burst (spin.c: rank 0 spins 0.05 s of CPU time, measured
#      at 1e9 flop/s) is multiplied by 4.
if "$PSIMCC" -O2 -o "$TMPD/star" "$PSIM_TESTDATA/emul/star.c" && "$PSIMCC" -O2 -o "$TMPD/spin" "$PSIM_TESTDATA/emul/spin.c"; then
  machine "host * factor=2"
  "$PSIM" run --np 5 --platform flat:5,1e9,1e6,0 --network star --machine "$M" --no-measure -q --json "$J" \
    -- "$TMPD/star" 1e9 || bad "psim run failed"
  expect "run: factor 2, rank 0" "$(finish_of 0)" 4
  expect "run: factor 2, rank 2" "$(finish_of 2)" 5
  grep -q '"machine_file"' "$J" || bad "run JSON has no machine_file"
  #    A factor changed at 0.5 s in a run: rank 0's 1e9 flops are half done, the rest x 3
  #    takes 1.5 s: compute 2. It posts its receive at 2; r1->0 then flows at b/2 (r1 also
  #    sends to r2), while r1->2, r3->2, r4->2 (started at 1 s) run at b/3 each and end at
  #    1 + 3 = 4; r1->0 has 1 MB at b/2 from 2: ends at 4 too.
  machine "at 0.5s host node-0 factor=3"
  "$PSIM" run --np 5 --platform flat:5,1e9,1e6,0 --network star --machine "$M" --no-measure -q --json "$J" \
    -- "$TMPD/star" 1e9 || bad "psim run (dated factor) failed"
  expect "run: factor 3 from 0.5 s, compute" "$(compute_of 0)" 2
  expect "run: factor 3 from 0.5 s, finish" "$(finish_of 0)" 4
  machine "host node-0 factor=4"
  "$PSIM" run --np 2 --platform flat:2,1Gf --host-speed-ref 1e9 --machine "$M" -q --json "$J" -- "$TMPD/spin" 0.05 0 \
    || bad "psim run spin failed"
  c=$(compute_of 0)
  if awk -v c="$c" 'BEGIN { exit !(c != "" && c >= 0.2 && c <= 0.24) }'; then echo "ok   run: measured 0.05 s x 4 = $c"
  else bad "run: measured 0.05 s x factor 4 gave compute $c (expected 0.2 to 0.24)"; fi
else
  bad "psimcc failed"
fi

# ---- (h) bad lines: exit 2 and FILE:3: (two good lines first, a comment and a host)
TB=$TMPD/b.txt
trace "$TB" "0 init" "1 init" "0 compute 1"
for line in "hots node-0 factor=1" "host" "host node-0" "host node-0 factor=-1" "host node-0 factor=x" \
    "host node-0 speed=2" "host node-0 factor" "host node-0 send=0:20us,1MB" "host node-0 send=1MB:20us,0:30us" \
    "host node-0 send=0:fast" "host node-0 pack=fast" "host node-0 pack=10us,20us" "host node-0 recv=x:20us" "host node-0 pack=" "pair node-0 transmit=0:1ms" \
    "pair node-0 node-1 factor=2" "pair node-0 node-1 send=0:1ms" "at host node-0 factor=2" "at -1s host node-0 factor=2" \
    "at 1s" "at 1s node-0 factor=2" "host node-0 factor=2 factor=3" "host node-0 send=0:1us send=0:2us" \
    "pair node-0 node-1 transmit=0:1ms transmit=0:2ms" "host node-0 factor=1e308"; do
  machine "# a machine" "host node-* factor=1 send=0:1us" "$line"
  "$PSIM" replay --quiet --platform flat:2 --machine "$M" "$TB" > "$TMPD/err" 2>&1
  rc=$?
  if [ $rc -eq 2 ] && grep -q "$M:3: " "$TMPD/err"; then echo "ok   rejected '$line': $(cat "$TMPD/err")"
  else bad "'$line': exit $rc, $(cat "$TMPD/err")"; fi
done
"$PSIM" replay --quiet --platform flat:2 --machine "$TMPD/none.txt" "$TB" > "$TMPD/err" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "none.txt" "$TMPD/err" && echo "ok   missing file: $(cat "$TMPD/err")" || bad "missing machine file: exit $rc"
"$PSIM" run --np 1 --machine "$TMPD/none.txt" -- "$TMPD/spin" 0 0 > "$TMPD/err" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "none.txt" "$TMPD/err" && echo "ok   run: missing file" || bad "run: missing machine file: exit $rc"
#      a pattern matching no host is only a warning (a file may describe several clusters)
machine "host gpu-* factor=0.5"
"$PSIM" replay --quiet --platform flat:2 --machine "$M" "$TB" > "$TMPD/err" 2>&1 && grep -q "$M:1: warning" "$TMPD/err" \
  && echo "ok   unmatched pattern warned" || bad "unmatched pattern: $(cat "$TMPD/err")"
finish $fails
