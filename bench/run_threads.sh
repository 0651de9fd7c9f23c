#!/bin/sh
# psim run --threads (issue 38, src/emul/emu_par.c): wall time and prediction of the same runs
# on psim's own thread (no --threads), --threads 1 and --threads 2, for
#   compute  tests/data/emul/threads.c: NP ranks, 4 x (W million dependent multiply-adds, then
#            an allreduce): compute-bound, the issue's goal is 2 threads <= 1/1.6 of one's wall
#   hpcg     HPCG 3.1, 16^3 per rank, built by psimc++ (bench/validate_mpich.sh's sources)
#   comd     CoMD 1.1, 24^3 cells x 2 atoms, 20 steps, built by psimcc
#   poll     tests/data/emul/iprobe_loop.c: HPC Challenge's RandomAccess pattern, an MPI_Iprobe
#            after every table update (a turn every few hundred ns), P thousand updates a rank
# Each run is timed from outside (wall seconds, date +%s.%N), the configurations taking turns
# (own, 1, 2, own, 1, 2...) so that they see the same drift of the machine's load; the table
# prints medians of RUNS runs, min-max, the ratios of the medians to psim's own thread, and the
# predicted time of each (the JSON's simulated_time; it should agree within the measurement's
# noise, a few %). --host-speed-ref is fixed (1e9) so that the calibration's own noise stays
# out of the predictions. On a shared machine the wall times are those of the moment: say so.
#   bench/run_threads.sh                      every kind, 3 runs, 16 ranks
#   bench/run_threads.sh -r 5 -k compute      only the compute-bound program
#   options: -r RUNS (3)  -k KINDS ("compute hpcg comd")  -n NP (16)  -w MILLIONS (compute: 100)
#            -p THOUSANDS (poll: 200)
#            -c CONFIGS ("own 1 2": psim's own thread, --threads 1, --threads 2; "own 2nl": 2
#            threads without lookahead)
# "at once": how many workers had a rank to run at once on average (--cfg run/threads-stats),
# what the run could use of that many cores whatever the machine's load gave it.
#   environment: PSIM (build/psim), PSIM_HPCG_SRC, PSIM_COMD_SRC (~/.cache/psim/{hpcg,comd}/src),
#   PSIM_BENCH_DIR (~/.cache/psim/threads-bench: the builds, kept)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PSIM=${PSIM:-$HERE/../build/psim}
PSIM=$(cd "$(dirname "$PSIM")" && pwd)/$(basename "$PSIM")   # the runs happen in their own directories
PSIMCC="$(dirname "$PSIM")/psimcc"
PSIMCXX="$(dirname "$PSIM")/psimc++"
CACHE=$HOME/.cache/psim
: "${PSIM_HPCG_SRC:=$CACHE/hpcg/src}"
: "${PSIM_COMD_SRC:=$CACHE/comd/src}"
W=${PSIM_BENCH_DIR:-$CACHE/threads-bench}
RUNS=3 KINDS="compute hpcg comd" NP=16 WORK=100 CONFIGS="own 1 2" POLLS=200
while getopts r:k:n:w:c:p: o; do
  case $o in r) RUNS=$OPTARG ;; k) KINDS=$OPTARG ;; n) NP=$OPTARG ;; w) WORK=$OPTARG ;; c) CONFIGS=$OPTARG ;;
    p) POLLS=$OPTARG ;; *) exit 2 ;; esac
done
log() { echo "run_threads.sh: $*" >&2; }
mkdir -p "$W" || exit 1

# ---- builds (kept in $W) ----
"$PSIMCC" -O2 -o "$W/threads" "$HERE/../tests/data/emul/threads.c" || { log "psimcc threads.c failed"; exit 1; }
"$PSIMCC" -O2 -o "$W/iprobe_loop" "$HERE/../tests/data/emul/iprobe_loop.c" || { log "psimcc iprobe_loop.c failed"; exit 1; }
case " $KINDS " in *" hpcg "*)
  if [ ! -x "$W/hpcg/bin/xhpcg" ] || [ "$W/hpcg/bin/xhpcg" -ot "$PSIM" ]; then
    [ -f "$PSIM_HPCG_SRC/configure" ] || { log "no HPCG sources in $PSIM_HPCG_SRC (bench/validate_mpich.sh fetches them)"; exit 1; }
    rm -rf "$W/hpcg" && mkdir -p "$W/hpcg" || exit 1
    sed "s|^CXX *=.*|CXX = $PSIMCXX|" "$PSIM_HPCG_SRC/setup/Make.Linux_MPI" > "$PSIM_HPCG_SRC/setup/Make.Vthreads"
    (cd "$W/hpcg" && "$PSIM_HPCG_SRC/configure" Vthreads > /dev/null && make -j2 > "$W/hpcg.log" 2>&1) ||
      { tail -n 20 "$W/hpcg.log" >&2; log "building HPCG failed"; exit 1; }
  fi
  printf 'HPCG benchmark input file\nrun_threads.sh\n16 16 16\n2\n' > "$W/hpcg/bin/hpcg.dat" ;;
