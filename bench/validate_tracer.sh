#!/bin/sh
# bench/validate_tracer.sh: libpsimtrace.so against the runs it records. HPCG and CoMD run at
# np=2 under real MPICH on this machine, once untraced and once traced (LD_PRELOAD); psim
# replay of the trace, on the platform `psim calibrate --machine` writes for this machine,
# predicts the traced run's time (MPI_Init to MPI_Finalize, which the tracer prints). Prints
# medians of -r repetitions and the load average before and after: the 10 % agreement is a
# claim about a quiet machine (compute is recorded as wall time outside MPI, so other users'
# load lands in the trace, but it does not land evenly).
#   bench/validate_tracer.sh [-w DIR] [-p PLATFORM] [-r REPS] [-k "hpcg comd"]
# The sources are cloned once into ~/.cache/psim (PSIM_HPCG_SRC, PSIM_COMD_SRC), as
# bench/validate_mpich.sh does; HPCG 16^3 per rank for 2 s, CoMD 24^3 cells x 2 atoms for 100
# steps (-i 2 -j 1 -k 1 -x 24 -y 24 -z 24 -N 100 -n 50). PSIM names the psim binary (default
# build/psim), the library beside it in lib/.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(dirname "$HERE")
: "${PSIM:=$SRC_ROOT/build/psim}"
LIB=$(cd "$(dirname "$PSIM")" && pwd)/lib/libpsimtrace.so
: "${MPICC:=mpicc.mpich}"
: "${MPICXX:=mpicxx.mpich}"
: "${MPIEXEC:=mpiexec.mpich}"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/psim
: "${PSIM_HPCG_SRC:=$CACHE/hpcg/src}"
: "${PSIM_COMD_SRC:=$CACHE/comd/src}"
W= PLATFORM= REPS=3 KINDS="hpcg comd"
while getopts w:p:r:k: o; do
  case $o in
  w) W=$OPTARG ;;
  p) PLATFORM=$OPTARG ;;
  r) REPS=$OPTARG ;;
  k) KINDS=$OPTARG ;;
  *) sed -n '2,13p' "$0" >&2; exit 2 ;;
  esac
done
log() { echo "validate_tracer.sh: $*" >&2; }
[ -f "$LIB" ] || { log "no $LIB (build with Debian's MPICH installed)"; exit 1; }
[ -n "$W" ] || W=$(mktemp -d "${TMPDIR:-/tmp}/validate_tracer.XXXXXX")
mkdir -p "$W" || exit 1
has() { case " $KINDS " in *" $1 "*) return 0 ;; esac; return 1; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD0=$(load)

if [ -z "$PLATFORM" ]; then
  PLATFORM=$W/this.xml
  log "psim calibrate --machine -o $PLATFORM"
  "$PSIM" calibrate --machine --mpiexec "$MPIEXEC" --mpicc "$MPICC" -o "$PLATFORM" > "$W/calibrate.txt" ||
    { log "psim calibrate --machine failed"; exit 1; }
fi

SPEED=$(sed -n 's/.*"smpi\/host-speed" value="\([0-9.e+-]*\)f".*/\1/p' "$PLATFORM" | head -n 1)
[ -n "$SPEED" ] || { log "$PLATFORM: no smpi/host-speed"; exit 1; }

source_of() { # NAME DIR URL
  [ -d "$2" ] && return 0
  git clone -q --depth 1 "$3" "$2" 2> /dev/null || { log "no $1 source: set PSIM_$(echo "$1" | tr a-z A-Z)_SRC"; return 1; }
}
if has hpcg && source_of hpcg "$PSIM_HPCG_SRC" https://github.com/hpcg-benchmark/hpcg.git && [ ! -x "$W/hpcg/bin/xhpcg" ]; then
  log "building HPCG with $MPICXX"
  rm -rf "$W/hpcg" && mkdir -p "$W/hpcg"
  sed "s|^CXX *=.*|CXX = $MPICXX|" "$PSIM_HPCG_SRC/setup/Make.Linux_MPI" > "$PSIM_HPCG_SRC/setup/Make.Vtracer"
  (cd "$W/hpcg" && "$PSIM_HPCG_SRC/configure" Vtracer > /dev/null && make -j2 > "$W/hpcg.log" 2>&1) ||
    { tail -n 20 "$W/hpcg.log" >&2; log "building HPCG failed"; exit 1; }
fi
if has comd && source_of comd "$PSIM_COMD_SRC" https://github.com/ECP-copa/CoMD.git && [ ! -x "$W/comd/bin/CoMD-mpi" ]; then
  log "building CoMD with $MPICC"
  rm -rf "$W/comd" && cp -r "$PSIM_COMD_SRC" "$W/comd" && cp "$W/comd/src-mpi/Makefile.vanilla" "$W/comd/src-mpi/Makefile"
  (cd "$W/comd/src-mpi" && make CC="$MPICC" OPTFLAGS=-O2 > "$W/comd.log" 2>&1) ||
    { tail -n 20 "$W/comd.log" >&2; log "building CoMD failed"; exit 1; }
fi

