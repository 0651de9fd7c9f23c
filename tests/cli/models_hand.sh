#!/bin/sh
# Hand-derived model times: every expected value is computed here, by awk, from the formulas of
# specs/simgrid-compat.md §3 (never copied from psim's output), and psim's full-precision
# --json times must agree to 1e-9 relative.
#   (a) one message alone on a link, at several factor steps; detached vs rendez-vous sender
#   (b) two flows sharing a SHARED link: equal sizes, different sizes (piecewise), crosstraffic
#   (c) the same two flows on a FATPIPE link
#   (d) computations: alone, two ranks on a 1-core host, on a 2-core host, three on 2 cores
#   (e) --network constant along a 6-link route, simultaneous flows, no contention
#   (f) the TCP-gamma bound on a long link
#   (g) smpi/os, smpi/or, smpi/ois overheads set with --cfg
set -u
. "$(dirname "$0")/../lib/common.sh"
M="$PSIM_TESTDATA/models"
SG="$PSIM_SHARED/cases/simgrid"
fails=0 checks=0

# The SMPI default factor tables (spec §3), and the step-function rule: the value of the
# largest threshold strictly below P, 1.0 when P is at or below every threshold.
BWF='65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084'
LATF='65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467'
AWKLIB='
function step(P, tbl,   n, i, a, kv, v, bt) {
  n = split(tbl, a, ";"); v = 1; bt = -1
  for (i = 1; i <= n; i++) { split(a[i], kv, ":"); if (kv[1] + 0 < P && kv[1] + 0 > bt) { bt = kv[1] + 0; v = kv[2] + 0 } }
  return v
}
function bwf(P) { return step(P, BWF) }
function latf(P) { return step(P, LATF) }
function min(a, b) { return a < b ? a : b }'
# calc 'STATEMENTS' 'EXPR': prints EXPR at full precision after running STATEMENTS
calc() { awk -v BWF="$BWF" -v LATF="$LATF" "$AWKLIB BEGIN { $1; printf \"%.17g\n\", $2 }"; }

# run NAME PSIM-ARGS...: replays quietly into $J (JSON); a failure to run counts as a failure
J=$(tmpfile)
run() {
  name=$1; shift
  if ! "$PSIM" replay --quiet --json "$J" "$@" >"$TMPD/out" 2>&1; then
    echo "FAIL $name: psim failed:"; cat "$TMPD/out"; fails=$((fails + 1)); : >"$J"; return 1
  fi
}
# finish_of R: rank R's finish time in $J
finish_of() { grep "\"rank\": $1," "$J" | sed -n 's/.*"finish_time": \([^,]*\),.*/\1/p'; }
# expect NAME GOT WANT
expect() {
  checks=$((checks + 1))
  if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"
  else echo "FAIL $1: psim $2, hand-derived $3"; fails=$((fails + 1)); fi
}
# trace FILE LINE...: writes one trace line per argument
trace() { f=$1; shift; : >"$f"; for l in "$@"; do printf '%s\n' "$l" >>"$f"; done; }

# ---- (a) one message alone: small_platform Tremblay -> Jupiter over link 9
#      (7.20975MBps, 1.461517ms). Its reverse route is the same SHARED link, so cross-traffic
#      puts 5 % more on it: k = 1.05. gamma/(2L) = 1.43e9 B/s does not bind.
T1=$TMPD/a.txt
LINK9='L = 1.461517e-3; B = 7.20975e6'
for S in 1000000 100 2000 20000 65535 65536; do
  trace "$T1" "0 init" "1 init" "0 send 1 0 $S" "1 recv 0 0 $S"
  run "single $S B" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 "$T1" || continue
  want=$(calc "$LINK9; P = $S + 16" "latf(P) * L + P * 1.05 / (bwf(P) * B)")
  expect "alone $S B: receiver" "$(finish_of 1)" "$want"
  # sender: detached below 65536 B (the send action costs 0), else blocked until the end
  if [ "$S" -lt 65536 ]; then sw=0; else sw=$want; fi
  checks=$((checks + 1))
  got=$(finish_of 0)
  if close_to "$got" "$sw" 1e-15 || rel_close "$got" "$sw" 1e-9; then echo "ok   alone $S B: sender $got"
  else echo "FAIL alone $S B: sender $got, expected $sw"; fails=$((fails + 1)); fi
