#!/bin/sh
# Graph and distributed graph topologies under psim run (tests/data/emul/graph.c):
# - the queries on every rank at np 1, 2, 3, 4, 7: MPI_Graph_create of a star with a self loop
#   over np-1 ranks (the last rank gets MPI_COMM_NULL), Graphdims_get, Graph_get,
#   Graph_neighbors(_count), Graph_map and Cart_map (no reordering: a rank keeps its rank, or
#   MPI_UNDEFINED beyond the graph), Topo_test (MPI_GRAPH, MPI_DIST_GRAPH, MPI_UNDEFINED),
#   MPI_Comm_dup keeping the topology; MPI_Dist_graph_create_adjacent weighted and with
#   MPI_UNWEIGHTED (weights left untouched); MPI_Dist_graph_create where rank 0 names every
#   ring edge and each rank one more (in- and out-lists, weights), and with no edge at all
#   (MPI_WEIGHTS_EMPTY);
# - the cost of creation, all ranks starting at t = 1 s (4 ranks on flat:4,1Gf,1GBps,10us and
#   7 on the default platform): MPI_Graph_create and MPI_Dist_graph_create_adjacent end exactly
#   when MPI_Comm_split does (their stated cost, an allgather of two ints);
#   MPI_Dist_graph_create exactly when the program's own MPI_Alltoall of one int, MPI_Alltoallv
#   of the 12-byte edge records and MPI_Comm_split end (the redistribution it is modelled as);
# - the same by hand on --network star (docs/models.md: a message of s bytes takes l + s / its
#   share of the ports, each port split equally among its flows), 4 ranks on
#   flat:4,1Gf,1GBps,10us (l = 10 us, b = 1e9 B/s): SimGrid's default allgather, alltoall and
#   alltoallv post every message at once, so MPI_Comm_split (allgather of 8 bytes: 3 flows out
#   of and into each port) takes l + 3 x 8 / b = 10.024 us; MPI_Dist_graph_create takes the
#   alltoall of counts (l + 3 x 4 / b), the alltoallv of records (12 bytes to each neighbour
#   of the ring, 2 flows per port: l + 2 x 12 / b; the 24 bytes to itself cost nothing) and
#   the split: 3 l + 60 / b = 30.06 us;
# - misuse is an MPI error naming the call and the rank (exit 4).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -g -o "$TMPD/graph" "$PSIM_TESTDATA/emul/graph.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 1 2 3 4 7; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/graph" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
cost() { timeout 60 "$PSIM" run -q --no-measure --cfg smpi/wtime:0 "$@" | sed -n 's/^cost //p'; }
for args in "--np 4 --platform flat:4,1Gf,1GBps,10us" "--np 7"; do
  split=$(cost $args -- "$TMPD/graph" cost split)
  close_to "$split" 1 0.01 && [ "$split" != 1 ] || bad "$args: MPI_Comm_split ends at '$split'"
  for w in graph adjacent; do
    got=$(cost $args -- "$TMPD/graph" cost $w)
    [ "$got" = "$split" ] && echo "ok   $args $w: $got" || bad "$args $w: $got, MPI_Comm_split $split"
  done
  dist=$(cost $args -- "$TMPD/graph" cost dist)
  hand=$(cost $args -- "$TMPD/graph" cost dist_hand)
  [ -n "$dist" ] && [ "$dist" = "$hand" ] && echo "ok   $args dist: $dist" || bad "$args dist: $dist, alltoall+alltoallv+split $hand"
  awk -v d="$dist" -v s="$split" 'BEGIN { exit !(d > s) }' || bad "$args: MPI_Dist_graph_create ($dist) not dearer than the split ($split)"
done
star="--np 4 --network star --platform flat:4,1Gf,1GBps,10us"
for w in split:10.024e-6 graph:10.024e-6 adjacent:10.024e-6 dist:30.06e-6; do
  got=$(cost $star -- "$TMPD/graph" cost ${w%%:*})
  want=$(awk -v d=${w#*:} 'BEGIN { printf "%.17g", 1 + d }')
  rel_close "$got" "$want" 1e-12 && echo "ok   star ${w%%:*}: $got" || bad "star ${w%%:*}: psim $got, hand-derived $want"
done
expect() { # expect PATTERN WHAT
  "$PSIM" run --np 2 -q --no-measure -- "$TMPD/graph" bad "$2" > "$TMPD/out" 2> "$TMPD/err"; rc=$?
  if [ $rc -ne 4 ] || ! grep -q "$1" "$TMPD/err"; then bad "bad $2 (rc $rc, want 4 and '$1'): $(cat "$TMPD/err")"; fi
}
expect "rank 1: MPI error in MPI_Graph_neighbors: the communicator has no graph topology" graph_neighbors
expect "rank 1: MPI error in MPI_Dist_graph_neighbors: the communicator has no distributed graph topology" dist_neighbors
expect "graph.c:[0-9]*: rank 1: MPI error in MPI_Neighbor_alltoall: the communicator has no topology" neighbor
expect "rank 1: MPI error in MPI_Graph_create: edges\[1\] = 9 is not a node of the 2-node graph" graph_edges
finish $fails
