#!/bin/sh
# CLUE's load-index case study (Kvasnicka, Hlavacs, Ueberhuber, "Simulating Parallel Program
# Performance with CLUE", section "Case study: load index evaluation"), on psim's background
# users: which smoothing constant beta of the UNIX load average L(t+1) = beta L(t) +
# (1 - beta) N(t) best predicts the run time of a task?
#
# One workstation (1 core, 1 Gflop/s) carries a day of Poisson background users
# (background/poisson: RATE arrivals per second, exponential CPU demand of mean MEAN s, nice
# 0, seed SEED). A stream of tasks of s CPU-seconds runs back to back all day (one rank
# computing s x 1e9 flops again and again). At each task's start the load average sampled
# every second (as in CLUE) predicts its run time: s x L, L counting the task stream itself
# (a task gets 1/N of the CPU when N processes run: L ~ 1 + the background's load). After
# the task the prediction error |predicted - actual| / actual is recorded; the table gives
# the mean error over the day for each beta (columns) and task size s (rows).
#
# The paper's finding: for tasks of a few CPU-seconds beta = 0 (the current number of
# processes) predicts best; longer tasks prefer larger betas (a longer memory).
#
# usage: bench/clue_load_index.sh [RATE MEAN SEED]   (default 0.4 1 1: 40 % load of 1-s jobs)
# Each size is 3 psim replay runs of a simulated day (the schedule does not depend on beta,
# so the runs differ only in the betas they report); a few seconds in all.
set -eu
PSIM=${PSIM:-$(cd "$(dirname "$0")/.." && pwd)/build/psim}
RATE=${1:-0.4} MEAN=${2:-1} SEED=${3:-1}
DAY=86400
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-clue.XXXXXX")
trap 'rm -rf "$W"' EXIT
BETAS="0,0.5,0.9 0.95,0.984,0.99 0.995,0.998,0.999"
echo "CLUE load-index study: one day, Poisson users (rate $RATE/s, mean $MEAN CPU-s, seed $SEED)"
printf '%-6s' "s \\ b"
for g in $BETAS; do for b in $(echo "$g" | tr ',' ' '); do printf ' %8s' "$b"; done; done
printf '   best\n'
for s in 1 5 20 60; do
  # enough tasks to fill the day at full speed; the analysis stops at the end of the day
  n=$((DAY / s))
  { echo "0 init"; i=0; while [ $i -lt $n ]; do echo "0 compute ${s}e9"; i=$((i + 1)); done; } > "$W/tasks.txt"
  row=""
  for g in $BETAS; do
    "$PSIM" replay --quiet --platform flat:1,1Gf "$W/tasks.txt" --actions "$W/act.txt" --json "$W/la.json" \
      --cfg "background/poisson:$RATE,$MEAN,0,$SEED" --cfg loadavg/period:1 --cfg "loadavg/betas:$g" \
      --cfg loadavg/max-samples:10000000
    # the samples [t, L1, L2, L3] one per line, then each task's start, end: mean errors
    tr -d '\n' < "$W/la.json" | sed 's/.*"samples": \[\[//; s/\]\]}.*//; s/\], \[/\n/g' | tr -d ',' > "$W/samples.txt"
    e=$(awk -v s="$s" -v day=$DAY '
      FNR == NR { t[NR] = $1; l1[NR] = $2; l2[NR] = $3; l3[NR] = $4; ns = NR; next }
      $3 == "compute" {
        end = $1; start = end - $5; if (end > day) exit
        while (k < ns && t[k + 1] <= start) k++     # the last sample at or before the start
        if (k == 0) next
        p1 = s * (l1[k] > 1 ? l1[k] : 1); p2 = s * (l2[k] > 1 ? l2[k] : 1); p3 = s * (l3[k] > 1 ? l3[k] : 1)
        a = $5; e1 += (p1 > a ? p1 - a : a - p1) / a; e2 += (p2 > a ? p2 - a : a - p2) / a
        e3 += (p3 > a ? p3 - a : a - p3) / a; m++
      }
      END { printf "%.4f %.4f %.4f", e1 / m, e2 / m, e3 / m }' "$W/samples.txt" "$W/act.txt")
    row="$row $e"
  done
  printf '%-6s' "$s"
  echo "$row" | awk -v betas="$(echo $BETAS | tr ' ' ',')" '{
    split(betas, b, ","); best = 1
    for (i = 1; i <= NF; i++) { printf " %8.4f", $i; if ($i < $best) best = i }
    printf "   %s\n", b[best] }'
done
