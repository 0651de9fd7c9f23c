#!/bin/bash
# Agreement with SimGrid 3.32 on unseen random traces: psim gen mix traces with 16-128 ranks,
# replayed on small_platform and SimGrid's example clusters (backbone, fat tree, torus,
# dragonfly) by psim and by ../shared/tools/simgrid-oracle. Prints one line per trace and the
# share that agree to SimGrid's 6 printed decimals.
#
#   bench/diff_simgrid_wide.sh [FIRST_SEED [COUNT [ROUNDS]]]     (default 1000 20 25)
#
# Seed s picks the platform s % 5 and the rank count (s / 5) % 5 of 16, 32, 64, 96, 128.
# Results are cached in $BENCH_OUT/diff-wide (SimGrid's time per trace), so a second run only
# replays with psim. Extra psim options: PSIM_OPTS (e.g. "--cfg network/optim:Full").
# CFG_SWEEP=1: each trace also gets one non-default SimGrid property (seed s takes the
# (s % 13)-th of the list below, or of CFGS, a space-separated list), given to both SimGrid and
# psim; cached apart (per property).
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-$PWD/bench/out}/diff-wide
C=$PWD/../shared/cases/simgrid; X=$C/extra
first=${1:-1000} count=${2:-20} rounds=${3:-25}
plats=("$C/small_platform.xml $C/hostfile" "$X/platforms/cluster_backbone.xml $X/hostfiles/cluster_backbone"
       "$X/platforms/cluster_fat_tree.xml $X/hostfiles/cluster_fat_tree"
       "$X/platforms/cluster_torus.xml $X/hostfiles/cluster_torus"
       "$X/platforms/cluster_dragonfly.xml $X/hostfiles/cluster_dragonfly")
nps=(16 32 64 96 128)
cfgs=("smpi/bw-factor:65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084"
      "smpi/lat-factor:65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467"
      "smpi/os:0:1e-6:1e-9" "smpi/or:0:2e-6:1e-9" "smpi/ois:0:1e-6:0" "network/latency-factor:2"
      "network/bandwidth-factor:0.5" "smpi/async-small-thresh:65536" "smpi/send-is-detached-thresh:1000"
      "network/crosstraffic:0" "smpi/test:1e-5" "network/TCP-gamma:65536" "network/weight-S:0")
# shellcheck disable=SC2206
[ -n "${CFGS:-}" ] && cfgs=($CFGS)
ok=0 bad=0 failed=0
for ((seed = first; seed < first + count; seed++)); do
  read -r pl hf <<< "${plats[$((seed % 5))]}"
  np=${nps[$(((seed / 5) % 5))]}
  cfg=() tag=""
  if [ "${CFG_SWEEP:-0}" = 1 ]; then
    cfg=(--cfg "${cfgs[$((seed % ${#cfgs[@]}))]}")
    tag="-$(printf '%s' "${cfg[1]}" | cksum | cut -d' ' -f1)"
  fi
  d=$OUT/r$rounds-s$seed; mkdir -p "$d"
  if [ ! -s "$d/trace.txt" ]; then
    "$PSIM" gen mix --ranks "$np" --rounds "$rounds" --seed "$seed" -o "$d/g" >/dev/null || exit 1
    for ((r = 0; r < np; r++)); do cat "$d/g/rank-$r.txt"; done > "$d/trace.txt"
  fi
  [ -s "$d/sg$tag" ] || ../shared/tools/simgrid-oracle "${cfg[@]}" --np "$np" --platform "$pl" --hostfile "$hf" "$d/trace.txt" > "$d/sg$tag" 2>/dev/null
  want=$(cat "$d/sg$tag")
  # shellcheck disable=SC2086
  got=$("$PSIM" replay --quiet --json - ${PSIM_OPTS:-} "${cfg[@]}" --platform "$pl" --hostfile "$hf" --np "$np" "$d/trace.txt" |
        grep -o '"simulated_time": [-0-9.eE+]*' | sed 's/.*: //')
  if [ -z "$want" ]; then r="SIMGRID-FAILED"; failed=$((failed + 1))
  elif awk -v a="$got" -v b="$want" 'BEGIN { exit !(sprintf("%.6f", a) == sprintf("%.6f", b)) }'; then r=ok; ok=$((ok + 1))
  else r=DIFFERS; bad=$((bad + 1)); fi
  printf "%-14s seed %-5d %3d ranks  %-22s psim %.6f  SimGrid %s%s\n" "$r" "$seed" "$np" "$(basename "$pl")" "$got" "$want" "${cfg[1]:+  (${cfg[1]:0:40})}"
done
echo "agree to 6 decimals: $ok of $((ok + bad)) ($bad differ, $failed where SimGrid failed)"
