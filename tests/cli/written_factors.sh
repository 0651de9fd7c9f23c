#!/bin/sh
# network/written-bw-factor and -lat-factor (psim's own, src/models/models.c
# models_transfer_written): a collective's messages carry data the MPI or the program has just
# written, which moves between cores slower than the ping-pong's clean buffers; they take these
# factors, a point-to-point message keeps SMPI's. On flat:2 with SMPI's factors 1: a message
# of P = S + 16 bytes takes L + P / B; L and B come from the replayed 0-byte and 1 MB sends.
# A bcast of 1 MB at 2 ranks is that one message: L + P / B, and with written-bw-factor 0.5,
# L + 2 P / B; with written-lat-factor 3, 3 L + P / B.
. "$(dirname "$0")/../lib/common.sh"
fails=0
trace() {   # trace FILE ACTION...: the two ranks' init, ACTIONs, finalize
  f=$1; shift
  { echo "0 init"; echo "1 init"; printf '%s\n' "$@"; echo "0 finalize"; echo "1 finalize"; } > "$TMPD/$f"
}
trace p2p.txt "0 send 1 0 1000000" "1 recv 0 0 1000000"
trace zero.txt "0 send 1 0 0" "1 recv 0 0 0"
trace bcast.txt "0 bcast 1000000 0" "1 bcast 1000000 0"
CF="--cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"
t() {   # t TRACE [CFG...]: the replay's simulated time
  f=$1; shift
  # shellcheck disable=SC2086
  "$PSIM" replay --np 2 --platform flat:2 $CF "$@" --json "$TMPD/o.json" "$TMPD/$f" > /dev/null 2> "$TMPD/err" ||
    { bad "replay $f $*: $(cat "$TMPD/err")"; echo 0; return; }
  json_get "$TMPD/o.json" simulated_time
}
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-15) }'; }
W="--cfg network/written-bw-factor:0:0.5"
p2p=$(t p2p.txt) zero=$(t zero.txt) b0=$(t bcast.txt)
# 1/B from the two sizes, then L
inv_b=$(awk -v a="$p2p" -v z="$zero" 'BEGIN { printf "%.12g", (a - z) / 1000000 }')
lat=$(awk -v z="$zero" -v i="$inv_b" 'BEGIN { printf "%.12g", z - 16 * i }')
close "$b0" "$p2p" || bad "bcast without written factors: $b0, expected the send's $p2p"
close "$(t p2p.txt $W)" "$p2p" || bad "a send took the written factor: $(t p2p.txt $W), expected $p2p"
want=$(awk -v l="$lat" -v i="$inv_b" 'BEGIN { printf "%.12g", l + 2 * 1000016 * i }')
close "$(t bcast.txt $W)" "$want" || bad "bcast at written-bw-factor 0.5: $(t bcast.txt $W), expected L + 2 P / B = $want"
want=$(awk -v l="$lat" -v i="$inv_b" 'BEGIN { printf "%.12g", 3 * l + 1000016 * i }')
got=$(t bcast.txt --cfg network/written-lat-factor:0:3)
close "$got" "$want" || bad "bcast at written-lat-factor 3: $got, expected 3 L + P / B = $want"
# by size: the factor's sections apply to P as SMPI's do (0.5 from 2000 bytes on)
close "$(t bcast.txt --cfg network/written-bw-factor:0:1\;2000:0.5)" "$(t bcast.txt $W)" ||
  bad "a section from 2000 B does not apply to 1 MB"
close "$(t bcast.txt --cfg network/written-bw-factor:0:1\;2000000:0.5)" "$b0" ||
  bad "a section from 2 MB applies to 1 MB"
# a factor of 0 is refused, naming the key
"$PSIM" replay --np 2 --platform flat:2 --cfg network/written-bw-factor:0:0 "$TMPD/bcast.txt" > /dev/null 2> "$TMPD/err" &&
  bad "written-bw-factor 0 accepted"
grep -q "network/written-bw-factor" "$TMPD/err" || bad "the error does not name the key: $(cat "$TMPD/err")"
finish $fails
