# Helpers shared by the end-to-end tests (sourced). CTest sets PSIM, PSIM_SRC, PSIM_SHARED,
# PSIM_TESTDATA; running a test by hand works too (from the repository root).
: "${PSIM_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PSIM:=$PSIM_SRC/build/psim}"
: "${PSIM_SHARED:=$PSIM_SRC/../shared}"
: "${PSIM_TESTDATA:=$PSIM_SRC/tests/data}"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/psimtest.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
tmpfile() { mktemp "$TMPD/f.XXXXXX"; }
# json_get FILE KEY: the first top-level numeric value of KEY
json_get() { grep -o "\"$2\": [-0-9.eE+]*" "$1" | head -n 1 | sed 's/.*: //'; }
# close_to GOT WANT TOL: |got - want| <= tol (absolute)
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
# rel_close GOT WANT TOL: |got - want| <= tol * |want|
rel_close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= t * m + 1e-12) }'; }
finish() { if [ "$1" -ne 0 ]; then echo "$1 check(s) failed"; exit 1; fi; echo "all checks passed"; exit 0; }

# bad MSG: records one failed check (scripts keep their count in $fails)
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# allreduce_loop_setup PROP VALUE: builds tests/data/emul/allreduce_loop.c (100 allreduces of
# 8 B) as $TMPD/ar with psimcc, and writes $TMPD/p.xml, a cluster of 4 hosts of 1 Gflop/s
# carrying <prop id="psim/PROP" value="VALUE">, and $TMPD/p0.xml, the same without it.
allreduce_loop_setup() {
  "$(dirname "$PSIM")/psimcc" -O1 -o "$TMPD/ar" "$PSIM_TESTDATA/emul/allreduce_loop.c" || { echo "FAIL: psimcc"; exit 1; }
  cat > "$TMPD/p.xml" <<X
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="10us">
    <prop id="psim/$1" value="$2"/>
  </cluster>
</platform>
X
  sed '/<prop /d' "$TMPD/p.xml" > "$TMPD/p0.xml"
}
# allreduce_loop NAME PLATFORM ARGS...: psim run of $TMPD/ar at np=4 (outputs in $TMPD/NAME.*),
# the loop's simulated time in $t; a failed run or a wrong sum is a failed check
allreduce_loop() {
  name=$1 plat=$2
  shift 2
  "$PSIM" run --np 4 --platform "$plat" "$@" -- "$TMPD/ar" > "$TMPD/$name.all" 2> "$TMPD/$name.err" ||
    bad "$name: rc $?: $(cat "$TMPD/$name.err")"
  grep -q '^allreduce .* sum 10$' "$TMPD/$name.all" || bad "$name: $(grep '^allreduce' "$TMPD/$name.all")"
  t=$(sed -n 's/^allreduce \([0-9.]*\).*/\1/p' "$TMPD/$name.all")
}
# dom FILE.html OUT: the DOM after loading in headless Chromium (its console on OUT.log)
BROWSER=$(command -v chromium || command -v chromium-browser || true)
dom() {
  prof=$(mktemp -d "$TMPD/chrome.XXXXXX")
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --no-first-run --user-data-dir="$prof" --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$2" 2> "$2.log"
}

# fortran_stop_check COMPILER: tests/data/emul/fortran_stop.f90 built by COMPILER (a real MPI's
# mpifort) ends every rank with STOP, libgfortran's exit from a privatized copy of libgfortran:
# the run ends normally with every rank's line; with ERROR STOP 3 on rank 1 before
# MPI_Finalize it stops with exit 4 naming rank 1 and exit(3). Before psim set the copies'
# exit to its own, STOP ended the whole process: "called exit(0) from a library".
# A C program (abi_inplace_main.c, built by C compiler $2) calling a Fortran library
# (abi_inplace_lib.f90, built by $1) that reduces in place: every rank gets the sums, as under
# the real MPI. The library defines its own copy of MPI's COMMON blocks (mpif.h) and must use the
# one the MPI's bindings recognize MPI_IN_PLACE by (before: zeros; MUMPS under PETSc crashed).
fortran_inplace_check() {
  mkdir -p "$TMPD/ip"
  "$1" -shared -fPIC -o "$TMPD/ip/libpsimip.so.1" -Wl,-soname,libpsimip.so.1 "$PSIM_TESTDATA/emul/abi_inplace_lib.f90" &&
    "$2" -o "$TMPD/ip/inplace" "$PSIM_TESTDATA/emul/abi_inplace_main.c" "$TMPD/ip/libpsimip.so.1" -Wl,-rpath,'$ORIGIN' ||
    { bad "$1/$2 abi_inplace"; return; }
  local out
  out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/ip/inplace" 2>&1 | sort)
  [ "$out" = "$(printf 'rank %d: 6 60 4\n' 0 1 2 3)" ] && echo "ok   MPI_IN_PLACE from a Fortran library ($1)" ||
    bad "abi_inplace ($1): $out"
}

fortran_stop_check() {
  "$1" -O1 -o "$TMPD/fstop" "$PSIM_TESTDATA/emul/fortran_stop.f90" || { bad "$1 fortran_stop.f90"; return; }
  local out want="rank 0 total 6
rank 1 total 6
rank 2 total 6
rank 3 total 6"
  out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/fstop" 2> "$TMPD/fstop.err" | sort) ||
    bad "fortran_stop ($1): exit $?: $(cat "$TMPD/fstop.err")"
  [ "$out" = "$want" ] && [ ! -s "$TMPD/fstop.err" ] || bad "fortran_stop ($1): '$out' $(cat "$TMPD/fstop.err")"
  "$PSIM" run --np 4 -q --no-measure -- "$TMPD/fstop" error > /dev/null 2> "$TMPD/fstop.err"
  local rc=$?
  [ $rc = 4 ] && grep -q 'rank 1 called exit(3) at simulated time [0-9.]*, before MPI_Finalize: the run stops' "$TMPD/fstop.err" ||
    bad "fortran_stop error ($1): exit $rc: $(cat "$TMPD/fstop.err")"
}