done
# The derivation itself must reproduce the spec's worked example (SimGrid's 0.171838 s).
checks=$((checks + 1))
ex=$(calc "$LINK9; P = 1000016" "latf(P) * L + P * 1.05 / (bwf(P) * B)")
if close_to "$ex" 0.171838 5e-7; then echo "ok   derivation gives the spec's example: $ex"
else echo "FAIL the awk derivation gives $ex, not the spec's 0.171838 s"; fails=$((fails + 1)); fi

# ---- (b) two flows A->C and B->D cross the SHARED link mid (100MBps, 100us), both starting
#      at 0. Factors are 1 and there is no cross-traffic: after L each gets B/2.
T2=$TMPD/b.txt
NOX="--cfg network/crosstraffic:no --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"
MID='L = 100e-6; B = 100e6'
two() { trace "$T2" "0 init" "1 init" "2 init" "3 init" "0 send 2 0 $1" "2 recv 0 0 $1" "1 send 3 0 $2" "3 recv 1 0 $2"; }
two 1000000 1000000
# shellcheck disable=SC2086
if run "shared equal" --platform "$M/shared4.xml" --hostfile "$M/hosts4" --np 4 $NOX "$T2"; then
  want=$(calc "$MID; P = 1000016" "L + P / (B / 2)")
  expect "shared link, equal sizes: flow A->C" "$(finish_of 2)" "$want"
  expect "shared link, equal sizes: flow B->D" "$(finish_of 3)" "$want"
  expect "shared link, equal sizes: rendez-vous sender A" "$(finish_of 0)" "$want"
fi
# different sizes: both at B/2 until the short one ends at t1; the long one then has the
# whole link for its remaining P2 - P1 bytes
two 1000000 3000000
# shellcheck disable=SC2086
if run "shared piecewise" --platform "$M/shared4.xml" --hostfile "$M/hosts4" --np 4 $NOX "$T2"; then
  t1=$(calc "$MID; P1 = 1000016" "L + P1 / (B / 2)")
  t2=$(calc "$MID; P1 = 1000016; P2 = 3000016; t1 = L + P1 / (B / 2)" "t1 + (P2 - P1) / B")
  expect "shared link, 1e6 B and 3e6 B: short flow" "$(finish_of 2)" "$t1"
  expect "shared link, 1e6 B and 3e6 B: long flow" "$(finish_of 3)" "$t2"
fi
# cross-traffic on: the reverse routes C->A and D->B are mid too, so each flow consumes
# 1 + 0.05 of mid: 2.1 per unit of rate, then 1.05 once alone
# shellcheck disable=SC2086
if run "shared crosstraffic" --platform "$M/shared4.xml" --hostfile "$M/hosts4" --np 4 \
     --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1 "$T2"; then
  t1=$(calc "$MID; P1 = 1000016" "L + P1 / (B / 2.1)")
  t2=$(calc "$MID; P1 = 1000016; P2 = 3000016; t1 = L + P1 / (B / 2.1)" "t1 + (P2 - P1) / (B / 1.05)")
  expect "shared link + crosstraffic: short flow" "$(finish_of 2)" "$t1"
  expect "shared link + crosstraffic: long flow" "$(finish_of 3)" "$t2"
fi
# default factors on the shared link: same sharing, rates scaled by bwf(P), latency by latf(P)
two 1000000 1000000
# shellcheck disable=SC2086
if run "shared default factors" --platform "$M/shared4.xml" --hostfile "$M/hosts4" --np 4 \
     --cfg network/crosstraffic:no "$T2"; then
  want=$(calc "$MID; P = 1000016" "latf(P) * L + P / (bwf(P) * B / 2)")
  expect "shared link, default factors: flow A->C" "$(finish_of 2)" "$want"
fi

# ---- (c) the same flows on a FATPIPE link: no sharing, each one gets all of B
two 1000000 3000000
# shellcheck disable=SC2086
if run "fatpipe" --platform "$M/fatpipe4.xml" --hostfile "$M/hosts4" --np 4 $NOX "$T2"; then
  expect "fatpipe: 1e6 B flow" "$(finish_of 2)" "$(calc "$MID" "L + 1000016 / B")"
  expect "fatpipe: 3e6 B flow" "$(finish_of 3)" "$(calc "$MID" "L + 3000016 / B")"
fi

