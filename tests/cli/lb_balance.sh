#!/bin/sh
# psim balance on the worked examples of specs/load-balancers.md §4.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
EX1=$(tmpfile) EX1B=$(tmpfile) EX3=$(tmpfile)
{ printf 'pe 0 bg 0\npe 1 bg 0.5\n'; i=0; for w in 9 7 6 5 4 3 2 1; do printf 'vp %d load %d pe %d\n' $i $w $((i / 4)); i=$((i + 1)); done; } > "$EX1"
{ printf 'pe 0 bg 0\npe 1 bg 0.5\n'; i=0; for w in 9 7 6 5 4 3 2 1; do case $i in 0|3|4|7) p=0;; *) p=1;; esac; printf 'vp %d load %d pe %d\n' $i $w $p; i=$((i + 1)); done; } > "$EX1B"
printf 'alpha 1\nbeta 0\npe 0 bg 0\npe 1 bg 0.5\nvp 0 load 5 pe 0\nvp 1 load 4 pe 0\nvp 2 load 3 pe 1\nvp 3 load 2 pe 1\ncomm 1 3 msgs 3 bytes 0\n' > "$EX3"
check() { # name file balancer expected-mapping(pe of vp0..) expected-summary
  out=$(tmpfile)
  if ! "$PSIM" balance "$2" --balancer "$3" > "$out"; then echo "FAIL $1: exit status"; fails=$((fails + 1)); return; fi
  map=$(awk '$1 == "vp" { printf "%s", $4 }' "$out")
  sum=$(grep '^# migrations' "$out" | awk '{ print $3, $5 }')
  if [ "$map" = "$4" ] && [ "$sum" = "$5" ]; then echo "ok   $1: $map ($sum)"
  else echo "FAIL $1: mapping $map ($sum), expected $4 ($5)"; cat "$out"; fails=$((fails + 1)); fi
}
# Ex 1: Greedy P0 = {v0, v3, v5, v6} = 19, P1 = 18.5, 4 moves
check ex1_greedy "$EX1" greedy 01101001 "4 19"
# RefineLB: v0 -> P1, 18 / 19.5, 1 move; RefineA agrees
check ex1_refine_classic "$EX1" refine-classic 10001111 "1 19.5"
check ex1_refine "$EX1" refine 10001111 "1 19.5"
# GreedyRefine (M = 19): P0 = {v0, v1, v6, v7} = 19, P1 = 18.5, 4 moves
check ex1_greedy_refine "$EX1" greedy-refine 00111100 "4 19"
# Ex 1b: Greedy gives Ex 1's mapping, 4 moves; GreedyRefine and RefineLB move nothing
check ex1b_greedy "$EX1B" greedy 01101001 "4 19"
check ex1b_greedy_refine "$EX1B" greedy-refine 01100110 "0 19"
check ex1b_refine_classic "$EX1B" refine-classic 01100110 "0 19"
check ex1b_refine "$EX1B" refine 01100110 "0 19"
# Ex 3: GreedyComm P0 = {v0} = 5, P1 = {v1, v2, v3} = 9.5, 1 move; Greedy P0 = {v0, v3} = 7,
# P1 = {v1, v2} = 7.5, 2 moves
check ex3_greedy_comm "$EX3" greedy-comm 0111 "1 9.5"
check ex3_greedy "$EX3" greedy 0110 "2 7.5"
# the others on Ex 1: dummy and none keep the mapping, rotate swaps
check ex1_dummy "$EX1" dummy 00001111 "0 27"
check ex1_rotate "$EX1" rotate 11110000 "8 27.5"
# errors
BAD=$(tmpfile); printf 'pe 0 bg 0\nvp 0 load 1 pe 3\n' > "$BAD"
"$PSIM" balance "$BAD" --balancer greedy >/dev/null 2>"$BAD.err"; rc=$?
if [ $rc -eq 2 ] && grep -q ':2:' "$BAD.err"; then echo "ok   bad_pe: $(cat "$BAD.err")"; else echo "FAIL bad_pe: rc $rc"; fails=$((fails + 1)); fi
"$PSIM" balance "$EX1" --balancer nope >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then echo "ok   unknown_balancer"; else echo "FAIL unknown_balancer: rc $rc"; fails=$((fails + 1)); fi
finish $fails
