#!/bin/sh
# psim run against real MPICH on this machine (issue 34's validation table): the platform is
# the one `psim calibrate --machine` writes, and nothing else is given to psim run. The same
# sources are built twice, with the real mpicc and with psimcc, run at np=2 under mpiexec and
# under psim run; prints a markdown table (quantity, real, predicted, error, psim's spread).
#
#   bench/validate_mpich.sh                  everything, 5 repeats (~25 min on a quiet 2-core VM)
#   bench/validate_mpich.sh -k "net pack"    only some kinds (net pack pdgemm hpcc hpcg comd)
#   bench/validate_mpich.sh -p this.xml      a platform written earlier instead of calibrating
#   bench/validate_mpich.sh -s -r 3          only MPIRandomAccess's wall times (speed goal)
#
# options: -r N     repeats of every run (default 5): the real figure is the best of them (the
#                   least disturbed: a time's minimum, a rate's maximum), psim's the median,
#                   with the spread (max - min) / median of psim's own runs
#          -n "N.." HPL sizes, in one hpccinf.txt (default "2000 4000")
#          -k KINDS the kinds of rows (default "net pack pdgemm hpcc hpcg comd")
#          -p FILE  the platform (default: psim calibrate --machine, measured first)
#          -w DIR   keep builds and outputs in DIR (builds are reused when present)
#          -a ARGS  more options for every psim run (e.g. "--repeat 3" or "--threads 2")
#          -s       emulation speed only: MPIRandomAccess, real and simulated wall time
#          -h       this help
# What is compared:
#   net     bench/validate_net.c: ping-pong at every power of 2 from 8 B to 16 MiB, ring steps
#           (8 B, 2 MB), MPI_Allreduce and MPI_Alltoall (8 B, 1 MiB), timed with MPI_Wtime
#           (under psim run: simulated time, so the same source prints the prediction);
#   pack    bench/validate_pack.c: PTRANS's exchange, 32 MB each way, strided and contiguous;
#   pdgemm  bench/validate_pdgemm.c: Debian's ScaLAPACK pdgemm, N=2000, NB=64, 1 x 2 grid,
#           against `psim forecast pdgemm` with kernels from `psim calibrate --kernels` and
#           the network of the platform (no simulation);
#   hpcc    HPC Challenge 1.5.0 (Debian's source, as bench/hpcc.sh fetches it, whose arch
#           makefile is used): HPL Gflop/s at each size, PTRANS, MPIFFT, MPIRandomAccess;
#   hpcg    HPCG 3.1 (github.com/hpcg-benchmark/hpcg; PSIM_HPCG_SRC, or cloned into the
#           cache): 16^3 per rank, 2 s, its GFLOP/s rating;
#   comd    CoMD 1.1 (github.com/ECP-copa/CoMD; PSIM_COMD_SRC, or cloned): 24^3 x 2 atoms'
#           cells, 100 steps, its loop time.
# The real MPI is named explicitly (MPICC=mpicc.mpich, MPICXX=mpicxx.mpich,
# MPIEXEC=mpiexec.mpich): Debian's `mpicc` alternative may point at Open MPI. BLAS threads are
# off (OPENBLAS_NUM_THREADS=1) in both, as each rank has one core. Exit status: 0, 1 when a
# build or run failed, 2 bad usage, 77 when MPICH is missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
PSIMCXX="$(dirname "$PSIM")/psimc++"
: "${MPICC:=mpicc.mpich}"
: "${MPICXX:=mpicxx.mpich}"
: "${MPIEXEC:=mpiexec.mpich}"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/psim
: "${PSIM_HPCC_DIR:=$CACHE/hpcc}"
: "${PSIM_HPCC_SRC:=$PSIM_HPCC_DIR/src}"
: "${PSIM_HPCG_SRC:=$CACHE/hpcg/src}"
: "${PSIM_COMD_SRC:=$CACHE/comd/src}"
REPEATS=5
SIZES="2000 4000"
KINDS="net pack pdgemm hpcc hpcg comd"
W=
PLATFORM=
NP=2
SPEED_ONLY=
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
RUN_ARGS=
while getopts r:n:k:p:w:a:sh o; do
  case $o in
    r) REPEATS=$OPTARG ;;
    n) SIZES=$OPTARG ;;
    k) KINDS=$OPTARG ;;
    p) case $OPTARG in /*) PLATFORM=$OPTARG ;; *) PLATFORM=$PWD/$OPTARG ;; esac ;;   # the runs cd elsewhere
    w) W=$OPTARG ;;
    a) RUN_ARGS=$OPTARG ;;
    s) SPEED_ONLY=1 KINDS=hpcc ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "validate_mpich.sh: unexpected argument '$1' (see -h)" >&2; exit 2; }
case $REPEATS in '' | *[!0-9]* | 0) echo "validate_mpich.sh: -r expects a positive number, got '$REPEATS'" >&2; exit 2 ;; esac
for n in $SIZES; do
  case $n in *[!0-9]* | 0*) echo "validate_mpich.sh: -n expects sizes like \"4000 8000\", got '$n'" >&2; exit 2 ;; esac
done
for k in $KINDS; do
  case $k in net | pack | pdgemm | hpcc | hpcg | comd) ;; *) echo "validate_mpich.sh: -k: unknown kind '$k'" >&2; exit 2 ;; esac
done
[ -n "$SIZES" ] || { echo "validate_mpich.sh: -n expects at least one size" >&2; exit 2; }
[ -x "$PSIM" ] && [ -x "$PSIMCC" ] || { echo "validate_mpich.sh: build psim first (make)" >&2; exit 1; }
command -v "$MPICC" > /dev/null && command -v "$MPIEXEC" > /dev/null ||
  { echo "validate_mpich.sh: needs MPICH ($MPICC, $MPIEXEC: apt-get install mpich libmpich-dev)" >&2; exit 77; }
if [ -z "$W" ]; then
  W=$(mktemp -d "${TMPDIR:-/tmp}/psim-validate.XXXXXX")
  trap 'rm -rf "$W"' EXIT
fi
mkdir -p "$W/res" || exit 1
rm -f "$W"/res/*
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
log() { echo "validate_mpich.sh: $*" >&2; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }
has() { case " $KINDS " in *" $1 "*) return 0 ;; esac; return 1; }
fails=0

# Values of KEY over res/KIND.*: "best" (the least for times, the most for rates), "median",
# "spread" ((max - min) / median); "-" when none. Times are the keys ending in _us, _ms, _s.
stat() { # KIND KEY WHAT
  cat "$W"/res/"$1".* 2> /dev/null | awk -v k="$2" -v w="$3" '$1 == k { v[n++] = $2 }
    END { if (!n) { print "-"; exit }
          for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
          med = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
          if (w == "median") print med
          else if (w == "spread") print (med > 0 ? (v[n - 1] - v[0]) / med : 0)
          else print (k ~ /_(us|ms|s)$/ ? v[0] : v[n - 1]) }'
}
print_load() {
  awk '{ v[n++] = $1 } END { for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    printf "load average (1 min) sampled between runs: min %s, median %s, max %s (%d samples)\n", v[0], v[int(n / 2)], v[n - 1], n }' "$W/res/load"
}
echo "$(loadavg)" >> "$W/res/load"

# Runs CMD... in DIR with a 20-minute limit; meanwhile notes the wall-clock dates at which
# hpccoutf.txt (if any) shows MPIRandomAccess's section begin and end (polled every 0.05 s),
# and with -s stops the run there. Writes DIR/wall (total) and DIR/ra_wall (the section), and
# samples the load average.
timed() { # DIR CMD...
  dir=$1; shift
  t0=$(date +%s.%N)
  (cd "$dir" && exec timeout 1200 "$@" > "$dir/stdout" 2> "$dir/stderr") &
  pid=$!
  rb=; re=
  while kill -0 $pid 2> /dev/null; do
    if [ -z "$re" ] && [ -f "$dir/hpccoutf.txt" ]; then
      if [ -z "$rb" ] && grep -q '^Begin of MPIRandomAccess section' "$dir/hpccoutf.txt"; then rb=$(date +%s.%N); fi
      if [ -n "$rb" ] && grep -q '^End of MPIRandomAccess section' "$dir/hpccoutf.txt"; then
        re=$(date +%s.%N)
        [ -n "$SPEED_ONLY" ] && kill $pid && wait $pid && break
      fi
    fi
    sleep 0.05
  done
  wait $pid
  rc=$?
  [ -n "$SPEED_ONLY" ] && [ -n "$re" ] && rc=0
  echo "$t0 $(date +%s.%N)" | awk '{ printf "%.2f\n", $2 - $1 }' > "$dir/wall"
  [ -n "$rb" ] && [ -n "$re" ] && echo "$rb $re" | awk '{ printf "%.2f\n", $2 - $1 }' > "$dir/ra_wall"
  echo "$(loadavg)" >> "$W/res/load"
  if [ $rc -ne 0 ]; then
    log "failed (exit $rc) in $dir: $*"
    tail -n 15 "$dir/stderr" >&2
    fails=$((fails + 1))
  fi
  return $rc
}

# ---- the platform: this machine as psim calibrate --machine measures it ----
CALIBRATED=
if [ -z "$PLATFORM" ]; then
  PLATFORM=$W/this.xml CALIBRATED=1
  "$PSIM" calibrate --machine --mpiexec "$MPIEXEC" --mpicc "$MPICC" -o "$PLATFORM" --report "$W/calibrate.html" \
    --save-measurements "$W/measurements.txt" > "$W/calibrate.txt" || { log "psim calibrate --machine failed"; exit 1; }
  log "platform: $PLATFORM ($(grep '^worst residual' "$W/calibrate.txt"))"
fi
PSIM_RUN="$PSIM run --np $NP --platform $PLATFORM -q $RUN_ARGS"
[ -z "$RUN_ARGS" ] || log "psim run $RUN_ARGS"

# ---- sources and builds (each once per kind, real and psim) ----
# A public repository's source, cloned once into the cache unless its variable names a tree.
source_of() { # NAME DIR URL
  [ -d "$2" ] && return 0
  log "cloning $3 into $2"
  git clone -q --depth 1 "$3" "$2" 2> /dev/null || { log "no $1 source (offline?): set PSIM_$(echo "$1" | tr a-z A-Z)_SRC"; return 1; }
}
if has hpcc; then
  if [ ! -f "$PSIM_HPCC_SRC/hpl/Make.top" ]; then
    PSIM_HPCC_DIR=$PSIM_HPCC_DIR sh "$HERE/hpcc.sh" --fetch-only > /dev/null
  fi
  [ -f "$PSIM_HPCC_SRC/hpl/Make.top" ] || { log "no hpcc source in $PSIM_HPCC_SRC: run bench/hpcc.sh once"; KINDS=$(echo " $KINDS " | sed 's/ hpcc / /'); }
fi
has hpcg && { source_of hpcg "$PSIM_HPCG_SRC" https://github.com/hpcg-benchmark/hpcg.git || KINDS=$(echo " $KINDS " | sed 's/ hpcg / /'); }
has comd && { source_of comd "$PSIM_COMD_SRC" https://github.com/ECP-copa/CoMD.git || KINDS=$(echo " $KINDS " | sed 's/ comd / /'); }

# The HPL arch makefile is bench/hpcc.sh's heredoc, run with PSIMCC set to the compiler: the
# same file for both builds, by construction.
sed -n '/^cat > "\$W\/hpcc\/hpl\/Make.psim" <<MK$/,/^MK$/p' "$HERE/hpcc.sh" > "$W/mk.sh"
build() { # KIND CC CXX [VAR=VALUE: the environment of HPCG's build]
  d=$W/$1
  mkdir -p "$d"
  if has net; then "$2" -O2 -o "$d/net" "$HERE/validate_net.c" || return 1; fi
  if has pack; then "$2" -O2 -o "$d/pack" "$HERE/validate_pack.c" || return 1; fi
  if has hpcc && [ ! -x "$d/hpcc/hpcc" ]; then
    rm -rf "$d/hpcc" && cp -r "$PSIM_HPCC_SRC" "$d/hpcc" || return 1
    W=$d PSIMCC=$(command -v "$2") sh "$W/mk.sh" || return 1
    (cd "$d/hpcc" && make arch=psim > "$d/hpcc.log" 2>&1) || { tail -n 20 "$d/hpcc.log" >&2; log "building hpcc with $2 failed"; return 1; }
  fi
  if has hpcg && [ ! -x "$d/hpcg/bin/xhpcg" ]; then
    rm -rf "$d/hpcg" && mkdir -p "$d/hpcg" || return 1
    sed "s|^CXX *=.*|CXX = $3|" "$PSIM_HPCG_SRC/setup/Make.Linux_MPI" > "$d/hpcg/Make.V$1"
    cp "$d/hpcg/Make.V$1" "$PSIM_HPCG_SRC/setup/Make.V$1"
    (cd "$d/hpcg" && "$PSIM_HPCG_SRC/configure" "V$1" > /dev/null && env ${4:-} make -j2 > "$d/hpcg.log" 2>&1) ||
      { tail -n 20 "$d/hpcg.log" >&2; log "building hpcg with $3 failed"; return 1; }
    printf 'HPCG benchmark input file\nvalidate_mpich.sh\n16 16 16\n2\n' > "$d/hpcg/bin/hpcg.dat"
  fi
  if has comd && [ ! -x "$d/comd/bin/CoMD-mpi" ]; then
    rm -rf "$d/comd" && cp -r "$PSIM_COMD_SRC" "$d/comd" || return 1
    cp "$d/comd/src-mpi/Makefile.vanilla" "$d/comd/src-mpi/Makefile"
    (cd "$d/comd/src-mpi" && make CC="$2" OPTFLAGS=-O2 > "$d/comd.log" 2>&1) ||
      { tail -n 20 "$d/comd.log" >&2; log "building CoMD with $2 failed"; return 1; }
  fi
}
# psimc++ when the build has it; else psimcc compiling C++ with g++ (PSIMCC_CC)
if [ -x "$PSIMCXX" ]; then set -- "$PSIMCXX"; else set -- "$PSIMCC" PSIMCC_CC=g++; fi
build real "$MPICC" "$MPICXX" || exit 1
build psim "$PSIMCC" "$@" || exit 1
if has pdgemm; then
  "$MPICC" -O2 -o "$W/real/pdgemm" "$HERE/validate_pdgemm.c" -lscalapack-mpich -lopenblas -lm ||
    { log "cannot build validate_pdgemm.c (libscalapack-mpich-dev, libopenblas-dev)"; KINDS=$(echo " $KINDS " | sed 's/ pdgemm / /'); }
fi

# ---- runs: real and simulated interleaved, so both see the same load drift ----
if has hpcc; then
  nsz=$(echo $SIZES | wc -w)
  sed -e "5s/^[0-9]*/$nsz/" -e "6s/^[0-9]* */$SIZES /" -e "11s/^[0-9]*/1/" -e "12s/^[0-9]*/2/" \
    "$PSIM_HPCC_SRC/_hpccinf.txt" > "$W/hpccinf.txt"
