#!/bin/sh
# psim run's point-to-point messages of data written since they last moved take the platform's
# network/written-* factors (src/emul/emu_written.c): tests/data/emul/written_sends.c sends 1 MB
# six times (new, the same bytes, one byte changed, the same, after a receive into the buffer,
# packed as a strided vector) and times each receive under --no-measure. On flat:2 at 10 Gbps
# (1.25 GB/s) with SMPI's factors 1, a message of P = 1e6 + 16 bytes at rest takes T, and one
# of written data at written-bw-factor 0.5 takes T + P / 1.25 GB/s = T + 800.0128 us.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O2 -o "$TMPD/ws" "$PSIM_TESTDATA/emul/written_sends.c" || { echo "FAIL: psimcc written_sends.c"; exit 1; }
P="-q --np 2 --no-measure --platform flat:2,1Gf,10Gbps,1us --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"
# shellcheck disable=SC2086
"$PSIM" run $P -- "$TMPD/ws" > "$TMPD/plain.out" 2>&1 || bad "without written factors: rc $?"
# shellcheck disable=SC2086
"$PSIM" run $P --cfg network/written-bw-factor:0:0.5 -- "$TMPD/ws" > "$TMPD/w.out" 2>&1 || bad "written factors: rc $?"
t() { sed -n "s/^send $2 //p" "$1"; }
T=$(t "$TMPD/plain.out" 1)
[ -n "$T" ] || bad "no times: $(head -3 "$TMPD/plain.out")"
for i in 0 1 2 3 4 5; do
  rel_close "$(t "$TMPD/plain.out" $i)" "$T" 1e-9 || bad "without written factors, send $i took $(t "$TMPD/plain.out" $i), send 1 $T"
done
W=$(awk -v t="$T" 'BEGIN { printf "%.12g", t + 1000016 / 1.25e9 }')
for i in 0 2 4 5; do
  rel_close "$(t "$TMPD/w.out" $i)" "$W" 1e-9 || bad "send $i (written data) took $(t "$TMPD/w.out" $i), expected $W"
done
for i in 1 3; do
  rel_close "$(t "$TMPD/w.out" $i)" "$T" 1e-9 || bad "send $i (the same bytes at rest) took $(t "$TMPD/w.out" $i), expected $T"
done
finish $fails
