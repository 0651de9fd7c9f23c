#!/bin/sh
# MPI called outside the simulation. After it, from the exit handlers the program registered
# as it was loaded or its libraries' destructors (psim runs them at its own exit: libgfortran
# flushes there, HDF5 closes its library there and frees communicators; those a rank's main
# registers are the rank's, run_libc_calls.sh): tests/data/emul/after_run.c, built by psimcc and,
# when MPICH's mpicc is here, by mpicc.mpich (through psim's libmpich.so.12):
# - a run that ends well: exit status 0, the handler sees MPI_Initialized and MPI_Finalized
#   answer 1, and its MPI_Comm_free stops the process with psim's message (before: a
#   segmentation fault, exit status 139, inside psim's runtime);
# - a run stopped by an MPI error (rank 1 sends to rank 99): exit status 4 with the error
#   naming the call, the handler runs at exit and stops the same way (before: status 139).
# Before it, from a constructor as the program is loaded (OpenCoarrays' runtime initializes MPI
# so): tests/data/emul/ctor_mpi.c, both builds, 3 ranks:
# - MPI_Init_thread(FUNNELED) in the constructor succeeds, is made at the rank's start: main
#   sees MPI initialized at level FUNNELED and communicates (before: status 139);
# - a constructor that also communicates (MPI_Comm_dup): the mpicc build runs (each rank loads
#   its copy inside the simulation, as psim does when a constructor communicates: the
#   duplicate has 3 ranks); the psimcc build stops: exit status 4 and a message saying what
#   may be called there (before: status 139 for both).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
MSG="psim: the program called MPI after its simulation had ended"
check() { # binary label
  out=$(cd "$TMPD" && timeout 60 "$PSIM" run --np 2 -q -- "$1" 2> "$TMPD/err"); rc=$?
  [ $rc -eq 0 ] || bad "$2, run ends well: exit status $rc, want 0: $(tail -n 3 "$TMPD/err")"
  want="main done
exit handler: initialized 1, finalized 1"
  [ "$out" = "$want" ] || bad "$2, run ends well: stdout '$out', want '$want'"
  grep -qF "$MSG" "$TMPD/err" || bad "$2, run ends well: no message about MPI after the run: $(cat "$TMPD/err")"
  [ $rc -eq 0 ] && [ "$out" = "$want" ] && echo "ok   $2: run ending well, MPI in an exit handler"
  out=$(cd "$TMPD" && timeout 60 "$PSIM" run --np 2 -q -- "$1" fail 2> "$TMPD/err"); rc=$?
  [ $rc -eq 4 ] || bad "$2, failed run: exit status $rc, want 4: $(tail -n 3 "$TMPD/err")"
  grep -q "rank 1: MPI error in MPI_Send" "$TMPD/err" || bad "$2, failed run: the error is not reported: $(cat "$TMPD/err")"
  grep -qF "$MSG" "$TMPD/err" || bad "$2, failed run: no message about MPI after the run"
  [ "$out" = "exit handler: initialized 1, finalized 1" ] || bad "$2, failed run: stdout '$out'"
  [ $rc -eq 4 ] && echo "ok   $2: failed run, MPI in an exit handler"
}
"$PSIMCC" -O1 -o "$TMPD/after" "$PSIM_TESTDATA/emul/after_run.c" || { echo "FAIL: psimcc after_run.c"; exit 1; }
check "$TMPD/after" psimcc
# (MPICH binaries need RTLD_DEEPBIND, which AddressSanitizer refuses: not in the sanitizer pass)
MPICC=$(command -v mpicc.mpich || true)
[ "${PSIM_SANITIZED:-0}" = 1 ] && MPICC=""
if [ -n "$MPICC" ]; then
  "$MPICC" -O1 -o "$TMPD/after_mpich" "$PSIM_TESTDATA/emul/after_run.c" || bad "mpicc.mpich after_run.c"
  [ -x "$TMPD/after_mpich" ] && check "$TMPD/after_mpich" mpicc.mpich
else
  echo "skip mpicc.mpich build: no mpicc.mpich, or a sanitized psim"
fi
ranks3() { for r in 0 1 2; do echo "rank $r: initialized 1, provided 1, query 1, sum 3, dup $1"; done; }
ctor() { # binary label
  out=$(cd "$TMPD" && timeout 60 "$PSIM" run --np 3 -q -- "$1" 2> "$TMPD/err" | sort)
  [ "$out" = "$(ranks3 0)" ] && [ ! -s "$TMPD/err" ] && echo "ok   $2: MPI_Init_thread in a constructor" ||
    bad "$2: MPI_Init_thread in a constructor: '$out' $(cat "$TMPD/err")"
  out=$(cd "$TMPD" && PSIM_TEST_CTOR_DUP=1 timeout 60 "$PSIM" run --np 3 -q -- "$1" 2> "$TMPD/err"); rc=$?
  if [ "$2" = psimcc ]; then
    [ $rc -eq 4 ] && grep -qF "psim: the program called MPI before its simulation started" "$TMPD/err" &&
      echo "ok   $2: a constructor that communicates stops the run" ||
      bad "$2: a constructor that communicates: exit status $rc: $(cat "$TMPD/err")"
  else
    [ $rc -eq 0 ] && [ "$(echo "$out" | sort)" = "$(ranks3 3)" ] &&
      echo "ok   $2: a constructor that communicates, run inside the ranks" ||
      bad "$2: a constructor that communicates: exit status $rc: '$out' $(cat "$TMPD/err")"
  fi
}
"$PSIMCC" -O1 -o "$TMPD/ctor" "$PSIM_TESTDATA/emul/ctor_mpi.c" || { echo "FAIL: psimcc ctor_mpi.c"; exit 1; }
ctor "$TMPD/ctor" psimcc
if [ -n "$MPICC" ]; then
  if "$MPICC" -O1 -o "$TMPD/ctor_mpich" "$PSIM_TESTDATA/emul/ctor_mpi.c"; then ctor "$TMPD/ctor_mpich" mpicc.mpich
  else bad "mpicc.mpich ctor_mpi.c"; fi
fi
finish $fails
