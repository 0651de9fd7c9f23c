#!/bin/sh
# Neighbourhood collectives under psim run (tests/data/emul/neighbor.c):
# - the data of MPI_Neighbor_allgather(v), alltoall(v,w) and their MPI_Ineighbor_* forms at np
#   1, 2, 3, 4, 6, 7 on a periodic Cartesian ring (at np 1 and 2 both neighbours are one rank:
#   what goes to the -1 neighbour lands in its +1 block), a 2-D non-periodic grid
#   (MPI_PROC_NULL neighbours: their blocks untouched), a graph ring (MPI_Graph_create; two
#   edges to one rank pair in order) and a directed distributed-graph ring;
# - the time: 4 ranks on a ring of 4 hosts (flat:4,1Gf,1GBps,10us: l = 10 us per link, b =
#   1 GB/s), every rank starting at t = 1 s, an MPI_Neighbor_alltoall of S bytes per neighbour
#   (2 sends and 2 receives per rank, all at once):
#     --network constant (no sharing; a route is two links): 1 + 2 l + S / b
#     --network star (each port shared equally, docs/models.md: 2 flows out of and into each
#       port at b/2; latency l = max of the two ports'): 1 + l + 2 S / b
#   for S = 1000 (detached) and 1000000 (rendez-vous); on every network, SMPI's included, the
#   Cartesian, graph and distributed-graph collectives end exactly when the hand-written
#   program (MPI_Irecv from left and right, MPI_Isend to left and right, MPI_Waitall) does;
# - MPI_Ineighbor_alltoall overlaps what follows: posted at 1 s, then W seconds of
#   psim_sleep, then MPI_Wait, on the constant network it ends at 1 + max(2 l + S / b, W)
#   (1 MB: 1.00102 s for W = 0.5 ms, 1.002 s for W = 2 ms), exactly when the hand-written
#   MPI_Irecv/MPI_Isend, sleep, MPI_Waitall does (also under SMPI's model);
# - --trace-tit records them (irecv, isend, waitall with the collectives' own negative tags):
#   the trace replays to the run's simulated time, bit for bit (SMPI's model, 100 kB).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/nbr" "$PSIM_TESTDATA/emul/neighbor.c" || { echo "FAIL: psimcc"; exit 1; }
for np in 1 2 3 4 6 7; do
  out=$(timeout 60 "$PSIM" run --np $np -q --no-measure -- "$TMPD/nbr" 2>&1)
  [ "$out" = " No Errors" ] || bad "np $np: $out"
done
# t NETWORK S TOPO [W]
t() { timeout 60 "$PSIM" run --np 4 -q --no-measure --cfg smpi/wtime:0 --network "$1" \
        --platform flat:4,1Gf,1GBps,10us -- "$TMPD/nbr" time "$2" $3 | sed -n 's/^time //p'; }
for net in constant star smpi; do
  for S in 1000 1000000; do
    hand=$(t $net $S hand)
    case $net in
      constant) want=$(awk -v S=$S 'BEGIN { printf "%.17g", 1 + 2 * 1e-5 + S / 1e9 }') ;;
      star) want=$(awk -v S=$S 'BEGIN { printf "%.17g", 1 + 1e-5 + 2 * S / 1e9 }') ;;
      *) want=$hand ;;
    esac
    rel_close "$hand" "$want" 1e-12 || bad "$net S=$S: the hand-written exchange ends at $hand, hand-derived $want"
    for topo in cart graph dist; do
      got=$(t $net $S $topo)
      if [ -n "$got" ] && [ "$got" = "$hand" ] && rel_close "$got" "$want" 1e-12; then echo "ok   $net S=$S $topo: $got"
      else bad "$net S=$S $topo: $got, hand-written $hand, hand-derived $want"; fi
    done
  done
done
for w in 0.0005:1.00102 0.002:1.002; do
  W=${w%%:*} want=${w#*:}
  for net in constant smpi; do
    got=$(t $net 1000000 "icart $W") hand=$(t $net 1000000 "ihand $W")
    [ -n "$got" ] && [ "$got" = "$hand" ] || bad "$net W=$W: MPI_Ineighbor_alltoall $got, hand-written $hand"
    [ $net = smpi ] || rel_close "$got" "$want" 1e-12 || bad "$net W=$W: $got, hand-derived $want"
    echo "ok   overlap $net W=$W: $got"
  done
done
for topo in cart graph dist icart; do
  rm -rf "$TMPD/tr"
  "$PSIM" run --np 4 -q --no-measure --platform flat:4,1Gf,1GBps,10us --trace-tit "$TMPD/tr" \
    --json "$TMPD/run.json" -- "$TMPD/nbr" time 100000 $topo > /dev/null || bad "$topo: --trace-tit run failed"
  "$PSIM" replay --np 4 -q --platform flat:4,1Gf,1GBps,10us --json "$TMPD/rep.json" "$TMPD/tr" || bad "$topo: replay failed"
  a=$(json_get "$TMPD/run.json" simulated_time) b=$(json_get "$TMPD/rep.json" simulated_time)
  grep -q "isend 1 -600" "$TMPD/tr/rank-0.txt" || bad "$topo: no isend recorded"
  [ -n "$a" ] && [ "$a" = "$b" ] && echo "ok   trace $topo: $a" || bad "$topo: run $a, replay of its trace $b"
done
finish $fails
