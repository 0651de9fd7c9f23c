#!/bin/bash
# Replay benchmark: psim against SimGrid 3.32 on the same generated files, then psim alone at
# scale. Prints wall time, actions/s, peak memory and simulated times; medians of REPS runs.
#
#   bench/replay_bench.sh            # full (several minutes)
#   bench/replay_bench.sh --quick    # smaller sizes, 1 repetition
#
# Workload (psim gen stencil): 2-D periodic stencil, per iteration 4 irecv + 4 isend of 16 KiB,
# waitall, compute 1e6 flops, allreduce of 8 bytes; one file per rank; flat cluster of 1 Gf
# hosts with 10 Gbps / 1 us private links (one host per rank).
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-$PWD/bench/out}
REPS=${REPS:-3}
QUICK=0
[ "${1:-}" = "--quick" ] && { QUICK=1; REPS=1; }
mkdir -p "$OUT"
command -v /usr/bin/time >/dev/null || scripts/deps.sh bench
[ -x "$PSIM" ] || make -s
have_simgrid=0
command -v smpirun >/dev/null && have_simgrid=1

platform() { # N -> writes $OUT/flat-N.xml and $OUT/hosts-N
  local n=$1
  [ -f "$OUT/flat-$n.xml" ] && return
  cat > "$OUT/flat-$n.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="bench" prefix="node-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="10Gbps" lat="1us"/>
</platform>
XML
  seq 0 $((n - 1)) | sed 's/^/node-/' > "$OUT/hosts-$n"
}

# median of numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# run_timed LABEL CMD... : prints "wall_s peak_kB" of the median-time run, keeps its stdout in $OUT/last.out
run_timed() {
  shift  # the label only documents the call
  local walls="" mems="" i
  for i in $(seq "$REPS"); do
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$@" > "$OUT/last.out" 2> "$OUT/last.err" || { echo "FAILED: $*" >&2; tail -5 "$OUT/last.err" >&2; return 1; }
    walls="$walls $(cut -d' ' -f1 "$OUT/time.txt")"
    mems="$mems $(cut -d' ' -f2 "$OUT/time.txt")"
  done
  echo "$(echo $walls | tr ' ' '\n' | median) $(echo $mems | tr ' ' '\n' | median)"
}

compare() { # ranks iters
  local n=$1 it=$2 dir="$OUT/st-$1x$2"
  platform "$n"
  [ -f "$dir/list" ] || $PSIM gen stencil --ranks "$n" --iters "$it" -o "$dir" 2>/dev/null
  local actions=$((n * (it * 11 + 2)))
  read -r pw pm < <(run_timed psim $PSIM replay --quiet --json - --platform "$OUT/flat-$n.xml" --hostfile "$OUT/hosts-$n" "$dir")
  local pt; pt=$(grep -o '"simulated_time": [0-9.e+-]*' "$OUT/last.out" | sed 's/.*: //')
  printf "%-22s %8d actions  psim     %7.2f s  %10.0f actions/s  %8.1f MB  simulated %.6f s\n" "stencil ${n}x${it}" "$actions" "$pw" "$(echo "$actions / $pw" | bc -l)" "$(echo "$pm / 1024" | bc -l)" "$pt"
  if [ $have_simgrid = 1 ] && [ "${NO_SIMGRID:-0}" = 0 ]; then
    read -r sw sm < <(cd "$dir" && run_timed simgrid smpirun -no-privatize -replay list -np "$n" -platform "../flat-$n.xml" -hostfile "../hosts-$n" --log=root.thres:critical --log=smpi_config.thres:critical --log=replay.thres:critical --log=smpi_replay.thres:info)
    local st; st=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$OUT/last.err" "$OUT/last.out" | tail -1)
    printf "%-22s %8d actions  SimGrid  %7.2f s  %10.0f actions/s  %8.1f MB  simulated %s s   speed-up x%.1f\n" "" "$actions" "$sw" "$(echo "$actions / $sw" | bc -l)" "$(echo "$sm / 1024" | bc -l)" "$st" "$(echo "$sw / $pw" | bc -l)"
  fi
}

scale() { # ranks iters model  (the stencil alone: no allreduce)
  local n=$1 it=$2 model=$3 dir="$OUT/sa-$1x$2"
  platform "$n"
  [ -f "$dir/list" ] || $PSIM gen stencil --ranks "$n" --iters "$it" --allreduce 0 -o "$dir" 2>/dev/null
  local actions=$((n * (it * 10 + 2)))
  read -r pw pm < <(run_timed psim $PSIM replay --quiet --network "$model" --json - --platform "$OUT/flat-$n.xml" --hostfile "$OUT/hosts-$n" "$dir")
  printf "%-8s %6d ranks x %5d it  %9d actions  %7.2f s  %10.0f actions/s  %8.1f MB  %6.2f kB/rank\n" "$model" "$n" "$it" "$actions" "$pw" "$(echo "$actions / $pw" | bc -l)" "$(echo "$pm / 1024" | bc -l)" "$(echo "$pm / $n" | bc -l)"
}

echo "== psim vs SimGrid 3.32, SMPI model, default collectives (median of $REPS) =="
if [ $QUICK = 1 ]; then compare 64 200; compare 512 20; else compare 64 2000; compare 512 200; fi
echo
echo "== the stencil alone (no allreduce), ~1.3 M actions, growing ranks, SMPI model =="
for n in 64 256 1024 4096 16384; do
  [ $QUICK = 1 ] && [ "$n" -gt 1024 ] && break
  scale "$n" $((1300000 / (10 * n))) smpi
done
echo
echo "== constant (LogGP-like) model =="
for n in 64 512 4096 65536; do scale "$n" $((1300000 / (10 * n) > 0 ? 1300000 / (10 * n) : 2)) constant; done
echo
echo "== memory does not grow with iterations (64 ranks, stencil alone, SMPI) =="
for it in 200 2000; do scale 64 "$it" smpi; done
