#!/bin/sh
# Matched probes under psim run (tests/data/emul/mprobe.c):
# - semantics at np 2, 3, 5: the message MPI_Mprobe found is taken out of matching (an
#   MPI_Recv of MPI_ANY_TAG after it takes the next message), MPI_Mrecv delivers it and sets
#   the message to MPI_MESSAGE_NULL; MPI_Improbe with nothing sent (flag 0, MPI_MESSAGE_NULL),
#   then polled until it matches (psim's poll rule ends the loop), MPI_Imrecv + MPI_Wait;
#   MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive has source MPI_PROC_NULL and count
#   0; a strided receive type; 1 MB (rendez-vous); MPI_ANY_SOURCE from every rank, each
#   message received once;
# - the time: on flat:2,1Gf,1GBps,10us with --network constant, S bytes sent at t = 0 arrive at
#   2 l + S / b, received by MPI_Recv or by MPI_Mprobe + MPI_Mrecv alike: 21 us for 1000 bytes,
#   1020 us for 1 MB;
# - --trace-tit records a matched receive as the irecv the probe posted and the wait of its
#   MPI_Mrecv: the whole program's trace at np 3 replays to the run's time, bit for bit;
# - misuse (exit 4, naming the call and the rank): MPI_Mrecv on MPI_MESSAGE_NULL, on a message
#   already received, into a buffer too small (MPI_ERR_TRUNCATE).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -g -o "$TMPD/mp" "$PSIM_TESTDATA/emul/mprobe.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 2 3 5; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/mp" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
for S in 1000 1000000; do
  want=$(awk -v S=$S 'BEGIN { printf "%.17g", 2 * 1e-5 + S / 1e9 }')
  for how in recv mprobe; do
    got=$(timeout 60 "$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --network constant \
            --platform flat:2,1Gf,1GBps,10us -- "$TMPD/mp" time $S $how | sed -n 's/^time //p')
    rel_close "$got" "$want" 1e-12 && echo "ok   $how S=$S: $got" || bad "$how S=$S: psim $got, hand-derived $want"
  done
done
"$PSIM" run --np 3 -q --no-measure --trace-tit "$TMPD/tr" --json "$TMPD/run.json" -- "$TMPD/mp" > /dev/null || bad "--trace-tit run failed"
"$PSIM" replay --np 3 -q --json "$TMPD/rep.json" "$TMPD/tr" || bad "replay failed"
a=$(json_get "$TMPD/run.json" simulated_time) b=$(json_get "$TMPD/rep.json" simulated_time)
[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok   trace: $a" || bad "run $a, replay of its trace $b"
expect() { # expect PATTERN WHAT
  "$PSIM" run --np 2 -q --no-measure -- "$TMPD/mp" "$2" > "$TMPD/out" 2> "$TMPD/err"; rc=$?
  if [ $rc -ne 4 ] || ! grep -q "$1" "$TMPD/err"; then bad "$2 (rc $rc, want 4 and '$1'): $(cat "$TMPD/err")"; fi
}
expect "mprobe.c:[0-9]*: rank 0: MPI error in MPI_Mrecv: the message is MPI_MESSAGE_NULL (MPI_ERR_REQUEST)" null
expect "rank 0: MPI error in MPI_Mrecv: message [0-9]* is not one that MPI_Mprobe or MPI_Improbe gave" twice
expect "rank 0: MPI error in MPI_Mrecv: message of 16 bytes truncated by a receive of 8 bytes (MPI_ERR_TRUNCATE)" trunc
finish $fails
