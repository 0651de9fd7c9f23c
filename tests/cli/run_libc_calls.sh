#!/bin/sh
# C library calls of benchmarks under psim run (tests/data/emul/libc_calls.c, built by psimcc and,
# when here, by MPICH's mpicc.mpich through psim's libmpich.so.12):
# - getopt_long: every one of 3 ranks sees its options (-n 5 -q -x --size=7 file); before, the
#   ranks shared the C library's state and only the first to parse saw them (psimcc), and an
#   MPICH-built program read its own, never-written optarg and crashed (NetPIPE's NPmpich2);
# - gettimeofday and clock_gettime read the simulated clock: on flat:2,1Gf,1GBps,10us with the
#   constant model, a round trip of 1 MB and 1 byte takes (20 us + 1e6 B / 1 GB/s) + (20 us +
#   1 B / 1 GB/s) = 0.001040 s by both gettimeofday and MPI_Wtime, and sleep(2) 2.000000 s by
#   clock_gettime (before: the simulator's own wall time, microseconds);
# - Debian's precompiled NetPIPE (NPmpich2, netpipe-mpich2), when installed: every size it
#   reports takes 20 us + size / 1 GB/s one way (with NetPIPE's own synchronisation message
#   spread over its repetitions), to its 2 printed decimals; before, it crashed in its option
#   parsing, and then reported the simulator's speed (0.4 us per message);
# - rand, random, lrand48 (tests/data/emul/rand_ranks.c, psimcc, mpicc.mpich and mpicc.openmpi
#   builds): each rank draws what a process of its own draws (rt_rand.c);
# - atexit handlers (tests/data/emul/atexit_ranks.c, the same three builds) are each rank's,
#   run when it ends, inside the simulation (emu_sched.c, emu_rank_atexit);
# - the CPU-time clocks (tests/data/emul/cpu_clocks.c, the same three builds) tell the rank's
#   own CPU time (emu_rank_cpu);
# - OpenMP's teams are each rank's (tests/data/emul/omp_ranks.c, the same three builds, built
#   with -fopenmp; emu_tls.c);
# - the handlers a rank sets for the crash signals are its own, and a crash is still psim's
#   report (tests/data/emul/signal_ranks.c, the same three builds; rt_signal.c).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
P="-q --no-measure --platform flat:2,1Gf,1GBps,10us --network constant"
check() { # binary label
  # shellcheck disable=SC2086
  out=$(cd "$TMPD" && timeout 60 "$PSIM" run --np 3 $P -- "$1" -n 5 -q -x --size=7 file 2> "$TMPD/err"); rc=$?
  [ $rc -eq 0 ] || bad "$2: exit status $rc: $(tail -n 3 "$TMPD/err")"
  for r in 0 1 2; do
    want="rank $r: n 5 q 1 size 7 unknown x rest file"
    echo "$out" | grep -qxF "$want" && echo "ok   $2: $want" || bad "$2: rank $r's options, want '$want' in:
$out"
  done
  for want in "round trip: gettimeofday 0.001040 s, MPI_Wtime 0.001040 s" "sleep(2): clock_gettime 2.000000 s"; do
    echo "$out" | grep -qxF "$want" && echo "ok   $2: $want" || bad "$2: want '$want' in:
$out"
  done
  if [ -s "$TMPD/err" ]; then bad "$2: something on stderr: $(cat "$TMPD/err")"; fi
}
"$PSIMCC" -O1 -o "$TMPD/libc" "$PSIM_TESTDATA/emul/libc_calls.c" || { echo "FAIL: psimcc libc_calls.c"; exit 1; }
check "$TMPD/libc" psimcc
# (MPICH binaries need RTLD_DEEPBIND, which AddressSanitizer refuses: not in the sanitizer pass)
if command -v mpicc.mpich > /dev/null && [ "${PSIM_SANITIZED:-0}" != 1 ]; then
  if mpicc.mpich -O1 -o "$TMPD/libc_mpich" "$PSIM_TESTDATA/emul/libc_calls.c"; then check "$TMPD/libc_mpich" mpicc.mpich
  else bad "mpicc.mpich libc_calls.c"; fi
else
  echo "skip mpicc.mpich build: no mpicc.mpich, or a sanitized psim"
