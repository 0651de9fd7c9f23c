#!/bin/sh
# psim run against SMPI (SimGrid 3.32's smpicc and smpirun) on MPI code nobody on the project
# wrote: MPICH 4.0.2's examples and the tests of its test/mpi/pt2pt and test/mpi/coll that
# SimGrid runs (../shared/cases/mpich/smpi-3.32-*.testlist, at the process counts given there),
# each built with smpicc and with psimcc and run by smpirun and by psim run on the same
# platform and hostfile. Prints one line per program and platform:
#   agree                        every rank's MPI_Wtime at MPI_Finalize within a relative 1e-6
#   differs: documented (WHY)    a difference docs/EMULATION.md explains (WHY names it)
#   differs                      an unexplained difference (the times of the first rank off)
#   skip (WHY)                   a side cannot build or run it
# and the counts. Exit status 0 when nothing differs for an unexplained reason.
#
#   bench/diff_smpi_mpich.sh                 every program, small_platform + two clusters
#   bench/diff_smpi_mpich.sh -p small        one platform (small, fattree, dragonfly)
#   bench/diff_smpi_mpich.sh -o 'allred cpi' only these programs
#   bench/diff_smpi_mpich.sh -w DIR          keep the builds in DIR (reused when present)
#
# What is compared: the programs are linked with MPICH's harness (util/mtest.c, adapted as
# tests/mpich/run_mpich.sh does, the same on both sides) and compiled with a header
# (-include) that makes MPI_Finalize print the rank's MPI_Wtime first, with 12 digits (SMPI's
# "Simulated time" has 6). Computation costs nothing on either side
# (--cfg=smpi/simulate-computation:no, --no-measure); both inject SMPI's polling sleeps
# (psim run: --cfg smpi/test:1e-4 --cfg smpi/iprobe:1e-4, SMPI's defaults), and both inject
# smpi/wtime's 10 ns after each MPI_Wtime (both sides' default).
# The source is the one tests/mpich/run_mpich.sh fetches into ~/.cache/psim/mpich.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
: "${PSIM_SHARED:=$SRC_ROOT/../shared}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${PSIM_MPICH_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich}"
TIMEOUT=${PSIM_DIFF_TIMEOUT:-120}
plats="small fattree dragonfly" only="" W=""
while [ $# -gt 0 ]; do
  case "$1" in
    -p) plats=$2; shift 2 ;;
    -o) only=" $2 "; shift 2 ;;
    -w) W=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "diff_smpi_mpich.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 ||
  { echo "diff_smpi_mpich.sh: SimGrid (smpicc, smpirun) is not installed" >&2; exit 1; }
[ -x "$PSIM" ] && [ -x "$PSIMCC" ] || { echo "diff_smpi_mpich.sh: build psim first" >&2; exit 1; }
TARBALL=$(ls "$PSIM_MPICH_DIR"/mpich_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$TARBALL" ] || { echo "diff_smpi_mpich.sh: no mpich source (run tests/mpich/run_mpich.sh once)" >&2; exit 77; }
if [ -z "$W" ]; then W=$(mktemp -d "${TMPDIR:-/tmp}/psim-diff-mpich.XXXXXX"); trap 'rm -rf "$W"' EXIT; fi
mkdir -p "$W"
C=$PSIM_SHARED/cases/simgrid; X=$C/extra
platform() {  # NAME: sets P (platform) and H (hostfile)
  case $1 in
    small) P=$C/small_platform.xml H=$C/hostfile ;;
    fattree) P=$X/platforms/cluster_fat_tree.xml H=$X/hostfiles/cluster_fat_tree ;;
    dragonfly) P=$X/platforms/cluster_dragonfly.xml H=$X/hostfiles/cluster_dragonfly ;;
    *) echo "diff_smpi_mpich.sh: unknown platform $1" >&2; exit 1 ;;
  esac
}

# ---- the source and the harness (built once per compiler) ----
top=$(tar tf "$TARBALL" | head -n 1 | cut -d/ -f1)
if [ ! -d "$W/src" ]; then
  (cd "$W" && tar xf "$TARBALL" --wildcards "$top/examples/*" "$top/test/mpi/util/*" \
    "$top/test/mpi/include/*" "$top/test/mpi/pt2pt/*" "$top/test/mpi/coll/*") && mv "$W/$top" "$W/src" || exit 1
