#!/bin/sh
# psim run and psimcc on bad programs: a deadlock lists the blocked ranks with their calls and
# source lines (exit 3); a crash names the rank and signal, a stack overflow gives advice, an
# MPI error is fatal with a clear message (exit 4); an MPI call psim lacks fails at link time; a
# rank that never calls MPI again stops the run after --compute-limit (it would hang it), and
# one waiting for a lock another rank holds after run/lock-limit.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
D="$PSIM_TESTDATA/emul"
fails=0
expect() { # expect RC PATTERN command...
  want=$1 pat=$2; shift 2
  "$@" > "$TMPD/out" 2> "$TMPD/err"; rc=$?
  if [ $rc -ne "$want" ] || ! grep -q "$pat" "$TMPD/err"; then
    echo "FAIL: $* (rc $rc, want $want; '$pat' expected in:)"; cat "$TMPD/err"; fails=$((fails + 1))
  fi
}
for p in deadlock crash overflow mpierr exit datemax badvol alias spin_forever after_finalize thread_mpi thread_level; do
  "$PSIMCC" -g -o "$TMPD/$p" "$D/$p.c" || { echo "FAIL: psimcc $p"; exit 1; }
done
expect 3 "rank 1 (host node-1): blocked in MPI_Recv(peer 0, tag 7) at .*deadlock.c:7" "$PSIM" run --np 2 -q -- "$TMPD/deadlock"
expect 3 "2 of 2 ranks cannot finish" "$PSIM" run --np 2 -q -- "$TMPD/deadlock"
expect 4 "rank 1 crashed with signal 11" "$PSIM" run --np 2 -q -- "$TMPD/crash"
expect 4 "rank 0 overflowed its stack of 256 KiB" "$PSIM" run --np 2 -q --stack-size 256K -- "$TMPD/overflow"
expect 4 "stack-size" "$PSIM" run --np 2 -q --stack-size 256K -- "$TMPD/overflow"
expect 4 "simulated time overflows at 1e+308 s" "$PSIM" run --np 2 -q -- "$TMPD/datemax"
# a rank that never calls MPI again (spin_forever.c): stopped after --compute-limit seconds of wall time,
# naming it; a rank computing 1.5 s without MPI under a limit of 3 s runs to its end. The date it
# names is checked under --no-measure: measured, it is the ranks' CPU time up to the barrier, which
# a loaded machine inflates (0.000140 s seen, and the check failed)
expect 4 "rank 0 has run its own code for [0-9]* s (wall time) without calling MPI, since simulated time 0.0000" \
  "$PSIM" run --np 4 -q --no-measure --compute-limit 1 -- "$TMPD/spin_forever"
"$PSIM" run --np 4 -q --compute-limit 3 -- "$TMPD/spin_forever" work > "$TMPD/out" 2>&1 || { echo "FAIL: spin_forever work stopped:"; cat "$TMPD/out"; fails=$((fails + 1)); }
# ranks sharing a library's process-wide lock (lock_shared.c, as mpb-mpi shares Guile's): a rank
# waits in the kernel for the lock the other holds in MPI_Barrier: a deadlock outside MPI, reported
# after run/lock-limit seconds (it hung until --compute-limit's 300 s, then was called a
# computation); brief holds, and a wait while a thread of the rank's computes, are no deadlock.
# The date is checked under --no-measure, as above
cc -shared -fPIC -o "$TMPD/liblockshared.so" "$D/lock_shared_lib.c" -lpthread || { echo "FAIL: cc lock_shared_lib.c"; exit 1; }
"$PSIMCC" -g -o "$TMPD/lock_shared" "$D/lock_shared.c" -L"$TMPD" -Wl,-rpath,"$TMPD" -llockshared -lpthread || { echo "FAIL: psimcc lock_shared.c"; exit 1; }
expect 3 "deadlock outside MPI: rank [01] has waited [0-9]* s (wall time) for a lock in its own code, since simulated time 0.0000" \
  "$PSIM" run --np 2 -q --no-measure --cfg run/lock-limit:1 -- "$TMPD/lock_shared"
for m in brief helper; do
  "$PSIM" run --np 2 -q --cfg run/lock-limit:1 -- "$TMPD/lock_shared" $m > "$TMPD/out" 2>&1 && grep -q '^done' "$TMPD/out" ||
    { echo "FAIL: lock_shared $m:"; cat "$TMPD/out"; fails=$((fails + 1)); }