now() { date +%s.%N; }
# one: KIND I: an untraced run, a traced run and the replay of its trace; appends
# "untraced traced recorded predicted" (seconds) to $W/KIND.res
one() {
  k=$1 i=$2
  R=$W/run.$k.$i
  rm -rf "$R" && mkdir -p "$R/u" "$R/t"
  case $k in
  hpcg) printf 'HPCG benchmark input file\nvalidate_tracer.sh\n16 16 16\n2\n' > "$R/u/hpcg.dat"
        cp "$R/u/hpcg.dat" "$R/t/"; set -- "$W/hpcg/bin/xhpcg" ;;
  comd) set -- "$W/comd/bin/CoMD-mpi" -i 2 -j 1 -k 1 -x 24 -y 24 -z 24 -N 100 -n 50 ;;
  esac
  t0=$(now)
  (cd "$R/u" && "$MPIEXEC" -n 2 "$@" > out 2> err) || { log "$k: the untraced run failed"; return 1; }
  t1=$(now)
  (cd "$R/t" && "$MPIEXEC" -n 2 env LD_PRELOAD="$LIB" PSIMTRACE_DIR="$R/trace" PSIMTRACE_PLATFORM="$PLATFORM" \
    "$@" > out 2> err) || { log "$k: the traced run failed: $(tail -n 3 "$R/t/err")"; return 1; }
  t2=$(now)
  rec=$(sed -n 's/^psimtrace: .*MPI_Init to MPI_Finalize: \([0-9.]*\) s$/\1/p' "$R/t/err")
  # the recorded time less the tracer's own work (its lines), the slowest rank's
  less=$(sed -n 's/^psimtrace: .*the run less it: \([0-9.]*\) s .*/\1/p' "$R/t/err")
  grep '^psimtrace: warning' "$R/t/err" | sed "s/^/$k: /" >&2
  "$PSIM" replay --platform "$PLATFORM" "$R/trace/list" --json "$R/replay.json" > /dev/null 2> "$R/replay.err" ||
    { log "$k: psim replay failed: $(cat "$R/replay.err")"; return 1; }
  pred=$(grep -o '"simulated_time": [-0-9.eE+]*' "$R/replay.json" | head -n 1 | sed 's/.*: //')
  # the slowest rank's computation and sleeps in the trace (seconds): the rest of the
  # recorded time was inside MPI calls, which the replay times with the platform's model
  comp=$(awk -v sp="$SPEED" '$2 == "compute" { c[$1] += $3 / sp } $2 == "sleep" { c[$1] += $3 }
           END { m = 0; for (r in c) if (c[r] > m) m = c[r]; printf "%.6f", m }' "$R"/trace/rank-*.txt)
  echo "$(echo "$t1 - $t0" | bc) $(echo "$t2 - $t1" | bc) $rec $pred $comp ${less:-$rec}" >> "$W/$k.res"
  log "$k run $i: untraced $(echo "$t1 - $t0" | bc) s, traced $(echo "$t2 - $t1" | bc) s (MPI_Init to MPI_Finalize $rec s), predicted $pred s"
}
for k in $KINDS; do rm -f "$W/$k.res"; done
i=1
while [ $i -le "$REPS" ]; do   # the kinds interleaved, so that both see the same load drift
  for k in $KINDS; do one "$k" $i; done
  i=$((i + 1))
done

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "libpsimtrace.so at np=2 under $MPIEXEC on $(hostname), platform $PLATFORM; medians of $REPS runs"
echo "load average (1, 5, 15 min): $LOAD0 before, $(load) after ($(nproc) cores): the 10 % claim needs a quiet machine"
printf '%-6s %13s %11s %13s %12s %14s %8s %16s %8s\n' "" "untraced (s)" "traced (s)" "recorded (s)" "compute (s)" \
  "predicted (s)" "error" "less tracer (s)" "error"
for k in $KINDS; do
  [ -s "$W/$k.res" ] || continue
  u=$(cut -d' ' -f1 "$W/$k.res" | med) t=$(cut -d' ' -f2 "$W/$k.res" | med)
  r=$(cut -d' ' -f3 "$W/$k.res" | med) p=$(cut -d' ' -f4 "$W/$k.res" | med) c=$(cut -d' ' -f5 "$W/$k.res" | med)
  # the error of each run's prediction against its own recording, then their median
  e=$(awk '{ printf "%.4f\n", ($4 - $3) / $3 * 100 }' "$W/$k.res" | med)
  l=$(cut -d' ' -f6 "$W/$k.res" | med)
  el=$(awk '{ printf "%.4f\n", ($4 - $6) / $6 * 100 }' "$W/$k.res" | med)
  printf '%-6s %13.3f %11.3f %13.3f %12.3f %14.3f %7.1f%% %16.3f %7.1f%%\n' "$k" "$u" "$t" "$r" "$c" "$p" "$e" "$l" "$el"
done
echo "untraced/traced: mpiexec's wall time (start-up included); recorded: the traced run's MPI_Init to"
echo "MPI_Finalize, what the trace covers; compute: the slowest rank's compute and sleeps in the trace"
echo "(recorded - compute was inside MPI calls); predicted: psim replay's simulated time; error:"
echo "(predicted - recorded) / recorded, the median of the runs'; less tracer: the recorded time less the"
echo "tracer's own work (formatting and writing its lines, which the untraced program does not do),"
echo "the slowest rank's, and the prediction's error against it"