fi
T=$W/src/test/mpi
# the rank's simulated time when it reaches MPI_Finalize, printed before it
cat > "$W/difftime.h" <<'EOF'
#include <mpi.h>
#include <stdio.h>
static inline int difftime_finalize(void) {
  int r;
  double t = MPI_Wtime();
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  printf("DIFFTIME %d %.12e\n", r, t);
  fflush(stdout);
  return MPI_Finalize();
}
#define MPI_Finalize difftime_finalize
EOF
# the harness as tests/mpich/run_mpich.sh adapts it: no inter-communicators (MTestGetIntercomm
# offers none, as SimGrid's copy of mtest.c), the same on both sides
if [ ! -f "$W/mtest.c" ]; then
  # DIFF_WORLD_ONLY=1 in the environment: MTestGetComm offers MPI_COMM_WORLD only (the variant
  # that checks a difference comes from the communicators the harness creates)
  sh "$SRC_ROOT/tests/mpich/mtest_adapt.sh" "$T/util" "$W" \
    's/^\( *\)switch (intraCommIdx) {$/\1switch (intraCommIdx > 0 \&\& getenv("DIFF_WORLD_ONLY") ? -1 : intraCommIdx) {/' || exit 1
fi
# SMPI 3.32 has no MPI_Intercomm_create either (it aborts): its harness makes the "dup of
# WORLD created by MPI_Intercomm_merge" as psim's does (tests/mpich/psim_mtest_shim.h), a split
# of MPI_COMM_WORLD ordered by (high, rank), with a dup of the local half in between
cat > "$W/sg_shim.h" <<'EOF'
#include <mpi.h>
static inline int sg_mtest_icreate(MPI_Comm local, MPI_Comm *inter) { return MPI_Comm_dup(local, inter); }
static inline int sg_mtest_imerge(int high, MPI_Comm *out) {
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return MPI_Comm_split(MPI_COMM_WORLD, 0, high ? n + r : r, out);
}
#define MPI_Intercomm_create(a, b, c, d, e, f) sg_mtest_icreate((a), (f))
#define MPI_Intercomm_merge(a, b, c) sg_mtest_imerge((b), (c))
EOF
CFLAGS="-O1 -w -I$SRC_ROOT/tests/mpich -I$T/include -include $W/difftime.h"
for side in sg ps; do
  [ -f "$W/harness_$side.ok" ] && continue
  if [ $side = sg ]; then cc=smpicc; extra="-include $W/sg_shim.h"; else cc=$PSIMCC; extra=-DPSIM_MTEST_HARNESS; fi
  for f in mtest mtest_common mtest_single; do
    # shellcheck disable=SC2086
    $cc $CFLAGS $extra -c "$W/$f.c" -o "$W/${f}_$side.o" 2> "$W/harness_$side.log" ||
      { echo "diff_smpi_mpich.sh: cannot build util/$f.c with $cc" >&2; cat "$W/harness_$side.log" >&2; exit 1; }
  done
  touch "$W/harness_$side.ok"
done

