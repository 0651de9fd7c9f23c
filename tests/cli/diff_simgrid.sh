#!/bin/sh
# Differential tests against SimGrid 3.32 (Debian's libsimgrid-dev, run by
# ../shared/tools/simgrid-oracle): random deadlock-free traces from `psim gen mix` (every send
# mode, every collective, computations) on small_platform.xml and on flat, fat-tree and torus
# clusters. psim's simulated time must equal SimGrid's to a relative 1e-6 (plus the 5e-7 s
# rounding of SimGrid's 6 printed decimals).
set -u
. "$(dirname "$0")/../lib/common.sh"
ORACLE="$PSIM_SHARED/tools/simgrid-oracle"
C="$PSIM_SHARED/cases/simgrid"
X="$C/extra"
if ! command -v smpirun >/dev/null 2>&1; then
  echo "SimGrid (smpirun) is not installed: run scripts/deps.sh test"; exit 1
fi
fails=0 total=0
# run NAME PLATFORM HOSTFILE NP SEED ROUNDS [gen options...]
run() {
  name=$1 plat=$2 hosts=$3 np=$4 seed=$5 rounds=$6; shift 6
  d="$TMPD/$name-$np-$seed"
  "$PSIM" gen mix --ranks "$np" --rounds "$rounds" --seed "$seed" "$@" -o "$d" || { echo "FAIL $name: gen"; fails=$((fails + 1)); return; }
  files=""; i=0
  while [ $i -lt "$np" ]; do files="$files $d/rank-$i.txt"; i=$((i + 1)); done
  # shellcheck disable=SC2086
  want=$("$ORACLE" --np "$np" --platform "$plat" --hostfile "$hosts" $files 2>"$d.err") || {
    echo "FAIL $name np=$np seed=$seed: SimGrid failed ($(tail -1 "$d.err"))"; fails=$((fails + 1)); return; }
  got=$("$PSIM" replay --quiet --json - --platform "$plat" --hostfile "$hosts" --np "$np" "$d" | grep -o '"simulated_time": [-0-9.eE+]*' | sed 's/.*: //')
  total=$((total + 1))
  if awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-6 * b + 5e-7) }'; then
    echo "ok   $name np=$np seed=$seed: $got (SimGrid $want)"
  else
    echo "FAIL $name np=$np seed=$seed: psim $got, SimGrid $want   (trace: psim gen mix --ranks $np --rounds $rounds --seed $seed $*)"
    fails=$((fails + 1))
  fi
}
SP="$C/small_platform.xml"; SH="$C/hostfile"
# point to point, every send mode and size class
for s in 1 2 3 4 5; do run p2p-small "$SP" "$SH" 4 "$s" 30 --p2p-only; done
for s in 6 7; do run p2p-small "$SP" "$SH" 5 "$s" 30 --p2p-only; done
# every collective, alone, on 4 and 5 ranks (ranks cycle over the 5 hosts)
for c in barrier bcast reduce allreduce alltoall alltoallv gather allgather gatherv allgatherv scatter scatterv reducescatter scan exscan; do
  run "coll-$c" "$SP" "$SH" 4 11 4 --collectives "$c" --no-p2p
  run "coll-$c" "$SP" "$SH" 5 12 4 --collectives "$c" --no-p2p
done
# everything mixed, several sizes and platforms
for s in 21 22 23; do run mix-small "$SP" "$SH" 6 "$s" 40; done
FH="$PSIM_TESTDATA/platforms/flat16.hosts"
for s in 31 32; do run mix-flat "$PSIM_TESTDATA/platforms/flat16.xml" "$FH" 16 "$s" 30; done
run mix-flat8 "$PSIM_TESTDATA/platforms/flat16.xml" "$FH" 8 33 40
for s in 41 42; do run mix-fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 16 "$s" 30; done
for s in 51 52; do run mix-torus "$X/platforms/cluster_torus.xml" "$X/hostfiles/cluster_torus" 12 "$s" 30; done
run mix-backbone "$X/platforms/cluster_backbone.xml" "$X/hostfiles/cluster_backbone" 8 61 30
run mix-dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" 8 71 30
# bypass routes (one way, zone keys, gateways) and a Dijkstra zone of zones
for s in 81 82; do run mix-bypass "$PSIM_TESTDATA/platforms/bypass.xml" "$PSIM_TESTDATA/platforms/bypass.hosts" 6 "$s" 30; done
run mix-dijkstra-zones "$PSIM_TESTDATA/platforms/dijkstra_zones.xml" "$PSIM_TESTDATA/platforms/dijkstra_zones.hosts" 8 83 30
# Vivaldi zones: hosts without links (latency from coordinates only), peers with their links
run mix-vivaldi "$PSIM_TESTDATA/platforms/vivaldi.xml" "$PSIM_TESTDATA/platforms/vivaldi.hosts" 8 84 20
run mix-vivaldi-peers "$PSIM_TESTDATA/platforms/vivaldi_peers.xml" "$PSIM_TESTDATA/platforms/vivaldi_peers.hosts" 6 85 20
echo "$total comparisons"
[ "$total" -ge 40 ] || { echo "too few comparisons ran ($total)"; fails=$((fails + 1)); }
finish $fails
