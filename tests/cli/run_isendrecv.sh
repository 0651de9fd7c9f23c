#!/bin/sh
# MPI_Isendrecv and MPI_Isendrecv_replace under psim run (tests/data/emul/isendrecv.c):
# - the data: a ring exchange at np 1, 2, 3, 5 (status source, tag, count), in place with a
#   strided type, MPI_PROC_NULL partners, a request that tests incomplete before its partner
#   sends;
# - the time: the same two messages as MPI_Sendrecv (docs/EMULATION.md). On flat:2,1Gf,1GBps,
#   10us with --network constant a message of S bytes takes the route's two latencies plus
#   S / bandwidth, t(S) = 2 x 10 us + S / 1e9 B/s; both ranks start at time 0 and send at
#   once, so the exchange ends at t(S): 21 us for 1 kB, 120 us for 100 kB (eager / rendez-vous
#   threshold 64 KiB crossed), 1020 us for 1 MB; MPI_Sendrecv then takes the same.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/isr" "$PSIM_TESTDATA/emul/isendrecv.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 1 2 3 5; do
  out=$(timeout 60 "$PSIM" run --np "$np" -q --no-measure -- "$TMPD/isr" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
v() { sed -n "s/^$1 //p" "$2"; }
# (smpi/wtime:0: reads of MPI_Wtime cost nothing, so the intervals are the transfers alone)
for S in 1000 100000 1000000; do
  "$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --network constant --platform flat:2,1Gf,1GBps,10us -- "$TMPD/isr" $S > "$TMPD/t" || bad "S=$S: rc $?"
  want=$(awk -v S=$S 'BEGIN { printf "%.17g", 2 * 1e-5 + S / 1e9 }')
  for c in isendrecv sendrecv; do
    got=$(v $c "$TMPD/t")
    if rel_close "$got" "$want" 1e-9; then echo "ok   $c S=$S: $got"; else bad "$c S=$S: psim $got, hand-derived $want"; fi
  done
done
# under the default (SMPI) model Isendrecv costs exactly what Sendrecv costs
"$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --platform flat:2,1Gf,1GBps,10us -- "$TMPD/isr" 1000000 > "$TMPD/s" || bad "smpi: rc $?"
[ -n "$(v isendrecv "$TMPD/s")" ] && [ "$(v isendrecv "$TMPD/s")" = "$(v sendrecv "$TMPD/s")" ] || bad "smpi: isendrecv $(v isendrecv "$TMPD/s") != sendrecv $(v sendrecv "$TMPD/s")"
finish $fails
