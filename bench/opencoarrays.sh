#!/bin/sh
# OpenCoarrays' whole precompiled test suite (Debian's libcoarrays-mpich-dev: 92 programs built
# with MPICH's compilers, nobody here wrote them) under psim run, each at NP images (8 for
# those that ask for 8). A test passes when it exits 0 and prints its verdict ("pass", "ok" or
# "success", as OpenCoarrays' own ctest does). Prints one line per test and the count;
# failures keep their output in $OUT/<test>/ (default bench/out/opencoarrays).
#
#   bench/opencoarrays.sh            NP=4
#   NP=3 bench/opencoarrays.sh
#   MPIEXEC=1 bench/opencoarrays.sh  real MPICH (mpiexec.mpich) instead of psim, for comparison
#
# Measured 2026-11-27: 80 of 92 pass under psim run; the 12 others (the 8 failed-image tests,
# which this OpenCoarrays build does not support, issue-488, -493, -515, -552) fail under
# mpiexec.mpich too.
set -u
cd "$(dirname "$0")/.."
PSIM=${PSIM:-$PWD/build/psim}
NP=${NP:-4}
OUT=${BENCH_OUT:-$PWD/bench/out}/opencoarrays
D=/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests
[ -d "$D" ] || scripts/deps.sh test || exit 1
rm -rf "$OUT" && mkdir -p "$OUT"
pass=0 n=0
for t in $(ls "$D"); do
  np=$NP
  case $t in sync_team|team_number) np=8 ;; esac
  mkdir -p "$OUT/$t"
  if [ "${MPIEXEC:-0}" = 1 ]; then
    (cd "$OUT/$t" && timeout 120 mpiexec.mpich -n "$np" "$D/$t" > out 2> err); rc=$?
  else
    (cd "$OUT/$t" && timeout 120 "$PSIM" run --np "$np" -q -- "$D/$t" > out 2> err); rc=$?
  fi
  n=$((n + 1))
  if [ $rc -eq 0 ] && grep -qi 'pass\|ok\|success' "$OUT/$t/out"; then
    pass=$((pass + 1)); echo "pass $t (np $np)"; rm -rf "${OUT:?}/$t"
  else
    echo "FAIL $t (np $np): exit status $rc: $(tail -n 2 "$OUT/$t/out" "$OUT/$t/err" | grep -v '^==>' | tr '\n' ' ' | cut -c1-160)"
  fi
done
echo "OpenCoarrays tests: $pass of $n pass"
