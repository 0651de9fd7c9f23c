#!/bin/sh
# psim run against real MPICH on this machine (issue 9's validation table): the same sources
# built twice, with the real mpicc and with psimcc, run at np=2 under mpiexec and under psim
# run, on a platform that describes this machine; prints a markdown table (quantity, real,
# predicted, error) of the medians over the repeats, the platform used, the machine's load
# during the runs, and how long MPIRandomAccess takes for real and to simulate.
#
#   bench/validate_mpich.sh                  HPL N=2000 and 4000, 3 repeats (~12 min)
#   bench/validate_mpich.sh -r 5 -n "4000 8000" -w /tmp/val   (the issue's sizes: every HPCC test
#                   grows with the largest N, RandomAccess 4x: well over the 15 min budget)
#
# options: -r N     repeats of every run (default 3; medians are reported)
#          -n "N.." HPL sizes, in one hpccinf.txt (the largest sizes the other HPCC tests)
#          -w DIR   keep builds and outputs in DIR (the builds are reused when present)
#          -s       emulation speed only: HPCC's MPIRandomAccess, real and simulated wall time
#                   (each run is stopped at the end of that section; no table)
#          -h       this help
# What is compared:
#   - bench/validate_net.c: ping-pong latency (8 B) and bandwidth (2 MB) between two ranks, ring
#     latency and bandwidth (MPI_Sendrecv to the right neighbour), timed with MPI_Wtime (under
#     psim run: simulated time, so the same binary prints the prediction);
#   - HPC Challenge 1.5.0 (Debian's source, as bench/hpcc.sh fetches it; the arch makefile is
#     bench/hpcc.sh's own, with CC = LINKER = the real mpicc or psimcc): HPL Gflop/s at each
#     size, PTRANS GB/s, MPIFFT Gflop/s, MPIRandomAccess GUP/s, from hpccoutf.txt.
# The platform: flat:2 (each host a SPLITDUPLEX link; a message crosses two of them), hosts at
# the flop rate `psim calibrate` measures with --host-speed-ref the same (a CPU second measured
# is a simulated second), link latency = half the real ping-pong one-way latency, link
# bandwidth = 2 MB / (real one-way time - latency), SMPI's bandwidth and latency factors 1 and
# no cross-traffic (no network card nor TCP acknowledgements between two cores). So the ping-pong rows are the calibration (they check the
# model reproduces what it was given); the others are predictions.
# The real MPI is named explicitly (MPICC=mpicc.mpich, MPIEXEC=mpiexec.mpich): Debian's
# `mpicc` alternative may point at Open MPI. BLAS threads are off (OPENBLAS_NUM_THREADS=1) in
# both, as each rank has one core. Exit status: 0, 1 when a build or run failed, 2 bad usage,
# 77 when MPICH or the hpcc source is missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
PSIMCC="$(dirname "$PSIM")/psimcc"
: "${MPICC:=mpicc.mpich}"
: "${MPIEXEC:=mpiexec.mpich}"
: "${PSIM_HPCC_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/psim/hpcc}"
: "${PSIM_HPCC_SRC:=$PSIM_HPCC_DIR/src}"
REPEATS=3
SIZES="2000 4000"
W=
NP=2
SPEED_ONLY=
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
while getopts r:n:w:sh o; do
  case $o in
    r) REPEATS=$OPTARG ;;
    n) SIZES=$OPTARG ;;
    w) W=$OPTARG ;;
    s) SPEED_ONLY=1 ;;
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
[ -n "$SIZES" ] || { echo "validate_mpich.sh: -n expects at least one size" >&2; exit 2; }
[ -x "$PSIM" ] && [ -x "$PSIMCC" ] || { echo "validate_mpich.sh: build psim first (make)" >&2; exit 1; }
command -v "$MPICC" > /dev/null && command -v "$MPIEXEC" > /dev/null ||
  { echo "validate_mpich.sh: needs MPICH ($MPICC, $MPIEXEC: apt-get install mpich libmpich-dev)" >&2; exit 77; }
if [ ! -f "$PSIM_HPCC_SRC/hpl/Make.top" ]; then
  echo "validate_mpich.sh: no hpcc source in $PSIM_HPCC_SRC: run bench/hpcc.sh once (it fetches it) or set PSIM_HPCC_SRC" >&2
  exit 77
fi
if [ -z "$W" ]; then
  W=$(mktemp -d "${TMPDIR:-/tmp}/psim-validate.XXXXXX")
  trap 'rm -rf "$W"' EXIT