# ---- the programs: DIR NAME NP [ARGS...] ----
# MPICH's examples that run without a terminal, and the tests SimGrid's lists name
list() {
  echo "examples cpi 4"; echo "examples srtest 4"; echo "examples hellow 4"
  for d in pt2pt coll; do
    grep -v '^[[:space:]]*#' "$PSIM_SHARED/cases/mpich/smpi-3.32-$d.testlist" |
      while read -r name np rest; do
        [ -n "$name" ] || continue
        args=""
        for kv in $rest; do case $kv in arg=*) args="$args ${kv#arg=}" ;; esac; done
        echo "$d $name $np$args"
      done
  done
}
# Documented differences (docs/EMULATION.md, "Against SMPI on MPICH's programs"): the reason
# printed when a program differs. Communicators: psim times MPI_Comm_split like MPICH (an
# allgather), SMPI gathers at rank 0 then sends each member its group; MPI_Comm_dup costs
# nothing in SMPI. A program that takes its communicators from MTestGetComm is rerun with
# DIFF_WORLD_ONLY=1 (MPI_COMM_WORLD only): the reason holds when that variant agrees.
documented() {  # NAME SOURCE
  case $1 in
    alltoallw_zeros) echo "SMPI defect: its alltoallv skips every message when a rank receives 0 elements but sends a positive count of an empty type (Datatype::copy compares counts, not bytes)"; return ;;
    coll12|opminloc|opmaxloc) echo "MPI_DOUBLE_INT and the other pair types are the size of their C struct in SMPI (16 bytes), MPI's sum of the members in psim (12)"; return ;;
    scancel) echo "psim run does not cancel sends (MPI_Cancel of a send fails)"; return ;;
    bsendpending) echo "it busy-waits 2 s on MPI_Wtime: SMPI takes 2e8 reads of 10 ns, psim speeds long waits up (docs/EMULATION.md)"; return ;;
    # its MPI_Comm_split's keys are rand() after srand(time(NULL)): two SMPI runs differ too
    # (107.6, 114.1, 116.3 s at 4 ranks on small_platform)
    allgatherv4) echo "random: the ranks of its communicator are ordered by rand() seeded with the time"; return ;;
  esac
  if grep -qE 'MPI_I(barrier|bcast|reduce|allreduce|alltoall|alltoallv|alltoallw|gather|gatherv|allgather|allgatherv|scatter|scatterv|scan|exscan|reduce_scatter|reduce_scatter_block) *\(' "$2"; then
    echo "non-blocking collectives"; return
  fi
  if grep -qE 'MPI_(Comm_split|Comm_dup|Comm_create|Cart_create|Cart_sub|Comm_split_type|Graph_create|Dist_graph_create)' "$2"; then
    echo "communicators created by the program (MPI_Comm_split/dup timings)"; return
  fi
  echo ""
}

build() {  # DIR NAME SIDE: builds $W/bin/NAME_SIDE once; fails when it cannot
  dir=$1 name=$2 side=$3
  bin=$W/bin/${name}_$side
  [ -e "$bin" ] && return 0
  [ -e "$bin.fail" ] && return 1
  mkdir -p "$W/bin"
  if [ $dir = examples ]; then src=$W/src/examples/$name.c harness=""
  else src=$T/$dir/$name.c harness="$W/mtest_$side.o $W/mtest_common_$side.o $W/mtest_single_$side.o"; fi
  [ $side = sg ] && cc=smpicc || cc=$PSIMCC
  # shellcheck disable=SC2086
  if ! (cd "$(dirname "$src")" && $cc $CFLAGS -o "$bin" "$src" $harness -lm) > "$bin.log" 2>&1; then
    touch "$bin.fail"; return 1
  fi
}

