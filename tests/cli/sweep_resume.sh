#!/bin/sh
# psim sweep --resume takes the successful runs of an earlier JSON (and runs only the others);
# an interrupted sweep (SIGINT) leaves valid JSON and CSV with the runs done, exit status 130,
# and resuming it gives the bytes an uninterrupted sweep gives.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
T="$PSIM_TESTDATA/sweep16.txt"   # 16 ranks x 1e9 flops
sweep() { "$PSIM" sweep --vary h=1..6 -j 2 "$@" -- replay --network constant --platform 'flat:{h},1Gf' "$T"; }

sweep --quiet --json "$TMPD/full.json" 2> /dev/null || bad "full sweep failed"
# The file to resume from: run h=2 missing, run h=5 failed, run h=4 marked (np 99, which no
# run gives): it must be taken as it is, not run again.
python3 - "$TMPD/full.json" "$TMPD/part.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
runs = [r for r in d["runs"] if r["params"]["h"] != 2]
for r in runs:
    if r["params"]["h"] == 5:
        r["status"], r["error"], r["result"] = 2, "psim: something went wrong", None
    if r["params"]["h"] == 4:
        r["result"]["np"] = 99
d["runs"] = runs
json.dump(d, open(sys.argv[2], "w"))
EOF
sweep --resume "$TMPD/part.json" --json "$TMPD/res.json" > "$TMPD/table" 2> "$TMPD/err" || bad "resumed sweep failed: $(cat "$TMPD/err")"
grep -q '^6 of 6 runs done, 4 taken from --resume$' "$TMPD/table" || bad "resume: $(tail -n 1 "$TMPD/table"), want 4 taken"
grep -q '{"params": {"h": 4}.*"np": 99,' "$TMPD/res.json" || bad "resume ran h=4 again instead of taking it"
grep -q '{"params": {"h": 5}, "status": 0, "error": null, "simulated_time": 4,' "$TMPD/res.json" || bad "resume did not run the failed h=5 again"
grep -q '{"params": {"h": 2}, "status": 0, "error": null, "simulated_time": 8,' "$TMPD/res.json" || bad "resume did not run the missing h=2"
sed 's/"np": 99,/"np": 16,/' "$TMPD/res.json" > "$TMPD/res16.json"
cmp -s "$TMPD/full.json" "$TMPD/res16.json" || bad "resumed JSON differs from the full sweep's (beyond the marker)"
# resuming a complete sweep runs nothing and rewrites the same bytes
sweep --resume "$TMPD/full.json" --json "$TMPD/again.json" > "$TMPD/table" 2> /dev/null || bad "resuming a complete sweep failed"
grep -q '^6 of 6 runs done, 6 taken from --resume$' "$TMPD/table" || bad "resume of a complete sweep: $(tail -n 1 "$TMPD/table")"
cmp -s "$TMPD/full.json" "$TMPD/again.json" || bad "resuming a complete sweep changed its JSON"
# a missing resume file: start from the beginning; not a sweep's JSON: exit 2
sweep --quiet --resume "$TMPD/none.json" --json "$TMPD/n.json" 2> "$TMPD/err" || bad "--resume of a missing file failed"
grep -q 'no such file, starting from the beginning' "$TMPD/err" || bad "--resume of a missing file: no notice"
echo '{"a": 1}' > "$TMPD/bad.json"
sweep --quiet --resume "$TMPD/bad.json" 2> "$TMPD/err"
[ $? = 2 ] || bad "--resume of a non-sweep JSON: exit status not 2"
grep -q 'not the JSON of a psim sweep' "$TMPD/err" || bad "--resume of a non-sweep JSON: $(cat "$TMPD/err")"
echo "ok   --resume takes successful runs as they are, runs failed and missing ones"

# Ctrl-C: runs of about 0.15 s each, interrupted after the second
"$PSIM" gen stencil --ranks 16 --iters 1500 -o "$TMPD/st" > /dev/null 2>&1
slow() { "$PSIM" sweep --vary h=1..6 -j 1 "$@" -- replay --platform 'flat:{h},1Gf' "$TMPD/st"; }
"$PSIM" sweep --vary h=1..6 -j 1 --quiet --progress --json "$TMPD/int.json" --csv "$TMPD/int.csv" \
  -- replay --platform 'flat:{h},1Gf' "$TMPD/st" 2> "$TMPD/prog" &   # not through a function: $! is psim
pid=$!
n=0
while ! grep -q '2/6 runs done' "$TMPD/prog" 2> /dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || bad "interrupted sweep: exit status $rc, want 130"
grep -q 'interrupted: [0-9] of 6 runs done (saved; continue with --resume' "$TMPD/prog" || bad "no notice of the interruption: $(tr '\r' '\n' < "$TMPD/prog" | tail -n 2)"
python3 -m json.tool "$TMPD/int.json" > /dev/null || bad "interrupted sweep: JSON does not parse"
done_runs=$(grep -c '^    {"params": ' "$TMPD/int.json")
grep -q "\"total\": 6, \"done\": $done_runs, \"failed\": 0, \"complete\": false" "$TMPD/int.json" || bad "interrupted sweep: counts ($done_runs runs listed)"
[ "$done_runs" -ge 2 ] && [ "$done_runs" -lt 6 ] || bad "interrupted sweep: $done_runs runs done, want 2 to 5"
[ "$(wc -l < "$TMPD/int.csv")" = $((done_runs + 1)) ] || bad "interrupted sweep: CSV rows"
ls "$TMPD"/int.json.tmp* > /dev/null 2>&1 && bad "temporary output files left behind"
slow --quiet --resume "$TMPD/int.json" --json "$TMPD/int.json" 2> /dev/null || bad "resuming the interrupted sweep failed"
slow --quiet -j 2 --json "$TMPD/ref.json" 2> /dev/null || bad "reference sweep failed"
cmp -s "$TMPD/int.json" "$TMPD/ref.json" || bad "interrupted + resumed JSON differs from an uninterrupted sweep's"
echo "ok   Ctrl-C: valid partial JSON/CSV ($done_runs of 6), exit 130; resumed = uninterrupted"
finish $fails
