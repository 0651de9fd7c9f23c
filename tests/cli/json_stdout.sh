#!/bin/sh
# `--json -` writes only JSON on stdout, for every command that has --json: stdout piped into
# python3 -m json.tool parses, and what the command says besides (a table, an introduction, the
# program's own output under psim run, psim plan's answer) is not lost but on stderr. Before,
# psim forecast printed its table, psim plan its table and answer, psim demo its introduction
# and psim run the program's printf on stdout before the JSON.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
command -v python3 >/dev/null || { echo "python3 is needed to parse the JSON"; exit 1; }
PSIMCC="$(dirname "$PSIM")/psimcc"
"$PSIM" gen stencil --ranks 4 --iters 5 -o "$TMPD/st" >/dev/null 2>&1 || bad "gen stencil"
"$PSIM" gen stencil2d --grid 4x2 --iters 20 -o "$TMPD/o3d" >/dev/null 2>&1 || bad "gen stencil2d"
"$PSIMCC" -O1 -o "$TMPD/ring" "$PSIM_SRC/examples/ring.c" || bad "psimcc ring.c"
# only_json NAME KEY COMMAND...: exit 0, stdout is one JSON value holding "KEY"
only_json() {
  name=$1 key=$2
  shift 2
  "$@" > "$TMPD/out" 2> "$TMPD/err"
  rc=$?
  if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(tail -n 3 "$TMPD/err")"; return; fi
  if ! python3 -m json.tool < "$TMPD/out" > /dev/null 2> "$TMPD/jerr"; then
    bad "$name --json -: stdout is not JSON alone: $(head -c 200 "$TMPD/out" | tr '\n' ' ')"
    return
  fi
  grep -q "\"$key\"" "$TMPD/out" || { bad "$name: no \"$key\" in its JSON"; return; }
  echo "ok   $name"
}
only_json replay simulated_time "$PSIM" replay "$TMPD/st" --json -
only_json critical-path simulated_time "$PSIM" critical-path "$TMPD/st" --json -
only_json sensitivity simulated_time "$PSIM" sensitivity "$TMPD/st" --json -
only_json lb migrations "$PSIM" lb "$TMPD/o3d" --pes 4 --balancer greedy,none --period 5 --json -
only_json demo simulated_time "$PSIM" demo --json -
grep -q '^psim demo: a 64-rank' "$TMPD/err" || bad "demo: its introduction is not on stderr"
only_json run simulated_time "$PSIM" run --np 4 --json - -- "$TMPD/ring"
grep -q '^ring: 4 ranks' "$TMPD/err" || bad "run: the program's output is not on stderr: $(cat "$TMPD/err")"
# without --json -, the program's output stays on stdout
"$PSIM" run -q --np 4 -- "$TMPD/ring" > "$TMPD/out" 2>/dev/null
grep -q '^ring: 4 ranks' "$TMPD/out" || bad "run: without --json -, the program's output left stdout"
# --actions - too: only the action log on stdout (one line per action: END_TIME RANK ...)
"$PSIM" run -q --np 4 --actions - -- "$TMPD/ring" > "$TMPD/out" 2> "$TMPD/err" || bad "run --actions -: exit $?"
grep -v '^[0-9.]* [0-9]* ' "$TMPD/out" | grep -q . && bad "run --actions -: stdout holds more than actions: $(grep -v '^[0-9.]* [0-9]* ' "$TMPD/out" | head -n 2)"
[ -s "$TMPD/out" ] || bad "run --actions -: no action written"
grep -q '^ring: 4 ranks' "$TMPD/err" || bad "run --actions -: the program's output is not on stderr"
only_json forecast grids "$PSIM" forecast pdgemm --m 512 --n 512 --k 512 --nb 64 --procs 1-4 --platform flat:4 --kernel-rate 1e9 --json -
only_json sweep runs "$PSIM" sweep --vary hosts=2,4 --json - -- replay --platform 'flat:{hosts}' --np 4 "$TMPD/st"
only_json plan plan "$PSIM" plan --hosts 1..8 --makespan 1 --json - -- replay --platform 'flat:{hosts}' --np 4 "$TMPD/st"
grep -q '^smallest host count with makespan <= 1: 1 ' "$TMPD/err" || bad "plan: its answer is not on stderr: $(cat "$TMPD/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["plan"]["answer"] != 1)' "$TMPD/out" || bad "plan: the JSON's answer is not 1"
finish $fails
