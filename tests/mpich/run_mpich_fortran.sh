#!/bin/sh
# MPICH's own Fortran tests (test/mpi/f77 and test/mpi/f90 of mpich 4.0.2), built unmodified by
# Debian's MPICH compilers (mpif77.mpich, mpifort.mpich) and run by MPICH's harness (runtests)
# under psim run (tests/mpich/psim-mpiexec): what libmpichfort.so.12 over psim's libmpich.so.12
# gives on code nobody here wrote.
#
#   tests/mpich/run_mpich_fortran.sh                  every directory below
#   tests/mpich/run_mpich_fortran.sh f77/pt2pt f90/coll
#   PSIM_MPICH_RECONFIGURE=1 tests/mpich/run_mpich_fortran.sh
#   PSIM_MPICH_MPI=openmpi tests/mpich/run_mpich_fortran.sh   built by Open MPI's compilers
#                                       (mpifort.openmpi...: Open MPI's own Fortran bindings
#                                       over psim's libmpi.so.40), in own-fortran-openmpi/
#
# The suite's configure gets CC=MPICC=mpicc.mpich, not psimcc: several Fortran tests link C
# files of their own (f77/ext/c2f2c.c, f90/attr/fandcattrc.c, f77/datatype/bottomc.c ...) that
# must speak the program's ABI, MPICH's; and so configure's checks run natively (about 1 min).
# Every directory's testlist is MPICH's own; io (MPI-IO) and spawn (dynamic processes) are left
# out, as psim has neither (docs/EMULATION.md, "Calls psim cannot provide"). Prints
# passed/total per directory and writes the failures to $PSIM_MPICH_DIR/own-fortran/failures.txt.
# Needs the mpich tarball tests/mpich/run_mpich.sh fetches into $PSIM_MPICH_DIR
# (~/.cache/psim/mpich). Exit status: 0 when every directory ran, 77 without the tarball or
# MPICH's compilers, 1 otherwise.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mpich_harness.sh"
SRC_ROOT=$(cd "$HERE/../.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
: "${PSIM_MPICH_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich}"
: "${MPITEST_TIMEOUT:=180}"
: "${MPITEST_CLEANUP:=0}"
: "${PSIM_MPICH_MPI:=mpich}"
export PSIM MPITEST_TIMEOUT MPITEST_CLEANUP
M=$PSIM_MPICH_MPI
# Open MPI's compilers do not add what MPICH's add for the tests' calls of one routine with
# arguments of different types; the suite's configure asks for it
[ "$M" = mpich ] || { : "${FFLAGS:=-fallow-argument-mismatch}"; : "${FCFLAGS:=-fallow-argument-mismatch}"; export FFLAGS FCFLAGS; }
[ $# -gt 0 ] || set -- f77/attr f77/coll f77/comm f77/datatype f77/ext f77/info f77/init \
  f77/profile f77/pt2pt f77/rma f77/topo f90/attr f90/coll f90/comm f90/datatype f90/ext \
  f90/f90types f90/info f90/init f90/misc f90/profile f90/pt2pt f90/rma f90/timer f90/topo
for c in mpicc.$M mpif77.$M mpifort.$M; do
  command -v $c > /dev/null || { echo "run_mpich_fortran.sh: $c not found (Debian's libmpich-dev or libopenmpi-dev)" >&2; exit 77; }
done
tarball=$(ls "$PSIM_MPICH_DIR"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "run_mpich_fortran.sh: no mpich tarball in $PSIM_MPICH_DIR (run tests/mpich/run_mpich.sh once)" >&2; exit 77; }
O=$PSIM_MPICH_DIR/own-fortran
[ "$M" = mpich ] || O=$O-$M
T=$O/test/mpi
if [ ! -f "$O/configured" ] || [ -n "${PSIM_MPICH_RECONFIGURE:-}" ]; then
  mpich_extract "$tarball" "$O" || exit 1
  echo "run_mpich_fortran.sh: configuring MPICH's test suite (log: $O/configure.log)" >&2
  (cd "$T" && ./configure CC=mpicc.$M MPICC=mpicc.$M F77=mpif77.$M MPIF77=mpif77.$M \
     FC=mpifort.$M MPIFC=mpifort.$M MPIEXEC="$HERE/psim-mpiexec" --enable-fortran=f77,f90 \
     --disable-cxx --disable-spawn --disable-romio --disable-ft-tests --enable-threads=single \
     > "$O/configure.log" 2>&1) || { tail -n 20 "$O/configure.log" >&2; exit 1; }
  : > "$O/configured"
fi
: > "$O/failures.txt"
tp=0 tn=0
for dir in "$@"; do
  tap=$O/$(echo "$dir" | tr / _).tap
  rm -f "$tap"
  (cd "$T/$dir" && ../../runtests -srcdir=. -tests=testlist -mpiexec="$HERE/psim-mpiexec" \
     -tapfile="$tap" > "$tap.log" 2>&1)
  tap_tally "$dir" "$tap" "$O/failures.txt"
done
echo "total: $tp/$tn passed (failures: $O/failures.txt)"
