#!/bin/bash
# Do two psim builds give byte-identical results? For speed work on the solver and the engine:
# replays the benchmark stencil on the five cluster shapes of bench/cluster_speed.sh and random
# `psim gen mix` traces on SimGrid's example platforms, with both builds, in the default mode
# with --cfg network/optim:Full and with --cfg network/tie-order:simgrid, and compares the
# --json outputs byte for byte.
#
#   bench/same_results.sh OLD_PSIM NEW_PSIM        # e.g. /tmp/psim-main build/psim
#   MIX="3000 3014" bench/same_results.sh ...      # seeds of the mix traces (first last)
#
# Prints one line per difference and a summary; exit status 1 when any output differs.
# Workloads are small (64 x 100 and 512 x 10 stencils, 30-round mixes of 16-128 ranks) and
# written once to $BENCH_OUT/same (platforms to $BENCH_OUT/clusters, as cluster_speed.sh does).
set -u
cd "$(dirname "$0")/.."
[ $# = 2 ] || { echo "usage: bench/same_results.sh OLD_PSIM NEW_PSIM" >&2; exit 2; }
OLD=$1 NEW=$2
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "bench/same_results.sh: $b: not an executable" >&2; exit 2; }; done
OUT=${BENCH_OUT:-$PWD/bench/out}
CL=$OUT/clusters S=$OUT/same
mkdir -p "$S"
PSIM=$NEW bench/cluster_speed.sh --platforms || exit 2   # the platform files, as it writes them
C=$PWD/../shared/cases/simgrid X=$C/extra
plats=("--platform $C/small_platform.xml --hostfile $C/hostfile"
       "--platform $X/platforms/cluster_backbone.xml --hostfile $X/hostfiles/cluster_backbone"
       "--platform $X/platforms/cluster_fat_tree.xml --hostfile $X/hostfiles/cluster_fat_tree"
       "--platform $X/platforms/cluster_torus.xml --hostfile $X/hostfiles/cluster_torus"
       "--platform $X/platforms/cluster_dragonfly.xml --hostfile $X/hostfiles/cluster_dragonfly")
nps=(16 32 64 96 128)
runs=0 diffs=0
# same LABEL ARGS...: replays with both builds, compares
same() {
  local label=$1; shift
  for opt in "" "--cfg network/optim:Full" "--cfg network/tie-order:simgrid"; do
    # shellcheck disable=SC2086
    "$OLD" replay --quiet --json "$S/old.json" $opt "$@" >/dev/null 2>"$S/old.err"; local ro=$?
    # shellcheck disable=SC2086
    "$NEW" replay --quiet --json "$S/new.json" $opt "$@" >/dev/null 2>"$S/new.err"; local rn=$?
    runs=$((runs + 1))
    if [ $ro != 0 ] || [ $rn != 0 ]; then
      echo "FAILED $label $opt (exit $ro / $rn): $(tail -1 "$S/new.err")"; diffs=$((diffs + 1))
    elif ! cmp -s "$S/old.json" "$S/new.json"; then
      echo "DIFFERS $label $opt: $(diff <(grep -o '"simulated_time": [^,]*' "$S/old.json") \
                                        <(grep -o '"simulated_time": [^,]*' "$S/new.json") | tr '\n' ' ')"
      diffs=$((diffs + 1))
    fi
  done
}
for size in 64x100 512x10; do
  n=${size%x*} it=${size#*x}
  [ -f "$S/st-$size/list" ] || "$NEW" gen stencil --ranks "$n" --iters "$it" -o "$S/st-$size" >/dev/null 2>&1 || exit 2
  for shape in flat backbone fattree torus dragonfly; do
    same "$shape-$size" --platform "$CL/$shape-$n.xml" --hostfile "$CL/hosts-$n" "$S/st-$size"
  done
done
read -r first last <<< "${MIX:-3000 3014}"
for ((seed = first; seed <= last; seed++)); do
  np=${nps[$(((seed / 5) % 5))]}
  [ -f "$S/mix-$seed/list" ] || "$NEW" gen mix --ranks "$np" --rounds 30 --seed "$seed" -o "$S/mix-$seed" >/dev/null 2>&1 || exit 2
  # shellcheck disable=SC2086
  same "mix-$seed" ${plats[$((seed % 5))]} --np "$np" "$S/mix-$seed"
done
echo "byte-identical: $((runs - diffs)) of $runs replays"
[ $diffs = 0 ]
