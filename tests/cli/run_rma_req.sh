#!/bin/sh
# Request-based one-sided operations under psim run (MPI_Rput, MPI_Rget, MPI_Raccumulate,
# MPI_Rget_accumulate):
# - the data: tests/data/emul/rma_req.c on 1 to 7 ranks: Rput to every rank + MPI_Waitall
#   (lock_all), Rget + an MPI_Test loop (lock), Raccumulate and Rget_accumulate to rank 0 +
#   MPI_Waitany + MPI_Wait, an Rput waited for after the unlock, or ("free") whose request is
#   freed at once (MPI_Request_free; the unlock completes it; real MPICH refuses that), an Rget
#   from MPI_PROC_NULL (complete at once), accumulates of a type of size
#   0 (combine nothing; MPICH's rma/badrma), an Raccumulate(MPI_SUM) whose target type is a
#   struct of two ints with a gap (one basic type, as MPI requires: the gap untouched). Every
#   rank checks its own results; rank 0's line is
#   hand-computed here: acc = 1 + ... + np, fetch-and-add = np, fetched sum = 0 + ... + np-1,
#   rank 0's get = 1 mod np;
# - the time: rma_req.c "time" on flat:2,1Gf,1GBps,10us with --network constant and
#   smpi/wtime:0, hand-derived as in tests/cli/run_rma.sh: a transfer of S bytes takes
#   t(S) = 2 x 10us + S / 1 GB/s; a request completes when its operation arrives (psim's local
#   completion, as MPI_Win_flush_local): S = 1e6 bytes,
#     lock 2 t(0) = 40 us; Rput returns at once; its MPI_Wait t(S) = 1020 us; the unlock then
#     only the release t(0) = 20 us; lock 40 us; Rget + Wait t(0) + t(S) = 1040 us;
#     Rput and Rget together: MPI_Waitany returns the put (index 0) at 1020 us, the get's Wait
#     20 us later; Raccumulate + MPI_Win_flush t(S) = 1020 us, then its Wait 0;
#     Rget_accumulate(MPI_NO_OP) + Wait t(0) + t(S) = 1040 us; unlock t(0) = 20 us;
#   and the data (the Rget's bytes, the Rget_accumulate's doubles, Waitany's index 0) right;
# - the mistakes: MPI_Rput in a fence epoch (exit 4, MPI_ERR_RMA_SYNC); MPI_Accumulate with
#   MPI_SUM on a struct of an int and a double (exit 4, MPI_ERR_TYPE: MPI 4.0, 12.3.4 requires
#   the basic elements to be of one predefined type).
# MPICH's mpicc build of rma_req.c against real MPICH: tests/cli/run_abi.sh.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/req" "$PSIM_TESTDATA/emul/rma_req.c" || { echo "FAIL: psimcc rma_req.c"; exit 1; }
for c in 1 2 3 4 7 "3 free" "7 free"; do
  np=${c%% *}
  arg=; [ "$c" = "$np" ] || arg=${c#* }
  want=$(awk -v n=$np 'BEGIN { printf "acc %d, fetch-and-add %d, fetched sum %d, rank 0'"'"'s get %d\n No Errors",
                                n * (n + 1) / 2, n, n * (n - 1) / 2, 1 % n }')
  # shellcheck disable=SC2086
  out=$(timeout 60 "$PSIM" run --np "$np" -q -- "$TMPD/req" $arg 2>&1)
  [ "$out" = "$want" ] && echo "ok   rma_req.c $arg at np $np" || bad "rma_req.c $arg at np $np: $out (want $want)"
done

P="--np 2 -q --no-measure --cfg smpi/wtime:0 --network constant --platform flat:2,1Gf,1GBps,10us"
# shellcheck disable=SC2086
"$PSIM" run $P -- "$TMPD/req" time 1000000 > "$TMPD/t" || bad "time run: rc $?"
v() { sed -n "s/^$1 //p" "$TMPD/t"; }
L=1e-5 B=1e9 S=1000000
t0=$(awk -v L=$L 'BEGIN { printf "%.17g", 2 * L }')
tS=$(awk -v L=$L -v B=$B -v S=$S 'BEGIN { printf "%.17g", 2 * L + S / B }')
sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.17g", a + b }'; }
expect() { if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"; else bad "$1: psim $2, hand-derived $3"; fi; }
expect "lock" "$(v lock)" "$(sum "$t0" "$t0")"
expect "Rput returns at once" "$(v rput)" 0
expect "Rput's wait: t(S)" "$(v rput-wait)" "$tS"
expect "unlock after the wait: the release" "$(v unlock)" "$t0"
expect "lock again" "$(v lock2)" "$(sum "$t0" "$t0")"
expect "Rget + wait: t(0) + t(S)" "$(v rget+wait)" "$(sum "$t0" "$tS")"
expect "Waitany of Rput and Rget: the put" "$(v waitany)" "$tS"
expect "then the get's wait" "$(v wait-get)" "$t0"
expect "Raccumulate + flush" "$(v racc+flush)" "$tS"
expect "Raccumulate's wait after the flush" "$(v racc-wait)" 0
expect "Rget_accumulate(NO_OP) + wait" "$(v rgetacc+wait)" "$(sum "$t0" "$tS")"
expect "unlock" "$(v unlock2)" "$t0"
[ "$(v data)" = ok ] && echo "ok   time run's data" || bad "time run's data: $(v data)"

"$PSIM" run --np 1 -q -- "$TMPD/req" fence > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -qF "MPI_Rput: rank 0 to rank 0 outside a passive-target epoch" "$TMPD/err" &&
  grep -qF "MPI_ERR_RMA_SYNC" "$TMPD/err" && echo "ok   Rput in a fence epoch refused" ||
  { bad "Rput in a fence epoch: rc $rc"; cat "$TMPD/err"; }
"$PSIM" run --np 1 -q -- "$TMPD/req" mixed > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -qF "MPI_Accumulate: world rank 0: a predefined operation on a target datatype whose basic elements are of several types" "$TMPD/err" &&
  grep -qF "MPI_ERR_TYPE" "$TMPD/err" && echo "ok   MPI_SUM on a struct of int and double refused" ||
  { bad "mixed struct accumulate: rc $rc"; cat "$TMPD/err"; }
finish $fails
