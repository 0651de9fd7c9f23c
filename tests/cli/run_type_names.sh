#!/bin/sh
# Fortran's sized types in psim's mpi.h (tests/data/emul/type_names.c): MPI_REAL4 ... MPI_INTEGER8,
# MPI_REAL16, MPI_COMPLEX32, and C++'s MPI_CXX_BOOL, MPI_CXX_*_COMPLEX are types of their own
# with MPICH's names and sizes, MPI_C_COMPLEX
# (= MPI_C_FLOAT_COMPLEX) is named as MPICH names it, MPI_INTEGER16 is MPI_DATATYPE_NULL as in
# MPICH; reductions on them are C's (sums, max, product computed by hand below), and an
# MPI_Allreduce on MPI_REAL8 / MPI_INTEGER4 takes exactly the simulated time of the same one on
# MPI_DOUBLE / MPI_INT. The same lines as real MPICH: tests/cli/run_abi.sh.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/tn" "$PSIM_TESTDATA/emul/type_names.c" || { echo "FAIL: psimcc type_names.c"; exit 1; }
# 3 ranks: d[i] = rank + i/2 summed: 3 + 1.5 i (i = 0, 999); max of rank * 999 = 1998; 1 * 2 * 3
want="names: MPI_REAL4:4 MPI_REAL8:8 MPI_REAL16:16 MPI_COMPLEX8:8 MPI_COMPLEX16:16 MPI_COMPLEX32:32 MPI_INTEGER1:1 MPI_INTEGER2:2 MPI_INTEGER4:4 MPI_INTEGER8:8 MPI_C_COMPLEX:8 MPI_C_COMPLEX:8 MPI_C_DOUBLE_COMPLEX:16 MPI_FLOAT:4 MPI_INT64_T:8 MPI_CXX_BOOL:1 MPI_CXX_FLOAT_COMPLEX:8 MPI_CXX_DOUBLE_COMPLEX:16 MPI_CXX_LONG_DOUBLE_COMPLEX:32
integer16 null 1
sum real8 3 1501.5, max integer4 1998, prod integer8 6"
out=$("$PSIM" run --np 3 -q -- "$TMPD/tn" 2>&1)
[ "$out" = "$want" ] && echo "ok   names, sizes, reductions" || bad "type_names.c: $out"
for net in "" "--network constant"; do
  # shellcheck disable=SC2086
  set -- $("$PSIM" run --np 3 -q --no-measure $net -- "$TMPD/tn" time)
  [ "$2" = "$4" ] && [ "$6" = "$8" ] && [ -n "$2" ] && echo "ok   same times ${net:-smpi}: $2 $6" ||
    bad "sized types change the time (${net:-smpi}): $*"
done
finish $fails
