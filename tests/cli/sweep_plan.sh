#!/bin/sh
# psim plan: bisection over the host count, on a case whose answer is known by hand.
#
# 16 ranks each computing 1e9 flops on flat:H,1Gf (one core per host, ranks cycling over the
# hosts): the busiest host runs ceil(16/H) ranks on its core, so makespan(H) = ceil(16/H) s
# and the efficiency relative to 1 host is 16 / (H * ceil(16/H)).
#   makespan <= 2 s: H >= 8.  makespan <= 3 s: ceil(16/H) <= 3 <=> H >= 6 (16/5 > 3).
#   makespan <= 0.5 s: never. Efficiency >= 0.75 over 1..12: 10 (0.8); 11 gives 0.727,
#   12 gives 0.667 (bisection from 1 and 12 probes 7 (0.762), 10 (0.8), 11).
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
plan() { "$PSIM" plan "$@" -- replay --network constant --platform 'flat:{hosts},1Gf' "$PSIM_TESTDATA/sweep16.txt"; }

plan --hosts 1..32 --makespan 2 -j 1 --json "$TMPD/p.json" > "$TMPD/out" 2> "$TMPD/err" || bad "plan --makespan 2 failed: $(cat "$TMPD/err")"
grep -q '^smallest host count with makespan <= 2: 8 (makespan 2.000000 s, efficiency 1.0000 relative to 1 host); 7 runs instead of 32$' "$TMPD/out" \
  || bad "makespan <= 2: $(tail -n 1 "$TMPD/out")"
# the curve measured on the way: 1, 32, then bisection 17 (1 s), 9 (2 s), 5 (4 s), 7 (3 s), 8 (2 s)
[ "$(awk '$1 ~ /^[0-9]+$/ && $NF == "ok" { printf "%s:%s ", $2, $3 }' "$TMPD/out")" = "1:16.000000 5:4.000000 7:3.000000 8:2.000000 9:2.000000 17:1.000000 32:1.000000 " ] \
  || bad "measured curve: $(awk '$1 ~ /^[0-9]+$/ && $NF == "ok" { printf "%s:%s ", $2, $3 }' "$TMPD/out")"
grep -q '"plan": {"parameter": "hosts", "low": 1, "high": 32, "target_makespan": 2, "target_efficiency": null, "answer": 8, "runs": 7}' "$TMPD/p.json" \
  || bad "JSON plan member: $(grep '"plan"' "$TMPD/p.json")"
python3 -m json.tool "$TMPD/p.json" > /dev/null || bad "plan JSON does not parse"
echo "ok   makespan <= 2 s: 8 hosts in 7 runs, the curve printed"

plan --hosts 1..32 --makespan 3 -j 2 --quiet > "$TMPD/out" 2> "$TMPD/err" || bad "plan --makespan 3 -j 2 failed"
grep -q '^smallest host count with makespan <= 3: 6 (makespan 3.000000 s' "$TMPD/out" || bad "makespan <= 3 with 2 probes a round: $(cat "$TMPD/out")"
echo "ok   makespan <= 3 s: 6 hosts (2 probes a round)"

plan --hosts 1..12 --efficiency 0.75 -j 1 --quiet > "$TMPD/out" 2> "$TMPD/err" || bad "plan --efficiency failed"
grep -q '^largest host count with efficiency >= 0.75: 10 (makespan 2.000000 s, efficiency 0.8000 relative to 1 host); 5 runs instead of 12$' "$TMPD/out" \
  || bad "efficiency >= 0.75: $(cat "$TMPD/out")"
echo "ok   efficiency >= 0.75: 10 hosts"

plan --hosts 1..16 --makespan 2 --efficiency 0.95 -j 1 --quiet > "$TMPD/out" 2> /dev/null
[ $? = 0 ] || bad "both targets met: exit status not 0"
grep -q 'makespan <= 2: 8 ' "$TMPD/out" && ! grep -q 'below' "$TMPD/out" || bad "both targets: $(cat "$TMPD/out")"
# 6 hosts meet 3 s with efficiency 16 / 18 = 0.889: no count meets 3 s and 0.95 together
plan --hosts 1..16 --makespan 3 --efficiency 0.95 -j 1 --quiet > "$TMPD/out" 2> /dev/null
[ $? = 1 ] || bad "efficiency target missed at the answer: exit status not 1"
grep -q '^its efficiency is below 0.95: no count in 1..16 meets both targets$' "$TMPD/out" || bad "both targets, missed: $(cat "$TMPD/out")"
plan --hosts 1..4 --makespan 0.5 -j 2 --quiet > "$TMPD/out" 2> /dev/null
[ $? = 1 ] || bad "no answer: exit status not 1"
grep -q '^no host count in 1..4 meets the target' "$TMPD/out" || bad "no answer: $(cat "$TMPD/out")"
echo "ok   no answer in range: exit 1"

# a run failing stops the plan with its message; bad usage: exit 2
"$PSIM" plan --hosts 1..4 --makespan 1 -- replay --platform 'flat:{hosts}' /nonexistent > /dev/null 2> "$TMPD/err"
[ $? = 2 ] || bad "failing runs: exit status not 2"
grep -q 'psim plan: the run with hosts=1 failed (exit 2): psim: /nonexistent' "$TMPD/err" || bad "failing run: $(cat "$TMPD/err")"
for args in "--hosts 4..2 --makespan 1" "--hosts 0..4 --makespan 1" "--hosts 1..4" "--hosts 1..4 --efficiency 1.5" "--makespan 1"; do
  # shellcheck disable=SC2086
  "$PSIM" plan $args -- replay 'flat:{hosts}' > /dev/null 2>&1
  [ $? = 2 ] || bad "plan $args: exit status not 2"
done
echo "ok   failing runs and bad usage: exit 2"
finish $fails
