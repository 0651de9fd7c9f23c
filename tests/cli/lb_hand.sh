#!/bin/sh
# psim lb: makespans derived by hand. Platform: 2 single-core hosts of 1 flop/s (compute
# amounts are seconds), 1e15 B/s links without latency (free network) or 1000 B/s (a 1000-byte
# migration takes 1 s), constant network model.
set -u
. "$(dirname "$0")/../lib/common.sh"
FREE="$PSIM_TESTDATA/platforms/lb_free2.xml"
SLOW="$PSIM_TESTDATA/platforms/lb_slow2.xml"
fails=0
# 4 VPs of loads 4, 3, 2, 1 per iteration, 2 iterations, block mapping: PE 0 = {v0, v1} (7),
# PE 1 = {v2, v3} (3).
T4=$(tmpfile)
for v in 0 1 2 3; do w=$((4 - v)); printf '%d init\n%d compute %d\n%d migrate 1000\n%d compute %d\n%d migrate 1000\n%d finalize\n' $v $v $w $v $v $w $v $v; done > "$T4"
check() { # name want key trace platform lb-args...
  name=$1 want=$2 key=$3 tr=$4 plat=$5; shift 5
  out=$(tmpfile)
  if ! "$PSIM" lb "$tr" --platform "$plat" --network constant --pes 2 --quiet --json "$out" "$@"; then
    echo "FAIL $name: psim lb exited with an error"; fails=$((fails + 1)); return
  fi
  got=$(json_get "$out" "$key")
  if close_to "$got" "$want" 1e-6; then echo "ok   $name: $key $got"
  else echo "FAIL $name: $key $got, expected $want"; fails=$((fails + 1)); fi
}
# none: no step, a VP keeps its PE across migrates: PE 0 runs v0 (8 s) then v1 (6 s) = 14.
check none 14 simulated_time "$T4" "$FREE" --balancer none
# dummy: steps without moves; at step 1 (t = 7) all VPs wait; iteration 2 again 7 s: 14.
check dummy 14 simulated_time "$T4" "$FREE" --balancer dummy --period 1
check dummy_steps 2 lb_steps "$T4" "$FREE" --balancer dummy --period 1
# greedy at t = 7: v0 -> PE 0, v1 -> PE 1, v2 -> PE 1 (5), v3 -> PE 0 (5): 7 + 5 = 12,
# 2 migrations of 1000 bytes; step 2 moves nothing.
check greedy 12 simulated_time "$T4" "$FREE" --balancer greedy --period 1
check greedy_moves 2 migrations "$T4" "$FREE" --balancer greedy --period 1
check greedy_bytes 2000 bytes_migrated "$T4" "$FREE" --balancer greedy --period 1
check greedy_refine 12 simulated_time "$T4" "$FREE" --balancer greedy-refine --period 1
# refine-classic: loads 7 / 3, avg 5: at 1.05 nothing fits (v1: 6, v0: 7 > 5.25); the
# tolerance search succeeds iff 5 (1.05 + 0.01k) > 6 and ends on k = 16 (v1 -> PE 1): 4 / 6,
# so 7 + 6 = 13.
check refine_classic 13 simulated_time "$T4" "$FREE" --balancer refine-classic --period 1
# rotate swaps the PEs' sets: still 7 + 7.
check rotate 14 simulated_time "$T4" "$FREE" --balancer rotate --period 1
# the strategy's own cost delays every step: 7 + 0.5 + 5 + 0.5 = 13
check lb_cost 13 simulated_time "$T4" "$FREE" --balancer greedy --period 1 --lb-cost 0.5
# migrations of 1000 bytes at 1000 B/s (no contention in the constant model): 7 + 1 + 5 = 13
check migration_time 13 simulated_time "$T4" "$SLOW" --balancer greedy --period 1
# period 2: only the second migrate balances: no gain, 14.
check period2 14 simulated_time "$T4" "$FREE" --balancer greedy --period 2
# round-robin start: PE 0 = {v0, v2} (6), PE 1 = {v1, v3} (4); dummy: 6 + 6 = 12
check round_robin 12 simulated_time "$T4" "$FREE" --balancer dummy --period 1 --initial round-robin
# an explicit mapping file (one PE per line, VP order): v0 alone on PE 1
MAP=$(tmpfile); printf '1\n0\n0\n0\n' > "$MAP"
# PE 0 = {v1, v2, v3} = 6, PE 1 = {v0} = 4; greedy at t = 6 -> 5 / 5: 6 + 5 = 11
check map_file 11 simulated_time "$T4" "$FREE" --balancer greedy --period 1 --initial "$MAP"

# AMPI scheduling: v0 and v1 share PE 0. v0 waits for v1's message and yields its PE; v1
# computes 2 s, sends, reaches its step; v0 then computes 1 s: the step is at 3.
C4=$(tmpfile)
printf '0 init\n0 recv 1 0 100\n0 compute 1\n0 migrate\n0 finalize\n1 init\n1 compute 2\n1 send 0 0 100\n1 migrate\n1 finalize\n2 init\n2 compute 1\n2 migrate\n2 finalize\n3 init\n3 migrate\n3 finalize\n' > "$C4"
check yield_on_recv 3 simulated_time "$C4" "$FREE" --balancer dummy --period 1
# plain replay treats migrate as a no-op: ranks cycle over the 2 hosts, rank 1 computes 2 s
# on host 1 then sends, rank 0 then computes 1 s: 3
out=$(tmpfile)
if "$PSIM" replay --quiet --platform "$FREE" --network constant --json "$out" "$C4" && close_to "$(json_get "$out" simulated_time)" 3 1e-6; then
  echo "ok   replay_ignores_migrate"
else echo "FAIL replay_ignores_migrate: $(json_get "$out" simulated_time)"; fails=$((fails + 1)); fi
finish $fails
