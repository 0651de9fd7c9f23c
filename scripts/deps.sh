#!/bin/sh
# Installs the Debian packages psim needs, only when they are missing.
#   deps.sh build  -> what building psim needs
#   deps.sh test   -> plus what the test suite needs (cmocka, SimGrid as a reference oracle, valgrind,
#                     PajeNG to read Paje traces, chromium to load the HTML report headless,
#                     OpenBLAS for psim calibrate --kernels, optional when building,
#                     libotf2 to read OTF2 traces, optional when building,
#                     libdw to name precompiled programs' call sites file:line, optional when building,
#                     MPICH for the MPI build of psim sweep and for MPICH binaries under psim run
#                     (with ScaLAPACK: libscalapack-mpich-dev), autoconf to run a configure with psimcc)
#   deps.sh mpi    -> plus MPICH, for the MPI build of psim sweep (make mpi; cmocka: its tests/)
#   deps.sh all    -> everything
set -eu
want="pkg-config libexpat1-dev zlib1g-dev libzstd-dev libjansson-dev"
# cmake and a C compiler, unless some are already there (not necessarily from Debian packages)
command -v cmake >/dev/null 2>&1 || want="$want cmake"
command -v cc >/dev/null 2>&1 || want="$want gcc libc6-dev"
case "${1:-build}" in
  bench) want="$want time bc libsimgrid-dev libhdf5-mpich-dev mpich hdf5-tools" ;;
  mpi) want="$want libcmocka-dev libmpich-dev mpich" ;;
  test|all) want="$want libcmocka-dev libsimgrid-dev python3 valgrind zstd gzip clang pajeng chromium libopenblas-dev libotf2-trace-dev otf2-tools libdw-dev libmpich-dev mpich libscalapack-mpich-dev autoconf netpipe-mpich2 libcoarrays-mpich-dev nwchem-mpich libopenmpi-dev netpipe-openmpi hpcc lammps lammps-examples mumps-test" ;;
esac
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "psim: installing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
