#!/bin/sh
# The load-balancing trace workflow: aggregating a 16x16 trace to 4x4 gives the compute of a
# directly generated 4x4 trace (per iteration and rank, to rounding); a profile turned back
# into a trace replays; lb-period keeps every K-th migrate; stats counts them.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
G="--iters 30 --noise 0.05 --seed 3 --front-speed 3"
"$PSIM" gen stencil2d --grid 16x16 $G -o "$TMPD/f16" 2>/dev/null || { echo "FAIL gen 16x16"; exit 1; }
"$PSIM" gen stencil2d --grid 4x4 $G -o "$TMPD/d4" 2>/dev/null || { echo "FAIL gen 4x4"; exit 1; }
"$PSIM" trace aggregate --from 16x16 --to 4x4 "$TMPD/f16" -o "$TMPD/agg.csv" || { echo "FAIL aggregate"; exit 1; }
"$PSIM" trace aggregate --from 4x4 --to 4x4 "$TMPD/d4" -o "$TMPD/direct.csv" || { echo "FAIL aggregate 4x4"; exit 1; }
n=$(awk -F, 'NR == FNR { if (FNR > 1) a[$1 "," $2] = $3; next }
             FNR > 1 { k = $1 "," $2; d = a[k] - $3; if (d < 0) d = -d; if (!(k in a) || d > 1e-9 * $3) bad++; n++ }
             END { if (bad) print "BAD", bad; else print n }' "$TMPD/agg.csv" "$TMPD/direct.csv")
if [ "$n" = 480 ]; then echo "ok   aggregate_16x16_to_4x4: 480 (iteration, rank) values equal"
else echo "FAIL aggregate_16x16_to_4x4: $n"; fails=$((fails + 1)); fi
# non-divisor target: the total compute is preserved
tot() { awk -F, 'FNR > 1 { s += $3 } END { printf "%.6e\n", s }' "$1"; }
"$PSIM" trace aggregate --from 16x16 --to 3x5 "$TMPD/f16" -o "$TMPD/agg35.csv"
if [ "$(tot "$TMPD/agg35.csv")" = "$(tot "$TMPD/agg.csv")" ]; then echo "ok   aggregate_3x5_conserves"
else echo "FAIL aggregate_3x5_conserves: $(tot "$TMPD/agg35.csv") vs $(tot "$TMPD/agg.csv")"; fails=$((fails + 1)); fi
# the profile back to a trace: same compute lines as the direct 4x4 trace
"$PSIM" gen stencil2d --grid 4x4 $G --profile "$TMPD/agg.csv" -o "$TMPD/p4" 2>/dev/null
o1=$(tmpfile) o2=$(tmpfile)
"$PSIM" replay --quiet --json "$o1" "$TMPD/p4" && "$PSIM" replay --quiet --json "$o2" "$TMPD/d4"
if rel_close "$(json_get "$o1" simulated_time)" "$(json_get "$o2" simulated_time)" 1e-9; then echo "ok   profile_trace_replays_as_direct"
else echo "FAIL profile_trace: $(json_get "$o1" simulated_time) vs $(json_get "$o2" simulated_time)"; fails=$((fails + 1)); fi
# lb-period 10 keeps 3 of 30 migrates per rank
"$PSIM" trace lb-period 10 "$TMPD/d4" "$TMPD/k10"
if "$PSIM" trace stats "$TMPD/k10" | grep -q 'migrate points   48 (per rank: min 3, max 3)'; then echo "ok   lb_period"
else echo "FAIL lb_period"; "$PSIM" trace stats "$TMPD/k10"; fails=$((fails + 1)); fi
# psim lb --period 10 on the original = --period 1 on the filtered trace
a=$(tmpfile) b=$(tmpfile)
"$PSIM" lb "$TMPD/d4" --pes 4 --balancer greedy --period 10 --quiet --json "$a"
"$PSIM" lb "$TMPD/k10" --pes 4 --balancer greedy --period 1 --quiet --json "$b"
if [ "$(json_get "$a" simulated_time)" = "$(json_get "$b" simulated_time)" ] && [ "$(json_get "$a" lb_steps)" = 3 ]; then echo "ok   lb_period_equals_period"
else echo "FAIL lb_period_equals_period: $(json_get "$a" simulated_time) vs $(json_get "$b" simulated_time)"; fails=$((fails + 1)); fi
finish $fails
