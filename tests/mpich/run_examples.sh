#!/bin/sh
# MPICH's example programs (examples/*.c of MPICH 4.0.2, 15 programs) under psim run (issue 9):
# each is compiled with psimcc and, when it compiles, run and checked. Prints one line per
# program and the counts. The source is the one tests/mpich/run_mpich.sh fetches (Debian's
# mpich source package, cached in ~/.cache/psim/mpich); PSIM_MPICH_TARBALL names another copy
# of mpich-4.0.2.orig.tar.xz. Exit status: 0 when the counts are the expected ones (7 compile
# and run; the 8 that need dynamic processes or ports fail to compile with psimcc's message
# naming the call; 2 of those, pmandel_spawn and pmandel_spaserv, do not compile with MPICH's
# own mpicc either: they redeclare a variable), 1 otherwise, 77 when the source is not there.
#
#   tests/mpich/run_examples.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/../.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${PSIM_MPICH_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich}"
: "${PSIM_MPICH_TARBALL:=$(ls "$PSIM_MPICH_DIR"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)}"
[ -n "$PSIM_MPICH_TARBALL" ] && [ -f "$PSIM_MPICH_TARBALL" ] || {
  echo "run_examples.sh: no mpich source tarball (run tests/mpich/run_mpich.sh once to fetch it)" >&2; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-mpich-ex.XXXXXX")
trap 'rm -rf "$W"' EXIT
top=$(tar tf "$PSIM_MPICH_TARBALL" | head -n 1 | cut -d/ -f1)
(cd "$W" && tar xf "$PSIM_MPICH_TARBALL" --wildcards "$top/examples/*") || exit 1
E=$W/$top/examples
compiled=0 ran=0 refused=0 broken=0
# what each program needs to run without a terminal or a visualiser (stdin, arguments)
run() {
  p=$1
  case $p in
    cpi|hellow|srtest) "$PSIM" run --np 4 -q -- "$W/$p" ;;
    icpi|ircpi) printf '10000\n0\n' | "$PSIM" run --np 4 -q -- "$W/$p" ;;
    # 400 pieces of work in rounds of np-1 workers: np 5 never hands out an empty piece (with
    # an empty one the workers put to a negative displacement: MPI_ERR_RMA_RANGE)
    pmandel|pmandel_fence) printf -- '-2 -2 2 2 100\n0 0 0 0 0\n' |
      "$PSIM" run --np 5 -q -- "$W/$p" -i -out "$W/$p.ppm" ;;
    *) return 1 ;;
  esac
}
check() {
  case $1 in
    cpi|icpi|ircpi) grep -q "pi is approximately 3.14159265" "$2" ;;
    hellow) [ "$(grep -c 'Hello world from process' "$2")" -eq 4 ] ;;
    srtest) [ "$(grep -c "received 'hello there'" "$2")" -eq 4 ] ;;
    pmandel|pmandel_fence) [ -s "$W/$1.ppm" ] && head -c 2 "$W/$1.ppm" | grep -q P ;;
  esac
}
for f in "$E"/*.c; do
  p=$(basename "$f" .c)
  if ! (cd "$E" && "$PSIMCC" -O1 -o "$W/$p" "$p.c" -lm > "$W/$p.cc" 2>&1); then
    why=$(grep -m 1 -o "'MPI_[A-Za-z_]*' is unavailable: not supported by psim: [^(]*\|‘MPI_[A-Za-z_]*’ is unavailable: not supported by psim: [^(]*" "$W/$p.cc")
    if [ -n "$why" ]; then refused=$((refused + 1)); echo "refused  $p: $why"
    else broken=$((broken + 1)); echo "no build $p: $(grep -m 1 error "$W/$p.cc")"; fi
    continue
  fi
  compiled=$((compiled + 1))
  if run "$p" > "$W/$p.out" 2>&1 && check "$p" "$W/$p.out"; then
    ran=$((ran + 1)); echo "runs     $p"
  else
    echo "FAILS    $p"; tail -n 3 "$W/$p.out"
  fi
done
echo "MPICH examples: $compiled of 15 compile, $ran run correctly; $refused refused with a message naming the call; $broken do not compile for another reason"
[ "$compiled" -eq 7 ] && [ "$ran" -eq 7 ] && [ "$refused" -eq 8 ]