fi
mkdir -p "$W/res" || exit 1
rm -f "$W"/res/*
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
log() { echo "validate_mpich.sh: $*" >&2; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }
# median of the values of KEY over the files res/KIND.* ("-" when none)
median() { # KIND KEY
  cat "$W"/res/"$1".* 2> /dev/null | awk -v k="$2" '$1 == k { v[n++] = $2 }
    END { if (!n) { print "-"; exit }
          for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
          if (n % 2) print v[(n - 1) / 2]; else print (v[n / 2 - 1] + v[n / 2]) / 2 }'
}
print_load() {
  awk '{ v[n++] = $1 } END { for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    printf "load average (1 min) sampled between runs: min %s, median %s, max %s (%d samples)\n", v[0], v[int(n / 2)], v[n - 1], n }' "$W/res/load"
}
print_ra() {
  awk -v r="$(median real ra_wall_s)" -v p="$(median psim ra_wall_s)" -v s="$SIZES" 'BEGIN {
    if (r == "-" || p == "-") print "MPIRandomAccess wall time: not measured";
    else printf "MPIRandomAccess section wall time (HPL sizes %s, median): real %.2f s, psim run %.2f s: %.2fx (goal <= 5x)\n", s, r, p, p / r }'
}
echo "$(loadavg)" >> "$W/res/load"

# ---- builds (each kind: the network program and HPCC) ----
# The arch makefile is bench/hpcc.sh's heredoc, run with PSIMCC set to the compiler: the same
# file for both builds, by construction.
sed -n '/^cat > "\$W\/hpcc\/hpl\/Make.psim" <<MK$/,/^MK$/p' "$HERE/hpcc.sh" > "$W/mk.sh"
[ "$(wc -l < "$W/mk.sh")" -gt 10 ] || { log "cannot find the arch makefile in bench/hpcc.sh"; exit 1; }
build() { # KIND CC
  d=$W/$1
  if [ ! -x "$d/hpcc/hpcc" ]; then
    rm -rf "$d" && mkdir -p "$d" && cp -r "$PSIM_HPCC_SRC" "$d/hpcc" || return 1
    W=$d PSIMCC=$(command -v "$2") sh "$W/mk.sh" || return 1
    t0=$(date +%s)
    (cd "$d/hpcc" && make arch=psim > "$d/build.log" 2>&1) ||
      { tail -n 20 "$d/build.log" >&2; log "building hpcc with $2 failed"; return 1; }
    log "built hpcc with $2 in $(($(date +%s) - t0)) s"
  fi
  "$2" -O2 -o "$d/net" "$HERE/validate_net.c" || return 1
}
build real "$MPICC" || exit 1
build psim "$PSIMCC" || exit 1

# ---- runs ----
# hpccinf.txt: P x Q = 1 x 2, every size of -n in one run (HPL runs each in turn).
nsz=$(echo $SIZES | wc -w)
sed -e "5s/^[0-9]*/$nsz/" -e "6s/^[0-9]* */$SIZES /" -e "11s/^[0-9]*/1/" -e "12s/^[0-9]*/2/" \
  "$PSIM_HPCC_SRC/_hpccinf.txt" > "$W/hpccinf.txt"
fails=0

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
        # timeout passes the signal on to mpiexec or psim
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

if [ -n "$SPEED_ONLY" ]; then
  # the platform does not change how fast psim simulates RandomAccess's messages much
  PSIM_ARGS="--platform flat:$NP --host-speed-ref 1e9"
  echo "$(loadavg)" >> "$W/res/load"
  i=1
  while [ $i -le "$REPEATS" ]; do
    for k in real psim; do
      R=$W/$k/ra.$i
      rm -rf "$R" && mkdir -p "$R" && cp "$W/hpccinf.txt" "$R/"
      if [ $k = real ]; then timed "$R" "$MPIEXEC" -n $NP "$W/real/hpcc/hpcc"
      # shellcheck disable=SC2086
      else timed "$R" "$PSIM" run --np $NP $PSIM_ARGS -q -- "$W/psim/hpcc/hpcc"; fi
      [ -f "$R/ra_wall" ] && echo "ra_wall_s $(cat "$R/ra_wall")" >> "$W/res/$k.$i"
    done
    log "MPIRandomAccess run $i: real $(cat "$W/real/ra.$i/ra_wall" 2> /dev/null) s, psim run $(cat "$W/psim/ra.$i/ra_wall" 2> /dev/null) s"
    i=$((i + 1))
  done
  print_load
  print_ra
  [ $fails -eq 0 ]
  exit
fi

# The network program: the real runs first, as they calibrate the platform.
net_run() { # KIND I CMD...
  k=$1; i=$2; shift 2
  R=$W/$k/net.$i
  mkdir -p "$R"
  timed "$R" "$@" && sed 's/^/net_/' "$R/stdout" >> "$W/res/$k.$i"
}
i=1
while [ $i -le "$REPEATS" ]; do
  net_run real $i "$MPIEXEC" -n $NP "$W/real/net" || exit 1
  i=$((i + 1))
done

