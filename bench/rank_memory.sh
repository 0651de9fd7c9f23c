#!/bin/bash
# Memory per rank of psim replay (issue 38, part 3): 1-iteration stencils from one shared file
# (psim gen stencil --iters 1 --shared), replayed with the constant network model on the
# embedded 64-node cluster. Prints, per size, the median wall time of REPS runs, the peak
# memory (GNU time's maximum RSS) and the bytes per rank. It asserts nothing.
#
#   bench/rank_memory.sh                          # 65536 1048576 4194304 10485760, 1 run each
#   REPS=3 bench/rank_memory.sh 65536 1048576
#   PSIM=/path/to/psim BENCH_OUT=/big/disk bench/rank_memory.sh
#
# A size whose peak, projected from the previous size's bytes per rank (+10 %), would not fit
# in MemAvailable is skipped with a line saying so: the machine is shared, and an
# out-of-memory kill would hit other people's work. The traces take about 310 bytes a rank on
# disk (3.2 GB at 10 M ranks) and are kept in BENCH_OUT for the next run.
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-/tmp/psim-rank-memory}
REPS=${REPS:-1}
SIZES=${*:-65536 1048576 4194304 10485760}
[ -x "$PSIM" ] || { echo "no psim at $PSIM (set PSIM=...)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$OUT"

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
avail_kb() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

echo "psim: $PSIM ($(git -C "$(dirname "$PSIM")" describe --always --dirty 2>/dev/null || echo '?'))"
echo "median of $REPS runs; wall = the whole process (reading the trace included); constant model"
printf "%9s  %9s  %9s  %10s  %9s\n" ranks actions wall_s peak_MB bytes/rank
bpr=0   # bytes per rank of the previous size
for n in $SIZES; do
  if [ "$bpr" != 0 ]; then
    need=$(echo "$bpr * $n * 1.1 / 1024" | bc)
    have=$(avail_kb)
    if [ "$need" -gt "$have" ]; then
      printf "%9d  skipped: needs about %.1f GB at %d bytes a rank, %.1f GB available\n" "$n" \
        "$(echo "$need / 1048576" | bc -l)" "$bpr" "$(echo "$have / 1048576" | bc -l)"
      continue
    fi
  fi
  dir="$OUT/st-$n"
  if [ ! -f "$dir/trace.txt" ]; then
    "$PSIM" gen stencil --ranks "$n" --iters 1 --shared -o "$dir" > /dev/null 2>&1 || { echo "gen failed at $n ranks" >&2; exit 1; }
  fi
  actions=$(wc -l < "$dir/trace.txt")   # one action a line
  walls="" mems=""
  for _ in $(seq "$REPS"); do
    t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$OUT/mem.txt" "$PSIM" replay --quiet --network constant --np "$n" "$dir/trace.txt" \
      > "$OUT/last.out" 2>&1 || { echo "replay failed ($n ranks):" >&2; tail -3 "$OUT/last.out" >&2; exit 1; }
    t1=$(date +%s.%N)
    walls="$walls $(echo "$t1 - $t0" | bc -l)"
    mems="$mems $(tail -1 "$OUT/mem.txt")"
  done
  w=$(echo $walls | tr ' ' '\n' | median)
  mem=$(echo $mems | tr ' ' '\n' | median)
  bpr=$(echo "$mem * 1024 / $n" | bc)
  printf "%9d  %9d  %9.2f  %10.0f  %9d\n" "$n" "$actions" "$w" "$(echo "$mem / 1024" | bc -l)" "$bpr"
done