agree=0 documented=0 differs=0 skipped=0
for plat in $plats; do
  platform "$plat"
  list | while read -r dir name np args; do
    case "$only" in ""|*" $name "*) ;; *) continue ;; esac
    what="$dir/$name np=$np${args:+ $args} $plat"
    if ! build "$dir" "$name" sg; then echo "skip ($(grep -m1 -E 'error|undefined' "$W/bin/${name}_sg.log" | cut -c1-80)) $what"; continue; fi
    if ! build "$dir" "$name" ps; then echo "skip (psimcc: $(grep -m1 -E 'error|undefined' "$W/bin/${name}_ps.log" | cut -c1-80)) $what"; continue; fi
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" smpirun -np "$np" -platform "$P" -hostfile "$H" --cfg=smpi/simulate-computation:no \
      --cfg=smpi/display-timing:yes "$W/bin/${name}_sg" $args > "$W/sg.out" 2> "$W/sg.err" < /dev/null
    sgrc=$?
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$PSIM" run --np "$np" --no-measure -q --cfg smpi/test:1e-4 --cfg smpi/iprobe:1e-4 \
      --platform "$P" --hostfile "$H" -- "$W/bin/${name}_ps" $args > "$W/ps.out" 2> "$W/ps.err" < /dev/null
    grep '^DIFFTIME' "$W/sg.out" | sort -k2n > "$W/sg.t"
    grep '^DIFFTIME' "$W/ps.out" | sort -k2n > "$W/ps.t"
    nsg=$(wc -l < "$W/sg.t") nps=$(wc -l < "$W/ps.t")
    if [ "$nsg" -ne "$np" ]; then
      if [ $sgrc -eq 124 ]; then why="timeout after ${TIMEOUT}s"
      else why=$(grep -m1 -E 'CRITICAL|rror|Abort|Segmentation|fail' "$W/sg.err" | cut -c1-100); fi
      echo "skip (SMPI: $why) $what"; continue
    fi
    if [ $dir = examples ]; then src=$W/src/examples/$name.c; else src=$T/$dir/$name.c; fi
    if [ "$nps" -ne "$np" ]; then
      why=$(documented "$name" "$src") fail="psim run failed: $(grep -m1 -v '^$' "$W/ps.err" | cut -c1-100)"
      if [ -n "$why" ]; then echo "differs: documented ($why) $what: $fail"; else echo "differs $what: $fail"; fi
      continue
    fi
    res=$(paste "$W/sg.t" "$W/ps.t" | awk '
      { d = $3 - $6; if (d < 0) d = -d; if (d > 1e-6 * $3 + 1e-12 && !bad) bad = "rank " $2 ": SMPI " $3 ", psim " $6 }
      END { if (bad) print bad }')
    last=$(sort -k3g "$W/ps.t" | tail -n 1 | awk '{ print $3 }')
    if [ -z "$res" ]; then echo "agree $what: $last"; continue; fi
    why=$(documented "$name" "$src")
    if [ -z "$why" ] && grep -q 'MTestGetComm\|MTestGetIntracomm' "$src"; then
      # the harness's communicators: the variant on MPI_COMM_WORLD alone must agree
      # shellcheck disable=SC2086
      DIFF_WORLD_ONLY=1 timeout "$TIMEOUT" smpirun -np "$np" -platform "$P" -hostfile "$H" \
        --cfg=smpi/simulate-computation:no "$W/bin/${name}_sg" $args 2> /dev/null < /dev/null |
        grep '^DIFFTIME' | sort -k2n > "$W/sg.t"
      # shellcheck disable=SC2086
      DIFF_WORLD_ONLY=1 timeout "$TIMEOUT" "$PSIM" run --np "$np" --no-measure -q --cfg smpi/test:1e-4 \
        --cfg smpi/iprobe:1e-4 --platform "$P" --hostfile "$H" -- "$W/bin/${name}_ps" $args 2> /dev/null < /dev/null |
        grep '^DIFFTIME' | sort -k2n > "$W/ps.t"
      res2=$(paste "$W/sg.t" "$W/ps.t" | awk -v np="$np" '
        { n++; d = $3 - $6; if (d < 0) d = -d; if (d > 1e-6 * $3 + 1e-12 && !bad) bad = "rank " $2 ": SMPI " $3 ", psim " $6 }
        END { if (n != np) print "got " n " of " np " ranks"; else if (bad) print bad }')
      if [ -z "$res2" ]; then why="communicators of the harness (MPI_Comm_dup/split): MPI_COMM_WORLD alone agrees"
      else
        case $name/$plat in
          # 0.0642220 s against 0.0641873 on MPI_COMM_WORLD alone at 10 ranks: an exscan loop
          # recorded by psim run (--trace-tit) and replayed with --cfg network/tie-order:simgrid
          # gives SMPI's time to the last digit (psim run has its own order of same-date events)
          exscan/fattree) why="communicators of the harness, and on MPI_COMM_WORLD alone the order of same-date events: psim run has psim's, SMPI SimGrid's" ;;
          *) res="$res; on MPI_COMM_WORLD alone $res2" ;;
        esac
      fi
    fi
    if [ -n "$why" ]; then echo "differs: documented ($why) $what: $res"
    else echo "differs $what: $res"; fi
  done
done | tee "$W/results"
agree=$(grep -c '^agree' "$W/results"); documented=$(grep -c '^differs: documented' "$W/results")
differs=$(grep -c '^differs ' "$W/results"); skipped=$(grep -c '^skip' "$W/results")
echo "agree $agree, differs for a documented reason $documented, differs $differs, skipped $skipped"
[ "$differs" -eq 0 ]
