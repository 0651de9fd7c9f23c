#!/bin/bash
# Cost of a turn against the number of ranks (issue 35): 1-iteration stencils of 1024 to 65536
# ranks from one shared file, replayed on the embedded 64-node cluster with the constant model
# and the default (SMPI) model. Prints, per size and model, the median wall time of REPS runs,
# microseconds per action and per rank, and the peak memory. A flat curve of us/action means
# a turn costs the same whatever the number of ranks. It prints figures and asserts nothing.
#
#   bench/turn_scaling.sh                     # 1024 4096 16384 65536, 3 runs each
#   REPS=1 bench/turn_scaling.sh 1048576      # other sizes
#   PSIM=/path/to/psim MODELS=constant bench/turn_scaling.sh
#
# Workload (psim gen stencil --iters 1 --shared): per rank init, 4 irecv + 4 isend of 16 KiB,
# waitall, compute 1e6 flops, allreduce of 8 bytes (SimGrid's default: a linear reduce to
# rank 0, whose waitall holds one request per other rank, then a binomial bcast), finalize.
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-/tmp/psim-turn-scaling}
REPS=${REPS:-3}
MODELS=${MODELS:-constant smpi}
SIZES=${*:-1024 4096 16384 65536}
[ -x "$PSIM" ] || { echo "no psim at $PSIM (set PSIM=...)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$OUT"

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "psim: $PSIM ($(git -C "$(dirname "$PSIM")" describe --always --dirty 2>/dev/null || echo '?'))"
echo "median of $REPS runs; wall = the whole process (parsing the trace included)"
printf "%9s  %-8s  %9s  %9s  %10s  %9s  %9s\n" ranks model actions wall_s us/action us/rank peak_MB
for n in $SIZES; do
  dir="$OUT/st-$n"
  if [ ! -f "$dir/trace.txt" ]; then
    "$PSIM" gen stencil --ranks "$n" --iters 1 --shared -o "$dir" > /dev/null 2>&1 || { echo "gen failed at $n ranks" >&2; exit 1; }
  fi
  actions=$(wc -l < "$dir/trace.txt")   # one action a line
  for m in $MODELS; do
    walls="" mems=""
    for _ in $(seq "$REPS"); do
      t0=$(date +%s.%N)
      /usr/bin/time -f "%M" -o "$OUT/mem.txt" "$PSIM" replay --quiet --network "$m" --np "$n" "$dir/trace.txt" \
        > "$OUT/last.out" 2>&1 || { echo "replay failed ($n ranks, $m):" >&2; tail -3 "$OUT/last.out" >&2; exit 1; }
      t1=$(date +%s.%N)
      walls="$walls $(echo "$t1 - $t0" | bc -l)"
      mems="$mems $(tail -1 "$OUT/mem.txt")"
    done
    w=$(echo $walls | tr ' ' '\n' | median)
    mem=$(echo $mems | tr ' ' '\n' | median)
    printf "%9d  %-8s  %9d  %9.3f  %10.3f  %9.2f  %9.0f\n" "$n" "$m" "$actions" "$w" \
      "$(echo "$w * 1000000 / $actions" | bc -l)" "$(echo "$w * 1000000 / $n" | bc -l)" "$(echo "$mem / 1024" | bc -l)"
  done
done
