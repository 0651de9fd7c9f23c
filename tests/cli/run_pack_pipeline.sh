#!/bin/sh
# The packing and unpacking of a long non-contiguous message overlap its transfer (issue 34,
# item 3; --cfg run/pack-pipeline:BYTES, default 65536): a real MPI packs chunk by chunk into
# its transport's buffers and the receiver unpacks each chunk as it lands, so an exchange of
# PTRANS's strided block (bench/validate_pack.c: 32 MB each way, both ranks at once) costs each
# rank about max(T, P + U), where T is the contiguous exchange's time and P + U the rank's
# packing and unpacking, instead of T + P + U (run/pack-pipeline:0, the sequential model).
# Hosts of 1 Gflop/s with a host speed reference of 1e9: a CPU second is a simulated second.
# P + U is measured here (a few ms: two strided copies of 32 MB), so it is taken from the
# sequential run on a network fast enough that T is small: seq100 - contig100. Then:
#   4 GB/s (T = 8.96 ms, about P + U):   pipelined ~ max(T, P + U);
#   1 GB/s (T = 35.8 ms >> P + U):       pipelined ~ T, the packing hidden;
#   100 GB/s (T = 0.38 ms << P + U):     pipelined ~ P + U, nothing to hide behind.
# Tolerance: 25 % of P + U (separate runs measure P + U again).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O2 -o "$TMPD/pack" "$PSIM_SRC/bench/validate_pack.c" || { echo "FAIL: psimcc"; exit 1; }
ms() { sed -n "s/^$1: \([0-9.]*\) ms.*/\1/p" "$2"; }
run() {   # run NAME BANDWIDTH CHUNK: vector and contiguous times in $v, $c
  "$PSIM" run --np 2 --platform "flat:2,1Gf,$2,1us" -q --host-speed-ref 1e9 --cfg run/pack-pipeline:"$3" -- "$TMPD/pack" > "$TMPD/$1" ||
    bad "$1: rc $?"
  v=$(ms vector "$TMPD/$1") c=$(ms contiguous "$TMPD/$1")
  echo "$1 ($2, run/pack-pipeline:$3): vector $v ms, contiguous $c ms"
}
run seq100 100GBps 0; s100=$v c100=$c
run seq4 4GBps 0; s4=$v c4=$c
run pipe4 4GBps 65536; p4=$v
run pipe1 1GBps 65536; p1=$v c1=$c
run pipe100 100GBps 65536; p100=$v
awk -v s100="$s100" -v c100="$c100" -v s4="$s4" -v c4="$c4" -v p4="$p4" -v p1="$p1" -v c1="$c1" -v p100="$p100" 'BEGIN {
  pu = s100 - c100
  if (!(pu > 1)) { print "FAIL: packing and unpacking 32 MB took " pu " ms, want > 1 ms"; exit 1 }
  tol = 0.25 * pu; bad = 0
  printf "P + U = %.2f ms; sequential at 4 GB/s: T + P + U = %.2f, got %.2f\n", pu, c4 + pu, s4
  if (s4 - c4 < pu - tol || s4 - c4 > pu + tol) { print "FAIL: sequential at 4 GB/s: " s4 " ms, want " c4 " + " pu; bad = 1 }
  e = c4 > pu ? c4 : pu
  if (p4 < e - tol || p4 > e + tol) { print "FAIL: pipelined at 4 GB/s: " p4 " ms, want max(T, P + U) = " e; bad = 1 }
  if (p1 < c1 - 0.01 || p1 > c1 + tol) { print "FAIL: pipelined at 1 GB/s: " p1 " ms, want about T = " c1 " (the packing hidden)"; bad = 1 }
  e = c100 > pu ? c100 : pu
  if (p100 < e - tol || p100 > e + tol) { print "FAIL: pipelined at 100 GB/s: " p100 " ms, want about P + U = " e; bad = 1 }
  exit bad }' || fails=$((fails + 1))
# a bad value names the key
"$PSIM" run --np 2 -q --cfg run/pack-pipeline:-1 -- "$TMPD/pack" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'run/pack-pipeline expects a non-negative number' "$TMPD/err" || bad "run/pack-pipeline:-1: rc $rc, $(cat "$TMPD/err")"
finish $fails
