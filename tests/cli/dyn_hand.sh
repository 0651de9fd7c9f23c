#!/bin/sh
# Nodes leaving and joining (--host-events, --pe-events) and dynamic efficiency, against values
# derived by hand in the comments. Platform: flat:N,1e9,1e8,1e-3 with --network constant, so a
# computation of F flops alone takes F/1e9 s, two on one (1-core) host share it equally, and a
# transfer of B bytes between two hosts takes 2 x 1e-3 (two private links) + B/1e8 s.
#   (a) replay: rank 1's host leaves after iteration 1 (iter=1); its 1e8-byte move; CPU sharing
#   (b) replay: the same at a date (t=0.5): the rank moves at its next action boundary
#   (c) replay: removed, then added back: the rank returns home
#   (d) --host-policy rr and least
#   (e) dynamic efficiency of a drifting trace, marked by `iteration` or by `migrate`
#   (f) psim lb --pe-events: VPs moved off removed PEs at the forced step (none, greedy)
#   (g) psim run: psim_iteration() and --host-events, the same numbers as (a)
#   (h) bad specs: exit 2, the spec and the position named
set -u
. "$(dirname "$0")/../lib/common.sh"
D="$PSIM_TESTDATA/dyn"
PLAT2="--platform flat:2,1e9,1e8,1e-3 --network constant"
fails=0 checks=0
J=$(tmpfile)

# field PATTERN KEY: KEY's number on the first line of $J matching PATTERN
field() { grep -e "$1" "$J" | head -n 1 | grep -o "\"$2\": [-0-9.eE+]*" | head -n 1 | sed 's/.*: //'; }
# total: the top-level "processor_seconds" (the iterations have their own)
total() { grep '^  "processor_seconds"' "$J" | sed 's/.*: //'; }
# check NAME GOT WANT: relative 1e-9
check() {
  checks=$((checks + 1))
  if rel_close "$2" "$3" 1e-9; then echo "ok   $1 = $2"; else bad "$1: got '$2', want $3"; fi
}
# checks NAME GOT WANT: exact string
checks() {
  checks=$((checks + 1))
  if [ "$2" = "$3" ]; then echo "ok   $1"; else bad "$1: got '$2', want '$3'"; fi
}
replay() { "$PSIM" replay --quiet --json "$J" "$@" >"$TMPD/out" 2>&1 || { bad "psim replay $*:"; cat "$TMPD/out"; }; }

# (a) two_phases: ranks 0, 1 on node-0, node-1 compute 1e9 (until t=1), mark iteration 1,
# compute 2e9. iter=1:remove=1: rank 1 moves at its marker, t=1: 1e-3 x 2 + 1e8/1e8 = 1.002 s,
# arriving at 2.002. Rank 0 computed alone on node-0 from 1 to 2.002 (1.002e9 flops), then the
# two share it: rank 0's last 0.998e9 at 0.5e9/s end at 2.002 + 1.996 = 3.998; rank 1 did
# 0.998e9 by then and its last 1.002e9 alone end at 5.000.
# Iteration 1 = [0, 1]: useful 2 s, 2 hosts, 2 processor-seconds, efficiency 1. Iteration 2 =
# [1, 5]: useful 4 s (node-0 busy from 1 to 5); node-1 allocated until rank 1 left it (2.002):
# 2 x 1.002 + 1 x 2.998 = 5.002 processor-seconds, efficiency 4 / 5.002; total 7.002.
replay $PLAT2 "$D/two_phases.txt" --host-events 'iter=1:remove=1' --rank-memory 1e8
check "(a) makespan" "$(json_get "$J" simulated_time)" 5
check "(a) rank 0 finish" "$(field '"rank": 0,' finish_time)" 3.998
check "(a) rank 1 move_time" "$(field '"rank": 1,' move_time)" 1.002
check "(a) move end" "$(field '"rank": 1, "from"' end)" 2.002
check "(a) move start" "$(field '"rank": 1, "from"' start)" 1
checks "(a) move route" "$(grep -o '"from": "node-1", "to": "node-0", "bytes": 100000000' "$J")" '"from": "node-1", "to": "node-0", "bytes": 100000000'
check "(a) event date (iteration 1 reached first at t=1)" "$(field '"action": "remove"' date)" 1
check "(a) iteration 1 efficiency" "$(field '"iteration": 1, "start"' efficiency)" 1
check "(a) iteration 2 useful" "$(field '"iteration": 2, "start"' useful_compute)" 4
check "(a) iteration 2 processor-seconds" "$(field '"iteration": 2, "start"' processor_seconds)" 5.002
check "(a) iteration 2 efficiency" "$(field '"iteration": 2, "start"' efficiency)" "$(awk 'BEGIN { printf "%.17g", 4 / 5.002 }')"
check "(a) processor_seconds" "$(total)" 7.002

