#!/bin/sh
# MPICH's test suite as MPICH runs it (issue 9): its own `configure` with CC=MPICC=psimcc and
# MPIEXEC=tests/mpich/psim-mpiexec, its own util/ and dtpools/ libraries, built unmodified, and
# its own harness (runtests: it builds each test with make and runs it through mpiexec).
#
#   tests/mpich/run_mpich_own.sh                      all directories below
#   tests/mpich/run_mpich_own.sh pt2pt coll           some of them
#   PSIM_MPICH_RECONFIGURE=1 tests/mpich/run_mpich_own.sh   configure again (psim changed)
#   PSIM_MPICH_CC=mpicc.openmpi tests/mpich/run_mpich_own.sh  tests built by a real MPI's mpicc
#                                                     (own-mpicc.openmpi/), run through psim's
#                                                     MPI-ABI library (configure's checks run
#                                                     natively then)
#
# The tests of each directory are those SimGrid 3.32's SMPI runs
# (../shared/cases/mpich/smpi-3.32-<dir>.testlist, lines starting with # left out) for pt2pt,
# coll, comm, group, init, datatype and errhan, and MPICH's own testlist for rma (SimGrid's
# list is not in ../shared) and topo (SimGrid's comments out all but four Cartesian tests,
# "need MPI_Graph*"...: MPICH's runs all 18); a DTPools test counts once per variant MPICH's configure generated (its
# testlist.dtp; at MPICH's process count when MPICH generated none for SimGrid's), and a test
# takes the arguments MPICH's testlist gives it (SimGrid's are those of its own copies). Prints passed/total per directory (runtests' TAP output: "ok" lines), and
# writes the failures to $PSIM_MPICH_DIR/own/failures.txt. The source is the mpich 4.0.2
# tarball tests/mpich/run_mpich.sh fetches into $PSIM_MPICH_DIR (~/.cache/psim/mpich); the
# configured tree is kept in $PSIM_MPICH_DIR/own (configure takes about 12 min on 2 cores: every
# program its checks run is a psim simulation). Exit status: 0 when every directory ran, 77
# without the source, 1 otherwise.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mpich_harness.sh"
SRC_ROOT=$(cd "$HERE/../.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${PSIM_MPICH_CC:=$PSIMCC}"
: "${PSIM_SHARED:=$SRC_ROOT/../shared}"
: "${PSIM_MPICH_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich}"
# 300 s: a 16-rank test takes over 120 s of wall time when the 2-core machine is loaded
: "${MPITEST_TIMEOUT:=300}"
# keep each built test: runtests would otherwise delete it after every run, and rebuild it
# for each of a DTPools test's variants (24 for sendrecv1)
: "${MPITEST_CLEANUP:=0}"
export PSIM MPITEST_TIMEOUT MPITEST_CLEANUP
LISTS=$PSIM_SHARED/cases/mpich
[ $# -gt 0 ] || set -- pt2pt coll comm group init datatype rma errhan topo
# directories run with MPICH's own testlist even where SimGrid's exists
OWN_LISTS=" rma topo "
tarball=$(ls "$PSIM_MPICH_DIR"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "run_mpich_own.sh: no mpich tarball in $PSIM_MPICH_DIR (run tests/mpich/run_mpich.sh once)" >&2; exit 77; }
O=$PSIM_MPICH_DIR/own
[ "$PSIM_MPICH_CC" = "$PSIMCC" ] || O=$PSIM_MPICH_DIR/own-$(basename "$PSIM_MPICH_CC")
T=$O/test/mpi
# $O/configured is written once configure has succeeded: a configure stopped half way (it
# writes runtests before libtool) is done again rather than taken for a configured tree
if [ ! -f "$O/configured" ] || [ -n "${PSIM_MPICH_RECONFIGURE:-}" ]; then
  mpich_extract "$tarball" "$O" || exit 1
  echo "run_mpich_own.sh: configuring MPICH's test suite with $PSIM_MPICH_CC (log: $O/configure.log)" >&2
  # MPICC too: the suite's configure prefers an mpicc found on PATH over CC
  (cd "$T" && ./configure CC="$PSIM_MPICH_CC" MPICC="$PSIM_MPICH_CC" MPIEXEC="$HERE/psim-mpiexec" \
     --disable-fortran --disable-cxx --disable-spawn --disable-romio --disable-ft-tests \
     --enable-threads=single > "$O/configure.log" 2>&1) || { tail -n 20 "$O/configure.log" >&2; exit 1; }
  : > "$O/configured"
fi
(cd "$T" && make -C util > "$O/util.log" 2>&1 && make -C dtpools > "$O/dtpools.log" 2>&1) ||
  { echo "run_mpich_own.sh: building util/ or dtpools/ failed (see $O)" >&2; exit 1; }
: > "$O/failures.txt"
tp=0 tn=0
for dir in "$@"; do
  list=$O/$dir.list
  if [ -f "$LISTS/smpi-3.32-$dir.testlist" ] && [ "${OWN_LISTS#* $dir }" = "$OWN_LISTS" ]; then
    grep -v '^[[:space:]]*#' "$LISTS/smpi-3.32-$dir.testlist" | grep -v '^[[:space:]]*$' > "$list"
  else
    grep -v '^[[:space:]]*#' "$T/$dir/testlist" | grep -v '^[[:space:]]*$' > "$list"
  fi
  # SimGrid's arguments are those of its own copy of a test (allred: "arg=100" where MPICH
  # 4.0.2's allred wants "arg=-count=100"): the k-th line of a name and process count takes
  # the arg= fields of the k-th such line of MPICH's testlist, when it has one
  if [ -f "$T/$dir/testlist" ]; then
    awk 'NR == FNR { if ($0 !~ /^[[:space:]]*#/ && NF >= 2) { k = $1 " " $2; m[k, ++nm[k]] = $0 } next }
         { k = $1 " " $2; i = ++seen[k]
           if (!((k, i) in m)) { print; next }
           n = split(m[k, i], f, /[[:space:]]+/); args = ""
           for (j = 3; j <= n; j++) if (f[j] ~ /^arg=/) args = args " " f[j]
           line = $1 " " $2
           for (j = 3; j <= NF; j++) if ($j !~ /^arg=/) line = line " " $j
           print line args }' "$T/$dir/testlist" "$list" > "$list.tmp" && mv "$list.tmp" "$list"
  fi
  # tests listed by SimGrid but gone from this mpich: not counted; DTPools tests (SimGrid
  # lists them without arguments) run as MPICH lists them: every variant configure generated
  # in testlist.dtp for that name and process count (type, counts, seed)
  : > "$list.run"
  while read -r name np rest; do
    [ -f "$T/$dir/$name.c" ] || continue
    if [ -f "$T/$dir/testlist.dtp" ] && grep -q "^$name $np " "$T/$dir/testlist.dtp"; then
      grep "^$name $np " "$T/$dir/testlist.dtp" >> "$list.run"
    elif [ -f "$T/$dir/testlist.dtp" ] && grep -q "^$name " "$T/$dir/testlist.dtp"; then
      # SimGrid runs it at a count MPICH generated no variant for (sendrecv1 at 4, MPICH's
      # at 2; without MPICH's arguments it cannot run): MPICH's variants, at MPICH's count
      # (at 4 its 1 MB variants take minutes and GBs each)
      grep "^$name " "$T/$dir/testlist.dtp" >> "$list.run"
    else
      echo "$name $np $rest" >> "$list.run"
    fi
  done < "$list"
  awk '!seen[$0]++' "$list.run" > "$list.tmp" && mv "$list.tmp" "$list.run"
  (cd "$T/$dir" && ../runtests -srcdir=. -tests="$list.run" -mpiexec="$HERE/psim-mpiexec" \
     -tapfile="$O/$dir.tap" > "$O/$dir.log" 2>&1)
  tap_tally "$dir" "$O/$dir.tap" "$O/failures.txt"
done
echo "total: $tp/$tn passed (failures: $O/failures.txt)"
