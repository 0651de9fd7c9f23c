#!/bin/bash
# Replay speed on the cluster shapes people describe: psim against SimGrid 3.32, side by side
# in one run, on the same generated stencil and the same platform file.
#
#   bench/cluster_speed.sh                 # 64 x 2000 and 512 x 200 on every shape (long)
#   bench/cluster_speed.sh --quick         # 64 x 500 and 512 x 50, one repetition (QUICK_REPS=3: three)
#   bench/cluster_speed.sh --platforms     # only write the platform files
#   SHAPES="backbone torus" bench/cluster_speed.sh
#
# Shapes (10 Gbps / 1 us links, 1 Gf hosts, one host per rank; platform files in $OUT):
#   flat       private links only
#   backbone   private links and a 1000 Gbps / 1 us backbone (SimGrid's usual <cluster bb_bw=...>)
#   fattree    two levels (64: 8 leaves of 8) or three levels (512: 8 x 8 x 8)
#   torus      4x4x4 or 8x8x8
#   dragonfly  2 groups x 2 chassis x 2 routers x 8 nodes, or 4 x 4 x 4 x 8
# Workload: psim gen stencil (4 x 16 KiB halo exchange, 1e6 flops, SimGrid's default 8-byte
# allreduce). Prints user CPU seconds (median of REPS), psim's speed-up over SimGrid, and both
# simulated times, which must be equal to SimGrid's 6 printed decimals. PSIM_OPTS adds psim
# options (e.g. "--cfg network/optim:Full"). SG_CACHE=1 reuses SimGrid's figures of an earlier
# run (SimGrid does not change; psim does): quicker, but then not measured side by side.
# SOLVERS="flows groups" times psim once per network/solver (the per-flow reference and the
# group clocks, docs/performance.md "Group clocks"), side by side, with the ratio of the
# second to the first and a check that both simulated times agree to 1e-9 (NO_SIMGRID=1 to
# leave SimGrid out).
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-$PWD/bench/out}/clusters
REPS=${REPS:-3}
SIZES="64x2000 512x200"
if [ "${1:-}" = "--quick" ]; then SIZES="64x500 512x50"; REPS=${QUICK_REPS:-1}; fi
SHAPES=${SHAPES:-"flat backbone fattree torus dragonfly"}
mkdir -p "$OUT"
command -v /usr/bin/time >/dev/null || scripts/deps.sh bench
[ -x "$PSIM" ] || make -s
have_simgrid=0
command -v smpirun >/dev/null && [ "${NO_SIMGRID:-0}" = 0 ] && have_simgrid=1

platform() { # shape n -> $OUT/shape-n.xml and $OUT/hosts-n
  local shape=$1 n=$2 f="$OUT/$1-$2.xml" extra=""
  seq 0 $((n - 1)) | sed 's/^/node-/' > "$OUT/hosts-$n"
  [ -f "$f" ] && return
  case $shape in
    flat) ;;
    backbone) extra='bb_bw="1000Gbps" bb_lat="1us"' ;;
    fattree) [ "$n" = 64 ] && extra='topology="FAT_TREE" topo_parameters="2;8,8;1,8;1,1"' \
                           || extra='topology="FAT_TREE" topo_parameters="3;8,8,8;1,8,8;1,1,1"' ;;
    torus) [ "$n" = 64 ] && extra='topology="TORUS" topo_parameters="4,4,4"' \
                         || extra='topology="TORUS" topo_parameters="8,8,8"' ;;
    dragonfly) [ "$n" = 64 ] && extra='topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;8"' \
                             || extra='topology="DRAGONFLY" topo_parameters="4,1;4,1;4,1;8"' ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
  esac
  cat > "$f" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="bench" prefix="node-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="10Gbps" lat="1us" $extra/>
</platform>
XML
}

# --platforms: only write the platform files of every shape (for bench/same_results.sh)
if [ "${1:-}" = "--platforms" ]; then
  for n in 64 512; do for shape in flat backbone fattree torus dragonfly; do platform "$shape" "$n"; done; done
  exit 0