# (b) t=0.5: rank 1 is computing then; it moves at its next action boundary, t=1 (the end of
# its computation): the same move [1, 2.002] and the same makespan; the event is dated 0.5.
replay $PLAT2 "$D/two_phases.txt" --host-events 't=0.5:remove=node-1' --rank-memory 1e8
check "(b) makespan" "$(json_get "$J" simulated_time)" 5
check "(b) event date" "$(field '"action": "remove"' date)" 0.5
check "(b) move start" "$(field '"rank": 1, "from"' start)" 1
checks "(b) iteration null" "$(grep -c '"iteration": null' "$J")" 1

# (c) three_phases (1e9, iteration, 2e9, iteration, 1e9), 't=0.5:remove=1;iter=2:add=node-1':
# rank 1 moves at t=1 (boundary), arrives 2.002 and only then marks iteration 1: iteration 1 =
# [0, 2.002], useful 1 + 1 + 1.002 (rank 0 alone) = 3.002 s, 2 x 2.002 = 4.004 p-s. Sharing
# from 2.002: rank 0's 0.998e9 left end at 3.998 (its marker 2: node-1 is added at 3.998, rank
# 0 is home); then rank 0's 1e9 and rank 1's last 1.002e9 share: rank 0 ends 5.998, rank 1 at
# 6.000, marks iteration 2 and goes home: 6 -> 7.002, computes 1e9 alone: 8.002.
# Iteration 2 = [2.002, 6]: useful 3.998 (node-0 busy); node-1 out of the pool and empty over
# [2.002, 3.998] then allocated: 1.996 + 2 x 2.002 = 6 p-s. Iteration 3 = [6, 8.002]: useful 1,
# 2 hosts (node-0 is only released when the run ends): 4.004 p-s. Total 14.008.
replay $PLAT2 "$D/three_phases.txt" --host-events 't=0.5:remove=1;iter=2:add=node-1' --rank-memory 1e8
check "(c) makespan" "$(json_get "$J" simulated_time)" 8.002
check "(c) iteration 1 useful" "$(field '"iteration": 1, "start"' useful_compute)" 3.002
check "(c) iteration 1 end" "$(field '"iteration": 1, "start"' end)" 2.002
check "(c) iteration 2 useful" "$(field '"iteration": 2, "start"' useful_compute)" 3.998
check "(c) iteration 2 processor-seconds" "$(field '"iteration": 2, "start"' processor_seconds)" 6
check "(c) iteration 3 efficiency" "$(field '"iteration": 3, "start"' efficiency)" "$(awk 'BEGIN { printf "%.17g", 1 / 4.004 }')"
check "(c) processor_seconds" "$(total)" 14.008
check "(c) add event date" "$(field '"action": "add"' date)" 3.998
check "(c) move home start" "$(grep -A1 '"action": "add"' "$J" | tail -n 1 | grep -o '"start": [0-9.]*' | sed 's/.*: //')" 6