# with cross-traffic on, a FATPIPE link limits each flow alone by max(1, 0.05) of its rate:
# still the full B each [SimGrid 3.32 agrees]
# shellcheck disable=SC2086
if run "fatpipe crosstraffic" --platform "$M/fatpipe4.xml" --hostfile "$M/hosts4" --np 4 \
     --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1 "$T2"; then
  expect "fatpipe + crosstraffic: 1e6 B flow" "$(finish_of 2)" "$(calc "$MID" "L + 1000016 / B")"
  expect "fatpipe + crosstraffic: 3e6 B flow" "$(finish_of 3)" "$(calc "$MID" "L + 3000016 / B")"
fi

# ---- (d) computations on hosts of speed s = 2.5Gf
CPU='s = 2.5e9'
T3=$TMPD/d.txt
trace "$T3" "0 init" "0 compute 7e9"
if run "compute alone" --platform "$M/cpu.xml" --hostfile "$M/one_x2.hosts" --np 1 "$T3"; then
  expect "compute alone" "$(finish_of 0)" "$(calc "$CPU" "7e9 / s")"
fi
trace "$T3" "0 init" "1 init" "0 compute 3e9" "1 compute 3e9"
if run "1 core, equal" --platform "$M/cpu.xml" --hostfile "$M/one_x2.hosts" --np 2 "$T3"; then
  expect "1 core, 2 ranks, equal: rank 0" "$(finish_of 0)" "$(calc "$CPU" "3e9 / (s / 2)")"
  expect "1 core, 2 ranks, equal: rank 1" "$(finish_of 1)" "$(calc "$CPU" "3e9 / (s / 2)")"
fi
trace "$T3" "0 init" "1 init" "0 compute 2e9" "1 compute 7e9"
if run "1 core, piecewise" --platform "$M/cpu.xml" --hostfile "$M/one_x2.hosts" --np 2 "$T3"; then
  expect "1 core, 2e9 and 7e9: short" "$(finish_of 0)" "$(calc "$CPU" "2e9 / (s / 2)")"
  expect "1 core, 2e9 and 7e9: long" "$(finish_of 1)" "$(calc "$CPU; t1 = 2e9 / (s / 2)" "t1 + (7e9 - 2e9) / s")"
fi
if run "2 cores" --platform "$M/cpu.xml" --hostfile "$M/two_x2.hosts" --np 2 "$T3"; then
  expect "2 cores, 2e9 and 7e9: short" "$(finish_of 0)" "$(calc "$CPU" "2e9 / s")"
  expect "2 cores, 2e9 and 7e9: long" "$(finish_of 1)" "$(calc "$CPU" "7e9 / s")"
fi
# three equal computations on 2 cores: each gets 2s/3 (below its one-core cap s)
trace "$T3" "0 init" "1 init" "2 init" "0 compute 4e9" "1 compute 4e9" "2 compute 4e9"
if run "2 cores, 3 ranks" --platform "$M/cpu.xml" --hostfile "$M/two_x3.hosts" --np 3 "$T3"; then
  expect "2 cores, 3 ranks: rank 2" "$(finish_of 2)" "$(calc "$CPU" "4e9 / (2 * s / 3)")"
fi
# 4e9, 2e9, 7e9 on 2 cores: all at 2s/3 until the 2e9 one ends at t1; then the two others get
# s each (their one-core cap) until the 4e9 one ends at t2; the 7e9 one ends alone at s
trace "$T3" "0 init" "1 init" "2 init" "0 compute 4e9" "1 compute 2e9" "2 compute 7e9"
if run "2 cores, 3 ranks, piecewise" --platform "$M/cpu.xml" --hostfile "$M/two_x3.hosts" --np 3 "$T3"; then
  T3P="$CPU; t1 = 2e9 / (2 * s / 3); t2 = t1 + (4e9 - 2e9) / s"
  expect "2 cores, 3 ranks, piecewise: 2e9" "$(finish_of 1)" "$(calc "$T3P" "t1")"
  expect "2 cores, 3 ranks, piecewise: 4e9" "$(finish_of 0)" "$(calc "$T3P" "t2")"
  expect "2 cores, 3 ranks, piecewise: 7e9" "$(finish_of 2)" "$(calc "$T3P" "t2 + (7e9 - 2e9 - (t2 - t1) * s) / s")"
fi

