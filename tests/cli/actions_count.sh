#!/bin/sh
# What the summary's "actions" counts under each driver (docs/observe.md, "What an action is"):
# psim run one per MPI call and per charged computation, a replay one per trace line; the line
# says which. examples/jacobi.c at 16 ranks, 100 iterations, without measurement (no
# computation is charged, so the counts are exact): 3,200 MPI_Sendrecv + 160 MPI_Allreduce +
# 16 MPI_Reduce + 16 MPI_Init + 16 MPI_Finalize = 3,408 calls; its trace writes each
# MPI_Sendrecv as isend, irecv and two waits, leaving out MPI_PROC_NULL's side (the first and
# last rows: 200 of the 6,400 sides), 3,000 + 3,000 + 6,000 lines + 208 = 12,208. Same date.
. "$(dirname "$0")/../lib/common.sh"
fails=0
PSIMCC="$(dirname "$PSIM")/psimcc"
"$PSIMCC" -O2 -o "$TMPD/jacobi" "$PSIM_SRC/examples/jacobi.c" -lm || { bad "psimcc jacobi.c"; finish $fails; }
"$PSIM" run --np 16 --no-measure --trace-tit "$TMPD/jt" -- "$TMPD/jacobi" 256 100 1e-4 > "$TMPD/run" 2> "$TMPD/run.err" ||
  bad "psim run: exit $?: $(cat "$TMPD/run.err")"
"$PSIM" replay "$TMPD/jt" > "$TMPD/rep" 2> "$TMPD/rep.err" || bad "psim replay: exit $?: $(cat "$TMPD/rep.err")"
grep -q '^actions: 3408 (MPI calls and computations)   messages: 3315 ' "$TMPD/run" &&
  echo "ok   psim run: 3408 actions, MPI calls and computations" || bad "psim run: $(grep '^actions' "$TMPD/run")"
grep -q '^actions: 12208 (trace lines)   messages: 3315 ' "$TMPD/rep" &&
  echo "ok   its replay: 12208 actions, trace lines" || bad "replay: $(grep '^actions' "$TMPD/rep")"
t1=$(grep '^simulated time' "$TMPD/run") t2=$(grep '^simulated time' "$TMPD/rep")
[ -n "$t1" ] && [ "$t1" = "$t2" ] && echo "ok   the same $t1" || bad "run '$t1', replay '$t2'"
finish $fails
