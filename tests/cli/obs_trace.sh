#!/bin/sh
# --trace FILE.paje and --trace FILE.json on the SimGrid cases and a generated stencil:
# PajeNG's pj_dump reads the Paje file and finds one state per action (with the action log's
# end dates) and one link per message; the Chrome file is valid JSON with one "X" event per
# action and a matched "s"/"f" pair per message; both are byte-identical when run again.
set -u
. "$(dirname "$0")/../lib/common.sh"
C="$PSIM_SHARED/cases/simgrid"
fails=0
command -v pj_dump >/dev/null || { echo "FAIL pj_dump missing (scripts/deps.sh test installs pajeng)"; exit 1; }
PY=python3
command -v $PY >/dev/null || { echo "FAIL python3 missing"; exit 1; }

check() { # name args...
  name=$1; shift
  d="$TMPD/$name"; mkdir -p "$d"
  if ! "$PSIM" replay --quiet --actions "$d/actions" --json "$d/res.json" --trace "$d/t.paje" \
        --trace "$d/t.json" "$@"; then bad "$name: psim failed"; return; fi
  nact=$(wc -l < "$d/actions" | tr -d ' ')
  nmsg=$(json_get "$d/res.json" messages)
  # Paje
  if ! pj_dump "$d/t.paje" > "$d/dump" 2> "$d/dump.err" || [ -s "$d/dump.err" ]; then
    bad "$name: pj_dump rejects the Paje file: $(head -c 300 "$d/dump.err")"; return
  fi
  nst=$(grep -c '^State,' "$d/dump")
  nlk=$(grep -c '^Link,' "$d/dump")
  [ "$nst" = "$nact" ] || bad "$name: pj_dump shows $nst states, the run did $nact actions"
  [ "$nlk" = "$nmsg" ] || bad "$name: pj_dump shows $nlk links, the run sent $nmsg messages"
  # every state ends where the action log says (rank, end date to 1e-6)
  awk '{ print $2, $1 }' "$d/actions" | sort > "$d/want"
  awk -F', ' '$1 == "State" { sub(/^rank-/, "", $2); print $2, $5 }' "$d/dump" | sort > "$d/got"
  cmp -s "$d/want" "$d/got" || bad "$name: Paje state end dates differ from the action log"
  # Chrome
  if ! $PY -m json.tool "$d/t.json" > /dev/null 2> "$d/json.err"; then
    bad "$name: invalid JSON: $(head -c 300 "$d/json.err")"; return
  fi
  nx=$(grep -c '"ph":"X"' "$d/t.json")
  ns=$(grep -c '"ph":"s"' "$d/t.json")
  nf=$(grep -c '"ph":"f"' "$d/t.json")
  [ "$nx" = "$nact" ] || bad "$name: $nx X events for $nact actions"
  [ "$ns" = "$nmsg" ] && [ "$nf" = "$nmsg" ] || bad "$name: flows s=$ns f=$nf for $nmsg messages"
  # deterministic
  "$PSIM" replay --quiet --trace "$d/u.paje" --trace "$d/u.json" "$@" || bad "$name: second run failed"
  cmp -s "$d/t.paje" "$d/u.paje" || bad "$name: Paje output differs between two runs"
  cmp -s "$d/t.json" "$d/u.json" || bad "$name: Chrome output differs between two runs"
  echo "ok   $name: $nact actions, $nmsg messages"
}
S="--platform $C/small_platform.xml --hostfile $C/hostfile"
check bcast $S --np 3 "$C/traces/actions_bcast.txt"
check split_send_recv $S --np 2 "$C/traces/actions0.txt" "$C/traces/actions1.txt"
check barrier $S --np 3 "$C/traces/actions_barrier.txt"
check isend_test_wait $S --np 3 "$C/traces/actions_with_isend.txt"
check allreduce $S --np 3 "$C/traces/actions_allreduce.txt"
check alltoall $S --np 3 "$C/traces/actions_alltoall.txt"
"$PSIM" gen stencil --ranks 16 --iters 20 -o "$TMPD/st" > /dev/null 2>&1 || bad "gen stencil failed"
check stencil16 "$TMPD/st"

# an unknown extension is a usage error, not a silent no-trace
if "$PSIM" replay --quiet --trace "$TMPD/x.txt" "$TMPD/st" 2> "$TMPD/err"; then bad "--trace x.txt accepted"
elif ! grep -q "unknown trace format" "$TMPD/err"; then bad "--trace x.txt: unclear message: $(cat "$TMPD/err")"; fi
finish $fails
