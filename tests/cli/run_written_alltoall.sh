#!/bin/sh
# psim run's alltoall and alltoallv messages carry the program's send buffer as it lies
# (MPICH's pairwise and scattered algorithms send each block from it, no copy first), so they
# take the platform's network/written-* factors only when the program wrote that buffer since
# it last moved (src/emul/rt/rt_coll.c send_at_rest; other collectives' messages always do).
# tests/data/emul/written_alltoall.c times eight calls under --no-measure. On flat:2 at 10 Gbps
# (1.25 GB/s) with SMPI's factors 1, the alltoallv's one message of P = 1e6 + 16 bytes takes T
# at rest, the run's time without written factors, and T + P / 1.25 GB/s = T + 800.0128 us at
# written-bw-factor 0.5 (rounds 0, 2: new or changed bytes, 4: a packed vector); rounds 1 and
# 3 (the same bytes again) take T. The alltoall's two messages at once: round 6 (the same bytes
# again) takes the time without written factors, rounds 5 (new) and 7 (MPI_IN_PLACE: the MPI
# copies first) the written time, each above 1.9 times it.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O2 -o "$TMPD/wa" "$PSIM_TESTDATA/emul/written_alltoall.c" || { echo "FAIL: psimcc written_alltoall.c"; exit 1; }
P="-q --np 2 --no-measure --platform flat:2,1Gf,10Gbps,1us --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"
# shellcheck disable=SC2086
"$PSIM" run $P -- "$TMPD/wa" > "$TMPD/plain.out" 2>&1 || bad "without written factors: rc $?: $(cat "$TMPD/plain.out")"
# shellcheck disable=SC2086
"$PSIM" run $P --cfg network/written-bw-factor:0:0.5 -- "$TMPD/wa" > "$TMPD/w.out" 2>&1 || bad "written factors: rc $?: $(cat "$TMPD/w.out")"
t() { sed -n "s/^round $2 //p" "$1"; }
T=$(t "$TMPD/plain.out" 1)
[ -n "$T" ] || bad "no times: $(head -3 "$TMPD/plain.out")"
W=$(awk -v t="$T" 'BEGIN { printf "%.12g", t + 1000016 / 1.25e9 }')
for i in 0 2 4; do
  rel_close "$(t "$TMPD/w.out" $i)" "$W" 1e-5 || bad "alltoallv round $i (written data) took $(t "$TMPD/w.out" $i), expected $W"
done
for i in 1 3; do
  rel_close "$(t "$TMPD/w.out" $i)" "$T" 1e-5 || bad "alltoallv round $i (the same bytes at rest) took $(t "$TMPD/w.out" $i), expected $T"
done
A=$(t "$TMPD/plain.out" 6)
rel_close "$(t "$TMPD/w.out" 6)" "$A" 1e-5 || bad "alltoall round 6 (at rest) took $(t "$TMPD/w.out" 6), expected $A"
for i in 5 7; do
  awk -v w="$(t "$TMPD/w.out" $i)" -v a="$A" 'BEGIN { exit !(w > 1.9 * a) }' ||
    bad "alltoall round $i (written data) took $(t "$TMPD/w.out" $i), not above 1.9 x $A"
done
finish $fails
