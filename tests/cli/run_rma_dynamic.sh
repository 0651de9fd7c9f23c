#!/bin/sh
# Dynamic windows under psim run (MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach):
# - the data: tests/data/emul/rma_dynamic.c (regions attached by every rank, addressed from
#   MPI_BOTTOM by their MPI_Get_address; fence, lock, lock_all; Put, Get with a vector target
#   type, Accumulate, Fetch_and_op, Get_accumulate, Compare_and_swap; detach then attach) on 1
#   to 7 ranks: rank 0's line is hand-computed (a[4..7] = (np-1)*100 + 0..3, d[0] = the sum of
#   1..np, get = (np-2)*100 + {0,2} (mod np), counter = np, e = np-1, -(np-1));
# - the time: tests/data/emul/rma_time.c "dynamic" (the same lock, put, unlock, get, flush,
#   unlock on attached memory) gives the hand-derived times of tests/cli/run_rma.sh on
#   flat:2,1Gf,1GBps,10us --network constant, and under both network models exactly the times of
#   the same operations on an MPI_Win_create window;
# - rank 0 spinning on its own window (Get_accumulate + flush, lock + Get + unlock of itself)
#   until the last rank writes it: empty flushes and unlocks of itself are polls, so the writer
#   runs (before, the spinning rank never gave way: MPICH's linked_list_bench_* hung);
# - an access across two adjacent attached regions is allowed (as MPICH's
#   rma/win_dynamic_rma_flush_get expects: rma_bad.c without a mistake);
# - the mistakes: an access past the attached memory (MPI_ERR_RMA_RANGE), MPI_Win_attach on a
#   window that is not dynamic, MPI_Win_detach of memory never attached stop the run (exit 4).
# MPICH's mpicc build of rma_dynamic.c against real MPICH: tests/cli/run_abi.sh.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/dyn" "$PSIM_TESTDATA/emul/rma_dynamic.c" || { echo "FAIL: psimcc rma_dynamic.c"; exit 1; }
for np in 1 2 3 4 7; do
  want=$(awk -v n=$np 'BEGIN { l = n - 1; l2 = (2 * n - 2) % n
    printf "a[4..7] %d %d %d %d, d[0] %g, get %d %d, counter %d, e %d %d\n No Errors",
      l * 100, l * 100 + 1, l * 100 + 2, l * 100 + 3, n * (n + 1) / 2, l2 * 100, l2 * 100 + 2, n, l, -l }')
  out=$(timeout 60 "$PSIM" run --np "$np" -q -- "$TMPD/dyn" 2>&1)
  [ "$out" = "$want" ] || bad "rma_dynamic.c at np $np: $out (want $want)"
done

"$PSIMCC" -O1 -o "$TMPD/rmat" "$PSIM_TESTDATA/emul/rma_time.c" || { echo "FAIL: psimcc rma_time.c"; exit 1; }
P="--np 2 -q --no-measure --cfg smpi/wtime:0 --platform flat:2,1Gf,1GBps,10us"
# shellcheck disable=SC2086
for net in constant smpi; do
  o=; [ $net = constant ] && o="--network constant"
  "$PSIM" run $P $o -- "$TMPD/rmat" 1000000 > "$TMPD/w_$net" || bad "$net, MPI_Win_create: rc $?"
  "$PSIM" run $P $o -- "$TMPD/rmat" 1000000 dynamic > "$TMPD/d_$net" || bad "$net, dynamic: rc $?"
  cmp -s "$TMPD/w_$net" "$TMPD/d_$net" || bad "$net: dynamic window times differ:
$(paste "$TMPD/w_$net" "$TMPD/d_$net")"
done
v() { sed -n "s/^$1 //p" "$TMPD/d_constant"; }
# t(S) = 2 x 10us + S / 1 GB/s: lock 2 t(0), unlock after the put t(S) + t(0), get + flush
# t(0) + t(S), unlock t(0)
for c in "lock 4.000000000e-05" "put 0.000000000e+00" "unlock 1.040000000e-03" "lock2 4.000000000e-05" \
         "get+flush 1.040000000e-03" "unlock2 2.000000000e-05" "data ok"; do
  [ "$(v "${c% *}")" = "${c#* }" ] && echo "ok   dynamic ${c% *}: ${c#* }" || bad "dynamic ${c% *}: $(v "${c% *}"), hand-derived ${c#* }"
done

"$PSIMCC" -O1 -o "$TMPD/bad" "$PSIM_TESTDATA/emul/rma_bad.c" || { echo "FAIL: psimcc rma_bad.c"; exit 1; }
"$PSIM" run --np 1 -q -- "$TMPD/bad" none > /dev/null 2>&1 || bad "rma_bad.c without a mistake: rc $?"
for c in "dynrange:in no memory rank 0 attached to its dynamic window (MPI_ERR_RMA_RANGE)" \
         "attach:is not a dynamic window" "detach:was not attached by this rank (MPI_ERR_BASE)"; do
  "$PSIM" run --np 1 -q -- "$TMPD/bad" "${c%%:*}" > /dev/null 2> "$TMPD/err"; rc=$?
  [ $rc -eq 4 ] && grep -qF "${c#*:}" "$TMPD/err" || { bad "${c%%:*}: rc $rc"; cat "$TMPD/err"; }
done
finish $fails
