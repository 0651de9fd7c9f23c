#!/bin/sh
# Cartesian topologies and MPI_Comm_split_type under psim run (tests/data/emul/topo.c):
# - MPI_Dims_create, by hand (balanced, non-increasing; fixed dimensions kept): 6 in 2 = 3x2,
#   12 in 3 = 3x2x2, 16 in 2 = 4x4, 7 (prime) = 7x1, 12 with dims[0]=3 -> 3x4,
#   24 in 3 with dims[2]=2 -> 12 = 4x3 -> 4x3x2, 1 = 1x1; and MPICH's answers (dims.c);
# - the grid at np 1, 4, 6, 7 (every rank checks row-major coordinates, Cart_rank, shifts with
#   wrap in the periodic dimension and MPI_PROC_NULL in the other, Cart_sub rows, dup keeps it);
# - MPI_COMM_TYPE_SHARED groups the ranks of one simulated host: hostfile node-0:2, node-1:1,
#   node-2:3 gives sizes 2,2,1,3,3,3; key -rank reverses the order inside each host.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/topo" "$PSIM_TESTDATA/emul/topo.c" || { echo "FAIL: psimcc"; exit 1; }
dims="dims(6,2) = 3 2
dims(12,3) = 3 2 2
dims(16,2) = 4 4
dims(7,2) = 7 1
dims(12,2) = 3 4
dims(24,3) = 4 3 2
dims(1,2) = 1 1"
for np in 1 4 6 7; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/topo" 2>&1)
  [ "$(echo "$out" | head -n 7)" = "$dims" ] || bad "np $np: MPI_Dims_create: $(echo "$out" | head -n 7)"
  [ "$(echo "$out" | tail -n 1)" = " No Errors" ] || bad "np $np: $out"
  # one rank per host on the default platform: every shared communicator is that rank alone
  n1=$(echo "$out" | grep -c "shared size 1 rank 0")
  [ "$n1" = $np ] || bad "np $np: $n1 single-rank shared communicators"
done
printf 'node-0:2\nnode-1:1\nnode-2:3\n' > "$TMPD/hf"
out=$(timeout 60 "$PSIM" run --np 6 -q --no-measure --platform flat:3 --hostfile "$TMPD/hf" -- "$TMPD/topo" 2>&1 | tail -n 7)
want="rank 0: shared size 2 rank 1
rank 1: shared size 2 rank 0
rank 2: shared size 1 rank 0
rank 3: shared size 3 rank 2
rank 4: shared size 3 rank 1
rank 5: shared size 3 rank 0
 No Errors"
[ "$out" = "$want" ] || bad "hostfile: $out"
# MPI_Dims_create is balanced as MPI asks and MPICH does (72 in 2-D is 9 x 8, not 12 x 6): the
# decompositions of MPICH 4.0.2's test table in tests/data/emul/dims.c (real MPICH prints the same)
"$PSIMCC" -O1 -o "$TMPD/dims" "$PSIM_TESTDATA/emul/dims.c" || bad "psimcc dims.c"
out=$(timeout 60 "$PSIM" run --np 1 -q --no-measure -- "$TMPD/dims" 2>&1)
[ "$(echo "$out" | tail -n 1)" = " No Errors" ] || bad "MPI_Dims_create: $(echo "$out" | grep -v ' No Errors' | tr '\n' ';')"
finish $fails
