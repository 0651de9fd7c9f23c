#!/bin/sh
# MPICH's own test suite under psim run: the yardstick for psim's MPI subset (issue 4).
#
#   tests/mpich/run_mpich.sh                 fetch, build and run; print passed/total per directory
#   tests/mpich/run_mpich.sh --only LIST     run only the tests named in LIST ("dir name np" lines)
#   tests/mpich/run_mpich.sh --passing OUT   also write the passing tests to OUT (LIST format)
#   tests/mpich/run_mpich.sh --dirs "pt2pt coll"   a subset of the directories
#
# The tests are those SimGrid 3.32's SMPI runs from pt2pt, coll, comm, group and init
# (../shared/cases/mpich/smpi-3.32-<dir>.testlist; lines starting with # are left out), with
# the process counts given there. Each is built with psimcc and linked with MPICH's harness
# (test/mpi/util/mtest.c, mtest_common.c; tests/mpich/mpitestconf.h stands for what MPICH's
# configure would write), then run with `psim run --np N --no-measure`. It passes when psim
# exits with 0 and the program prints " No Errors" (resultTest=TestStatus tests: when the
# exit status is not 0, as MPICH's runtests checks).
#
# PSIM_MPICH_CC=COMPILER builds the harness and the tests with another compiler instead of
# psimcc: a real MPI's mpicc (mpicc.mpich, mpicc.openmpi), whose binaries psim run loads through
# its MPI-ABI libraries (docs/EMULATION.md): the same tests must pass.
#
# The source is Debian bookworm's `mpich` source package (4.0.2), fetched once with
# `apt-get source --download-only` through a private sources list and package lists (the
# system's apt configuration is not touched; no root needed), into $PSIM_MPICH_DIR
# (default ~/.cache/psim/mpich). Set PSIM_MPICH_SRC to an unpacked mpich source tree to use
# that instead. Exit status: 0 when every test ran (pass or fail), 77 when the source cannot
# be obtained (offline), 1 on another error; with --only, 1 when a listed test fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/../.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
: "${PSIM_SHARED:=$SRC_ROOT/../shared}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${PSIM_MPICH_CC:=$PSIMCC}"
LISTS="$PSIM_SHARED/cases/mpich"
: "${PSIM_MPICH_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich}"
TIMEOUT=${PSIM_MPICH_TIMEOUT:-120}
dirs="pt2pt coll comm group init"
only="" passing="" verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift 2 ;;
    --passing) passing=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    -v) verbose=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run_mpich.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[ -x "$PSIM" ] && [ -x "$PSIMCC" ] || { echo "run_mpich.sh: build psim first (make)" >&2; exit 1; }
command -v "$PSIM_MPICH_CC" > /dev/null || { echo "run_mpich.sh: no compiler $PSIM_MPICH_CC" >&2; exit 77; }

