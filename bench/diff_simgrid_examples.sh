#!/bin/bash
# Agreement with SimGrid 3.32 on SimGrid's own example platforms (examples/platforms/*.xml of
# its source), at several rank counts: the same `psim gen mix` trace replayed by psim (SimGrid's
# order of ties, and psim's default order) and by ../shared/tools/simgrid-oracle. Ranks are
# placed on the hosts in the order `psim platform FILE --all` lists them, round-robin when
# there are more ranks than hosts. Prints one line per platform and rank count, then the counts.
#
#   bench/diff_simgrid_examples.sh DIR [NPS [ROUNDS [SEED]]]     (default "16 64 128" 15 100)
#
# DIR holds SimGrid's platform files: examples/platforms of SimGrid 3.32's source (Debian:
# `apt-get source simgrid`; or `git clone -b v3.32 https://framagit.org/simgrid/simgrid`).
# A platform that psim refuses (profiles, failures, bypass routes, Vivaldi, Wifi, disks: see the
# README) is listed as "refused" with psim's reason; one on which SimGrid fails as
# "SIMGRID-FAILED". SimGrid's times are cached in $BENCH_OUT/diff-examples.
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
OUT=${BENCH_OUT:-$PWD/bench/out}/diff-examples
dir=${1:?usage: bench/diff_simgrid_examples.sh DIR [NPS [ROUNDS [SEED]]]}
nps=${2:-"16 64 128"} rounds=${3:-15} seed=${4:-100}
mkdir -p "$OUT"
ok=0 okd=0 bad=0 refused=0 failed=0
for pl in "$dir"/*.xml; do
  name=$(basename "$pl" .xml)
  if ! "$PSIM" platform "$pl" --all > "$OUT/$name.list" 2> "$OUT/$name.err"; then
    printf '%-16s %-36s %s\n' refused "$name" "$(head -n 1 "$OUT/$name.err" | cut -c1-110)"
    refused=$((refused + 1)); continue
  fi
  mapfile -t hosts < <(sed -n 's/^  host \(.*\)  [0-9.e+]* flop\/s.*/\1/p' "$OUT/$name.list")
  [ "${#hosts[@]}" -gt 0 ] || { printf '%-16s %-36s no host\n' refused "$name"; refused=$((refused + 1)); continue; }
  for np in $nps; do
    d=$OUT/$name-$np-r$rounds-s$seed; mkdir -p "$d"
    for ((r = 0; r < np; r++)); do echo "${hosts[$((r % ${#hosts[@]}))]}"; done > "$d/hosts"
    if [ ! -s "$d/trace.txt" ]; then
      "$PSIM" gen mix --ranks "$np" --rounds "$rounds" --seed "$seed" -o "$d/g" >/dev/null || exit 1
      for ((r = 0; r < np; r++)); do cat "$d/g/rank-$r.txt"; done > "$d/trace.txt"
    fi
    [ -f "$d/sg" ] || ../shared/tools/simgrid-oracle --np "$np" --platform "$pl" --hostfile "$d/hosts" "$d/trace.txt" > "$d/sg" 2>/dev/null
    want=$(cat "$d/sg")
    got=() why=""
    for opts in "--cfg network/tie-order:simgrid" ""; do
      # shellcheck disable=SC2086
      t=$("$PSIM" replay --quiet --json - $opts --platform "$pl" --hostfile "$d/hosts" --np "$np" "$d/trace.txt" 2> "$d/psim.err" |
          grep -o '"simulated_time": [-0-9.eE+]*' | sed 's/.*: //')
      [ -n "$t" ] || why=$(head -n 1 "$d/psim.err" | cut -c1-80)
      got+=("${t:-none}")
    done
    same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "none" && sprintf("%.6f", a) == sprintf("%.6f", b)) }'; }
    if [ -z "$want" ]; then
      r=SIMGRID-FAILED; failed=$((failed + 1))
      [ "${got[0]}" = none ] && r="both-fail"
    elif same "${got[0]}" "$want"; then r=ok; ok=$((ok + 1))
    else r=DIFFERS; bad=$((bad + 1)); fi
    [ -n "$want" ] && same "${got[1]}" "$want" && okd=$((okd + 1))
    printf '%-16s %-36s %3d ranks  psim %-12s default %-12s SimGrid %s %s\n' "$r" "$name" "$np" "${got[0]}" "${got[1]}" \
      "${want:--}" "${why:+($why)}"
  done
done
echo "agree to 6 decimals: $ok of $((ok + bad)) with SimGrid's order of ties, $okd by default" \
     "($bad differ; SimGrid failed on $failed; $refused platforms refused by psim)"