# ---- (e) --network constant: sum of latencies + S / min bandwidth, no envelope, no factors,
#      no contention. small_platform Tremblay -> Fafard = links 4,3,2,0,1,8.
ROUTE_TF='L = 479.78e-6 + 514.433e-6 + 136.931e-6 + 59.904e-6 + 514.433e-6 + 270.544e-6; B = 8.158e6'
trace "$T3" "0 init" "1 init" "0 send 1 0 1000000" "1 recv 0 0 1000000"
if run "constant alone" --network constant --platform "$SG/small_platform.xml" --hostfile "$M/tf2.hosts" --np 2 "$T3"; then
  expect "constant, 6 links, 1e6 B" "$(finish_of 1)" "$(calc "$ROUTE_TF" "L + 1e6 / B")"
fi
# two simultaneous 1e6 B messages on the same route (ranks 0,2 on Tremblay, 1,3 on Fafard)
trace "$T3" "0 init" "1 init" "2 init" "3 init" "0 send 1 0 1000000" "1 recv 0 0 1000000" \
  "2 send 3 0 1000000" "3 recv 2 0 1000000"
if run "constant simultaneous" --network constant --platform "$SG/small_platform.xml" --hostfile "$M/tf2.hosts" --np 4 "$T3"; then
  expect "constant, simultaneous: flow 0->1" "$(finish_of 1)" "$(calc "$ROUTE_TF" "L + 1e6 / B")"
  expect "constant, simultaneous: flow 2->3" "$(finish_of 3)" "$(calc "$ROUTE_TF" "L + 1e6 / B")"
fi
trace "$T3" "0 init" "1 init" "0 send 1 0 300" "1 recv 0 0 300"
if run "constant small" --network constant --platform "$SG/small_platform.xml" --hostfile "$M/tf2.hosts" --np 2 "$T3"; then
  expect "constant, 300 B" "$(finish_of 1)" "$(calc "$ROUTE_TF" "L + 300 / B")"
fi

# ---- (f) TCP-gamma: X -> Y over one 1GBps, 50ms link: the rate is gamma / (2L)
GAM='L = 0.05; B = 1e9; g = 4194304'
trace "$T3" "0 init" "1 init" "0 send 1 0 5000000" "1 recv 0 0 5000000"
# shellcheck disable=SC2086
if run "gamma" --platform "$M/gamma.xml" --hostfile "$M/gamma.hosts" --np 2 $NOX "$T3"; then
  expect "TCP-gamma bound, no factors" "$(finish_of 1)" "$(calc "$GAM; P = 5000016" "L + P / (g / (2 * L))")"
fi
# shellcheck disable=SC2086
if run "gamma cfg" --platform "$M/gamma.xml" --hostfile "$M/gamma.hosts" --np 2 $NOX --cfg network/TCP-gamma:1e6 "$T3"; then
  expect "TCP-gamma 1e6 by --cfg" "$(finish_of 1)" "$(calc "$GAM; g = 1e6; P = 5000016" "L + P / (g / (2 * L))")"
fi
if run "gamma defaults" --platform "$M/gamma.xml" --hostfile "$M/gamma.hosts" --np 2 "$T3"; then
  expect "TCP-gamma bound, default factors + crosstraffic" "$(finish_of 1)" \
    "$(calc "$GAM; P = 5000016" "latf(P) * L + P / (bwf(P) * min(B / 1.05, g / (2 * L)))")"
fi

# ---- (g) overheads: os/or/ois = "threshold:constant:per_byte;..." evaluated on S bytes.
#      A detached send sleeps os(S) before the message leaves; the receiver pays or(S) when its
#      wait returns the message; an isend sleeps ois(S). Rendez-vous sends (S >= 65536) pay no os/or.
OVH="--cfg smpi/os:0:1e-4:0;10000:2e-4:1e-9 --cfg smpi/or:0:3e-4:2e-9 --cfg smpi/ois:0:5e-5:4e-9"
xfer() { calc "$LINK9; P = $1 + 16" "latf(P) * L + P * 1.05 / (bwf(P) * B)"; }
for S in 20000 100; do
  trace "$T3" "0 init" "1 init" "0 send 1 0 $S" "1 recv 0 0 $S"
  # shellcheck disable=SC2086
  run "os/or $S" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 $OVH "$T3" || continue
  if [ "$S" -ge 10000 ]; then os="2e-4 + 1e-9 * $S"; else os="1e-4"; fi
  expect "os($S) paid by the sender" "$(finish_of 0)" "$(calc "S = $S" "$os")"
  expect "os($S) + transfer + or($S) for the receiver" "$(finish_of 1)" \
    "$(calc "S = $S; x = $(xfer $S)" "$os + x + 3e-4 + 2e-9 * S")"