done
expect 2 "run/lock-limit expects a non-negative number" "$PSIM" run --np 2 --cfg run/lock-limit:x -- "$TMPD/lock_shared"
expect 2 "compute-limit expects seconds" "$PSIM" run --np 2 --compute-limit -1 -- "$TMPD/spin_forever"
for coll in allreduce:MPI_Allreduce allgather:MPI_Allgather gather:MPI_Gather gatherlate:MPI_Gather; do
  expect 4 "MPI error in ${coll#*:}: the send and receive buffers are the same (MPI_ERR_BUFFER)" \
    "$PSIM" run --np 2 -q -- "$TMPD/alias" "${coll%%:*}"
done
"$PSIM" run --np 2 -q -- "$TMPD/alias" inplace > "$TMPD/out" 2>&1 || { echo "FAIL: MPI_IN_PLACE refused:"; cat "$TMPD/out"; fails=$((fails + 1)); }
for coll in reduce_np:MPI_Reduce gather_np:MPI_Gather scatter_np:MPI_Scatter; do
  expect 4 "MPI error in ${coll#*:}: rank 1 passed MPI_IN_PLACE, which only the root (rank 0) may (MPI_ERR_BUFFER)" \
    "$PSIM" run --np 2 -q -- "$TMPD/alias" "${coll%%:*}"
done
for call in sleep:seconds compute:flops; do
  for v in nan inf -inf -1; do
    expect 4 "rank [0-9]*: psim_${call%%:*}($v): expected a finite number of ${call#*:}, 0 or more" \
      timeout 60 "$PSIM" run --np 2 -q -- "$TMPD/badvol" "${call%%:*}" "$v"
  done
done
expect 4 "rank 1: MPI error in MPI_Recv: .*MPI_ERR_TRUNCATE" "$PSIM" run --np 2 -q -- "$TMPD/mpierr"
# exit() from a rank: reported with the rank, status and function, exit 4; exit(0) after
# MPI_Finalize on every rank is success
expect 4 "rank 1 called exit(3) in leave() at simulated time [0-9.]*, before MPI_Finalize" "$PSIM" run --np 3 -q -- "$TMPD/exit" 3
grep -q "rank 1 calls exit(3)" "$TMPD/out" || { echo "FAIL: exit(3): the program's output is lost"; fails=$((fails + 1)); }
"$PSIM" run --np 3 -q -- "$TMPD/exit" 0 > "$TMPD/out" || { echo "FAIL: exit(0) on 3 ranks: rc $?"; fails=$((fails + 1)); }
[ "$(grep -c 'exits 0 after MPI_Finalize' "$TMPD/out")" = 3 ] || { echo "FAIL: exit(0) on 3 ranks:"; cat "$TMPD/out"; fails=$((fails + 1)); }
expect 1 "undefined reference to 'MPI_Register_datarep'" "$PSIMCC" -o "$TMPD/unsup" "$D/unsupported.c"
[ -e "$TMPD/unsup" ] && { echo "FAIL: psimcc left its output"; fails=$((fails + 1)); }
# a truncated program (an interrupted copy or build): the loader would map its segments past
# the end of the file and die of SIGBUS; psim names the file instead (exit 2)
head -c 5000 "$TMPD/deadlock" > "$TMPD/truncated" && chmod +x "$TMPD/truncated"
expect 2 "truncated: a loadable segment ends at byte [0-9]*, but the file has 5000 bytes" "$PSIM" run --np 2 -q -- "$TMPD/truncated"
head -c 100 "$TMPD/deadlock" > "$TMPD/truncated" && expect 2 "is truncated or corrupt: its program headers" "$PSIM" run --np 2 -q -- "$TMPD/truncated"
# a program not built with psimcc
printf 'int main(void) { return 0; }\n' > "$TMPD/plain.c" && cc -o "$TMPD/plain" "$TMPD/plain.c"
expect 2 "build it with psimcc" "$PSIM" run --np 2 -q -- "$TMPD/plain"
cc -no-pie -o "$TMPD/plain-nopie" "$TMPD/plain.c" && expect 2 "build it with psimcc" "$PSIM" run --np 2 -q -- "$TMPD/plain-nopie"
# a local MPI call after MPI_Finalize, from main or from an exit handler (run in the rank):
# exit 4 naming the call (before: it returned success)
expect 4 "rank 0: MPI error in MPI_Comm_free: MPI function called after MPI_Finalize" "$PSIM" run --np 2 -q -- "$TMPD/after_finalize"
expect 4 "rank 0: MPI error in MPI_Comm_free: MPI function called after MPI_Finalize" "$PSIM" run --np 2 -q -- "$TMPD/after_finalize" handler
# calls naming no communicator (before: answered; the program went on)
for a in type:MPI_Type_size op:MPI_Op_free request:MPI_Request_free; do
  expect 4 "rank 0: MPI error in ${a#*:}: MPI function called after MPI_Finalize" "$PSIM" run --np 2 -q -- "$TMPD/after_finalize" "${a%%:*}"
