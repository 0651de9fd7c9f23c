#!/bin/bash
# Do two psim builds give byte-identical results? For speed work on the solver and the engine:
# replays the benchmark stencil on the five cluster shapes of bench/cluster_speed.sh and random
# `psim gen mix` traces on SimGrid's example platforms, with both builds, in the default mode
# with --cfg network/optim:Full and with --cfg network/tie-order:simgrid, and compares the
# --json outputs byte for byte.
#
#   bench/same_results.sh OLD_PSIM NEW_PSIM        # e.g. /tmp/psim-main build/psim
#   MIX="3000 3014" bench/same_results.sh ...      # seeds of the mix traces (first last)
#   bench/same_results.sh --replay OLD_PSIM NEW_PSIM   # for the replay driver's memory work
#
# --replay (issue 38, part 3: the replay driver's and the MPI layer's state): 29 runs, each
# compared on five outputs (--json, the --actions log, stdout, stderr without its wall-time
# line, exit status): the 65 536-rank 1-iteration shared stencil under the constant and the
# default model; a 1 024-rank 3-iteration stencil (per-rank files) under the default,
# constant and star models, network/tie-order:simgrid, smpi/async-small-thresh:65536,
# network/solver:groups and --timeline (observers); three `gen mix` traces (64, 96, 128
# ranks) under the default model, SimGrid's order, the constant model and
# smpi/async-small-thresh:65536, one with --timeline, one with --host-events; a stencil2d
# replayed with --host-events; psim lb's JSON and table (3 balancers x 2 periods, and with
# --pe-events); hand-written traces of wait/test by key (a wildcard tag, tests that complete
# requests, a waitall over them, a deadlock's report). About 2 minutes a build.
#
# Prints one line per difference and a summary; exit status 1 when any output differs.
# Workloads are small (64 x 100 and 512 x 10 stencils, 30-round mixes of 16-128 ranks) and
# written once to $BENCH_OUT/same (platforms to $BENCH_OUT/clusters, as cluster_speed.sh does).
set -u
cd "$(dirname "$0")/.."
if [ "${1:-}" = --replay ]; then
  shift
  [ $# = 2 ] || { echo "usage: bench/same_results.sh --replay OLD_PSIM NEW_PSIM" >&2; exit 2; }
  OLD=$1 NEW=$2
  for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "bench/same_results.sh: $b: not an executable" >&2; exit 2; }; done
  S=${BENCH_OUT:-$PWD/bench/out}/same-replay
  mkdir -p "$S"
  runs=0 diffs=0
  # one LABEL CMD ARGS...: runs `psim CMD ARGS` with both builds (--json and --actions added
  # for replay), compares the five outputs
  one() {
    local label=$1 cmd=$2; shift 2
    local b x extra rc_old=0 rc_new=0
    for b in old new; do
      if [ $b = old ]; then x=$OLD; else x=$NEW; fi
      rm -f "$S/$b".{json,act,out,err}
      extra=(--json "$S/$b.json")
      [ "$cmd" = replay ] && extra+=(--actions "$S/$b.act")
      "$x" "$cmd" "$@" "${extra[@]}" > "$S/$b.out" 2> "$S/$b.err"
      local rc=$?
      if [ $b = old ]; then rc_old=$rc; else rc_new=$rc; fi
      sed -i '/wall/d' "$S/$b.err"
      [ "$cmd" = lb ] && sed -i -E 's/ +[0-9.]+$//' "$S/$b.out"   # lb's table: its last column, wall_s
    done
    runs=$((runs + 1))
    local bad=""
    [ "$rc_old" = "$rc_new" ] || bad="exit $rc_old / $rc_new"
    for f in json act out err; do
      [ -f "$S/old.$f" ] || [ -f "$S/new.$f" ] || continue
      cmp -s "$S/old.$f" "$S/new.$f" || bad="$bad $f"
    done
    if [ -n "$bad" ]; then echo "DIFFERS $label:$bad"; diffs=$((diffs + 1)); fi
  }
  # gen DIR FILE ARGS...: psim gen ARGS -o DIR unless DIR/FILE exists
  gen() { [ -f "$S/$1/$2" ] || "$NEW" gen "${@:3}" -o "$S/$1" > /dev/null 2>&1 || { echo "gen $1 failed" >&2; exit 2; }; }
  gen st65536 trace.txt stencil --ranks 65536 --iters 1 --shared
  gen st1024 list stencil --ranks 1024 --iters 3
  gen sd list stencil2d --grid 16x16 --domain 128x128 --iters 12
  for seed in 3001 3007 3013; do gen "mix-$seed" list mix --ranks $((64 + (seed - 3001) / 6 * 32)) --rounds 30 --seed $seed; done
  # wait and test by key: a wildcard tag, tests (some complete their request), a waitall over
  # what is left, a wait on a request a test completed, a rank that deadlocks at its end
  mkdir -p "$S/keys" "$S/keys-dead"
  printf '%s\n' '0 init' '0 irecv 1 -1 100' '0 irecv 1 7 200000' '0 isend 1 3 100' '0 compute 1e6' \
    '0 test 1 0 -1' '0 test 1 0 7' '0 sleep 0.001' '0 test 1 0 7' '0 wait 1 0 7' '0 wait 1 0 -1' \
    '0 isend 1 5 10' '0 isend 1 5 20' '0 irecv 1 9 30' '0 test 0 1 5' '0 waitall' '0 finalize' > "$S/keys/0.txt"
  printf '%s\n' '1 init' '1 send 0 4 100' '1 isend 0 7 200000' '1 irecv 0 3 100' '1 compute 5e6' \
    '1 wait 0 1 3' '1 wait 1 0 7' '1 recv 0 5 10' '1 recv 0 5 20' '1 send 0 9 30' '1 finalize' > "$S/keys/1.txt"
  printf '%s\n' '0 irecv 1 3 100' '0 isend 1 4 100' '0 test 1 0 3' > "$S/keys-dead/0.txt"
  printf '%s\n' '1 irecv 0 4 100' '1 wait 0 1 4' '1 recv 0 8 10' > "$S/keys-dead/1.txt"
  for d in keys keys-dead; do (cd "$S/$d" && ls [0-9].txt > list); done
  one st65536-constant replay --quiet --network constant --np 65536 "$S/st65536/trace.txt"
  one st65536-default replay --quiet --np 65536 "$S/st65536/trace.txt"
  for m in "" "--network constant" "--network star" "--cfg network/tie-order:simgrid" \
           "--cfg smpi/async-small-thresh:65536" "--cfg network/solver:groups" "--timeline"; do
    # shellcheck disable=SC2086
    one "st1024 $m" replay --quiet $m "$S/st1024"
  done
  for seed in 3001 3007 3013; do
    for m in "" "--cfg network/tie-order:simgrid" "--network constant" "--cfg smpi/async-small-thresh:65536"; do
      # shellcheck disable=SC2086
      one "mix-$seed $m" replay --quiet $m "$S/mix-$seed"
    done
  done
  one "mix-3001 --timeline" replay --quiet --timeline "$S/mix-3001"
  one "mix-3007 --host-events" replay --quiet --host-events 'iter=1:remove=2' --rank-memory 1e8 "$S/mix-3007"
  one "stencil2d --host-events" replay --quiet --host-events 'iter=2:remove=3' "$S/sd"
  one "lb" lb "$S/sd" --pes 16 --balancer greedy,refine,rotate --period 2,4
  one "lb --pe-events" lb "$S/sd" --pes 16 --balancer greedy-refine --period 3 --pe-events 'iter=4:remove=4-7'
  one keys replay --quiet --np 2 "$S/keys"
  one "keys constant" replay --quiet --network constant --np 2 "$S/keys"
  one keys-dead replay --quiet --np 2 "$S/keys-dead"
  echo "byte-identical: $((runs - diffs)) of $runs runs (json, actions, stdout, stderr, exit status)"
  [ $diffs = 0 ]
  exit
fi
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
