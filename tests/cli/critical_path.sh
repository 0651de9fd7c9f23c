#!/bin/sh
# psim critical-path, checked by hand.
#  (a) SimGrid's isend_test_wait case: rank 2 finishes last (39.320741 s) and never waits for a
#      message that arrives late (1->2 arrives at 26.41 s, before its test at 29.49 s), so the
#      path is rank 2 alone: computing 26.213694 + 3.276712 + 3.276712 + 6.553424 s and the
#      0.0002 s of its test (smpi/test sleep).
#  (b) a 3-rank chain on 3 hosts of 1 Gflop/s with 100 MB/s, 1 ms links, constant network
#      model (a message costs 1 ms + size / 1e8 s; rendez-vous, so it starts when both sides
#      have posted):
#        rank 0: compute 1e9 (1 s), send 1e8 B to 1        -> transfer 1.000 .. 2.001
#        rank 1: compute 5e8, recv from 0 (posted 0.5 s, waits), compute 2e9 (2.001 .. 4.001),
#                send 1e7 B to 2                            -> transfer 4.001 .. 4.102
#        rank 2: compute 3e9, recv from 1 (posted at 3 s, waits), compute 1e9 (4.102 .. 5.102)
#      The path: rank 0 compute 1 s, transfer 0->1 1.001 s, rank 1 compute 2 s, transfer
#      1->2 0.101 s, rank 2 compute 1 s: 4 s computing + 1.102 s transfers = 5.102 s.
#  (c) the receiver posts late: rank 0 sends at 0, rank 1 computes 2 s then receives; the
#      transfer waits for the receive, so the path stays on rank 1: compute 2 s, transfer
#      2 .. 3.001 (from 0), compute 1 s = 4.001 s, and rank 0 is not on it.
#  (d) parts of MPI calls that are not waiting: a reduction's computation (compute), smpi/os
#      and smpi/or (overhead), a psim lb VP waiting for its PE (pe_wait); derivations below.
set -u
. "$(dirname "$0")/../lib/common.sh"
C="$PSIM_SHARED/cases/simgrid"
fails=0
# cp_get FILE KEY: the critical path's numeric field KEY
cp_get() { tr -d '\n' < "$1" | sed 's/.*"critical_path": {//' | grep -o "\"$2\": [-0-9.eE+]*" | head -n 1 | sed 's/.*: //'; }
expect() { # name got want
  if close_to "$2" "$3" 1e-6; then echo "ok   $1: $2"; else bad "$1: got '$2', hand-derived $3"; fi
}
# seg_list FILE: the segments as "rank peer what start end" lines, dates to 1e-6
seg_list() {
  tr -d '\n ' < "$1" | sed 's/.*"segments":\[//; s/\]\]}}.*/]/' | tr ']' '\n' |
    sed 's/^,*\[//' | awk -F, 'NF == 5 { gsub(/"/, "", $5); printf "%d %d %s %.6f %.6f\n", $3, $4, $5, $1, $2 }'
}
# segs_are NAME SEGMENT...: the path's segments in $J are exactly these ("rank peer what start end")
segs_are() {
  name=$1; shift
  seg_list "$J" > "$TMPD/got"
  printf '%s\n' "$@" > "$TMPD/want"
  if cmp -s "$TMPD/want" "$TMPD/got"; then echo "ok   $name"
  else bad "$name differ:"; diff "$TMPD/want" "$TMPD/got"; fi
}

J=$TMPD/cp.json
# (a)
if "$PSIM" critical-path --quiet --json "$J" --platform "$C/small_platform.xml" --hostfile "$C/hostfile" \
     --np 3 "$C/traces/actions_with_isend.txt"; then
  expect "isend_test_wait length" "$(cp_get "$J" length)" 39.320741
  expect "isend_test_wait compute" "$(cp_get "$J" compute)" "$(awk 'BEGIN { printf "%.6f", 26.213694 + 3.276712 + 3.276712 + 6.553424 }')"
  expect "isend_test_wait wait" "$(cp_get "$J" wait)" 0.0002
  expect "isend_test_wait transfer" "$(cp_get "$J" transfer)" 0
  [ "$(cp_get "$J" last_rank)" = 2 ] || bad "isend_test_wait: path should end on rank 2"
else bad "isend_test_wait: psim failed"; fi

# (b)
# the 3-host chain of tests/data/chain (hand derivation above)
P=$PSIM_TESTDATA/chain/chain3.xml
T=$PSIM_TESTDATA/chain/chain3.txt
if "$PSIM" critical-path --quiet --json "$J" --network constant --platform "$P" --np 3 "$T"; then
  expect "chain length" "$(cp_get "$J" length)" 5.102
  expect "chain compute" "$(cp_get "$J" compute)" 4
  expect "chain transfer" "$(cp_get "$J" transfer)" 1.102
  expect "chain wait" "$(cp_get "$J" wait)" 0
  segs_are "chain segments" "0 -1 compute 0.000000 1.000000" "1 0 transfer 1.000000 2.001000" \
    "1 -1 compute 2.001000 4.001000" "2 1 transfer 4.001000 4.102000" \
    "2 -1 compute 4.102000 5.102000"
  # the text listing says the same
  "$PSIM" critical-path --network constant --platform "$P" --np 3 "$T" > "$TMPD/txt"
  grep -q "^critical path: 5.102000 s, ending on rank 2" "$TMPD/txt" || bad "chain: text listing header"
  grep -q "1.000000 *2.001000  0->1 *transfer  100000000 bytes" "$TMPD/txt" || bad "chain: text listing transfer row"
