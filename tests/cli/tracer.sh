#!/bin/sh
# libpsimtrace.so (src/tracer/, docs/TRACES.md "Tracing a real run"): a C program with a
# known sequence of MPI calls (tests/data/tracer/calls.c) and a Fortran one (calls.f90),
# traced at np=2 under Debian's MPICH: each rank's TIT file holds exactly the expected
# actions (calls.rank*.txt; the one computation, a 50 ms busy loop, as 5e7 flops at
# PSIMTRACE_SPEED=1e9 up to twice that on a loaded machine; the sleeps of the calls TIT
# cannot represent of any length; 100 ms of MPI_Iprobe as the loop's compute and the probes'
# sleep), the warning names those calls, psim replay of the trace takes the time derived from
# its lines, and psim run --trace-tit of the same program writes the same actions. colls.c:
# every TIT collective and the other point-to-point forms, against colls.rank*.txt and psim
# run's recording. Skips (77) without MPICH or the library. TRACER_MPI=openmpi runs all of it
# under Debian's Open MPI with libpsimtrace-ompi.so instead (tests/cli/tracer_ompi.sh), the
# Fortran program through Open MPI's bindings, which call PMPI_ functions.
. "$(dirname "$0")/../lib/common.sh"
fails=0
D=$PSIM_TESTDATA/tracer
if [ "${TRACER_MPI:-mpich}" = openmpi ]; then
  LIB=$(dirname "$PSIM")/lib/libpsimtrace-ompi.so
  MPIEXEC="mpiexec.openmpi --oversubscribe"
  [ "$(id -u)" = 0 ] && MPIEXEC="$MPIEXEC --allow-run-as-root"
  MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi
else
  LIB=$(dirname "$PSIM")/lib/libpsimtrace.so
  MPIEXEC=mpiexec.mpich MPICC=mpicc.mpich MPIFORT=mpifort.mpich
fi
if ! command -v "${MPIEXEC%% *}" > /dev/null || ! command -v $MPICC > /dev/null || [ ! -f "$LIB" ]; then
  echo "skip: needs ${MPIEXEC%% *}, $MPICC and $LIB"
  exit 77
fi

# trace NAME PROG [VAR=VALUE...]: $TMPD/NAME/ (the trace) and $TMPD/NAME.err
trace() {
  n=$1 prog=$2
  shift 2
  # shellcheck disable=SC2086
  timeout 300 $MPIEXEC -n 2 env LD_PRELOAD="$LIB" PSIMTRACE_DIR="$TMPD/$n" "$@" "$prog" \
    > "$TMPD/$n.out" 2> "$TMPD/$n.err" || bad "$n: the traced run failed: $(cat "$TMPD/$n.err")"
}

# compare GOT WANT: the same lines; "compute F" within [F, 2F]; "compute ANY", "sleep ANY" any
compare() {
  awk 'NR == FNR { w[FNR] = $0; nw = FNR; next }
       { split(w[FNR], e, " ")
         if ($2 == "compute" && e[3] == "ANY") ok = $1 == e[1] && e[2] == "compute" && NF == 3 && $3 > 0
         else if ($2 == "compute" && e[2] == "compute") ok = $1 == e[1] && NF == 3 && $3 >= e[3] && $3 <= 2 * e[3]
         else if ($2 == "sleep" && e[3] == "ANY") ok = $1 == e[1] && e[2] == "sleep" && NF == 3 && $3 >= 0
         else ok = $0 == w[FNR]
         if (!ok) { printf "line %d: \"%s\", want \"%s\"\n", FNR, $0, w[FNR]; bad = 1 }
         ng = FNR }
       END { if (ng != nw) { printf "%d lines, want %d\n", ng, nw; bad = 1 }; exit bad }' "$2" "$1"
}