done
# but the info functions may be called then (MPI-4; MPICH's f77/info/infocrenvf does)
out=$("$PSIM" run --np 2 -q -- "$TMPD/after_finalize" info 2>&1)
[ "$out" = "info after MPI_Finalize: ok" ] || { echo "FAIL: info after MPI_Finalize: $out"; fails=$((fails + 1)); }
# MPI called from a thread the program started (MPI_THREAD_MULTIPLE use): exit 4 and a message
# (before: it raced with the ranks' thread on psim's state; MolDS hung)
# naming the call and its caller (DOLFINx's calls come from Debian's PT-Scotch, built to communicate
# from threads of its own)
expect 4 "an MPI function was called from a thread the program started (MPI_Send, called from the program)" "$PSIM" run --np 2 -q -- "$TMPD/thread_mpi"
grep -q "provided FUNNELED" "$TMPD/out" || { echo "FAIL: thread_mpi: MPI_Init_thread(MULTIPLE) did not provide FUNNELED"; fails=$((fails + 1)); }
# --cfg run/thread-level raises what MPI_Init_thread answers, the check staying
expect 4 "an MPI function was called from a thread the program started" "$PSIM" run --np 2 -q --cfg run/thread-level:multiple -- "$TMPD/thread_mpi"
grep -q "provided other" "$TMPD/out" || { echo "FAIL: thread_mpi: run/thread-level:multiple did not raise the level"; fails=$((fails + 1)); }
# a program refused the level it asks for (cp2k: SERIALIZED) and aborting: the error says how to
# give it; given it, it runs (before: no hint, no way)
expect 4 "rank [01] called MPI_Abort with error code 1 at simulated time [0-9.]* (it had asked MPI_Init_thread for MPI_THREAD_SERIALIZED and was given MPI_THREAD_FUNNELED: .*--cfg run/thread-level:serialized gives it what it asks)" \
  "$PSIM" run --np 2 -q -- "$TMPD/thread_level" 2
for c in "serialized 2 SERIALIZED" "multiple 0 SINGLE"; do
  set -- $c
  out=$("$PSIM" run --np 2 -q --cfg run/thread-level:$1 -- "$TMPD/thread_level" $2)
  [ $? -eq 0 ] && [ "$out" = "provided $3, queried $3" ] || { echo "FAIL: thread_level $2 under run/thread-level:$1: '$out'"; fails=$((fails + 1)); }
done
expect 2 "run/thread-level expects single, funneled, serialized or multiple, got 'some'" "$PSIM" run --np 2 --cfg run/thread-level:some -- "$TMPD/thread_level"
# a launcher script (Debian's HYPHYMPI, examl): psim run needs the program it starts, and says
# what the script names (before: "not an ELF shared object: build the program with psimcc")
mkdir -p "$TMPD/bin" && cp "$TMPD/deadlock" "$TMPD/bin/prog"
printf '#!/bin/sh\nDIR=%s\nexec "$DIR/prog" "$@"\n' "$TMPD/bin" > "$TMPD/launcher" && chmod +x "$TMPD/launcher"
expect 2 "launcher: is a script (#!/bin/sh), not a program: .*give psim run the program the script starts (the script names $TMPD/bin)" "$PSIM" run --np 2 -q -- "$TMPD/launcher"
expect 2 "no program given" "$PSIM" run --np 2
expect 2 "cpu-threshold expects seconds, got ''" "$PSIM" run --np 2 --cpu-threshold "" -- "$TMPD/deadlock"
expect 2 "unknown option '--bogus'" "$PSIM" run --np 2 --bogus -- "$TMPD/deadlock"
expect 2 "nosuch: cannot open the program" "$PSIM" run --np 2 -- "$TMPD/nosuch"
# SimGrid's order of ties is for SMPI actors (trace replay), not real programs
expect 2 "network/tie-order:simgrid is for trace replay" "$PSIM" run --np 2 -q --cfg network/tie-order:simgrid -- "$TMPD/deadlock"
finish $fails