# ---- the source ----
fetch() {
  d=$PSIM_MPICH_DIR
  mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" || return 1
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$d/apt/sources.list"
  user=$(id -un)
  set -- -o Dir::Etc::SourceList="$d/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$d/apt/lists" -o Dir::Cache="$d/apt/cache" \
    -o APT::Sandbox::User="$user" -o Debug::NoLocking=1 -qq
  echo "run_mpich.sh: fetching Debian's mpich source package into $d" >&2
  apt-get "$@" update >&2 || return 1
  (cd "$d" && apt-get "$@" source --download-only mpich >&2) || return 1
  tarball=$(ls "$d"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || return 1
  # only what the tests need: the harness and the five directories
  top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
  (cd "$d" && tar xf "$tarball" --wildcards "$top/test/mpi/util/*" "$top/test/mpi/include/*" \
    "$top/test/mpi/pt2pt/*" "$top/test/mpi/coll/*" "$top/test/mpi/comm/*" \
    "$top/test/mpi/group/*" "$top/test/mpi/init/*") || return 1
  rm -rf "$d/src" && mv "$d/$top" "$d/src"
}
if [ -z "${PSIM_MPICH_SRC:-}" ]; then
  PSIM_MPICH_SRC=$PSIM_MPICH_DIR/src
  if [ ! -f "$PSIM_MPICH_SRC/test/mpi/util/mtest.c" ]; then
    fetch || { echo "run_mpich.sh: cannot obtain the mpich source (offline?); set PSIM_MPICH_SRC" >&2; exit 77; }
  fi
fi
T=$PSIM_MPICH_SRC/test/mpi
[ -f "$T/util/mtest.c" ] || { echo "run_mpich.sh: no test/mpi/util/mtest.c under $PSIM_MPICH_SRC" >&2; exit 1; }

# ---- the harness ----
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-mpich.XXXXXX")
trap 'rm -rf "$W"' EXIT
CFLAGS="-O1 -w -I$HERE -I$T/include"
# psimcc's harness gets psim_mtest_shim.h; a real MPI's mpi.h declares everything the harness calls
HARNESS_DEF=""; [ "$PSIM_MPICH_CC" = "$PSIMCC" ] && HARNESS_DEF=-DPSIM_MTEST_HARNESS
# the harness without inter-communicators (psim has none): tests/mpich/mtest_adapt.sh
sh "$HERE/mtest_adapt.sh" "$T/util" "$W" || exit 1
for f in mtest mtest_common mtest_single; do
  "$PSIM_MPICH_CC" $CFLAGS $HARNESS_DEF -c "$W/$f.c" -o "$W/$f.o" ||
    { echo "run_mpich.sh: cannot build util/$f.c" >&2; exit 1; }
done
HARNESS="$W/mtest.o $W/mtest_common.o $W/mtest_single.o"

# ---- the tests ----
results=$W/results
: > "$results"
run_one() {  # dir name np [key=value...]
  dir=$1 name=$2 np=$3; shift 3
  args="" expect=noerrors
  for kv in "$@"; do
    case "$kv" in
      arg=*) args="$args ${kv#arg=}" ;;
      resultTest=TestStatus) expect=status ;;
    esac
  done
  bin=$W/$dir/$name
  if [ ! -f "$T/$dir/$name.c" ]; then   # on SimGrid's list, gone from mpich 4.0.2
    echo "$dir $name $np MISSING" >> "$results"
    return
  fi
  if [ ! -e "$bin" ] && [ ! -e "$bin.fail" ]; then
    mkdir -p "$W/$dir"
    if ! "$PSIM_MPICH_CC" $CFLAGS -o "$bin" "$T/$dir/$name.c" $HARNESS -lm > "$bin.log" 2>&1; then
      touch "$bin.fail"
    fi
  fi
  if [ -e "$bin.fail" ]; then
    why=$(grep -m1 -E "error|undefined" "$bin.log" | sed 's/.*error: //' | cut -c1-110)
    echo "$dir $name $np BUILD $why" >> "$results"
    return
  fi
  out=$W/out
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$PSIM" run --np "$np" --no-measure -q -- "$bin" $args > "$out" 2>&1 < /dev/null
  rc=$?
  if [ $expect = status ]; then
    if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then r=PASS; else r=FAIL; fi
  elif [ $rc -eq 0 ] && grep -q '^ No Errors' "$out"; then r=PASS
  else r=FAIL
  fi
  if [ $r = PASS ]; then echo "$dir $name $np PASS" >> "$results"
  else
    why=$(grep -m1 -v '^ No Errors' "$out" | cut -c1-110)
    [ $rc -eq 124 ] && why="timeout after ${TIMEOUT}s"
    echo "$dir $name $np FAIL (exit $rc) $why" >> "$results"
  fi
  [ $verbose -eq 1 ] && tail -n 1 "$results"
}

for dir in $dirs; do
  list=$LISTS/smpi-3.32-$dir.testlist
  [ -f "$list" ] || { echo "run_mpich.sh: no $list" >&2; exit 1; }
  grep -v '^[[:space:]]*#' "$list" | while read -r name np rest; do
    [ -n "$name" ] || continue
    if [ -n "$only" ] && ! grep -q "^$dir $name $np\$" "$only"; then continue; fi
    # shellcheck disable=SC2086
    run_one "$dir" "$name" "$np" $rest
  done
done

# ---- summary ----
cp "$results" "${PSIM_MPICH_RESULTS:-$PSIM_MPICH_DIR/results.txt}" 2>/dev/null
fails=0
missing=$(grep -c " MISSING$" "$results")
grep -v " MISSING$" "$results" > "$results.run"
for dir in $dirs; do
  p=$(grep -c "^$dir .* PASS$" "$results.run")
  n=$(grep -c "^$dir " "$results.run")
  [ "$n" -gt 0 ] && printf '%-6s %3d/%d passed\n' "$dir:" "$p" "$n"
done
tp=$(grep -c " PASS$" "$results.run"); tn=$(wc -l < "$results.run")
printf 'total: %d/%d passed' "$tp" "$tn"
[ "$missing" -gt 0 ] && printf ' (and %d listed tests are not in this mpich source)' "$missing"
printf '\n'
grep -v " PASS$" "$results" | sed 's/^/  /'
if [ -n "$passing" ]; then grep " PASS$" "$results" | sed 's/ PASS$//' > "$passing"; fi
if [ -n "$only" ] && [ "$tp" -ne "$tn" -o "$missing" -gt 0 ]; then exit 1; fi
exit 0
