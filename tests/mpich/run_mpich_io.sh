#!/bin/sh
# MPICH 4.0.2's own MPI-IO tests (test/mpi/io, its testlist's process counts) under psim run:
# each built with psimcc and MPICH's harness (util/mtest*.c through tests/mpich/mtest_adapt.sh,
# as run_mpich.sh does), run with `psim run --np N --no-measure`; a test passes when psim exits
# 0 and it prints " No Errors". The configured suite of run_mpich_own.sh has no io (configured
# --disable-romio), hence this script.
#
#   tests/mpich/run_mpich_io.sh [WORKDIR]    prints one line per test, then passed/total
#
# The source: the cached Debian tarball run_mpich.sh fetches (PSIM_MPICH_TARBALL, default
# ~/.cache/psim/mpich/mpich_4.0.2.orig.tar.xz). SKIP="bigtype i_bigtype" leaves tests out
# (those two move 2 GB: about 40 s each here). Exit status 77 without the tarball.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/../.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
tarball=${PSIM_MPICH_TARBALL:-${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich/mpich_4.0.2.orig.tar.xz}
[ -f "$tarball" ] || { echo "run_mpich_io.sh: no $tarball (tests/mpich/run_mpich.sh fetches it)" >&2; exit 77; }
W=${1:-$(mktemp -d "${TMPDIR:-/tmp}/psim-mpich-io.XXXXXX")}
mkdir -p "$W" && cd "$W" || exit 1
top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
tar xf "$tarball" --wildcards "$top/test/mpi/io/*" "$top/test/mpi/util/*" "$top/test/mpi/include/*" || exit 1
T=$W/$top/test/mpi
CFLAGS="-O1 -w -I$HERE -I$T/include"
sh "$HERE/mtest_adapt.sh" "$T/util" "$W" || exit 1
for f in mtest mtest_common mtest_single; do
  "$PSIMCC" $CFLAGS -DPSIM_MTEST_HARNESS -c "$W/$f.c" -o "$W/$f.o" || { echo "run_mpich_io.sh: cannot build util/$f.c" >&2; exit 1; }
done
pass=0 total=0
grep -v '^#' "$T/io/testlist.in" > "$W/list"
while read -r name np rest; do
  [ -n "$name" ] || continue
  case " ${SKIP:-} " in *" $name "*) echo "$name $np SKIPPED"; continue ;; esac
  total=$((total + 1))
  args=""
  for kv in $rest; do case $kv in arg=*) args="$args ${kv#arg=}" ;; esac; done
  if ! "$PSIMCC" $CFLAGS -o "$W/$name" "$T/io/$name.c" "$W/mtest.o" "$W/mtest_common.o" "$W/mtest_single.o" -lm > "$W/$name.log" 2>&1; then
    echo "$name $np BUILD $(grep -m1 -E 'error|undefined' "$W/$name.log" | cut -c1-120)"; continue
  fi
  # shellcheck disable=SC2086
  timeout 300 "$PSIM" run --np "$np" --no-measure -q -- "./$name" $args > "$W/$name.out" 2>&1 < /dev/null; rc=$?
  if [ $rc -eq 0 ] && grep -q '^ No Errors' "$W/$name.out"; then echo "$name $np PASS"; pass=$((pass + 1))
  else echo "$name $np FAIL (exit $rc) $(grep -m1 -v -e '^ No Errors' -e 'warning' "$W/$name.out" | cut -c1-120)"
  fi
done < "$W/list"
echo "io: $pass/$total passed"