fi
if [ -x /usr/bin/NPmpich2 ] && [ "${PSIM_SANITIZED:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  # (NetPIPE prints its figures on stderr; it writes np.out in the current directory)
  # (SimGrid's collective selection, as the formula below assumes: NPmpich2 is an MPICH
  # binary, which psim run gives MPICH's algorithms by default, run_coll_selector.sh; with
  # MPICH's dissemination barrier NetPIPE's extra synchronisation message no longer falls in
  # the timed interval at some sizes: 4 B in 20.00 us, not 20.007)
  (cd "$TMPD" && timeout 120 "$PSIM" run --np 2 $P --cfg smpi/coll-selector:default -- /usr/bin/NPmpich2 -u 4096 > np.txt 2>&1) ||
    bad "NPmpich2: exit status $?: $(tail -n 3 "$TMPD/np.txt")"
  # lines "  N:   BYTES bytes  REPS times -->  MBPS Mbps in  USEC usec"
  # NetPIPE times REPS round trips and one more one-way message (its synchronisation) and
  # divides by 2 REPS: (20 + b / 1000) (1 + 1 / (2 REPS)) us, printed with 2 decimals (0.005),
  # the figure it divides having been rounded too (0.0002 us seen): 0.006
  res=$(awk '/bytes.*times.*usec/ { n++; b = $2; r = $4; u = $(NF - 1); want = (20 + b / 1000) * (1 + 1 / (2 * r));
              d = u - want; if (d < 0) d = -d; if (d > 0.006) { bad++; if (!first) first = $0 " (want " want ")" } }
             END { printf "%d %d %s", n, bad, first }' "$TMPD/np.txt")
  set -- $res
  [ "${1:-0}" -gt 50 ] && [ "$2" = 0 ] && echo "ok   NPmpich2: $1 sizes, each 20 us + size / 1 GB/s one way" ||
    bad "NPmpich2: $1 sizes, $2 off: $(echo "$res" | cut -d' ' -f3-)"
else
  echo "skip NetPIPE: /usr/bin/NPmpich2 not installed (Debian's netpipe-mpich2), or a sanitized psim"
fi
# a program that rearranges its argv (Yorick's mpy): the run ends well (before: psim freed the
# program's argv pointers at the end, "double free or corruption", exit 134)
"$PSIMCC" -O1 -o "$TMPD/argv" "$PSIM_TESTDATA/emul/argv_shuffle.c" || bad "psimcc argv_shuffle.c"
out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/argv" -a -b 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "3 args: own -b -b" ] && echo "ok   argv rearranged by main: exit 0" ||
  bad "argv rearranged by main: exit status $rc: $out"
# the C library's random numbers: each rank draws what a process of its own draws (rand_ranks.c,
# the ranks drawing in turn; built without MPI, each rank's numbers come from a process of its
# own). Before, the ranks shared one generator: rank 0's second draws were another rank's.
cc -DSERIAL -o "$TMPD/rand_serial" "$PSIM_TESTDATA/emul/rand_ranks.c" || bad "cc -DSERIAL rand_ranks.c"
want=$(for r in 0 1 2; do "$TMPD/rand_serial" $r; done)
# builds NAME: tests/data/emul/NAME.c built by psimcc, and by MPICH's and Open MPI's mpicc when
# they are here (their binaries need RTLD_DEEPBIND, which AddressSanitizer refuses: not in the
# sanitizer pass); the binaries in $BUILDS
builds() { # NAME [compiler flags]
  BUILDS="" n=$1
  shift
  "$PSIMCC" -O1 "$@" -o "$TMPD/$n" "$PSIM_TESTDATA/emul/$n.c" && BUILDS="$TMPD/$n" || bad "psimcc $n.c"
  [ "${PSIM_SANITIZED:-0}" = 1 ] && return
  for mpi in mpich openmpi; do
    command -v mpicc.$mpi > /dev/null || continue
    mpicc.$mpi -O1 "$@" -o "$TMPD/${n}_$mpi" "$PSIM_TESTDATA/emul/$n.c" && BUILDS="$BUILDS $TMPD/${n}_$mpi" || bad "mpicc.$mpi $n.c"
  done
}
builds rand_ranks
for b in $BUILDS; do
  out=$("$PSIM" run --np 3 -q --no-measure -- "$b" 2>&1)
  [ "$out" = "$want" ] && echo "ok   rand, random, lrand48 per rank: $(basename "$b")" ||
    bad "$(basename "$b"): the ranks' random numbers
$out
differ from separate processes'
$want"
done
# getopt's variables read through the GOT (-fPIC: no copy relocation in the program, as
# Debian's ffindex_apply_mpi) are the live ones: before, the program read the C library's
# own optind, which getopt no longer moves (psim's executable keeps the live copy), and took
# "-d" for its first file
for mpi in mpich openmpi; do
  command -v mpicc.$mpi > /dev/null && [ "${PSIM_SANITIZED:-0}" != 1 ] || continue
  mpicc.$mpi -fPIC -O1 -o "$TMPD/getopt_got_$mpi" "$PSIM_TESTDATA/emul/getopt_got.c" || { bad "mpicc.$mpi -fPIC getopt_got.c"; continue; }
  readelf -r "$TMPD/getopt_got_$mpi" | grep -q "GLOB_DAT.*optind" || bad "getopt_got_$mpi: optind is not read through the GOT: not the case tested"
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/getopt_got_$mpi" -d out -i idx data index -- prog 2>&1 | sort)
  [ "$out" = "$(printf 'rank %d: d out i idx rest data index prog\n' 0 1)" ] && echo "ok   getopt through the GOT: $mpi" ||
    bad "getopt_got_$mpi: $out"
done
# exit handlers are each rank's own, run when it ends (atexit_ranks.c): one communicates, one
# calls MPI_Finalize; _exit runs none. Before, they ran once for the process after the
# simulation: "the program called MPI after its simulation had ended"
builds atexit_ranks
for b in $BUILDS; do
  "$PSIM" run --np 3 -q --no-measure -- "$b" > "$TMPD/out" 2>&1; rc=$?
  out=$(sort "$TMPD/out")
  want=$(printf 'rank %d: handler, sum 3\n' 0 1 2)
  [ $rc = 0 ] && [ "$out" = "$want" ] && echo "ok   exit handlers per rank: $(basename "$b")" ||
    bad "$(basename "$b"): exit handlers: exit $rc: $out"
  out=$("$PSIM" run --np 3 -q --no-measure -- "$b" _exit 2>&1 | sort)
  want=$(echo 'psim: warning: rank 1 called _exit(0) without calling MPI_Finalize'; printf 'rank %d: handler, sum %d\n' 0 0 2 2)
  [ "$out" = "$want" ] && echo "ok   _exit runs no exit handler: $(basename "$b")" ||
    bad "$(basename "$b"): _exit: $out"
done
# the CPU-time clocks are each rank's own (cpu_clocks.c: each rank spins (rank + 1) x 20 ms of
# CPU in turn; clock_gettime's CPU clocks, clock and getrusage tell its own). Before, the C
# library's: every rank's CPU time and psim's together
builds cpu_clocks
for b in $BUILDS; do
  out=$("$PSIM" run --np 4 -q -- "$b" 2>&1 | grep -v 'host speed reference' | sort)
  [ "$out" = "$(printf 'rank %d: cpu ok\n' 0 1 2 3)" ] && echo "ok   CPU-time clocks per rank: $(basename "$b")" ||
    bad "$(basename "$b"): CPU-time clocks: $out"
done
# OpenMP in the ranks, MPI called by the master thread inside a parallel region: each rank's
# regions have their own team (omp_ranks.c). Before, the OpenMP runtime's thread-local state was
# the one thread's: a rank entering its region while another rank's was open got a nested team
# of one thread (cp2k.psmp: "Number of threads has changed from 2 to 1")
builds omp_ranks -fopenmp
for b in $BUILDS; do
  out=$(OMP_NUM_THREADS=3 OMP_WAIT_POLICY=passive "$PSIM" run --np 4 -q --no-measure -- "$b" 2>&1 | sort)
  [ "$out" = "$(printf 'rank %d: 3 threads, teams ok\n' 0 1 2 3)" ] && echo "ok   OpenMP teams per rank: $(basename "$b")" ||
    bad "$(basename "$b"): OpenMP teams: $out"
done
# a rank's handlers for the crash signals are its own view, and psim's report of a crash stays
# (signal_ranks.c: each rank sets one and puts SIG_DFL back, as PETSc's copies do). Before,
# rank 1 read rank 0's handler, and the last SIG_DFL let a crash kill psim silently (exit 139)
builds signal_ranks
for b in $BUILDS; do
  out=$("$PSIM" run --np 3 -q --no-measure -- "$b" 2>&1 | sort)
  [ "$out" = "$(printf 'rank %d: own handlers\n' 0 1 2)" ] && echo "ok   signal handlers per rank: $(basename "$b")" ||
    bad "$(basename "$b"): signal handlers: $out"
  "$PSIM" run --np 3 -q --no-measure -- "$b" crash > "$TMPD/sig.out" 2> "$TMPD/sig.err"
  rc=$?
  [ $rc = 4 ] && grep -q "rank 1 crashed with signal 11" "$TMPD/sig.err" && ! grep -q "handler ran" "$TMPD/sig.out" &&
    echo "ok   a crash after the ranks set handlers is psim's report: $(basename "$b")" ||
    bad "$(basename "$b"): crash with handlers set: exit $rc: $(cat "$TMPD/sig.err" "$TMPD/sig.out")"
done
finish $fails
