#!/bin/sh
# Shared-memory windows and window info under psim run (MPI_Win_allocate_shared,
# MPI_Win_shared_query, MPI_Win_sync, MPI_Win_get_info, MPI_Win_set_info):
# - the data: tests/data/emul/rma_shared.c with several ranks per simulated host (--platform
#   flat:H puts world rank w on host w mod H; a hostfile groups them otherwise), on 1 to 7
#   ranks: the ranks MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups share a window where local
#   rank i has i + 1 ints; every rank checks that MPI_Win_shared_query gives each part's size,
#   unit and base, the parts contiguous (rank i's right after rank i-1's), MPI_PROC_NULL's
#   answer (rank 0's part), the flavor, the default hints (alloc_shared_noncontig false,
#   accumulate_ordering rar,raw,war,waw, accumulate_ops same_op_no_op, no_locks false); that
#   its direct stores are read directly by the others after MPI_Win_sync + barrier; Put,
#   Accumulate, Fetch_and_op on the window; a spin on MPI_Win_sync until another rank's store
#   shows, while that rank is blocked in a flush (it ends: MPI_Win_sync is a poll; run with
#   --no-measure, where no measured computation would make the spinning rank give way: a
#   plain no-op MPI_Win_sync hangs there); an alloc_shared_noncontig window reached through
#   the query; hints set with MPI_Win_set_info given back, an unknown key and an invalid
#   value ignored. World rank 0 prints its host's rank count and three sums, hand-computed
#   here from the world ranks w_0 < w_1 < ... of that host (local rank i = w_i, n of them):
#     segment sum     = sum_i (1000 w_i (i+1) + i(i+1)/2)
#     noncontig sum   = sum_i (7 w_i (i+1) + i(i+1)/2)
#     tickets         = n x L + n(n-1)/2, L = 1000 w_{n-1} + n-1 (n = 1: L = 0)
# - the time: a Put of S bytes between two ranks of one host under lock/unlock takes on a
#   shared window what it takes on an MPI_Win_allocate window (both network models); with
#   --network constant on flat:1,1Gf,1GBps,10us, hand-derived: the route from the host to
#   itself crosses its link twice, t(S) = 2 x 10us + S / 1 GB/s, and lock (request + grant) +
#   put + release = 4 t(0) + S / 1 GB/s = 1080 us for S = 1e6;
# - the mistakes (exit 4, the call, ranks and hosts, the MPI error class named):
#   MPI_Win_allocate_shared on ranks of two hosts (MPI_ERR_RMA_SHARED), MPI_Win_shared_query
#   on a window not made by MPI_Win_allocate_shared (MPI_ERR_RMA_FLAVOR); the same
#   MPI_Win_allocate_shared on MPI_COMM_WORLD with every rank on one host runs.
# MPICH's mpicc build of rma_shared.c against real MPICH: tests/cli/run_abi.sh.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/sh" "$PSIM_TESTDATA/emul/rma_shared.c" || { echo "FAIL: psimcc rma_shared.c"; exit 1; }
printf 'node-0:3\nnode-1:2\n' > "$TMPD/hosts"
# NP, world ranks on world rank 0's host, psim run's placement options
for c in "1|0|--platform flat:1" "2|0 1|--platform flat:1" "3|0 1 2|--platform flat:1" \
         "4|0 2|--platform flat:2" "7|0 2 4 6|--platform flat:2" "7|0 3 6|--platform flat:3" \
         "5|0 1 2|--platform flat:2 --hostfile $TMPD/hosts" "5|0|--platform flat:5"; do
  np=${c%%|*}; rest=${c#*|}; ws=${rest%%|*}; opts=${rest#*|}
  want=$(echo "$ws" | awk '{ n = NF; s = 0; s2 = 0
    for (i = 0; i < n; i++) { w = $(i + 1); s += 1000 * w * (i + 1) + i * (i + 1) / 2; s2 += 7 * w * (i + 1) + i * (i + 1) / 2 }
    L = n > 1 ? 1000 * $n + n - 1 : 0
    printf "world rank 0'"'"'s host: %d ranks, segment sum %d, noncontig sum %d, tickets %d\n No Errors", n, s, s2, n * L + n * (n - 1) / 2 }')
  # shellcheck disable=SC2086
  out=$(timeout 60 "$PSIM" run --np "$np" -q --no-measure $opts -- "$TMPD/sh" 2>&1)
  [ "$out" = "$want" ] && echo "ok   rma_shared.c at np $np ($opts)" || bad "rma_shared.c at np $np ($opts): $out (want $want)"
done

P="--np 2 -q --no-measure --cfg smpi/wtime:0 --platform flat:1,1Gf,1GBps,10us"
# shellcheck disable=SC2086
for net in constant smpi; do
  o=; [ $net = constant ] && o="--network constant"
  "$PSIM" run $P $o -- "$TMPD/sh" time 1000000 > "$TMPD/t_$net" || bad "$net time run: rc $?"
  s=$(sed -n 's/^shared //p' "$TMPD/t_$net"); a=$(sed -n 's/^allocate //p' "$TMPD/t_$net")
  [ -n "$s" ] && [ "$s" = "$a" ] && echo "ok   $net: a put on a shared window takes $s, as on MPI_Win_allocate's" ||
    bad "$net: shared window $s, MPI_Win_allocate window $a"
done
s=$(sed -n 's/^shared //p' "$TMPD/t_constant")
rel_close "$s" 1.08e-3 1e-9 && echo "ok   constant: lock + put + unlock = 4 t(0) + S/B = 1080 us" || bad "constant: $s, hand-derived 1.08e-3"

"$PSIM" run --np 2 -q --platform flat:2 -- "$TMPD/sh" spread > /dev/null 2> "$TMPD/err"; rc=$?
for m in "MPI_Win_allocate_shared: the communicator spans several simulated hosts" \
         "its rank 0 (world rank 0) runs on host node-0, its rank 1 (world rank 1) on host node-1" "MPI_ERR_RMA_SHARED"; do
  [ $rc -eq 4 ] && grep -qF "$m" "$TMPD/err" || { bad "spread: rc $rc, no '$m'"; cat "$TMPD/err"; }
done
"$PSIM" run --np 3 -q --platform flat:1 -- "$TMPD/sh" spread > /dev/null 2>&1 && echo "ok   one host: MPI_COMM_WORLD shares" || bad "spread on one host: rc $?"
"$PSIM" run --np 1 -q -- "$TMPD/sh" query > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -qF "MPI_Win_shared_query: rank 0: window 1 was not made by MPI_Win_allocate_shared (MPI_ERR_RMA_FLAVOR)" "$TMPD/err" &&
  echo "ok   shared_query of another flavor refused" || { bad "query: rc $rc"; cat "$TMPD/err"; }
finish $fails