# replay_check NAME: psim replay on two.xml (1 Gf hosts) takes max(c0, c1) + max(s0, s1), c
# the rank's first computation (at 1e9 flop/s) and s the computations and sleeps after it (the
# ranks meet at the allreduce after the first one and at the last barrier), plus the
# messages' few hundred microseconds
replay_check() {
  J=$TMPD/$1.json
  "$PSIM" replay --platform "$D/two.xml" "$TMPD/$1/list" --json "$J" > /dev/null 2> "$TMPD/$1.replay.err" ||
    { bad "$1: psim replay failed: $(cat "$TMPD/$1.replay.err")"; return; }
  want=$(awk '$2 == "compute" && !($1 in c) { c[$1] = $3 / 1e9; next }
              $2 == "compute" { s[$1] += $3 / 1e9 } $2 == "sleep" { s[$1] += $3 }
              END { c0 = c[0] > c[1] ? c[0] : c[1]; s0 = s[0] > s[1] ? s[0] : s[1]; printf "%.9f", c0 + s0 }' \
         "$TMPD/$1/rank-0.txt" "$TMPD/$1/rank-1.txt")
  got=$(json_get "$J" simulated_time)
  if awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g >= w && g <= w + 0.001) }'; then
    echo "ok   $1: psim replay takes $got s ($want s of computation and sleeps)"
  else
    bad "$1: psim replay takes $got s, want $want s + at most 1 ms of messages"
  fi
}

$MPICC -O1 -Wno-stringop-overflow -o "$TMPD/calls" "$D/calls.c" || { bad "$MPICC calls.c"; finish $fails; }
trace c "$TMPD/calls" PSIMTRACE_SPEED=1e9 PSIMTRACE_MIN_COMPUTE=0.02
[ "$(cat "$TMPD/c/list" 2> /dev/null)" = "$(printf 'rank-0.txt\nrank-1.txt')" ] && echo "ok   c: the list names rank-0.txt and rank-1.txt" ||
  bad "c: list: $(cat "$TMPD/c/list")"
for r in 0 1; do
  if compare "$TMPD/c/rank-$r.txt" "$D/calls.rank$r.txt"; then echo "ok   c: rank $r's actions"
  else bad "c: rank $r's actions differ"; fi
done
# the 100 ms of MPI_Iprobe: the loop's computation and the probes' sleep, at least 20 ms each
for r in 0 1; do
  tail -n 4 "$TMPD/c/rank-$r.txt" | awk '$2 == "compute" { c = $3 / 1e9 } $2 == "sleep" { s = $3 }
    END { exit !(c >= 0.02 && s >= 0.02 && c + s >= 0.1 && c + s <= 0.2) }' &&
    echo "ok   c: rank $r's 100 ms of polling as compute and sleep" ||
    bad "c: rank $r's polling: $(tail -n 4 "$TMPD/c/rank-$r.txt" | tr '\n' ' ')"
done
[ "$(grep -c '^psimtrace: warning' "$TMPD/c.err")" = 1 ] &&
  grep -q '^psimtrace: warning: 2 collectives on communicators other than MPI_COMM_WORLD' "$TMPD/c.err" &&
  grep -q '^psimtrace: 2 ranks traced in .* at 1e+09 flop/s; MPI_Init to MPI_Finalize: [0-9.]* s$' "$TMPD/c.err" &&
  echo "ok   c: one warning, for the 2 barriers on a communicator of one rank" ||
  bad "c: warnings: $(cat "$TMPD/c.err")"
# the time the ranks waited for a CPU (Linux's schedstat): printed; with both ranks on one
# core (taskset) one of them waits while the other computes or polls (MPICH polls without
# yielding), so it passes 1 % of the run and the line says to trace on a quiet machine (Open
# MPI, started with --oversubscribe, yields the core when idle: 0.1 %, not checked)
WAITED='^psimtrace: the ranks waited for a CPU (runnable, other processes on their cores) at most [0-9.]* s, [0-9.]* % of the run (rank [01])'
grep -q "$WAITED" "$TMPD/c.err" && echo "ok   c: the time the ranks waited for a CPU" ||
  bad "c: no line of the time waited for a CPU: $(cat "$TMPD/c.err")"
