#!/bin/sh
# The MPI runtime's own work is charged to the rank (issue 34, item 3; --cfg
# run/charge-copies, default yes): packing and unpacking non-contiguous datatypes, sends to
# self, the local copies of collectives are CPU time a real MPI spends on the rank's core,
# in sequence with its communication. Hosts of 1 Gflop/s with a host speed reference of 1e9:
# a CPU second is a simulated second.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
# PTRANS's exchange (bench/validate_pack.c): a 2000 x 2000 block of doubles, as an
# MPI_Type_vector of stride 4000 and as contiguous doubles, swapped by 2 ranks. On a link of
# 4 GB/s the 32 MB take 8 ms each way; packing and unpacking the strided block are copies of
# 32 MB each, a few ms at this machine's memory speed.
"$PSIMCC" -O2 -o "$TMPD/pack" "$PSIM_SRC/bench/validate_pack.c" || { echo "FAIL: psimcc"; exit 1; }
P=flat:2,1Gf,4GBps,1us
ms() { sed -n "s/^$1: \([0-9.]*\) ms.*/\1/p" "$2"; }
# (run/pack-pipeline:0: the packing in sequence with the transfer; tests/cli/run_pack_pipeline.sh
# checks the overlap of the default)
for key in yes no; do
  "$PSIM" run --np 2 --platform $P -q --host-speed-ref 1e9 --cfg run/charge-copies:$key --cfg run/pack-pipeline:0 -- "$TMPD/pack" > "$TMPD/pack.$key" ||
    bad "validate_pack (charge-copies:$key): rc $?"
  v=$(ms vector "$TMPD/pack.$key") c=$(ms contiguous "$TMPD/pack.$key")
  echo "run/charge-copies:$key: vector $v ms, contiguous $c ms per exchange"
  if [ $key = yes ]; then
    awk -v v="$v" -v c="$c" 'BEGIN { exit !(v != "" && c > 0 && v / c > 1.2) }' ||
      bad "charge-copies:yes: the vector exchange ($v ms) is not above the contiguous one ($c ms) x 1.2"
  else
    rel_close "$v" "$c" 0.01 || bad "charge-copies:no: vector $v ms, contiguous $c ms: not equal within 1 %"
  fi
done
# a send to self is a copy on the rank's core: 64 MB through MPI_Sendrecv to itself
cat > "$TMPD/self.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n = 8 << 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  for (int i = 0; i < n; i++) a[i] = i, b[i] = 0;   /* touched: the copy measures no page faults */
  double t0 = MPI_Wtime();
  MPI_Sendrecv(a, n, MPI_DOUBLE, r, 0, b, n, MPI_DOUBLE, r, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  double t = MPI_Wtime() - t0;
  printf("self %.9f %s\n", t, b[n - 1] == n - 1 ? "ok" : "wrong");
  MPI_Finalize();
  return 0;
}
C
"$PSIMCC" -O2 -o "$TMPD/self" "$TMPD/self.c" || bad "psimcc self.c"
for key in yes no; do
  "$PSIM" run --np 1 --platform flat:1,1Gf -q --host-speed-ref 1e9 --cfg run/charge-copies:$key -- "$TMPD/self" > "$TMPD/self.$key" ||
    bad "self (charge-copies:$key): rc $?"
  echo "run/charge-copies:$key: $(cat "$TMPD/self.$key")"
done
set -- $(cat "$TMPD/self.yes") x x x
on=$2
grep -q ' ok$' "$TMPD/self.yes" || bad "self-send: wrong data"
set -- $(cat "$TMPD/self.no") x x x
off=$2
# 64 MB copied at 1-20 GB/s: 3 to 64 ms more than the model's own time for the message
awk -v a="$on" -v b="$off" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d >= 2e-3 && d <= 0.2) }' ||
  bad "self-send of 64 MB: $on s with the copy charged, $off s without (expected 3-64 ms more)"
# a collective's local copy: MPI_Allgather of 8 MB per rank copies the rank's own block from
# its send buffer to its receive buffer (the other comes as a message)
cat > "$TMPD/ag.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n = 1 << 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double *a = malloc((size_t)n * sizeof *a), *b = malloc(2 * (size_t)n * sizeof *b);
  for (int i = 0; i < n; i++) a[i] = r, b[i] = b[n + i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allgather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (r == 0) printf("allgather %.9f %s\n", t, b[0] == 0 && b[2 * n - 1] == 1 ? "ok" : "wrong");
  MPI_Finalize();
  return 0;
}
C
"$PSIMCC" -O2 -o "$TMPD/ag" "$TMPD/ag.c" || bad "psimcc ag.c"
for key in yes no; do
  "$PSIM" run --np 2 --platform $P -q --host-speed-ref 1e9 --cfg run/charge-copies:$key -- "$TMPD/ag" > "$TMPD/ag.$key" ||
    bad "allgather (charge-copies:$key): rc $?"
  echo "run/charge-copies:$key: $(cat "$TMPD/ag.$key")"
done
set -- $(cat "$TMPD/ag.yes") x x x
on=$2
grep -q ' ok$' "$TMPD/ag.yes" || bad "allgather: wrong data"
set -- $(cat "$TMPD/ag.no") x x x
off=$2
# 8 MB copied at 1-20 GB/s: 0.4 to 8 ms more
awk -v a="$on" -v b="$off" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d >= 0.3e-3 && d <= 0.05) }' ||
  bad "allgather of 8 MB per rank: $on s with the local copy charged, $off s without (expected 0.4-8 ms more)"
# the key's values
"$PSIM" run --np 1 -q --no-measure --cfg run/charge-copies:maybe -- "$TMPD/self" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc = 2 ] && grep -q 'run/charge-copies expects yes or no' "$TMPD/err" || bad "run/charge-copies:maybe: rc $rc, $(cat "$TMPD/err")"
"$PSIM" run --help | grep -q 'run/charge-copies' || bad "psim run --help does not list run/charge-copies"
finish $fails
