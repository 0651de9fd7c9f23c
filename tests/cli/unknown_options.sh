#!/bin/sh
# Every subcommand rejects an option it does not know: exit status 2 and a message naming the
# option (never "needs a value", never treated as a file, never silently ignored). Also options
# that do not apply together or to the chosen generator.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
fails=0 checks=0
T="$SG/traces/actions_bcast.txt"
printf '0 init\n0 compute 1\n0 migrate\n1 init\n1 compute 1\n1 migrate\n' >"$TMPD/lb.txt"
printf 'pe 0 bg 0\nvp 0 load 1 pe 0\n' >"$TMPD/sit.txt"
printf '{"simulated_time": 1}\n' >"$TMPD/r.json"

# rejects PATTERN ARGS...: psim ARGS must exit 2 with PATTERN (fixed string) on stderr
rejects() {
  pat=$1; shift
  checks=$((checks + 1))
  timeout 60 "$PSIM" "$@" >"$TMPD/out" 2>"$TMPD/err"
  rc=$?
  why=""
  [ "$rc" -eq 2 ] || why="exit status $rc, expected 2"
  grep -qF -- "$pat" "$TMPD/err" || why="$why; stderr lacks '$pat'"
  grep -q "needs a value" "$TMPD/err" && why="$why; says 'needs a value'"
  grep -Eq 'Segmentation|AddressSanitizer|runtime error|Aborted' "$TMPD/err" && why="$why; crash"
  if [ -z "$why" ]; then echo "ok   psim $*: $(head -n 1 "$TMPD/err")"
  else echo "FAIL psim $*: ${why#; }"; sed 's/^/     | /' "$TMPD/err" | head -n 4; fails=$((fails + 1)); fi
}

# --bogus, alone and after valid arguments, for every subcommand
U="unknown option '--bogus'"
rejects "$U" replay --bogus
rejects "$U" replay "$T" --bogus
rejects "$U" run --bogus
rejects "$U" run --np 2 --bogus -- /bin/true
rejects "$U" lb --bogus
rejects "$U" lb "$TMPD/lb.txt" --pes 2 --balancer greedy --bogus
rejects "$U" balance --bogus
rejects "$U" balance "$TMPD/sit.txt" --balancer greedy --bogus
# the demo names itself, and rejects before it generates or prints anything
rejects "psim demo: $U" demo --bogus
checks=$((checks + 1))
if [ -s "$TMPD/out" ]; then echo "FAIL psim demo --bogus: printed on stdout: $(head -n 1 "$TMPD/out")"; fails=$((fails + 1)); fi
rejects "$U" forecast pdgemm --bogus
rejects "$U" forecast pdgemm --m 64 --n 64 --k 64 --nb 8 --procs 4 --kernel-rate 1e9 --bogus
rejects "unknown routine '--bogus'" forecast --bogus
rejects "$U" sweep --bogus
rejects "$U" sweep --vary a=1,2 --bogus -- replay "$T"
rejects "$U" plan --bogus
rejects "$U" gen --bogus
rejects "$U" gen stencil --bogus
rejects "$U" gen stencil --ranks 4 -o "$TMPD/g" --bogus
rejects "$U" gen stencil2d --bogus
rejects "$U" gen mix --bogus
rejects "$U" platform --bogus
rejects "$U" platform "$SG/small_platform.xml" --bogus
rejects "$U" platform --default --bogus
rejects "$U" calibrate --bogus
rejects "$U" critical-path --bogus
rejects "$U" critical-path "$T" --bogus
rejects "$U" report --bogus
rejects "$U" report "$TMPD/r.json" --bogus
rejects "$U" sensitivity --bogus
rejects "$U" sensitivity "$T" --bogus
rejects "$U" trace --bogus
rejects "$U" trace stats --bogus
rejects "$U" trace stats "$T" --bogus
rejects "$U" trace lb-period --bogus
rejects "$U" trace lb-period 2 "$T" --bogus
rejects "$U" trace aggregate --bogus
rejects "unknown command '--bogus'" --bogus
[ -e "$TMPD/g" ] && { echo "FAIL gen stencil ... --bogus wrote its output"; fails=$((fails + 1)); }

# options that do not apply: to the chosen generator, or together
rejects "--ranks and --grid" gen stencil --grid 3x3 --ranks 16 -o "$TMPD/g2"
rejects "unknown option '--grid' for 'psim gen mix'" gen mix --grid 3x3 -o "$TMPD/g3"
rejects "unknown option '--cell-flops' for 'psim gen stencil'" gen stencil --cell-flops 5 -o "$TMPD/g4"
rejects "unknown option '--gzip' for 'psim gen stencil2d'" gen stencil2d --gzip -o "$TMPD/g5"
rejects "--route needs two hosts" platform "$SG/small_platform.xml" --route Tremblay
rejects "unknown host 'Nowhere'" platform "$SG/small_platform.xml" --route Tremblay Nowhere
rejects "unexpected argument 'x.txt'" demo x.txt
rejects "--seconds expects a positive number" calibrate --seconds abc
# values out of range get a message too (gen --ranks 0 used to exit 2 without a word), and
# infinities or NaN are no numbers (lb --lb-cost inf used to blame "VP -1" for a deadlock)
rejects "--ranks must be at least 1" gen stencil --ranks 0 -o "$TMPD/g6"
rejects "--ranks must be at least 1" gen mix --ranks 0 -o "$TMPD/g7"
rejects "--grid expects AxB" gen stencil --grid 3x3x -o "$TMPD/g8"
rejects "--grid expects AxB" gen stencil --grid 0x3 -o "$TMPD/g9"
rejects "--halo expects a non-negative number" gen stencil --halo inf -o "$TMPD/g10"
rejects "--cell-flops expects a non-negative number" gen stencil2d --cell-flops nan -o "$TMPD/g11"
rejects "--lb-cost expects a non-negative number, got 'inf'" lb "$TMPD/lb.txt" --pes 2 --balancer greedy --lb-cost inf
rejects "--alpha expects a non-negative number, got 'nan'" lb "$TMPD/lb.txt" --pes 2 --balancer greedy --alpha nan
rejects "--eager expects bytes" forecast pdgemm --m 64 --n 64 --k 64 --nb 8 --procs 4 --kernel-rate 1e9 --latency 1e-6 --bandwidth 1e9 --eager inf
rejects "--cpu-threshold expects seconds" run --cpu-threshold inf -- /bin/true
for d in g2 g3 g4 g5 g6 g7 g8 g9 g10 g11; do
  [ -e "$TMPD/$d" ] && { echo "FAIL a rejected gen wrote $d"; fails=$((fails + 1)); }
done

echo "$checks checks"
finish $fails