esac
# CoMD's -i -j -k for N ranks: N's prime factors, each (largest first) to the smallest of the
# three (16: 4 2 2, 64: 4 4 4), as MPI_Dims_create balances them
dims3() {
  awk -v n="$1" 'BEGIN { d[0] = d[1] = d[2] = 1; m = n; k = 0
    for (p = 2; p * p <= m; p++) while (m % p == 0) { f[k++] = p; m /= p }
    if (m > 1) f[k++] = m
    for (i = k - 1; i >= 0; i--) { j = 0; if (d[1] < d[j]) j = 1; if (d[2] < d[j]) j = 2; d[j] *= f[i] }
    printf "-i %d -j %d -k %d", d[0], d[1], d[2] }'
}
case " $KINDS " in *" comd "*)
  if [ ! -x "$W/comd/bin/CoMD-mpi" ] || [ "$W/comd/bin/CoMD-mpi" -ot "$PSIM" ]; then
    [ -d "$PSIM_COMD_SRC/src-mpi" ] || { log "no CoMD sources in $PSIM_COMD_SRC (bench/validate_mpich.sh fetches them)"; exit 1; }
    rm -rf "$W/comd" && cp -r "$PSIM_COMD_SRC" "$W/comd" && cp "$W/comd/src-mpi/Makefile.vanilla" "$W/comd/src-mpi/Makefile" || exit 1
    (cd "$W/comd/src-mpi" && make CC="$PSIMCC" OPTFLAGS=-O2 > "$W/comd.log" 2>&1) ||
      { tail -n 20 "$W/comd.log" >&2; log "building CoMD failed"; exit 1; }
  fi ;;
esac

# ---- runs ----
now() { date +%s.%N; }
# one run: KIND CONFIG I -> appends "KIND CONFIG wall simulated" to $W/results
one() {
  d="$W/run/$1.$2.$3"
  rm -rf "$d" && mkdir -p "$d" || return 1
  case $2 in own) opt= ;; *nl) opt="--threads ${2%nl} --cfg run/lookahead:no --cfg run/threads-stats:yes" ;;
    *) opt="--threads $2 --cfg run/threads-stats:yes" ;; esac
  case $1 in
    compute) set -- "$1" "$2" "$W/threads" -n 4 -w "$WORK" ;;
    hpcg) cp "$W/hpcg/bin/hpcg.dat" "$d/" && set -- "$1" "$2" "$W/hpcg/bin/xhpcg" ;;
    comd) set -- "$1" "$2" "$W/comd/bin/CoMD-mpi" $(dims3 "$NP") -x 24 -y 24 -z 24 -N 20 -n 10 ;;
    poll) set -- "$1" "$2" "$W/iprobe_loop" $((POLLS * 1000)) ;;
  esac
  kind=$1 cfg=$2
  shift 2
  t0=$(now)
  # shellcheck disable=SC2086
  (cd "$d" && "$PSIM" run --np "$NP" --host-speed-ref 1e9 -q $opt --json run.json -- "$@" > stdout 2> stderr) ||
    { log "$kind at $cfg: exit status $?: $(tail -n 2 "$d/stderr")"; return 1; }
  t1=$(now)
  sim=$(sed -n 's/.*"simulated_time": \([-0-9.eE+]*\).*/\1/p' "$d/run.json" | head -n 1)
  grep -h "^psim: --threads" "$d/stderr" | grep -v "workers ran" | sort -u >&2
  once=$(sed -n 's/.*: \([0-9.]*\) at once on average.*/\1/p' "$d/stderr" | head -n 1)
  echo "$kind $cfg $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $sim ${once:-1}" >> "$W/results"
}
: > "$W/results"
echo "psim run --threads: $RUNS runs each, $NP ranks, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, $(date -u '+%Y-%m-%d %H:%M UTC')"
for kind in $KINDS; do
  for i in $(seq "$RUNS"); do
    for c in $CONFIGS; do one "$kind" "$c" "$i" || exit 1; done
  done
done
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- table ----
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-8s %-6s %10s %17s %9s %14s %9s %8s\n' program thread "wall (s)" "min-max" "/ own" "predicted (s)" "/ own" "at once"
for kind in $KINDS; do
  ow=$(awk -v k="$kind" '$1 == k && $2 == "own" { print $3 }' "$W/results" | median)
  os=$(awk -v k="$kind" '$1 == k && $2 == "own" { print $4 }' "$W/results" | median)
  for c in $CONFIGS; do
    wall=$(awk -v k="$kind" -v c="$c" '$1 == k && $2 == c { print $3 }' "$W/results" | median)
    lo=$(awk -v k="$kind" -v c="$c" '$1 == k && $2 == c { print $3 }' "$W/results" | sort -g | head -n 1)
    hi=$(awk -v k="$kind" -v c="$c" '$1 == k && $2 == c { print $3 }' "$W/results" | sort -g | tail -n 1)
    sim=$(awk -v k="$kind" -v c="$c" '$1 == k && $2 == c { print $4 }' "$W/results" | median)
    once=$(awk -v k="$kind" -v c="$c" '$1 == k && $2 == c { print $5 }' "$W/results" | median)
    printf '%-8s %-6s %10.2f %8.2f-%-8.2f %9.3f %14.6f %9.4f %8.2f\n' "$kind" "$c" "$wall" "$lo" "$hi" \
      "$(awk -v a="$wall" -v b="$ow" 'BEGIN { print a / b }')" "$sim" "$(awk -v a="$sim" -v b="$os" 'BEGIN { print a / b }')" "$once"
  done
done