# (d) five ranks on node-0, node-1, node-1, node-2, node-2 (hostfile); node-2 leaves at
# iteration 1: ranks 3 and 4 are displaced. rr: rank 3 to node-0, rank 4 to node-1 (the
# remaining hosts in turn). least: rank 3 to node-0 (1 rank against 2), then rank 4 to node-0
# (2 against 2: the lowest index).
printf 'node-0\nnode-1\nnode-1\nnode-2\nnode-2\n' > "$TMPD/hosts"
replay --platform flat:3,1e9,1e8,1e-3 --network constant --hostfile "$TMPD/hosts" "$D/five.txt" --host-events 'iter=1:remove=2'
checks "(d) rr: rank 4 to node-1" "$(grep -o '"rank": 4, "from": "node-2", "to": "[^"]*"' "$J")" '"rank": 4, "from": "node-2", "to": "node-1"'
replay --platform flat:3,1e9,1e8,1e-3 --network constant --hostfile "$TMPD/hosts" "$D/five.txt" --host-events 'iter=1:remove=2' --host-policy least
checks "(d) least: rank 4 to node-0" "$(grep -o '"rank": 4, "from": "node-2", "to": "[^"]*"' "$J")" '"rank": 4, "from": "node-2", "to": "node-0"'
checks "(d) least: rank 3 to node-0" "$(grep -o '"rank": 3, "from": "node-2", "to": "[^"]*"' "$J")" '"rank": 3, "from": "node-2", "to": "node-0"'

# (e) drift: rank 0 computes 1e9, marks, 1e9, marks; rank 1 computes 2e9, marks, 1e9, marks.
# Iteration 1 ends when rank 1 marks it, t=2: window [0, 2] holds 1 + 1 (rank 0: its second
# computation is done in this window) + 2 = 4 s of work on 2 hosts: efficiency 1. Iteration 2
# = [2, 3]: rank 1's 1 s: 1 / 2 = 0.5. 6 processor-seconds.
for f in drift drift_migrate; do
  replay --platform flat:2,1e9,1e8,1e-4 "$D/$f.txt"
  check "(e) $f iteration 1 useful" "$(field '"iteration": 1, "start"' useful_compute)" 4
  check "(e) $f iteration 1 efficiency" "$(field '"iteration": 1, "start"' efficiency)" 1
  check "(e) $f iteration 2 efficiency" "$(field '"iteration": 2, "start"' efficiency)" 0.5
  check "(e) $f processor_seconds" "$(total)" 6
done
checks "(e) no host_events without --host-events" "$(grep -c host_events "$J")" 0

# (f) lb8: 8 VPs compute 1e9 then migrate 1e8 bytes, 3 times, on 8 PEs. iter=1:remove=4-7
# forces a step at migrate 1 (t=1) although balancer none has none: VPs 4-7 go to the least
# loaded remaining PEs (all 1 s; the lowest first): 4->0, 5->1, 6->2, 7->3, each moving 1e8
# bytes: 1.002 s, resuming at 2.002. Then two VPs per PE, one at a time: VP v runs 2.002-4.002
# (both its iterations: a migrate that is no step keeps the PE), VP v+4 4.002-6.002.
# Iterations end at 1, 5.002 (VP v+4's migrate 2), 6.002. Iteration 2 = [1, 5.002]: useful 4 x 3 =
# 12 s; PEs 4-7 allocated until 2.002: 8 x 1.002 + 4 x 3 = 20.016 p-s; total 8 + 20.016 + 4.
lb() { "$PSIM" lb --quiet --json "$J" "$@" >"$TMPD/out" 2>&1 || { bad "psim lb $*:"; cat "$TMPD/out"; }; }
lb "$D/lb8.txt" $PLAT2 --platform flat:8,1e9,1e8,1e-3 --pes 8 --balancer none --pe-events 'iter=1:remove=4-7'
check "(f) makespan" "$(json_get "$J" simulated_time)" 6.002
checks "(f) final mapping" "$(grep -o '"final_mapping": \[[0-9, ]*\]' "$J")" '"final_mapping": [0, 1, 2, 3, 0, 1, 2, 3]'
check "(f) migration end" "$(field '"rank": 4, "from"' end)" 2.002
check "(f) iteration 2 efficiency" "$(field '"iteration": 2, "start"' efficiency)" "$(awk 'BEGIN { printf "%.17g", 12 / 20.016 }')"
check "(f) processor_seconds" "$(total)" 32.016
# greedy over the 4 remaining PEs: 2 VPs each whatever the order: the same times
lb "$D/lb8.txt" --platform flat:8,1e9,1e8,1e-3 --network constant --pes 8 --balancer greedy --period 5 --pe-events 't=0.5:remove=4-7'
check "(f) greedy, date event: makespan" "$(json_get "$J" simulated_time)" 6.002
checks "(f) greedy: no VP on PEs 4-7" "$(grep -o '"final_mapping": \[[0-9, ]*\]' "$J" | grep -c '[4-7]')" 0

# (g) psim run: two_phases.c is (a) as a program (no heap of its own: --rank-memory moves)
PSIMCC="$(dirname "$PSIM")/psimcc"
if "$PSIMCC" -O2 -o "$TMPD/two_phases" "$D/two_phases.c" 2>"$TMPD/cc"; then
  "$PSIM" run --quiet --json "$J" --np 2 --no-measure $PLAT2 --host-events 'iter=1:remove=1' --rank-memory 1e8 -- "$TMPD/two_phases" >"$TMPD/out" 2>&1 || { bad "psim run:"; cat "$TMPD/out"; }
  check "(g) run makespan" "$(json_get "$J" simulated_time)" 5
  check "(g) run move end" "$(field '"rank": 1, "from"' end)" 2.002
  check "(g) run iteration 2 processor-seconds" "$(field '"iteration": 2, "start"' processor_seconds)" 5.002
else
  bad "(g) psimcc failed: $(cat "$TMPD/cc")"
fi

# (h) bad specs: exit status 2, a message naming the option, the spec and the position
bad_spec() {   # NAME EXPECTED-TEXT CMD...
  name=$1 want=$2; shift 2
  checks=$((checks + 1))
  "$@" >"$TMPD/out" 2>&1
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$TMPD/out"; then echo "ok   (h) $name"
  else bad "(h) $name: exit $rc, wanted 2 and '$want' in: $(cat "$TMPD/out")"; fi
}
T2="$D/two_phases.txt"
bad_spec "iteration not a number" "--host-events 'iter=x:remove=1': at character 6: expected an iteration number" \
  "$PSIM" replay $PLAT2 "$T2" --host-events 'iter=x:remove=1'
bad_spec "unknown action" "at character 5: expected remove=LIST or add=LIST" "$PSIM" replay $PLAT2 "$T2" --host-events 't=1:drop=1'
bad_spec "index out of range" "at character 15: expected indices in 0..1" "$PSIM" replay $PLAT2 "$T2" --host-events 'iter=1:remove=9'
bad_spec "unknown host" "at character 15: expected a name or an index" "$PSIM" replay $PLAT2 "$T2" --host-events 'iter=1:remove=node-7'
bad_spec "no when" "at character 1: expected iter=N or t=DATE" "$PSIM" replay $PLAT2 "$T2" --host-events 'remove=1'
bad_spec "trailing ;" "at character 17: expected another event" "$PSIM" replay $PLAT2 "$T2" --host-events 'iter=1:remove=1;'
bad_spec "no host left" "event 1 (an iteration event) leaves no host" "$PSIM" replay $PLAT2 "$T2" --host-events 'iter=1:remove=0-1'
bad_spec "lb reversed range" "--pe-events 'iter=1:remove=3-1': at character 15: expected indices in 0..7" \
  "$PSIM" lb "$D/lb8.txt" --platform flat:8 --pes 8 --balancer none --pe-events 'iter=1:remove=3-1'
bad_spec "lb no PE left" "leaves no PE" "$PSIM" lb "$D/lb8.txt" --platform flat:8 --pes 2 --balancer none --pe-events 'iter=1:remove=0-1'
bad_spec "policy" "--host-policy expects rr or least" "$PSIM" replay $PLAT2 "$T2" --host-policy nearest
bad_spec "run spec" "--host-events 't=-1:remove=0': at character 3: expected a date" \
  "$PSIM" run --np 2 --host-events 't=-1:remove=0' -- "$TMPD/two_phases"
finish "$fails"
