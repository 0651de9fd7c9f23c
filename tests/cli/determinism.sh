#!/bin/sh
# Determinism: the same input gives byte-identical --json and --actions; the trace's layout
# (plain, gzip, zstd, a shared file, a list file, explicit per-rank files) changes nothing but
# the "traces" field; the generators write the same files for the same options.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
D=$TMPD
fails=0 checks=0
ok() { checks=$((checks + 1)); echo "ok   $1"; }
ko() { checks=$((checks + 1)); echo "FAIL $1"; fails=$((fails + 1)); }

# rep OUT PSIM-REPLAY-ARGS...: writes OUT.json and OUT.log
rep() {
  o=$1; shift
  "$PSIM" replay --quiet --json "$o.json" --actions "$o.log" "$@" 2>"$o.err" ||
    { echo "     psim failed ($*):"; sed 's/^/     | /' "$o.err"; : >"$o.json"; : >"$o.log"; }
}
# twice NAME PSIM-REPLAY-ARGS...: two runs must give identical, non-empty JSON and action logs
twice() {
  name=$1; shift
  rep "$D/a" "$@"; rep "$D/b" "$@"
  if [ -s "$D/a.json" ] && [ -s "$D/a.log" ] && cmp -s "$D/a.json" "$D/b.json" && cmp -s "$D/a.log" "$D/b.log"; then
    ok "$name: two runs byte-identical ($(wc -l <"$D/a.log" | tr -d ' ') actions)"
  else ko "$name: two runs differ (or psim failed)"; fi
}
# nontraces FILE: the JSON without its "traces" line
nontraces() { grep -v '^ *"traces": ' "$1"; }
# same_but_traces NAME A B: JSON identical except "traces", action logs identical
same_but_traces() {
  if [ -s "$2.json" ] && nontraces "$2.json" >"$D/x1" && nontraces "$3.json" >"$D/x2" && cmp -s "$D/x1" "$D/x2" &&
     cmp -s "$2.log" "$3.log" && ! cmp -s "$2.json" "$3.json"; then
    ok "$1: same JSON except \"traces\", same action log"
  else ko "$1: results differ"; diff "$D/x1" "$D/x2" | head -n 6; fi
}

# ---- SimGrid's cases
C="--platform $SG/small_platform.xml --hostfile $SG/hostfile"
# shellcheck disable=SC2086
twice "simgrid bcast" $C --np 3 "$SG/traces/actions_bcast.txt"
# shellcheck disable=SC2086
twice "simgrid split_send_recv" $C --np 2 "$SG/traces/actions0.txt" "$SG/traces/actions1.txt"
# shellcheck disable=SC2086
twice "simgrid isend_test_wait" $C --np 3 "$SG/traces/actions_with_isend.txt"
# shellcheck disable=SC2086
twice "simgrid allreduce" $C --np 3 "$SG/traces/actions_allreduce.txt"
# shellcheck disable=SC2086
twice "simgrid alltoall" $C --np 3 "$SG/traces/actions_alltoall.txt"

# ---- a random mix: the generator is deterministic too
"$PSIM" gen mix --ranks 8 --rounds 40 --seed 11 -o "$D/mix1" >/dev/null 2>&1
"$PSIM" gen mix --ranks 8 --rounds 40 --seed 11 -o "$D/mix2" >/dev/null 2>&1
if [ -s "$D/mix1/rank-0.txt" ] && diff -r "$D/mix1" "$D/mix2" >/dev/null; then ok "gen mix: same seed, same files"
else ko "gen mix: same seed gave different files (or none)"; fi
twice "gen mix replay" "$D/mix1"
twice "gen mix replay, constant network" --network constant "$D/mix1"
rep "$D/m1" "$D/mix1"; rep "$D/m2" "$D/mix2"
same_but_traces "gen mix: two generated copies" "$D/m1" "$D/m2"

# ---- a stencil, plain, gzip, zstd, shared
G="--ranks 36 --iters 40 --halo 70000 --flops 2e6"
# shellcheck disable=SC2086
{ "$PSIM" gen stencil $G -o "$D/st" && "$PSIM" gen stencil $G --gzip -o "$D/stgz" &&
  "$PSIM" gen stencil $G --zstd -o "$D/stzst" && "$PSIM" gen stencil $G --shared -o "$D/stsh"; } >/dev/null 2>&1 ||
  ko "gen stencil failed"
twice "gen stencil replay" "$D/st"
twice "gen stencil replay, allreduce rdb" --cfg smpi/allreduce:rdb "$D/st"
rep "$D/plain" "$D/st"
rep "$D/gz" "$D/stgz"
rep "$D/zst" "$D/stzst"
same_but_traces "stencil gzip vs plain" "$D/plain" "$D/gz"
same_but_traces "stencil zstd vs plain" "$D/plain" "$D/zst"
# the same per-rank files named through the list file and one by one, in rank order
rep "$D/lst" "$D/st/list"
same_but_traces "stencil list file vs directory" "$D/plain" "$D/lst"
files=""
i=0; while [ $i -lt 36 ]; do files="$files $D/st/rank-$i.txt"; i=$((i + 1)); done
# shellcheck disable=SC2086
rep "$D/each" $files
same_but_traces "stencil explicit per-rank files vs directory" "$D/plain" "$D/each"
# a shared file: same simulated time and per-rank finish times as the per-rank files
rep "$D/sh" "$D/stsh"
t1=$(json_get "$D/plain.json" simulated_time) t2=$(json_get "$D/sh.json" simulated_time)
f1=$(grep -o '"finish_time": [^,]*' "$D/plain.json") f2=$(grep -o '"finish_time": [^,]*' "$D/sh.json")
if [ -n "$t1" ] && [ "$t1" = "$t2" ] && [ "$f1" = "$f2" ]; then ok "stencil shared file vs per-rank files: same time $t1"
else ko "stencil shared file: simulated time '$t2' vs per-rank '$t1' (or finish times differ)"; fi
# compressed output is really compressed (the comparison above is not plain vs plain)
if gzip -t "$D/stgz/rank-0.txt.gz" 2>/dev/null && zstd -q -t "$D/stzst/rank-0.txt.zst" 2>/dev/null; then
  ok "the gzip and zstd traces are compressed"
else ko "gen stencil --gzip/--zstd did not write compressed files"; fi

echo "$checks checks"
finish $fails