# the tracer's own work (its lines): more than 0, and the run less it is the recorded time less
# at most that much (the slowest rank's difference; the three figures printed to 1e-6 s)
rec=$(sed -n 's/^psimtrace: .*MPI_Init to MPI_Finalize: \([0-9.]*\) s$/\1/p' "$TMPD/c.err")
own=$(sed -n "s/^psimtrace: the tracer's own work (its lines) in that time: at most \([0-9.]*\) s a rank; .*/\1/p" "$TMPD/c.err")
less=$(sed -n 's/^psimtrace: .*the run less it: \([0-9.]*\) s (what a replay predicts)$/\1/p' "$TMPD/c.err")
awk -v r="$rec" -v o="$own" -v l="$less" 'BEGIN { exit !(r != "" && o != "" && l != "" && o > 0 && o < 0.05 &&
    l <= r + 2e-6 && l >= r - o - 3e-6) }' && echo "ok   c: the tracer's own work $own s, the run less it $less s of $rec s" ||
  bad "c: the tracer's own work: '$own', less '$less', recorded '$rec': $(grep "own work" "$TMPD/c.err")"
if command -v taskset > /dev/null && [ "${TRACER_MPI:-mpich}" != openmpi ]; then
  # shellcheck disable=SC2086
  timeout 300 taskset -c 0 $MPIEXEC -n 2 env LD_PRELOAD="$LIB" PSIMTRACE_DIR="$TMPD/core1" PSIMTRACE_SPEED=1e9 \
    "$TMPD/calls" > /dev/null 2> "$TMPD/core1.err" || bad "core1: the traced run failed: $(cat "$TMPD/core1.err")"
  grep -q "$WAITED: the recorded time holds it, a replay does not; trace on a quiet machine\$" "$TMPD/core1.err" &&
    echo "ok   core1: both ranks on one core: $(grep -o 'at most.*run' "$TMPD/core1.err")" ||
    bad "core1: both ranks on one core and no advice: $(grep 'waited' "$TMPD/core1.err")"
fi
replay_check c

# same_as_psim_run NAME PROG: psim run's recorder writes the same actions for the same calls
# (its computations and sleeps are its own: SMPI's costs of MPI_Iprobe, none for a barrier on
# one rank; so is a reduction's comp, the operator's work psim run measures, which a PMPI
# tracer cannot tell from the rest of the call). psim run loads an MPICH (Open MPI) binary
# with RTLD_DEEPBIND, which a sanitized psim cannot.
actions() {   # FILE: its actions but computations and sleeps, reductions' comp as 0
  grep -v ' compute \| sleep ' "$1" |
    sed -e 's/^\([0-9]* \(all\)\{0,1\}reduce [0-9]*\) [0-9.e+-]*/\1 0/' \
        -e 's/^\([0-9]* \(ex\)\{0,1\}scan [0-9]*\) [0-9.e+-]*/\1 0/' \
        -e 's/^\([0-9]* reducescatter.*\) [0-9.e+-]* \([0-9]*\)$/\1 0 \2/'
}
same_as_psim_run() {
  if ldd "$PSIM" 2> /dev/null | grep -q libasan; then
    echo "note: a sanitized psim: psim run's recording of $1 is not compared"
  elif timeout 300 "$PSIM" run --np 2 -q --trace-tit "$TMPD/emu.$1" -- "$2" > /dev/null 2> "$TMPD/emu.$1.err"; then
    for r in 0 1; do
      if actions "$TMPD/emu.$1/rank-$r.txt" > "$TMPD/emu.$1.$r" &&
         actions "$TMPD/$1/rank-$r.txt" | diff "$TMPD/emu.$1.$r" - > "$TMPD/emu.diff"; then
        echo "ok   $1: rank $r's actions are psim run --trace-tit's"
      else
        bad "$1: rank $r: psim run --trace-tit wrote other actions: $(cat "$TMPD/emu.diff")"
      fi
    done
  else
    bad "psim run --trace-tit of $2 failed: $(cat "$TMPD/emu.$1.err")"
  fi
}
same_as_psim_run c "$TMPD/calls"