else bad "chain: psim failed"; fi

# (c)
T=$TMPD/late.txt
printf '%s\n' "0 send 1 0 100000000" "1 compute 2e9" "1 recv 0 0 100000000" "1 compute 1e9" > "$T"
if "$PSIM" critical-path --quiet --json "$J" --network constant --platform "$P" --np 2 "$T"; then
  expect "late receiver length" "$(cp_get "$J" length)" 4.001
  expect "late receiver compute" "$(cp_get "$J" compute)" 3
  expect "late receiver transfer" "$(cp_get "$J" transfer)" 1.001
  segs_are "late receiver segments" "1 -1 compute 0.000000 2.000000" "1 0 transfer 2.000000 3.001000" \
    "1 -1 compute 3.001000 4.001000"
else bad "late receiver: psim failed"; fi

# (d) every path adds up to the makespan, on a generated stencil
# Segments that are neither waiting nor transfers, on a flat cluster (1 Gf, 1 ms / 100 MBps
# private links; --network constant: S bytes take m = 2 ms + S/1e8 s, m(1000) = 0.00201 s).
F=$PSIM_TESTDATA/platforms/flat8_1ms.xml
# an allreduce whose reduction computes 1e6 flops (1 ms) after the messages: rank 1 computes
# 1 s, sends to 0 (reduce) [1, 1.00201], 0 sends back (bcast) [1.00201, 1.00402], rank 1
# computes the reduction [1.00402, 1.00502]: that last part is computation, not waiting
printf '%s\n' "0 init" "1 init" "1 compute 1e9" "0 allreduce 1000 1e6" "1 allreduce 1000 1e6" > "$T"
if "$PSIM" critical-path --quiet --json "$J" --network constant --platform "$F" --np 2 "$T"; then
  expect "allreduce length" "$(cp_get "$J" length)" 1.00502
  expect "allreduce compute (the reduction too)" "$(cp_get "$J" compute)" 1.001
  expect "allreduce transfer" "$(cp_get "$J" transfer)" 0.00402
  expect "allreduce wait" "$(cp_get "$J" wait)" 0
  segs_are "allreduce segments" "1 -1 compute 0.000000 1.000000" "0 1 transfer 1.000000 1.002010" \
    "1 0 transfer 1.002010 1.004020" "1 -1 compute 1.004020 1.005020"
else bad "allreduce: psim failed"; fi
# smpi/os = 1 ms before a detached 1000 B send, smpi/or = 2 ms after it arrives: overheads,
# not waiting: 0 overhead [0, 0.001], transfer [0.001, 0.00301], 1 overhead [0.00301, 0.00501]
printf '%s\n' "0 init" "1 init" "0 send 1 0 1000" "1 recv 0 0 1000" > "$T"
if "$PSIM" critical-path --quiet --json "$J" --network constant --platform "$F" --np 2 \
     --cfg smpi/os:0:1e-3:0 --cfg smpi/or:0:2e-3:0 "$T"; then
  expect "overheads length" "$(cp_get "$J" length)" 0.00501
  expect "overheads overhead" "$(cp_get "$J" overhead)" 0.003
  expect "overheads transfer" "$(cp_get "$J" transfer)" 0.00201
  expect "overheads wait" "$(cp_get "$J" wait)" 0
  segs_are "overhead segments" "0 -1 overhead 0.000000 0.001000" "1 0 transfer 0.001000 0.003010" \
    "1 -1 overhead 0.003010 0.005010"
else bad "overheads: psim failed"; fi
# psim lb, 2 VPs of 1 s each on 1 PE: VP 1 waits for the PE [0, 1], then computes [1, 2]
printf '%s\n' "0 init" "1 init" "0 compute 1e9" "1 compute 1e9" > "$T"
if "$PSIM" lb "$T" --quiet --json "$J" --timeline --network constant --platform "$F" --np 2 --pes 1 --balancer none; then
  expect "lb: length" "$(cp_get "$J" length)" 2
  expect "lb: waiting for the PE" "$(cp_get "$J" pe_wait)" 1
  expect "lb: compute" "$(cp_get "$J" compute)" 1
  expect "lb: wait" "$(cp_get "$J" wait)" 0
else bad "lb: psim lb failed"; fi

"$PSIM" gen stencil --ranks 16 --iters 10 -o "$TMPD/st" 2> /dev/null
if "$PSIM" critical-path --quiet --json "$J" "$TMPD/st"; then
  sum=$(awk -v a="$(cp_get "$J" compute)" -v b="$(cp_get "$J" transfer)" -v c="$(cp_get "$J" wait)" \
    -v d="$(cp_get "$J" overhead)" -v e="$(cp_get "$J" pe_wait)" 'BEGIN { printf "%.9f", a + b + c + d + e }')
  expect "stencil: compute + transfer + overhead + wait + pe_wait = length" "$sum" "$(cp_get "$J" length)"
  expect "stencil: length = simulated time" "$(cp_get "$J" length)" "$(json_get "$J" simulated_time)"
else bad "stencil: psim failed"; fi
finish $fails
