#!/bin/sh
# psim run's run-to-run spread on one program, --repeat 1 and --repeat K alternately (A B A B),
# under whatever load the machine has: prints each run's figure and load, then for each mode
# the median and the spread (max - min) / median. docs/models.md quotes it for CoMD.
#
#   bench/run_spread.sh [-n RUNS] [-k K] [-p PLATFORM] [-e AWK] -- PROGRAM ARGS...
#     -n RUNS    runs of each mode (default 5)
#     -k K       the --repeat of the second mode (default 3)
#     -p FILE    the platform (default: tests/data/calib/mpich-np2.txt's, fitted)
#     -e AWK     awk program printing the figure from the program's stdout (default: CoMD's
#                loop time, '$1 == "loop" && $2 == 1 { print $4; exit }')
#   e.g. bench/run_spread.sh -- ~/.cache/psim/comd/build/bin/CoMD-mpi -i 2 -j 1 -k 1 -x 24 -y 24 -z 24 -N 100 -n 50
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PSIM:=$HERE/../build/psim}"
RUNS=5 K=3 PLATFORM= FIG='$1 == "loop" && $2 == 1 { print $4; exit }'
while getopts n:k:p:e: o; do
  case $o in
    n) RUNS=$OPTARG ;;
    k) K=$OPTARG ;;
    p) PLATFORM=$OPTARG ;;
    e) FIG=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -ge 1 ] || { echo "run_spread.sh: name the program (see the header)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/psim-spread.XXXXXX")
trap 'rm -rf "$W"' EXIT
if [ -z "$PLATFORM" ]; then
  PLATFORM=$W/p.xml
  "$PSIM" calibrate --machine --measurements "$HERE/../tests/data/calib/mpich-np2.txt" --cores 2 -o "$PLATFORM" > /dev/null || exit 1
fi
export OPENBLAS_NUM_THREADS=1
for i in $(seq "$RUNS"); do
  for k in 1 "$K"; do
    l=$(cut -d' ' -f1 /proc/loadavg)
    d=$W/run.$i.$k; mkdir -p "$d"
    s=$(date +%s)
    (cd "$d" && "$PSIM" run --np 2 --platform "$PLATFORM" -q --repeat "$k" -- "$@" > out 2> err) || { echo "run $i --repeat $k failed: $(tail -n 3 "$d/err")" >&2; exit 1; }
    f=$(awk "$FIG" "$d/out")
    echo "run $i --repeat $k: load $l, wall $(( $(date +%s) - s )) s: $f"
    echo "$f" >> "$W/fig.$k"
  done
done
for k in 1 "$K"; do
  sort -g "$W/fig.$k" | awk -v k="$k" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "--repeat %s: median %.4g, %.4g to %.4g, spread %.1f %%\n", k, m, v[1], v[NR], 100 * (v[NR] - v[1]) / m }'
done