# every collective TIT has, element sizes 1, 2, 4 and 8, MPI_IN_PLACE, on a duplicate of
# MPI_COMM_WORLD too; MPI_Ssend, ANY_SOURCE and ANY_TAG, MPI_PROC_NULL, Sendrecv_replace,
# Issend, Waitany, Waitsome (colls.rank*.txt, computations and sleeps aside)
$MPICC -O1 -Wno-stringop-overflow -o "$TMPD/colls" "$D/colls.c" || bad "$MPICC colls.c"
trace k "$TMPD/colls" PSIMTRACE_SPEED=1e9
for r in 0 1; do
  if grep -v ' compute \| sleep ' "$TMPD/k/rank-$r.txt" | diff "$D/colls.rank$r.txt" - > "$TMPD/k.diff"; then
    echo "ok   k: rank $r's collectives and point-to-point calls"
  else
    bad "k: rank $r: $(cat "$TMPD/k.diff")"
  fi
done
same_as_psim_run k "$TMPD/colls"
# PSIMTRACE_COMPRESS: the same lines, gzip- or zstd-compressed, which psim replay reads
for z in gzip:gz:zcat zstd:zst:zstdcat; do
  name=${z%%:*} ext=${z#*:} ext=${ext%%:*} cat=${z##*:}
  trace "k$ext" "$TMPD/colls" PSIMTRACE_SPEED=1e9 PSIMTRACE_COMPRESS=$name
  [ "$(cat "$TMPD/k$ext/list")" = "$(printf 'rank-0.txt.%s\nrank-1.txt.%s' "$ext" "$ext")" ] ||
    bad "$name: list: $(cat "$TMPD/k$ext/list")"
  for r in 0 1; do
    $cat "$TMPD/k$ext/rank-$r.txt.$ext" | grep -v ' compute \| sleep ' | diff "$D/colls.rank$r.txt" - > "$TMPD/k.diff" &&
      echo "ok   k, $name: rank $r's actions" || bad "k, $name: rank $r: $(cat "$TMPD/k.diff")"
  done
  "$PSIM" replay --quiet --platform "$D/two.xml" "$TMPD/k$ext" --json "$TMPD/k$ext.json" 2> "$TMPD/k$ext.rerr" ||
    bad "$name: psim replay of the compressed trace: $(cat "$TMPD/k$ext.rerr")"
done

# fortran NAME SOURCE: built by $MPIFORT and traced (the speed from a platform's
# smpi/host-speed; the glue between calls stays below 20 ms), calls.f90's actions
fortran() {
  $MPIFORT -O1 -o "$TMPD/$1.bin" "$D/$2" || bad "$MPIFORT $2"
  trace "$1" "$TMPD/$1.bin" PSIMTRACE_PLATFORM="$D/two.xml" PSIMTRACE_MIN_COMPUTE=0.02
  for r in 0 1; do
    if compare "$TMPD/$1/rank-$r.txt" "$D/fcalls.rank$r.txt"; then echo "ok   $1: $2's rank $r"
    else bad "$1: $2's rank $r differs"; fi
  done
}
if command -v $MPIFORT > /dev/null; then
  fortran f calls.f90
  grep -q '^psimtrace: 2 ranks traced in .* at 1e+09 flop/s' "$TMPD/f.err" && echo "ok   f: the speed of two.xml" ||
    bad "f: $(cat "$TMPD/f.err")"
  replay_check f
  # the same calls through `use mpi_f08`, whose bindings call some PMPI_ functions
  fortran f08 calls_f08.f90
else
  echo "note: no $MPIFORT: the Fortran programs are not traced"
fi
finish $fails
