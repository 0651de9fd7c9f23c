#!/bin/sh
# Unmodified HPC Challenge 1.5.0 under psim run (issue 9): built with psimcc through an HPL
# arch makefile (hpl/Make.psim, written here: CC = LINKER = psimcc, CBLAS from OpenBLAS), run
# at each process count asked for, and checked: hpccoutf.txt must end with Success=1 and HPL
# must pass its residual check. Prints, per process count, the wall time of the simulation,
# the simulated time and the main figures of the run.
#
#   bench/hpcc.sh                 np 4 with N=1000 (the suite's own _hpccinf.txt, P x Q = 2 x 2)
#   bench/hpcc.sh 4 16            each process count in turn (16: P x Q = 4 x 4)
#   HPCC_N=2000 bench/hpcc.sh 4   another HPL matrix size
#   PSIM_RUN_ARGS="--no-measure"  more options for psim run (default: none)
#   bench/hpcc.sh --fetch-only    only fetch the source (bench/validate_mpich.sh)
#
# The source is Debian bookworm's `hpcc` source package (its upstream tarball, unpatched),
# fetched once as tests/mpich/run_mpich.sh fetches mpich (a private apt sources list, no root)
# into $PSIM_HPCC_DIR (default ~/.cache/psim/hpcc); PSIM_HPCC_SRC names an unpacked tree instead.
# Needs libopenblas-dev. Exit status: 0 when every run passed, 1 when one failed, 77 when the
# source cannot be obtained.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${PSIM_HPCC_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/hpcc}"
: "${HPCC_N:=1000}"
: "${PSIM_RUN_ARGS:=}"
[ $# -gt 0 ] || set -- 4
[ -x "$PSIM" ] && [ -x "$PSIMCC" ] || { echo "hpcc.sh: build psim first (make)" >&2; exit 1; }

fetch() {
  d=$PSIM_HPCC_DIR
  mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" || return 1
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$d/apt/sources.list"
  set -- -o Dir::Etc::SourceList="$d/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$d/apt/lists" -o Dir::Cache="$d/apt/cache" \
    -o APT::Sandbox::User="$(id -un)" -o Debug::NoLocking=1 -qq
  echo "hpcc.sh: fetching Debian's hpcc source package into $d" >&2
  apt-get "$@" update >&2 || return 1
  # only the upstream tarball is needed (Debian's patches are not applied): a missing
  # debian.tar is not an error
  (cd "$d" && apt-get "$@" source --download-only hpcc >&2)
  tarball=$(ls "$d"/hpcc_*.orig.tar.* 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || return 1
  top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
  (cd "$d" && tar xf "$tarball") || return 1
  rm -rf "$d/src" && mv "$d/$top" "$d/src"
}
if [ -z "${PSIM_HPCC_SRC:-}" ]; then
  PSIM_HPCC_SRC=$PSIM_HPCC_DIR/src
  if [ ! -f "$PSIM_HPCC_SRC/hpl/Make.top" ]; then
    fetch || { echo "hpcc.sh: cannot obtain the hpcc source (offline?); set PSIM_HPCC_SRC" >&2; exit 77; }
  fi
fi

[ "$1" = --fetch-only ] && exit 0
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-hpcc.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp -r "$PSIM_HPCC_SRC" "$W/hpcc" || exit 1
# The arch makefile, as a user porting HPL to a new machine writes one: only the compiler,
# the linker and the BLAS change (no MPI include or library: psimcc brings its own).
cat > "$W/hpcc/hpl/Make.psim" <<MK
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = \$(arch)
TOPdir       = ../../..
INCdir       = \$(TOPdir)/include
BINdir       = \$(TOPdir)/bin/\$(ARCH)
LIBdir       = \$(TOPdir)/lib/\$(ARCH)
HPLlib       = \$(LIBdir)/libhpl.a
MPinc        =
MPlib        =
LAinc        =
LAlib        = -lopenblas
F2CDEFS      =
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH) \$(LAinc) \$(MPinc)
HPL_LIBS     = \$(HPLlib) \$(LAlib) \$(MPlib) -lm
HPL_OPTS     = -DHPL_CALL_CBLAS
HPL_DEFS     = \$(F2CDEFS) \$(HPL_OPTS) \$(HPL_INCLUDES)
CC           = $PSIMCC
CCNOOPT      = \$(HPL_DEFS)
CCFLAGS      = \$(HPL_DEFS) -O2 -w
LINKER       = $PSIMCC
LINKFLAGS    = \$(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
MK
t0=$(date +%s)
(cd "$W/hpcc" && make arch=psim > "$W/build.log" 2>&1) || { tail -n 30 "$W/build.log" >&2; echo "hpcc.sh: the build failed" >&2; exit 1; }
echo "hpcc.sh: built hpcc with psimcc in $(( $(date +%s) - t0 )) s"

fails=0
for np in "$@"; do
  # the most square P x Q grid
  p=1; i=1
  while [ $((i * i)) -le "$np" ]; do [ $((np % i)) -eq 0 ] && p=$i; i=$((i + 1)); done
  q=$((np / p))
  R=$W/np$np
  mkdir -p "$R"
  sed -e "6s/^[0-9]*/$HPCC_N/" -e "11s/^[0-9]*/$p/" -e "12s/^[0-9]*/$q/" "$W/hpcc/_hpccinf.txt" > "$R/hpccinf.txt"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$R" && "$PSIM" run --np "$np" $PSIM_RUN_ARGS --json "$R/run.json" -- "$W/hpcc/hpcc" > "$R/stdout" 2> "$R/stderr")
  rc=$?
  wall=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
  out=$R/hpccoutf.txt
  sim=$(grep -o '"simulated_time": [0-9.eE+-]*' "$R/run.json" 2>/dev/null | head -n 1 | sed 's/.*: //')
  succ=$(grep '^Success=' "$out" 2>/dev/null | tail -n 1)
  hpl=$(grep -c '^HPL.*PASSED\|PASSED$' "$out" 2>/dev/null)
  echo "np $np (P x Q = $p x $q, N=$HPCC_N): psim exit $rc, $succ, HPL PASSED lines: $hpl, wall ${wall} s, simulated ${sim:-?} s"
  grep -E '^(HPL_Tflops|PTRANS_GBs|MPIRandomAccess_GUPs|MPIFFT_Gflops|StarDGEMM_Gflops|StarSTREAM_Triad|RandomlyOrderedRingLatency_usec|RandomlyOrderedRingBandwidth_GBytes|PingPongLatency|MaxPingPongLatency_usec|MaxPingPongBandwidth_GBytes)=' "$out" 2>/dev/null | sed 's/^/    /'
  if [ $rc -ne 0 ] || [ "$succ" != "Success=1" ] || [ "$hpl" -lt 1 ]; then
    fails=$((fails + 1))
    tail -n 20 "$R/stderr" >&2
    [ -n "${HPCC_KEEP:-}" ] && cp -r "$R" "$HPCC_KEEP"
  fi
done
[ $fails -eq 0 ]
