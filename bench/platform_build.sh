#!/bin/bash
# Time and memory to build large generated clusters (`psim platform FILE`: load, build, list).
#
#   bench/platform_build.sh                  fat trees and tori of 0.4 M to 6.3 M links
#   OLD=/path/to/psim bench/platform_build.sh   also an older build, runs interleaved
#
# Prints, per platform, the links built, wall seconds and peak RSS (median of REPS runs).
# Building must stay linear in the links: a fat tree's parents were once found by scanning
# the whole level above for each node (2.6 M links: 6-8 s, now under 3 s).
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OLD=${OLD:-}
REPS=${REPS:-3}
OUT=${BENCH_OUT:-$PWD/bench/out}/platforms
mkdir -p "$OUT"
command -v /usr/bin/time >/dev/null || scripts/deps.sh bench
[ -x "$PSIM" ] || make -s
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
plat() { # name topology params hosts
  cat > "$OUT/$1.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="$1" prefix="n-" suffix="" radical="0-$(($4 - 1))" speed="1Gf" bw="10Gbps" lat="1us" topology="$2" topo_parameters="$3"/>
</platform>
XML
}
plat ft-16 FAT_TREE "3;16,16,16;16,16,16;1,1,1" 4096
plat ft-32x16 FAT_TREE "3;32,16,16;32,16,16;1,1,1" 8192
plat ft-32x32x16 FAT_TREE "3;32,32,16;32,32,16;1,1,1" 16384
plat ft-32 FAT_TREE "3;32,32,32;32,32,32;1,1,1" 32768
plat torus-64 TORUS "64,64,64" 262144
printf "%-12s %10s %12s %10s %12s %10s\n" platform links "seconds" "peak MB" "old seconds" "old MB"
for p in ft-16 ft-32x16 ft-32x32x16 ft-32 torus-64; do
  t="" m="" ot="" om=""
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$PSIM" platform "$OUT/$p.xml" > "$OUT/last.out" 2>/dev/null || { echo "$p: FAILED"; continue 2; }
    read -r a b < "$OUT/time"; t="$t $a"; m="$m $b"
    if [ -n "$OLD" ]; then
      /usr/bin/time -f "%e %M" -o "$OUT/time" "$OLD" platform "$OUT/$p.xml" > /dev/null 2>&1
      read -r a b < "$OUT/time"; ot="$ot $a"; om="$om $b"
    fi
  done
  links=$(sed -n 's/.* hosts, \([0-9]*\) links/\1/p' "$OUT/last.out")
  med() { echo $1 | tr ' ' '\n' | median; }
  printf "%-12s %10s %12s %10d" "$p" "$links" "$(med "$t")" "$(( $(med "$m") / 1024 ))"
  [ -n "$OLD" ] && printf " %12s %10d" "$(med "$ot")" "$(( $(med "$om") / 1024 ))"
  echo
done