done
trace "$T3" "0 init" "1 init" "0 isend 1 0 20000" "1 recv 0 0 20000"
# shellcheck disable=SC2086
if run "ois" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 $OVH "$T3"; then
  expect "ois(20000) paid by the isend" "$(finish_of 0)" "$(calc "S = 20000" "5e-5 + 4e-9 * S")"
  expect "ois + transfer + or for the receiver" "$(finish_of 1)" \
    "$(calc "S = 20000; x = $(xfer 20000)" "5e-5 + 4e-9 * S + x + 3e-4 + 2e-9 * S")"
fi
# or is paid by the receiving rank when its wait returns the message (SMPI's finish_wait), one
# message after the other: three detached messages that arrived during a 1 s sleep cost
# 3 x or(100) after it (SimGrid 3.32: waitall 0.000901 s, end 1.000901; psim paid them at
# arrival, during the sleep, and ended at 1 s)
trace "$T3" "0 init" "1 init" "0 send 1 0 100" "0 send 1 1 100" "0 send 1 2 100" \
  "1 irecv 0 0 100" "1 irecv 0 1 100" "1 irecv 0 2 100" "1 sleep 1" "1 waitall"
# shellcheck disable=SC2086
if run "or at the wait" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 $OVH "$T3"; then
  expect "3 x or(100) after the sleep, one after the other" "$(finish_of 1)" "$(calc "S = 100" "1 + 3 * (3e-4 + 2e-9 * S)")"
fi
# the same under psim run (tests/data/emul/or_wait.c: MPI_Send x 3, MPI_Irecv x 3, psim_sleep(1),
# MPI_Waitall): or is paid by the Waitall too (psim run paid it at arrival and ended at 1 s)
if "$(dirname "$PSIM")/psimcc" -o "$TMPD/or_wait" "$PSIM_TESTDATA/emul/or_wait.c"; then
  # shellcheck disable=SC2086
  if "$PSIM" run --np 2 --no-measure -q --json "$J" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" \
      $OVH -- "$TMPD/or_wait" >"$TMPD/out" 2>&1; then
    expect "psim run: 3 x or(100) after the sleep" "$(finish_of 1)" "$(calc "S = 100" "1 + 3 * (3e-4 + 2e-9 * S)")"
  else echo "FAIL psim run or_wait:"; cat "$TMPD/out"; fails=$((fails + 1)); fi
else echo "FAIL psimcc or_wait"; fails=$((fails + 1)); fi
trace "$T3" "0 init" "1 init" "0 send 1 0 1000000" "1 recv 0 0 1000000"
# shellcheck disable=SC2086
if run "rendez-vous overheads" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 $OVH "$T3"; then
  expect "rendez-vous 1e6 B: no os" "$(finish_of 0)" "$(xfer 1000000)"
  expect "rendez-vous 1e6 B: no or" "$(finish_of 1)" "$(xfer 1000000)"
fi

# ---- (h) network/bandwidth-factor and network/latency-factor are SimGrid's CM02 factors: its
#      SMPI model ignores them (SimGrid 3.32 gives the same time with or without them); psim
#      accepts one number each, warns, and changes nothing (it used to refuse 0.5 as "expected
#      size:factor" and took a size:factor list as smpi/bw-factor)
trace "$T3" "0 init" "1 init" "0 send 1 0 100" "1 recv 0 0 100"
if run "plain" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 "$T3"; then
  plain=$(finish_of 1)
  if run "CM02 factors" --platform "$SG/small_platform.xml" --hostfile "$SG/hostfile" --np 2 \
       --cfg network/bandwidth-factor:0.5 --cfg network/latency-factor:2 "$T3"; then
    expect "network/bandwidth-factor:0.5, network/latency-factor:2: no effect" "$(finish_of 1)" "$plain"
    checks=$((checks + 1))
    if grep -q "network/bandwidth-factor has no effect" "$TMPD/out" && grep -q "network/latency-factor has no effect" "$TMPD/out"; then
      echo "ok   both say they have no effect"
    else echo "FAIL no warning for network/bandwidth-factor or latency-factor"; fails=$((fails + 1)); fi
  fi
fi

echo "$checks checks"
finish $fails