fi
# one run of each kind: KIND (real or psim), I, and the command prefix
run_all() { # KIND I PREFIX...
  k=$1; i=$2; shift 2
  out=$W/res/$k.$i
  if has net; then
    R=$W/$k/net.$i; mkdir -p "$R"
    timed "$R" "$@" "$W/$k/net" && cat "$R/stdout" >> "$out"
  fi
  if has pack; then
    R=$W/$k/pack.$i; mkdir -p "$R"
    timed "$R" "$@" "$W/$k/pack" &&
      sed -n 's/^\([a-z]*\): \([0-9.]*\) ms per exchange.*/pack_\1_ms \2/p' "$R/stdout" >> "$out"
  fi
  if has hpcc; then
    R=$W/$k/hpcc.$i; rm -rf "$R" && mkdir -p "$R" && cp "$W/hpccinf.txt" "$R/"
    if timed "$R" "$@" "$W/$k/hpcc/hpcc" && grep -q '^Success=1' "$R/hpccoutf.txt"; then
      # HPCC appends to hpccoutf.txt: psim run --repeat K runs it K times, the last run counts
      awk '/^This is the DARPA\/DOE HPC Challenge Benchmark/ { n = 0 } { l[++n] = $0 } END { for (i = 1; i <= n; i++) print l[i] }' \
        "$R/hpccoutf.txt" > "$R/last.txt"
      awk '/^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.e+-]+$/ { print "hpl_" $2 "_Gflops", $7 }' \
        "$R/last.txt" >> "$out"
      sed -n 's/^\(PTRANS_GBs\|MPIFFT_Gflops\|MPIRandomAccess_GUPs\)=\(.*\)/\1 \2/p' "$R/last.txt" >> "$out"
      echo "hpcc_wall_s $(cat "$R/wall")" >> "$out"
    fi
    [ -f "$R/ra_wall" ] && echo "ra_wall_s $(cat "$R/ra_wall")" >> "$out"
  fi
  if has hpcg; then
    R=$W/$k/hpcg.$i; rm -rf "$R" && mkdir -p "$R" && cp "$W/$k/hpcg/bin/hpcg.dat" "$R/"
    timed "$R" "$@" "$W/$k/hpcg/bin/xhpcg" &&
      sed -n 's/.*GFLOP\/s rating of=\([0-9.e+-]*\).*/hpcg_Gflops \1/p' "$(ls "$R"/HPCG-Benchmark*.txt | tail -n 1)" >> "$out"   # --repeat K: the last run's
  fi
  if has comd; then
    R=$W/$k/comd.$i; mkdir -p "$R"
    timed "$R" "$@" "$W/$k/comd/bin/CoMD-mpi" -i 2 -j 1 -k 1 -x 24 -y 24 -z 24 -N 100 -n 50 &&
      awk '$1 == "loop" && $2 == 1 { print "comd_loop_s", $4; exit }' "$R/stdout" >> "$out"
  fi
  if has pdgemm; then
    R=$W/$k/pdgemm.$i; mkdir -p "$R"
    if [ "$k" = real ]; then
      timed "$R" "$@" "$W/real/pdgemm" 2000 64 1 2 && cat "$R/stdout" >> "$out"
    elif [ "$i" = 1 ]; then   # the forecast measures nothing of the run: once is enough
      # the kernels are measured now (under a second), never reused from an earlier run of the
      # script: the machine's speed moves between hours (HPL 76 then 110 Gflop/s here), and
      # kernels kept from 02:54 made the forecast +21.6 % at 09:00
      "$PSIM" calibrate --kernels --at-once $NP -o "$W/kernels.txt" > "$W/kernels.log" 2>&1 ||
        log "psim calibrate --kernels failed (a build without OpenBLAS?)"
      # --step 32: Debian's ScaLAPACK 2 multiplies in steps of PBLAS's PILAENV (32), not of NB
      "$PSIM" forecast pdgemm --m 2000 --n 2000 --k 2000 --nb 64 --step 32 --procs 2 --grid 1x2 --platform "$PLATFORM" \
        --kernels "$W/kernels.txt" > "$R/stdout" 2> "$R/stderr" &&
        sed -n 's/^best grid: .*: \([0-9.e+-]*\) s$/pdgemm_s \1/p' "$R/stdout" >> "$out"
    fi
  fi
}
i=1
while [ $i -le "$REPEATS" ]; do
  if [ -n "$SPEED_ONLY" ]; then
    for k in real psim; do
      R=$W/$k/ra.$i; rm -rf "$R" && mkdir -p "$R" && cp "$W/hpccinf.txt" "$R/"
      if [ $k = real ]; then timed "$R" "$MPIEXEC" -n $NP "$W/real/hpcc/hpcc"
      # shellcheck disable=SC2086
      else timed "$R" $PSIM_RUN -- "$W/psim/hpcc/hpcc"; fi
      [ -f "$R/ra_wall" ] && echo "ra_wall_s $(cat "$R/ra_wall")" >> "$W/res/$k.$i"
    done
  else
    run_all real $i "$MPIEXEC" -n $NP
    # shellcheck disable=SC2086
    run_all psim $i $PSIM_RUN --
  fi
  log "run $i of $REPEATS done (load $(loadavg))"
  i=$((i + 1))
