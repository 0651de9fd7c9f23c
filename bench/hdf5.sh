#!/bin/sh
# Parallel HDF5 (Debian's libhdf5-mpich, precompiled, nobody here wrote it) under psim run: its
# own example ph5example.c (hyperslab datasets written and read back by every rank, independent
# and collective MPI-IO underneath), built with MPICH's mpicc against libhdf5-mpich, run by
# real MPICH (mpiexec.mpich) and by psim run (psim's libmpich.so.12 in place of MPICH's: HDF5's
# MPI and MPI-IO calls land in psim), at each process count asked for. Both must print the
# example's own verdict, "PHDF5 tests finished with no errors", and write files holding the
# same datasets (h5dump; -c keeps the files).
#
#   bench/hdf5.sh            np 2 and 4
#   bench/hdf5.sh 3 8        other process counts
#
# The example comes from Debian bookworm's `hdf5` source package (upstream tarball), fetched
# once as tests/mpich/run_mpich.sh fetches mpich (private apt sources list) into
# $PSIM_HDF5_DIR (default ~/.cache/psim/hdf5). Needs libhdf5-mpich-dev and mpich (installed by
# scripts/deps.sh bench). Exit status: 0 when every run passed, 1 when one failed, 77 when
# the source cannot be obtained.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
: "${PSIM_HDF5_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/hdf5}"
[ $# -gt 0 ] || set -- 2 4
[ -x "$PSIM" ] || { echo "hdf5.sh: build psim first (make)" >&2; exit 1; }
H=/usr/lib/x86_64-linux-gnu/hdf5/mpich
[ -f "$H/include/hdf5.h" ] && command -v mpicc.mpich >/dev/null || "$SRC_ROOT/scripts/deps.sh" bench || exit 1

d=$PSIM_HDF5_DIR
if [ ! -f "$d/ph5example.c" ]; then
  mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" || exit 1
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$d/apt/sources.list"
  O="-o Dir::Etc::SourceList=$d/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists=$d/apt/lists -o Dir::Cache=$d/apt/cache
     -o APT::Sandbox::User=$(id -un) -o Debug::NoLocking=1 -qq"
  echo "hdf5.sh: fetching Debian's hdf5 source package into $d" >&2
  # shellcheck disable=SC2086
  { apt-get $O update >&2 && (cd "$d" && apt-get $O source --download-only hdf5 >&2); }
  tarball=$(ls "$d"/hdf5_*.orig.tar.* 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || { echo "hdf5.sh: cannot obtain the hdf5 source (offline?)" >&2; exit 77; }
  top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
  (cd "$d" && tar xf "$tarball" "$top/examples/ph5example.c" && mv "$top/examples/ph5example.c" . && rm -rf "$top") || exit 1
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/psim-hdf5.XXXXXX")
trap 'rm -rf "$W"' EXIT
mpicc.mpich -O1 -I"$H/include" -o "$W/ph5example" "$d/ph5example.c" -L"$H/lib" -lhdf5 -Wl,-rpath,"$H/lib" ||
  { echo "hdf5.sh: building ph5example.c failed" >&2; exit 1; }
fails=0
for np in "$@"; do
  for how in mpich psim; do
    mkdir -p "$W/$how-$np"
    if [ $how = mpich ]; then
      (cd "$W/$how-$np" && timeout 300 mpiexec.mpich -n "$np" "$W/ph5example" -c > out 2>&1); rc=$?
    else
      (cd "$W/$how-$np" && timeout 300 "$PSIM" run --np "$np" -- "$W/ph5example" -c > out 2>&1); rc=$?
    fi
    if [ $rc -eq 0 ] && grep -q "PHDF5 tests finished with no errors" "$W/$how-$np/out"; then
      t=$(sed -n 's/^simulated time: *//p' "$W/$how-$np/out" | head -n 1)
      echo "ok   np $np $how${t:+ (simulated $t)}"
    else
      echo "FAIL np $np $how: rc $rc"; tail -n 5 "$W/$how-$np/out"; fails=$((fails + 1))
    fi
  done
  for f in "$W/mpich-$np"/*.h5; do
    [ -f "$f" ] || continue
    # the files hold the same datasets; HDF5 stamps no time, but object header layout may
    # depend on allocation order, so compare the datasets' bytes with h5dump when present
    if command -v h5dump >/dev/null; then
      if [ "$(h5dump "$f" | tail -n +2)" = "$(h5dump "$W/psim-$np/$(basename "$f")" 2>&1 | tail -n +2)" ]; then
        echo "ok   np $np $(basename "$f"): same datasets"
      else echo "FAIL np $np $(basename "$f"): datasets differ"; fails=$((fails + 1)); fi
    fi
  done
done
[ $fails -eq 0 ]
