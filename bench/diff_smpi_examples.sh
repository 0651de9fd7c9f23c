#!/bin/bash
# psim run against SMPI (SimGrid 3.32's smpicc and smpirun) on SimGrid's own example platforms
# (examples/platforms/*.xml of its source): the programs of tests/data/emul/smpi/ (ring.c: ring
# of non-blocking messages, allreduce, bcast, barriers; colls.c: the collectives; p2p.c sizes:
# point to point at every size where SMPI's model changes), built with both compilers, run on
# each platform psim accepts, with ranks placed on its hosts in the order `psim platform FILE
# --all` lists them (round-robin when there are more ranks than hosts). Computation is declared
# (smpi/simulate-computation:no, --no-measure). Every rank's MPI_Wtime at the end must equal
# SMPI's to a relative 1e-6. Prints one line per platform, program and rank count, then the
# counts. tests/cli/diff_smpi_run.sh is the same comparison on three platforms, in make check.
#
#   bench/diff_smpi_examples.sh DIR [NPS [PROGRAMS]]     (default "4 16" "ring colls p2p")
#   PSIM_OPTS="--cfg network/optim:Full" bench/diff_smpi_examples.sh DIR   (more psim run options)
#
# DIR holds SimGrid's platform files (examples/platforms of SimGrid 3.32's source). A platform
# that psim refuses is listed as "refused" with psim's reason; one on which SMPI fails as
# "SMPI-FAILED".
set -u
[ -n "${1:-}" ] && { dir=$(cd "$1" && pwd) || exit 2; }   # before the cd below: DIR may be relative
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
PSIMCC="$(dirname "$PSIM")/psimcc"
OUT=${BENCH_OUT:-$PWD/bench/out}/diff-smpi-examples
dir=${dir:?usage: bench/diff_smpi_examples.sh DIR [NPS [PROGRAMS]]}
nps=${2:-"4 16"} progs=${3:-"ring colls p2p"}
command -v smpicc >/dev/null && command -v smpirun >/dev/null || { echo "needs SimGrid's smpicc and smpirun (scripts/deps.sh test)" >&2; exit 2; }
mkdir -p "$OUT"
for p in $progs; do
  smpicc -O1 -o "$OUT/${p}_sg" tests/data/emul/smpi/$p.c 2>/dev/null || { echo "smpicc $p failed" >&2; exit 1; }
  "$PSIMCC" -O1 -o "$OUT/${p}_ps" tests/data/emul/smpi/$p.c || { echo "psimcc $p failed" >&2; exit 1; }
done
ok=0 bad=0 refused=0 failed=0
for pl in "$dir"/*.xml; do
  name=$(basename "$pl" .xml)
  if ! "$PSIM" platform "$pl" --all > "$OUT/$name.list" 2> "$OUT/$name.err"; then
    printf '%-12s %-36s %s\n' refused "$name" "$(head -n 1 "$OUT/$name.err" | cut -c1-100)"
    refused=$((refused + 1)); continue
  fi
  mapfile -t hosts < <(sed -n 's/^  host \(.*\)  [0-9.e+]* flop\/s.*/\1/p' "$OUT/$name.list")
  [ "${#hosts[@]}" -gt 0 ] || { printf '%-12s %-36s no host\n' refused "$name"; refused=$((refused + 1)); continue; }
  for np in $nps; do
    for ((r = 0; r < np; r++)); do echo "${hosts[$((r % ${#hosts[@]}))]}"; done > "$OUT/hosts"
    for p in $progs; do
      arg=""; [ "$p" = p2p ] && arg=sizes
      # shellcheck disable=SC2086
      # in $OUT: a platform's <config> may turn SimGrid's tracing on (config_tracing.xml writes
      # trace-masterworker.trace where smpirun runs)
      (cd "$OUT" && timeout 300 smpirun -np "$np" -platform "$pl" -hostfile "$OUT/hosts" --cfg=smpi/simulate-computation:no \
        "$OUT/${p}_sg" $arg 2> "$OUT/sg.err" > "$OUT/sg.raw")
      sgrc=$?
      sort -k2n "$OUT/sg.raw" > "$OUT/sg.txt"
      # shellcheck disable=SC2086
      timeout 300 "$PSIM" run --np "$np" --no-measure -q ${PSIM_OPTS:-} --platform "$pl" --hostfile "$OUT/hosts" \
        -- "$OUT/${p}_ps" $arg 2> "$OUT/ps.err" | sort -k2n > "$OUT/ps.txt"
      res=$(paste "$OUT/sg.txt" "$OUT/ps.txt" | awk -v np="$np" '
        { n++; d = $4 - $8; if (d < 0) d = -d; if (d > 1e-6 * $4 + 1e-9 && !bad) bad = "rank " $2 ": SMPI " $4 ", psim " $8 }
        END { if (n != np) print "got " n " of " np " ranks"; else if (bad) print bad }')
      end=$(awk '{ if ($4 > m) m = $4 } END { print m + 0 }' "$OUT/sg.txt")
      if [ $sgrc != 0 ] || [ ! -s "$OUT/sg.txt" ]; then
        r=SMPI-FAILED; failed=$((failed + 1))
        res="SMPI: $(grep -m1 -i 'no route\|error\|assert' "$OUT/sg.err" | cut -c1-70); psim: $(head -n 1 "$OUT/ps.err" | cut -c1-70)"
      elif [ -z "$res" ]; then r=ok; ok=$((ok + 1))
      else r=DIFFERS; bad=$((bad + 1)); [ -s "$OUT/ps.txt" ] || res="$res: $(head -n 1 "$OUT/ps.err" | cut -c1-80)"; fi
      printf '%-12s %-36s %-6s %3d ranks  end %-14s %s\n' "$r" "$name" "$p" "$np" "$end" "$res"
    done
  done
done
echo "agree (every rank to 1e-6): $ok of $((ok + bad)) ($bad differ; SMPI failed on $failed; $refused platforms refused by psim)"