fi

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# user_time CMD... : median user CPU seconds over REPS runs; the last run's output in $OUT/last.*
user_time() {
  local ts="" i
  for i in $(seq "$REPS"); do
    /usr/bin/time -f "%U" -o "$OUT/time.txt" "$@" > "$OUT/last.out" 2> "$OUT/last.err" || { echo "FAILED: $*" >&2; tail -3 "$OUT/last.err" >&2; return 1; }
    ts="$ts $(tail -1 "$OUT/time.txt")"
  done
  echo $ts | tr ' ' '\n' | median
}

if [ -n "${SOLVERS:-}" ]; then
  # shellcheck disable=SC2086
  set -- $SOLVERS
  [ $# = 2 ] || { echo "SOLVERS: give two network/solver values (e.g. \"flows groups\")" >&2; exit 2; }
  printf "%-10s %-9s %10s %10s %7s  %-12s %s\n" shape size "$1" "$2" "$2/$1" "psim time" "agree (1e-9)"
  for size in $SIZES; do
    n=${size%x*} it=${size#*x}
    dir="$OUT/st-$size"
    [ -f "$dir/list" ] || $PSIM gen stencil --ranks "$n" --iters "$it" -o "$dir" >/dev/null 2>&1
    for shape in $SHAPES; do
      platform "$shape" "$n"
      ts="" ps=""
      for solver in "$1" "$2"; do
        # shellcheck disable=SC2086
        t=$(user_time $PSIM replay --quiet --json - ${PSIM_OPTS:-} --cfg network/solver:$solver \
              --platform "$OUT/$shape-$n.xml" --hostfile "$OUT/hosts-$n" "$dir") || continue 2
        ts="$ts $t"
        ps="$ps $(grep -o '"simulated_time": [0-9.e+-]*' "$OUT/last.out" | sed 's/.*: //')"
      done
      # shellcheck disable=SC2086
      set -- $SOLVERS $ts $ps
      agree=$(awk -v a="$5" -v b="$6" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 1e-9 * a ? "yes" : "NO") }')
      printf "%-10s %-9s %9.2fs %9.2fs %7.3f  %-12.6f %s\n" "$shape" "$size" "$3" "$4" \
        "$(awk -v a="$3" -v b="$4" 'BEGIN { print (a > 0 ? b / a : 0) }')" "$5" "$agree"
      set -- $SOLVERS
    done
  done
  exit 0
fi

printf "%-10s %-9s %10s %10s %9s  %-12s %-12s\n" shape size psim SimGrid speed-up "psim time" "SimGrid time"
for size in $SIZES; do
  n=${size%x*} it=${size#*x}
  dir="$OUT/st-$size"
  [ -f "$dir/list" ] || $PSIM gen stencil --ranks "$n" --iters "$it" -o "$dir" >/dev/null 2>&1
  for shape in $SHAPES; do
    platform "$shape" "$n"
    # shellcheck disable=SC2086
    pt=$(user_time $PSIM replay --quiet --json - ${PSIM_OPTS:-} --platform "$OUT/$shape-$n.xml" --hostfile "$OUT/hosts-$n" "$dir") || continue
    ps=$(grep -o '"simulated_time": [0-9.e+-]*' "$OUT/last.out" | sed 's/.*: //')
    st="-" ss="-" up="-"
    cache="$OUT/sg-$shape-$size"
    if [ "${SG_CACHE:-0}" = 1 ] && [ -s "$cache" ]; then
      read -r st ss < "$cache"
      up=$(awk -v a="$st" -v b="$pt" 'BEGIN { printf "%.1fx", a / b }')
    elif [ $have_simgrid = 1 ]; then
      st=$(cd "$dir" && user_time smpirun -no-privatize -replay list -np "$n" -platform "$OUT/$shape-$n.xml" \
             -hostfile "$OUT/hosts-$n" --log=root.thres:critical --log=smpi_config.thres:critical \
             --log=replay.thres:critical --log=smpi_replay.thres:info) || st="-"
      ss=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$OUT/last.err" "$OUT/last.out" | tail -1)
      [ "$st" != "-" ] && up=$(awk -v a="$st" -v b="$pt" 'BEGIN { printf "%.1fx", a / b }') && echo "$st $ss" > "$cache"
    fi
    printf "%-10s %-9s %9.2fs %9ss %9s  %-12.6f %-12s\n" "$shape" "$size" "$pt" "$st" "$up" "$ps" "$ss"
  done
done