lat_us=$(median real net_pingpong_latency_us)
bw_gbs=$(median real net_pingpong_bandwidth_GBs)
# one-way time of 2 MB = 2 x link latency + 2e6 / link bandwidth; the latency is half the
# 8-byte one-way time (its 8 bytes' transfer time is negligible)
link_lat=$(awk -v l="$lat_us" 'BEGIN { printf "%.6g", l / 2 * 1e-6 }')
link_bw=$(awk -v l="$lat_us" -v b="$bw_gbs" 'BEGIN { printf "%.6g", 2e6 / (2e6 / (b * 1e9) - l * 1e-6) }')
speed=$("$PSIM" calibrate 2> /dev/null | tail -n 1)
case $speed in [0-9]*) ;; *) log "psim calibrate failed"; exit 1 ;; esac
PLAT="flat:$NP,$speed,${link_bw}Bps,${link_lat}s"
PSIM_ARGS="--platform $PLAT --host-speed-ref $speed --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1 --cfg network/crosstraffic:0"

i=1
while [ $i -le "$REPEATS" ]; do
  # shellcheck disable=SC2086
  net_run psim $i "$PSIM" run --np $NP $PSIM_ARGS -q -- "$W/psim/net" || exit 1
  i=$((i + 1))
done

# HPCC, real and simulated runs interleaved so that both see the same load drift.
hpcc_run() { # KIND I CMD...
  k=$1; i=$2; shift 2
  R=$W/$k/hpcc.$i
  rm -rf "$R" && mkdir -p "$R" && cp "$W/hpccinf.txt" "$R/"
  timed "$R" "$@" || return 1
  out=$R/hpccoutf.txt
  grep -q '^Success=1' "$out" || { log "$k run $i: hpccoutf.txt has no Success=1"; fails=$((fails + 1)); return 1; }
  # HPL's result lines: T/V N NB P Q Time Gflops
  awk '/^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.e+-]+$/ {
         print "hpl_" $2 "_Gflops", $7; print "hpl_" $2 "_s", $6 }' "$out" >> "$W/res/$k.$i"
  sed -n -e 's/^\(PTRANS_GBs\|MPIFFT_Gflops\|MPIRandomAccess_GUPs\|MPIRandomAccess_time\)=\(.*\)/\1 \2/p' "$out" >> "$W/res/$k.$i"
  echo "wall_s $(cat "$R/wall")" >> "$W/res/$k.$i"
  [ -f "$R/ra_wall" ] && echo "ra_wall_s $(cat "$R/ra_wall")" >> "$W/res/$k.$i"
  log "$k hpcc run $i: $(cat "$R/wall") s wall"
}
i=1
while [ $i -le "$REPEATS" ]; do
  hpcc_run real $i "$MPIEXEC" -n $NP "$W/real/hpcc/hpcc"
  # shellcheck disable=SC2086
  hpcc_run psim $i "$PSIM" run --np $NP $PSIM_ARGS -q --json "$W/psim/hpcc.$i/run.json" -- "$W/psim/hpcc/hpcc"
  i=$((i + 1))
done

# ---- the table ----
row() { # LABEL KEY [PRECISION]
  r=$(median real "$2"); p=$(median psim "$2")
  awk -v l="$1" -v r="$r" -v p="$p" -v d="${3:-3}" 'BEGIN {
    if (r == "-" || p == "-") { printf "| %s | %s | %s | - |\n", l, r, p; exit }
    printf "| %s | %.*g | %.*g | %+.1f %% |\n", l, d, r, d, p, (p - r) / r * 100 }'
}
echo "psim run vs MPICH $("$MPIEXEC" --version 2> /dev/null | sed -n 's/^ *Version: *//p' | head -n 1) at np=$NP, $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC'), medians of $REPEATS runs"
echo "platform: $PLAT (psim calibrate: $speed flop/s = --host-speed-ref; SMPI factors 1, no cross-traffic)"
echo
echo "| quantity | real MPICH | psim run | error |"
echo "|---|---|---|---|"
row "ping-pong latency, 8 B (us) [calibration]" net_pingpong_latency_us 4
row "ping-pong bandwidth, 2 MB (GB/s) [calibration]" net_pingpong_bandwidth_GBs 4
row "ring latency, 8 B (us)" net_ring_latency_us 4
row "ring bandwidth, 2 MB (GB/s)" net_ring_bandwidth_GBs 4
for n in $SIZES; do
  row "HPL N=$n (Gflop/s)" "hpl_${n}_Gflops" 4
done
row "PTRANS (GB/s)" PTRANS_GBs 4
row "MPIFFT (Gflop/s)" MPIFFT_Gflops 4
row "MPIRandomAccess (GUP/s)" MPIRandomAccess_GUPs 4
echo
print_load
echo "hpcc wall time (median): real $(median real wall_s) s, psim run $(median psim wall_s) s"
print_ra
[ $fails -eq 0 ]