done

# ---- the table ----
row() { # LABEL KEY
  r=$(stat real "$2" best); p=$(stat psim "$2" median); s=$(stat psim "$2" spread)
  awk -v l="$1" -v r="$r" -v p="$p" -v s="$s" 'BEGIN {
    if (r == "-" || p == "-") { printf "| %s | %s | %s | - | - |\n", l, r, p; exit }
    printf "| %s | %.4g | %.4g | %+.1f %% | %.1f %% |\n", l, r, p, (p - r) / r * 100, s * 100 }'
}
echo "psim run vs MPICH $("$MPIEXEC" --version 2> /dev/null | sed -n 's/^ *Version: *//p' | head -n 1) at np=$NP, $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "real: best of $REPEATS runs; psim: median of $REPEATS runs, spread = (max - min) / median of psim's runs"
echo "platform: $PLATFORM (psim calibrate --machine; nothing else given to psim run)"
# the calibration's figures only when this run made it (with -p, $W/calibrate.txt may be an
# older run's: at 11:56 it printed 06:06's latency beside another platform)
if [ -n "$CALIBRATED" ]; then sed -n -e '/^latency/p' -e '/^worst residual/p' "$W/calibrate.txt"
else echo "(given with -p: its calibration's figures are not this script's to print)"; fi
echo
echo "| quantity | real MPICH | psim run | error | psim spread |"
echo "|---|---|---|---|---|"
if has net; then
  b=8
  while [ $b -le 16777216 ]; do row "ping-pong $b B (us)" "pp_${b}_us"; b=$((b * 2)); done
  row "ring step 8 B (us)" ring_8_us
  row "ring step 2 MB (us)" ring_2000000_us
  row "allreduce 8 B (us)" allreduce_8_us
  row "allreduce 1 MiB (us)" allreduce_1048576_us
  row "alltoall 8 B per pair (us)" alltoall_8_us
  row "alltoall 1 MiB per pair (us)" alltoall_1048576_us
fi
if has pack; then
  row "exchange 32 MB, strided vector (ms)" pack_vector_ms
  row "exchange 32 MB, contiguous (ms)" pack_contiguous_ms
fi
if has pdgemm; then row "pdgemm N=2000 NB=64 1x2 (s) [psim forecast]" pdgemm_s; fi
if has hpcc; then
  for n in $SIZES; do row "HPL N=$n (Gflop/s)" "hpl_${n}_Gflops"; done
  row "PTRANS (GB/s)" PTRANS_GBs
  row "MPIFFT (Gflop/s)" MPIFFT_Gflops
  row "MPIRandomAccess (GUP/s)" MPIRandomAccess_GUPs
fi
if has hpcg; then row "HPCG 16^3 per rank (GFLOP/s)" hpcg_Gflops; fi
if has comd; then row "CoMD 24^3 cells, 100 steps: loop (s)" comd_loop_s; fi
echo
print_load
if has hpcc; then
  echo "hpcc wall time (median): real $(stat real hpcc_wall_s median) s, psim run $(stat psim hpcc_wall_s median) s"
  echo "MPIRandomAccess section wall time (median): real $(stat real ra_wall_s median) s, psim run $(stat psim ra_wall_s median) s"
fi
[ $fails -eq 0 ]
